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
use crate::origin::Protocol;

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
    /// The agent's own hook files per scope.
    pub files: AgentFiles,
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
    /// `{event: [{command, timeout, matcher}]}` (Cursor).
    Flat,
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
}

const PLAIN: EventFilters = EventFilters { only_errors: false, scope: Scope::Main };
const FAILED: EventFilters = EventFilters { only_errors: true, scope: Scope::Main };
const SUBAGENT: EventFilters = EventFilters { only_errors: false, scope: Scope::Subagent };

const fn ev(name: &'static str, event: Event) -> AgentEvent {
    AgentEvent { name, event: Some(event), filters: PLAIN, tool: None, install: true, wire_name: None, answered: true }
}

const fn with(name: &'static str, event: Event, filters: EventFilters) -> AgentEvent {
    AgentEvent { name, event: Some(event), filters, tool: None, install: true, wire_name: None, answered: true }
}

/// Read when it arrives, never written by install.
const fn read_only(name: &'static str, event: Event, filters: EventFilters, tool: Option<&'static str>) -> AgentEvent {
    AgentEvent { name, event: Some(event), filters, tool, install: false, wire_name: None, answered: true }
}

/// Documented by the agent, no equivalent here.
const fn foreign(name: &'static str) -> AgentEvent {
    AgentEvent { name, event: None, filters: PLAIN, tool: None, install: false, wire_name: None, answered: true }
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
    AgentEvent { name, event, filters: PLAIN, tool: None, install, wire_name: Some(wire), answered }
}

const ALL_ANSWERS: Answers =
    Answers { ask: true, continuation: true, context: true, system_message: true, fail_closed_key: None };

/// The canonical event names, each read as itself.
const NATIVE_EVENTS: &[AgentEvent] = &[
    ev("session_start", Event::SessionStart),
    ev("turn_start", Event::TurnStart),
    ev("pre_tool", Event::PreTool),
    ev("permission_request", Event::PermissionRequest),
    ev("post_tool", Event::PostTool),
    ev("turn_end", Event::TurnEnd),
    ev("compaction", Event::Compaction),
    ev("notification", Event::Notification),
    ev("session_end", Event::SessionEnd),
];

/// Claude Code hooks reference, "Hook events".
const CLAUDE_EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart),
    ev("UserPromptSubmit", Event::TurnStart),
    ev("PreToolUse", Event::PreTool),
    ev("PermissionRequest", Event::PermissionRequest),
    ev("PostToolUse", Event::PostTool),
    with("PostToolUseFailure", Event::PostTool, FAILED),
    ev("Stop", Event::TurnEnd),
    with("SubagentStop", Event::TurnEnd, SUBAGENT),
    ev("PreCompact", Event::Compaction),
    ev("Notification", Event::Notification),
    ev("SessionEnd", Event::SessionEnd),
    foreign("Setup"),
    foreign("InstructionsLoaded"),
    foreign("UserPromptExpansion"),
    foreign("PostToolBatch"),
    foreign("PermissionDenied"),
    foreign("SubagentStart"),
    foreign("StopFailure"),
    foreign("TeammateIdle"),
    foreign("TaskCreated"),
    foreign("TaskCompleted"),
    foreign("PostCompact"),
    foreign("ConfigChange"),
    foreign("CwdChanged"),
    foreign("FileChanged"),
    foreign("WorktreeCreate"),
    foreign("WorktreeRemove"),
    foreign("Elicitation"),
    foreign("ElicitationResult"),
];

/// codex-rs/hooks: the events its hook engine dispatches are written by install; the others its `hooks.json`
/// accepts are read. Failed calls reach its `PostToolUse` hooks too; it has no separate failure event.
const CODEX_EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart),
    ev("UserPromptSubmit", Event::TurnStart),
    ev("PreToolUse", Event::PreTool),
    ev("PermissionRequest", Event::PermissionRequest),
    ev("PostToolUse", Event::PostTool),
    ev("Stop", Event::TurnEnd),
    read_only("SubagentStop", Event::TurnEnd, SUBAGENT, None),
    read_only("PreCompact", Event::Compaction, PLAIN, None),
    read_only("SessionEnd", Event::SessionEnd, PLAIN, None),
    foreign("PostCompact"),
    foreign("SubagentStart"),
    foreign("StopFailure"),
    foreign("Interrupt"),
];

