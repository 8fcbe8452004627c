//! What install and the bridge need of an agent beyond its table entry ([`hook_types::Agent`]): the file of one
//! scope under a [`Layout`], the agent-side timeout and the bridge's handler in the agent's shape. Everything here
//! is derived from the agent's entry; nothing names an agent.

use std::path::PathBuf;

use hook_config::Layout;
use hook_types::{EventFilters, HandlerShape, Limits, Protocol, TimeUnit};
use serde_json::{Value, json};

pub use hook_types::InstallScope;

/// An agent `hook bridge` and `hook install` speak to, by its protocol (its id in the agent table).
pub type Agent = Protocol;

/// One of an agent's event names, read as this engine's event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEvent {
    /// The canonical event, or `Foreign(name)` for an event with no equivalent here.
    pub event: hook_types::Event,
    /// What the name implies: `PostToolUseFailure` is a failed post_tool, `SubagentStop` a subagent's turn_end.
    pub filters: EventFilters,
    /// The tool the name implies (Cursor's `beforeShellExecution` is about the tool `shell`).
    pub tool: Option<&'static str>,
}

/// How long the agent waits for the bridge beyond the engine's own dispatch deadline: loading the configuration,
/// killing and reaping what the deadline cancelled (the grace, then the pipeline's one-second backstop), writing
/// receipts. The bridge must answer before the agent gives up on it, or the agent's own failure rule decides instead
/// of the engine's.
pub const BRIDGE_TIMEOUT_MARGIN_MS: u64 = 5_000;

/// How long after the dispatch deadline and the grace the bridge answers at the latest, whatever is stuck inside it
/// (its watchdog writes the blocking answer then): below [`BRIDGE_TIMEOUT_MARGIN_MS`], with the installed wrapper's
/// timer between the two ([`super::wrapper_timer_secs`]).
pub const BRIDGE_ANSWER_MARGIN_MS: u64 = 2_000;

/// What install and the bridge read of an agent, derived from its entry in the agent table.
///
/// ```
/// use hook_agents::install::{Agent, AgentInstall};
/// use hook_types::Event;
/// let agent = Agent::parse_bridged("cursor").unwrap();
/// let shell = agent.event("beforeShellExecution");
/// assert_eq!((shell.event, shell.tool), (Event::PreTool, Some("shell")));
/// assert_eq!(Agent::Claude.event("SubagentStart").event, Event::Foreign("SubagentStart".into()));
/// ```
pub trait AgentInstall: Sized {
    /// Every agent the bridge speaks to, in the table's order.
    fn bridged() -> Vec<Self>;
    /// The agent the bridge speaks to whose wire name is `name`.
    fn parse_bridged(name: &str) -> Option<Self>;
    /// The agent's own name, for messages.
    fn display_name(self) -> &'static str;
    /// The agent's event `name` as this engine's event; a name without an equivalent is a foreign event.
    fn event(self, name: &str) -> AgentEvent;
    /// The events `hook install` writes the bridge on, in the agent's spelling.
    fn install_events(self) -> Vec<&'static str>;
    /// Whether `name` is an event the agent documents with an equivalent here.
    fn knows_event(self, name: &str) -> bool;
    /// The agent's configuration file for `scope` under `layout`; `None` where the agent has none (Codex, Gemini
    /// CLI and Cursor have no git-ignored local file).
    fn config_file(self, scope: InstallScope, layout: &Layout) -> Option<PathBuf>;
    /// The timeout the agent gives the bridge, in the agent's own unit: the engine's dispatch deadline plus the grace
    /// plus [`BRIDGE_TIMEOUT_MARGIN_MS`], rounded up to a whole second.
    fn bridge_timeout(self, limits: &Limits) -> Value;
    /// One handler entry that runs `command`, in the agent's shape.
    fn bridge_handler(self, command: &str, limits: &Limits) -> Value;
    /// The list item `hook install` appends under the agent's event `event`: [`AgentInstall::bridge_entry`], with
    /// the event on the command line where the agent's input does not name it ([`HandlerShape::Shells`]), and on a
    /// gate event the fail-closed wrapper around the command ([`super::guarded_command`]) and the agent's own
    /// fail-closed switch where it has one.
    fn bridge_entry_for(self, event: &str, command: &str, limits: &Limits) -> Value;
    /// The list item `hook install` appends under each event: a matcher group holding the bridge's handler (no
    /// matcher: every tool), or the handler itself where the agent's handlers are flat.
    fn bridge_entry(self, command: &str, limits: &Limits) -> Value;
}

impl AgentInstall for Protocol {
    fn bridged() -> Vec<Self> {
        hook_types::Agent::bridged().map(|a| a.protocol).collect()
    }

