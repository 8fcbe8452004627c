//! What a session remembers across bridge processes, one per agent call: the continuation cap holds for the
//! session (an always-continue Stop hook used to loop every agent), and a guard skipped as untrusted is announced in
//! the agent's user-visible channel the first time the session meets it and at session start.

mod common;

use common::{Env, Out};
use serde_json::{Value, json};

const AGENTS: [&str; 4] = ["claude", "codex", "gemini", "cursor"];

fn turn_end(agent: &str, session: &str, active: bool) -> Value {
    let name = match agent {
        "gemini" => "AfterAgent",
        "cursor" => "stop",
        _ => "Stop",
    };
    let mut input = json!({"hook_event_name": name, "session_id": session, "cwd": "/", "stop_hook_active": active,
                           "transcript_path": null});
    if agent == "cursor" {
        input = json!({"hook_event_name": name, "conversation_id": session, "generation_id": "g", "status": "completed",
                       "loop_count": 0, "workspace_roots": ["/"]});
    }
    input
}

fn pre_tool(agent: &str, session: &str) -> Value {
    match agent {
        "gemini" => json!({"hook_event_name": "BeforeTool", "session_id": session, "cwd": "/",
                           "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
        "cursor" => json!({"hook_event_name": "beforeShellExecution", "conversation_id": session,
                           "generation_id": "g", "command": "ls", "cwd": "/", "workspace_roots": ["/"]}),
        _ => json!({"hook_event_name": "PreToolUse", "session_id": session, "cwd": "/", "tool_name": "Bash",
                    "tool_input": {"command": "ls"}}),
    }
}

fn session_start(agent: &str, session: &str) -> Value {
    match agent {
        "cursor" => json!({"hook_event_name": "sessionStart", "conversation_id": session, "workspace_roots": ["/"]}),
        _ => json!({"hook_event_name": "SessionStart", "session_id": session, "cwd": "/", "source": "startup"}),
    }
}

fn continued(out: &Out) -> bool {
    out.stdout.contains("KEEP-GOING-1234")
}

#[test]
fn an_always_continue_stop_hook_is_continued_at_most_three_times_in_a_session_of_six_calls() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: keep-going\n  on: turn_end\n  kind: effect\n  effect: {kind: request_continuation, message: KEEP-GOING-1234}\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    for agent in AGENTS {
        let session = format!("session-{agent}");
        let mut continuations = 0;
        let mut refusals = Vec::new();
        for call in 0..6 {
            // Each call is its own process, as the agent runs the bridge; the agent says it is in a continuation.
            let out = env.bridge(agent, &turn_end(agent, &session, call > 0));
            assert!(out.code == 0 || out.code == 2, "{agent}: {out:#?}");
            if continued(&out) {
                continuations += 1;
            } else {
                refusals.push(out);
            }
        }
        assert_eq!(continuations, 3, "{agent}: {refusals:#?}");
        // The refusal is announced in the agent's user-visible channel.
        let channel = if agent == "cursor" { "user_message" } else { "systemMessage" };
        assert!(
            refusals.iter().any(|o| o.stdout.contains(channel) && o.stdout.contains("continuations in a row")),
            "{agent}: {refusals:#?}"
        );
        // Another session has its own count.
        assert!(continued(&env.bridge(agent, &turn_end(agent, &format!("other-{agent}"), false))), "{agent}");
    }
}

#[test]
fn the_first_gate_call_of_a_session_with_an_untrusted_gate_carries_a_notice_naming_it() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: team-guard\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  shell: \"exit 2\"\n",
    );
    for agent in AGENTS {
        let session = format!("notice-{agent}");
        let channel = if agent == "cursor" { "user_message" } else { "systemMessage" };
        let first = env.bridge(agent, &pre_tool(agent, &session));
        assert!(first.stdout.contains(channel), "{agent}: {first:#?}");
        assert!(first.stdout.contains("team-guard") && first.stdout.contains("hook trust"), "{agent}: {first:#?}");
        // Once per session: the next call of the same session is not noisy.
        let second = env.bridge(agent, &pre_tool(agent, &session));
        assert!(!second.stdout.contains("team-guard"), "{agent}: {second:#?}");
        // A session start lists it again, for every session.
        let start = env.bridge(agent, &session_start(agent, &session));
        assert!(start.stdout.contains("team-guard"), "{agent}: {start:#?}");
    }
}

#[test]
fn hook_run_shows_a_skipped_guard_in_its_trace() {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", "- id: team-guard\n  on: pre_tool\n  kind: command\n  shell: \"exit 2\"\n");
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", r#"{"command":"ls"}"#]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("notice") && out.stdout.contains("`team-guard` (not trusted"), "{out:#?}");
}
