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
};
