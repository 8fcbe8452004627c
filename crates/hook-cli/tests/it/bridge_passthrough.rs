//! A hook `hook install` moved out of the agent's file still reads everything the agent sends it, through the
//! bridge: the fields the engine has no name for too (Claude Code's `last_assistant_message` on Stop).

use crate::common;

use common::{Env, read_json};
use serde_json::json;

#[test]
fn a_claude_stop_input_reaches_a_moved_stop_hook_whole_through_the_bridge() {
    let env = Env::new("tests/fixtures/install/claude");
    // The hook keeps what it read outside the workspace: a file a command names there is part of its fingerprint.
    let settings =
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cat > \"$HOME/stop.json\""}]}]}});
    env.write(".claude/settings.json", &serde_json::to_string_pretty(&settings).unwrap());
    let out = env.hook(&["install", "--agent", "claude", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap().contains("protocol: claude"));

    let written = read_json(&env.ws.join(".claude/settings.json"));
    let bridge = written["hooks"]["Stop"][0]["hooks"][0]["command"].as_str().unwrap();
    let input = json!({"hook_event_name": "Stop", "session_id": "sess-1", "transcript_path": "/tmp/t.jsonl",
        "cwd": env.ws.display().to_string(), "permission_mode": "default", "stop_hook_active": false,
        "last_assistant_message": "All 42 tests pass; the flaky one was a race."});
    let answer = env.run_as_agent(bridge, Some("CLAUDE_PROJECT_DIR"), input.to_string().as_bytes());
    assert_eq!((answer.code, answer.stdout.as_str(), answer.stderr.as_str()), (0, "", ""), "{answer:#?}");

    let read = read_json(&env.home.join("stop.json"));
    assert_eq!(read["last_assistant_message"], "All 42 tests pass; the flaky one was a race.", "{read:#}");
    for field in ["hook_event_name", "session_id", "transcript_path", "permission_mode", "stop_hook_active"] {
        assert_eq!(read[field], input[field], "{field}: {read:#}");
    }
}
