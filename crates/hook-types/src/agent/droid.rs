//! Factory Droid: its entry in the agent table, with its event and tool names.

use super::*;

/// Factory Droid 0.225.2: the hook events of its settings schema (`xl` in the bundled JavaScript of the
/// `@factory/cli-linux-x64` binary: PreToolUse, PostToolUse, Notification, UserPromptSubmit, Stop, SubagentStop,
/// PreCompact, SessionStart, SessionEnd) and https://docs.factory.ai/reference/hooks-reference.
const EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart).matched(MatcherUse::Ignored),
    ev("UserPromptSubmit", Event::TurnStart).matched(MatcherUse::Ignored),
    ev("PreToolUse", Event::PreTool),
    ev("PostToolUse", Event::PostTool),
    ev("Stop", Event::TurnEnd).matched(MatcherUse::Ignored),
    with("SubagentStop", Event::TurnEnd, SUBAGENT).matched(MatcherUse::Ignored),
    ev("PreCompact", Event::Compaction).matched(MatcherUse::Ignored),
    ev("Notification", Event::Notification).matched(MatcherUse::Ignored),
    ev("SessionEnd", Event::SessionEnd).matched(MatcherUse::Ignored),
];

/// Factory Droid 0.225.2, its tool ids (the `LS`, `Read`, `Create`, `Edit`, … constants of its bundled JavaScript).
const TOOLS: &[(&str, &str)] = &[
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

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Droid,
    id: "droid",
    name: "Factory Droid",
    version: Some("0.225.2"),
    events: EVENTS,
    tools: TOOLS,
    other_tools: &[],
    mcp: None,
    // Its hook runner (`executeCommand`) sets FACTORY_PROJECT_DIR, DROID_PROJECT_DIR and CLAUDE_PROJECT_DIR.
    project_env: &["FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
    session_env: None,
    cwd_env: None,
    tool_env: None,
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
    // Its hooks manager's "default (60s)" (the `droid` 0.225.2 binary's bundled strings).
    default_timeout_ms: 60_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Seconds,
    handler: HandlerShape::Grouped { named: false },
    posix_shell: true,
    // `droid exec` prints no `systemMessage` (PreToolUse's is only logged; PostToolUse's is a `user_only` message of
    // the interactive view). The model reads, as `llm_only` messages, a SessionStart's and a UserPromptSubmit's
    // `additionalContext` and a PostToolUse's, and a PreToolUse deny's `permissionDecisionReason` as the tool's
    // error (its 0.225.2 bundled JavaScript).
    // With an automatic permission mode (`droid exec --auto low|medium|high`: `permission_mode: "auto-high"`) 0.225.2
    // ran the tool on an `ask`, its own hooks' as well (the real-agent suite); so do modes that skip permissions.
    answers: Answers {
        notices_to_model: &[Event::SessionStart, Event::TurnStart, Event::PostTool],
        ask_runs_in_modes: &["auto", "skip", "bypass"],
        ..ALL_ANSWERS
    },
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::ClaudeCode,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: Some(
        "Factory Droid asks you to trust a folder before it runs the hooks of its project settings: accept that \
         prompt the first time you open this workspace.",
    ),
    switches: SWITCHES,
    folder_trust: Some(TRUST),
    binary: Some("droid"),
    tool_call_env: &[],
};

/// Factory Droid 0.225.2 (the `droid` binary's bundle: `getHooksDisabled(){return this.settings.hooks?.hooksDisabled
/// ??!1}`, checked before any hook runs).
const SWITCHES: &[OffSwitch] = &[OffSwitch {
    files: &[AgentPath::Home(".factory/settings.json"), AgentPath::Workspace(".factory/settings.json")],
    key: "hooks.hooksDisabled",
    off_when: OffWhen::True,
    effect: "disables every hook",
}];

/// The same bundle (`FolderTrustService`): an interactive session skips every hook ("Skipping hooks: folder not
/// trusted yet") until the folder is under `general.trustedFolders` of the user settings; `droid exec` asks nothing.
const TRUST: FolderTrust = FolderTrust {
    store: AgentPath::Home(".factory/settings.json"),
    store_env: None,
    shape: TrustShape::PerDir { map: "general.trustedFolders", field: None, ancestors: false },
    enabled_by: None,
    setting_files: &[],
    env_trusts: &[],
    reach: Reach::AllHooks,
    interactive_only: true,
    fix: "open this folder in Factory Droid once and trust it when it asks",
};
