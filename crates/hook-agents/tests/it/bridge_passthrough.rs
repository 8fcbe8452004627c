//! What an agent sends reaches that agent's hooks through the bridge as the agent sends it: the bridge's input parser
//! keeps the fields the engine has no name for in `EventInput::extra`, with the order of every key, and the payload of
//! a hook of the same protocol has exactly the agent's keys in the agent's order — an extra field never in place of
//! one of the payload's own, never shown to a hook of another protocol (each agent names its fields its own way).

use hook_agents::bridge::parse_input;
use hook_agents::install::Agent;
use hook_middleware::protocol::payload;
use hook_middleware::{AgentFields, EventInput};
use hook_types::{Event, Protocol};
use serde_json::{Map, Value, json};

/// `stdin` read as `agent`'s hook input, then the payload a hook of each of `protocols` would read.
fn check(agent: Agent, stdin: Value, protocols: &[Protocol]) -> (EventInput, Vec<Map<String, Value>>) {
    let read = parse_input(agent, stdin.to_string().as_bytes()).unwrap();
    let payloads = protocols
        .iter()
        .map(|protocol| match serde_json::from_slice(&payload(*protocol, &read.input)).unwrap() {
            Value::Object(object) => object,
            other => panic!("not an object: {other}"),
        })
        .collect();
    (read.input, payloads)
}

fn keys(fields: &Map<String, Value>) -> Vec<&str> {
    fields.keys().map(String::as_str).collect()
}

#[test]
fn a_claude_stop_hook_reads_last_assistant_message_and_no_other_agents_hook_does() {
    let stdin = json!({"hook_event_name": "Stop", "session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/ws",
        "permission_mode": "default", "stop_hook_active": false, "last_assistant_message": "All tests pass."});
    let (input, payloads) = check(Agent::Claude, stdin, &[Protocol::Claude, Protocol::Native, Protocol::Codex]);
    let extra = input.extra.as_ref().unwrap();
    assert_eq!(extra.protocol, Protocol::Claude);
    assert_eq!(keys(&extra.fields), ["last_assistant_message"], "what the engine carries itself is not kept twice");
    let [claude, native, codex] = &payloads[..] else { unreachable!() };
    assert_eq!(claude["last_assistant_message"], "All tests pass.");
    assert_eq!(keys(claude).last(), Some(&"last_assistant_message"), "after the payload's own fields: {claude:?}");
    assert_eq!(claude["stop_hook_active"], false);
    assert!(!native.contains_key("last_assistant_message") && !codex.contains_key("last_assistant_message"));
}

#[test]
fn a_field_the_engine_reads_under_another_name_or_carries_on_other_events_only_passes_through() {
    // Claude Code's `error` becomes the engine's `content`; a Claude hook still finds `error`.
    let stdin = json!({"hook_event_name": "PostToolUseFailure", "session_id": "s", "cwd": "/ws", "tool_name": "Bash",
        "tool_input": {"command": "make"}, "tool_use_id": "t1", "error": "exit 2", "is_interrupt": false});
    let (input, payloads) = check(Agent::Claude, stdin, &[Protocol::Claude]);
    assert_eq!(keys(&input.extra.unwrap().fields), ["error", "is_interrupt"]);
    assert_eq!((payloads[0]["error"].as_str(), payloads[0].get("content")), (Some("exit 2"), None));

    // Gemini CLI's AfterAgent sends the prompt too, which the payload carries on turn_start only.
    let stdin = json!({"hook_event_name": "AfterAgent", "session_id": "s", "cwd": "/ws", "prompt": "fix it",
        "prompt_response": "done", "stop_hook_active": false});
    let (_, payloads) = check(Agent::Gemini, stdin, &[Protocol::Gemini]);
    assert_eq!(
        (payloads[0]["prompt"].as_str(), payloads[0]["prompt_response"].as_str()),
        (Some("fix it"), Some("done"))
    );

    // Cursor's stop: `loop_count` is read as stop_hook_active, `status` has no name here; both reach a Cursor hook.
    let stdin = json!({"hook_event_name": "stop", "conversation_id": "c1", "generation_id": "g1",
        "workspace_roots": ["/ws"], "status": "completed", "loop_count": 1});
    let (input, payloads) = check(Agent::Cursor, stdin, &[Protocol::Cursor]);
    assert!(input.stop_hook_active);
    assert_eq!(keys(&input.extra.unwrap().fields), ["status", "loop_count"]);
    assert_eq!((payloads[0]["status"].as_str(), payloads[0]["loop_count"].as_u64()), (Some("completed"), Some(1)));
}

