//! JSON Schemas, written by hand, for what a native command hook reads on stdin and may write on stdout
//! (`hook schema --payload`, `hook schema --output`).

use serde_json::{Value, json};

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The JSON Schema (draft 2020-12) of a native hook's JSON output (docs/output-protocol.md#json-output).
///
/// Unknown top-level fields are accepted by the native protocol, so the schema allows them; each effect is strict
/// (closed kinds, no unknown fields), as loading and `interpret` are.
///
/// ```
/// let schema = hook_middleware::protocol::output_schema();
/// assert_eq!(schema["properties"]["decision"]["enum"][0], "block");
/// ```
pub fn output_schema() -> Value {
    let text = json!({"type": "string"});
    json!({
        "$schema": DRAFT,
        "title": "hook output",
        "description": "What a native command hook may print on stdout with exit 0. The first non-space character must be `{`; anything else is plain text. Unknown fields are ignored; a known field of the wrong type makes the run a failure.",
        "type": "object",
        "properties": {
            "effects": {
                "description": "Closed effects, each valid on the firing event (docs/effects.md).",
                "type": "array",
                "items": hook_config::effect_schema(),
            },
            "decision": {
                "description": "A decision: block/deny denies a gate or permission request, continues a turn_end, annotates a post_tool result; approve/allow explicitly allows a tool call.",
                "enum": ["block", "deny", "approve", "allow"],
            },
            "reason": {"description": "Why; shown with a block or allow.", "type": "string"},
            "continue": {"description": "`false` stops the agent's run after this event (a `halt`); on a gate it also denies.", "type": "boolean"},
            "stopReason": {"description": "The reason of `continue: false`.", "type": "string"},
            "systemMessage": {"description": "A message for the operator, not the model (a `notify_operator`).", "type": "string"},
            "suppressOutput": {"description": "Keep this hook's output out of the transcript.", "type": "boolean"},
            "hookSpecificOutput": {
                "type": "object",
                "properties": {
                    "hookEventName": text.clone(),
                    "permissionDecision": {"description": "pre_tool only.", "enum": ["allow", "deny", "ask"]},
                    "permissionDecisionReason": text.clone(),
                    "updatedInput": {"description": "pre_tool: replaces the tool's whole input (a `rewrite_tool_input`).", "type": "object"},
                    "additionalContext": {"description": "Text added to the model's context (an `inject_reminder`).", "type": "string"},
                    "decision": {
                        "description": "permission_request only.",
                        "type": "object",
                        "properties": {
                            "behavior": {"enum": ["allow", "deny"]},
                            "message": text,
                            "updatedInput": {"type": "object"},
                        },
                        "required": ["behavior"],
                    },
                },
            },
        },
    })
}