/// Gemini CLI hooks reference. AfterModel fires once per streamed chunk; it and the other model events are foreign.
const GEMINI_EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart),
    ev("BeforeAgent", Event::TurnStart),
    ev("BeforeTool", Event::PreTool),
    ev("AfterTool", Event::PostTool),
    ev("AfterAgent", Event::TurnEnd),
    ev("PreCompress", Event::Compaction),
    ev("Notification", Event::Notification),
    ev("SessionEnd", Event::SessionEnd),
    foreign("BeforeModel"),
    foreign("AfterModel"),
    foreign("BeforeToolSelection"),
];

/// Cursor hooks docs. Install writes the bridge on the generic tool events only: Cursor fires `preToolUse` for
/// every tool, shell, MCP and file reads included, so the bridge on `beforeShellExecution` as well would run every
/// pre_tool hook twice for one shell command. The per-tool events are still read when they arrive.
const CURSOR_EVENTS: &[AgentEvent] = &[
    ev("sessionStart", Event::SessionStart),
    ev("beforeSubmitPrompt", Event::TurnStart),
    ev("preToolUse", Event::PreTool),
    read_only("beforeShellExecution", Event::PreTool, PLAIN, Some("shell")),
    read_only("beforeMCPExecution", Event::PreTool, PLAIN, Some("mcp")),
    read_only("beforeReadFile", Event::PreTool, PLAIN, Some("read")),
    ev("postToolUse", Event::PostTool),
    with("postToolUseFailure", Event::PostTool, FAILED),
    read_only("afterShellExecution", Event::PostTool, PLAIN, Some("shell")),
    read_only("afterMCPExecution", Event::PostTool, PLAIN, Some("mcp")),
    read_only("afterFileEdit", Event::PostTool, PLAIN, Some("edit")),
    read_only("afterFileEdit", Event::PostTool, PLAIN, Some("write")),
    ev("stop", Event::TurnEnd),
    with("subagentStop", Event::TurnEnd, SUBAGENT),
    ev("preCompact", Event::Compaction),
    ev("sessionEnd", Event::SessionEnd),
    foreign("subagentStart"),
    foreign("afterAgentResponse"),
    foreign("afterAgentThought"),
    foreign("beforeTabFileRead"),
    foreign("afterTabFileEdit"),
];

/// Qwen Code 0.24.4: `HookEventName` in packages/core/src/hooks/types.ts (the `@qwen-code/qwen-code` bundle,
/// chunks/chunk-QA5TENCT.js) and its hooks reference (bundled/qc-helper/docs/features/hooks.md). It took Claude Code's
/// event names; the events with no equivalent here load as foreign observers.
const QWEN_EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart),
    ev("UserPromptSubmit", Event::TurnStart),
    ev("PreToolUse", Event::PreTool),
    ev("PermissionRequest", Event::PermissionRequest),
    ev("PostToolUse", Event::PostTool),
    with("PostToolUseFailure", Event::PostTool, FAILED),
    ev("Stop", Event::TurnEnd),
    with("SubagentStop", Event::TurnEnd, SUBAGENT),
    ev("PreCompact", Event::Compaction),
    ev("Notification", Event::Notification),
    ev("SessionEnd", Event::SessionEnd),
    foreign("PostToolBatch"),
    foreign("UserPromptExpansion"),
    foreign("MessageDisplay"),
    foreign("SubagentStart"),
    foreign("PostCompact"),
    foreign("SessionDelete"),
    foreign("PermissionDenied"),
    foreign("StopFailure"),
    foreign("TodoCreated"),
    foreign("TodoCompleted"),
    foreign("InstructionsLoaded"),
];

/// Factory Droid 0.225.2: the hook events of its settings schema (`xl` in the bundled JavaScript of the
/// `@factory/cli-linux-x64` binary: PreToolUse, PostToolUse, Notification, UserPromptSubmit, Stop, SubagentStop,
/// PreCompact, SessionStart, SessionEnd) and https://docs.factory.ai/reference/hooks-reference.
const DROID_EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart),
    ev("UserPromptSubmit", Event::TurnStart),
    ev("PreToolUse", Event::PreTool),
    ev("PostToolUse", Event::PostTool),
    ev("Stop", Event::TurnEnd),
    with("SubagentStop", Event::TurnEnd, SUBAGENT),
    ev("PreCompact", Event::Compaction),
    ev("Notification", Event::Notification),
    ev("SessionEnd", Event::SessionEnd),
];

