//! Properties of the output parser over generated runs: any exit, any bytes on stdout and stderr, in any protocol
//! and on any event, give an interpretation without panicking, with no control or bidirectional character in a
//! transcript entry; and a native gate hook that fails in any way denies (fail closed).

use hook_exec::{Exit, RunResult};
use hook_middleware::EventInput;
use hook_middleware::protocol::{HookRules, interpret};
use hook_types::{Decision, Event, OnError, Protocol, RunStatus};
use proptest::prelude::*;

fn any_exit() -> impl Strategy<Value = (Option<Exit>, bool)> {
    prop_oneof![
        (-5i32..300).prop_map(|c| (Some(Exit::Code(c)), false)),
        (1i32..65).prop_map(|s| (Some(Exit::Signal(s)), false)),
        Just((Some(Exit::Signal(9)), true)),
        Just((None, false)),
    ]
}

/// Bytes that are often JSON-shaped: an object with known fields and random values, or anything at all.
fn any_stdout() -> impl Strategy<Value = Vec<u8>> {
    let field = prop_oneof![
        Just("decision"),
        Just("reason"),
        Just("continue"),
        Just("stopReason"),
        Just("systemMessage"),
        Just("hookSpecificOutput"),
        Just("effects"),
        Just("permissionDecision"),
        Just("additionalContext"),
        Just("suppressOutput"),
        Just("updatedInput"),
        Just("kind"),
        Just("message"),
    ];
    let value = prop_oneof![
        Just("\"block\"".to_owned()),
        Just("\"deny\"".to_owned()),
        Just("\"allow\"".to_owned()),
        Just("\"ask\"".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("null".to_owned()),
        Just("[]".to_owned()),
        Just("{}".to_owned()),
        Just("[{\"kind\":\"halt\",\"reason\":\"x\"}]".to_owned()),
        "\\PC{0,16}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        (-3i64..3).prop_map(|n| n.to_string()),
    ];
    prop_oneof![
        prop::collection::vec((field, value), 0..5).prop_map(|pairs| {
            let body: Vec<String> = pairs.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", body.join(",")).into_bytes()
        }),
        prop::collection::vec(any::<u8>(), 0..64),
        "\\PC{0,40}".prop_map(String::into_bytes),
        Just(b"\x1b]0;pwned\x07\x1b[2J\xe2\x80\xaeevil".to_vec()),
    ]
}

fn any_event() -> impl Strategy<Value = Event> {
    prop_oneof![
        Just(Event::PreTool),
        Just(Event::PostTool),
        Just(Event::TurnStart),
        Just(Event::TurnEnd),
        Just(Event::PermissionRequest),
        Just(Event::SessionStart),
        Just(Event::SessionEnd),
    ]
}

fn run((exit, timed_out): (Option<Exit>, bool), stdout: Vec<u8>, stderr: Vec<u8>) -> RunResult {
    RunResult { exit, timed_out, stdout, stderr, ..RunResult::default() }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_run_is_interpreted_without_panicking_and_entries_are_clean(
        protocol in prop::sample::select(Protocol::ALL.to_vec()),
        event in any_event(),
        exit in any_exit(),
        stdout in any_stdout(),
        stderr in any_stdout(),
    ) {
        let input = EventInput::new(event.clone()).with_tool("shell", serde_json::json!({"command": "ls"}));
        let rules = HookRules::new("h", protocol, &event);
        let result = interpret(&rules, &input, &run(exit, stdout, stderr));
        for entry in &result.entries {
            prop_assert!(
                !entry.text.chars().any(|c| c == '\x1b' || c == '\u{7}' || hook_types::needs_escape(c)),
                "{:?}", entry.text
            );
        }
    }

    /// Every way a native gate hook can fail — any exit but 0 and 2, a signal, a timeout, no exit at all, or
    /// stdout that begins like JSON but is not a valid answer — is a deny.
    #[test]
    fn a_failing_native_gate_hook_denies(exit in any_exit(), stdout in any_stdout()) {
        let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "ls"}));
        let rules = HookRules { on_error: OnError::Deny, ..HookRules::new("gate", Protocol::Native, &Event::PreTool) };
        let result = interpret(&rules, &input, &run(exit, stdout, Vec::new()));
        let failed = matches!(result.status, RunStatus::Failed | RunStatus::TimedOut);
        if failed {
            prop_assert!(matches!(result.decision, Decision::Deny { .. }), "{:?}", result);
        }
        let code = match exit.0 { Some(Exit::Code(c)) if !exit.1 => Some(c), _ => None };
        if !matches!(code, Some(0 | 2)) {
            prop_assert!(failed, "a run that did not exit 0 or 2 must fail: {:?}", result);
        }
    }
}

/// Found by the `output_parser` fuzz target: an unknown effect kind holding a carriage return (`\r` in the JSON)
/// was quoted raw in the failure's entry and in the deny's reason.
#[test]
fn an_unknown_effect_kind_with_a_control_character_reached_the_entry_raw() {
    let stdout =
        br#"{"effects":[{"kind":";nj------------\u00cd\u00d2ect_remin\\\\\\\\\\r\u001b[2J\u202e","message":"m"}]}"#;
    let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "ls"}));
    let rules = HookRules::new("fuzzed", Protocol::Native, &Event::PreTool);
    let result = interpret(&rules, &input, &run((Some(Exit::Code(0)), false), stdout.to_vec(), Vec::new()));
    assert_eq!(result.status, RunStatus::Failed);
    let Decision::Deny { reason } = &result.decision else { panic!("{result:?}") };
    for text in result.entries.iter().map(|e| e.text.as_str()).chain([reason.as_str()]) {
        assert!(!text.chars().any(|c| c == '\r' || c == '\x1b' || hook_types::needs_escape(c)), "{text:?}");
        assert!(text.contains("unknown effect kind"), "{text:?}");
    }
}
