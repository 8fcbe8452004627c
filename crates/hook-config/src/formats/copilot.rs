//! GitHub Copilot CLI's hook files: every `*.json` in `.github/hooks/` (project) and `~/.copilot/hooks/` (user), each
//! `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./guard.sh", "timeoutSec": 30}]}}`
//! (docs/agents.md#github-copilot-cli).
//!
//! Facts from GitHub Copilot CLI 1.0.102 (`@github/copilot-linux-x64`: the hook loader's messages in
//! `prebuilds/linux-x64/runtime.node`) and <https://docs.github.com/en/copilot/reference/hooks-reference>
//! ("Hook configuration format", "Matcher filtering", "Exit codes for command hooks"):
//!
//! - **Events** are the camelCase names of the agent table (`preToolUse`, `agentStop`, …); the others it documents
//!   (`errorOccurred`, `subagentStart`, …) load as observers of that foreign event. Copilot also takes Claude Code's
//!   PascalCase names (`PreToolUse`), with another input (snake_case), another matcher rule and Claude's tool names;
//!   this reader does not read those: each such hook is an error, so its gate closes rather than passing unguarded.
//! - **A handler** is `type` (`command`, the default; `http`; `prompt`), a line for the platform's shell (on Linux
//!   and macOS `bash`, run by `sh -c`, on Windows `powershell`, run by PowerShell; else the cross-platform `command`,
//!   which Copilot runs by PowerShell on Windows: github/copilot-cli#4399), or an executable in `exec` with `args`.
//!   A hook with only the other platform's line (`powershell` alone on Linux, `bash` alone on Windows) is one
//!   Copilot skips on this platform: on a gate it closes its gate for the calls its matcher covers, elsewhere it is
//!   announced. A handler also has
//!   `cwd` (relative to the repository root), `env`, and `timeoutSec` (or its alias `timeout`) in seconds, 30 by
//!   default. `http` handlers (`url`, `headers`, `allowedEnvVars`) read into `kind: http`; `prompt` handlers
//!   auto-submit text on `sessionStart` and have no runner here (reported, not loaded).
//! - **`matcher`** is a regex anchored as `^(?:PATTERN)$` tested against the tool name on `preToolUse`,
//!   `postToolUse` and `permissionRequest`, and against the trigger on `preCompact`; an invalid one makes Copilot
//!   skip the hook (an error here, which closes a gate rather than skipping it). Elsewhere it is dropped with a
//!   warning and the hook runs on every such event.
//! - **`disableAllHooks: true`** at the top level skips every hook of that file in Copilot; here too, with a warning.

use serde_json::Value;

use super::WireFile;
use super::agent::{AgentEvents, HookBuilder, file_place, hook_place, seconds_to_ms, unknown_key, versioned_top};
use crate::issues::{Reporter, describe};
use crate::parse::{NodePath, Target};

const AGENT: &str = "GitHub Copilot CLI";

const EVENTS: AgentEvents = AgentEvents::of(hook_types::Protocol::Copilot);

const FILE_KEYS: &[&str] = &["version", "hooks", "disableAllHooks", "$schema"];
const HOOK_KEYS: &[&str] = &[
    "type",
    "bash",
    "powershell",
    "command",
    "exec",
    "args",
    "cwd",
    "env",
    "timeoutSec",
    "timeout",
    "matcher",
    "url",
    "headers",
    "allowedEnvVars",
    "prompt",
];

