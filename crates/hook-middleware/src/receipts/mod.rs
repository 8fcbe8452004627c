//! Receipts (DESIGN §8): a record of every execution and skip, and the sinks that keep them.
//!
//! A sink failure never fails a dispatch: the pipeline turns it into one diagnostic.

use hook_types::Receipt;

/// Where receipts go. Implementations must be cheap to call from a dispatch and must never panic.
pub trait ReceiptSink: Send + Sync + 'static {
    /// A short name for diagnostics (`ring`, `file:/path/to/log.jsonl`).
    fn name(&self) -> String;

    /// Records one receipt. An error is reported as a diagnostic; the dispatch goes on.
    fn record(&self, receipt: &Receipt) -> Result<(), SinkError>;
}

/// The error returned by [`ReceiptSink::record`].
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// The sink's file or directory could not be created, locked or written.
    #[error("receipt sink `{sink}`: {action} {path}: {source}")]
    Io {
        /// The sink's name.
        sink: String,
        /// What was being done (`creating`, `locking`, `appending to`).
        action: &'static str,
        /// The path involved.
        path: std::path::PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Anything else, described.
    #[error("receipt sink `{sink}`: {message}")]
    Other {
        /// The sink's name.
        sink: String,
        /// What went wrong.
        message: String,
    },
}
