//! Lifecycle events (docs/events.md): the nine canonical events, foreign events, their classes and aliases.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::OnError;
use crate::suggest::did_you_mean;

/// A lifecycle point at which hooks run.
///
/// Canonical names are snake_case (`pre_tool`); [`Event::parse`] also reads every agent alias on the event's row of
/// docs/events.md. An event of another agent with no equivalent here is [`Event::Foreign`], spelled `foreign:<Name>`.
///
/// ```
/// use hook_types::{Event, EventClass};
/// let parsed = Event::parse("PreToolUse").unwrap();
/// assert_eq!(parsed.event, Event::PreTool);
/// assert_eq!(parsed.event.class(), EventClass::Gate);
/// assert_eq!(Event::PreTool.to_string(), "pre_tool");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Event {
    /// The host opens or resumes a session.
    SessionStart,
    /// A user prompt is accepted, before the model sees it.
    TurnStart,
    /// A tool call is about to run: after host guards, before the human approver.
    PreTool,
    /// The host is about to ask the human.
    PermissionRequest,
    /// A tool returned.
    PostTool,
    /// The final assistant message of a run.
    TurnEnd,
    /// Before context compaction.
    Compaction,
    /// The host shows a notice or waits for input.
    Notification,
    /// A session closes.
    SessionEnd,
    /// Another agent's event with no equivalent here, by that agent's name (`SubagentStart`).
    Foreign(String),
}

/// How an event's hooks can affect the host (docs/events.md#event-classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventClass {
    /// Can deny what is about to happen (turn_start, pre_tool).
    Gate,
    /// Produces a decision the host acts on (permission_request, turn_end).
    Decision,
    /// Can only add context and notices.
    Observer,
}

/// Which turn_end firings a hook sees (docs/declarations.md#keys-of-a-hook): Claude's `SubagentStop` is `turn_end` with `Subagent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Only the main agent's run (the default).
    #[default]
    Main,
    /// Only subagent runs.
    Subagent,
    /// Both.
    Any,
}

impl Scope {
    /// Whether a hook with this scope fires for a run that is (or is not) a subagent's.
    pub fn matches(self, is_subagent: bool) -> bool {
        match self {
            Scope::Main => !is_subagent,
            Scope::Subagent => is_subagent,
            Scope::Any => true,
        }
    }
}

/// The declaration filters an event name can imply (docs/events.md): `PostToolUseFailure` is `post_tool` with
/// `only_errors`, `SubagentStop` is `turn_end` with `scope: subagent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct EventFilters {
    /// post_tool only: fire only when the tool call failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub only_errors: bool,
    /// turn_end only: main agent, subagents or both.
    #[serde(default, skip_serializing_if = "is_main")]
    pub scope: Scope,
}

fn is_main(scope: &Scope) -> bool {
    *scope == Scope::Main
}

/// The result of [`Event::parse`]: the canonical event plus the filters its alias implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedEvent {
    /// The canonical event.
    pub event: Event,
    /// Filters implied by the alias (`PostToolUseFailure`, `SubagentStop`); default otherwise.
    pub filters: EventFilters,
}

/// The error returned by [`Event::parse`] for a name that is no event or alias.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown event `{name}`{}", suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default())]
pub struct UnknownEvent {
    /// The name as written.
    pub name: String,
    /// The nearest valid name, if one is close.
    pub suggestion: Option<String>,
}

/// Every canonical event, in lifecycle order.
pub const CANONICAL_EVENTS: [Event; 9] = [
    Event::SessionStart,
    Event::TurnStart,
    Event::PreTool,
    Event::PermissionRequest,
    Event::PostTool,
    Event::TurnEnd,
    Event::Compaction,
    Event::Notification,
    Event::SessionEnd,
];

/// Every agent's event names that mean a canonical event without implying a tool, each once: the aliases
/// [`Event::parse`] reads. They come from the agent table, the one list of the agents' names.
fn alias_rows() -> impl Iterator<Item = &'static crate::AgentEvent> {
    crate::AGENTS
        .iter()
        .skip(1)
        .flat_map(|agent| agent.events.iter())
        .filter(|row| row.event.is_some() && row.tool.is_none() && Event::canonical(row.name).is_none())
}

