//! Codex: its entry in the agent table, with its event and tool names.

use super::*;

/// codex-rs/hooks: the events its hook engine dispatches are written by install; the others its `hooks.json`
/// accepts are read. Failed calls reach its `PostToolUse` hooks too; it has no separate failure event.
const EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart),
    ev("UserPromptSubmit", Event::TurnStart).matched(MatcherUse::Ignored),
    ev("PreToolUse", Event::PreTool),
    ev("PermissionRequest", Event::PermissionRequest),
    ev("PostToolUse", Event::PostTool),
    ev("Stop", Event::TurnEnd).matched(MatcherUse::Ignored),
    read_only("SubagentStop", Event::TurnEnd, SUBAGENT, None).matched(MatcherUse::Unsupported("the subagent's type")),
    read_only("PreCompact", Event::Compaction, PLAIN, None),
    read_only("SessionEnd", Event::SessionEnd, PLAIN, None).matched(MatcherUse::Ignored),
    foreign("PostCompact"),
    foreign("SubagentStart"),
    foreign("StopFailure"),
    foreign("Interrupt"),
    // Around each model request (0.169.0 already; its `/hooks` list: "Before a model request", "After a model
    // request, including failures").
    foreign("PreModelRequest"),
    foreign("PostModelRequest"),
];

/// codex-rs: its hooks see `Bash` for every shell tool (`exec_command`, `shell`, `local_shell`) and `apply_patch`
/// for file edits.
const TOOLS: &[(&str, &str)] = &[("Bash", "shell"), ("apply_patch", "edit")];

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Codex,
    id: "codex",
    name: "Codex",
    version: Some("0.171.0"),
    events: EVENTS,
    tools: TOOLS,
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
    default_timeout_ms: 600_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Seconds,
    handler: HandlerShape::Grouped { named: false },
    posix_shell: false,
    answers: Answers { ask: false, ..ALL_ANSWERS },
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::ClaudeCode,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: Some(
        "Codex reads a workspace's .codex/hooks.json only when the project is trusted: accept Codex's trust \
         prompt for this directory (or set trust_level = \"trusted\" for it under [projects] in Codex's \
         config.toml). The bridge entries themselves were recorded as trusted above.",
    ),
};