/// Cline 3.0.65 (npm `cline`, running `@cline/core` 0.0.86): `HookConfigFileName` and `HOOK_CONFIG_FILE_EVENT_MAP` in
/// sdk/packages/core/src/hooks/hook-file-config.ts (the file names, and the `hookName` each sends), and
/// `createHookConfigFileHooks` in hook-file-hooks.ts (which run blocking). Only `PreToolUse` (`tool_call`) and
/// `PostToolUse` (`tool_result`) are awaited and their stdout read; the others run detached with stdout ignored, so
/// a bridge there can observe but never answer. `TaskStart` and `TaskResume` both back `beforeRun`, one run (one
/// submitted prompt) of a task; `TaskComplete` is `afterRun` of a completed run; `SessionShutdown` fires only for an
/// aborted run; `PreCompact` is a file name Cline reads but runs on no event ("not wired for file hooks today",
/// sdk/examples/hooks/README.md).
const CLINE_EVENTS: &[AgentEvent] = &[
    wired("TaskStart", "agent_start", Some(Event::SessionStart), true, false),
    wired("TaskResume", "agent_resume", Some(Event::SessionStart), false, false),
    wired("UserPromptSubmit", "prompt_submit", Some(Event::TurnStart), true, false),
    wired("PreToolUse", "tool_call", Some(Event::PreTool), true, true),
    wired("PostToolUse", "tool_result", Some(Event::PostTool), true, true),
    wired("TaskComplete", "agent_end", Some(Event::TurnEnd), true, false),
    wired("SessionShutdown", "session_shutdown", Some(Event::SessionEnd), true, false),
    read_only("PreCompact", Event::Compaction, PLAIN, None),
    wired("TaskError", "agent_error", None, false, false),
    wired("TaskCancel", "agent_abort", None, false, false),
];

/// GitHub Copilot CLI 1.0.102: `HookType` in `schemas/api.schema.json` of the `@github/copilot-linux-x64` package (the
/// tar inside its executable) and <https://docs.github.com/en/copilot/reference/hooks-reference> ("Hook events").
/// `userPromptSubmitted` hooks have their output dropped (command hooks cannot block or add context there), so the
/// bridge on it observes and can only warn. The PascalCase names Copilot also accepts (`PreToolUse`, with a
/// snake_case input) are not in this table: the reader refuses them and closes their gate.
const COPILOT_EVENTS: &[AgentEvent] = &[
    ev("sessionStart", Event::SessionStart),
    ev("userPromptSubmitted", Event::TurnStart),
    ev("preToolUse", Event::PreTool),
    ev("permissionRequest", Event::PermissionRequest),
    ev("postToolUse", Event::PostTool),
    with("postToolUseFailure", Event::PostTool, FAILED),
    ev("agentStop", Event::TurnEnd),
    with("subagentStop", Event::TurnEnd, SUBAGENT),
    ev("preCompact", Event::Compaction),
    ev("notification", Event::Notification),
    ev("sessionEnd", Event::SessionEnd),
    foreign("preMcpToolCall"),
    foreign("userPromptTransformed"),
    foreign("postResult"),
    foreign("prePRDescription"),
    foreign("errorOccurred"),
    foreign("subagentStart"),
];

/// clio-coder's names: the canonical ones, and its own for three of them.
const CLIO_EVENTS: &[AgentEvent] = &[
    ev("session_start", Event::SessionStart),
    ev("turn_start", Event::TurnStart),
    ev("before_tool", Event::PreTool),
    ev("permission_request", Event::PermissionRequest),
    ev("after_tool", Event::PostTool),
    ev("turn_end", Event::TurnEnd),
    ev("on_compaction", Event::Compaction),
    ev("notification", Event::Notification),
    ev("session_end", Event::SessionEnd),
];

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