    fn parse_bridged(name: &str) -> Option<Self> {
        hook_types::Agent::parse(name).filter(|a| a.bridge).map(|a| a.protocol)
    }

    fn display_name(self) -> &'static str {
        self.agent().name
    }

    fn event(self, name: &str) -> AgentEvent {
        let (event, filters, tool) = self.agent().read_event(name);
        AgentEvent { event, filters, tool }
    }

    fn install_events(self) -> Vec<&'static str> {
        self.agent().install_events().collect()
    }

    fn knows_event(self, name: &str) -> bool {
        self.agent().event(name).is_some_and(|row| row.event.is_some())
    }

    fn config_file(self, scope: InstallScope, layout: &Layout) -> Option<PathBuf> {
        self.agent().settings_file(scope, &layout.workspace, layout.home.as_deref())
    }

    fn bridge_timeout(self, limits: &Limits) -> Value {
        let ms = limits.dispatch_deadline_ms.saturating_add(limits.grace_ms).saturating_add(BRIDGE_TIMEOUT_MARGIN_MS);
        let seconds = ms.div_ceil(1_000);
        match self.agent().timeout_unit {
            TimeUnit::Millis => json!(seconds * 1_000),
            TimeUnit::Seconds => json!(seconds),
        }
    }

    fn bridge_handler(self, command: &str, limits: &Limits) -> Value {
        let timeout = self.bridge_timeout(limits);
        match self.agent().handler {
            HandlerShape::Grouped { named: true } => {
                json!({"type": "command", "command": command, "name": BRIDGE_NAME, "timeout": timeout})
            }
            HandlerShape::Grouped { named: false } => {
                json!({"type": "command", "command": command, "timeout": timeout})
            }
            HandlerShape::Flat { .. }
            | HandlerShape::NotInstallable
            | HandlerShape::EventExecutables
            | HandlerShape::Plugin { .. } => {
                json!({"command": command, "timeout": timeout})
            }
            // `bash` runs on Linux and macOS only; on Windows the cross-platform `command` (whose line, as install
            // writes it there, runs the same in PowerShell and cmd).
            HandlerShape::Shells if cfg!(windows) => {
                json!({"type": "command", "command": command, "timeoutSec": timeout})
            }
            HandlerShape::Shells => json!({"type": "command", "bash": command, "timeoutSec": timeout}),
        }
    }

    fn bridge_entry_for(self, event: &str, command: &str, limits: &Limits) -> Value {
        let command = match self.agent().handler {
            HandlerShape::Shells => format!("{command} --event {}", super::quote(event)),
            _ => command.to_owned(),
        };
        let line = super::guarded_command(self, event, &command, limits);
        let mut entry = self.bridge_entry(&line, limits);
        if let Some(key) = self.agent().answers.fail_closed_key
            && super::guards_event(self, event)
        {
            let handler = match entry.get_mut("hooks").and_then(Value::as_array_mut) {
                Some(handlers) => handlers.first_mut(),
                None => Some(&mut entry),
            };
            if let Some(Value::Object(handler)) = handler {
                handler.insert(key.to_owned(), Value::Bool(true));
            }
        }
        entry
    }

    fn bridge_entry(self, command: &str, limits: &Limits) -> Value {
        let handler = self.bridge_handler(command, limits);
        match self.agent().handler {
            HandlerShape::Grouped { .. } => json!({"hooks": [handler]}),
            HandlerShape::Flat { .. }
            | HandlerShape::Shells
            | HandlerShape::NotInstallable
            | HandlerShape::EventExecutables
            | HandlerShape::Plugin { .. } => handler,
        }
    }
}

/// The `name` Gemini CLI shows for the bridge in its hook listings.
pub const BRIDGE_NAME: &str = "hook-bridge";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_install_writes_is_one_the_agent_reads_back_as_a_canonical_event() {
        for agent in Agent::bridged() {
            for name in agent.install_events() {
                let read = agent.event(name);
                assert!(!read.event.is_foreign(), "{agent} {name}");
            }
        }
    }

    #[test]
    fn the_agent_side_timeout_is_above_the_dispatch_deadline_in_the_agents_unit() {
        let limits = Limits { dispatch_deadline_ms: 1_500, grace_ms: 100, ..Limits::default() };
        assert_eq!(Agent::Codex.bridge_timeout(&limits), json!(7));
        assert_eq!(Agent::Gemini.bridge_timeout(&limits), json!(7_000));
        assert_eq!(Agent::Cursor.bridge_entry("hook bridge", &limits), json!({"command": "hook bridge", "timeout": 7}));
    }
}
