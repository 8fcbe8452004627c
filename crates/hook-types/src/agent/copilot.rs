//! GitHub Copilot CLI: its entry in the agent table, with its event and tool names.

use super::*;

/// GitHub Copilot CLI 1.0.102: `HookType` in `schemas/api.schema.json` of the `@github/copilot-linux-x64` package (the
/// tar inside its executable) and <https://docs.github.com/en/copilot/reference/hooks-reference> ("Hook events").
/// `userPromptSubmitted` hooks have their output dropped (command hooks cannot block or add context there), so the
/// bridge on it observes and can only warn. The PascalCase names Copilot also accepts (`PreToolUse`, with a
/// snake_case input) are not in this table: the reader refuses them and closes their gate.
const EVENTS: &[AgentEvent] = &[
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

/// GitHub Copilot CLI: the runtime tool names its camelCase hooks receive in `toolName` and match (hooks reference,
/// "Tool names for hook matching", and its table of the Claude names of runtime tools: `rg` is a grep,
/// `str_replace_editor` and `apply_patch` edit, `update_todo` is the todo list).
const TOOLS: &[(&str, &str)] = &[
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

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Copilot,
    id: "copilot",
    name: "GitHub Copilot CLI",
    version: Some("1.0.102"),
    events: EVENTS,
    tools: TOOLS,
    other_tools: &[],
    mcp: None,
    // Its hooks reference documents no variable it sets for command hooks.
    project_env: &[],
    session_env: None,
    cwd_env: None,
    tool_env: None,
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
    // `timeoutSec`, "Default: 30" (its hooks reference).
    default_timeout_ms: 30_000,
    timeout_bounds_ms: None,
    // Its preToolUse command hooks fail closed: a crash or a non-zero exit denies (hooks reference, "Exit codes
    // for command hooks"). Its timeouts fail open there; here a timeout denies too, the closed side.
    failure: DefaultFailure::ClosedOnPreTool,
    timeout_unit: TimeUnit::Seconds,
    handler: HandlerShape::Shells,
    posix_shell: true,
    answers: Answers { system_message: false, ..ALL_ANSWERS },
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::Copilot,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: Some(
        "GitHub Copilot CLI runs a repository's .github/hooks only in a folder you trusted (and in prompt mode \
         -p only once it is trusted, or with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true): trust this folder \
         when Copilot asks.",
    ),
    switches: SWITCHES,
    folder_trust: Some(TRUST),
    binary: Some("copilot"),
    tool_call_env: &[],
};

/// GitHub Copilot CLI 1.0.102 (cli-main.js, help topic "config": "`disableAllHooks`: whether to disable all hooks
/// (repo-level and user-level)"; the repository's `.github/copilot/settings.json` and `settings.local.json`; its
/// changelog: "Support disableAllHooks flag to disable all hooks from a configuration file", the hook files'
/// own key).
const SWITCHES: &[OffSwitch] = &[OffSwitch {
    files: &[
        AgentPath::Home(".copilot/settings.json"),
        AgentPath::Home(".copilot/config.json"),
        AgentPath::Workspace(".github/copilot/settings.json"),
        AgentPath::Workspace(".github/copilot/settings.local.json"),
        AgentPath::Workspace(".github/hooks/*.json"),
        AgentPath::Home(".copilot/hooks/*.json"),
    ],
    key: "disableAllHooks",
    off_when: OffWhen::True,
    effect: "disables every hook, the repository's and the user's",
}];

/// The same file: prompt mode loads `.github/hooks` only when the folder is trusted (`trustedFolders` in
/// `~/.copilot/config.json`), `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true` or `COPILOT_ALLOW_ALL=true`.
const TRUST: FolderTrust = FolderTrust {
    store: AgentPath::Home(".copilot/config.json"),
    store_env: None,
    shape: TrustShape::List { key: "trustedFolders" },
    enabled_by: None,
    setting_files: &[],
    env_trusts: &[("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS", "true"), ("COPILOT_ALLOW_ALL", "true")],
    reach: Reach::ProjectHooks,
    interactive_only: false,
    fix: "trust this folder when Copilot asks (it adds it to trustedFolders in ~/.copilot/config.json)",
};
