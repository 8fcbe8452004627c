//! The agent table: everything the engine knows about one agent, in one static entry.
//!
//! Readers of the agents' own files, the spelling of events and tools in a hook's payload, the bridge's reading of
//! an agent's hook input and its answer, `hook install` and `hook import` all derive what they know about an agent
//! from its [`Agent`] entry. No other part of the engine keeps a list of agents or of one agent's names: adding an
//! agent is one entry here, plus a file reader only where its file shape is new, plus a bridge answer only where its
//! output protocol is new.
//!
//! The facts in each entry come from the agent's published source or hook reference at the version in
//! [`Agent::version`], where one is pinned; the real-agent suite checks them against the agent itself.

use std::path::{Path, PathBuf};

use crate::event::{Event, EventFilters, Scope};

mod auggie;
mod claude;
mod cline;
mod clio;
mod codex;
mod copilot;
mod crush;
mod cursor;
mod droid;
mod gemini;
mod kilo;
mod mecha;
mod native;
mod opencode;
mod protocol;
mod qwen;
mod switches;

pub use protocol::Protocol;
pub use switches::{AgentPath, FolderTrust, OffSwitch, OffWhen, Reach, TrustShape};

/// One agent whose hooks this engine reads, runs or answers for.
///
/// ```
/// use hook_types::{Agent, Event, Protocol};
/// let gemini = Protocol::Gemini.agent();
/// assert_eq!(gemini.name, "Gemini CLI");
/// let row = gemini.event("BeforeTool").unwrap();
/// assert_eq!(row.event, Some(Event::PreTool));
/// assert_eq!(gemini.canonical_tool("run_shell_command"), Some("shell"));
/// assert_eq!(Agent::parse("cursor").unwrap().protocol, Protocol::Cursor);
/// ```
#[derive(Debug)]
pub struct Agent {
    /// The id, also the hook protocol and the file format of the agent's own hooks.
    pub protocol: Protocol,
    /// The id's wire name (`claude`), as `--protocol`, `--agent` and the files' `protocol:` key spell it.
    pub id: &'static str,
    /// The agent's own name, for messages ("Claude Code").
    pub name: &'static str,
    /// The version whose behaviour the entry and the protocol rules follow, where the engine is checked against a
    /// pinned release of the agent.
    pub version: Option<&'static str>,
    /// Its event names, each read as this engine's event (see [`AgentEvent`]), in the order `hook install` writes
    /// them.
    pub events: &'static [AgentEvent],
    /// Its tool names, each with the canonical tool it means, the agent's preferred spelling first for each tool.
    pub tools: &'static [(&'static str, &'static str)],
    /// Its tools that mean no canonical tool (Cline's `ask_followup_question`): known, so a call of one is not
    /// announced as a tool the engine cannot place (see [`Agent::knows_tool`]); a `tools:` entry matches one by its
    /// own name only.
    pub other_tools: &'static [&'static str],
    /// How the agent names an MCP server's tool, where it has a spelling this engine reads.
    pub mcp: Option<McpSpelling>,
    /// The environment variables the agent sets for its hooks to the project directory.
    pub project_env: &'static [&'static str],
    /// The environment variable holding the session id the agent sets for its hooks, if any.
    pub session_env: Option<&'static str>,
    /// The environment variable holding the agent's working directory it sets for its hooks, if any.
    pub cwd_env: Option<&'static str>,
    /// The variables the agent sets for its hooks about the event and the tool call, where it has any beyond the
    /// payload (Crush's `CRUSH_TOOL_INPUT_COMMAND`): a hook of its protocol gets them from this engine too.
    pub tool_env: Option<ToolEnv>,
    /// The agent's own hook files per scope.
    pub files: AgentFiles,
    /// The timeout a command hook of this agent gets when it declares none, in milliseconds.
    pub default_timeout_ms: u64,
    /// The agent's own bounds on a hook's timeout in milliseconds, where it has any beyond the host's
    /// [`crate::Limits`].
    pub timeout_bounds_ms: Option<(u64, u64)>,
    /// What a failed hook of this agent means when it says nothing itself (`on_error`).
    pub failure: DefaultFailure,
    /// The unit of a handler's `timeout` in the agent's files.
    pub timeout_unit: TimeUnit,
    /// The shape of one handler in the agent's files.
    pub handler: HandlerShape,
    /// Whether the agent runs a handler's command line with a POSIX shell (`sh -c`, `bash -c`). Codex runs it with
    /// the user's own shell, which may be fish or nushell: install then writes its fail-closed wrapper inside
    /// `sh -c '…'`, which every shell can start.
    pub posix_shell: bool,
    /// What the agent's answer to a hook can express.
    pub answers: Answers,
    /// The words of the agent's hook files and answers beyond its event names, as its pinned release has them.
    pub vocabulary: Vocabulary,
    /// The shape of the agent's hook input and of the answer it reads (what the bridge reads and writes).
    pub wire: WireShape,
    /// Whether the agent reads its JSON files with `//` and `/* */` comments allowed (Gemini CLI, Qwen Code).
    pub json_comments: bool,
    /// Keys of its `hooks` object that are settings, not event lists (Gemini CLI's `enabled`, `disabled`,
    /// `notifications`).
    pub hooks_switches: &'static [&'static str],
    /// Whether `hook bridge` and `hook install` speak to this agent (it runs command hooks from its own settings).
    pub bridge: bool,
    /// What the agent itself requires before it runs hooks from a workspace's file, where install cannot do it for
    /// the user (a folder-trust prompt): `hook install` prints it for the project scopes, since without it the agent
    /// skips the bridge in silence.
    pub trust_note: Option<&'static str>,
    /// The agent's own settings that keep it from running hooks (`disableAllHooks: true`), as `hook doctor` reads
    /// them.
    pub switches: &'static [OffSwitch],
    /// How the agent decides to trust a folder before it runs hooks there, where it does.
    pub folder_trust: Option<FolderTrust>,
    /// The agent's executable, whose `--version` `hook doctor` shows beside [`Agent::version`].
    pub binary: Option<&'static str>,
    /// Variables the agent sets in the environment of the commands its tools run (its shell tool), read in its own
    /// source: a `hook` that sees one runs as the agent's tool call, not in the user's terminal, and refuses the
    /// commands that loosen its guards. Empty where the agent's source shows none.
    ///
    /// ```
    /// use hook_types::Protocol;
    /// assert_eq!(Protocol::Claude.agent().tool_call_env, ["CLAUDECODE"]);
    /// ```
    pub tool_call_env: &'static [&'static str],
}

