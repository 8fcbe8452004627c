//! The hook handlers of an agent's file, one by one: where each sits, whether it is the bridge, and what it loads as.
//!
//! Each handler is loaded on its own, through the agent's own reader: a copy of the file that holds only that handler
//! (and every key that is not an event list, such as Gemini CLI's `hooksConfig` switches) goes through
//! [`parse_str`]. So the declaration a moved hook gets is exactly the one the reader gives it in place, without
//! knowing how the reader numbers hooks, and a handler the reader cannot take (another handler type, a bad field)
//! is known by the reader's own message.

use std::path::Path;

use serde_json::{Map, Value};

use hook_types::HandlerShape;

use super::InstallError;
use super::agent::Agent;
use hook_config::BridgeProgram;
use hook_config::{FileContext, parse_str};
use hook_config::{HookDecl, IssueSeverity};

/// Where one handler sits in an agent's file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Handler {
    /// The event key, as the agent spells it.
    pub event: String,
    /// The matcher group's position in the event's list, where the agent's events hold matcher groups; `None` where
    /// an event's list holds handlers directly.
    pub group: Option<usize>,
    /// The handler's position in its group (or in the event's list, for Cursor).
    pub index: usize,
    /// The handler as written.
    pub value: Value,
    /// The group's other keys (`matcher`, `sequential`), as written.
    pub group_keys: Map<String, Value>,
}

/// What a handler is to install.
#[derive(Debug, Clone)]
pub(crate) enum Found {
    /// It invokes the bridge.
    Bridge,
    /// The engine reads it: it can move.
    Movable(Box<HookDecl>),
    /// It stays with the agent, for this reason.
    Kept(String),
}

/// Whether `key: value` of an agent's `hooks` object is an event's list: a list of objects, and not one of the
/// agent's switches (Gemini CLI's, which older versions keep inside `hooks` beside the events).
fn is_event_list(agent: Agent, key: &str, value: &Value) -> bool {
    let switch = agent.agent().hooks_switches.contains(&key);
    !switch && matches!(value, Value::Array(items) if items.iter().all(Value::is_object))
}

/// The event lists of an agent's `hooks` object (see [`is_event_list`]).
fn event_lists(agent: Agent, hooks: &Map<String, Value>) -> impl Iterator<Item = (&String, &Vec<Value>)> {
    hooks.iter().filter_map(move |(key, value)| match value {
        Value::Array(items) if is_event_list(agent, key, value) => Some((key, items)),
        _ => None,
    })
}

/// Every handler of the file's `hooks` object, in file order.
pub(crate) fn handlers(agent: Agent, hooks: &Map<String, Value>) -> Vec<Handler> {
    let mut out = Vec::new();
    for (event, items) in event_lists(agent, hooks) {
        for (position, item) in items.iter().enumerate() {
            let Value::Object(item) = item else { continue };
            if matches!(agent.agent().handler, HandlerShape::Flat { .. } | HandlerShape::Shells) {
                out.push(Handler {
                    event: event.clone(),
                    group: None,
                    index: position,
                    value: Value::Object(item.clone()),
                    group_keys: Map::new(),
                });
                continue;
            }
            let Some(Value::Array(inner)) = item.get("hooks") else { continue };
            let group_keys: Map<String, Value> =
                item.iter().filter(|(k, _)| k.as_str() != "hooks").map(|(k, v)| (k.clone(), v.clone())).collect();
            for (index, handler) in inner.iter().enumerate() {
                out.push(Handler {
                    event: event.clone(),
                    group: Some(position),
                    index,
                    value: handler.clone(),
                    group_keys: group_keys.clone(),
                });
            }
        }
    }
    out
}

/// Refuses a `hooks` object install would have to replace part of to edit: an event of the agent whose value is
/// not a list of objects (`"PreToolUse": {…}`), which the agent itself would not read either. Writing the bridge
/// there would silently drop what the user wrote; install says where and what instead, and changes nothing.
pub(crate) fn check_shapes(agent: Agent, path: &Path, hooks: &Map<String, Value>) -> Result<(), InstallError> {
    for (key, value) in hooks {
        let switch = agent.agent().hooks_switches.contains(&key.as_str());
        let is_event = agent.agent().event(key).is_some();
        if switch || !is_event || is_event_list(agent, key, value) {
            continue;
        }
        let found = match value {
            Value::Array(_) => "a list holding something other than objects".to_owned(),
            other => super::json_kind(other).to_owned(),
        };
        let expected = match agent.agent().handler {
            HandlerShape::Flat { .. } | HandlerShape::Shells => "a list of handlers",
            _ => "a list of matcher groups",
        };
        return Err(InstallError::Unsupported {
            path: path.to_path_buf(),
            message: format!("`hooks.{key}` is {found}, expected {expected}; fix it by hand first"),
        });
    }
    Ok(())
}

/// Whether a handler runs the bridge.
pub(crate) fn is_bridge(handler: &Value, program: &BridgeProgram) -> bool {
    // GitHub Copilot CLI's handlers hold their shell line in `bash` (`command` is its cross-platform fallback).
    ["command", "bash"]
        .iter()
        .filter_map(|key| handler.get(*key).and_then(Value::as_str))
        .any(|line| program.invokes_bridge_line(line))
}

