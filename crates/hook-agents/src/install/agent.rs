//! The four agents `hook bridge` and `hook install` speak to: their names, files, events and units.

use std::fmt;
use std::path::{Path, PathBuf};

use hook_types::{Event, EventFilters, Limits, Protocol, Scope as TurnScope};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use hook_config::Format;
use hook_config::Layout;

/// An agent that can run this engine through `hook bridge`: one whose own hook configuration can call a command.
///
/// ```
/// use hook_agents::install::Agent;
/// use hook_types::Event;
/// let agent = Agent::parse("cursor").unwrap();
/// let shell = agent.event("beforeShellExecution");
/// assert_eq!((shell.event, shell.tool), (Event::PreTool, Some("shell")));
/// assert_eq!(Agent::Claude.event("SubagentStart").event, Event::Foreign("SubagentStart".into()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// Codex.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Cursor.
    Cursor,
}

/// Where in an agent's configuration `hook install` works (`--scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallScope {
    /// The workspace's git-ignored files (`.claude/settings.local.json`; `.hooks/hooks.local.yaml`).
    Local,
    /// The workspace's committed files (`.claude/settings.json`; `.hooks/hooks.yaml`).
    Project,
    /// The user's files (`~/.claude/settings.json`; `<config home>/hooks.yaml`).
    User,
}

impl InstallScope {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            InstallScope::Local => "local",
            InstallScope::Project => "project",
            InstallScope::User => "user",
        }
    }
}

impl fmt::Display for InstallScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One of an agent's event names, read as this engine's event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEvent {
    /// The canonical event, or `Foreign(name)` for an event with no equivalent here.
    pub event: Event,
    /// What the name implies: `PostToolUseFailure` is a failed post_tool, `SubagentStop` a subagent's turn_end.
    pub filters: EventFilters,
    /// The tool the name implies (Cursor's `beforeShellExecution` is about the tool `shell`).
    pub tool: Option<&'static str>,
}

/// (name, event, implied filters, implied tool, written by `hook install`). The order is the order install writes
/// the events in.
type EventRow = (&'static str, Event, EventFilters, Option<&'static str>, bool);

const PLAIN: EventFilters = EventFilters { only_errors: false, scope: TurnScope::Main };
const FAILED: EventFilters = EventFilters { only_errors: true, scope: TurnScope::Main };
const SUBAGENT: EventFilters = EventFilters { only_errors: false, scope: TurnScope::Subagent };

/// Claude Code hooks reference, "Hook events": the events with an equivalent here.
const CLAUDE_EVENTS: &[EventRow] = &[
    ("SessionStart", Event::SessionStart, PLAIN, None, true),
    ("UserPromptSubmit", Event::TurnStart, PLAIN, None, true),
    ("PreToolUse", Event::PreTool, PLAIN, None, true),
    ("PermissionRequest", Event::PermissionRequest, PLAIN, None, true),
    ("PostToolUse", Event::PostTool, PLAIN, None, true),
    ("PostToolUseFailure", Event::PostTool, FAILED, None, true),
    ("Stop", Event::TurnEnd, PLAIN, None, true),
    ("SubagentStop", Event::TurnEnd, SUBAGENT, None, true),
    ("PreCompact", Event::Compaction, PLAIN, None, true),
    ("Notification", Event::Notification, PLAIN, None, true),
    ("SessionEnd", Event::SessionEnd, PLAIN, None, true),
];

/// Codex (codex-rs/hooks `HookEventNameWire`): the six events its hook engine dispatches. Failed calls reach its
/// `PostToolUse` hooks too; it has no separate failure event.
const CODEX_EVENTS: &[EventRow] = &[
    ("SessionStart", Event::SessionStart, PLAIN, None, true),
    ("UserPromptSubmit", Event::TurnStart, PLAIN, None, true),
    ("PreToolUse", Event::PreTool, PLAIN, None, true),
    ("PermissionRequest", Event::PermissionRequest, PLAIN, None, true),
    ("PostToolUse", Event::PostTool, PLAIN, None, true),
    ("Stop", Event::TurnEnd, PLAIN, None, true),
];