/// Claude Code's tools reference.
const CLAUDE_TOOLS: &[(&str, &str)] = &[
    ("Bash", "shell"),
    ("Read", "read"),
    ("Write", "write"),
    ("Edit", "edit"),
    ("MultiEdit", "edit"),
    ("Glob", "glob"),
    ("Grep", "grep"),
    ("LS", "ls"),
    ("WebFetch", "web_fetch"),
    ("WebSearch", "web_search"),
    ("Task", "task"),
    ("Agent", "task"),
    ("NotebookEdit", "notebook_edit"),
    ("TodoWrite", "todo"),
];

/// codex-rs: its hooks see `Bash` for every shell tool (`exec_command`, `shell`, `local_shell`) and `apply_patch`
/// for file edits.
const CODEX_TOOLS: &[(&str, &str)] = &[("Bash", "shell"), ("apply_patch", "edit")];

/// gemini-cli packages/core/src/tools/definitions/base-declarations.ts and tool-names.ts (`search_file_content` is
/// the legacy name of `grep_search`).
const GEMINI_TOOLS: &[(&str, &str)] = &[
    ("run_shell_command", "shell"),
    ("read_file", "read"),
    ("read_many_files", "read"),
    ("write_file", "write"),
    ("replace", "edit"),
    ("glob", "glob"),
    ("grep_search", "grep"),
    ("search_file_content", "grep"),
    ("list_directory", "ls"),
    ("web_fetch", "web_fetch"),
    ("google_web_search", "web_search"),
    ("write_todos", "todo"),
];

/// Cursor's `preToolUse` tool names as its hook files match them.
const CURSOR_TOOLS: &[(&str, &str)] = &[
    ("Shell", "shell"),
    ("Read", "read"),
    ("Write", "write"),
    ("Edit", "edit"),
    ("StrReplace", "edit"),
    ("Grep", "grep"),
];

/// Qwen Code 0.24.4, packages/core/src/tools/tool-names.ts (`ToolNames`, chunks/chunk-RSWOFJBY.js of its bundle): the
/// runtime ids its hooks receive in `tool_name`.
const QWEN_TOOLS: &[(&str, &str)] = &[
    ("run_shell_command", "shell"),
    ("read_file", "read"),
    ("write_file", "write"),
    ("edit", "edit"),
    ("glob", "glob"),
    ("grep_search", "grep"),
    ("list_directory", "ls"),
    ("web_fetch", "web_fetch"),
    ("web_search", "web_search"),
    ("agent", "task"),
    ("notebook_edit", "notebook_edit"),
    ("todo_write", "todo"),
];

/// Factory Droid 0.225.2, its tool ids (the `LS`, `Read`, `Create`, `Edit`, … constants of its bundled JavaScript).
const DROID_TOOLS: &[(&str, &str)] = &[
    ("Execute", "shell"),
    ("Read", "read"),
    ("Create", "write"),
    ("Edit", "edit"),
    ("MultiEdit", "edit"),
    ("ApplyPatch", "edit"),
    ("Glob", "glob"),
    ("Grep", "grep"),
    ("LS", "ls"),
    ("FetchUrl", "web_fetch"),
    ("WebSearch", "web_search"),
    ("Task", "task"),
    ("TodoWrite", "todo"),
];

