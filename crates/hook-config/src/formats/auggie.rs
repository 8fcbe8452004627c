//! Auggie's settings files (`~/.augment/settings.json`, `.augment/settings.json`, `.augment/settings.local.json`):
//! Claude Code's matcher-group shape under `hooks`, read by [`super::claude::read_settings`]:
//!
//! ```json
//! { "hooks": { "PreToolUse": [ { "matcher": "launch-process",
//!     "hooks": [ { "type": "command", "command": "./guard.sh", "timeout": 5000 } ] } ] } }
//! ```
//!
//! The facts come from Auggie 0.36.0 as published on npm (`@augmentcode/auggie`, its bundle `augment.mjs`: the
//! hooks schema, the loader `cle`/`sAn`, the matcher `f7n` and the executor `Bao`). What differs from Claude Code:
//!
//! - **Events.** PreToolUse, PostToolUse, Stop, SessionStart, SessionEnd, Notification and PromptSubmit (turn_start);
//!   Auggie has no other. A file whose events are Cursor's (`beforeShellExecution`, …) is converted by Auggie itself
//!   to these; this reader reports those names as events Auggie does not document under its own spelling.
//! - **Matchers** are JavaScript regexes tested (unanchored) against the tool name on the tool events, `.*` when
//!   absent; a matcher is loaded as that unanchored regex, `(?:<matcher>)`. Auggie's `mcp:<regex>` form is kept as
//!   written, which this engine reads as the name it spells. On the other events Auggie runs a group whatever its
//!   matcher says, and so does this reader (with a warning).
//! - **Handlers.** `type: "command"` only, `command` with optional `args`, `timeout` in milliseconds (default 60 s).
//!   A group's `metadata` asks Auggie for more fields in the payload (conversation data, MCP metadata, user
//!   context), which this engine does not have: passed over.
//! - **Failure policy**: `protocol: auggie`, which fails open (exit 2 blocks PreToolUse only; other exits, a
//!   timeout and a hook that cannot start let the call proceed).

use serde_json::Value;

use super::WireFile;
use super::agent::AgentEvents;
use super::claude::{Dialect, read_settings};
use crate::issues::Reporter;

const AUGGIE: Dialect = Dialect {
    events: AgentEvents::spelled(hook_types::Protocol::Auggie),
    group_keys: &["matcher", "hooks", "metadata"],
    handler_keys: &["type", "command", "args", "timeout"],
    evaluated_types: &[],
    async_observers: false,
    other_types: &[],
    timeout_keys: &["timeout"],
    timeout: millis,
    exact_char: None,
    run_once: false,
    skipped_keys: &[],
    tool_matcher: Some(tool_matcher),
    ignored_timeout_ms: None,
    carried: &[],
    narrowing: &[],
};

/// Reads an Auggie settings file.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    read_settings(root, &AUGGIE, reporter)
}

/// A handler's `timeout`: a positive number of milliseconds, as Auggie's schema requires.
fn millis(value: &Value) -> Result<u64, String> {
    match value.as_f64().filter(|n| n.is_finite() && *n > 0.0) {
        // Every f64 below 2^53 converts exactly; past it a timeout means nothing anyway.
        Some(ms) => Ok(if ms < 9_007_199_254_740_992.0 { ms.round() as u64 } else { u64::MAX }),
        None => Err(format!("`timeout` must be a positive number of milliseconds, found {value}")),
    }
}

/// Auggie tests a tool event's matcher with JavaScript's `RegExp.test`, unanchored: `(?:<matcher>)` here, so
/// `process` matches `launch-process` as it does in Auggie. `mcp:` forms are kept as written.
fn tool_matcher(pattern: &str) -> Result<String, String> {
    if pattern.starts_with("mcp:") || pattern.trim() == ".*" {
        return Ok(pattern.to_owned());
    }
    Ok(format!("(?:{pattern})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Matcher;

    #[test]
    fn a_matcher_is_searched_for_in_the_tool_name() {
        let matcher = Matcher::parse(&tool_matcher("process").unwrap()).unwrap().unwrap();
        assert!(matcher.matches("launch-process") && matcher.matches("kill-process"));
        assert!(!matcher.matches("view"));
        assert_eq!(millis(&Value::from(5000)), Ok(5000));
        assert!(millis(&Value::from(0)).is_err());
    }
}
