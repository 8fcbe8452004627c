//! Cline's reading of a hook's answer (Cline 3.0.65, `@cline/core` 0.0.86: `runSubprocessEvent` in
//! sdk/packages/core/src/hooks/subprocess-runner.ts, `runBlockingHookCommands` and `parseHookControl` in
//! hook-file-hooks.ts of github.com/cline/cline, the same in the bundle the npm package runs).
//!
//! - The exit code is never read: stdout decides, whatever the code.
//! - stdout, trimmed: the last line that starts with `HOOK_CONTROL\t` (the rest of that line), else all of it, is
//!   parsed as JSON. Empty stdout answers nothing; stdout that does not parse is logged and skipped by Cline (a
//!   failed run here, which `protocol: cline`'s default `on_error: ignore` lets pass, as Cline does).
//! - Only an object answers; each field is taken only with its type (`typeof` checks), else ignored:
//!   `cancel: true` stops the run (on PreToolUse before the tool runs), its reason `errorMessage` (when not blank),
//!   else `contextModification` / `context`; without it, `context` (else `contextModification`, else `errorMessage`)
//!   is added for the model, cut at 50 000 characters (`MAX_HOOK_CONTEXT_SIZE`); `overrideInput` replaces the tool
//!   input on PreToolUse. `review` is read but file hooks never act on it.
//! - Only PreToolUse and PostToolUse are awaited: Cline runs every other event's hooks detached and reads nothing
//!   they print, so an answer there is reported as ignored.

use hook_exec::RunResult;
use hook_types::{EntryKind, Event};
use serde_json::{Map, Value};

use super::builder::{BlockFrom, Builder};
use super::classify::Failure;
use super::sanitize::clean;

/// `MAX_HOOK_CONTEXT_SIZE`.
const MAX_CONTEXT_CHARS: usize = 50_000;

/// The prefix of a control line (`HOOK_CONTROL\t{...}`).
const CONTROL_PREFIX: &str = "HOOK_CONTROL\t";

/// Reads a finished run's stdout as Cline does.
pub(super) fn read(b: &mut Builder<'_>, run: &RunResult) -> Result<(), Failure> {
    let text = String::from_utf8_lossy(&run.stdout);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(());
    }
    let controls: Vec<&str> =
        trimmed.split('\n').map(str::trim).filter_map(|line| line.strip_prefix(CONTROL_PREFIX)).collect();
    let candidate = controls.last().copied().unwrap_or(trimmed);
    let value: Value = serde_json::from_str(candidate).map_err(|e| Failure::InvalidJson(e.to_string()))?;
    let Value::Object(answer) = value else { return Ok(()) };
    if !matches!(b.event, Event::PreTool | Event::PostTool) {
        if answer.keys().any(|k| {
            ["cancel", "context", "contextModification", "errorMessage", "overrideInput"].contains(&k.as_str())
        }) {
            b.warning(format!(
                "Cline reads no answer on this event (it runs its hooks detached and ignores their output); the \
                 answer of hook `{}` is ignored",
                b.hook.hook_id
            ));
        }
        return Ok(());
    }
    apply(b, &answer)
}

fn string<'a>(answer: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    answer.get(key).and_then(Value::as_str)
}

fn apply(b: &mut Builder<'_>, answer: &Map<String, Value>) -> Result<(), Failure> {
    let injectable = string(answer, "context").or_else(|| string(answer, "contextModification"));
    let error_message = string(answer, "errorMessage").filter(|m| !m.trim().is_empty());
    let cancel = answer.get("cancel").and_then(Value::as_bool);
    if cancel == Some(true) {
        let reason = error_message.or(injectable).and_then(clean);
        if *b.event == Event::PreTool {
            let shown = reason.clone().unwrap_or_else(|| b.default_reason());
            b.block(shown, BlockFrom::Json);
        }
        // `applyStopControl` throws: the run ends, on PostToolUse after the tool ran.
        b.halt(reason);
    } else if let Some(context) = injectable.or(error_message).and_then(clean) {
        b.context(first_chars(&context, MAX_CONTEXT_CHARS));
    }
    if *b.event == Event::PreTool
        && let Some(input) = answer.get("overrideInput")
    {
        match input {
            Value::Object(input) => b.rewrite(input.clone()),
            other => {
                return Err(Failure::InvalidOutput(format!(
                    "field `overrideInput` must be an object (the tool's input), got {}",
                    super::wire::json_type_name(other)
                )));
            }
        }
    }
    if answer.get("review") == Some(&Value::Bool(true)) {
        b.entry(EntryKind::Warning, "`review: true` is not acted on by Cline's hook files; ignored".into());
    }
    Ok(())
}

fn first_chars(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}