/// The variables an agent sets for its hooks about the event and the call.
///
/// ```
/// use hook_types::Protocol;
/// let env = Protocol::Crush.agent().tool_env.unwrap();
/// assert_eq!(env.input_fields[0], ("command", "CRUSH_TOOL_INPUT_COMMAND"));
/// assert!(Protocol::Claude.agent().tool_env.is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolEnv {
    /// The variable holding the event's name, in the agent's spelling.
    pub event: &'static str,
    /// The variable holding the tool's name, in the agent's spelling (set on tool events).
    pub tool_name: &'static str,
    /// Fields of the tool's input (a string, a number or a boolean), each with the variable that holds it when set.
    pub input_fields: &'static [(&'static str, &'static str)],
    /// Variables with fixed values (`AGENT=crush`).
    pub markers: &'static [(&'static str, &'static str)],
}

/// What a hook's failure (a crash, a timeout, an unreadable answer) means for an agent whose hook does not say.
///
/// ```
/// use hook_types::{DefaultFailure, Protocol};
/// assert_eq!(Protocol::Native.agent().failure, DefaultFailure::ByEvent);
/// assert_eq!(Protocol::Claude.agent().failure, DefaultFailure::Open);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultFailure {
    /// This engine's own rule: a gate denies, everything else goes on.
    ByEvent,
    /// The agent blocks a tool call whose pre_tool hook failed; it goes on everywhere else.
    ClosedOnPreTool,
    /// The agent goes on.
    Open,
}

/// One of an agent's event names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEvent {
    /// The name as the agent spells it (`PreToolUse`, `beforeShellExecution`).
    pub name: &'static str,
    /// The canonical event; `None` for an event the agent documents that has no equivalent here (it loads as a
    /// foreign observer of that name).
    pub event: Option<Event>,
    /// What the name implies: `PostToolUseFailure` is a failed post_tool, `SubagentStop` a subagent's turn_end.
    pub filters: EventFilters,
    /// The canonical tool the name implies (Cursor's `beforeShellExecution` is about `shell`).
    pub tool: Option<&'static str>,
    /// Whether `hook install` writes the bridge on it.
    pub install: bool,
    /// The name the agent's hook input carries for this event where it differs from `name`, the name its files use
    /// (Cline's `hookName` is `tool_call` for its `PreToolUse` executable).
    pub wire_name: Option<&'static str>,
    /// Whether the agent reads a hook's answer on this event. Cline runs its hooks detached on every event but its
    /// tool events: the bridge runs there for its observers, and keeps no session state (no skipped-guard notice
    /// counts as told, no continuation as asked) from an answer nobody reads.
    pub answered: bool,
    /// How the agent uses a hook group's matcher on this event, where it does not simply test it; `None` where it
    /// does (the tool events' tool, SessionStart's `source`, PreCompact's `trigger`), and on foreign events, which
    /// keep it for the bridge.
    pub matcher: Option<MatcherUse>,
}

