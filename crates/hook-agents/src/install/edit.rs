//! Edits of an agent's `hooks` object: take handlers out, add the bridge, and the reverse of both. Every other key,
//! and the order of everything kept, stays as it was.

use serde_json::{Map, Value};

use hook_types::HandlerShape;

use super::agent::Agent;
use super::handlers::is_bridge;
use super::record::MovedRecord;
use hook_config::BridgeProgram;

/// A handler's place: event key, group position (`None` for Cursor), position in the group.
pub(crate) type Place<'a> = (&'a str, Option<usize>, usize);

/// Takes the handlers at `places` out of `hooks`. A matcher group left without handlers goes too; an event list left
/// empty stays (the bridge is added to it next, in its old position).
pub(crate) fn remove_handlers(hooks: &mut Map<String, Value>, places: &[Place<'_>]) {
    let mut sorted: Vec<&Place<'_>> = places.iter().collect();
    // Last first, so earlier positions stay valid.
    sorted.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)).reverse());
    for (event, group, index) in sorted {
        let Some(Value::Array(list)) = hooks.get_mut(*event) else { continue };
        match group {
            None => {
                if *index < list.len() {
                    list.remove(*index);
                }
            }
            Some(group) => {
                let Some(Value::Object(entry)) = list.get_mut(*group) else { continue };
                let Some(Value::Array(inner)) = entry.get_mut("hooks") else { continue };
                if *index < inner.len() {
                    inner.remove(*index);
                }
                if inner.is_empty() {
                    list.remove(*group);
                }
            }
        }
    }
}

/// Appends `entry` (the bridge's list item) to the list of each of `events`, creating lists as needed.
pub(crate) fn add_bridge(hooks: &mut Map<String, Value>, events: &[String], entry: impl Fn(&str) -> Value) {
    for event in events {
        let entry = entry(event);
        match hooks.get_mut(event) {
            Some(Value::Array(list)) => list.push(entry),
            _ => {
                hooks.insert(event.clone(), Value::Array(vec![entry]));
            }
        }
    }
}

/// Drops the lists of `events` that are empty (their handlers all moved and no bridge went in); an empty list the
/// user wrote under another key stays.
pub(crate) fn drop_empty_lists(hooks: &mut Map<String, Value>, events: &[&str]) {
    hooks.retain(|key, value| {
        !(events.contains(&key.as_str()) && matches!(value, Value::Array(list) if list.is_empty()))
    });
}

/// Takes every bridge handler out of the lists of `events`; a group or list left empty goes too.
pub(crate) fn remove_bridge(agent: Agent, hooks: &mut Map<String, Value>, events: &[String], program: &BridgeProgram) {
    for event in events {
        let Some(Value::Array(list)) = hooks.get_mut(event) else { continue };
        match agent.agent().handler {
            HandlerShape::Flat { .. } | HandlerShape::Shells => list.retain(|handler| !is_bridge(handler, program)),
            _ => {
                for entry in list.iter_mut() {
                    if let Some(Value::Array(inner)) = entry.get_mut("hooks") {
                        inner.retain(|handler| !is_bridge(handler, program));
                    }
                }
                list.retain(|entry| !matches!(entry.get("hooks"), Some(Value::Array(inner)) if inner.is_empty()));
            }
        }
        if list.is_empty() {
            hooks.shift_remove(event);
        }
    }
}

/// Puts moved handlers back: into a group with the same other keys (`matcher`) at the handler's old position, else
/// into a new group at the group's old position; for Cursor, at the handler's old position in the list.
pub(crate) fn restore_handlers(
    agent: Agent,
    hooks: &mut Map<String, Value>,
    moved: &[MovedRecord],
    program: &BridgeProgram,
) {
    for record in moved {
        let list = match hooks.entry(record.event.clone()).or_insert_with(|| Value::Array(Vec::new())) {
            Value::Array(list) => list,
            other => {
                *other = Value::Array(Vec::new());
                let Value::Array(list) = other else { unreachable!("just set") };
                list
            }
        };
        if matches!(agent.agent().handler, HandlerShape::Flat { .. } | HandlerShape::Shells) {
            let at = record.index.min(list.len());
            list.insert(at, record.handler.clone());
            continue;
        }
        let same_group = list.iter_mut().find_map(|entry| {
            let Value::Object(entry) = entry else { return None };
            let keys_match = entry.iter().filter(|(k, _)| k.as_str() != "hooks").eq(record.group_keys.iter());
            match entry.get_mut("hooks") {
                // Never into the bridge's own group: that one is taken out next.
                Some(Value::Array(inner)) if keys_match && !inner.iter().any(|h| is_bridge(h, program)) => Some(inner),
                _ => None,
            }
        });
        match same_group {
            Some(inner) => {
                let at = record.index.min(inner.len());
                inner.insert(at, record.handler.clone());
            }
            None => {
                let mut group = record.group_keys.clone();
                group.insert("hooks".into(), Value::Array(vec![record.handler.clone()]));
                let at = record.group.unwrap_or(0).min(list.len());
                list.insert(at, Value::Object(group));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn removing_then_restoring_handlers_gives_the_same_lists() {
        let original = object(json!({
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"command": "a"}, {"command": "keep"}]},
                {"matcher": "Write", "hooks": [{"command": "b"}]}
            ],
            "Stop": [{"hooks": [{"command": "c"}]}]
        }));
        let mut hooks = original.clone();
        remove_handlers(&mut hooks, &[("PreToolUse", Some(0), 0), ("PreToolUse", Some(1), 0), ("Stop", Some(0), 0)]);
        assert_eq!(
            Value::Object(hooks.clone()),
            json!({
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "keep"}]}],
                "Stop": []
            })
        );
        let program = BridgeProgram::named(["hook"]);
        let bridge = json!({"hooks": [{"type": "command", "command": "hook bridge --protocol claude"}]});
        add_bridge(&mut hooks, &["PreToolUse".into(), "Stop".into()], |_| bridge.clone());
        let moved = |event: &str, group, index, keys: Value, command: &str| MovedRecord {
            id: String::new(),
            hash: String::new(),
            event: event.into(),
            group: Some(group),
            index,
            group_keys: object(keys),
            handler: json!({"command": command}),
        };
        restore_handlers(
            Agent::Claude,
            &mut hooks,
            &[
                moved("PreToolUse", 0, 0, json!({"matcher": "Bash"}), "a"),
                moved("PreToolUse", 1, 0, json!({"matcher": "Write"}), "b"),
                moved("Stop", 0, 0, json!({}), "c"),
            ],
            &program,
        );
        remove_bridge(Agent::Claude, &mut hooks, &["PreToolUse".into(), "Stop".into()], &program);
        assert_eq!(hooks, original);
    }
}
