//! Crush's `crush.json` (`crush.json` and `.crush.json` in the project, `~/.config/crush/crush.json`;
//! docs/agents.md#crush): its `hooks` key, every other key being Crush's own settings.
//!
//! ```json
//! { "hooks": { "PreToolUse": [ { "name": "no-rm", "matcher": "^bash$", "command": "./guard.sh", "timeout": 10 } ] } }
//! ```
//!
//! - **Events**: `PreToolUse`, the one Crush runs, read as Crush reads event names: case-insensitively, with
//!   underscores allowed (`pre_tool_use`). Any other name loads as an observer of that foreign event (Crush runs none).
//! - **`matcher`** is a Go regular expression searched for in the tool name (`edit` matches `multiedit` too): it is
//!   loaded as that unanchored regex, `(?:<matcher>)`, never as a list of exact names.
//! - **`timeout`** is in seconds; the protocol's default is 30 s. **`name`** is shown by Crush's UI and read here as
//!   nothing more.

use serde_json::{Map, Value};

use super::WireFile;
use super::agent::{AgentEvents, HookBuilder, file_place, hook_place, seconds_to_ms, unknown_key};
use crate::issues::{Reporter, describe};
use crate::parse::{NodePath, Target};

const AGENT: &str = "Crush";

const EVENTS: AgentEvents = AgentEvents::of(hook_types::Protocol::Crush);

const HOOK_KEYS: &[&str] = &["name", "matcher", "command", "timeout"];

/// Crush's event name as its table row spells it, where Crush reads `name` as that event (`pretooluse`,
/// `PRE_TOOL_USE`).
fn event_name(name: &str) -> String {
    let folded: String = name.chars().filter(|c| *c != '_').flat_map(char::to_lowercase).collect();
    let row = hook_types::Protocol::Crush.agent().events.iter().find(|row| row.name.to_lowercase() == folded);
    row.map_or_else(|| name.to_owned(), |row| row.name.to_owned())
}

/// Reads a Crush config file's hooks.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let top = match root {
        Value::Object(top) => top,
        Value::Null => return Some(WireFile::default()),
        other => {
            let place = file_place("", NodePath::default(), Target::Node);
            reporter.error(place, format!("expected Crush's settings (a JSON object), found {}", describe(other)));
            return None;
        }
    };
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
    for (written, entries) in events {
        reporter.in_event(None);
        let event_node = hooks_node.key(written);
        let Value::Array(entries) = entries else {
            let place = file_place(format!("hooks.{written}"), event_node, Target::Node);
            reporter.error(place, format!("expected a list of hooks, found {}", describe(entries)));
            continue;
        };
        let event = event_name(written);
        let place = file_place(format!("hooks.{written}"), event_node.clone(), Target::Key);
        let (on, _) = EVENTS.resolve(&event, place, reporter);
        reporter.in_event(Some(&on));
        for (i, entry) in entries.iter().enumerate() {
            let node = event_node.index(i);
            let mut hook = HookBuilder::new(position, node.clone());
            position += 1;
            hook.set("on", "event", Value::String(on.clone()), event_node.clone());
            hook.set("kind", "command", Value::String("command".into()), node.clone());
            if read_entry(&mut hook, entry, &node, reporter) {
                file.hooks.push(hook.finish());
            }
        }
    }
    Some(file)
}

/// One entry: `{command, name?, matcher?, timeout?}`. `false` when it cannot be a hook (reported).
fn read_entry(hook: &mut HookBuilder, entry: &Value, node: &NodePath, reporter: &mut Reporter<'_>) -> bool {
    let index = hook.index();
    let Value::Object(entry) = entry else {
        let place = hook_place(index, "", node.clone(), Target::Node);
        reporter.error(place, format!("expected a hook (`{{\"command\": ...}}`), found {}", describe(entry)));
        return false;
    };
    for key in entry.keys().filter(|k| !HOOK_KEYS.contains(&k.as_str())) {
        unknown_key(reporter, hook_place(index, key, node.key(key), Target::Key), key, HOOK_KEYS, AGENT);
    }
    let Some(command) = entry.get("command") else {
        let place = hook_place(index, "", node.clone(), Target::Node);
        reporter.error(place, "a hook needs `command` (the shell command to run); this hook was not loaded");
        return false;
    };
    hook.set("shell", "command", command.clone(), node.key("command"));
    timeout(hook, entry, node, reporter);
    match entry.get("matcher") {
        Some(Value::String(pattern)) if !pattern.trim().is_empty() => {
            hook.set("matcher", "matcher", Value::String(format!("(?:{pattern})")), node.key("matcher"));
        }
        Some(Value::String(_)) | None => {}
        Some(other) => hook.set("matcher", "matcher", other.clone(), node.key("matcher")),
    }
    true
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