/// How an agent uses a hook group's matcher on one of its events, where it does not simply test it.
///
/// ```
/// use hook_types::{MatcherUse, Protocol};
/// let stop = Protocol::Claude.agent().event("Stop").unwrap();
/// assert_eq!(stop.matcher, Some(MatcherUse::Ignored));
/// assert_eq!(Protocol::Claude.agent().event("PreToolUse").unwrap().matcher, None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcherUse {
    /// The agent ignores it: a reader drops it, with a warning.
    Ignored,
    /// The agent filters by this field, which this engine does not route on: dropped with a warning, so the hooks
    /// run on every such event. Only for observers, where running more often changes no decision.
    Unrouted(&'static str),
    /// The agent filters by this field, which this engine does not route on, on an event whose hooks decide: the
    /// group is reported and not loaded.
    Unsupported(&'static str),
}

impl AgentEvent {
    /// This row, with the agent's use of a matcher on it.
    const fn matched(mut self, matcher: MatcherUse) -> AgentEvent {
        self.matcher = Some(matcher);
        self
    }

    /// This row, with the name the agent's hook input carries for it.
    const fn on_the_wire(mut self, wire: &'static str) -> AgentEvent {
        self.wire_name = Some(wire);
        self
    }
}

/// How an agent spells an MCP server's tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpSpelling {
    /// `mcp__<server>__<tool>` (Claude Code, Codex).
    DoubleUnderscore,
}

/// The agent's own hook files, relative to the workspace (project, local) or the home directory (user).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentFiles {
    /// The committed project file (`.claude/settings.json`).
    pub project: Option<&'static str>,
    /// The git-ignored project file (`.claude/settings.local.json`).
    pub local: Option<&'static str>,
    /// The user's file, relative to the home directory.
    pub user: Option<&'static str>,
    /// Every file of the agent's the loader reads at the project origin and, under the home directory, at the user
    /// origin, in reading order (`project` and `user` among them where the agent writes its hooks there). An entry
    /// ending in `/*.json` is a directory of hook files (GitHub Copilot CLI's `.github/hooks/*.json`): every regular
    /// `.json` file directly in it is read, in the byte order of their names ([`AgentFiles::json_dir`]).
    pub read: &'static [&'static str],
    /// Files beside the one install writes whose hooks replace that file's, event by event, in the agent (Factory
    /// Droid's `hooks.json` over the `hooks` key of its `settings.json`): install refuses while one of them declares
    /// hooks, since the bridge it writes would not run on those events.
    pub overrides: &'static [&'static str],
    /// Where the agent reads other files at the user origin than at the project one (Cline's
    /// `~/Documents/Cline/Hooks` and `~/.cline/hooks` beside its project's `.clinerules/hooks` and `.cline/hooks`):
    /// the files read under the home directory in place of `read`. `None`: `read` at both.
    pub read_user: Option<&'static [&'static str]>,
}

impl AgentFiles {
    /// The directory of a `files.read` entry that names every `.json` file in it (`.github/hooks/*.json` →
    /// `.github/hooks`); `None` for an entry that names one file.
    ///
    /// ```
    /// use hook_types::AgentFiles;
    /// assert_eq!(AgentFiles::json_dir(".github/hooks/*.json"), Some(".github/hooks"));
    /// assert_eq!(AgentFiles::json_dir(".claude/settings.json"), None);
    /// ```
    pub fn json_dir(entry: &str) -> Option<&str> {
        entry.strip_suffix("/*.json").filter(|dir| !dir.is_empty())
    }
}

/// Where in an agent's configuration a file sits (`hook install --scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallScope {
    /// The workspace's git-ignored files.
    Local,
    /// The workspace's committed files.
    Project,
    /// The user's files.
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

impl std::fmt::Display for InstallScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The unit of a timeout in an agent's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Whole or fractional seconds.
    Seconds,
    /// Milliseconds.
    Millis,
}

/// The shape of one handler in an agent's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandlerShape {
    /// `{event: [{matcher, hooks: [{type: "command", command, timeout}]}]}`; `named` handlers also carry a `name`.
    Grouped {
        /// Whether a handler has a `name` the agent shows.
        named: bool,
    },
    /// `{event: [{command, timeout, matcher}]}` (Cursor, Crush).
    Flat {
        /// Whether the file carries `"version": 1` beside `hooks`, which install adds where it is missing (Cursor's
        /// hooks file; Crush's `crush.json` has none).
        versioned: bool,
    },
    /// `{event: [{type: "command", bash, powershell, timeoutSec}]}`: a flat list whose handlers name a shell line per
    /// platform, and whose input does not name its event, so the bridge's command line carries it (`--event`;
    /// GitHub Copilot CLI).
    Shells,
    /// The engine's own or another format install does not write.
    NotInstallable,
    /// One executable per event in a directory, named after the event (`.cline/hooks/PreToolUse`, with an optional
    /// extension that picks its interpreter); the agent's files per scope are those directories. The command is
    /// the file itself; install writes one small script per event that runs the bridge.
    EventExecutables,
    /// No command hooks: in-process plugins, JavaScript modules the agent loads from a directory (OpenCode's
    /// `.opencode/plugins/`). The agent's file per scope is the plugin install writes there, which runs the bridge
    /// for each event it handles; the loader reads nothing of the agent's.
    Plugin {
        /// The package the agent installs into each of its config directories at start-up unless a lock file there
        /// already lists it (`@opencode-ai/plugin`): install marks it present beside the plugin, so the agent does
        /// not go to the registry before its first turn.
        dependency: &'static str,
    },
}

