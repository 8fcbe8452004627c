//! The stdin payload of a command hook (docs/events.md#payload).

use hook_types::{Event, Protocol};
use serde_json::{Map, Value};

use super::names::event_name;
use crate::EventInput;

/// How many characters of a post_tool result's `content` the payload carries.
pub const CONTENT_LIMIT_CHARS: usize = 4_000;

/// The stdin payload for a hook of `protocol`: one compact JSON object (no whitespace between tokens, as Claude Code
/// sends it, because real hooks grep for `"transcript_path":"`), then `\n`.
///
/// Fields carry both the native and the Claude/Codex names: `event` and `hook_event_name` (the event in the protocol's
/// spelling, see [`event_name`]), `session_id`, `turn_id`, `transcript_path`, `cwd`, `model`, `permission_mode`;
/// on tool events `tool` and `tool_name`, `input` and `tool_input`, `tool_use_id`; on post_tool `tool_response`,
/// `is_error` and `content` (its first [`CONTENT_LIMIT_CHARS`] characters); on a shell call `commands` (and
/// `unknown_commands`), what its line runs; `prompt` on turn_start, `source` on
/// session_start, `trigger` on compaction, `stop_hook_active` on turn_end; `agent_id` and `agent_type` for a subagent.
///
/// `session_id`, `transcript_path` and `cwd` are always present (`null` when the host gave none), as Claude Code and
/// Codex always send them; every other field is left out when the host gave no value, so a hook can test presence.
/// Key order is fixed, so the same input gives the same bytes. For `cursor`, Cursor's own names follow (see
/// [`payload_object`]); last, for a hook of the protocol of the agent whose input it was, the fields of that input the
/// engine has no name for ([`EventInput::extra`]). When the input came from that agent through the bridge, such a
/// hook reads the agent's own payload: the agent's keys, in the agent's order, and no other, compact, ending with a
/// newline exactly when the agent's own input did ([`AgentFields::newline`](crate::AgentFields::newline)).
///
/// ```
/// use hook_middleware::{EventInput, protocol::payload};
/// use hook_types::{Event, Protocol};
/// let mut input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "ls"}));
/// input.transcript_path = Some("/tmp/t.jsonl".into());
/// let bytes = payload(Protocol::Claude, &input);
/// let text = std::str::from_utf8(&bytes).unwrap();
/// assert!(text.starts_with(r#"{"event":"PreToolUse","hook_event_name":"PreToolUse","session_id":null,"#));
/// assert!(text.contains(r#""transcript_path":"/tmp/t.jsonl""#) && text.ends_with("}\n"));
/// ```
pub fn payload(protocol: Protocol, input: &EventInput) -> Vec<u8> {
    let object = payload_object(protocol, input);
    // Serializing a map of JSON values cannot fail: every key is a string.
    let mut bytes = serde_json::to_vec(&Value::Object(object)).unwrap_or_else(|_| b"{}".to_vec());
    let agents_own = input.extra.as_ref().filter(|extra| extra.protocol == protocol && !extra.keys.is_empty());
    if agents_own.is_none_or(|extra| extra.newline) {
        bytes.push(b'\n');
    }
    bytes
}

