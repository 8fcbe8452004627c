//! Cursor's `hooks.json` (`.cursor/hooks.json`, `~/.cursor/hooks.json`; docs/declarations.md#foreign-formats).
//!
//! ```json
//! { "version": 1, "hooks": { "beforeShellExecution": [ { "command": "./guard.sh", "timeout": 5, "failClosed": true } ] } }
//! ```
//!
//! - **Events** (docs/events.md): `preToolUse` → pre_tool and `postToolUse` → post_tool for every tool;
//!   `postToolUseFailure` → post_tool with `only_errors`; `beforeSubmitPrompt` → turn_start; `stop` → turn_end and
//!   `subagentStop` → turn_end with `scope: subagent` (the name the output protocol gives a subagent's turn_end);
//!   `sessionStart`, `sessionEnd`, `preCompact` → their events. Cursor's per-tool events become the tool event with a
//!   matcher for exactly the calls the output protocol names after them — the same case-insensitive test, so a hook
//!   fires on precisely the calls whose payload says its event: `beforeShellExecution` / `afterShellExecution` for
//!   the tool `shell` (`(?i)^shell$`), `beforeMCPExecution` / `afterMCPExecution` for MCP tools (`mcp__…`, `mcp:…`),
//!   `beforeReadFile` for `read`, `afterFileEdit` for `edit` and `write`. Every other name (`subagentStart`,
//!   `afterAgentResponse`, …) loads as an observer of that foreign event.
//! - **`matcher`** follows the Claude/Codex rule on the tool events. On a per-tool event the event's own filter
//!   stands in for it; a matcher written there is dropped with a warning (the hook runs on every call of that kind).
//! - **`timeout`** is in seconds; the protocol's default is 30 s.
//! - **`failClosed: true`** is `on_error: deny`: a hook that crashes, times out or answers garbage denies. Without it
//!   `protocol: cursor` fails open.
//! - **`type`** is `command` (the default); Cursor's `prompt` hooks, which its own model evaluates, have no runner
//!   here and are reported, not loaded. `loop_limit` (Cursor's cap on `stop` follow-ups) is read but the host's
//!   continuation cap (`Limits`) applies instead, with a warning.
//!
//! Cursor runs project hooks from the project root, as this engine does. A user-level hook whose command is relative
//! to `~/.cursor` finds nothing there: Cursor does not promise that working directory either, so such hooks are
//! written with absolute paths in practice.

use serde_json::{Map, Value};

use super::WireFile;
use super::agent::{AgentEvents, HookBuilder, file_place, hook_place, seconds_to_ms, unknown_key, versioned_top};
use crate::issues::{Reporter, describe};
use crate::model::Matcher;
use crate::parse::{NodePath, Target};

const AGENT: &str = "Cursor";

const EVENTS: AgentEvents = AgentEvents::of(hook_types::Protocol::Cursor);

/// The tools a per-tool event covers (the tool its row in the agent table implies), as a matcher: the output
/// protocol's case-insensitive test of the tool name.
fn implied_matcher(event: &str) -> Option<&'static str> {
    match hook_types::Protocol::Cursor.agent().event(event)?.tool? {
        "shell" => Some("(?i)^shell$"),
        "mcp" => Some("(?i)^mcp(__|:)"),
        "read" => Some("(?i)^read$"),
        "edit" | "write" => Some("(?i)^(edit|write)$"),
        _ => None,
    }
}

const FILE_KEYS: &[&str] = &["version", "hooks", "$schema"];
const HOOK_KEYS: &[&str] = &["command", "type", "timeout", "failClosed", "matcher", "loop_limit"];