/// Cline's tools as its hooks name them in `toolName`, its CLI's first, then its VS Code extension's.
///
/// The CLI, 3.0.65 (`@cline/core` 0.0.86): `DefaultToolNames` in sdk/packages/core/src/extensions/tools/constants.ts.
/// `run_commands` takes `{commands: [...]}`; `editor` creates or edits one file.
///
/// The extension through 3.89.2 (its hook reference's `preToolUse.toolName`): `ClineDefaultTool` in
/// apps/vscode/src/shared/tools.ts; `ToolHookUtils.runPreToolUseIfEnabled` sends `{toolName: block.name,
/// parameters: block.params}`, every parameter a string. `execute_command` takes `command` (and
/// `requires_approval`, `timeout`); `read_file`, `write_to_file`, `replace_in_file`, `list_files`, `search_files`
/// and `list_code_definition_names` take the file or directory in `path` (`absolutePath` for the model families
/// whose tool specs use it), `write_to_file` its `content`, `replace_in_file` its `diff`, `search_files` a `regex`.
/// `WriteToFileToolHandler` runs `new_rule` too: it writes a rule file. `list_code_definition_names` reads the
/// definitions out of a directory's source files, one of the tools Cline's own auto-approval counts as reads
/// (`readFiles`). `use_subagents` runs subagents. An MCP tool is `use_mcp_tool` with `server_name` and
/// `tool_name` (a native MCP tool call included: `StreamResponseHandler` turns it into one), which the bridge also
/// reads as `mcp:<server>:<tool>`.
const CLINE_TOOLS: &[(&str, &str)] = &[
    ("run_commands", "shell"),
    ("execute_command", "shell"),
    ("read_files", "read"),
    ("read_file", "read"),
    ("list_code_definition_names", "read"),
    ("write_to_file", "write"),
    ("new_rule", "write"),
    ("editor", "edit"),
    ("replace_in_file", "edit"),
    ("apply_patch", "edit"),
    ("search_codebase", "grep"),
    ("search_files", "grep"),
    ("list_files", "ls"),
    ("fetch_web_content", "web_fetch"),
    ("web_fetch", "web_fetch"),
    ("web_search", "web_search"),
    ("use_subagents", "task"),
];

/// Cline's tools that mean no canonical tool: the CLI's `skills`, `ask_question` and `submit_and_exit`; the
/// extension's questions, mode switches and task tools, its browser, and its MCP tools by their generic names (the
/// bridge reads `use_mcp_tool`'s server and tool as `mcp:<server>:<tool>` besides).
const CLINE_OTHER_TOOLS: &[&str] = &[
    "skills",
    "ask_question",
    "submit_and_exit",
    "ask_followup_question",
    "attempt_completion",
    "plan_mode_respond",
    "act_mode_respond",
    "new_task",
    "condense",
    "summarize_task",
    "report_bug",
    "generate_explanation",
    "use_skill",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "load_mcp_documentation",
];

/// GitHub Copilot CLI: the runtime tool names its camelCase hooks receive in `toolName` and match (hooks reference,
/// "Tool names for hook matching", and its table of the Claude names of runtime tools: `rg` is a grep,
/// `str_replace_editor` and `apply_patch` edit, `update_todo` is the todo list).
const COPILOT_TOOLS: &[(&str, &str)] = &[
    ("bash", "shell"),
    ("powershell", "shell"),
    ("view", "read"),
    ("create", "write"),
    ("edit", "edit"),
    ("str_replace_editor", "edit"),
    ("apply_patch", "edit"),
    ("glob", "glob"),
    ("grep", "grep"),
    ("rg", "grep"),
    ("web_fetch", "web_fetch"),
    ("web_search", "web_search"),
    ("task", "task"),
    ("update_todo", "todo"),
];