/// Reads one GitHub Copilot CLI hook file.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let top = versioned_top(root, FILE_KEYS, AGENT, reporter)?;
    // "Structural errors (invalid JSON, a bad `version`, or a non-array event list) still reject the entire file."
    match top.get("version") {
        Some(version) if version.as_u64() == Some(1) => {}
        found => {
            let found = match found {
                None => "none".to_owned(),
                Some(other) => other.as_u64().map_or_else(|| describe(other).to_owned(), |v| v.to_string()),
            };
            let place = file_place("version", NodePath::default().key("version"), Target::Node);
            reporter.error(
                place,
                format!(
                    "unsupported version {found}: {AGENT} reads `\"version\": 1` only and rejects this file; nothing \
                     in it was loaded"
                ),
            );
            return None;
        }
    }
    if top.get("disableAllHooks") == Some(&Value::Bool(true)) {
        let place = file_place("disableAllHooks", NodePath::default().key("disableAllHooks"), Target::Node);
        reporter.warn(
            place,
            format!("`disableAllHooks: true`: {AGENT} skips every hook of this file, and so does this engine"),
        );
        return Some(WireFile::default());
    }
    let hooks_node = NodePath::default().key("hooks");
    let events = match top.get("hooks") {
        None | Some(Value::Null) => return Some(WireFile::default()),
        Some(Value::Object(events)) => events,
        Some(other) => {
            let place = file_place("hooks", hooks_node, Target::Node);
            reporter.error(place, format!("expected a mapping of event names to hooks, found {}", describe(other)));
            return None;
        }
    };
    let mut file = WireFile::default();
    let mut position = 0;
    for (event, entries) in events {
        reporter.in_event(None);
        let event_node = hooks_node.key(event);
        let Value::Array(entries) = entries else {
            let place = file_place(format!("hooks.{event}"), event_node, Target::Node);
            reporter.error(
                place,
                format!("expected a list of hooks, found {}; {AGENT} rejects this file", describe(entries)),
            );
            return None;
        };
        if let Some(claude) = pascal_case(event) {
            // The gate this hook was meant to guard closes instead of passing without it.
            reporter.in_event(Some(claude.canonical_name()));
            let place = file_place(format!("hooks.{event}"), event_node.clone(), Target::Key);
            reporter.error(
                place,
                format!(
                    "`{event}` is {AGENT}'s Claude-compatible spelling, whose hooks get a snake_case input and Claude \
                     Code's tool names; this engine does not read it yet, so its {} hook(s) were not loaded: write \
                     the event as `{}` (camelCase) or move the hooks to .claude/settings.json",
                    entries.len(),
                    camel(event)
                ),
            );
            position += entries.len();
            continue;
        }
        let place = file_place(format!("hooks.{event}"), event_node.clone(), Target::Key);
        let (on, row) = EVENTS.resolve(event, place, reporter);
        let canonical = row.and_then(|r| r.event.as_ref()).map(hook_types::Event::canonical_name);
        reporter.in_event(Some(&on));
        for (i, entry) in entries.iter().enumerate() {
            let node = event_node.index(i);
            let mut hook = HookBuilder::new(position, node.clone());
            position += 1;
            hook.set("on", "event", Value::String(on.clone()), event_node.clone());
            match event.as_str() {
                "postToolUseFailure" => hook.set("only_errors", "event", Value::Bool(true), event_node.clone()),
                "subagentStop" => hook.set("scope", "event", Value::String("subagent".into()), event_node.clone()),
                _ => {}
            }
            if read_entry(&mut hook, event, canonical, entry, &node, reporter) {
                file.hooks.push(hook.finish());
            }
        }
    }
    Some(file)
}

/// The canonical event of a PascalCase (Claude Code) event name Copilot accepts, when `name` is one.
fn pascal_case(name: &str) -> Option<&'static hook_types::Event> {
    if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    hook_types::Protocol::Claude.agent().event(name).and_then(|row| row.event.as_ref())
}

/// `PreToolUse` → `preToolUse`: the camelCase spelling to suggest (Copilot's own names differ for a few events,
/// `Stop` → `agentStop`, which the agent table gives).
fn camel(name: &str) -> String {
    let claude = hook_types::Protocol::Claude.agent().event(name);
    let copilot = hook_types::Protocol::Copilot.agent();
    let row = claude.and_then(|c| copilot.events.iter().find(|e| e.event == c.event && e.filters == c.filters));
    match row {
        Some(row) => row.name.to_owned(),
        None => {
            let mut chars = name.chars();
            chars.next().map(|c| c.to_ascii_lowercase()).into_iter().chain(chars).collect()
        }
    }
}