/// Reads a Cursor hooks file.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let top = versioned_top(root, FILE_KEYS, AGENT, reporter)?;
    match top.get("version") {
        Some(version) if version.as_u64() == Some(1) => {}
        Some(other) => {
            let found = other.as_u64().map_or_else(|| describe(other).to_owned(), |v| v.to_string());
            let place = file_place("version", NodePath::default().key("version"), Target::Node);
            reporter.error(
                place,
                format!("unsupported version {found}: Cursor reads version 1; nothing in this file was loaded"),
            );
            return None;
        }
        None => {
            let place = file_place("", NodePath::default(), Target::Node);
            reporter.warn(place, "no `\"version\": 1`; Cursor expects it (read as version 1)");
        }
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
    // Every entry takes a position, loaded or not, so `hooks[N]` in issues counts the entries as written.
    let mut position = 0;
    for (event, entries) in events {
        reporter.in_event(None);
        let event_node = hooks_node.key(event);
        let Value::Array(entries) = entries else {
            let place = file_place(format!("hooks.{event}"), event_node, Target::Node);
            reporter.error(place, format!("expected a list of hooks, found {}", describe(entries)));
            continue;
        };
        let place = file_place(format!("hooks.{event}"), event_node.clone(), Target::Key);
        let (on, row) = EVENTS.resolve(event, place, reporter);
        let canonical = row.and_then(|r| r.event.as_ref()).map(hook_types::Event::canonical_name);
        reporter.in_event(Some(&on));
        for (i, entry) in entries.iter().enumerate() {
            let node = event_node.index(i);
            let mut hook = HookBuilder::new(position, node.clone());
            position += 1;
            hook.set("on", "event", Value::String(on.clone()), event_node.clone());
            hook.set("kind", "type", Value::String("command".into()), node.clone());
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

/// One entry: `{command, type?, timeout?, failClosed?, matcher?, loop_limit?}`. `false` when it cannot be a hook
/// here at all (reported).
///
/// # Order
///
/// 1. the entry is a mapping; keys Cursor does not know are reported;
/// 2. its `type` is a command's (or absent): a prompt hook, or anything else, is not loaded;
/// 3. `command`, which the hook needs;
/// 4. `timeout`, `failClosed`, the matcher and `loop_limit`, each reported where wrong (the hook is then malformed).
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
        reporter.error(place, format!("expected a hook (`{{\"command\": ...}}`), found {}", describe(entry)));
        return false;
    };
    for key in entry.keys().filter(|k| !HOOK_KEYS.contains(&k.as_str())) {
        unknown_key(reporter, hook_place(index, key, node.key(key), Target::Key), key, HOOK_KEYS, AGENT);
    }
    if !command_type(index, entry, node, reporter) {
        return false;
    }
    let Some(command) = entry.get("command") else {
        let place = hook_place(index, "", node.clone(), Target::Node);
        reporter.error(place, "a hook needs `command` (the shell command to run); this hook was not loaded");
        return false;
    };
    hook.set("shell", "command", command.clone(), node.key("command"));
    timeout(hook, entry, node, reporter);
    fail_closed(hook, entry, node, reporter);
    matcher(hook, event, canonical, entry, node, reporter);
    loop_limit(hook, entry, node, reporter);
    true
}

/// Whether the entry's `type` is a command's (or absent); a prompt hook, which Cursor's own model evaluates, and any
/// other type are reported.
fn command_type(index: usize, entry: &Map<String, Value>, node: &NodePath, reporter: &mut Reporter<'_>) -> bool {
    let place = || hook_place(index, "type", node.key("type"), Target::Node);
    match entry.get("type") {
        None => true,
        Some(Value::String(kind)) if kind == "command" => true,
        Some(Value::String(kind)) if kind == "prompt" => {
            reporter.error(
                place(),
                "`prompt` hooks are evaluated by Cursor's own model and cannot run here; this hook was not loaded",
            );
            false
        }
        Some(other) => {
            let found = other.as_str().map_or_else(|| describe(other).to_owned(), |s| format!("`{s}`"));
            reporter.error(
                place(),
                format!("expected `\"command\"` (or Cursor's `\"prompt\"`), found {found}; this hook was not loaded"),
            );
            false
        }
    }
}

/// `timeout`, in seconds.
fn timeout(hook: &mut HookBuilder, entry: &Map<String, Value>, node: &NodePath, reporter: &mut Reporter<'_>) {
    let Some(timeout) = entry.get("timeout") else { return };
    match seconds_to_ms(timeout) {
        Ok(ms) => hook.set("timeout_ms", "timeout", Value::from(ms), node.key("timeout")),
        Err(message) => {
            reporter.error(hook_place(hook.index(), "timeout", node.key("timeout"), Target::Node), message);
            hook.malformed();
        }
    }
}

/// `failClosed: true`: the hook denies when it fails (`on_error: deny`).
fn fail_closed(hook: &mut HookBuilder, entry: &Map<String, Value>, node: &NodePath, reporter: &mut Reporter<'_>) {
    match entry.get("failClosed") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => {
            hook.set("on_error", "failClosed", Value::String("deny".into()), node.key("failClosed"))
        }
        Some(other) => {
            let place = hook_place(hook.index(), "failClosed", node.key("failClosed"), Target::Node);
            reporter.error(place, format!("expected `true` or `false`, found {}", describe(other)));
            hook.malformed();
        }
    }
}

/// The matcher: the tools an event such as `beforeShellExecution` names (a written matcher dropped, with a
/// warning), the written one where the event is filtered by one here, none (with a warning) where it is not.
fn matcher(
    hook: &mut HookBuilder,
    event: &str,
    canonical: Option<&str>,
    entry: &Map<String, Value>,
    node: &NodePath,
    reporter: &mut Reporter<'_>,
) {
    let index = hook.index();
    let written = entry.get("matcher").map(|m| (m, node.key("matcher")));
    match (implied_matcher(event), written) {
        (Some(implied), written) => {
            if let Some((Value::String(pattern), matcher_node)) = written
                && !matches!(Matcher::parse(pattern), Ok(None))
            {
                reporter.warn(
                    hook_place(index, "matcher", matcher_node, Target::Node),
                    format!(
                        "{event} already names its tools; `{pattern}` is dropped and the hook runs on every such call"
                    ),
                );
            }
            hook.set("matcher", "event", Value::String(implied.into()), node.clone());
        }
        (None, Some((value, matcher_node))) => {
            if canonical.is_some_and(|c| !matches!(c, "pre_tool" | "post_tool" | "session_start" | "compaction"))
                && let Value::String(pattern) = value
            {
                if !matches!(Matcher::parse(pattern), Ok(None)) {
                    reporter.warn(
                        hook_place(index, "matcher", matcher_node, Target::Node),
                        format!("this engine cannot filter {event} by a matcher; `{pattern}` is dropped and the hook runs on every {event}"),
                    );
                }
            } else {
                hook.set("matcher", "matcher", value.clone(), matcher_node);
            }
        }
        (None, None) => {}
    }
}

/// `loop_limit`, which is not read: the host's cap on continuations in a row applies.
fn loop_limit(hook: &mut HookBuilder, entry: &Map<String, Value>, node: &NodePath, reporter: &mut Reporter<'_>) {
    let place = |key| hook_place(hook.index(), key, node.key(key), Target::Node);
    match entry.get("loop_limit") {
        None | Some(Value::Null) => {}
        Some(Value::Number(_)) => reporter.warn(
            place("loop_limit"),
            "`loop_limit` is not read here: the host's cap on continuations in a row (its `Limits`) applies instead",
        ),
        Some(other) => {
            reporter.error(place("loop_limit"), format!("expected a number or null, found {}", describe(other)));
            hook.malformed();
        }
    }
}