impl Event {
    /// The canonical event named `name` exactly (`pre_tool`).
    fn canonical(name: &str) -> Option<&'static Event> {
        CANONICAL_EVENTS.iter().find(|e| e.canonical_name() == name)
    }

    /// Parses a canonical name, an alias of docs/events.md (exact, case-sensitive) or `foreign:<Name>`.
    ///
    /// ```
    /// use hook_types::{Event, Scope};
    /// let stop = Event::parse("SubagentStop").unwrap();
    /// assert_eq!((stop.event, stop.filters.scope), (Event::TurnEnd, Scope::Subagent));
    /// let err = Event::parse("pre_tol").unwrap_err();
    /// assert_eq!(err.to_string(), "unknown event `pre_tol` (did you mean `pre_tool`?)");
    /// ```
    pub fn parse(name: &str) -> Result<ParsedEvent, UnknownEvent> {
        if let Some(event) = Event::canonical(name) {
            return Ok(ParsedEvent { event: event.clone(), filters: EventFilters::default() });
        }
        if let Some(row) = alias_rows().find(|row| row.name == name) {
            let event = row.event.clone().expect("alias rows have an event");
            return Ok(ParsedEvent { event, filters: row.filters });
        }
        if let Some(foreign) = name.strip_prefix("foreign:")
            && !foreign.is_empty()
        {
            return Ok(ParsedEvent { event: Event::Foreign(foreign.to_owned()), filters: EventFilters::default() });
        }
        let candidates = CANONICAL_EVENTS.iter().map(Event::canonical_name).chain(alias_rows().map(|row| row.name));
        Err(UnknownEvent { name: name.to_owned(), suggestion: did_you_mean(name, candidates).map(str::to_owned) })
    }

    /// Every alias of docs/events.md (the agents' own names), with the canonical event each reads as, in the table's
    /// order. [`Event::parse`] also gives the filters an alias implies.
    ///
    /// ```
    /// use hook_types::Event;
    /// assert!(Event::aliases().any(|(alias, event)| alias == "PreToolUse" && event == Event::PreTool));
    /// ```
    pub fn aliases() -> impl Iterator<Item = (&'static str, Event)> {
        alias_rows()
            .enumerate()
            .filter(|(i, row)| !alias_rows().take(*i).any(|earlier| earlier.name == row.name))
            .map(|(_, row)| (row.name, row.event.clone().expect("alias rows have an event")))
    }

    /// The canonical snake_case name (`pre_tool`). For a foreign event this returns `"foreign"`; its `Display`
    /// form is `foreign:<Name>`.
    pub fn canonical_name(&self) -> &'static str {
        match self {
            Event::SessionStart => "session_start",
            Event::TurnStart => "turn_start",
            Event::PreTool => "pre_tool",
            Event::PermissionRequest => "permission_request",
            Event::PostTool => "post_tool",
            Event::TurnEnd => "turn_end",
            Event::Compaction => "compaction",
            Event::Notification => "notification",
            Event::SessionEnd => "session_end",
            Event::Foreign(_) => "foreign",
        }
    }

    /// Gate, decision or observer (docs/events.md). Foreign events are observers here.
    pub fn class(&self) -> EventClass {
        match self {
            Event::TurnStart | Event::PreTool => EventClass::Gate,
            Event::PermissionRequest | Event::TurnEnd => EventClass::Decision,
            _ => EventClass::Observer,
        }
    }

    /// The event's own default on hook failure (docs/events.md): gates deny, everything else ignores.
    ///
    /// A hook's protocol may differ (see [`crate::Protocol::default_on_error`]), and a hook may override both.
    pub fn default_on_error(&self) -> OnError {
        match self.class() {
            EventClass::Gate => OnError::Deny,
            _ => OnError::Ignore,
        }
    }

    /// Whether the event concerns one tool call (so `tools` and a tool-name matcher apply).
    pub fn is_tool_event(&self) -> bool {
        matches!(self, Event::PreTool | Event::PermissionRequest | Event::PostTool)
    }

    /// Whether this is a foreign event.
    pub fn is_foreign(&self) -> bool {
        matches!(self, Event::Foreign(_))
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Foreign(name) => write!(f, "foreign:{name}"),
            other => f.write_str(other.canonical_name()),
        }
    }
}

impl FromStr for Event {
    type Err = UnknownEvent;

    /// Parses like [`Event::parse`], dropping the implied filters.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Event::parse(s).map(|p| p.event)
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Event::Foreign(_) => serializer.collect_str(self),
            other => serializer.serialize_str(other.canonical_name()),
        }
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