/// The payload as a JSON object, before serialization (what [`payload`] writes).
///
/// For a `cursor` hook it also carries Cursor's names for the same facts, since Cursor hooks read them:
/// `conversation_id` (the session id), `generation_id` (the turn id), `workspace_roots` (`[cwd]`), and on tool events
/// `command` and `file_path` lifted from the tool input. For a `copilot` hook, GitHub Copilot CLI's camelCase names
/// (`sessionId`, `toolName`, `toolArgs`, `toolResult`, …).
pub fn payload_object(protocol: Protocol, input: &EventInput) -> Map<String, Value> {
    let name = event_name(protocol, input).into_owned();
    let mut out = Map::new();
    out.insert("event".into(), Value::String(name.clone()));
    out.insert("hook_event_name".into(), Value::String(name));
    out.insert("session_id".into(), opt_str(&input.session_id));
    put(&mut out, "turn_id", &input.turn_id);
    out.insert("transcript_path".into(), opt_str(&input.transcript_path));
    out.insert("cwd".into(), opt_str(&input.cwd));
    put(&mut out, "model", &input.model);
    put(&mut out, "permission_mode", &input.permission_mode);

    let event = &input.event;
    if event.is_tool_event() {
        if let Some(tool) = &input.tool_name {
            let canonical = hook_types::canonical_tool(tool);
            let spelled = canonical.as_deref().and_then(|c| hook_types::tool_name_for(protocol, c, tool));
            let canonical = canonical.map_or_else(|| tool.clone(), |c| c.into_owned());
            let spelled = spelled.map_or_else(|| tool.clone(), |s| s.into_owned());
            out.insert("tool".into(), Value::String(canonical));
            out.insert("tool_name".into(), Value::String(spelled));
        }
        if let Some(tool_input) = &input.tool_input {
            out.insert("input".into(), tool_input.clone());
            out.insert("tool_input".into(), tool_input.clone());
        }
        put(&mut out, "tool_use_id", &input.tool_use_id);
        shell_commands(&mut out, input);
    }
    match event {
        Event::PostTool => {
            if let Some(response) = &input.tool_response {
                out.insert("tool_response".into(), response.clone());
            }
            out.insert("is_error".into(), Value::Bool(input.is_error));
            if let Some(content) = &input.content {
                out.insert("content".into(), Value::String(first_chars(content, CONTENT_LIMIT_CHARS)));
            }
        }
        Event::TurnStart => put(&mut out, "prompt", &input.prompt),
        Event::SessionStart => put(&mut out, "source", &input.source),
        Event::Compaction => put(&mut out, "trigger", &input.trigger),
        Event::TurnEnd => {
            out.insert("stop_hook_active".into(), Value::Bool(input.stop_hook_active));
        }
        _ => {}
    }
    put(&mut out, "agent_id", &input.agent_id);
    put(&mut out, "agent_type", &input.agent_type);
    if protocol == Protocol::Cursor {
        cursor_fields(&mut out, input);
    }
    if protocol == Protocol::Cline {
        cline_fields(&mut out, input);
    }
    if protocol == Protocol::Copilot {
        copilot_fields(&mut out, input);
    }
    agent_fields(&mut out, protocol, input);
    out
}

/// On a shell call, the commands its line runs as `hook-shell` reads them (docs/shell-commands.md#in-the-payload-and-in-rego):
/// `commands`, each `{program, args, argv, via?, piped_from?, dynamic?}`, and `unknown_commands`, each `{reason,
/// text}`, when part of the line cannot be read statically.
fn shell_commands(out: &mut Map<String, Value>, input: &EventInput) {
    let shell = input.tool_name.as_deref().and_then(hook_types::canonical_tool);
    if shell.as_deref() != Some("shell") {
        return;
    }
    let Some(analysis) = hook_config::shell_analysis(input.tool_input.as_ref()) else { return };
    out.insert("commands".into(), serde_json::to_value(&analysis.commands).unwrap_or(Value::Null));
    if !analysis.unknown.is_empty() {
        out.insert("unknown_commands".into(), serde_json::to_value(&analysis.unknown).unwrap_or(Value::Null));
    }
}

/// The fields of the agent's own input the engine has no name for ([`EventInput::extra`]), for a hook of that
/// agent's protocol only, and never in place of a field the payload already carries. When the input came from that
/// agent ([`AgentFields::keys`](crate::AgentFields::keys)), the payload then takes the agent's own shape: its keys,
/// in its order, and no other.
fn agent_fields(out: &mut Map<String, Value>, protocol: Protocol, input: &EventInput) {
    let Some(extra) = input.extra.as_ref().filter(|extra| extra.protocol == protocol) else { return };
    for (key, value) in &extra.fields {
        if !out.contains_key(key) {
            out.insert(key.clone(), value.clone());
        }
    }
    if !extra.keys.is_empty() {
        let mut shaped = Map::with_capacity(extra.keys.len());
        for key in &extra.keys {
            if let Some((key, value)) = out.remove_entry(key) {
                shaped.insert(key, value);
            }
        }
        *out = shaped;
    }
}

/// Cursor's own names for what the payload already carries, so a hook written for Cursor finds what it reads:
/// `conversation_id`, `generation_id`, `workspace_roots`, and on tool events `command` (shell) and `file_path`.
fn cursor_fields(out: &mut Map<String, Value>, input: &EventInput) {
    put(out, "conversation_id", &input.session_id);
    put(out, "generation_id", &input.turn_id);
    if let Some(cwd) = &input.cwd {
        out.insert("workspace_roots".into(), Value::Array(vec![Value::String(cwd.clone())]));
    }
    if !input.event.is_tool_event() {
        return;
    }
    let tool_input = input.tool_input.as_ref().and_then(Value::as_object);
    for (field, keys) in [("command", &["command"][..]), ("file_path", &["file_path", "path"][..])] {
        let found = keys.iter().find_map(|key| tool_input.and_then(|t| t.get(*key)).and_then(Value::as_str));
        if let Some(found) = found {
            out.insert(field.into(), Value::String(found.to_owned()));
        }
    }
}

