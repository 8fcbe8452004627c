//! Kilo Code CLI: its entry in the agent table, with its tool names; its events are OpenCode's.

use super::*;

/// Kilo Code CLI 7.7.7 (npm `@kilocode/cli`, its `@kilocode/cli-linux-x64` executable), a fork of OpenCode with the
/// same plugin interface (`@kilocode/plugin`, whose `Hooks` are OpenCode's): its built-in tools as
/// `tool.execute.before` names them, OpenCode's and its own.
const TOOLS: &[(&str, &str)] = &[
    ("bash", "shell"),
    ("read", "read"),
    ("write", "write"),
    ("edit", "edit"),
    ("apply_patch", "edit"),
    ("glob", "glob"),
    ("grep", "grep"),
    ("webfetch", "web_fetch"),
    ("websearch", "web_search"),
    ("task", "task"),
    ("todowrite", "todo"),
    ("notebook_edit", "notebook_edit"),
];

/// Kilo's tools that mean no canonical tool.
const OTHER_TOOLS: &[&str] = &[
    "lsp",
    "skill",
    "question",
    "plan_exit",
    "invalid",
    "chart",
    "generate_image",
    "kilo_local_recall",
    "kilo_memory_recall",
    "kilo_memory_save",
    "notebook_execute",
    "notebook_read",
    "open_plan",
    "repo_clone",
    "repo_overview",
];

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Kilo,
    id: "kilo",
    name: "Kilo Code CLI",
    version: Some("7.7.7"),
    events: super::opencode::EVENTS,
    tools: TOOLS,
    other_tools: OTHER_TOOLS,
    mcp: None,
    project_env: &[],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    // Its config directories: every `.kilo` and `.kilocode` from the working directory up to the project's, and
    // `$XDG_CONFIG_HOME/kilo`; each one's `{plugin,plugins}/*.{ts,js}` is loaded.
    files: AgentFiles {
        project: Some(".kilo/plugins/hook-engine.js"),
        local: None,
        user: Some(".config/kilo/plugins/hook-engine.js"),
        read: &[],
        overrides: &[],
        read_user: None,
    },
    default_timeout_ms: 60_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::ClosedOnPreTool,
    timeout_unit: TimeUnit::Millis,
    handler: HandlerShape::Plugin { dependency: "@kilocode/plugin" },
    posix_shell: true,
    answers: super::opencode::ANSWERS,
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::ClaudeCode,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: None,
    switches: &[],
    folder_trust: None,
    binary: Some("kilo"),
    tool_call_env: &[],
};
