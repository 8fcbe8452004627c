//! Reading one hook's fields with typed accessors that report what was expected.

use serde_json::Value;

use crate::formats::{WireField, WireHook, hook_field};
use crate::issues::{Place, Reporter, describe};
use crate::parse::{NodePath, Target};

/// One hook being normalized: its remaining fields and whether anything so far makes it unusable.
pub(super) struct HookReader<'r, 'a> {
    pub(super) index: usize,
    pub(super) node: NodePath,
    /// One per key. A hook has a handful of fields, so a list searched in place beats building a map per hook.
    fields: Vec<WireField>,
    reporter: &'r mut Reporter<'a>,
    /// An error-level issue was reported: the hook is dropped once every other issue has been found.
    pub(super) failed: bool,
    /// The declared id, once read, so later issues name it.
    pub(super) hook_id: Option<String>,
    /// The agent whose file this is loads the hook but never runs it (clio-coder's `tools` on an event without a
    /// tool, an effect its host ignores there): loaded disabled, with a warning that says why.
    pub(super) inert: bool,
    /// It says `enabled: false`: what would only fail when it runs is a warning, not a reason to drop it.
    pub(super) disabled: bool,
}

impl<'r, 'a> HookReader<'r, 'a> {
    pub(super) fn new(wire: WireHook, reporter: &'r mut Reporter<'a>) -> Self {
        // A reader that hands over one key twice means the later value: keep one field per key, the last. The
        // reader's own list is kept, in order, rather than copied field by field for every hook.
        let mut fields = wire.fields;
        let mut at = 0;
        while at < fields.len() {
            if fields[at + 1..].iter().any(|later| later.key == fields[at].key) {
                fields.remove(at);
            } else {
                at += 1;
            }
        }
        HookReader {
            index: wire.index,
            node: wire.node,
            fields,
            reporter,
            failed: wire.malformed,
            hook_id: None,
            inert: false,
            disabled: false,
        }
    }

    /// Removes and returns a field.
    pub(super) fn take(&mut self, key: &str) -> Option<WireField> {
        let at = self.fields.iter().position(|f| f.key == key)?;
        Some(self.fields.swap_remove(at))
    }

    /// Reports that a required field is missing — unless an unknown key of this hook was already reported as a
    /// likely misspelling of it, which says the same thing better.
    pub(super) fn missing(&mut self, key: &str, message: impl Into<String>) {
        if self.likely_meant(key) {
            self.failed = true;
        } else {
            self.error(None, message);
        }
    }

    /// Whether an unknown key of this hook was reported as a likely misspelling of `key`.
    pub(super) fn likely_meant(&self, key: &str) -> bool {
        self.reporter.was_likely_meant(self.index, key)
    }

    /// Whether the hook has this field (not taken yet).
    pub(super) fn has(&self, key: &str) -> bool {
        self.fields.iter().any(|f| f.key == key)
    }

    /// The fields not taken yet, by key (the order their issues are reported in).
    pub(super) fn remaining(&mut self) -> Vec<WireField> {
        let mut fields = std::mem::take(&mut self.fields);
        fields.sort_unstable_by_key(|f| f.key);
        fields
    }

    /// Where an issue about `field` (or, with `None`, the whole hook) points.
    pub(super) fn place(&self, field: Option<&WireField>, target: Target) -> Place {
        Place {
            index: Some(self.index),
            hook_id: self.hook_id.clone(),
            field: Some(hook_field(self.index, field.map(|f| f.written.as_str()))),
            node: Some((field.map_or_else(|| self.node.clone(), |f| f.node.clone()), target)),
        }
    }

    /// Where an issue about a part of `field` (`argv[0]`, `env.PATH`) points.
    pub(super) fn place_within(&self, field: &WireField, suffix: &str, node: NodePath, target: Target) -> Place {
        Place {
            index: Some(self.index),
            hook_id: self.hook_id.clone(),
            field: Some(format!("{}{suffix}", hook_field(self.index, Some(&field.written)))),
            node: Some((node, target)),
        }
    }

    /// Reports an error about `field` (the whole hook with `None`); the hook will be dropped.
    pub(super) fn error(&mut self, field: Option<&WireField>, message: impl Into<String>) {
        let place = self.place(field, Target::Node);
        self.error_at(place, message);
    }

    /// Reports an error at an explicit place; the hook will be dropped.
    pub(super) fn error_at(&mut self, place: Place, message: impl Into<String>) {
        self.failed = true;
        self.reporter.error(place, message);
    }

