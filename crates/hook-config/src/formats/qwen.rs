//! Qwen Code's settings files (`.qwen/settings.json`, `~/.qwen/settings.json`): Claude Code's group shape under
//! `hooks`, read by [`super::claude::read_groups`] with Qwen Code's own rules.
//!
//! ```json
//! { "hooks": { "PreToolUse": [ { "matcher": "^run_shell_command$", "sequential": true,
//!     "hooks": [ { "type": "command", "command": "\"$QWEN_PROJECT_DIR\"/.qwen/hooks/guard.sh", "timeout": 10 } ] } ] } }
//! ```
//!
//! The facts come from Qwen Code 0.24.4 as published on npm (`@qwen-code/qwen-code`): its hooks reference
//! (`bundled/qc-helper/docs/features/hooks.md`) and its bundled hook runner (`chunks/chunk-DPEB6S2R.js`,
//! packages/core/src/hooks). What differs from Claude Code:
//!
//! - **Events** are Claude Code's names plus Qwen Code's own (PostToolBatch, MessageDisplay, SessionDelete,
//!   TodoCreated, TodoCompleted, …), which load as foreign observers; the agent table lists them.
//! - **Matchers.** Qwen Code compares a tool event's matcher exactly first (each `|`-separated entry, and the tool
//!   aliases it accepts: Claude Code's names such as `Bash` or `Write`), then as an unanchored regular expression
//!   (`read` also matches `read_file`); a matcher that starts with `^` or `(` is only a regular expression. So a
//!   pattern this engine would read as exact names is kept as that regex, `(?:read)`, with each entry that is another
//!   agent's name for one of Qwen Code's tools added as its exact tool id: the hook fires on the same calls. An entry
//!   that names no tool any agent table knows (one of Qwen Code's display names) is warned about.
//! - **Handlers.** `type: "command"`; `http`, `prompt` and `function` hooks are reported and not loaded. `timeout` is
//!   in seconds, except that a value of 1000 or more is still read as milliseconds (Qwen Code's migration rule); a
//!   timeout that is no positive number is ignored by Qwen Code, which gives the hook its 60 s default, and so does
//!   this engine, with a warning. `env` is carried over; `name`, `description` and `statusMessage` are display only.
//! - **`sequential: true`** on a group becomes `sequential: true` on each of its hooks.
//! - **`disableAllHooks: true`** loads the file's hooks disabled, as for Claude Code.
//! - **Failure policy**: `protocol: qwen`, which fails open (exit 2 blocks, other exits are non-blocking errors).

use serde_json::Value;

use super::WireFile;
use super::agent::AgentEvents;
use super::claude::{Dialect, read_settings};
use crate::issues::Reporter;
use crate::model::{Matcher, MatcherRule};

const QWEN: Dialect = Dialect {
    events: AgentEvents::spelled(hook_types::Protocol::Qwen),
    group_keys: &["matcher", "sequential", "hooks"],
    handler_keys: &[
        "type",
        "command",
        "name",
        "description",
        "timeout",
        "async",
        "env",
        "shell",
        "statusMessage",
        // http and prompt hooks: reported and not loaded, but their keys are Qwen Code's own.
        "url",
        "headers",
        "allowedEnvVars",
        "once",
        "prompt",
        "model",
    ],
    evaluated_types: &[],
    async_observers: false,
    other_types: &[
        ("http", "its event is POSTed to a URL"),
        ("prompt", "an LLM evaluates its prompt"),
        ("function", "a JavaScript function registered in Qwen Code runs"),
    ],
    timeout_keys: &["timeout"],
    timeout: qwen_timeout,
    exact_char: None,
    run_once: false,
    skipped_keys: &[],
    tool_matcher: Some(tool_matcher),
    ignored_timeout_ms: Some(60_000),
    carried: &["sequential", "env"],
    narrowing: &[],
};

/// Reads a Qwen Code settings file.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    read_settings(root, &QWEN, reporter)
}

/// A command hook's `timeout`: seconds, or milliseconds from 1000 up ("a value of 1000 or more is still read as
/// milliseconds"). `Err` for a value that is no positive number, which Qwen Code ignores.
fn qwen_timeout(value: &Value) -> Result<u64, String> {
    let positive = value.as_f64().filter(|n| n.is_finite() && *n > 0.0);
    let Some(number) = positive else {
        return Err(format!("`timeout` must be a positive number of seconds, found {value}"));
    };
    let ms = if number >= 1_000.0 { number } else { number * 1_000.0 };
    // Every f64 below 2^53 converts exactly; past it a timeout means nothing anyway.
    Ok(if ms < 9_007_199_254_740_992.0 { ms.round() as u64 } else { u64::MAX })
}

/// Qwen Code's reading of a tool event's matcher (see the module docs), as one pattern of this engine.
fn tool_matcher(pattern: &str) -> Result<String, String> {
    let trimmed = pattern.trim();
    if trimmed.starts_with('^') || trimmed.starts_with('(') {
        return Ok(pattern.to_owned());
    }
    let Ok(Some(Matcher { rule: MatcherRule::Exact(names), .. })) = Matcher::parse(pattern) else {
        // A regex already: Qwen Code tests it unanchored, as this engine does.
        return Ok(pattern.to_owned());
    };
    let qwen = hook_types::Protocol::Qwen.agent();
    let mut exact = Vec::new();
    let mut unknown = Vec::new();
    for name in &names {
        match hook_types::static_canonical_tool(name) {
            Some(canonical) => exact.extend(qwen.tool_names(canonical).filter(|id| id != name)),
            None if qwen.canonical_tool(name).is_none() => unknown.push(name.as_str()),
            None => {}
        }
    }
    if !unknown.is_empty() {
        return Err(format!(
            "`{}` names no tool this engine knows; Qwen Code may read it as one of its tool display names, which this \
             engine does not have: write the tool's id (such as `run_shell_command` or `write_file`) so the hook fires \
             here on the same calls",
            unknown.join("`, `")
        ));
    }
    let mut rewritten = format!("(?:{pattern})");
    if !exact.is_empty() {
        exact.dedup();
        rewritten.push_str(&format!("|^(?:{})$", exact.join("|")));
    }
    Ok(rewritten)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_name_in_a_matcher_also_matches_the_qwen_tool_id() {
        let rewritten = tool_matcher("Bash").unwrap();
        let matcher = Matcher::parse(&rewritten).unwrap().unwrap();
        assert!(matcher.matches("run_shell_command") && matcher.matches("Bash"));
        let read = Matcher::parse(&tool_matcher("read").unwrap()).unwrap().unwrap();
        assert!(read.matches("read_file") && read.matches("read_many"));
        assert_eq!(tool_matcher("^write_file$").unwrap(), "^write_file$");
        assert!(tool_matcher("WriteFile").is_err());
    }

    #[test]
    fn timeouts_are_seconds_below_a_thousand_and_milliseconds_from_it() {
        assert_eq!(qwen_timeout(&Value::from(10)), Ok(10_000));
        assert_eq!(qwen_timeout(&Value::from(1_800_000)), Ok(1_800_000));
        assert!(qwen_timeout(&Value::from("30s")).is_err());
        assert!(qwen_timeout(&Value::from(0)).is_err());
    }
}
