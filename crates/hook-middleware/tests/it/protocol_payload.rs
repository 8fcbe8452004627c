//! The stdin payload (docs/events.md#payload): its fields per protocol and event class (insta snapshots), its compact
//! bytes, the event spelled in each protocol, the post_tool content cut.

use hook_middleware::EventInput;
use hook_middleware::protocol::{CONTENT_LIMIT_CHARS, event_name, payload};
use hook_types::{CANONICAL_EVENTS, Event, Protocol};
use serde_json::{Value, json};

/// A dispatch input with every field a host may fill, for `event`.
fn full_input(event: Event) -> EventInput {
    let mut input = EventInput::new(event)
        .with_tool("shell", json!({"command": "cargo test", "timeout_ms": 60000}))
        .with_session("sess-1");
    input.turn_id = Some("turn-7".into());
    input.cwd = Some("/work/repo".into());
    input.transcript_path = Some("/home/u/.hooks/sess-1.jsonl".into());
    input.model = Some("model-x".into());
    input.permission_mode = Some("default".into());
    input.tool_use_id = Some("call-3".into());
    input.tool_response = Some(json!({"exit_code": 1, "stdout": "1 failed"}));
    input.is_error = true;
    input.content = Some("test result: FAILED. 41 passed; 1 failed".into());
    input.prompt = Some("fix the flaky test".into());
    input.source = Some("startup".into());
    input.trigger = Some("auto".into());
    input.stop_hook_active = true;
    input.agent_id = Some("agent-2".into());
    input.agent_type = Some("reviewer".into());
    input
}

fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("the payload is JSON")
}

#[test]
fn payload_snapshot_per_protocol_and_event_class() {
    // One event of each class: pre_tool (gate), turn_end (decision), post_tool (observer).
    for protocol in Protocol::ALL {
        for (class, event) in [("gate", Event::PreTool), ("decision", Event::TurnEnd), ("observer", Event::PostTool)] {
            let value = parse(&payload(protocol, &full_input(event)));
            insta::assert_yaml_snapshot!(format!("payload_{protocol}_{class}"), value);
        }
    }
}