/// The JSON Schema (draft 2020-12) of the stdin payload a hook reads (docs/events.md#payload; see
/// [`payload`](super::payload) for which fields appear on which event).
///
/// ```
/// let schema = hook_middleware::protocol::payload_schema();
/// assert!(schema["required"].as_array().unwrap().iter().any(|f| f == "transcript_path"));
/// ```
pub fn payload_schema() -> Value {
    let text = |description: &str| json!({"type": "string", "description": description});
    let nullable = |description: &str| json!({"type": ["string", "null"], "description": description});
    let mut schema = json!({
        "$schema": DRAFT,
        "title": "hook payload",
        "description": "One compact JSON object on stdin, then a newline. Fields are left out when the host gave no value, except the nullable base fields.",
        "type": "object",
        "properties": {
            "event": text("The firing event in the hook's protocol's spelling (pre_tool, PreToolUse, BeforeTool, beforeShellExecution…)."),
            "hook_event_name": text("The same as `event` (Claude Code and Codex name)."),
            "session_id": nullable("The host's session id."),
            "turn_id": text("The host's turn id."),
            "transcript_path": nullable("Where the host keeps the transcript."),
            "cwd": nullable("The agent's working directory."),
            "model": text("The model in use."),
            "permission_mode": text("The host's permission mode."),
            "tool": text("Tool events: the tool's name."),
            "tool_name": text("The same as `tool`."),
            "input": {"description": "Tool events: the tool's input."},
            "tool_input": {"description": "The same as `input`."},
            "tool_use_id": text("Tool events: the host's id for this call."),
            "commands": {"type": "array", "description": "Shell calls: the simple commands the line runs, as hook-shell reads them (docs/shell-commands.md#in-the-payload-and-in-rego).",
                         "items": {"type": "object", "required": ["program", "args", "argv"], "properties": {
                             "program": {"type": "string"}, "args": {"type": "array", "items": {"type": "string"}},
                             "argv": {"type": "array", "items": {"type": "string"}}, "via": {"type": "array", "items": {"type": "string"}},
                             "piped_from": {"type": "string"}, "dynamic": {"type": "boolean"}}}},
            "unknown_commands": {"type": "array", "description": "Shell calls: the parts of the line that cannot be read statically, each with its reason.",
                                 "items": {"type": "object", "required": ["reason", "text"], "properties": {
                                     "reason": {"type": "string"}, "text": {"type": "string"}}}},
            "tool_response": {"description": "post_tool: what the tool returned."},
            "is_error": {"type": "boolean", "description": "post_tool: whether the call failed."},
            "content": {"type": "string", "maxLength": super::CONTENT_LIMIT_CHARS, "description": "post_tool: the first 4 000 characters of the result the model sees."},
            "prompt": text("turn_start: the user's prompt."),
            "source": text("session_start: startup, resume, clear or compact."),
            "trigger": text("compaction: manual or auto."),
            "stop_hook_active": {"type": "boolean", "description": "turn_end: the run already continues because of a turn_end hook."},
            "agent_id": text("The subagent's id."),
            "agent_type": text("The subagent's type."),
            "conversation_id": text("cursor only: the session id."),
            "generation_id": text("cursor only: the turn id."),
            "workspace_roots": {"type": "array", "items": {"type": "string"}, "description": "cursor only: `[cwd]`."},
            "command": text("cursor only, tool events: the tool input's `command`."),
            "file_path": text("cursor only, tool events: the tool input's `file_path` (or `path`)."),
            "sessionId": text("copilot only: the session id."),
            "transcriptPath": text("copilot only: the transcript's path."),
            "toolName": text("copilot only, tool events: the tool's name in GitHub Copilot CLI's spelling (`bash`)."),
            "toolArgs": {"description": "copilot only, tool events: the tool input."},
            "toolResult": {"type": "object", "description": "copilot only, post_tool of a call that succeeded: `resultType` and `textResultForLlm` (the first 4 000 characters of the result)."},
            "error": text("copilot only, post_tool of a failed call: the error the model sees."),
            "stopReason": text("copilot only, turn_end: `end_turn`."),
        },
        "required": ["event", "hook_event_name", "session_id", "transcript_path", "cwd"],
        // Anything else is an agent's own field, passed through by the bridge to that agent's hooks only: a schema
        // that refused it would refuse the input the agent documents.
        "additionalProperties": {"description": "Through `hook bridge` only, for a hook of the invoking agent's protocol: a field of that agent's hook input the engine has no name for (Claude Code's `last_assistant_message`, Gemini CLI's `prompt_response`, Cursor's `status`), as the agent sent it."},
    });
    let object = |description: &str| json!({"type": "object", "description": description});
    let cline = [
        ("hookName", text("cline only: Cline's name of the event (`tool_call`, `tool_result`, `agent_start`, …).")),
        ("taskId", text("cline only: the session id.")),
        (
            "workspaceRoots",
            json!({"type": "array", "items": {"type": "string"}, "description": "cline only: `[cwd]`."}),
        ),
        ("tool_call", object("cline only, pre_tool: `{id, name, input}` of the call.")),
        ("preToolUse", object("cline only, pre_tool: `{toolName, parameters}`, each parameter a string.")),
        ("tool_result", object("cline only, post_tool: `{id, name, input, output, error}` of the call.")),
        ("postToolUse", object("cline only, post_tool: `{toolName, parameters, result, success}`.")),
        ("userPromptSubmit", object("cline only, turn_start: `{prompt, attachments}`.")),
    ];
    if let Some(properties) = schema["properties"].as_object_mut() {
        for (name, field) in cline {
            properties.insert(name.into(), field);
        }
    }
    schema
}
