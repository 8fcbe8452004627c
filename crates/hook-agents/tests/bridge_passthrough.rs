//! What an agent sends that the engine has no name for reaches that agent's hooks through the bridge: the bridge's
//! input parser keeps those fields in `EventInput::extra`, and the payload of a hook of the same protocol carries them
//! after its own fields — never in place of one, never to a hook of another protocol (each agent names its fields its
//! own way).

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
    assert_eq!((payloads[0]["error"].as_str(), payloads[0]["content"].as_str()), (Some("exit 2"), Some("exit 2")));

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
fn an_input_with_nothing_left_over_has_no_extra() {
    let stdin = json!({"hook_event_name": "PreToolUse", "session_id": "s", "transcript_path": "/t", "cwd": "/ws",
        "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"});
    let (input, _) = check(Agent::Claude, stdin, &[]);
    assert_eq!(input.extra, None);
}

#[test]
fn an_extra_field_never_replaces_a_field_of_the_payload() {
    let mut input = EventInput::new(Event::PreTool).with_tool("Bash", json!({"command": "ls"})).with_session("real");
    let forged = json!({"session_id": "forged", "hook_event_name": "Stop", "tool_input": {"command": "rm -rf /"},
        "workspace_roots": ["/elsewhere"], "conversation_id": "forged", "note": "kept"});
    let Value::Object(fields) = forged else { unreachable!() };
    for protocol in [Protocol::Claude, Protocol::Cursor] {
        input.extra = Some(AgentFields { protocol, fields: fields.clone() });
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
