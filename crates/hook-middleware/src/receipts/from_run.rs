//! Building the receipt of one run from its summary and the dispatch's input.

use std::time::{SystemTime, UNIX_EPOCH};

use hook_types::{Effect, HookKind, Outcome, Receipt, RunSummary, format_rfc3339_millis};

use crate::EventInput;

/// The receipt (DESIGN §8) of one run or skip: identity, event and exit code from `run`, the outcome from `kind`
/// and `run.status`, the effect kinds in order, `output_bytes` (stdout plus stderr captured; 0 for a hook that did
/// not spawn), tool name and session id from `input`, and `ended` as the time. `prev` is left for the file sink.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use hook_middleware::{receipts::receipt_for_run, EventInput};
/// use hook_types::{Event, HookKind, Outcome, Protocol, RunStatus, RunSummary};
/// let run = RunSummary {
///     hook_id: "project.guard".into(), origin: None, source: "host".into(), hash: String::new(),
///     event: Event::PreTool, protocol: Protocol::Native, status: RunStatus::TimedOut, exit_code: None,
///     duration_ms: 1500, entries: vec![],
/// };
/// let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({})).with_session("s1");
/// let receipt = receipt_for_run(&run, HookKind::Command, &[], 0, &input, UNIX_EPOCH + Duration::from_millis(1));
/// assert_eq!(receipt.outcome, Outcome::CommandTimeout);
/// assert_eq!(receipt.time, "1970-01-01T00:00:00.001Z");
/// assert_eq!(receipt.tool_name.as_deref(), Some("shell"));
/// ```
pub fn receipt_for_run(
    run: &RunSummary,
    kind: HookKind,
    effects: &[Effect],
    output_bytes: u64,
    input: &EventInput,
    ended: SystemTime,
) -> Receipt {
    let unix_ms = ended.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    Receipt {
        time: format_rfc3339_millis(unix_ms),
        hook_id: run.hook_id.clone(),
        origin: run.origin,
        source: run.source.clone(),
        hash: run.hash.clone(),
        event: run.event.clone(),
        kind,
        outcome: Outcome::from_status(kind, run.status),
        effects: effects.iter().map(|e| e.kind().to_owned()).collect(),
        exit_code: run.exit_code,
        output_bytes,
        tool_name: input.tool_name.clone(),
        duration_ms: run.duration_ms,
        session_id: input.session_id.clone(),
        prev: None,
    }
}
