//! Gemini CLI's reading of a run that exited (`hookRunner.ts`, 0.61.0): the text is stdout, else stderr, trimmed,
//! and it is read whatever the exit code. Text that parses as a JSON object (or as a JSON string holding one) is the
//! hook's answer; other JSON says nothing; text that does not parse is a message on exit 0, a "Warning: " message on
//! exit 1 (here the hook's failure, its Error entry carrying the text) and a deny from exit 2 up. Any code but 0
//! also makes Gemini CLI report the hook as failed.
//!
//! One difference is deliberate: where the exit code blocks (2 and up) on a gate and the text does not deny — an
//! answer that allows, or no output at all — Gemini CLI lets the tool run; this engine denies, the closed side.

use hook_exec::RunResult;
use hook_types::{EntryKind, EventClass};
use serde_json::Value;

use super::builder::{BlockFrom, Builder};
use super::classify::Failure;
use super::sanitize::clean;
use super::{json, wire};

/// What the text is to Gemini CLI.
enum Text {
    /// A JSON object: the hook's answer (the JSON text of the object).
    Answer(String),
    /// JSON that is no object: no answer at all.
    Nothing,
    /// Not JSON: plain text.
    Plain,
}

/// Reads a run that exited with `code`.
pub(crate) fn read(b: &mut Builder<'_>, run: &RunResult, code: i32) -> Result<(), Failure> {
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let text = match js_trim(&stdout) {
        "" => js_trim(&stderr),
        text => text,
    };
    let gate = b.event.class() == EventClass::Gate;
    if text.is_empty() {
        return match code {
            0 => Ok(()),
            1 => Err(Failure::NonBlockingExit(1)),
            _ if gate => {
                closed_deny(b, &stderr);
                Ok(())
            }
            _ => Err(Failure::NonBlockingExit(code)),
        };
    }
    if code != 0 {
        b.entry(EntryKind::Warning, format!("exited with code {code}; Gemini CLI reports the hook as failed"));
    }
    match classify(text) {
        Text::Answer(json_text) => match wire::parse(&json_text, (b.rules.known)(b.event)) {
            Ok(output) => json::apply(b, output)?,
            Err(wire::WireError::Json(message)) => return Err(Failure::InvalidJson(message)),
            Err(wire::WireError::Shape(message)) => match untyped_deny(&json_text) {
                // Gemini CLI checks no field's type: its deny stands whatever else is wrong.
                Some(reason) => {
                    b.entry(EntryKind::Warning, format!("{message}; Gemini CLI still reads the deny"));
                    b.block(reason.unwrap_or_else(|| b.default_reason()), BlockFrom::Json);
                }
                None => return Err(Failure::InvalidOutput(message)),
            },
        },
        Text::Nothing => {}
        Text::Plain => {
            let Some(text) = clean(text) else { return Ok(()) };
            match code {
                0 => b.notify(text),
                // Gemini CLI shows "Warning: <text>" and reports the hook as failed: here, the failure, whose Error
                // entry carries the text.
                1 => return Err(Failure::NonBlockingExit(1)),
                _ => b.block(text, BlockFrom::Exit),
            }
        }
    }
    if code >= 2 && gate && !b.denies() {
        closed_deny(b, &stderr);
    }
    Ok(())
}

/// `JSON.parse` as `hookRunner.ts` applies it: a string is parsed once more; a parse failure anywhere is plain text.
fn classify(text: &str) -> Text {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(_)) => Text::Answer(text.to_owned()),
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(Value::Object(_)) => Text::Answer(inner),
            Ok(_) => Text::Nothing,
            Err(_) => Text::Plain,
        },
        Ok(_) => Text::Nothing,
        Err(_) => Text::Plain,
    }
}

/// The answer's deny as Gemini CLI reads it without checking types (`DefaultHookOutput`): `decision` `"deny"` or
/// `"block"`, with `stopReason`, else `reason`, as its reason — a string as it is, another value as its JSON text.
/// `None` when the answer does not deny; `Some(None)` when it denies with no reason.
fn untyped_deny(json_text: &str) -> Option<Option<String>> {
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(json_text) else { return None };
    if !matches!(object.get("decision").and_then(Value::as_str), Some("deny" | "block")) {
        return None;
    }
    let reason = ["stopReason", "reason"].iter().filter_map(|key| object.get(*key)).find_map(|value| match value {
        Value::Null | Value::Bool(false) => None,
        Value::String(text) => clean(text),
        other => clean(&other.to_string()),
    });
    Some(reason)
}

/// The blocking exit code on a gate that the answer did not make a deny: this engine denies, with stderr as the
/// reason (else the default), and says it held the run more strictly than Gemini CLI does.
fn closed_deny(b: &mut Builder<'_>, stderr: &str) {
    let reason = clean(stderr).unwrap_or_else(|| b.default_reason());
    b.block(reason, BlockFrom::Exit);
    b.stricter();
}

/// JavaScript's `String.prototype.trim`: white space and line terminators, the byte-order mark included.
fn js_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}
