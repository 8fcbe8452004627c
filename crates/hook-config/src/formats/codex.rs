//! Codex's hooks: `.codex/hooks.json` and the `[hooks]` table of `.codex/config.toml`, at the project and in
//! `~/.codex` (docs/declarations.md#foreign-formats). Both hold Claude Code's matcher-group shape, read by [`super::claude::read_groups`]:
//!
//! ```toml
//! [[hooks.PreToolUse]]
//! matcher = "^Bash$"
//! [[hooks.PreToolUse.hooks]]
//! type = "command"
//! command = "python3 .codex/hooks/guard.py"
//! timeout = 30
//! ```
//!
//! What differs from Claude Code (codex-rs/hooks and codex-rs/config):
//!
//! - **Events.** PreToolUse, PermissionRequest, PostToolUse, PreCompact, SessionStart, SessionEnd,
//!   UserPromptSubmit, Stop and SubagentStop (turn_end with `scope: subagent`) map to their canonical events;
//!   PostCompact, SubagentStart, StopFailure and Interrupt load as foreign observers. Codex has no
//!   PostToolUseFailure or Notification: such a key in a Codex file never fires there, so it loads as a foreign
//!   observer with a warning, like any other name Codex does not know.
//! - **Matchers.** Codex ignores a matcher on UserPromptSubmit, Stop and SessionEnd (reported, dropped). Its exact
//!   names are only `[A-Za-z0-9_|]`: a pattern with a space, comma or hyphen is an unanchored regex in Codex, so it
//!   is kept as one (`my-tool` becomes `(?:my-tool)`) and fires on the same tools. A SubagentStop matcher (agent
//!   type) is reported and its group not loaded, as for Claude Code. Tool-name aliases (`matcher_aliases`) are the
//!   host's to send with the dispatch (`EventInput::tool_aliases`).
//! - **Handlers.** `type: "command"`; `prompt` and `agent` handlers are reported and not loaded, as Codex itself
//!   skips them; an `mcp_tool` handler, which this engine cannot run, closes its gate (as Claude Code's does). `timeout` (or `timeoutSec`) is a whole number of seconds, at least 1 (Codex raises
//!   0 to 1); default 600 s. `commandWindows`, `statusMessage` and `additionalContextLimit` do not apply here;
//!   `async: true` loads with a warning, as for Claude Code.
//! - **Failure policy**: `protocol: codex`, whose output rules are stricter than Claude Code's (unknown JSON
//!   fields, `ask`, a deny without a reason, legacy `approve` fail the run) and whose failures let the action
//!   proceed (docs/output-protocol.md).
//! - **Ids** are the default `<origin>.command.<hash>`: Codex runs the hooks of every layer, with no run-once rule.
//!   The same hook written in both `hooks.json` and `config.toml` of one layer has one id, so it runs once here
//!   (Codex warns about such a layer and runs both).
//! - **`[hooks.state]`** (the enable and trust flags Codex's `/hooks` screen records per hook) is not read: this
//!   engine keeps its own trust store. A hook disabled there loads here, with a warning that says so.

use serde_json::Value;

use super::WireFile;
use super::agent::AgentEvents;
use super::claude::{Dialect, read_groups};
use crate::issues::{Place, Reporter, describe};
use crate::parse::{NodePath, Target};

const EVENTS: AgentEvents = AgentEvents::spelled(hook_types::Protocol::Codex);

const CODEX: Dialect = Dialect {
    events: EVENTS,
    group_keys: &["matcher", "hooks"],
    handler_keys: &[
        "type",
        "command",
        "commandWindows",
        "command_windows",
        "timeout",
        "timeoutSec",
        "async",
        "statusMessage",
        "additionalContextLimit",
        // mcp_tool handlers: reported and not loaded, but their keys are Codex's own.
        "server",
        "tool",
        "input",
    ],
    evaluated_types: &[],
    async_observers: false,
    other_types: &[
        ("prompt", "a model evaluates its prompt"),
        ("agent", "a subagent evaluates its prompt"),
        ("mcp_tool", "it calls a tool of an MCP server"),
    ],
    timeout_keys: &["timeout", "timeoutSec"],
    timeout: whole_seconds,
    exact_char: Some(codex_exact_char),
    run_once: false,
    skipped_keys: &["state"],
    tool_matcher: None,
    ignored_timeout_ms: None,
    carried: &[],
    narrowing: &[],
};

/// Reads `.codex/hooks.json` (`{"hooks": {...}}`) or `.codex/config.toml` (its `[hooks]` table; every other key is
/// Codex's own configuration).
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let Value::Object(config) = root else {
        let place = Place { node: Some((NodePath::default(), Target::Node)), ..Place::default() };
        reporter.error(place, format!("expected a mapping with a `hooks` table, found {}", describe(root)));
        return None;
    };
    if let Some(Value::Object(state)) = config.get("hooks").and_then(|hooks| hooks.get("state")) {
        let disabled = state.values().filter(|s| s.get("enabled") == Some(&Value::Bool(false))).count();
        if disabled > 0 {
            let node = NodePath::default().key("hooks").key("state");
            let place =
                Place { field: Some("hooks.state".into()), node: Some((node, Target::Key)), ..Place::default() };
            reporter.warn(
                place,
                format!(
                    "Codex's hook state disables {disabled} hook(s); this engine does not read that state (it keeps \
                     its own trust), so they load here: remove them from their file to keep them from running"
                ),
            );
        }
    }
    read_groups(config, &CODEX, false, reporter)
}

/// Codex's exact-name characters (codex-rs/hooks/src/events/common.rs `is_exact_matcher`).
fn codex_exact_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '|'
}

/// Codex's `timeout`: a whole number of seconds (its config type is `u64`), raised to at least 1.
fn whole_seconds(value: &Value) -> Result<u64, String> {
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(secs) => secs.max(1).checked_mul(1_000).ok_or_else(|| "the number of seconds is too large".to_owned()),
            None if n.is_i64() => Err("expected a whole number of seconds, found a negative number".to_owned()),
            None => {
                Err("expected a whole number of seconds, found a decimal number (Codex reads whole seconds)".into())
            }
        },
        other => Err(format!("expected a whole number of seconds, found {}", describe(other))),
    }
}