#[test]
fn payload_is_compact_json_then_one_newline() {
    let mut events: Vec<Event> = CANONICAL_EVENTS.to_vec();
    events.push(Event::Foreign("SubagentStart".into()));
    for protocol in Protocol::ALL {
        for event in &events {
            let bytes = payload(protocol, &full_input(event.clone()));
            let (body, last) = bytes.split_at(bytes.len() - 1);
            assert_eq!(last, b"\n", "{protocol} {event}: the payload ends with one newline");
            assert!(!body.contains(&b'\n'), "{protocol} {event}: one line");
            // No whitespace between tokens: re-serializing compactly gives the same bytes.
            let compact = serde_json::to_vec(&parse(body)).unwrap();
            assert_eq!(body, &compact[..], "{protocol} {event}: not compact");
            // What real hooks grep for.
            let text = std::str::from_utf8(body).unwrap();
            assert!(text.contains(r#""transcript_path":"/home/u/.hooks/sess-1.jsonl""#), "{protocol} {event}: {text}");
            assert!(text.starts_with(r#"{"event":""#), "{protocol} {event}: {text}");
        }
    }
}

#[test]
fn payload_without_host_values_keeps_base_fields_as_null() {
    let value = parse(&payload(Protocol::Codex, &EventInput::new(Event::TurnStart)));
    assert_eq!(
        value,
        json!({"event": "UserPromptSubmit", "hook_event_name": "UserPromptSubmit", "session_id": null,
               "transcript_path": null, "cwd": null})
    );
}

#[test]
fn post_tool_content_is_cut_at_4000_characters_not_bytes() {
    let mut input = EventInput::new(Event::PostTool);
    // Multi-byte characters: a byte cut would split one.
    input.content = Some("é".repeat(CONTENT_LIMIT_CHARS + 10));
    let value = parse(&payload(Protocol::Native, &input));
    let content = value["content"].as_str().unwrap();
    assert_eq!(content.chars().count(), 4_000);
    input.content = Some("short".into());
    assert_eq!(parse(&payload(Protocol::Native, &input))["content"], "short");
}

#[test]
fn event_names_follow_each_protocol() {
    use Protocol::*;
    let names = |event: Event| -> Vec<String> {
        Protocol::ALL.iter().take(7).map(|p| event_name(*p, &EventInput::new(event.clone())).into_owned()).collect()
    };
    // Qwen Code and Factory Droid spell every event as Claude Code does (Droid, which has no permission request,
    // gets the name its hook authors would guess, Claude Code's).
    for event in hook_types::CANONICAL_EVENTS.iter() {
        let input = EventInput::new(event.clone());
        assert_eq!(event_name(Qwen, &input), event_name(Claude, &input), "{event}");
        assert_eq!(event_name(Droid, &input), event_name(Claude, &input), "{event}");
    }
    // Columns: native, claude, codex, gemini, cursor, mecha, clio (the first seven of Protocol::ALL).
    let table: [(Event, [&str; 7]); 9] = [
        (
            Event::SessionStart,
            [
                "session_start",
                "SessionStart",
                "SessionStart",
                "SessionStart",
                "sessionStart",
                "session_start",
                "session_start",
            ],
        ),
        (
            Event::TurnStart,
            [
                "turn_start",
                "UserPromptSubmit",
                "UserPromptSubmit",
                "BeforeAgent",
                "beforeSubmitPrompt",
                "turn_start",
                "turn_start",
            ],
        ),
        (
            Event::PreTool,
            ["pre_tool", "PreToolUse", "PreToolUse", "BeforeTool", "preToolUse", "pre_tool", "before_tool"],
        ),
        (
            Event::PermissionRequest,
            [
                "permission_request",
                "PermissionRequest",
                "PermissionRequest",
                "PermissionRequest",
                "permissionRequest",
                "permission_request",
                "permission_request",
            ],
        ),
        (
            Event::PostTool,
            ["post_tool", "PostToolUse", "PostToolUse", "AfterTool", "postToolUse", "post_tool", "after_tool"],
        ),
        (Event::TurnEnd, ["turn_end", "Stop", "Stop", "AfterAgent", "stop", "turn_end", "turn_end"]),
        (
            Event::Compaction,
            ["compaction", "PreCompact", "PreCompact", "PreCompress", "preCompact", "compaction", "on_compaction"],
        ),
        (
            Event::Notification,
            [
                "notification",
                "Notification",
                "Notification",
                "Notification",
                "notification",
                "notification",
                "notification",
            ],
        ),
        (
            Event::SessionEnd,
            ["session_end", "SessionEnd", "SessionEnd", "SessionEnd", "sessionEnd", "session_end", "session_end"],
        ),
    ];
    for (event, expected) in table {
        assert_eq!(names(event.clone()), expected, "{event}");
    }
    // Taken from the dispatch, not only the event.
    let failed = EventInput { is_error: true, ..EventInput::new(Event::PostTool) };
    assert_eq!(event_name(Claude, &failed), "PostToolUseFailure");
    assert_eq!(event_name(Codex, &failed), "PostToolUse");
    assert_eq!(event_name(Cursor, &failed), "postToolUseFailure");
    let subagent = EventInput { subagent: true, ..EventInput::new(Event::TurnEnd) };
    assert_eq!(event_name(Claude, &subagent), "SubagentStop");
    assert_eq!(event_name(Codex, &subagent), "SubagentStop");
    assert_eq!(event_name(Cursor, &subagent), "subagentStop");
    let tool = |name: &str, event: Event| EventInput::new(event).with_tool(name, json!({}));
    assert_eq!(event_name(Cursor, &tool("shell", Event::PreTool)), "beforeShellExecution");
    assert_eq!(event_name(Cursor, &tool("mcp__github__create_issue", Event::PreTool)), "beforeMCPExecution");
    assert_eq!(event_name(Cursor, &tool("read", Event::PreTool)), "beforeReadFile");
    assert_eq!(event_name(Cursor, &tool("grep", Event::PreTool)), "preToolUse");
    assert_eq!(event_name(Cursor, &tool("shell", Event::PostTool)), "afterShellExecution");
    assert_eq!(event_name(Cursor, &tool("MCP:db:query", Event::PostTool)), "afterMCPExecution");
    assert_eq!(event_name(Cursor, &tool("edit", Event::PostTool)), "afterFileEdit");
    // An alias counts too (Codex's matcher_aliases).
    let mut aliased = tool("exec_command", Event::PreTool);
    aliased.tool_aliases = vec!["shell".into()];
    assert_eq!(event_name(Cursor, &aliased), "beforeShellExecution");
    // A foreign event keeps its own name everywhere.
    for protocol in Protocol::ALL {
        assert_eq!(event_name(protocol, &EventInput::new(Event::Foreign("SubagentStart".into()))), "SubagentStart");
    }
}
