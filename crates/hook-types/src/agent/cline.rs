//! Cline: its entry in the agent table, with its event and tool names.

use super::*;

/// Cline 3.0.65 (npm `cline`, running `@cline/core` 0.0.86): `HookConfigFileName` and `HOOK_CONFIG_FILE_EVENT_MAP` in
/// sdk/packages/core/src/hooks/hook-file-config.ts (the file names, and the `hookName` each sends), and
/// `createHookConfigFileHooks` in hook-file-hooks.ts (which run blocking). Only `PreToolUse` (`tool_call`) and
/// `PostToolUse` (`tool_result`) are awaited and their stdout read; the others run detached with stdout ignored, so
/// a bridge there can observe but never answer. `TaskStart` and `TaskResume` both back `beforeRun`, one run (one
/// submitted prompt) of a task; `TaskComplete` is `afterRun` of a completed run; `SessionShutdown` fires only for an
/// aborted run; `PreCompact` is a file name Cline reads but runs on no event ("not wired for file hooks today",
/// sdk/examples/hooks/README.md).
const EVENTS: &[AgentEvent] = &[
    wired("TaskStart", "agent_start", Some(Event::SessionStart), true, false),
    wired("TaskResume", "agent_resume", Some(Event::SessionStart), false, false),
    wired("UserPromptSubmit", "prompt_submit", Some(Event::TurnStart), true, false),
    wired("PreToolUse", "tool_call", Some(Event::PreTool), true, true),
    wired("PostToolUse", "tool_result", Some(Event::PostTool), true, true),
    wired("TaskComplete", "agent_end", Some(Event::TurnEnd), true, false),
    wired("SessionShutdown", "session_shutdown", Some(Event::SessionEnd), true, false),
    // Its `hookName` would be `pre_compact` (the CLI's hook-name enum has it).
    read_only("PreCompact", Event::Compaction, PLAIN, None).on_the_wire("pre_compact"),
    wired("TaskError", "agent_error", None, false, false),
    wired("TaskCancel", "agent_abort", None, false, false),
];

/// Cline's tools as its hooks name them in `toolName`, its CLI's first, then its VS Code extension's.
///
/// The CLI, 3.0.65 (`@cline/core` 0.0.86): `DefaultToolNames` in sdk/packages/core/src/extensions/tools/constants.ts.
/// `run_commands` takes `{commands: [...]}`; `editor` creates or edits one file.
///
/// The extension through 3.89.2 (its hook reference's `preToolUse.toolName`): `ClineDefaultTool` in
/// apps/vscode/src/shared/tools.ts; `ToolHookUtils.runPreToolUseIfEnabled` sends `{toolName: block.name,
/// parameters: block.params}`, every parameter a string. `execute_command` takes `command` (and
/// `requires_approval`, `timeout`); `read_file`, `write_to_file`, `replace_in_file`, `list_files`, `search_files`
/// and `list_code_definition_names` take the file or directory in `path` (`absolutePath` for the model families
/// whose tool specs use it), `write_to_file` its `content`, `replace_in_file` its `diff`, `search_files` a `regex`.
/// `WriteToFileToolHandler` runs `new_rule` too: it writes a rule file. `list_code_definition_names` reads the
/// definitions out of a directory's source files, one of the tools Cline's own auto-approval counts as reads
/// (`readFiles`). `use_subagents` runs subagents. An MCP tool is `use_mcp_tool` with `server_name` and
/// `tool_name` (a native MCP tool call included: `StreamResponseHandler` turns it into one), which the bridge also
/// reads as `mcp:<server>:<tool>`.
const TOOLS: &[(&str, &str)] = &[
    ("run_commands", "shell"),
    ("execute_command", "shell"),
    ("read_files", "read"),
    ("read_file", "read"),
    ("list_code_definition_names", "read"),
    ("write_to_file", "write"),
    ("new_rule", "write"),
    ("editor", "edit"),
    ("replace_in_file", "edit"),
    ("apply_patch", "edit"),
    ("search_codebase", "grep"),
    ("search_files", "grep"),
    ("list_files", "ls"),
    ("fetch_web_content", "web_fetch"),
    ("web_fetch", "web_fetch"),
    ("web_search", "web_search"),
    ("use_subagents", "task"),
];

/// Cline's tools that mean no canonical tool: the CLI's `skills`, `ask_question` and `submit_and_exit`; the
/// extension's questions, mode switches and task tools, its browser, and its MCP tools by their generic names (the
/// bridge reads `use_mcp_tool`'s server and tool as `mcp:<server>:<tool>` besides).
const OTHER_TOOLS: &[&str] = &[
    "skills",
    "ask_question",
    "submit_and_exit",
    "ask_followup_question",
    "attempt_completion",
    "plan_mode_respond",
    "act_mode_respond",
    "new_task",
    "condense",
    "summarize_task",
    "report_bug",
    "generate_explanation",
    "use_skill",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "load_mcp_documentation",
];

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Cline,
    id: "cline",
    name: "Cline",
    version: Some("3.0.65"),
    events: EVENTS,
    tools: TOOLS,
    other_tools: OTHER_TOOLS,
    mcp: None,
    // `runHookCommand` passes `process.env` unchanged: Cline sets no variable of its own for its hooks. The
    // workspace is in the input (`workspaceRoots`).
    project_env: &[],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    // `resolveHooksConfigSearchPaths` (sdk/packages/shared/src/storage/paths.ts, the same in the 0.0.86 bundle):
    // `~/Documents/Cline/Hooks`, `$CLINE_DIR/hooks` (default `~/.cline/hooks`), then the workspace's
    // `.clinerules/hooks` (its deprecated directory) and `.cline/hooks`; every one is read and every hook in them
    // runs. Install writes the current directories: `.cline/hooks` and `~/Documents/Cline/Hooks`.
    files: AgentFiles {
        project: Some(".cline/hooks"),
        local: None,
        user: Some("Documents/Cline/Hooks"),
        read: &[".clinerules/hooks", ".cline/hooks"],
        overrides: &[],
        read_user: Some(&["Documents/Cline/Hooks", ".cline/hooks"]),
    },
    // Cline 3.0.65 (@cline/core 0.0.86, hooks/hook-file-hooks.ts): `toolCallTimeoutMs ?? 120000` for the
    // PreToolUse and PostToolUse executables; the other events run detached, with no timeout.
    default_timeout_ms: 120_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Millis,
    handler: HandlerShape::EventExecutables,
    posix_shell: true,
    // `parseHookControl`: `cancel` stops the run, `contextModification` (or `context`) is added for the model on
    // the tool events; `review` is read but never acted on for file hooks; no continuation, no message for the
    // user alone.
    answers: Answers { ask: false, continuation: false, system_message: false, ..ALL_ANSWERS },
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::Cline,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    // `hasRuntimeConfigExtension` enables the `hooks` extension by default and asks for no trust.
    trust_note: None,
    // Cline 3.0.65 enables its `hooks` runtime extension by default (`DEFAULT_RUNTIME_CONFIG_EXTENSIONS`,
    // @cline/shared dist/session/runtime-config.d.ts) and asks for no folder trust: no switch to read.
    switches: &[],
    folder_trust: None,
    binary: Some("cline"),
    tool_call_env: &[],
};