#[test]
fn an_input_with_nothing_left_over_keeps_only_its_key_order() {
    let stdin = json!({"hook_event_name": "PreToolUse", "session_id": "s", "transcript_path": "/t", "cwd": "/ws",
        "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"});
    let (input, _) = check(Agent::Claude, stdin, &[]);
    let extra = input.extra.unwrap();
    assert!(extra.fields.is_empty());
    assert_eq!(extra.keys[..3], ["hook_event_name", "session_id", "transcript_path"]);
}

#[test]
fn a_claude_hook_reads_claudes_own_payload_byte_for_byte() {
    // Claude Code 2.1.332's PreToolUse input, as its hooks read it (the real-agent suite compares the shape).
    let stdin = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/ws","prompt_id":"p1","permission_mode":"default","effort":"medium","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch SENTINEL","description":"step"},"tool_use_id":"toolu_1"}"#;
    let read = parse_input(Agent::Claude, format!("{stdin}\n").as_bytes()).unwrap();
    assert_eq!(payload(Protocol::Claude, &read.input), format!("{stdin}\n").into_bytes());
    // A hook of another protocol still reads the engine's own payload, with both spellings.
    let native: Value = serde_json::from_slice(&payload(Protocol::Native, &read.input)).unwrap();
    assert_eq!((native["tool"].as_str(), native["tool_name"].as_str()), (Some("shell"), Some("shell")));
    assert!(native.get("prompt_id").is_none());
    // Gemini CLI ends its input without a newline, and so does the payload of its hooks.
    let stdin = r#"{"session_id":"s","transcript_path":"/t.json","cwd":"/ws","hook_event_name":"BeforeAgent","timestamp":"2026-01-01T00:00:00.000Z","prompt":"hi"}"#;
    let read = parse_input(Agent::Gemini, stdin.as_bytes()).unwrap();
    assert_eq!(payload(Protocol::Gemini, &read.input), stdin.as_bytes());
}

#[test]
fn a_codex_and_a_gemini_hook_read_their_agents_keys_in_their_agents_order() {
    let stdin = json!({"session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": "/ws",
        "hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "bypassPermissions", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_use_id": "c1"});
    let (_, payloads) = check(Agent::Codex, stdin.clone(), &[Protocol::Codex]);
    assert_eq!(Value::Object(payloads[0].clone()), stdin);
    assert_eq!(keys(&payloads[0]), keys(stdin.as_object().unwrap()));
    let stdin = json!({"session_id": "s", "transcript_path": "/t.json", "cwd": "/ws", "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00.000Z", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
    let (_, payloads) = check(Agent::Gemini, stdin.clone(), &[Protocol::Gemini]);
    assert_eq!(keys(&payloads[0]), keys(stdin.as_object().unwrap()));
}

#[test]
fn an_extra_field_never_replaces_a_field_of_the_payload() {
    let mut input = EventInput::new(Event::PreTool).with_tool("Bash", json!({"command": "ls"})).with_session("real");
    let forged = json!({"session_id": "forged", "hook_event_name": "Stop", "tool_input": {"command": "rm -rf /"},
        "workspace_roots": ["/elsewhere"], "conversation_id": "forged", "note": "kept"});
    let Value::Object(fields) = forged else { unreachable!() };
    for protocol in [Protocol::Claude, Protocol::Cursor] {
        input.extra = Some(AgentFields { protocol, fields: fields.clone(), keys: Vec::new(), newline: false });
        input.cwd = Some("/ws".into());
        let out: Value = serde_json::from_slice(&payload(protocol, &input)).unwrap();
        assert_eq!(out["session_id"], "real", "{protocol}");
        assert_eq!(out["tool_input"], json!({"command": "ls"}), "{protocol}");
        assert_ne!(out["hook_event_name"], "Stop", "{protocol}");
        assert_eq!(out["note"], "kept", "{protocol}");
        if protocol == Protocol::Cursor {
            assert_eq!((out["conversation_id"].as_str(), &out["workspace_roots"]), (Some("real"), &json!(["/ws"])));
        }
    }
}