/// Every agent, in the order foreign formats are read within an origin (native first).
pub static AGENTS: [Agent; 11] = [
    Agent {
        protocol: Protocol::Native,
        name: "this engine",
        version: None,
        events: NATIVE_EVENTS,
        tools: CANONICAL_TOOL_NAMES,
        other_tools: &[],
        mcp: None,
        project_env: &[],
        session_env: None,
        cwd_env: None,
        files: AgentFiles { project: None, local: None, user: None, read: &[], overrides: &[], read_user: None },
        timeout_unit: TimeUnit::Millis,
        handler: HandlerShape::NotInstallable,
        posix_shell: true,
        answers: ALL_ANSWERS,
        wire: WireShape::ClaudeCode,
        json_comments: false,
        hooks_switches: &[],
        bridge: false,
        trust_note: None,
    },
    Agent {
        protocol: Protocol::Claude,
        name: "Claude Code",
        version: Some("2.1.197"),
        events: CLAUDE_EVENTS,
        tools: CLAUDE_TOOLS,
        other_tools: &[],
        mcp: Some(McpSpelling::DoubleUnderscore),
        project_env: &["CLAUDE_PROJECT_DIR"],
        session_env: None,
        cwd_env: None,
        files: AgentFiles {
            project: Some(".claude/settings.json"),
            local: Some(".claude/settings.local.json"),
            user: Some(".claude/settings.json"),
            read: &[".claude/settings.json"],
            overrides: &[],
            read_user: None,
        },
        timeout_unit: TimeUnit::Seconds,
        handler: HandlerShape::Grouped { named: false },
        posix_shell: true,
        answers: ALL_ANSWERS,
        wire: WireShape::ClaudeCode,
        json_comments: false,
        hooks_switches: &[],
        bridge: true,
        trust_note: Some(
            "Claude Code asks you to trust a workspace before it runs the hooks of its project settings: accept \
             that prompt the first time you open this workspace.",
        ),
    },
    Agent {
        protocol: Protocol::Codex,
        name: "Codex",
        version: Some("0.169.0"),
        events: CODEX_EVENTS,
        tools: CODEX_TOOLS,
        other_tools: &[],
        mcp: Some(McpSpelling::DoubleUnderscore),
        project_env: &[],
        session_env: None,
        cwd_env: None,
        files: AgentFiles {
            project: Some(".codex/hooks.json"),
            local: None,
            user: Some(".codex/hooks.json"),
            read: &[".codex/hooks.json", ".codex/config.toml"],
            overrides: &[],
            read_user: None,
        },
        timeout_unit: TimeUnit::Seconds,
        handler: HandlerShape::Grouped { named: false },
        posix_shell: false,
        answers: Answers { ask: false, ..ALL_ANSWERS },
        wire: WireShape::ClaudeCode,
        json_comments: false,
        hooks_switches: &[],
        bridge: true,
        trust_note: Some(
            "Codex reads a workspace's .codex/hooks.json only when the project is trusted: accept Codex's trust \
             prompt for this directory (or set trust_level = \"trusted\" for it under [projects] in Codex's \
             config.toml). The bridge entries themselves were recorded as trusted above.",
        ),
    },
    Agent {
        protocol: Protocol::Gemini,
        name: "Gemini CLI",
        version: Some("0.61.0"),
        events: GEMINI_EVENTS,
        tools: GEMINI_TOOLS,
        other_tools: &[],
        mcp: None,
        // Gemini CLI also sets CLAUDE_PROJECT_DIR, for hooks written for Claude Code.
        project_env: &["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        session_env: Some("GEMINI_SESSION_ID"),
        cwd_env: Some("GEMINI_CWD"),
        files: AgentFiles {
            project: Some(".gemini/settings.json"),
            local: None,
            user: Some(".gemini/settings.json"),
            read: &[".gemini/settings.json"],
            overrides: &[],
            read_user: None,
        },
        timeout_unit: TimeUnit::Millis,
        handler: HandlerShape::Grouped { named: true },
        posix_shell: true,
        answers: ALL_ANSWERS,
        wire: WireShape::GeminiCli,
        json_comments: true,
        hooks_switches: &["enabled", "disabled", "notifications"],
        bridge: true,
        trust_note: Some(
            "Gemini CLI runs a workspace's hooks only in a trusted folder: trust this folder when Gemini CLI asks \
             (or with its folder-trust settings). It lists newly seen project hooks with a warning the first time.",
        ),
    },
    Agent {
        protocol: Protocol::Cursor,
        name: "Cursor",
        version: None,
        events: CURSOR_EVENTS,
        tools: CURSOR_TOOLS,
        other_tools: &[],
        mcp: None,
        project_env: &["CURSOR_PROJECT_DIR"],
        session_env: None,
        cwd_env: None,
        files: AgentFiles {
            project: Some(".cursor/hooks.json"),
            local: None,
            user: Some(".cursor/hooks.json"),
            read: &[".cursor/hooks.json"],
            overrides: &[],
            read_user: None,
        },
        timeout_unit: TimeUnit::Seconds,
        handler: HandlerShape::Flat,
        posix_shell: true,
        answers: Answers { fail_closed_key: Some("failClosed"), ..ALL_ANSWERS },
        wire: WireShape::Cursor,
        json_comments: false,
        hooks_switches: &[],
        bridge: true,
        trust_note: None,
    },
    Agent {
        protocol: Protocol::Mecha,
        name: "mecha",
        version: None,
        events: NATIVE_EVENTS,
        tools: CANONICAL_TOOL_NAMES,
        other_tools: &[],
        mcp: None,
        project_env: &[],
        session_env: None,
        cwd_env: None,
        // mecha and clio-coder document no user-level location of their own; `~/.mecha/config.toml` and
        // `~/.clio-coder/hooks.yaml` mirror their project files.
        files: AgentFiles {
            project: None,
            local: None,
            user: None,
            read: &[".mecha/config.toml"],
            overrides: &[],
            read_user: None,
        },
        timeout_unit: TimeUnit::Seconds,
        handler: HandlerShape::NotInstallable,
        posix_shell: true,
        answers: Answers { ask: false, continuation: false, system_message: false, ..ALL_ANSWERS },
        wire: WireShape::ClaudeCode,
        json_comments: false,
        hooks_switches: &[],
        bridge: false,
        trust_note: None,
    },
    Agent {
        protocol: Protocol::Clio,
        name: "clio-coder",
        version: None,
        events: CLIO_EVENTS,
        tools: CANONICAL_TOOL_NAMES,
        other_tools: &[],
        mcp: None,
        project_env: &[],
        session_env: None,
        cwd_env: None,
        files: AgentFiles {
            project: Some(".clio-coder/hooks.yaml"),
            local: Some(".clio-coder/hooks.local.yaml"),
            user: None,
            read: &[".clio-coder/hooks.yaml"],
            overrides: &[],
            read_user: None,
        },
        timeout_unit: TimeUnit::Millis,
        handler: HandlerShape::NotInstallable,
        posix_shell: true,
        answers: ALL_ANSWERS,
        wire: WireShape::ClaudeCode,
        json_comments: false,
        hooks_switches: &[],
        bridge: false,
        trust_note: None,
    },
    Agent {
        protocol: Protocol::Qwen,
        name: "Qwen Code",
        version: Some("0.24.4"),
        events: QWEN_EVENTS,
        tools: QWEN_TOOLS,
        other_tools: &[],
        mcp: None,
        // hookRunner (chunks/chunk-DPEB6S2R.js): GEMINI_PROJECT_DIR, CLAUDE_PROJECT_DIR and QWEN_PROJECT_DIR are all
        // set to the project directory for every command hook.
        project_env: &["QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        session_env: None,
        cwd_env: None,
        // `SETTINGS_DIRECTORY_NAME = ".qwen"`; hooks live in the `hooks` key of its settings files.
        files: AgentFiles {
            project: Some(".qwen/settings.json"),
            local: None,
            user: Some(".qwen/settings.json"),
            read: &[".qwen/settings.json"],
            overrides: &[],
            read_user: None,
        },
        timeout_unit: TimeUnit::Seconds,
        handler: HandlerShape::Grouped { named: true },
        posix_shell: true,
        answers: ALL_ANSWERS,
        wire: WireShape::ClaudeCode,
        // Its settings are read through `strip-json-comments` (chunks/chunk-HS5OZTQF.js, packages/cli/src/serve).
        json_comments: true,
        hooks_switches: &[],
        bridge: true,
        trust_note: Some(
            "Qwen Code loads a workspace's hooks only in a trusted folder once its folder trust is on \
             (security.folderTrust.enabled): trust this folder when Qwen Code asks.",
        ),
    },
    Agent {
        protocol: Protocol::Droid,
        name: "Factory Droid",
        version: Some("0.225.2"),
        events: DROID_EVENTS,
        tools: DROID_TOOLS,
        other_tools: &[],
        mcp: None,
        // Its hook runner (`executeCommand`) sets FACTORY_PROJECT_DIR, DROID_PROJECT_DIR and CLAUDE_PROJECT_DIR.
        project_env: &["FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        session_env: None,
        cwd_env: None,
        // `loadHooks` per `.factory` folder: `hooks.json` (else the legacy `hooks/hooks.json`), the event map at its
        // top level, merged over the `hooks` key of `settings.json` event by event. Install writes the settings
        // file's `hooks` key, the shape it edits, and refuses while a hooks.json would replace it.
        files: AgentFiles {
            project: Some(".factory/settings.json"),
            local: None,
            user: Some(".factory/settings.json"),
            read: &[".factory/hooks.json", ".factory/hooks/hooks.json", ".factory/settings.json"],
            overrides: &[".factory/hooks.json", ".factory/hooks/hooks.json"],
            read_user: None,
        },
        timeout_unit: TimeUnit::Seconds,
        handler: HandlerShape::Grouped { named: false },
        posix_shell: true,
        answers: ALL_ANSWERS,
        wire: WireShape::ClaudeCode,
        json_comments: false,
        hooks_switches: &[],
        bridge: true,
        trust_note: Some(
            "Factory Droid asks you to trust a folder before it runs the hooks of its project settings: accept that \
             prompt the first time you open this workspace.",
        ),
    },
    Agent {
        protocol: Protocol::Cline,
        name: "Cline",
        version: Some("3.0.65"),
        events: CLINE_EVENTS,
        tools: CLINE_TOOLS,
        other_tools: CLINE_OTHER_TOOLS,
        mcp: None,
        // `runHookCommand` passes `process.env` unchanged: Cline sets no variable of its own for its hooks. The
        // workspace is in the input (`workspaceRoots`).
        project_env: &[],
        session_env: None,
        cwd_env: None,
        // `resolveHooksConfigSearchPaths` (sdk/packages/shared/src/storage/paths.ts, the same in the 0.0.86 bundle):
        // `~/Documents/Cline/Hooks`, `$CLINE_DIR/hooks` (default `~/.cline/hooks`), then the workspace's
        // `.clinerules/hooks` (its deprecated directory) and `.cline/hooks`; every one is read and every hook in them
        // runs. Install writes the current directories: `.cline/hooks` and `~/Documents/Cline/Hooks`.
        files: AgentFiles {
            project: Some(".cline/hooks"),
            local: None,
            user: Some("Documents/Cline/Hooks"),
            read: &[".clinerules/hooks", ".cline/hooks"],
            overrides: &[],
            read_user: Some(&["Documents/Cline/Hooks", ".cline/hooks"]),
        },
        timeout_unit: TimeUnit::Millis,
        handler: HandlerShape::EventExecutables,
        posix_shell: true,
        // `parseHookControl`: `cancel` stops the run, `contextModification` (or `context`) is added for the model on
        // the tool events; `review` is read but never acted on for file hooks; no continuation, no message for the
        // user alone.
        answers: Answers { ask: false, continuation: false, system_message: false, ..ALL_ANSWERS },
        wire: WireShape::Cline,
        json_comments: false,
        hooks_switches: &[],
        bridge: true,
        // `hasRuntimeConfigExtension` enables the `hooks` extension by default and asks for no trust.
        trust_note: None,
    },
    Agent {
        protocol: Protocol::Copilot,
        name: "GitHub Copilot CLI",
        version: Some("1.0.102"),
        events: COPILOT_EVENTS,
        tools: COPILOT_TOOLS,
        other_tools: &[],
        mcp: None,
        // Its hooks reference documents no variable it sets for command hooks.
        project_env: &[],
        session_env: None,
        cwd_env: None,
        // Hooks reference, "Hooks locations": `.github/hooks/*.json` in the repository and `*.json` in
        // `~/.copilot/hooks/`, every file combined. Install writes a file of its own there and leaves the others.
        files: AgentFiles {
            project: Some(".github/hooks/hook-engine.json"),
            local: None,
            user: Some(".copilot/hooks/hook-engine.json"),
            read: &[".github/hooks/*.json"],
            overrides: &[],
            read_user: Some(&[".copilot/hooks/*.json"]),
        },
        timeout_unit: TimeUnit::Seconds,
        handler: HandlerShape::Shells,
        posix_shell: true,
        answers: Answers { system_message: false, ..ALL_ANSWERS },
        wire: WireShape::Copilot,
        json_comments: false,
        hooks_switches: &[],
        bridge: true,
        trust_note: Some(
            "GitHub Copilot CLI runs a repository's .github/hooks only in a folder you trusted (and in prompt mode \
             -p only once it is trusted, or with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true): trust this folder \
             when Copilot asks.",
        ),
    },
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
        AGENTS.iter().find(|a| a.protocol.as_str() == name)
    }

    /// The wire name (`claude`), as `--protocol` and `--agent` take it.
    pub fn as_str(&self) -> &'static str {
        self.protocol.as_str()
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

impl Protocol {
    /// This protocol's agent entry.
    pub const fn agent(self) -> &'static Agent {
        // AGENTS is in the order of Protocol's variants; a test in this module checks it.
        &AGENTS[self as usize]
    }
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