/// One entry. `false` when it cannot be a hook here at all (reported).
fn read_entry(
    hook: &mut HookBuilder,
    event: &str,
    canonical: Option<&str>,
    entry: &Value,
    node: &NodePath,
    reporter: &mut Reporter<'_>,
) -> bool {
    let index = hook.index();
    let Value::Object(entry) = entry else {
        let place = hook_place(index, "", node.clone(), Target::Node);
        reporter.error(
            place,
            format!("expected a hook (`{{\"type\": \"command\", \"bash\": ...}}`), found {}", describe(entry)),
        );
        return false;
    };
    if entry.contains_key("hooks") {
        let place = hook_place(index, "hooks", node.key("hooks"), Target::Key);
        reporter.error(
            place,
            "a nested group (`{\"matcher\": ..., \"hooks\": [...]}`, Claude Code's shape) is not read here; list the \
             handlers under the event directly; this hook was not loaded",
        );
        return false;
    }
    for key in entry.keys().filter(|k| !HOOK_KEYS.contains(&k.as_str())) {
        unknown_key(reporter, hook_place(index, key, node.key(key), Target::Key), key, HOOK_KEYS, AGENT);
    }
    let kind = match entry.get("type") {
        None => "command",
        Some(Value::String(kind)) if matches!(kind.as_str(), "command" | "http" | "prompt") => kind.as_str(),
        Some(other) => {
            let place = hook_place(index, "type", node.key("type"), Target::Node);
            let found = other.as_str().map_or_else(|| describe(other).to_owned(), |s| format!("`{s}`"));
            reporter.error(
                place,
                format!("expected `\"command\"`, `\"http\"` or `\"prompt\"`, found {found}; this hook was not loaded"),
            );
            return false;
        }
    };
    match kind {
        "prompt" => {
            let place = hook_place(index, "type", node.key("type"), Target::Node);
            reporter.error(
                place,
                format!(
                    "`prompt` hooks make {AGENT} submit their text as a user prompt; this engine has no such runner, \
                     so this hook was not loaded"
                ),
            );
            return false;
        }
        "http" => {
            hook.set("kind", "type", Value::String("http".into()), node.key("type"));
            for (key, written) in [("url", "url"), ("headers", "headers"), ("allowed_env_vars", "allowedEnvVars")] {
                if let Some(value) = entry.get(written) {
                    hook.set(key, written, value.clone(), node.key(written));
                }
            }
        }
        _ if is_foreign_only(entry) => return foreign_gate(hook, event, canonical, entry, node, reporter),
        _ => {
            hook.set("kind", "type", Value::String("command".into()), node.clone());
            if !read_program(hook, entry, node, reporter) {
                return false;
            }
            for (key, written) in [("cwd", "cwd"), ("env", "env")] {
                if let Some(value) = entry.get(written) {
                    hook.set(key, written, value.clone(), node.key(written));
                }
            }
        }
    }
    // `timeoutSec` takes precedence over its alias `timeout`.
    let timeout = ["timeoutSec", "timeout"].into_iter().find_map(|k| entry.get(k).map(|v| (k, v)));
    if let Some((written, value)) = timeout {
        match seconds_to_ms(value) {
            Ok(ms) => hook.set("timeout_ms", written, Value::from(ms), node.key(written)),
            Err(message) => {
                reporter.error(hook_place(index, written, node.key(written), Target::Node), message);
                hook.malformed();
            }
        }
    }
    read_matcher(hook, event, canonical, entry, node, reporter);
    true
}

/// The keys of a line Copilot runs on this platform, in its order of preference, each with the engine's key for
/// what runs it.
#[cfg(not(windows))]
const LINES: [(&str, &str); 2] = [("bash", "shell"), ("command", "shell")];
#[cfg(windows)]
const LINES: [(&str, &str); 2] = [("powershell", "powershell"), ("command", "powershell")];

/// The key of the line Copilot runs on the other platforms only, and where.
#[cfg(not(windows))]
const FOREIGN: (&str, &str) = ("powershell", "on Windows only");
#[cfg(windows)]
const FOREIGN: (&str, &str) = ("bash", "on Linux and macOS only");

/// The program: the platform's line ([`LINES`]), else `exec` with `args`. `false` when there is none this engine
/// can run (reported).
fn read_program(
    hook: &mut HookBuilder,
    entry: &serde_json::Map<String, Value>,
    node: &NodePath,
    reporter: &mut Reporter<'_>,
) -> bool {
    let index = hook.index();
    let shell = LINES.into_iter().find_map(|(k, runner)| entry.get(k).map(|v| (k, runner, v)));
    match (entry.get("exec"), shell) {
        (Some(_), Some((written, _, _))) => {
            let place = hook_place(index, written, node.key(written), Target::Key);
            reporter.error(
                place,
                format!(
                    "`exec` runs an executable and `{written}` a shell line; {AGENT} refuses a hook with both; this \
                     hook was not loaded"
                ),
            );
            false
        }
        (None, Some((written, runner, line))) => {
            hook.set(runner, written, line.clone(), node.key(written));
            true
        }
        (Some(exec), None) => {
            let mut argv = vec![exec.clone()];
            match entry.get("args") {
                None | Some(Value::Null) => {}
                Some(Value::Array(args)) => argv.extend(args.iter().cloned()),
                Some(other) => {
                    let place = hook_place(index, "args", node.key("args"), Target::Node);
                    reporter.error(place, format!("expected a list of strings, found {}", describe(other)));
                    hook.malformed();
                }
            }
            hook.set("argv", "exec", Value::Array(argv), node.key("exec"));
            true
        }
        (None, None) => {
            let place = hook_place(index, "", node.clone(), Target::Node);
            reporter.error(
                place,
                format!(
                    "a command hook needs `{}` (or `command`, or `exec`): the line to run; this hook was not loaded",
                    LINES[0].0
                ),
            );
            false
        }
    }
}

