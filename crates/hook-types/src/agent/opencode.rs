//! OpenCode: its entry in the agent table, with its event and tool names.

use super::*;

/// OpenCode 1.18.33 (npm `opencode-ai`, its `opencode-linux-x64` executable): `Hooks` in the `@opencode-ai/plugin`
/// package's `dist/index.d.ts`, and the executable's own plugin guide ("Hook surface"). OpenCode runs no command
/// hooks: its hooks are in-process plugins, modules in a config directory's `plugin/` or `plugins/` returning
/// handlers. The plugin `hook install` writes (`opencode-plugin.js`) hands these to the bridge, each named as the
/// plugin hook it comes from; the bus events OpenCode passes to a plugin's `event` handler are named by their `type`.
/// `tool.execute.before` blocks the call when the handler throws (the thrown message is the tool's error, which the
/// model reads) and rewrites it through `output.args`; `tool.execute.after` reaches the model through
/// `output.output`; `chat.message` can add parts to the user's message or, by throwing, fail the prompt.
/// `session.idle` cannot start another turn from a plugin's answer, so a continuation is not something it takes.
pub(super) const EVENTS: &[AgentEvent] = &[
    // OpenCode reads nothing back from a bus event's handler: the bridge observes there and keeps no session state.
    wired("session.created", "session.created", Some(Event::SessionStart), true, false),
    ev("chat.message", Event::TurnStart),
    ev("tool.execute.before", Event::PreTool),
    ev("tool.execute.after", Event::PostTool),
    wired("session.idle", "session.idle", Some(Event::TurnEnd), true, false),
    read_only("session.compacted", Event::Compaction, PLAIN, None),
    read_only("session.deleted", Event::SessionEnd, PLAIN, None),
    foreign("permission.ask"),
    foreign("command.execute.before"),
    foreign("shell.env"),
];

/// OpenCode's built-in tools as `tool.execute.before` names them in `input.tool` (each tool's id where the executable
/// defines it; `bash` takes `{command, timeout?, workdir?, description}`, `read`, `write` and `edit` a `filePath`).
/// An MCP server's tool is `<server>_<tool>`, which names no server apart from its tool: the engine places it by its
/// own name only.
pub(super) const TOOLS: &[(&str, &str)] = &[
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
];

/// OpenCode's tools that mean no canonical tool.
pub(super) const OTHER_TOOLS: &[&str] = &["lsp", "skill", "question", "plan_exit", "invalid"];

/// What the plugin can put in OpenCode's way: a deny (a throw), a rewrite (`output.args`), context on the tool's
/// output and the user's message; no approver to ask, no continuation, no channel for the user alone (the plugin
/// hands notices to the model beside the tool's output, marked as for the user).
pub(super) const ANSWERS: Answers = Answers {
    ask: false,
    continuation: false,
    system_message: false,
    notices_to_model: &[Event::TurnStart, Event::PostTool],
    ..ALL_ANSWERS
};

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Opencode,
    id: "opencode",
    name: "OpenCode",
    version: Some("1.18.33"),
    events: EVENTS,
    tools: TOOLS,
    other_tools: OTHER_TOOLS,
    mcp: None,
    project_env: &[],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    // Its config directories: every `.opencode` from the working directory up to the worktree, and
    // `$XDG_CONFIG_HOME/opencode`; each one's `{plugin,plugins}/*.{ts,js}` is loaded with no config entry. Install
    // writes a plugin of its own there. OpenCode has no hook file the engine could read.
    files: AgentFiles {
        project: Some(".opencode/plugins/hook-engine.js"),
        local: None,
        user: Some(".config/opencode/plugins/hook-engine.js"),
        read: &[],
        overrides: &[],
        read_user: None,
    },
    default_timeout_ms: 60_000,
    timeout_bounds_ms: None,
    // A plugin that throws blocks the call; the plugin install writes throws on a gate whose bridge did not answer.
    failure: DefaultFailure::ClosedOnPreTool,
    timeout_unit: TimeUnit::Millis,
    handler: HandlerShape::Plugin { dependency: "@opencode-ai/plugin" },
    posix_shell: true,
    answers: ANSWERS,
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::ClaudeCode,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: None,
    switches: &[],
    folder_trust: None,
    binary: Some("opencode"),
    tool_call_env: &[],
};