/// The shape of an agent's hook input and of the answer it reads, as the bridge reads and writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireShape {
    /// Snake-case input (`hook_event_name`, `tool_name`, `tool_input`) and Claude Code's answer
    /// (`hookSpecificOutput.permissionDecision`, `decision: "block"`, `continue`, `systemMessage`): Claude Code,
    /// Codex (with its stricter fields), Qwen Code, Factory Droid; the engine's own.
    ClaudeCode,
    /// Claude Code's input with Gemini CLI's answer (`decision: "deny"`, `hookSpecificOutput.tool_input`).
    GeminiCli,
    /// Cursor's input (`conversation_id`, `workspace_roots`, per-tool fields) and answer (`permission`,
    /// `user_message`, `agent_message`).
    Cursor,
    /// Cline's input (`hookName`, `taskId`, `workspaceRoots`, `tool_call`, `preToolUse`, …) and answer (stdout JSON
    /// `cancel`, `contextModification`, `errorMessage`; the exit code is not read).
    Cline,
    /// GitHub Copilot CLI's camelCase input (`sessionId`, `toolName`, `toolArgs`, `toolResult`; no event name) and
    /// top-level answer (`permissionDecision`, `behavior`, `decision: "block"`, `additionalContext`).
    Copilot,
    /// Crush's input (`event`, `session_id`, `cwd`, `tool_name`, `tool_input`: Claude Code's with the event under
    /// another name) and Claude Code's answer (`hookSpecificOutput`), which Crush reads beside its own envelope
    /// (`decision`, `halt`, `reason`, `context`, `updated_input`).
    Crush,
    /// Auggie's input (`hook_event_name`, `conversation_id`, `workspace_roots`, `tool_name`, `tool_input`, and on
    /// PostToolUse `tool_output` and `tool_error`) and Claude Code's answer as far as Auggie reads it: its
    /// `hookSpecificOutput` only where named by PreToolUse, PostToolUse, Stop, SessionStart, SessionEnd or
    /// Notification (another name voids the whole answer), PostToolUse's `decision: "block"` inside it, and no
    /// answer at all but `systemMessage` on the events whose result it drops.
    Auggie,
}

/// What an agent's answer to a hook can express.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answers {
    /// `ask`: force the human approver.
    pub ask: bool,
    /// Keep the run going after its final message.
    pub continuation: bool,
    /// Add text to the model's context.
    pub context: bool,
    /// A message shown to the user (not the model): the channel for notices.
    pub system_message: bool,
    /// The handler key that makes the agent block when that handler fails (crashes, times out, answers nothing
    /// readable) instead of going ahead, where the agent has one (Cursor's `failClosed`): `hook install` sets it to
    /// `true` on the bridge's gate handlers.
    pub fail_closed_key: Option<&'static str>,
    /// Where the agent may show its user no hook message at all (Qwen Code's `-p` and Factory Droid's `exec` print
    /// no `systemMessage`): the events on which it puts a hook's context before its model. The bridge then hands its
    /// notices (a guard that did not run, a hook that failed) to the model there as well, marked as for the user,
    /// and adds them to a deny's reason on pre_tool, which the model reads; empty where the user message is shown.
    ///
    /// ```
    /// use hook_types::{Event, Protocol};
    /// assert!(Protocol::Qwen.agent().answers.notices_to_model.contains(&Event::SessionStart));
    /// assert!(Protocol::Claude.agent().answers.notices_to_model.is_empty());
    /// ```
    pub notices_to_model: &'static [Event],
    /// `permissionDecision: "defer"` on pre_tool: the hook leaves the call to the agent's own permission flow, as if
    /// it had not answered (Claude Code).
    pub defer: bool,
    /// `retry: true` on the agent's `PermissionDenied` event: the model may try a call its auto-mode classifier
    /// refused again (Claude Code).
    pub retry: bool,
    /// `updatedToolOutput` on post_tool: the hook replaces the tool's output the model sees (Claude Code).
    pub tool_output: bool,
    /// The agent's own cap on turn_end continuations in a row, where it has one (Claude Code ends the turn after 8
    /// consecutive Stop-hook blocks). The bridge holds an agent's continuations to the lower of this and the engine's
    /// own cap.
    pub continuation_cap: Option<ContinuationCap>,
    /// Permission modes in which the agent runs a tool on an `ask` without asking anyone: words of its input's
    /// `permission_mode`, matched as substrings (Factory Droid's `auto-low` … `auto-high`, and modes that skip or
    /// bypass permissions). In those modes the bridge answers an ask as a deny saying approval is required; empty
    /// where an ask always reaches a person (or, with `ask: false`, is always a deny).
    ///
    /// ```
    /// use hook_types::Protocol;
    /// assert!(Protocol::Droid.agent().answers.ask_runs_in_modes.contains(&"auto"));
    /// assert!(Protocol::Claude.agent().answers.ask_runs_in_modes.is_empty());
    /// ```
    pub ask_runs_in_modes: &'static [&'static str],
}

