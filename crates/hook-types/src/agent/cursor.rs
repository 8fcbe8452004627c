//! Cursor: its entry in the agent table, with its event and tool names.

use super::*;

/// Cursor hooks docs. Install writes the bridge on the generic tool events only: Cursor fires `preToolUse` for
/// every tool, shell, MCP and file reads included, so the bridge on `beforeShellExecution` as well would run every
/// pre_tool hook twice for one shell command. The per-tool events are still read when they arrive.
const EVENTS: &[AgentEvent] = &[
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

/// Cursor's `preToolUse` tool names as its hook files match them.
const TOOLS: &[(&str, &str)] = &[
    ("Shell", "shell"),
    ("Read", "read"),
    ("Write", "write"),
    ("Edit", "edit"),
    ("StrReplace", "edit"),
    ("Grep", "grep"),
];

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Cursor,
    id: "cursor",
    name: "Cursor",
    version: None,
    events: EVENTS,
    tools: TOOLS,
    other_tools: &[],
    mcp: None,
    project_env: &["CURSOR_PROJECT_DIR"],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    files: AgentFiles {
        project: Some(".cursor/hooks.json"),
        local: None,
        user: Some(".cursor/hooks.json"),
        read: &[".cursor/hooks.json"],
        overrides: &[],
        read_user: None,
    },
    default_timeout_ms: 30_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Seconds,
    handler: HandlerShape::Flat { versioned: true },
    posix_shell: true,
    answers: Answers { fail_closed_key: Some("failClosed"), ..ALL_ANSWERS },
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::Cursor,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: None,
    // Cursor documents no setting that turns hooks off and keeps its workspace trust in the editor, which no file
    // here shows; no Cursor CLI is pinned.
    switches: &[],
    folder_trust: None,
    binary: None,
    tool_call_env: &[],
};
