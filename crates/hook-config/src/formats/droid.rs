//! Factory Droid's hooks: `.factory/hooks.json` (the event map is the whole file), its legacy
//! `.factory/hooks/hooks.json`, and the `hooks` key of `.factory/settings.json`, at the project and under `~/.factory`.
//! All hold Claude Code's matcher-group shape, read by [`super::claude::read_event_map`]:
//!
//! ```json
//! { "PreToolUse": [ { "matcher": "Execute",
//!     "hooks": [ { "type": "command", "command": "\"$FACTORY_PROJECT_DIR\"/.factory/hooks/guard.sh", "timeout": 10 } ] } ] }
//! ```
//!
//! The facts come from Factory Droid 0.225.2 as published on npm (`@factory/cli-linux-x64`, the JavaScript bundled
//! into its `droid` binary: the hooks schema, `loadHooks`, `executeCommand`) and its hooks reference
//! (<https://docs.factory.ai/reference/hooks-reference>). What differs from Claude Code:
//!
//! - **Files.** Droid reads `hooks.json` of a `.factory` folder (else the legacy `hooks/hooks.json`) and the `hooks`
//!   key of its `settings.json`, and merges them event by event, `hooks.json` winning. This engine reads all three;
//!   a settings file's hooks on an event `hooks.json` also declares therefore run here though Droid skips them (the
//!   stricter side). A file whose top level has no `hooks` mapping but Droid event names is read as the event map.
//! - **Events.** PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop (turn_end with `scope: subagent`),
//!   PreCompact, Notification, SessionStart and SessionEnd; Droid has no other. `hooksDisabled: true` beside them
//!   loads the file's hooks disabled; `showHookOutput` is display only.
//! - **Matchers** follow the Claude/Codex rule on PreToolUse and PostToolUse; Droid ignores a matcher on the other
//!   events, and so does this reader (with a warning). A group's `commandRegex` (which `Execute` commands it runs
//!   for) cannot be tested here: the group is reported and not loaded.
//! - **Handlers.** `type: "command"`, `timeout` in seconds (default 60 s), `preserveRiskLevel` is Droid's own.
//! - **Failure policy**: `protocol: droid`, which fails open (exit 2 blocks, exit 3 stops the agent, other exits are
//!   non-blocking errors).

use serde_json::Value;

use super::WireFile;
use super::agent::{AgentEvents, seconds_to_ms};
use super::claude::{Dialect, read_event_map};
use crate::issues::{Place, Reporter, describe};
use crate::parse::{NodePath, Target};

const DROID: Dialect = Dialect {
    events: AgentEvents::spelled(hook_types::Protocol::Droid),
    group_keys: &["matcher", "commandRegex", "hooks"],
    handler_keys: &["type", "command", "timeout", "preserveRiskLevel"],
    evaluated_types: &[],
    async_observers: false,
    other_types: &[],
    timeout_keys: &["timeout"],
    timeout: seconds_to_ms,
    exact_char: None,
    run_once: false,
    skipped_keys: &["hooksDisabled", "showHookOutput"],
    tool_matcher: None,
    ignored_timeout_ms: None,
    carried: &[],
    narrowing: &[("commandRegex", "the `Execute` commands its regex matches")],
};

/// Reads a Droid `hooks.json` or `settings.json`.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let Value::Object(top) = root else {
        let place = Place { node: Some((NodePath::default(), Target::Node)), ..Place::default() };
        reporter.error(place, format!("expected a mapping of hook events, found {}", describe(root)));
        return None;
    };
    let agent = hook_types::Protocol::Droid.agent();
    let (events, prefix, node) = match top.get("hooks") {
        Some(Value::Object(events)) => (events, "hooks.", NodePath::default().key("hooks")),
        None | Some(Value::Null)
            if top.keys().any(|k| agent.event(k).is_some() || DROID.skipped_keys.contains(&k.as_str())) =>
        {
            (top, "", NodePath::default())
        }
        None | Some(Value::Null) => return Some(WireFile::default()),
        Some(other) => {
            let place = Place {
                field: Some("hooks".into()),
                node: Some((NodePath::default().key("hooks"), Target::Node)),
                ..Place::default()
            };
            reporter.error(
                place,
                format!("expected a mapping of event names to matcher groups, found {}", describe(other)),
            );
            return None;
        }
    };
    let disabled = events.get("hooksDisabled") == Some(&Value::Bool(true));
    if disabled {
        let place = Place {
            field: Some(format!("{prefix}hooksDisabled")),
            node: Some((node.key("hooksDisabled"), Target::Node)),
            ..Place::default()
        };
        reporter.warn(place, "`hooksDisabled` is true: this file's hooks are loaded and shown but never run");
    }
    Some(read_event_map(events, prefix, node, &DROID, disabled, reporter))
}
