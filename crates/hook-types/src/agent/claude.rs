//! Claude Code: its entry in the agent table, with its event and tool names.

use super::*;

/// Claude Code hooks reference, "Hook events", and the event list bundled in 2.1.332 (`PreModelSwitch` and
/// `PostModelSwitch` since 2.1.251; `DirectoryAdded` and `PreSkillShellCommand` after 2.1.197; `MessageDisplay` was
/// in 2.1.197 already).
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
    foreign("MessageDisplay"),
    foreign("PreModelSwitch"),
    foreign("PostModelSwitch"),
    foreign("DirectoryAdded"),
    foreign("PreSkillShellCommand"),
];

/// Claude Code's tools reference.
const TOOLS: &[(&str, &str)] = &[
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

/// Claude Code 2.1.332's hook schemas (its bundled settings and hook-output schemas). Since 2.1.197: the handler
/// keys `onFailure` (`"block"`: a failure counts as exit 2 on the events that guard something), `holdsTools`,
/// `cloud`, `rewakeMessage`, `rewakeSummary` and `continueOnBlock`; the answer keys `terminalSequence`,
/// `classifierContext`, `permissionDisplay`, `reloadSkills`, `initialUserMessage`; `PreModelSwitch`'s and
/// `PreSkillShellCommand`'s `permissionDecision`, `PostModelSwitch`'s `additionalContext`.
const VOCABULARY: Vocabulary = Vocabulary {
    answer_keys: &[
        "continue",
        "suppressOutput",
        "stopReason",
        "decision",
        "reason",
        "systemMessage",
        "terminalSequence",
        "hookSpecificOutput",
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "permissionDisplay",
        "updatedInput",
        "additionalContext",
        "classifierContext",
        "updatedToolOutput",
        "updatedMCPToolOutput",
        "retry",
        "sessionTitle",
        "suppressOriginalPrompt",
        "initialUserMessage",
        "watchPaths",
        "reloadSkills",
        "displayContent",
        "action",
        "content",
        "worktreePath",
    ],
    handler_keys: &[
        "type",
        "command",
        "args",
        "if",
        "shell",
        "timeout",
        "onFailure",
        "statusMessage",
        "once",
        "async",
        "asyncRewake",
        "rewakeMessage",
        "rewakeSummary",
        "holdsTools",
        "continueOnBlock",
        "cloud",
        "prompt",
        "model",
        "url",
        "headers",
        "allowedEnvVars",
        "server",
        "tool",
        "input",
    ],
    handler_types: &["command", "prompt", "agent", "http", "mcp_tool"],
    decisions: &["allow", "deny", "ask", "defer", "approve", "block"],
};

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Claude,
    id: "claude",
    name: "Claude Code",
    version: Some("2.1.332"),
    events: EVENTS,
    tools: TOOLS,
    other_tools: &[],
    mcp: Some(McpSpelling::DoubleUnderscore),
    project_env: &["CLAUDE_PROJECT_DIR"],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    files: AgentFiles {
        project: Some(".claude/settings.json"),
        local: Some(".claude/settings.local.json"),
        user: Some(".claude/settings.json"),
        read: &[".claude/settings.json"],
        overrides: &[],
        read_user: None,
    },
    default_timeout_ms: 600_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Seconds,
    handler: HandlerShape::Grouped { named: false },
    posix_shell: true,
    answers: Answers {
        defer: true,
        retry: true,
        tool_output: true,
        continuation_cap: Some(ContinuationCap { default: 8, env: Some("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP") }),
        ..ALL_ANSWERS
    },
    vocabulary: VOCABULARY,
    wire: WireShape::ClaudeCode,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: Some(
        "Claude Code asks you to trust a workspace before it runs the hooks of its project settings: accept \
         that prompt the first time you open this workspace.",
    ),
    switches: SWITCHES,
    folder_trust: Some(TRUST),
    binary: Some("claude"),
    tool_call_env: &["CLAUDECODE"],
};

/// Claude Code 2.1.197 (the `claude` binary of `@anthropic-ai/claude-code-linux-x64`): its hooks come from the merged
/// settings unless `disableAllHooks` is true in any of them, and only from the managed file when that file says
/// `allowManagedHooksOnly` or `disableAllHooks`; the managed file is `/etc/claude-code/managed-settings.json` on Linux.
const SETTINGS: &[AgentPath] = &[
    AgentPath::Home(".claude/settings.json"),
    AgentPath::Workspace(".claude/settings.json"),
    AgentPath::Workspace(".claude/settings.local.json"),
    AgentPath::System("/etc/claude-code/managed-settings.json"),
];

const SWITCHES: &[OffSwitch] = &[
    OffSwitch {
        files: SETTINGS,
        key: "disableAllHooks",
        off_when: OffWhen::True,
        effect: "disables every hook but the managed settings' own",
    },
    OffSwitch {
        files: &[AgentPath::System("/etc/claude-code/managed-settings.json")],
        key: "allowManagedHooksOnly",
        off_when: OffWhen::True,
        effect: "runs only the managed settings' own hooks",
    },
];

/// The same binary: an interactive session skips every hook ("workspace trust not accepted") until
/// `projects["<dir>"].hasTrustDialogAccepted` is true in `~/.claude.json` for the directory or an ancestor; `-p`
/// runs need no trust.
const TRUST: FolderTrust = FolderTrust {
    store: AgentPath::Home(".claude.json"),
    store_env: None,
    shape: TrustShape::PerDir { map: "projects", field: Some(("hasTrustDialogAccepted", "true")), ancestors: true },
    enabled_by: None,
    setting_files: &[],
    env_trusts: &[],
    reach: Reach::AllHooks,
    interactive_only: true,
    fix: "run Claude Code interactively in this workspace once and accept its trust dialog",
};