/// An agent's built-in cap on turn_end continuations in a row.
///
/// ```
/// use hook_types::Protocol;
/// let cap = Protocol::Claude.agent().answers.continuation_cap.unwrap();
/// assert_eq!((cap.default, cap.env), (8, Some("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")));
/// assert_eq!(cap.effective(Some("3")), Some(3));
/// assert_eq!(cap.effective(Some("0")), None); // 0 turns the agent's cap off
/// assert_eq!(cap.effective(Some("x")), Some(8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContinuationCap {
    /// How many continuations in a row the agent allows before it ends the turn itself.
    pub default: u32,
    /// The environment variable that changes the cap (its hooks inherit it), where there is one; `0` turns it off.
    pub env: Option<&'static str>,
}

impl ContinuationCap {
    /// The cap in force when the agent's variable holds `value` (`None`: unset): the variable's number where it is
    /// one, no cap for `0`, else the default.
    pub fn effective(&self, value: Option<&str>) -> Option<u32> {
        match value.and_then(|v| v.trim().parse::<u32>().ok()) {
            Some(0) => None,
            Some(n) => Some(n),
            None => Some(self.default),
        }
    }
}

/// The words of an agent's hook files and answers beyond its event names, as its pinned release reads them: what
/// the drift check (`cargo xtask agents --latest`) holds a newer release against. An empty list means the entry keeps
/// none for that kind (the check then only counts what it finds). Each word is one the agent reads; `docs/agents.md`
/// says what the engine does with it.
///
/// ```
/// use hook_types::Protocol;
/// let words = Protocol::Claude.agent().vocabulary;
/// assert!(words.answer_keys.contains(&"updatedToolOutput") && words.decisions.contains(&"defer"));
/// assert!(words.handler_keys.contains(&"onFailure") && words.handler_types.contains(&"mcp_tool"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vocabulary {
    /// Keys of the agent's answer, top level and per event (`hookSpecificOutput`'s).
    pub answer_keys: &'static [&'static str],
    /// Keys of one handler in the agent's files (`type`, `command`, `timeout`, …).
    pub handler_keys: &'static [&'static str],
    /// The handler types the agent runs (`command`, `http`, `mcp_tool`, …).
    pub handler_types: &'static [&'static str],
    /// The words the agent's decision fields take (`allow`, `deny`, `ask`, `defer`, `approve`, `block`, …).
    pub decisions: &'static [&'static str],
}

impl Vocabulary {
    /// No words kept: the drift check reads the agent's events only.
    pub const UNCHECKED: Vocabulary =
        Vocabulary { answer_keys: &[], handler_keys: &[], handler_types: &[], decisions: &[] };
}

const PLAIN: EventFilters = EventFilters { only_errors: false, scope: Scope::Main };
const FAILED: EventFilters = EventFilters { only_errors: true, scope: Scope::Main };
const SUBAGENT: EventFilters = EventFilters { only_errors: false, scope: Scope::Subagent };

const fn ev(name: &'static str, event: Event) -> AgentEvent {
    AgentEvent {
        name,
        event: Some(event),
        filters: PLAIN,
        tool: None,
        install: true,
        wire_name: None,
        answered: true,
        matcher: None,
    }
}

const fn with(name: &'static str, event: Event, filters: EventFilters) -> AgentEvent {
    AgentEvent {
        name,
        event: Some(event),
        filters,
        tool: None,
        install: true,
        wire_name: None,
        answered: true,
        matcher: None,
    }
}

/// Read when it arrives, never written by install.
const fn read_only(name: &'static str, event: Event, filters: EventFilters, tool: Option<&'static str>) -> AgentEvent {
    AgentEvent {
        name,
        event: Some(event),
        filters,
        tool,
        install: false,
        wire_name: None,
        answered: true,
        matcher: None,
    }
}

/// Documented by the agent, no equivalent here.
const fn foreign(name: &'static str) -> AgentEvent {
    AgentEvent {
        name,
        event: None,
        filters: PLAIN,
        tool: None,
        install: false,
        wire_name: None,
        answered: true,
        matcher: None,
    }
}

/// An event whose hook input names it `wire` (Cline's `hookName`); `install` says whether install writes the bridge on
/// it, `answered` whether the agent reads the answer, `event` is `None` for one with no equivalent here.
const fn wired(
    name: &'static str,
    wire: &'static str,
    event: Option<Event>,
    install: bool,
    answered: bool,
) -> AgentEvent {
    AgentEvent { name, event, filters: PLAIN, tool: None, install, wire_name: Some(wire), answered, matcher: None }
}

/// Every answer of the engine's own vocabulary; none of the agent-specific ones (`defer`, `retry`, a tool-output
/// rewrite, a continuation cap of the agent's own).
const ALL_ANSWERS: Answers = Answers {
    ask: true,
    continuation: true,
    context: true,
    system_message: true,
    fail_closed_key: None,
    notices_to_model: &[],
    defer: false,
    retry: false,
    tool_output: false,
    continuation_cap: None,
    ask_runs_in_modes: &[],
};

