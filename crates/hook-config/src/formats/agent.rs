//! What the readers of the other agents' own files share (Gemini CLI, Cursor, mecha): building a hook in the
//! intermediate form from keys the agent spells its own way, timeouts written in seconds, event names that load as
//! foreign observers, and keys the agent would ignore.
//!
//! Every field a reader hands over keeps the key as the user wrote it (`timeout`, `failClosed`) and the node it came
//! from, so the normalizer's issues point at the user's own text. A value a reader synthesizes (the event of a
//! Gemini group, the tool filter Cursor's `beforeShellExecution` implies) points at the key that implied it.

use serde_json::Value;

use super::{WireField, WireHook, hook_field};
use crate::issues::{Place, Reporter, describe, hint};
use crate::parse::{NodePath, Target};

/// A hook being assembled from an agent's entry.
pub(super) struct HookBuilder {
    hook: WireHook,
}

impl HookBuilder {
    /// An empty hook at position `index` among the file's hooks, found at `node`.
    pub(super) fn new(index: usize, node: NodePath) -> HookBuilder {
        HookBuilder { hook: WireHook { index, node, fields: Vec::new(), malformed: false } }
    }

    /// The hook's position among the file's hooks.
    pub(super) fn index(&self) -> usize {
        self.hook.index
    }

    /// Adds a field under its canonical key, as `written` at `node`.
    pub(super) fn set(&mut self, key: &'static str, written: &str, value: Value, node: NodePath) {
        self.hook.fields.push(WireField { key, written: written.to_owned(), value, node });
    }

    /// Records that the reader already reported an error-level problem: the normalizer reports what else is wrong,
    /// then drops the hook.
    pub(super) fn malformed(&mut self) {
        self.hook.malformed = true;
    }

    /// The hook in the intermediate form.
    pub(super) fn finish(self) -> WireHook {
        self.hook
    }
}

/// Where an issue about one hook's field points: `hooks[N].<key>` (`hooks[N]` for the hook itself, `key` empty) at
/// `node`.
pub(super) fn hook_place(index: usize, key: &str, node: NodePath, target: Target) -> Place {
    let field = hook_field(index, Some(key).filter(|k| !k.is_empty()));
    Place { index: Some(index), field: Some(field), node: Some((node, target)), hook_id: None }
}

/// Where an issue about a part of the file outside any one hook points: the field path as the agent spells it
/// (`hooks.BeforeTool[0].matcher`).
pub(super) fn file_place(field: impl Into<String>, node: NodePath, target: Target) -> Place {
    Place { field: Some(field.into()), node: Some((node, target)), ..Place::default() }
}

/// A timeout written in seconds (Cursor's `timeout`, mecha's `timeout_secs`) as whole milliseconds; fractions of a
/// second are kept to the millisecond. `Err` says what was expected.
pub(super) fn seconds_to_ms(value: &Value) -> Result<u64, String> {
    let ms = match value {
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(secs), _) => secs.checked_mul(1_000),
            (None, Some(secs)) if secs.is_finite() && secs >= 0.0 => {
                let ms = (secs * 1_000.0).round();
                // Every f64 below 2^53 converts exactly; past it a timeout means nothing anyway.
                (ms < 9_007_199_254_740_992.0).then_some(ms as u64)
            }
            _ => return Err("expected a positive number of seconds, found a negative number".into()),
        },
        other => return Err(format!("expected a number of seconds, found {}", describe(other))),
    };
    ms.ok_or_else(|| "the number of seconds is too large".to_owned())
}

/// An agent's events as its reader needs them, from the agent table ([`hook_types::Agent`]): the one list of the
/// agent's names.
pub(super) struct AgentEvents {
    /// The agent.
    pub(super) agent: hook_types::Protocol,
    /// Whether `on` keeps the agent's own spelling (the default ids of Claude Code's and Codex's hooks hash it).
    spelled: bool,
}

impl AgentEvents {
    /// The events of `agent`, `on` written as the canonical event (with the alias where the name implies filters).
    pub(super) const fn of(agent: hook_types::Protocol) -> AgentEvents {
        AgentEvents { agent, spelled: false }
    }

    /// The events of `agent`, `on` written in the agent's own spelling.
    pub(super) const fn spelled(agent: hook_types::Protocol) -> AgentEvents {
        AgentEvents { agent, spelled: true }
    }

    /// The value of `on` for the agent's event `name` (its canonical event, spelled so that the filters the name
    /// implies come with it) and the agent's row for it; or `foreign:<name>` and `None`. A name the agent does not
    /// document also loads as a foreign observer, with a warning: in the agent it never fires, which for a policy
    /// hook is usually a typo.
    pub(super) fn resolve(
        &self,
        name: &str,
        place: Place,
        reporter: &mut Reporter<'_>,
    ) -> (String, Option<&'static hook_types::AgentEvent>) {
        let agent = self.agent.agent();
        match agent.event(name) {
            Some(row) if row.event.is_some() => {
                let event = row.event.as_ref().expect("checked");
                let plain = row.filters == hook_types::EventFilters::default();
                let on = if plain && !self.spelled { event.canonical_name() } else { row.name };
                return (on.to_owned(), Some(row));
            }
            Some(_) => {}
            None => {
                let names = agent.events.iter().map(|e| e.name);
                let suggestion = hook_types::did_you_mean(name, names);
                reporter.warn(
                    place,
                    format!(
                        "`{name}` is not a {} event{}; its hooks load as observers of the foreign event `{name}`, \
                         which {} never fires",
                        agent.name,
                        hint(suggestion),
                        agent.name
                    ),
                );
            }
        }
        (format!("foreign:{name}"), None)
    }
}

/// The top-level object of a `{"version": 1, "hooks": {...}}` file (Cursor's, GitHub Copilot CLI's), each key not in
/// `known` reported as the agent ignoring it; `None`, with an error, when the file is not an object.
pub(super) fn versioned_top<'a>(
    root: &'a Value,
    known: &[&str],
    agent: &str,
    reporter: &mut Reporter<'_>,
) -> Option<&'a serde_json::Map<String, Value>> {
    let Value::Object(top) = root else {
        let place = file_place("", NodePath::default(), Target::Node);
        reporter.error(place, format!("expected `{{\"version\": 1, \"hooks\": {{...}}}}`, found {}", describe(root)));
        return None;
    };
    for key in top.keys().filter(|k| !known.contains(&k.as_str())) {
        unknown_key(reporter, file_place(key.clone(), NodePath::default().key(key), Target::Key), key, known, agent);
    }
    Some(top)
}

/// Warns about a key the agent does not read (it ignores it, so the hook still loads), suggesting the nearest known
/// key.
pub(super) fn unknown_key(reporter: &mut Reporter<'_>, place: Place, key: &str, known: &[&str], agent: &str) {
    let suggestion = hook_types::did_you_mean(key, known.iter().copied());
    reporter.warn(place, format!("unknown key `{key}`{}; {agent} ignores it", hint(suggestion)));
}

/// The string at `value`, or an error-level issue saying what was found instead.
pub(super) fn expect_str<'v>(
    value: &'v Value,
    what: &str,
    place: Place,
    reporter: &mut Reporter<'_>,
) -> Option<&'v str> {
    match value {
        Value::String(s) => Some(s),
        other => {
            reporter.error(place, format!("expected {what}, found {}", describe(other)));
            None
        }
    }
}