    /// Reports a warning about `field`; the hook still loads.
    pub(super) fn warn(&mut self, field: Option<&WireField>, message: impl Into<String>) {
        let place = self.place(field, Target::Node);
        self.reporter.warn(place, message);
    }

    /// Reports a warning at an explicit place; the hook still loads.
    pub(super) fn warn_at(&mut self, place: Place, message: impl Into<String>) {
        self.reporter.warn(place, message);
    }

    /// Reports that `field` has the wrong type.
    pub(super) fn wrong_type(&mut self, field: &WireField, expected: &str) {
        let message = format!("expected {expected}, found {}", describe(&field.value));
        self.error(Some(field), message);
    }

    /// A string field; `None` (after reporting) when it has another type.
    ///
    /// The string is moved out of the field, not cloned: once a value is read, an issue about its field needs only
    /// the key and the node (this holds for every accessor here).
    pub(super) fn string(&mut self, key: &str) -> Option<(String, WireField)> {
        let mut field = self.take(key)?;
        match &mut field.value {
            Value::String(s) => Some((std::mem::take(s), field)),
            _ => {
                self.wrong_type(&field, "a string");
                None
            }
        }
    }

    /// A boolean field; `None` when absent or (after reporting) of another type.
    pub(super) fn bool(&mut self, key: &str) -> Option<(bool, WireField)> {
        let field = self.take(key)?;
        match field.value {
            Value::Bool(b) => Some((b, field)),
            _ => {
                self.wrong_type(&field, "`true` or `false`");
                None
            }
        }
    }

    /// A field whose string value must be one of `choices` (a closed vocabulary); suggests the nearest.
    pub(super) fn choice(&mut self, key: &str, choices: &[&'static str]) -> Option<(&'static str, WireField)> {
        let field = self.take(key)?;
        let Value::String(value) = &field.value else {
            self.wrong_type(&field, "a string");
            return None;
        };
        if let Some(choice) = choices.iter().find(|c| **c == value) {
            return Some((choice, field));
        }
        // Built only here: most hooks spell every choice right, and this list is several allocations.
        let list = choices.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
        let hint = crate::issues::hint(hook_types::did_you_mean(value, choices.iter().copied()));
        let message = format!("unknown {} `{value}`{hint}; expected one of {list}", field.key);
        self.error(Some(&field), message);
        None
    }

    /// A list of non-empty strings.
    pub(super) fn string_list(&mut self, key: &str, what: &str) -> Option<(Vec<String>, WireField)> {
        let mut field = self.take(key)?;
        let Value::Array(items) = &mut field.value else {
            self.wrong_type(&field, &format!("a list of {what}"));
            return None;
        };
        let items = std::mem::take(items);
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Value::String(s) if !s.is_empty() => out.push(s),
                Value::String(_) => {
                    let place = self.place_within(&field, &format!("[{i}]"), field.node.index(i), Target::Node);
                    self.error_at(place, format!("expected {what}, found an empty string"));
                    ok = false;
                }
                other => {
                    let quote = if matches!(other, Value::Number(_) | Value::Bool(_)) { " (quote it)" } else { "" };
                    let place = self.place_within(&field, &format!("[{i}]"), field.node.index(i), Target::Node);
                    self.error_at(place, format!("expected a string, found {}{quote}", describe(&other)));
                    ok = false;
                }
            }
        }
        ok.then_some((out, field))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;

    fn field(key: &'static str, value: Value) -> WireField {
        WireField { key, written: key.to_owned(), value, node: NodePath::default().key(key) }
    }

    #[test]
    fn a_key_handed_over_twice_reads_as_its_last_value_and_leftovers_come_by_key() {
        let wire = WireHook {
            index: 0,
            node: NodePath::default(),
            fields: vec![
                field("on", json!("pre_tool")),
                field("severity", json!("warn")),
                field("argv", json!(["a"])),
                field("on", json!("post_tool")),
                field("effect", json!({})),
            ],
            malformed: false,
        };
        let mut reporter = Reporter::new(Path::new("hooks.yaml"), None);
        let mut hook = HookReader::new(wire, &mut reporter);
        assert_eq!(hook.take("on").map(|f| f.value), Some(json!("post_tool")));
        assert!(!hook.has("on"));
        let left: Vec<&str> = hook.remaining().iter().map(|f| f.key).collect();
        assert_eq!(left, ["argv", "effect", "severity"]);
    }
}
