//! A hook's run with any stdout and stderr, any exit, in any protocol and on any event: the output protocol must
//! interpret it without panicking, with no control character in a transcript entry, and a failing native gate
//! hook must deny.
#![no_main]

use hook_exec::{Exit, RunResult};
use hook_middleware::EventInput;
use hook_middleware::protocol::{HookRules, interpret};
use hook_types::{Decision, Event, OnError, Protocol, RunStatus};
use libfuzzer_sys::fuzz_target;

const EVENTS: [Event; 7] = [
    Event::PreTool,
    Event::PostTool,
    Event::TurnStart,
    Event::TurnEnd,
    Event::PermissionRequest,
    Event::SessionStart,
    Event::SessionEnd,
];

fuzz_target!(|data: &[u8]| {
    let [p, e, x, code, split, rest @ ..] = data else { return };
    let protocol = Protocol::ALL[usize::from(*p) % Protocol::ALL.len()];
    let event = EVENTS[usize::from(*e) % EVENTS.len()].clone();
    let (exit, timed_out) = match x % 4 {
        0 => (Some(Exit::Code(i32::from(*code))), false),
        1 => (Some(Exit::Signal(i32::from(*code % 64))), false),
        2 => (Some(Exit::Signal(9)), true),
        _ => (None, false),
    };
    let at = usize::from(*split).min(rest.len());
    let run =
        RunResult { exit, timed_out, stdout: rest[at..].to_vec(), stderr: rest[..at].to_vec(), ..RunResult::default() };
    let input = EventInput::new(event.clone()).with_tool("shell", serde_json::json!({"command": "ls"}));
    let mut rules = HookRules::new("fuzzed", protocol, &event);
    let result = interpret(&rules, &input, &run);
    for entry in &result.entries {
        assert!(!entry.text.chars().any(|c| c == '\u{1b}' || hook_types::needs_escape(c)), "{:?}", entry.text);
    }
    if protocol == Protocol::Native && event == Event::PreTool {
        rules.on_error = OnError::Deny;
        let result = interpret(&rules, &input, &run);
        if matches!(result.status, RunStatus::Failed | RunStatus::TimedOut) {
            assert!(matches!(result.decision, Decision::Deny { .. }), "{result:?}");
        }
    }
});