/// The canonical tools (snake_case); MCP tools are `mcp:<server>:<tool>`.
pub const CANONICAL_TOOLS: &[&str] = &CANONICAL;

const CANONICAL: [&str; 12] = [
    "shell",
    "read",
    "write",
    "edit",
    "glob",
    "grep",
    "ls",
    "web_fetch",
    "web_search",
    "task",
    "notebook_edit",
    "todo",
];

/// The canonical tools as an agent's tool table: each name means itself (the engine, mecha, clio-coder).
const CANONICAL_TOOL_NAMES: &[(&str, &str)] = &same_names(CANONICAL);

const fn same_names<const N: usize>(names: [&'static str; N]) -> [(&'static str, &'static str); N] {
    let mut pairs = [("", ""); N];
    let mut i = 0;
    while i < N {
        pairs[i] = (names[i], names[i]);
        i += 1;
    }
    pairs
}

/// Every agent, in the order foreign formats are read within an origin (native first): each entry is its agent's
/// module.
pub static AGENTS: [Agent; 15] = [
    native::AGENT,
    claude::AGENT,
    codex::AGENT,
    gemini::AGENT,
    cursor::AGENT,
    mecha::AGENT,
    clio::AGENT,
    qwen::AGENT,
    droid::AGENT,
    cline::AGENT,
    copilot::AGENT,
    opencode::AGENT,
    kilo::AGENT,
    crush::AGENT,
    auggie::AGENT,
];

impl PartialEq for Agent {
    fn eq(&self, other: &Self) -> bool {
        self.protocol == other.protocol
    }
}

impl Eq for Agent {}

impl Agent {
    /// Every agent `hook bridge` and `hook install` speak to.
    pub fn bridged() -> impl Iterator<Item = &'static Agent> {
        AGENTS.iter().filter(|a| a.bridge)
    }

    /// The agent whose wire name (its protocol's, `claude`) is `name`.
    pub fn parse(name: &str) -> Option<&'static Agent> {
        AGENTS.iter().find(|a| a.id == name)
    }

    /// The wire name (`claude`), as `--protocol` and `--agent` take it.
    pub fn as_str(&self) -> &'static str {
        self.id
    }

    /// The row of the agent's event `name` (exact, case-sensitive), if the agent documents it.
    pub fn event(&self, name: &str) -> Option<&'static AgentEvent> {
        self.events.iter().find(|e| e.name == name)
    }

    /// The agent's event `name` as this engine's event with the filters and tool it implies; a name the agent does
    /// not document, or one with no equivalent here, is a foreign event of that name.
    pub fn read_event(&self, name: &str) -> (Event, EventFilters, Option<&'static str>) {
        match self.event(name) {
            Some(AgentEvent { event: Some(event), filters, tool, .. }) => (event.clone(), *filters, *tool),
            _ => (Event::Foreign(name.to_owned()), PLAIN, None),
        }
    }

    /// The row of the event whose hook input names it `wire` (Cline's `hookName`), or whose own name is `wire` where
    /// the agent's input uses its file names.
    ///
    /// ```
    /// use hook_types::{Event, Protocol};
    /// let cline = Protocol::Cline.agent();
    /// assert_eq!(cline.event_by_wire_name("tool_call").unwrap().name, "PreToolUse");
    /// assert_eq!(Protocol::Claude.agent().event_by_wire_name("Stop").unwrap().event, Some(Event::TurnEnd));
    /// ```
    pub fn event_by_wire_name(&self, wire: &str) -> Option<&'static AgentEvent> {
        self.events.iter().find(|e| e.wire_name.unwrap_or(e.name) == wire)
    }

    /// The events `hook install` writes the bridge on, in the agent's spelling.
    pub fn install_events(&self) -> impl Iterator<Item = &'static str> {
        self.events.iter().filter(|e| e.install).map(|e| e.name)
    }

    /// The agent's name for `event` as a dispatch fires it: the row whose filters match the call (a failed call, a
    /// subagent's run) and whose implied tool is the call's canonical tool, preferring a row of that tool, then a
    /// plain row. `None` where the agent has no such event.
    ///
    /// ```
    /// use hook_types::{Event, Protocol};
    /// let cursor = Protocol::Cursor.agent();
    /// assert_eq!(cursor.event_name(&Event::PreTool, false, false, Some("shell")), Some("beforeShellExecution"));
    /// assert_eq!(cursor.event_name(&Event::PreTool, false, false, Some("glob")), Some("preToolUse"));
    /// let codex = Protocol::Codex.agent();
    /// assert_eq!(codex.event_name(&Event::PostTool, true, false, None), Some("PostToolUse"));
    /// ```
    pub fn event_name(&self, event: &Event, failed: bool, subagent: bool, tool: Option<&str>) -> Option<&'static str> {
        // A call's failure and a subagent's run only name post_tool and turn_end events.
        let failed = failed && *event == Event::PostTool;
        let subagent = subagent && *event == Event::TurnEnd;
        let tool_kind = tool.map(|t| if t.starts_with("mcp:") { "mcp" } else { t });
        let candidates = || self.events.iter().filter(|row| row.event.as_ref() == Some(event));
        let filters_fit = |row: &AgentEvent, exact: bool| {
            let errors_fit = row.filters.only_errors == failed || (!exact && !row.filters.only_errors);
            let scope_fit = row.filters.scope.matches(subagent) || (!exact && row.filters.scope == Scope::Main);
            errors_fit && scope_fit
        };
        let by_tool = |exact: bool| {
            candidates().find(|row| row.tool.is_some() && row.tool == tool_kind && filters_fit(row, exact) && !failed)
        };
        let plain = |exact: bool| candidates().find(|row| row.tool.is_none() && filters_fit(row, exact));
        by_tool(true).or_else(|| plain(true)).or_else(|| plain(false)).map(|row| row.name)
    }

    /// The canonical tool the agent's tool `name` means (`Bash` → `shell`, `mcp__github__search` →
    /// `mcp:github:search`), if this agent's entry knows it.
    pub fn canonical_tool(&self, name: &str) -> Option<&'static str> {
        self.tools.iter().find(|(n, _)| *n == name).map(|(_, canonical)| *canonical)
    }

    /// Whether the engine can place the tool `name` when this agent names it: a canonical name (a bridge names the
    /// tool a per-tool event implies so), one of this agent's spellings of a canonical tool, one of its
    /// [`other_tools`](Agent::other_tools), or an MCP tool the engine reads (`mcp:server:tool`,
    /// `mcp__server__tool`). This engine's own entry stands for any host, which may name a tool in any agent's
    /// spelling: it knows every name some entry maps. A tool it does not know meets a `tools: [shell]` gate only by
    /// its own name, so the pipeline tells the user about it once per session while such a gate is loaded.
    ///
    /// ```
    /// use hook_types::Protocol;
    /// let cline = Protocol::Cline.agent();
    /// assert!(cline.knows_tool("execute_command") && cline.knows_tool("ask_followup_question"));
    /// assert!(cline.knows_tool("shell") && cline.knows_tool("mcp:github:search"));
    /// assert!(!cline.knows_tool("frobnicate"));
    /// // `Bash` is Claude Code's, not Cline's; the engine's own entry knows every agent's spellings.
    /// assert!(!cline.knows_tool("Bash") && Protocol::Native.agent().knows_tool("Bash"));
    /// ```
    pub fn knows_tool(&self, name: &str) -> bool {
        CANONICAL_TOOLS.contains(&name)
            || self.canonical_tool(name).is_some()
            || self.other_tools.contains(&name)
            || is_mcp_tool(name)
            || (self.protocol == Protocol::Native && static_canonical_tool(name).is_some())
    }

    /// The agent's spellings of the canonical `tool`, preferred first.
    pub fn tool_names<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = &'static str> + 'a {
        self.tools.iter().filter(move |(_, canonical)| *canonical == tool).map(|(name, _)| *name)
    }

    /// The agent's hook file for `scope`: under `workspace` for the project scopes, under `home` for the user's.
    ///
    /// ```
    /// use hook_types::{InstallScope, Protocol};
    /// use std::path::Path;
    /// let claude = Protocol::Claude.agent();
    /// let path = claude.settings_file(InstallScope::Local, Path::new("/ws"), None).unwrap();
    /// assert_eq!(path, Path::new("/ws/.claude/settings.local.json"));
    /// assert_eq!(Protocol::Cursor.agent().settings_file(InstallScope::Local, Path::new("/ws"), None), None);
    /// ```
    pub fn settings_file(&self, scope: InstallScope, workspace: &Path, home: Option<&Path>) -> Option<PathBuf> {
        match scope {
            InstallScope::Local => self.files.local.map(|f| workspace.join(f)),
            InstallScope::Project => self.files.project.map(|f| workspace.join(f)),
            InstallScope::User => Some(home?.join(self.files.user?)),
        }
    }
}

