//! A bridge that fails answers in the agent's protocol, never with `hook`'s own error line: on a gate event the
//! agent's blocking form (exit 2 and the reason on stderr; Cursor also reads a deny JSON), so nothing runs that the
//! hooks were not asked about; on an event where blocking means something else (Stop: keep going), the agent's
//! non-blocking error, so a broken bridge never loops the agent. Each failure is forced for real.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::Env;
use serde_json::{Value, json};

/// Each agent with its name for a tool gate.
const GATES: [(&str, &str); 4] =
    [("claude", "PreToolUse"), ("codex", "PreToolUse"), ("gemini", "BeforeTool"), ("cursor", "preToolUse")];

#[derive(Debug)]
struct Answer {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `hook bridge` with `args` in the workspace of `env`, as an agent would, `stdin` on its stdin.
fn bridge(env: &Env, args: &[&str], stdin: &[u8], panic: bool) -> Answer {
    let mut command: Command = env.command_without_workspace(&["bridge"]);
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command.env_remove("CLAUDE_PROJECT_DIR").env_remove("GEMINI_PROJECT_DIR").env_remove("CURSOR_PROJECT_DIR");
    if panic {
        command.env("HOOK_BRIDGE_TEST_PANIC", "1");
    } else {
        command.env_remove("HOOK_BRIDGE_TEST_PANIC");
    }
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().unwrap();
    Answer {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: env.redact(&String::from_utf8_lossy(&output.stderr)),
    }
}

fn input(env: &Env, event: &str) -> Vec<u8> {
    let ws = env.ws.display().to_string();
    json!({"hook_event_name": event, "session_id": "s", "cwd": ws, "workspace_roots": [ws],
        "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    .to_string()
    .into_bytes()
}

/// The blocking form of `agent`, with `reason` in it: exit 2, the reason on stderr; for Cursor a deny JSON too.
fn assert_blocks(agent: &str, answer: &Answer, reason: &str) {
    assert_eq!(answer.code, 2, "{agent}: {answer:#?}");
    let line = answer.stderr.trim_end();
    assert!(line.starts_with("hook bridge failed: ") && line.contains(reason), "{agent}: {answer:#?}");
    assert!(!answer.stderr.contains("hook: error"), "never hook's own error form: {answer:#?}");
    if agent == "cursor" {
        let json: Value = serde_json::from_str(&answer.stdout).unwrap();
        assert_eq!(json["permission"], "deny", "{answer:#?}");
        assert!(json["agent_message"].as_str().unwrap().contains(reason), "{answer:#?}");
    } else {
        assert_eq!(answer.stdout, "", "{agent}: {answer:#?}");
    }
}

#[test]
fn a_bridge_that_cannot_load_its_configuration_denies_a_gate_in_each_agents_form() {
    let env = Env::new("gates");
    // A directory where the project's hook file must be: a policy that does not load is not skipped quietly.
    std::fs::remove_file(env.ws.join(".hooks/hooks.yaml")).unwrap();
    std::fs::create_dir(env.ws.join(".hooks/hooks.yaml")).unwrap();
    for (agent, gate) in GATES {
        let answer = bridge(&env, &["--protocol", agent], &input(&env, gate), false);
        assert_blocks(agent, &answer, "is not a regular file");
    }
}

#[test]
fn unreadable_input_is_answered_with_each_agents_blocking_form() {
    let env = Env::new("gates");
    for (agent, _) in GATES {
        let answer = bridge(&env, &["--protocol", agent], b"{\"hook_event_name\": \"PreToolUse\",", false);
        assert_blocks(agent, &answer, "hook input on stdin is not valid JSON");
        let answer = bridge(&env, &["--protocol", agent], b"{\"tool_name\": \"Bash\"}", false);
        assert_blocks(agent, &answer, "`hook_event_name` is missing");
    }
}

#[test]
fn a_bad_flag_is_answered_with_each_agents_blocking_form() {
    let env = Env::new("gates");
    for (agent, gate) in GATES {
        let answer = bridge(&env, &["--protocol", agent, "--frobnicate"], &input(&env, gate), false);
        assert_blocks(agent, &answer, "bad arguments: unexpected argument '--frobnicate'");
    }
    // Even the agent unknown: the blocking form every agent reads (exit 2, and Cursor's deny JSON).
    let answer = bridge(&env, &["--protocol", "vim"], &input(&env, "PreToolUse"), false);
    assert_blocks("cursor", &answer, "invalid value 'vim'");
    let answer = bridge(&env, &[], &input(&env, "PreToolUse"), false);
    assert_blocks("cursor", &answer, "--protocol");
}

#[test]
fn a_panicking_bridge_is_answered_with_each_agents_blocking_form() {
    let env = Env::new("gates");
    for (agent, gate) in GATES {
        let answer = bridge(&env, &["--protocol", agent], &input(&env, gate), true);
        assert_blocks(agent, &answer, "the bridge panicked: HOOK_BRIDGE_TEST_PANIC is set");
        assert_eq!(answer.stderr.lines().count(), 1, "{answer:#?}");
    }
}

#[test]
fn a_failure_at_the_end_of_a_turn_is_a_non_blocking_error_not_a_continuation() {
    let env = Env::new("gates");
    std::fs::remove_file(env.ws.join(".hooks/hooks.yaml")).unwrap();
    std::fs::create_dir(env.ws.join(".hooks/hooks.yaml")).unwrap();
    for (agent, stop) in [("claude", "Stop"), ("codex", "Stop"), ("gemini", "AfterAgent"), ("cursor", "stop")] {
        for panic in [false, true] {
            let answer = bridge(&env, &["--protocol", agent], &input(&env, stop), panic);
            assert_eq!((answer.code, answer.stdout.as_str()), (1, ""), "{agent}: {answer:#?}");
            assert!(answer.stderr.starts_with("hook bridge failed: "), "{answer:#?}");
        }
    }
}

/// `hook bridge` made to hang after reading its input (as a dispatch stuck in a lock or an evaluation would), with
/// `extra` in its environment; `signal` is sent to it `after` it started, when given. Returns the answer and how
/// long it took.
fn hung_bridge(
    env: &Env,
    agent: &str,
    event: &str,
    extra: &[(&str, &str)],
    signal: Option<(i32, u64)>,
) -> (Answer, std::time::Duration) {
    let mut command: Command = env.command_without_workspace(&["bridge", "--protocol", agent]);
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command.env("HOOK_BRIDGE_TEST_HANG", "1").env_remove("HOOK_BRIDGE_TEST_PANIC");
    for (name, value) in extra {
        command.env(name, value);
    }
    let started = std::time::Instant::now();
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(&input(env, event)).unwrap();
    if let Some((number, after_ms)) = signal {
        std::thread::sleep(std::time::Duration::from_millis(after_ms));
        let pid = rustix::process::Pid::from_child(&child);
        rustix::process::kill_process(pid, rustix::process::Signal::from_named_raw(number).unwrap()).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let answer = Answer {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: env.redact(&String::from_utf8_lossy(&output.stderr)),
    };
    (answer, started.elapsed())
}

#[test]
fn a_bridge_stuck_inside_answers_with_the_blocking_form_at_its_answer_deadline() {
    let env = Env::new("empty");
    std::thread::scope(|scope| {
        for (agent, event) in GATES {
            let env = &env;
            scope.spawn(move || {
                // A dispatch deadline of 1 s: the answer deadline is that, the grace and 2 s.
                let short = [("HOOK_TEST_DISPATCH_DEADLINE_MS", "1000")];
                let (answer, took) = hung_bridge(env, agent, event, &short, None);
                assert_blocks(agent, &answer, "no answer within the bridge's answer deadline");
                assert!(took >= std::time::Duration::from_millis(3_000), "{agent}: answered early: {took:?}");
                assert!(took < std::time::Duration::from_secs(20), "{agent}: {took:?}");
            });
        }
    });
}

#[test]
fn sigterm_to_a_bridge_stuck_inside_is_answered_with_the_blocking_form() {
    let env = Env::new("empty");
    for (agent, event) in GATES {
        let (answer, took) = hung_bridge(&env, agent, event, &[], Some((libc_sigterm(), 300)));
        assert_blocks(agent, &answer, "interrupted by SIGTERM and still not answered");
        // The answer deadline is a minute away: the signal, not the deadline, ended it.
        assert!(took < std::time::Duration::from_secs(20), "{agent}: {took:?}");
    }
}

/// SIGTERM's number.
fn libc_sigterm() -> i32 {
    rustix::process::Signal::TERM.as_raw()
}
