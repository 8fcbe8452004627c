//! What a session remembers across bridge processes, one per agent call: the continuation cap holds for the
//! session (an always-continue Stop hook used to loop every agent), and a guard skipped as untrusted is announced in
//! the agent's user-visible channel the first time the session meets it and at session start.

use crate::common;

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

/// The one session file under the workspace's session state directory, made by an earlier call.
fn session_file(env: &Env) -> std::path::PathBuf {
    let sessions = env.home.join("state/hooks/sessions");
    let dirs: Vec<_> = std::fs::read_dir(&sessions).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let files: Vec<_> = std::fs::read_dir(&dirs[0])
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// `hook bridge --protocol claude` with `input`, which must answer well inside any agent's hook timeout: one that
/// has not answered within 30 s is killed and the test fails.
fn bridge_in_time(env: &Env, input: &Value) -> Out {
    let command = env.command(&["bridge", "--protocol", "claude"]);
    env.finish_within(command, input.to_string().as_bytes(), std::time::Duration::from_secs(30))
}

#[test]
fn a_session_state_lock_another_process_holds_denies_gates_naming_it_and_refuses_a_continuation() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: team-guard\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  shell: \"exit 2\"\n\
         - id: keep-going\n  on: turn_end\n  kind: effect\n  effect: {kind: request_continuation, message: KEEP-GOING-1234}\n",
    );
    assert_eq!(env.hook(&["trust", "keep-going", "--yes"]).code, 0);
    // The first call of the session tells about the untrusted guard and makes the session's file.
    let first = env.bridge("claude", &pre_tool("claude", "held"));
    assert!(first.stdout.contains("team-guard") && !first.denies("claude"), "{first:#?}");
    let file = session_file(&env);
    let shown = env.redact(&file.display().to_string());
    let holder = common::LockHolder::new(&file);

    // A gate that needs the state: a deny naming the file, the holder and the fix, not a hang.
    let out = bridge_in_time(&env, &pre_tool("claude", "held"));
    assert!(out.denies("claude"), "{out:#?}");
    let reason = out.json()["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().to_owned();
    assert!(reason.contains(&shown) && reason.contains("is locked by another process"), "{reason}");
    assert!(reason.contains("fuser -v"), "{reason}");

    // A user prompt of the session: blocked the same way.
    let prompt = json!({"hook_event_name": "UserPromptSubmit", "session_id": "held", "cwd": "/", "prompt": "go on",
                        "transcript_path": null});
    let out = bridge_in_time(&env, &prompt);
    assert!(out.denies("claude"), "{out:#?}");
    assert!(out.stdout.contains(&shown) && out.stdout.contains("is locked by another process"), "{out:#?}");

    // A Stop whose hook asks to continue: the count cannot be read, so the agent stops, and the user is told why.
    let out = bridge_in_time(&env, &turn_end("claude", "held", false));
    assert!(!continued(&out), "{out:#?}");
    assert!(
        out.stdout.contains("systemMessage") && out.stdout.contains("continuation count cannot be read"),
        "{out:#?}"
    );
    assert!(out.stdout.contains(&shown), "{out:#?}");

    // Released, the session goes on as before.
    drop(holder);
    let out = env.bridge("claude", &pre_tool("claude", "held"));
    assert!(!out.denies("claude") && !out.stdout.contains("another process"), "{out:#?}");
    assert!(continued(&env.bridge("claude", &turn_end("claude", "held", false))));
}

#[test]
fn an_observer_event_with_a_held_session_state_lock_passes_with_a_notice() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: team-guard\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  shell: \"exit 2\"\n",
    );
    assert!(env.bridge("claude", &session_start("claude", "observed")).stdout.contains("team-guard"));
    let file = session_file(&env);
    let _holder = common::LockHolder::new(&file);
    let out = bridge_in_time(&env, &session_start("claude", "observed"));
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(!out.denies("claude"), "{out:#?}");
    let message = out.json()["systemMessage"].as_str().unwrap().to_owned();
    // The skipped guard is still announced, and so is the lock.
    assert!(message.contains("team-guard"), "{message}");
    assert!(message.contains(&env.redact(&file.display().to_string())), "{message}");
    assert!(message.contains("is locked by another process"), "{message}");
}

#[test]
fn expired_session_files_are_removed_when_a_new_session_file_is_made_except_a_held_one() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: keep-going\n  on: turn_end\n  kind: effect\n  effect: {kind: request_continuation, message: KEEP-GOING-1234}\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    assert!(continued(&env.bridge("claude", &turn_end("claude", "first", false))));
    let file = session_file(&env);
    let dir = file.parent().unwrap().to_owned();
    let two_days_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 24 * 60 * 60);
    let old = |name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, r#"{"chain":2,"notified":[],"updated":1}"#).unwrap();
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(two_days_ago).unwrap();
        path
    };
    let expired: Vec<_> = (0..50).map(|i| old(&format!("{i:032x}"))).collect();
    let held = old(&format!("{:032x}", 999));
    let _holder = common::LockHolder::new(&held);
    // The first call's sweep was an hour ago, as far as the next one can tell.
    let marker = dir.join(".swept");
    std::fs::File::options().write(true).open(&marker).unwrap().set_modified(two_days_ago).unwrap();

    assert!(continued(&env.bridge("claude", &turn_end("claude", "second", false))));
    assert!(expired.iter().all(|p| !p.exists()), "expired session files are removed");
    assert!(held.exists(), "a file another process holds locked is left alone");
    assert!(file.exists(), "a live session's file stays");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 4, "first, second, the held one and the marker");
}
