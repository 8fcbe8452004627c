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
    tool_env: None,
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
    switches: SWITCHES,
    folder_trust: Some(TRUST),
    binary: Some("gemini"),
    tool_call_env: &[],
};

/// Gemini CLI 0.61.0 (bundle/chunk-2YTYPKEZ.js, `loadSettings` and the settings schema): system defaults, user,
/// workspace, then system settings; `hooksConfig.enabled` ("Canonical toggle for the hooks system", default true)
/// and `hooksConfig.disabled` (hook names, a command hook's name being its `name` or else its command).
const SETTINGS: &[AgentPath] = &[
    AgentPath::System("/etc/gemini-cli/system-defaults.json"),
    AgentPath::Home(".gemini/settings.json"),
    AgentPath::Workspace(".gemini/settings.json"),
    AgentPath::System("/etc/gemini-cli/settings.json"),
];

const SWITCHES: &[OffSwitch] = &[
    OffSwitch { files: SETTINGS, key: "hooksConfig.enabled", off_when: OffWhen::False, effect: "disables every hook" },
    OffSwitch {
        files: SETTINGS,
        key: "hooksConfig.disabled",
        off_when: OffWhen::ListsBridge,
        effect: "disables the hooks it names",
    },
];

/// The same bundle (`checkPathTrust`, `processHooksFromConfig` in chunk-5FZXKDXH.js): with
/// `security.folderTrust.enabled` (default true), a folder no rule of `~/.gemini/trustedFolders.json` trusts runs none
/// of the hooks of its settings; `GEMINI_CLI_TRUST_WORKSPACE=true` trusts it.
const TRUST: FolderTrust = FolderTrust {
    store: AgentPath::Home(".gemini/trustedFolders.json"),
    store_env: Some("GEMINI_CLI_TRUSTED_FOLDERS_PATH"),
    shape: TrustShape::Levels,
    enabled_by: Some(("security.folderTrust.enabled", true)),
    setting_files: SETTINGS,
    env_trusts: &[("GEMINI_CLI_TRUST_WORKSPACE", "true")],
    reach: Reach::AllHooks,
    interactive_only: false,
    fix: "trust this folder when Gemini CLI asks (it records TRUST_FOLDER in ~/.gemini/trustedFolders.json)",
};
