//! Collecting [`Issue`]s while reading one file, with positions found on demand.

use std::cell::OnceCell;
use std::collections::HashSet;
use std::path::Path;

use crate::model::{Issue, IssueSeverity};
use crate::parse::{NodePath, Positions, Target};

/// Where an issue points: the hook, the field path as the user wrote it, and the node to place.
#[derive(Debug, Clone, Default)]
pub(crate) struct Place {
    /// The hook's index in its file.
    pub(crate) index: Option<usize>,
    /// The hook's id, when known.
    pub(crate) hook_id: Option<String>,
    /// The field path (`hooks[3].timeout_ms`).
    pub(crate) field: Option<String>,
    /// The node whose line:column to report.
    pub(crate) node: Option<(NodePath, Target)>,
}

/// The issues of one file.
pub(crate) struct Reporter<'a> {
    source: &'a Path,
    /// The file's text, to place nodes; `None` when the text did not parse.
    text: Option<&'a str>,
    /// Where the text's nodes are, read on the first issue that needs it: a clean file never pays for it.
    positions: OnceCell<Positions>,
    /// (hook index, field) pairs an unknown key was probably meant as (`mesage` → `message`): the normalizer does
    /// not also report those fields missing, so one typo is one issue.
    likely_meant: HashSet<(usize, &'static str)>,
    issues: Vec<Issue>,
    /// The event name (as the agent spells it) whose entries a reader is reading, if any: see
    /// [`Reporter::in_event`].
    event: Option<String>,
    /// For each issue, the event name that was current when it was reported.
    events: Vec<Option<String>>,
}

impl<'a> Reporter<'a> {
    /// A reporter for `source`, placing nodes in `text`.
    pub(crate) fn new(source: &'a Path, text: Option<&'a str>) -> Self {
        Reporter {
            source,
            text,
            positions: OnceCell::new(),
            likely_meant: HashSet::new(),
            issues: Vec::new(),
            event: None,
            events: Vec::new(),
        }
    }

    /// The file issues are about.
    pub(crate) fn source(&self) -> &Path {
        self.source
    }

    /// Says that what is reported from now on is about the entries of `event` (an agent's name for it), until the
    /// next call; `None` for the rest of the file. A reader of a file grouped by event (Claude Code's, Gemini CLI's,
    /// Cursor's) says so, so that an entry it drops for an error closes only the gate it was on, if any.
    pub(crate) fn in_event(&mut self, event: Option<&str>) {
        self.event = event.map(str::to_owned);
    }

    /// Records an issue at a known position (a syntax error, an invalid byte).
    pub(crate) fn at_position(
        &mut self,
        severity: IssueSeverity,
        position: (Option<usize>, Option<usize>),
        message: impl Into<String>,
    ) {
        self.events.push(self.event.clone());
        self.issues.push(Issue {
            source: self.source.to_path_buf(),
            index: None,
            hook_id: None,
            field: None,
            line: position.0,
            column: position.1,
            severity,
            message: message.into(),
        });
    }

    /// Records an issue, placing its node in the text.
    pub(crate) fn report(&mut self, severity: IssueSeverity, place: Place, message: impl Into<String>) {
        let position = match (&place.node, self.text) {
            (Some((path, target)), Some(text)) => {
                self.positions.get_or_init(|| crate::parse::positions(self.source, text)).get(path, *target)
            }
            _ => None,
        };
        self.events.push(self.event.clone());
        self.issues.push(Issue {
            source: self.source.to_path_buf(),
            index: place.index,
            hook_id: place.hook_id,
            field: place.field,
            line: position.map(|p| p.0),
            column: position.map(|p| p.1),
            severity,
            message: message.into(),
        });
    }

    /// An error-level [`Reporter::report`].
    pub(crate) fn error(&mut self, place: Place, message: impl Into<String>) {
        self.report(IssueSeverity::Error, place, message);
    }

    /// A warning-level [`Reporter::report`].
    pub(crate) fn warn(&mut self, place: Place, message: impl Into<String>) {
        self.report(IssueSeverity::Warning, place, message);
    }

    /// Notes that an unknown key of hook `index` was reported with `field` as its suggestion.
    pub(crate) fn likely_meant(&mut self, index: usize, field: &'static str) {
        self.likely_meant.insert((index, field));
    }

    /// Whether an unknown key of hook `index` was reported as probably meaning `field`.
    pub(crate) fn was_likely_meant(&self, index: usize, field: &str) -> bool {
        // A lookup, not a scan: a file whose every hook misspells a key asks this once per hook.
        let likely_meant: &HashSet<(usize, &str)> = &self.likely_meant;
        likely_meant.contains(&(index, field))
    }

    /// The issues recorded so far.
    pub(crate) fn into_issues(self) -> Vec<Issue> {
        self.issues
    }

    /// The issues recorded so far, each with the event name that was current when it was reported.
    pub(crate) fn into_parts(self) -> (Vec<Issue>, Vec<Option<String>>) {
        (self.issues, self.events)
    }
}

/// "a string", "a list", … for "expected X, found Y" messages.
pub(crate) fn describe(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a decimal number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// " (did you mean `x`?)" or nothing.
pub(crate) fn hint(suggestion: Option<&str>) -> String {
    suggestion.map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
}
