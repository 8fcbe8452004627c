//! Qwen Code: its entry in the agent table, with its event and tool names.

use super::*;

/// Qwen Code 0.24.4: `HookEventName` in packages/core/src/hooks/types.ts (the `@qwen-code/qwen-code` bundle,
/// chunks/chunk-QA5TENCT.js) and its hooks reference (bundled/qc-helper/docs/features/hooks.md). It took Claude Code's
/// event names; the events with no equivalent here load as foreign observers.
const EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart),
    ev("UserPromptSubmit", Event::TurnStart).matched(MatcherUse::Ignored),
    ev("PreToolUse", Event::PreTool),
    ev("PermissionRequest", Event::PermissionRequest),
    ev("PostToolUse", Event::PostTool),
    with("PostToolUseFailure", Event::PostTool, FAILED),
    ev("Stop", Event::TurnEnd).matched(MatcherUse::Ignored),
    with("SubagentStop", Event::TurnEnd, SUBAGENT).matched(MatcherUse::Unsupported("the subagent's type")),
    ev("PreCompact", Event::Compaction),
    ev("Notification", Event::Notification).matched(MatcherUse::Unrouted("its notification type")),
    ev("SessionEnd", Event::SessionEnd).matched(MatcherUse::Unrouted("its reason")),
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

/// Qwen Code 0.24.4, packages/core/src/tools/tool-names.ts (`ToolNames`, chunks/chunk-RSWOFJBY.js of its bundle): the
/// runtime ids its hooks receive in `tool_name`.
const TOOLS: &[(&str, &str)] = &[
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

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Qwen,
    id: "qwen",
    name: "Qwen Code",
    version: Some("0.24.4"),
    events: EVENTS,
    tools: TOOLS,
    other_tools: &[],
    mcp: None,
    // hookRunner (chunks/chunk-DPEB6S2R.js): GEMINI_PROJECT_DIR, CLAUDE_PROJECT_DIR and QWEN_PROJECT_DIR are all
    // set to the project directory for every command hook.
    project_env: &["QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    // `SETTINGS_DIRECTORY_NAME = ".qwen"`; hooks live in the `hooks` key of its settings files.
    files: AgentFiles {
        project: Some(".qwen/settings.json"),
        local: None,
        user: Some(".qwen/settings.json"),
        read: &[".qwen/settings.json"],
        overrides: &[],
        read_user: None,
    },
    // Qwen Code: "Timeout in seconds, default 60" for command hooks (docs/features/hooks.md in its package).
    default_timeout_ms: 60_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Seconds,
    handler: HandlerShape::Grouped { named: true },
    posix_shell: true,
    // `qwen -p` prints no `systemMessage`. The model reads `additionalContext` on SessionStart (the session's
    // context), UserPromptSubmit (added to the prompt) and PostToolUse/PostToolUseFailure (with the result), and a
    // PreToolUse deny's `permissionDecisionReason` as the tool's error; a PreToolUse answer's `additionalContext` is
    // dropped (`firePreToolUseHook` and its caller in chunks/chunk-DPEB6S2R.js of the 0.24.4 bundle).
    answers: Answers { notices_to_model: &[Event::SessionStart, Event::TurnStart, Event::PostTool], ..ALL_ANSWERS },
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::ClaudeCode,
    // Its settings are read through `strip-json-comments` (chunks/chunk-HS5OZTQF.js, packages/cli/src/serve).
    json_comments: true,
    hooks_switches: &[],
    bridge: true,
    trust_note: Some(
        "Qwen Code loads a workspace's hooks only in a trusted folder once its folder trust is on \
         (security.folderTrust.enabled): trust this folder when Qwen Code asks.",
    ),
    switches: SWITCHES,
    folder_trust: Some(TRUST),
    binary: Some("qwen"),
    tool_call_env: &[],
};

/// Qwen Code 0.24.4 (chunks/chunk-WH7PDTZL.js, `loadCliConfig`): `disableAllHooks` in its merged settings turns every
/// hook off; its system settings are `/etc/qwen-code/settings.json` (chunks/chunk-IDS7MSUP.js).
const SETTINGS: &[AgentPath] = &[
    AgentPath::Home(".qwen/settings.json"),
    AgentPath::Workspace(".qwen/settings.json"),
    AgentPath::System("/etc/qwen-code/settings.json"),
];

const SWITCHES: &[OffSwitch] =
    &[OffSwitch { files: SETTINGS, key: "disableAllHooks", off_when: OffWhen::True, effect: "disables every hook" }];

/// chunks/chunk-RIQQLEYE.js (`isFolderTrustEnabled`, default false; `isWorkspaceTrusted`): with folder trust on, a
/// folder no rule of `~/.qwen/trustedFolders.json` trusts does not load the workspace's settings, hooks included.
const TRUST: FolderTrust = FolderTrust {
    store: AgentPath::Home(".qwen/trustedFolders.json"),
    store_env: Some("QWEN_CODE_TRUSTED_FOLDERS_PATH"),
    shape: TrustShape::Levels,
    enabled_by: Some(("security.folderTrust.enabled", false)),
    setting_files: SETTINGS,
    env_trusts: &[],
    reach: Reach::ProjectHooks,
    interactive_only: false,
    fix: "trust this folder when Qwen Code asks (it records TRUST_FOLDER in ~/.qwen/trustedFolders.json)",
};
