//! Crush's own JSON envelope (`decision`, `halt`, `reason`, `context`, `updated_input`): its row's `flat_answer`.
//! Claude Code's `hookSpecificOutput`, which Crush reads too, is read with the shared fields.

use serde_json::Value;

use super::builder::{BlockFrom, Builder};
use super::classify::Failure;
use super::json::invalid;
use super::sanitize::clean;
use super::wire::HookOutput;

/// Crush's envelope (docs/hooks/README.md, "Output"; `parseStdout` in internal/hooks/input.go): `decision` allow |
/// deny (anything else is no opinion), `halt: true` ends the turn after blocking the call, `reason` says why,
/// `context` (a string or a list of strings) is added for the model, `updated_input` is shallow-merged over the
/// tool's input (ignored when the call is denied or halted).
pub(super) fn crush(b: &mut Builder<'_>, out: &HookOutput) -> Result<(), Failure> {
    let top = &out.crush;
    for text in context_texts(top.context.as_ref())? {
        b.context(text);
    }
    let reason = out.reason.as_deref().and_then(clean);
    let denied = out.decision.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("deny"));
    if top.halt {
        let reason = reason.clone().unwrap_or_else(|| b.default_reason());
        b.block(reason.clone(), BlockFrom::Json);
        b.halt(Some(reason));
    } else if denied {
        b.block(reason.unwrap_or_else(|| b.default_reason()), BlockFrom::Json);
    } else if out.decision.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("allow")) {
        b.allow(reason);
    }
    if let Some(patch) = &top.updated_input
        && !(top.halt || denied)
    {
        let patch = match patch {
            Value::Object(patch) => patch.clone(),
            // A string holding the object, which Crush accepts for compatibility.
            Value::String(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(patch)) => patch,
                _ => return Err(invalid("field `updated_input` must be an object (or a string holding one)")),
            },
            other => {
                return Err(invalid(format!(
                    "field `updated_input` must be an object, got {}",
                    super::wire::json_type_name(other)
                )));
            }
        };
        let mut merged = b.tool_input.cloned().unwrap_or_default();
        merged.extend(patch);
        b.rewrite(merged);
    }
    Ok(())
}

/// `context`: a string, or a list of strings whose empty entries are dropped.
fn context_texts(context: Option<&Value>) -> Result<Vec<String>, Failure> {
    match context {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(clean(text).into_iter().collect()),
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            for item in items {
                let Value::String(text) = item else {
                    return Err(invalid("field `context` must be a string or a list of strings"));
                };
                out.extend(clean(text));
            }
            Ok(out)
        }
        Some(other) => Err(invalid(format!(
            "field `context` must be a string or a list of strings, got {}",
            super::wire::json_type_name(other)
        ))),
    }
}
