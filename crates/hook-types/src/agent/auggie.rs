//! Auggie (Augment Code's CLI): its entry in the agent table, with its event and tool names.

use super::*;

/// Auggie 0.36.0 (`@augmentcode/auggie` on npm; its bundle `augment.mjs`): the event enum of its hooks schema and the
/// `Mao` payload builder. Auggie ignores the answer on every event but the tool events: `fireSessionStartHook` and
/// `firePromptSubmitHook` fire and forget, `triggerStopHook` awaits and drops the result, so no deny, context or
/// continuation reaches it there; a hook's `systemMessage` (and plain stdout) is still shown to the user on all of
/// them. A matcher is read on the tool events only (`aao`: any other event runs its groups whatever they match).
const EVENTS: &[AgentEvent] = &[
    ev("SessionStart", Event::SessionStart),
    ev("PromptSubmit", Event::TurnStart).matched(MatcherUse::Ignored),
    ev("PreToolUse", Event::PreTool),
    ev("PostToolUse", Event::PostTool),
    ev("Stop", Event::TurnEnd).matched(MatcherUse::Ignored),
    ev("Notification", Event::Notification).matched(MatcherUse::Ignored),
    ev("SessionEnd", Event::SessionEnd).matched(MatcherUse::Ignored),
];

/// Auggie's tools as its hooks' `tool_name` names them (the names its tool classes pass to their base class in the
/// bundle): `launch-process` is its shell tool (`{command, wait, max_wait_seconds, cwd}`), `view`, `save-file`
/// (`{path, file_content}`), `str-replace-editor` and `remove-files` (`{file_paths}`) its file tools. A second tool
/// set of the same bundle, given to some models, names them `bash` (`{command, timeout}`), `read`, `write`, `edit`,
/// `grep`, `find` and `ls`.
const TOOLS: &[(&str, &str)] = &[
    ("launch-process", "shell"),
    ("bash", "shell"),
    ("view", "read"),
    ("read", "read"),
    ("save-file", "write"),
    ("write", "write"),
    ("str-replace-editor", "edit"),
    ("apply_patch", "edit"),
    ("edit", "edit"),
    ("grep-search", "grep"),
    ("grep", "grep"),
    ("find", "glob"),
    ("ls", "ls"),
    ("web-fetch", "web_fetch"),
    ("web-search", "web_search"),
    ("sub-agent", "task"),
    ("add_tasks", "todo"),
    ("update_tasks", "todo"),
];

/// Auggie's tools that mean no canonical tool.
const OTHER_TOOLS: &[&str] = &[
    "remove-files",
    "read-process",
    "write-process",
    "kill-process",
    "list-processes",
    "read-terminal",
    "codebase-retrieval",
    "git-commit-retrieval",
    "view_tasklist",
    "reorganize_tasklist",
    "view-range-untruncated",
    "search-untruncated",
    "render-mermaid",
    "ask-user",
    "enter-plan-mode",
    "exit-plan-mode",
];

/// The hooks schema of the same bundle (`Hnt`, the group schema `znt` with its `metadata`) and the answer schema
/// its executor reads (`bao`: `continue`, `stopReason`, `suppressOutput`, `systemMessage`, `additionalContext`, and
/// `hookSpecificOutput` named by `hookEventName`).
const VOCABULARY: Vocabulary = Vocabulary {
    answer_keys: &[
        "continue",
        "stopReason",
        "suppressOutput",
        "systemMessage",
        "additionalContext",
        "hookSpecificOutput",
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "decision",
        "reason",
    ],
    handler_keys: &["type", "command", "args", "timeout"],
    handler_types: &["command"],
    decisions: &["allow", "deny", "ask", "block"],
};

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Auggie,
    id: "auggie",
    name: "Auggie",
    // Read from its bundle, not run here: Auggie runs only signed in (`auggie login`) against Augment's own API.
    version: Some("0.36.0"),
    events: EVENTS,
    tools: TOOLS,
    other_tools: OTHER_TOOLS,
    mcp: None,
    // `vao`: every hook gets `AUGMENT_PROJECT_DIR` (the first workspace root), `AUGMENT_CONVERSATION_ID` and
    // `AUGMENT_HOOK_EVENT`, and `AUGMENT_TOOL_NAME` on the tool events.
    project_env: &["AUGMENT_PROJECT_DIR"],
    session_env: Some("AUGMENT_CONVERSATION_ID"),
    cwd_env: None,
    tool_env: Some(ToolEnv {
        event: "AUGMENT_HOOK_EVENT",
        tool_name: "AUGMENT_TOOL_NAME",
        input_fields: &[],
        markers: &[],
    }),
    // `cle`: `/etc/augment/settings.json`, `~/.augment/settings.json`, then the workspace's
    // `.augment/settings.local.json` and `.augment/settings.json`, each one's `hooks` key, merged event by event.
    files: AgentFiles {
        project: Some(".augment/settings.json"),
        local: Some(".augment/settings.local.json"),
        user: Some(".augment/settings.json"),
        read: &[".augment/settings.json"],
        overrides: &[],
        read_user: Some(&[".augment/settings.json"]),
    },
    // `Sao`: 60 s when a handler names no `timeout`, which is in milliseconds ("Timeout must be a positive number
    // (milliseconds)").
    default_timeout_ms: 60_000,
    timeout_bounds_ms: None,
    // `Bao`: a hook that cannot start, times out or exits with another code than 0 and 2 lets the call proceed.
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Millis,
    handler: HandlerShape::Grouped { named: false },
    // `dao`: a command with none of `|&;<>$` and a backquote, and no leading `~`, is split into words and spawned
    // without a shell; any other runs as `bash -c`.
    posix_shell: true,
    // `wao` and `zIt`: exit 2 blocks PreToolUse only; `permissionDecision` deny blocks with its reason for the model,
    // `ask` is read as no decision (the call runs, the reason shown to the user); `additionalContext` reaches the
    // model on PostToolUse only (appended to the tool result); no continuation (Stop's answer is dropped).
    answers: Answers { ask: false, continuation: false, ..ALL_ANSWERS },
    vocabulary: VOCABULARY,
    wire: WireShape::Auggie,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: None,
    switches: &[],
    folder_trust: None,
    binary: Some("auggie"),
    tool_call_env: &[],
};
