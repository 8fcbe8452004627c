//! Answers of an agent's own vocabulary that no effect of the engine carries, handed on to the agent from its own
//! hooks when the bridge answers for a whole dispatch: Claude Code's `defer` on PreToolUse, `updatedToolOutput` on
//! PostToolUse, `retry` on PermissionDenied, PreModelSwitch's and PreSkillShellCommand's `permissionDecision`,
//! MessageDisplay's `displayContent`, SessionStart's `sessionTitle`, and whatever else its `hookSpecificOutput`
//! holds that the engine does not read.
//!
//! They come from the runs of hooks that follow the invoking agent's protocol and kept their answer (the run's
//! [`Replay`](hook_types::Replay): the agent reads it exactly as the engine did), from the `hookSpecificOutput` that
//! names the event. Runs are read highest precedence first, and several answers fold so:
//!
//! - `permissionDecision` (where the engine does not read it: a foreign event, or `defer` on pre_tool): the most
//!   restrictive, `deny` before `defer` before `ask` before `allow`, with the reason of the run that gave it; on
//!   pre_tool a `defer` replaces the engine's own allow, ask or pass, never its deny;
//! - `retry`: `true` when any run says so (Claude Code retries when any PermissionDenied hook asks);
//! - any other key the engine does not read: the highest-precedence run's.
//!
//! The keys the engine reads itself (`permissionDecision` and its reason and `updatedInput` on pre_tool, `decision`
//! on a permission request, `additionalContext` everywhere) are not carried: the engine's answer already holds them.

use hook_types::{Event, RunStatus, RunSummary, Verdict};
use serde_json::{Map, Value};

use super::input::AgentInput;
use hook_middleware::DispatchResult;

/// The keys of `hookSpecificOutput` the engine reads on canonical events; any other key is carried.
const READ_BY_THE_ENGINE: &[&str] = &[
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "decision",
    "additionalContext",
];

/// `permissionDecision` words, least restrictive first.
const DECISIONS: &[&str] = &["allow", "ask", "defer", "deny"];

/// Puts what the agent's own hooks answered beyond the engine's vocabulary (see the module docs) into `out`, the
/// bridge's answer in the agent's Claude-shaped output.
pub(super) fn merge(read: &AgentInput, result: &DispatchResult, out: &mut Map<String, Value>) {
    let answers: Vec<Map<String, Value>> = result.runs.iter().rev().filter_map(|run| own_specific(read, run)).collect();
    if answers.is_empty() {
        return;
    }
    let event = &read.input.event;
    let mut carried = Map::new();
    for answer in &answers {
        for (key, value) in answer {
            if READ_BY_THE_ENGINE.contains(&key.as_str()) || key == "retry" {
                continue;
            }
            carried.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    if read.agent.agent().answers.retry && answers.iter().any(|a| a.get("retry") == Some(&Value::Bool(true))) {
        carried.insert("retry".into(), Value::Bool(true));
    }
    let decision = strictest(&answers);
    let specific = out.entry("hookSpecificOutput").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(specific) = specific else { return };
    match (event, decision) {
        (Event::Foreign(_), Some((word, reason))) => {
            specific.insert("permissionDecision".into(), word.into());
            if let Some(reason) = reason {
                specific.insert("permissionDecisionReason".into(), reason);
            }
        }
        (Event::PreTool, Some(("defer", reason)))
            if read.agent.agent().answers.defer && result.verdict != Verdict::Deny =>
        {
            specific.insert("permissionDecision".into(), "defer".into());
            match reason {
                Some(reason) => specific.insert("permissionDecisionReason".into(), reason),
                None => specific.remove("permissionDecisionReason"),
            };
            // A deferred call is resumed as the model asked for it: no rewrite of the engine's goes with it.
            specific.remove("updatedInput");
        }
        _ => {}
    }
    specific.extend(carried);
    if specific.is_empty() {
        out.remove("hookSpecificOutput");
    } else if !specific.contains_key("hookEventName") {
        let mut named = Map::new();
        named.insert("hookEventName".into(), read.event_name.clone().into());
        named.extend(std::mem::take(specific));
        *specific = named;
    }
}

/// The `hookSpecificOutput` of `run`'s own answer, when the run follows `read`'s agent's protocol, kept its answer,
/// did not fail (an answer the agent rejects, Codex's `updatedMCPToolOutput`, would make it reject the bridge's whole
/// answer, a deny of another hook's with it), and that answer names this event.
fn own_specific(read: &AgentInput, run: &RunSummary) -> Option<Map<String, Value>> {
    if run.protocol != read.agent || !matches!(run.status, RunStatus::Completed | RunStatus::Blocked) {
        return None;
    }
    let replay = run.replay.as_ref()?;
    let body = replay.stdout.trim_start().trim_start_matches('\u{feff}');
    if !body.starts_with('{') {
        return None;
    }
    let Ok(Value::Object(mut answer)) = serde_json::from_str::<Value>(body) else { return None };
    let Some(Value::Object(specific)) = answer.remove("hookSpecificOutput") else { return None };
    (specific.get("hookEventName").and_then(Value::as_str) == Some(read.event_name.as_str())).then_some(specific)
}

/// The most restrictive `permissionDecision` of `answers` (highest precedence first wins a tie), with its reason.
fn strictest(answers: &[Map<String, Value>]) -> Option<(&'static str, Option<Value>)> {
    let mut best: Option<(usize, Option<Value>)> = None;
    for answer in answers {
        let Some(word) = answer.get("permissionDecision").and_then(Value::as_str) else { continue };
        let Some(rank) = DECISIONS.iter().position(|d| *d == word) else { continue };
        if best.as_ref().is_none_or(|(b, _)| rank > *b) {
            best = Some((rank, answer.get("permissionDecisionReason").cloned()));
        }
    }
    best.map(|(rank, reason)| (DECISIONS[rank], reason))
}