/// Cline's own names (`createPayloadBase` and the per-event objects of its hook-file-hooks.ts), so a hook written
/// for Cline finds what it reads: `hookName` (`tool_call`, …), `taskId`, `workspaceRoots`; on pre_tool `tool_call`
/// and `preToolUse` (`toolName`, `parameters` with every value a string, as its `mapParams` makes them); on
/// post_tool `tool_result` and `postToolUse` (`result`, `success`); on turn_start `userPromptSubmit`.
fn cline_fields(out: &mut Map<String, Value>, input: &EventInput) {
    use serde_json::json;
    let name = out.get("hook_event_name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let wire = Protocol::Cline.agent().event(&name).and_then(|row| row.wire_name).unwrap_or(name.as_str()).to_owned();
    out.insert("hookName".into(), Value::String(wire));
    put(out, "taskId", &input.session_id);
    if let Some(cwd) = &input.cwd {
        out.insert("workspaceRoots".into(), Value::Array(vec![Value::String(cwd.clone())]));
    }
    let tool = out.get("tool_name").cloned().unwrap_or(Value::Null);
    let tool_input = input.tool_input.clone().unwrap_or(Value::Null);
    let parameters: Map<String, Value> = tool_input
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), Value::String(v.as_str().map_or_else(|| v.to_string(), str::to_owned))))
                .collect()
        })
        .unwrap_or_default();
    match &input.event {
        Event::PreTool => {
            out.insert(
                "tool_call".into(),
                json!({"id": opt_str(&input.tool_use_id), "name": tool, "input": tool_input}),
            );
            out.insert("preToolUse".into(), json!({"toolName": tool, "parameters": parameters}));
        }
        Event::PostTool => {
            let output = input.tool_response.clone().unwrap_or(Value::Null);
            let result = input.content.clone().unwrap_or_else(|| match &output {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            let mut record =
                json!({"id": opt_str(&input.tool_use_id), "name": tool, "input": tool_input, "output": output});
            if input.is_error {
                record["error"] = Value::String(result.clone());
            }
            out.insert("tool_result".into(), record);
            out.insert(
                "postToolUse".into(),
                json!({"toolName": tool, "parameters": parameters, "result": result, "success": !input.is_error}),
            );
        }
        Event::TurnStart => {
            out.insert("userPromptSubmit".into(), json!({"prompt": opt_str(&input.prompt), "attachments": []}));
        }
        _ => {}
    }
}

/// GitHub Copilot CLI's camelCase names for what the payload already carries (its hooks reference, "Hook event input
/// payloads"): `sessionId`, `transcriptPath`; on tool events `toolName` (its spelling) and `toolArgs`; on post_tool
/// `toolResult` (`resultType`, `textResultForLlm`) for a call that succeeded and `error` for one that failed;
/// `stopReason` on turn_end. Its `timestamp` is the agent's own: a payload built here carries none (the bridge
/// passes the agent's through).
fn copilot_fields(out: &mut Map<String, Value>, input: &EventInput) {
    put(out, "sessionId", &input.session_id);
    put(out, "transcriptPath", &input.transcript_path);
    if input.event.is_tool_event() {
        if let Some(name) = out.get("tool_name").cloned() {
            out.insert("toolName".into(), name);
        }
        if let Some(args) = &input.tool_input {
            out.insert("toolArgs".into(), args.clone());
        }
    }
    match &input.event {
        Event::PostTool if input.is_error => put(out, "error", &input.content),
        Event::PostTool => {
            let text = input.content.as_deref().map(|c| first_chars(c, CONTENT_LIMIT_CHARS)).unwrap_or_default();
            let result = serde_json::json!({"resultType": "success", "textResultForLlm": text});
            out.insert("toolResult".into(), result);
        }
        Event::TurnEnd => {
            out.insert("stopReason".into(), Value::String("end_turn".into()));
        }
        _ => {}
    }
}

fn opt_str(value: &Option<String>) -> Value {
    value.as_ref().map_or(Value::Null, |s| Value::String(s.clone()))
}

fn put(out: &mut Map<String, Value>, key: &str, value: &Option<String>) {
    if let Some(value) = value {
        out.insert(key.into(), Value::String(value.clone()));
    }
}

/// The first `limit` characters (not bytes: a cut never splits a character).
fn first_chars(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}
