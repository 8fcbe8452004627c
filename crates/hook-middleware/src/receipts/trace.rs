//! The `tracing` sink: one event per receipt, so a host's existing subscriber (logs, OpenTelemetry) sees them.

use hook_types::{Outcome, Receipt};

use super::{ReceiptSink, SinkError};

/// The target of every receipt event, for filtering (`RUST_LOG=hook_middleware::receipt=info`).
pub const RECEIPT_TARGET: &str = "hook_middleware::receipt";

/// Emits one `tracing` event per receipt at target [`RECEIPT_TARGET`], with every receipt field as an event field
/// (`effects` comma-joined; absent optional fields are left out). Failures and timeouts are `WARN`, the rest `INFO`.
/// Never fails.
///
/// ```
/// use std::sync::Arc;
/// use hook_middleware::receipts::{ReceiptSink, TracingSink};
/// let sink: Arc<dyn ReceiptSink> = Arc::new(TracingSink);
/// assert_eq!(sink.name(), "tracing");
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingSink;

impl ReceiptSink for TracingSink {
    /// An in-memory push: never blocks.
    fn may_block(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        "tracing".to_owned()
    }

    fn record(&self, r: &Receipt) -> Result<(), SinkError> {
        // `tracing` needs the level at compile time at each call site, hence one macro per level.
        macro_rules! emit {
            ($level:expr) => {
                tracing::event!(
                    target: RECEIPT_TARGET,
                    $level,
                    time = %r.time,
                    hook_id = %r.hook_id,
                    origin = r.origin.map(|o| o.as_str()),
                    source = %r.source,
                    hash = %r.hash,
                    event = %r.event,
                    kind = r.kind.as_str(),
                    outcome = outcome_name(r.outcome),
                    effects = %r.effects.join(","),
                    exit_code = r.exit_code,
                    output_bytes = r.output_bytes,
                    tool_name = r.tool_name.as_deref(),
                    duration_ms = r.duration_ms,
                    session_id = r.session_id.as_deref(),
                    reason = r.reason.as_deref(),
                    "hook receipt"
                )
            };
        }
        match r.outcome {
            Outcome::CommandFailed | Outcome::CommandTimeout => emit!(tracing::Level::WARN),
            _ => emit!(tracing::Level::INFO),
        }
        Ok(())
    }
}

/// The wire name of an outcome (docs/receipts.md#what-a-receipt-holds), without going through serde.
pub fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Emitted => "emitted",
        Outcome::CommandOk => "command_ok",
        Outcome::Blocked => "blocked",
        Outcome::CommandFailed => "command_failed",
        Outcome::CommandTimeout => "command_timeout",
        Outcome::Skipped => "skipped",
        Outcome::Untrusted => "untrusted",
        Outcome::Modified => "modified",
        Outcome::Cancelled => "cancelled",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_names_match_serde() {
        use Outcome::*;
        for o in [Emitted, CommandOk, Blocked, CommandFailed, CommandTimeout, Skipped, Untrusted, Modified, Cancelled] {
            assert_eq!(serde_json::to_value(o).unwrap(), outcome_name(o));
        }
    }
}