/// The canonical name of a tool named `name` by any agent: a canonical name itself, an agent's spelling
/// (`Bash`, `run_shell_command`), or an MCP tool in an agent's spelling (`mcp__github__search` →
/// `mcp:github:search`). `None` for a name no table knows.
///
/// ```
/// use hook_types::canonical_tool;
/// assert_eq!(canonical_tool("run_shell_command").as_deref(), Some("shell"));
/// assert_eq!(canonical_tool("mcp__github__search").as_deref(), Some("mcp:github:search"));
/// assert_eq!(canonical_tool("frobnicate"), None);
/// ```
pub fn canonical_tool(name: &str) -> Option<std::borrow::Cow<'static, str>> {
    use std::borrow::Cow;
    if let Some(canonical) = static_canonical_tool(name) {
        return Some(Cow::Borrowed(canonical));
    }
    if name.len() > 4 && name.is_char_boundary(4) && name[..4].eq_ignore_ascii_case("mcp:") {
        return Some(Cow::Owned(format!("mcp:{}", &name[4..])));
    }
    mcp_from_double_underscore(name).map(Cow::Owned)
}

/// [`canonical_tool`] for the names the tables hold (no MCP tool), without allocating.
pub fn static_canonical_tool(name: &str) -> Option<&'static str> {
    AGENTS.iter().find_map(|agent| agent.canonical_tool(name))
}