/// What `handler` of the file at `path` (whose top level is `root`) is: the bridge, a hook that can move, or one that
/// stays.
pub(crate) fn classify(
    agent: Agent,
    root: &Map<String, Value>,
    handler: &Handler,
    path: &Path,
    cx: &FileContext<'_>,
    program: &BridgeProgram,
) -> Found {
    if is_bridge(&handler.value, program) {
        return Found::Bridge;
    }
    let text = serde_json::to_string_pretty(&Value::Object(alone(agent, root, handler))).unwrap_or_default();
    let load = parse_str(&text, path, agent, cx);
    let errors: Vec<&str> =
        load.issues.iter().filter(|i| i.severity == IssueSeverity::Error).map(|i| i.message.as_str()).collect();
    if let Some(first) = errors.first() {
        return Found::Kept(format!("the engine cannot read it: {first}"));
    }
    match <[HookDecl; 1]>::try_from(load.hooks) {
        // A model evaluates it: the agent has one, the bridge has none (docs/evaluated-hooks.md).
        Ok([decl]) if decl.kind() == hook_types::HookKind::Evaluated => Found::Kept(
            "the engine does not run it: a model evaluates it, which the agent has and the bridge has not".into(),
        ),
        // The agent runs it in the background itself, with what only the agent can do on its end (an `asyncRewake`
        // hook, which implies `async`, wakes the model on its exit 2); the engine's own async hooks run after the
        // bridge's answer, in its detached runner (docs/observability.md).
        Ok([decl]) if decl.run_async || handler.value.get("asyncRewake") == Some(&Value::Bool(true)) => Found::Kept(
            "the agent runs it in the background itself, as it was written to run (with what only the agent does \
             when it ends, such as waking its model on `asyncRewake`)"
                .into(),
        ),
        // A handler that cannot run here (an `mcp_tool` call, a line for another platform's shell) loads as the gate it closes;
        // the agent runs it, so it stays with the agent.
        Ok([decl]) if decl.kind() == hook_types::HookKind::Effect => Found::Kept(match load.issues.first() {
            Some(issue) => format!("the engine cannot run it: {}", issue.message),
            None => "the engine cannot run it".into(),
        }),
        // An `if` the agent never matches (on an event without a tool, or naming what it tests nothing against):
        // the agent never runs it; moved, it would be an error in a native file.
        Ok([decl])
            if decl
                .condition
                .as_ref()
                .is_some_and(|c| !c.can_match() || !(decl.event.is_tool_event() || decl.event.is_foreign())) =>
        {
            Found::Kept("the agent never runs it: its `if` matches no call".into())
        }
        Ok([decl]) => Found::Movable(Box::new(decl)),
        // A handler the reader passes over says why in a warning (a handler type it does not know).
        Err(hooks) if hooks.is_empty() => Found::Kept(match load.issues.first() {
            Some(issue) => format!("the engine does not run it: {}", issue.message),
            None => "the engine reads no hook from it".into(),
        }),
        Err(hooks) => Found::Kept(format!("the engine reads {} hooks from it, not one", hooks.len())),
    }
}

/// A copy of the file's top level whose `hooks` holds `handler` alone, in its group.
fn alone(agent: Agent, root: &Map<String, Value>, handler: &Handler) -> Map<String, Value> {
    let mut copy = root.clone();
    let Some(Value::Object(hooks)) = root.get("hooks") else { return copy };
    let is_event_list = |value: &Value| matches!(value, Value::Array(items) if items.iter().all(Value::is_object));
    let mut only: Map<String, Value> =
        hooks.iter().filter(|(_, v)| !is_event_list(v)).map(|(k, v)| (k.clone(), v.clone())).collect();
    let item = match agent.agent().handler {
        HandlerShape::Flat { .. } | HandlerShape::Shells => handler.value.clone(),
        _ => {
            let mut group = handler.group_keys.clone();
            group.insert("hooks".into(), Value::Array(vec![handler.value.clone()]));
            Value::Object(group)
        }
    };
    only.insert(handler.event.clone(), Value::Array(vec![item]));
    copy.insert("hooks".into(), Value::Object(only));
    copy
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn handlers_are_listed_with_their_place_and_switches_are_not_events() {
        let hooks = json!({
            "enabled": true,
            "disabled": ["noisy"],
            "BeforeTool": [
                {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]},
                {"hooks": [{"type": "command", "command": "c"}]}
            ]
        });
        let found = handlers(Agent::Gemini, hooks.as_object().unwrap());
        let places: Vec<(Option<usize>, usize, &str)> =
            found.iter().map(|h| (h.group, h.index, h.value["command"].as_str().unwrap())).collect();
        assert_eq!(places, vec![(Some(0), 0, "a"), (Some(0), 1, "b"), (Some(1), 0, "c")]);
        assert_eq!(found[0].group_keys, *json!({"matcher": "run_shell_command"}).as_object().unwrap());

        let root = json!({"hooksConfig": {"enabled": true}, "hooks": hooks});
        let copy = alone(Agent::Gemini, root.as_object().unwrap(), &found[1]);
        assert_eq!(
            Value::Object(copy),
            json!({"hooksConfig": {"enabled": true}, "hooks": {"enabled": true, "disabled": ["noisy"],
                "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "b"}]}]}})
        );
    }

    #[test]
    fn cursor_lists_hold_handlers_directly() {
        let hooks = json!({"stop": [{"command": "./a.sh"}, {"command": "hook bridge --protocol cursor"}]});
        let found = handlers(Agent::Cursor, hooks.as_object().unwrap());
        assert_eq!((found[1].group, found[1].index), (None, 1));
        let program = BridgeProgram::named(["hook"]);
        assert!(!is_bridge(&found[0].value, &program) && is_bridge(&found[1].value, &program));
    }
}
