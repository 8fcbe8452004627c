//! Receipts (docs/receipts.md): a record of every execution and skip, and the sinks that keep them.
//!
//! - [`RingSink`]: the newest receipts in memory.
//! - [`FileSink`]: a hash-chained JSON-lines log with its head beside it, size rotation, a file lock around each
//!   append, and an optional host key that turns the chain into an HMAC chain; its module docs state the layout
//!   and the threat model. Receipts it could not append are marked in `<log>.gaps`. [`verify`] checks such a log,
//!   says where the chain breaks and how many receipts are missing; [`tail`] reads it back.
//! - [`TracingSink`]: one `tracing` event per receipt.
//!
//! A sink failure never fails a dispatch: [`Sinks::record_all`] hands one dispatch's receipts to every sink and
//! returns one [`SinkDiagnostic`] per failing sink.
//!
//! ```
//! use std::sync::Arc;
//! use hook_middleware::receipts::{verify, FileSink, RingSink, Sinks, TracingSink};
//! # let receipt: hook_types::Receipt = serde_json::from_str(r#"{"time":"1970-01-01T00:00:00.000Z","hook_id":"h",
//! #   "origin":null,"source":"host","hash":"","event":"pre_tool","kind":"in_process","outcome":"emitted",
//! #   "effects":[],"exit_code":null,"output_bytes":0,"tool_name":null,"duration_ms":0,"session_id":null,"prev":null}"#).unwrap();
//! let dir = tempfile::tempdir().unwrap();
//! let file = Arc::new(FileSink::new(dir.path().join("receipts.jsonl")));
//! let sinks = Sinks::new().with(Arc::new(RingSink::new(256))).with(Arc::new(TracingSink)).with(file.clone());
//! assert!(sinks.record_all(&[receipt]).is_empty());
//! assert!(verify(file.path(), None).unwrap().is_intact());
//! ```

mod chain;
mod fanout;
mod file;
mod gaps;
mod path;
mod ring;
mod trace;
mod verify;

pub use chain::{GENESIS, HostKey, hmac_sha256};
pub use fanout::{SinkDiagnostic, Sinks};
pub use file::{FileSink, FileSinkOptions};
pub use gaps::{MAX_GAP_BYTES, Missing};
pub use path::{default_receipt_path, receipt_path_in, session_state_dir, workspace_id};
pub use ring::RingSink;
pub use trace::{RECEIPT_TARGET, TracingSink, outcome_name};
pub use verify::{BreakKind, ChainBreak, VerifyError, VerifyReport, tail, verify};

use hook_types::Receipt;

/// Where receipts go. Implementations must be cheap to call from a dispatch and must never panic.
pub trait ReceiptSink: Send + Sync + 'static {
    /// A short name for diagnostics (`ring`, `file:/path/to/log.jsonl`).
    fn name(&self) -> String;

    /// Records one receipt. An error is reported as a diagnostic; the dispatch goes on.
    fn record(&self, receipt: &Receipt) -> Result<(), SinkError>;

    /// Whether recording may block the calling thread (file I/O, a lock, the network). The pipeline records on
    /// Tokio's blocking pool when any of its sinks may block, and inline otherwise: the hop to another thread costs
    /// tens of microseconds, more than an in-memory sink's whole work. Defaults to `true`, the safe answer.
    fn may_block(&self) -> bool {
        true
    }

    /// Records one dispatch's receipts, in order. The default calls [`ReceiptSink::record`] for each, going on
    /// after a failure (a full disk can clear), and reports how many failed with the first error; a sink that can
    /// do better overrides it ([`FileSink`] takes its lock once per batch).
    fn record_batch(&self, receipts: &[Receipt]) -> Result<(), BatchError> {
        let mut failure: Option<BatchError> = None;
        for receipt in receipts {
            if let Err(error) = self.record(receipt) {
                failure.get_or_insert(BatchError { failed: 0, error }).failed += 1;
            }
        }
        failure.map_or(Ok(()), Err)
    }
}

/// The error returned by [`ReceiptSink::record_batch`]: how many receipts of the batch were lost, and why.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct BatchError {
    /// Receipts of the batch not recorded.
    pub failed: usize,
    /// The first error.
    #[source]
    pub error: SinkError,
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
