//! A run of a hook that follows an agent's protocol keeps its answer as it gave it (`Interpretation::replay`) exactly
//! when that agent reads the answer as this engine did, so that a bridge into the agent may hand it back unchanged:
//! an agent the real-agent suite checks (a pinned version), a run that exited, nothing truncated, nothing decided
//! more strictly here than by the agent.

use std::time::Duration;

use hook_config::AsMode;
use hook_exec::{Exit, RunResult};
use hook_middleware::EventInput;
use hook_middleware::protocol::{HookRules, Interpretation, interpret};
use hook_types::{Event, OnError, Protocol, Replay};
use serde_json::json;

fn run(code: i32, stdout: &str, stderr: &str) -> RunResult {
    RunResult {
        exit: Some(Exit::Code(code)),
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
        duration: Duration::from_millis(5),
        ..RunResult::default()
    }
}

fn check(protocol: Protocol, event: Event, on_error: Option<OnError>, run: &RunResult) -> Interpretation {
    let mut input = EventInput::new(event.clone());
    if event.is_tool_event() {
        input = input.with_tool("shell", json!({"command": "ls"}));
    }
    let rules = HookRules {
        hook_id: "h",
        protocol,
        on_error: on_error.unwrap_or_else(|| protocol.default_on_error(&event)),
        as_mode: AsMode::default_for(&event),
        timeout_ms: Some(1500),
    };
    interpret(&rules, &input, run)
}

fn replay(code: i32, stdout: &str, stderr: &str) -> Option<Replay> {
    Some(Replay { exit_code: code, stdout: stdout.into(), stderr: stderr.into() })
}

#[test]
fn an_agent_hooks_answer_is_kept_as_it_gave_it() {
    for (protocol, code, stdout, stderr) in [
        (Protocol::Claude, 2, r#"{"decision":"approve"}"#, "dangerous\n"),
        (Protocol::Claude, 0, "", ""),
        (Protocol::Codex, 0, r#"{"decision":"maybe"}"#, ""),
        (Protocol::Codex, 7, "", "crashed"),
        (Protocol::Gemini, 0, r#"{"decision":"deny","reason":"no"}"#, ""),
    ] {
        let got = check(protocol, Event::PreTool, None, &run(code, stdout, stderr));
        assert_eq!(got.replay, replay(code, stdout, stderr), "{protocol} exit {code}");
    }
}

#[test]
fn no_answer_is_kept_where_the_agent_would_read_it_otherwise_or_no_bridge_speaks_the_protocol() {
    // No agent behind the protocol, or one the suite does not check.
    for protocol in [Protocol::Native, Protocol::Clio, Protocol::Mecha, Protocol::Cursor] {
        let got = check(protocol, Event::PreTool, None, &run(2, "", "no"));
        assert_eq!(got.replay, None, "{protocol}");
    }
    // `on_error: deny` turns a failure into a deny that the agent, failing open, would not give.
    let got = check(Protocol::Codex, Event::PreTool, Some(OnError::Deny), &run(7, "", ""));
    assert_eq!(got.replay, None);
    // A run that did not exit, or whose output was cut, or is not text.
    let timed_out = RunResult { exit: Some(Exit::Signal(9)), timed_out: true, ..RunResult::default() };
    assert_eq!(check(Protocol::Claude, Event::PreTool, None, &timed_out).replay, None);
    let signalled = RunResult { exit: Some(Exit::Signal(15)), ..RunResult::default() };
    assert_eq!(check(Protocol::Claude, Event::PreTool, None, &signalled).replay, None);
    let cut = RunResult { stdout_truncated: true, ..run(0, "partial", "") };
    assert_eq!(check(Protocol::Claude, Event::PreTool, None, &cut).replay, None);
    let binary = RunResult { stdout: vec![0xff, 0xfe], ..run(0, "", "") };
    assert_eq!(check(Protocol::Claude, Event::PreTool, None, &binary).replay, None);
}
