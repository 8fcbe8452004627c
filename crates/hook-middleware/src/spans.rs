//! `tracing` spans around each dispatch and each hook run (docs/embedding.md), with the event, hook id, status and
//! duration as fields, so a host's subscriber can time and filter them.
//!
//! The pipeline opens [`dispatch_span`] for a dispatch and a [`hook_span`] inside it for every hook, runs the hook
//! inside the span (`span.in_scope(…)` or `future.instrument(span)`), and records the result on the span with
//! [`record_hook`] and [`record_dispatch`]. A hook span's result is recorded once, from the run summary as the
//! dispatch folded it: a hook that finished before a higher-precedence hook denied is `cancelled` on its span, as in
//! its summary and receipt, whatever the timing. The fields that are only known at the end are declared empty up
//! front (`tracing` can record only fields a span was created with).

use std::time::Duration;

use hook_types::{Event, RunStatus, RunSummary, Verdict};
use tracing::Span;
use tracing::field::Empty;

use crate::EventInput;

/// The target of both spans, for filtering (`RUST_LOG=hook_middleware::span=info`).
pub const SPAN_TARGET: &str = "hook_middleware::span";

/// The span of one dispatch, `hook_dispatch`, at `INFO`: fields `event`, `tool_name` and `session_id` now;
/// `verdict`, `hooks` (runs) and `duration_ms` when [`record_dispatch`] is called.
///
/// ```
/// use hook_middleware::{spans, EventInput};
/// use hook_types::{Event, Verdict};
/// let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({}));
/// let span = spans::dispatch_span(&input);
/// let _entered = span.enter();
/// // … run the hooks …
/// spans::record_dispatch(&span, Verdict::Pass, 0, std::time::Duration::from_millis(3));
/// ```
pub fn dispatch_span(input: &EventInput) -> Span {
    tracing::info_span!(
        target: SPAN_TARGET,
        "hook_dispatch",
        event = %input.event,
        tool_name = input.tool_name.as_deref(),
        session_id = input.session_id.as_deref(),
        verdict = Empty,
        hooks = Empty,
        duration_ms = Empty,
    )
}

/// Records how a dispatch ended on its span: the verdict, how many hooks ran (or were skipped), and its duration.
pub fn record_dispatch(span: &Span, verdict: Verdict, hooks: usize, duration: Duration) {
    span.record("verdict", verdict.as_str());
    span.record("hooks", hooks as u64);
    span.record("duration_ms", millis(duration));
}

/// The span of one hook's run, `hook_run`, at `INFO`: fields `hook_id` and `event` now; `status`, `exit_code` and
/// `duration_ms` when [`record_hook`] or [`record_run`] is called. Opened inside the dispatch span, it is that
/// span's child.
///
/// ```
/// use hook_middleware::spans;
/// use hook_types::{Event, RunStatus};
/// let span = spans::hook_span("project.guard", &Event::PreTool);
/// spans::record_run(&span, RunStatus::Blocked, Some(2), std::time::Duration::from_millis(12));
/// ```
pub fn hook_span(hook_id: &str, event: &Event) -> Span {
    tracing::info_span!(
        target: SPAN_TARGET,
        "hook_run",
        hook_id = hook_id,
        event = %event,
        status = Empty,
        exit_code = Empty,
        duration_ms = Empty,
    )
}

/// Records a finished run's status, exit code and duration on its span.
pub fn record_run(span: &Span, status: RunStatus, exit_code: Option<i32>, duration: Duration) {
    span.record("status", status_name(status));
    if let Some(code) = exit_code {
        span.record("exit_code", i64::from(code));
    }
    span.record("duration_ms", millis(duration));
}

/// [`record_run`] from a run summary.
pub fn record_hook(span: &Span, summary: &RunSummary) {
    record_run(span, summary.status, summary.exit_code, Duration::from_millis(summary.duration_ms));
}

/// The wire name of a run status (docs/output-protocol.md#run-statuses).
pub fn status_name(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Completed => "completed",
        RunStatus::Blocked => "blocked",
        RunStatus::Failed => "failed",
        RunStatus::TimedOut => "timed_out",
        RunStatus::Skipped => "skipped",
        RunStatus::Untrusted => "untrusted",
        RunStatus::Cancelled => "cancelled",
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_match_serde() {
        use RunStatus::*;
        for s in [Completed, Blocked, Failed, TimedOut, Skipped, Untrusted, Cancelled] {
            assert_eq!(serde_json::to_value(s).unwrap(), status_name(s));
        }
    }
}