/// Whether [`canonical_tool`] reads `name` as an MCP tool, without allocating.
fn is_mcp_tool(name: &str) -> bool {
    let colon = name.len() > 4 && name.is_char_boundary(4) && name[..4].eq_ignore_ascii_case("mcp:");
    let underscores = name
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .is_some_and(|(server, tool)| !server.is_empty() && !tool.is_empty());
    colon || underscores
}

fn mcp_from_double_underscore(name: &str) -> Option<String> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then(|| format!("mcp:{server}:{tool}"))
}

/// The name of the canonical `tool` in `protocol`'s spelling, or `None` where that agent has none. The firing
/// agent's own `original` name is kept when it already is one of `protocol`'s spellings of the tool (Claude Code's
/// `MultiEdit` stays `MultiEdit` for a Claude hook).
///
/// ```
/// use hook_types::{Protocol, tool_name_for};
/// assert_eq!(tool_name_for(Protocol::Claude, "shell", "run_shell_command").as_deref(), Some("Bash"));
/// assert_eq!(tool_name_for(Protocol::Claude, "edit", "MultiEdit").as_deref(), Some("MultiEdit"));
/// assert_eq!(tool_name_for(Protocol::Claude, "mcp:github:search", "x").as_deref(), Some("mcp__github__search"));
/// assert_eq!(tool_name_for(Protocol::Codex, "glob", "glob"), None);
/// ```
pub fn tool_name_for(protocol: Protocol, tool: &str, original: &str) -> Option<std::borrow::Cow<'static, str>> {
    use std::borrow::Cow;
    let agent = protocol.agent();
    if let Some(server_tool) = tool.strip_prefix("mcp:") {
        return match agent.mcp {
            Some(McpSpelling::DoubleUnderscore) => {
                let (server, name) = server_tool.split_once(':')?;
                Some(Cow::Owned(format!("mcp__{server}__{name}")))
            }
            None if agent.tools == CANONICAL_TOOL_NAMES => Some(Cow::Owned(tool.to_owned())),
            None => None,
        };
    }
    let mut names = agent.tool_names(tool);
    let first = names.next()?;
    if first == original || names.any(|n| n == original) {
        return agent.tools.iter().find(|(n, _)| *n == original).map(|(n, _)| Cow::Borrowed(*n));
    }
    Some(Cow::Borrowed(first))
}

/// The nearest canonical tool or agent spelling to `name`, for a did-you-mean.
pub fn suggest_tool(name: &str) -> Option<&'static str> {
    let names = CANONICAL_TOOLS.iter().copied().chain(AGENTS.iter().flat_map(|a| a.tools.iter().map(|(n, _)| *n)));
    crate::did_you_mean(name, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_order_of_the_protocols() {
        for (i, protocol) in Protocol::ALL.into_iter().enumerate() {
            assert_eq!(AGENTS[i].protocol, protocol);
            assert_eq!(protocol as usize, i);
        }
    }

    #[test]
    fn no_two_agents_read_one_event_name_as_different_events() {
        for a in &AGENTS {
            for row in a.events {
                for b in &AGENTS {
                    if let Some(other) = b.event(row.name) {
                        assert_eq!(
                            (&row.event, row.filters),
                            (&other.event, other.filters),
                            "{} in {} and {}",
                            row.name,
                            a.name,
                            b.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_tool_of_every_agent_means_a_canonical_tool() {
        for agent in &AGENTS {
            for (name, canonical) in agent.tools {
                assert!(CANONICAL_TOOLS.contains(canonical), "{} {name} -> {canonical}", agent.name);
                assert_eq!(static_canonical_tool(name), Some(*canonical), "{} {name}", agent.name);
            }
        }
    }

    #[test]
    fn an_agents_other_tools_mean_no_canonical_tool_anywhere() {
        for agent in &AGENTS {
            for name in agent.other_tools {
                assert_eq!(static_canonical_tool(name), None, "{} {name}", agent.name);
                assert!(agent.knows_tool(name), "{} {name}", agent.name);
            }
        }
    }

    #[test]
    fn an_mcp_tool_is_known_exactly_where_canonical_tool_reads_one() {
        for name in ["mcp:github:search", "MCP:x", "mcp__github__search", "mcp__github__", "mcp__", "mcp:", "mcpx"] {
            let read = canonical_tool(name).is_some_and(|t| t.starts_with("mcp:"));
            assert_eq!(is_mcp_tool(name), read, "{name}");
            assert_eq!(Protocol::Claude.agent().knows_tool(name), read, "{name}");
        }
    }
}