/// Whether a command hook has only the other platforms' line ([`FOREIGN`]): none of [`LINES`], no `exec`.
fn is_foreign_only(entry: &serde_json::Map<String, Value>) -> bool {
    entry.contains_key(FOREIGN.0) && !LINES.iter().any(|(k, _)| entry.contains_key(*k)) && !entry.contains_key("exec")
}

/// A hook with only the other platforms' line, which {AGENT} skips here, never dropped in silence: on a gate it
/// closes the gate for the calls its matcher covers (an effect hook that denies them, the reason naming it), with a
/// warning; elsewhere a warning says it does not run. `true` when it loads.
fn foreign_gate(
    hook: &mut HookBuilder,
    event: &str,
    canonical: Option<&str>,
    entry: &serde_json::Map<String, Value>,
    node: &NodePath,
    reporter: &mut Reporter<'_>,
) -> bool {
    let index = hook.index();
    let (key, only) = FOREIGN;
    let place = || hook_place(index, key, node.key(key), Target::Key);
    let why = format!("only a `{key}` line, which {AGENT} runs {only}");
    let gate = canonical.and_then(|c| hook_types::Event::parse(c).ok()).map(|p| p.event).filter(crate::is_gate);
    let Some(gate) = gate else {
        reporter.warn(place(), format!("{why}; on {event}, not a gate, it is not loaded"));
        return false;
    };
    reporter.warn(place(), format!("{why}; its gate is closed instead: every call it would have run on is denied"));
    let handler = super::hook_field(index, None);
    let reason = crate::closed_gate::unrunnable_reason(reporter.source(), &handler, &why);
    let effect = match gate {
        hook_types::Event::TurnStart => serde_json::json!({"kind": "block_turn", "reason": reason}),
        _ => serde_json::json!({"kind": "block_tool", "reason": reason, "severity": "hard-block"}),
    };
    hook.set("kind", "type", Value::String("effect".into()), node.clone());
    hook.set("effect", key, effect, node.key(key));
    read_matcher(hook, event, canonical, entry, node, reporter);
    true
}

/// `matcher`: Copilot's anchored regex where the event has a field it tests, else dropped with a warning.
fn read_matcher(
    hook: &mut HookBuilder,
    event: &str,
    canonical: Option<&str>,
    entry: &serde_json::Map<String, Value>,
    node: &NodePath,
    reporter: &mut Reporter<'_>,
) {
    let Some(value) = entry.get("matcher") else { return };
    let index = hook.index();
    let matcher_node = node.key("matcher");
    let Value::String(pattern) = value else {
        reporter.error(
            hook_place(index, "matcher", matcher_node, Target::Node),
            format!("expected a regular expression, found {}", describe(value)),
        );
        hook.malformed();
        return;
    };
    let filtered_here = event != "postToolUseFailure"
        && matches!(canonical, Some("pre_tool" | "post_tool" | "permission_request" | "compaction"));
    if !filtered_here {
        reporter.warn(
            hook_place(index, "matcher", matcher_node, Target::Node),
            format!("this engine does not filter {event} by a matcher; `{pattern}` is dropped and the hook runs on every {event}"),
        );
        return;
    }
    // Copilot anchors the pattern as `^(?:PATTERN)$` and skips the hook when it is no valid regex (or empty).
    if pattern.is_empty() || regex::Regex::new(pattern).is_err() {
        reporter.error(
            hook_place(index, "matcher", matcher_node, Target::Node),
            format!(
                "`{pattern}` is not a valid regular expression: {AGENT} skips this hook; fix the pattern (it is \
                 matched whole, as `^(?:PATTERN)$`)"
            ),
        );
        hook.malformed();
        return;
    }
    hook.set("matcher", "matcher", Value::String(format!("^(?:{pattern})$")), matcher_node);
}
