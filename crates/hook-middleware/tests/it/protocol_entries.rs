//! What a run leaves in the transcript: entries in order, sanitized text, warnings that survive a failure, the
//! operator notice key, `suppressOutput`.

use hook_config::AsMode;
use hook_exec::{Exit, RunResult};
use hook_middleware::EventInput;
use hook_middleware::protocol::{HookRules, Interpretation, interpret, sanitize_text};
use hook_types::{Decision, Effect, EntryKind, Event, OnError, Protocol, RunStatus};

fn run(code: i32, stdout: &str, stderr: &str) -> RunResult {
    RunResult {
        exit: Some(Exit::Code(code)),
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
        ..RunResult::default()
    }
}

fn interpret_as(protocol: Protocol, event: Event, run: &RunResult) -> Interpretation {
    let rules = HookRules {
        hook_id: "guard",
        protocol,
        on_error: protocol.default_on_error(&event),
        as_mode: AsMode::default_for(&event),
        timeout_ms: None,
    };
    interpret(&rules, &EventInput::new(event), run)
}

/// `(kind, text)` of every entry.
fn entries(result: &Interpretation) -> Vec<(EntryKind, &str)> {
    result.entries.iter().map(|e| (e.kind, e.text.as_str())).collect()
}

#[test]
fn control_characters_never_reach_reasons_or_entries() {
    let result = interpret_as(Protocol::Native, Event::PreTool, &run(2, "", "\x1b[31mno\x07 way\r\n"));
    assert_eq!(result.decision, Decision::Deny { reason: "no way".into() });
    assert_eq!(entries(&result), vec![(EntryKind::Feedback, "no way")]);

    let stdout = "{\"effects\":[{\"kind\":\"inject_reminder\",\"message\":\"a\\u001b]0;pwned\\u0007b\\tc\"}]}";
    let result = interpret_as(Protocol::Native, Event::TurnStart, &run(0, stdout, ""));
    assert_eq!(result.effects, vec![Effect::InjectReminder { message: "ab\tc".into(), severity: Default::default() }]);

    // The bidirectional overrides go too (they reorder what a reviewer sees).
    assert_eq!(sanitize_text("rm -rf /\u{202e}txt.sh\u{2066}"), "rm -rf /txt.sh");
}

#[test]
fn failure_entry_names_the_failure_and_quotes_stderr() {
    let result = interpret_as(Protocol::Native, Event::PostTool, &run(7, "partial", "database unreachable\n"));
    assert_eq!(result.status, RunStatus::Failed);
    assert_eq!(
        entries(&result),
        vec![(EntryKind::Error, "hook `guard` exited with undefined code 7; stderr: database unreachable")]
    );
    assert!(result.effects.is_empty() && result.decision == Decision::Pass);
}

#[test]
fn truncation_and_runner_warnings_survive_a_failure() {
    let mut flood = run(0, "{\"decision\":\"deny\",\"reason\":\"", "");
    flood.stdout_truncated = true;
    flood.warnings = vec!["a descendant held stdout after the leader exited; killed after 100 ms".into()];
    let result = interpret_as(Protocol::Native, Event::PreTool, &flood);
    assert_eq!(result.status, RunStatus::Failed);
    let kinds: Vec<EntryKind> = result.entries.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, vec![EntryKind::Warning, EntryKind::Warning, EntryKind::Error]);
    assert_eq!(result.entries[1].text, "stdout went past the capture limit; the rest was dropped");
    assert!(result.entries[2].text.starts_with("hook `guard` wrote invalid JSON: EOF while parsing a string"));
}

#[test]
fn entries_follow_the_order_the_hook_gave() {
    // Codex pre_tool_use.rs `additional_context_is_recorded`: Context before Feedback.
    let stdout = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"do not run that","additionalContext":"nope"}}"#;
    let result = interpret_as(Protocol::Codex, Event::PreTool, &run(0, stdout, ""));
    assert_eq!(entries(&result), vec![(EntryKind::Context, "nope"), (EntryKind::Feedback, "do not run that")]);
}

#[test]
fn session_end_stdout_is_feedback_only() {
    let result = interpret_as(Protocol::Native, Event::SessionEnd, &run(0, "saved 3 notes\n", ""));
    assert!(result.effects.is_empty());
    assert_eq!(entries(&result), vec![(EntryKind::Feedback, "saved 3 notes")]);
}

#[test]
fn invalid_codex_output_is_an_error_entry_with_codex_wording() {
    let stdout = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#;
    let result = interpret_as(Protocol::Codex, Event::PreTool, &run(0, stdout, ""));
    assert_eq!(
        entries(&result),
        vec![(
            EntryKind::Error,
            "hook `guard` wrote invalid output: PreToolUse hook returned unsupported permissionDecision:ask"
        )]
    );
    let unknown =
        interpret_as(Protocol::Codex, Event::TurnEnd, &run(0, r#"{"decision":"block","reason":"x","why":1}"#, ""));
    assert_eq!(entries(&unknown), vec![(EntryKind::Error, "hook `guard` wrote invalid output: unknown field `why`")]);
}

#[test]
fn notify_keys_are_stable_per_hook_and_message() {
    let notice = |message: &str| {
        let stdout = format!(r#"{{"systemMessage":"{message}"}}"#);
        match interpret_as(Protocol::Claude, Event::Notification, &run(0, &stdout, "")).effects.as_slice() {
            [Effect::NotifyOperator { key, .. }] => key.clone(),
            other => panic!("expected one notice, got {other:?}"),
        }
    };
    assert_eq!(notice("disk full"), notice("disk full"));
    assert_ne!(notice("disk full"), notice("disk ok"));
    assert!(notice("disk full").starts_with("guard:"));
}

#[test]
fn suppress_output_is_reported_and_dropped_on_failure() {
    let result = interpret_as(Protocol::Claude, Event::PostTool, &run(0, r#"{"suppressOutput":true}"#, ""));
    assert!(result.suppress_output);
    // Codex rejects it on PostToolUse (output_parser.rs `unsupported_post_tool_use_universal`).
    let codex = interpret_as(Protocol::Codex, Event::PostTool, &run(0, r#"{"suppressOutput":true}"#, ""));
    assert_eq!(codex.status, RunStatus::Failed);
    assert!(!codex.suppress_output);
}

#[test]
fn a_cancelled_run_leaves_nothing() {
    let mut cancelled = run(2, "", "no");
    cancelled.cancelled = true;
    cancelled.stdout_truncated = true;
    let result = interpret_as(Protocol::Native, Event::PreTool, &cancelled);
    assert_eq!(result.status, RunStatus::Cancelled);
    assert!(result.entries.is_empty() && result.effects.is_empty() && result.decision == Decision::Pass);
}

#[test]
fn timeout_reason_uses_the_measured_duration_when_the_deadline_is_unknown() {
    let timed_out = RunResult {
        exit: Some(Exit::Signal(9)),
        timed_out: true,
        duration: std::time::Duration::from_millis(2_004),
        ..RunResult::default()
    };
    let rules = HookRules {
        timeout_ms: None,
        on_error: OnError::Deny,
        ..HookRules::new("slow", Protocol::Native, &Event::PreTool)
    };
    let result = interpret(&rules, &EventInput::new(Event::PreTool), &timed_out);
    assert_eq!(result.decision, Decision::Deny { reason: "hook `slow` timed out after 2004 ms".into() });
}