/// Gemini CLI hooks reference: the events with an equivalent here. BeforeModel, AfterModel and
/// BeforeToolSelection are foreign (AfterModel fires once per streamed chunk).
const GEMINI_EVENTS: &[EventRow] = &[
    ("SessionStart", Event::SessionStart, PLAIN, None, true),
    ("BeforeAgent", Event::TurnStart, PLAIN, None, true),
    ("BeforeTool", Event::PreTool, PLAIN, None, true),
    ("AfterTool", Event::PostTool, PLAIN, None, true),
    ("AfterAgent", Event::TurnEnd, PLAIN, None, true),
    ("PreCompress", Event::Compaction, PLAIN, None, true),
    ("Notification", Event::Notification, PLAIN, None, true),
    ("SessionEnd", Event::SessionEnd, PLAIN, None, true),
];

/// Cursor hooks docs and DESIGN §2. Install writes the bridge on the generic tool events only: Cursor fires
/// `preToolUse` for every tool, shell, MCP and file reads included, so the bridge on `beforeShellExecution` as well
/// would run every pre_tool hook twice for one shell command. The per-tool events are still read when they arrive
/// (a bridge written by hand, or an older Cursor).
const CURSOR_EVENTS: &[EventRow] = &[
    ("sessionStart", Event::SessionStart, PLAIN, None, true),
    ("beforeSubmitPrompt", Event::TurnStart, PLAIN, None, true),
    ("preToolUse", Event::PreTool, PLAIN, None, true),
    ("beforeShellExecution", Event::PreTool, PLAIN, Some("shell"), false),
    ("beforeMCPExecution", Event::PreTool, PLAIN, None, false),
    ("beforeReadFile", Event::PreTool, PLAIN, Some("read"), false),
    ("postToolUse", Event::PostTool, PLAIN, None, true),
    ("postToolUseFailure", Event::PostTool, FAILED, None, true),
    ("afterShellExecution", Event::PostTool, PLAIN, Some("shell"), false),
    ("afterMCPExecution", Event::PostTool, PLAIN, None, false),
    ("afterFileEdit", Event::PostTool, PLAIN, Some("edit"), false),
    ("stop", Event::TurnEnd, PLAIN, None, true),
    ("subagentStop", Event::TurnEnd, SUBAGENT, None, true),
    ("preCompact", Event::Compaction, PLAIN, None, true),
    ("sessionEnd", Event::SessionEnd, PLAIN, None, true),
];

/// How long the agent waits for the bridge beyond the engine's own dispatch deadline: loading the configuration,
/// killing and reaping what the deadline cancelled (the grace, then the pipeline's one-second backstop), writing
/// receipts. The bridge must answer before the agent gives up on it, or the agent's own failure rule decides instead
/// of the engine's.
pub const BRIDGE_TIMEOUT_MARGIN_MS: u64 = 5_000;

