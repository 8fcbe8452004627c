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
    tool_env: None,
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
    switches: SWITCHES,
    folder_trust: Some(TRUST),
    binary: Some("codex"),
    tool_call_env: &["CODEX_THREAD_ID"],
};

/// Codex 0.169.0 (codex-rs/features/src/lib.rs): hooks are the stable feature `hooks` (legacy alias `codex_hooks`),
/// on by default and off with `[features] hooks = false` in `$CODEX_HOME/config.toml` or the project's
/// `.codex/config.toml`.
const CONFIG: &[AgentPath] = &[
    AgentPath::EnvDir { var: "CODEX_HOME", default: ".codex", file: "config.toml" },
    AgentPath::Workspace(".codex/config.toml"),
];

const SWITCHES: &[OffSwitch] = &[
    OffSwitch { files: CONFIG, key: "features.hooks", off_when: OffWhen::False, effect: "turns the hooks feature off" },
    OffSwitch {
        files: CONFIG,
        key: "features.codex_hooks",
        off_when: OffWhen::False,
        effect: "turns the hooks feature off (its legacy name)",
    },
];

/// Codex reads a project's `.codex/` layer (its hooks.json among it) only for a project whose
/// `[projects."<dir>"] trust_level` is `"trusted"` in `$CODEX_HOME/config.toml` (the nearest `.git` above the
/// working directory is the project root).
const TRUST: FolderTrust = FolderTrust {
    store: AgentPath::EnvDir { var: "CODEX_HOME", default: ".codex", file: "config.toml" },
    store_env: None,
    shape: TrustShape::PerDir { map: "projects", field: Some(("trust_level", "\"trusted\"")), ancestors: true },
    enabled_by: None,
    setting_files: &[],
    env_trusts: &[],
    reach: Reach::ProjectHooks,
    interactive_only: false,
    fix: "accept Codex's trust prompt for this directory, or set trust_level = \"trusted\" under [projects.\"<dir>\"] \
          in Codex's config.toml",
};
