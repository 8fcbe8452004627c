//! Crush: its entry in the agent table, with its event and tool names.

use super::*;

/// Crush (Charm), its source at commit 37f36e9 (nightly of 2026-08-21): `internal/hooks` and `docs/hooks/README.md`.
/// It runs one event, `PreToolUse`, on the top-level agent's tool calls only (its sub-agents run no hooks); event names
/// are read case-insensitively and snake-caseable (`pre_tool_use`), which this table does not spell.
const EVENTS: &[AgentEvent] = &[ev("PreToolUse", Event::PreTool)];

/// Crush's tools as its hooks' `tool_name` names them (the `…ToolName` constants of `internal/agent/tools`). An MCP
/// tool is `mcp_<server>_<tool>`, which names no server apart from its tool: placed by its own name only.
const TOOLS: &[(&str, &str)] = &[
    ("bash", "shell"),
    ("view", "read"),
    ("write", "write"),
    ("edit", "edit"),
    ("multiedit", "edit"),
    ("glob", "glob"),
    ("grep", "grep"),
    ("ls", "ls"),
    ("fetch", "web_fetch"),
    ("web_fetch", "web_fetch"),
    ("agentic_fetch", "web_fetch"),
    ("web_search", "web_search"),
    ("agent", "task"),
    ("todos", "todo"),
];

/// Crush's tools that mean no canonical tool.
const OTHER_TOOLS: &[&str] = &[
    "download",
    "sourcegraph",
    "job_output",
    "job_kill",
    "question",
    "crush_info",
    "crush_logs",
    "list_mcp_resources",
    "read_mcp_resource",
    "lsp_diagnostics",
    "lsp_references",
    "lsp_definition",
    "lsp_call_hierarchy",
    "lsp_rename",
    "lsp_replace_symbol",
    "lsp_symbols",
    "lsp_restart",
];

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Crush,
    id: "crush",
    name: "Crush",
    // Read from its source, not run here: its npm package downloads its executable at install time.
    version: None,
    events: EVENTS,
    tools: TOOLS,
    other_tools: OTHER_TOOLS,
    mcp: None,
    // `BuildEnv` (internal/hooks/input.go): `CRUSH_PROJECT_DIR`, `CRUSH_SESSION_ID`, `CRUSH_CWD` beside the
    // payload.
    project_env: &["CRUSH_PROJECT_DIR"],
    session_env: Some("CRUSH_SESSION_ID"),
    cwd_env: Some("CRUSH_CWD"),
    // `BuildEnv` and `shell.CrushEnvMarkers`: the event, the tool, the command and file path of its input, and the
    // markers every hook and the `bash` tool see. A hook moved out of `crush.json` reads them as it did in Crush.
    tool_env: Some(ToolEnv {
        event: "CRUSH_EVENT",
        tool_name: "CRUSH_TOOL_NAME",
        input_fields: &[("command", "CRUSH_TOOL_INPUT_COMMAND"), ("file_path", "CRUSH_TOOL_INPUT_FILE_PATH")],
        markers: &[("CRUSH", "1"), ("AGENT", "crush"), ("AI_AGENT", "crush")],
    }),
    // `lookupConfigs` (internal/config/load.go): the user's `~/.config/crush/crush.json`, then from the git root down
    // to the working directory `crush.json` and `.crush.json` (the hidden one wins a key both set). Install writes
    // `crush.json`, the file its hooks guide configures.
    files: AgentFiles {
        project: Some("crush.json"),
        local: None,
        user: Some(".config/crush/crush.json"),
        read: &["crush.json", ".crush.json"],
        overrides: &[],
        read_user: Some(&[".config/crush/crush.json"]),
    },
    // "timeout: in seconds; default 30".
    default_timeout_ms: 30_000,
    timeout_bounds_ms: None,
    // A hook that times out or exits with another code than 0, 2 and 49 is "no opinion": the call proceeds.
    failure: DefaultFailure::Open,
    timeout_unit: TimeUnit::Seconds,
    handler: HandlerShape::Flat { versioned: false },
    // Crush runs a handler's command in its embedded interpreter (mvdan.cc/sh), not a POSIX `sh`: install writes its
    // fail-closed wrapper inside `sh -c '…'`.
    posix_shell: false,
    // `parseStdout` reads Claude Code's `hookSpecificOutput` (allow | deny, its reason, `updatedInput`,
    // `additionalContext`) as well as its own envelope; no ask, no continuation, no message for the user alone.
    answers: Answers { ask: false, continuation: false, system_message: false, ..ALL_ANSWERS },
    vocabulary: Vocabulary {
        answer_keys: &["version", "decision", "halt", "reason", "context", "updated_input", "hookSpecificOutput"],
        handler_keys: &["name", "matcher", "command", "timeout"],
        handler_types: &[],
        decisions: &["allow", "deny"],
    },
    wire: WireShape::Crush,
    json_comments: false,
    hooks_switches: &[],
    bridge: true,
    trust_note: None,
    switches: &[],
    folder_trust: None,
    binary: Some("crush"),
    tool_call_env: &[],
};