impl Agent {
    /// Every agent, in the foreign-format order of DESIGN §4.2.
    pub const ALL: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Cursor];

    /// The wire name (`claude`), as `--protocol` and `--agent` take it.
    pub fn as_str(self) -> &'static str {
        self.protocol().as_str()
    }

    /// The agent's own name, for messages.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
        }
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// The agent's hook protocol.
    pub fn protocol(self) -> Protocol {
        match self {
            Agent::Claude => Protocol::Claude,
            Agent::Codex => Protocol::Codex,
            Agent::Gemini => Protocol::Gemini,
            Agent::Cursor => Protocol::Cursor,
        }
    }

    /// The format of the agent's own configuration files.
    pub fn format(self) -> Format {
        match self {
            Agent::Claude => Format::Claude,
            Agent::Codex => Format::Codex,
            Agent::Gemini => Format::Gemini,
            Agent::Cursor => Format::Cursor,
        }
    }

    fn rows(self) -> &'static [EventRow] {
        match self {
            Agent::Claude => CLAUDE_EVENTS,
            Agent::Codex => CODEX_EVENTS,
            Agent::Gemini => GEMINI_EVENTS,
            Agent::Cursor => CURSOR_EVENTS,
        }
    }

    /// The agent's event `name` as this engine's event (exact, case-sensitive); a name without an equivalent is a
    /// foreign event of that name (DESIGN §2).
    pub fn event(self, name: &str) -> AgentEvent {
        match self.rows().iter().find(|row| row.0 == name) {
            Some((_, event, filters, tool, _)) => AgentEvent { event: event.clone(), filters: *filters, tool: *tool },
            None => AgentEvent { event: Event::Foreign(name.to_owned()), filters: PLAIN, tool: None },
        }
    }

    /// The events `hook install` writes the bridge on, in the agent's spelling: every event of the agent with an
    /// equivalent here (foreign events are added when a hook listens to one; see `install`).
    pub fn install_events(self) -> impl Iterator<Item = &'static str> {
        self.rows().iter().filter(|row| row.4).map(|row| row.0)
    }

    /// Whether `name` is an event the agent documents with an equivalent here.
    pub fn knows_event(self, name: &str) -> bool {
        self.rows().iter().any(|row| row.0 == name)
    }

    /// The agent's configuration file for `scope`: the file `hook install` writes the bridge into and moves hooks
    /// out of. Codex, Gemini CLI and Cursor have no git-ignored local file, so `local` is `None` for them.
    ///
    /// ```
    /// use hook_agents::install::{Agent, InstallScope};
    /// use hook_config::Layout;
    /// let layout = Layout::new("/ws").with_home(Some("/home/me".into()));
    /// let path = Agent::Claude.config_file(InstallScope::Local, &layout).unwrap();
    /// assert_eq!(path, std::path::Path::new("/ws/.claude/settings.local.json"));
    /// assert_eq!(Agent::Cursor.config_file(InstallScope::Local, &layout), None);
    /// ```
    pub fn config_file(self, scope: InstallScope, layout: &Layout) -> Option<PathBuf> {
        let relative = match (self, scope) {
            (Agent::Claude, InstallScope::Local) => ".claude/settings.local.json",
            (_, InstallScope::Local) => return None,
            (Agent::Claude, _) => ".claude/settings.json",
            (Agent::Codex, _) => ".codex/hooks.json",
            (Agent::Gemini, _) => ".gemini/settings.json",
            (Agent::Cursor, _) => ".cursor/hooks.json",
        };
        let base: &Path = match scope {
            InstallScope::User => layout.home.as_deref()?,
            _ => &layout.workspace,
        };
        Some(base.join(relative))
    }

    /// The timeout the agent gives the bridge, in the agent's own unit (seconds for Claude Code, Codex and Cursor,
    /// milliseconds for Gemini CLI): the engine's dispatch deadline plus the grace plus
    /// [`BRIDGE_TIMEOUT_MARGIN_MS`], rounded up to a whole second.
    ///
    /// ```
    /// use hook_agents::install::Agent;
    /// use hook_types::Limits;
    /// assert_eq!(Agent::Claude.bridge_timeout(&Limits::default()), serde_json::json!(66));
    /// assert_eq!(Agent::Gemini.bridge_timeout(&Limits::default()), serde_json::json!(66_000));
    /// ```
    pub fn bridge_timeout(self, limits: &Limits) -> Value {
        let ms = limits.dispatch_deadline_ms.saturating_add(limits.grace_ms).saturating_add(BRIDGE_TIMEOUT_MARGIN_MS);
        let seconds = ms.div_ceil(1_000);
        match self {
            Agent::Gemini => json!(seconds * 1_000),
            _ => json!(seconds),
        }
    }

    /// One handler entry that runs `command`, in the agent's shape: `{type, command, timeout}` inside a matcher group
    /// for Claude Code, Codex and Gemini CLI (which also names it), `{command, timeout}` for Cursor.
    pub fn bridge_handler(self, command: &str, limits: &Limits) -> Value {
        let timeout = self.bridge_timeout(limits);
        match self {
            Agent::Claude | Agent::Codex => json!({"type": "command", "command": command, "timeout": timeout}),
            Agent::Gemini => {
                json!({"type": "command", "command": command, "name": BRIDGE_NAME, "timeout": timeout})
            }
            Agent::Cursor => json!({"command": command, "timeout": timeout}),
        }
    }

    /// The list item `hook install` appends under each event: a matcher group holding the bridge's handler (no
    /// matcher: every tool), or for Cursor the handler itself.
    pub fn bridge_entry(self, command: &str, limits: &Limits) -> Value {
        let handler = self.bridge_handler(command, limits);
        match self {
            Agent::Cursor => handler,
            _ => json!({"hooks": [handler]}),
        }
    }
}

/// The `name` Gemini CLI shows for the bridge in its hook listings.
pub const BRIDGE_NAME: &str = "hook-bridge";

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_install_writes_is_one_the_agent_reads_back_as_a_canonical_event() {
        for agent in Agent::ALL {
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
