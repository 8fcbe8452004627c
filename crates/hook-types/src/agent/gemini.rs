//! Gemini CLI: its entry in the agent table, with its event and tool names.

use super::*;

/// Gemini CLI hooks reference. AfterModel fires once per streamed chunk; it and the other model events are foreign.
const EVENTS: &[AgentEvent] = &[
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

/// gemini-cli packages/core/src/tools/definitions/base-declarations.ts and tool-names.ts (`search_file_content` is
/// the legacy name of `grep_search`).
const TOOLS: &[(&str, &str)] = &[
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

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Gemini,
    id: "gemini",
    name: "Gemini CLI",
    version: Some("0.61.0"),
    events: EVENTS,
    tools: TOOLS,
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
    default_timeout_ms: 60_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Millis,
    handler: HandlerShape::Grouped { named: true },
    posix_shell: true,
    answers: ALL_ANSWERS,
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::GeminiCli,
    json_comments: true,
    hooks_switches: &["enabled", "disabled", "notifications"],
    bridge: true,
    trust_note: Some(
        "Gemini CLI runs a workspace's hooks only in a trusted folder: trust this folder when Gemini CLI asks \
         (or with its folder-trust settings). It lists newly seen project hooks with a warning the first time.",
    ),
};
