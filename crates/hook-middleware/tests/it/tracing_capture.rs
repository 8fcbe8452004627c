//! Tracing spans and events, captured: the dispatch and hook spans carry their fields, a hook span's status is the
//! folded run summary's, and the tracing receipt sink emits every field.
//!
//! Each test runs in a process of its own (`hook_testkit::alone`): it installs a capture subscriber as its thread's
//! default, and `tracing` caches per call site whether any subscriber is interested. A call site first reached by a
//! test running concurrently without a subscriber (any other test of this binary) can be cached as "never" in the
//! instant this test's subscriber is being registered, and this test then misses its spans. Alone in its process,
//! no call site is ever first reached without a subscriber.

use crate::pipeline_support;
use crate::receipts_support;

use std::sync::Arc;
use std::time::Duration;

use hook_middleware::receipts::{RECEIPT_TARGET, ReceiptSink, TracingSink};
use hook_middleware::{DispatchResult, EventInput, Pipeline, spans};
use hook_types::{Event, Outcome, RunStatus, Verdict};
use pipeline_support::*;
use receipts_support::{Capture, receipt};

fn one_prompt_hook() -> Fixture {
    let fx = Fixture::new();
    fx.user_hooks("- {id: note, on: pre_tool, kind: prompt, message: mind the blast radius}");
    fx
}

fn input() -> hook_middleware::EventInput {
    pre_tool("shell", serde_json::json!({"command": "rm -rf build"})).with_session("sess-1")
}

fn spans_of(pipeline: &Pipeline, input: &EventInput) -> (Vec<(String, String, Option<String>)>, DispatchResult) {
    let capture = Capture::default();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let result = capture.run(|| rt.block_on(pipeline.dispatch(input)));
    let mut hooks: Vec<_> = capture
        .spans()
        .into_iter()
        .filter(|s| s.name == "hook_run")
        .map(|s| {
            (
                s.fields["hook_id"].clone(),
                s.fields.get("status").cloned().unwrap_or_default(),
                s.fields.get("exit_code").cloned(),
            )
        })
        .collect();
    hooks.sort();
    (hooks, result)
}

#[test]
fn a_run_the_fold_discards_after_it_finished_is_cancelled_on_its_span_too() {
    if !hook_testkit::alone::in_own_process(
        module_path!(),
        "a_run_the_fold_discards_after_it_finished_is_cancelled_on_its_span_too",
    ) {
        return;
    }
    let fx = Fixture::new();
    // `sequential` makes the denying hook start only once the lower one has finished: the lower one always
    // completes first, and is then discarded by the deny above it.
    fx.user_hooks(
        r#"
- {id: a.low, on: pre_tool, kind: command, shell: "exit 0"}
- {id: b.deny, on: pre_tool, kind: command, sequential: true, shell: "echo no >&2; exit 2"}
"#,
    );
    let (spans, result) = spans_of(&fx.pipeline(), &pre_tool("shell", serde_json::json!({})));
    assert_eq!(statuses(&result), [("a.low".into(), RunStatus::Cancelled), ("b.deny".into(), RunStatus::Blocked)]);
    assert_eq!(
        spans,
        [("a.low".into(), "cancelled".into(), None), ("b.deny".into(), "blocked".into(), Some("2".into())),]
    );
    for run in &result.runs {
        let span = spans.iter().find(|(id, ..)| *id == run.hook_id).unwrap();
        assert_eq!(span.1, spans::status_name(run.status), "{}: the span and the summary disagree", run.hook_id);
    }
}

#[test]
fn a_tracing_sink_recorded_off_the_task_still_reaches_the_callers_subscriber() {
    if !hook_testkit::alone::in_own_process(
        module_path!(),
        "a_tracing_sink_recorded_off_the_task_still_reaches_the_callers_subscriber",
    ) {
        return;
    }
    let fx = one_prompt_hook();
    let pipeline = fx.builder().receipt_sink(Arc::new(TracingSink)).build().unwrap();
    let capture = Capture::default();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let result = capture.run(|| rt.block_on(pipeline.dispatch(&pre_tool("shell", serde_json::json!({})))));
    let receipts: Vec<_> = capture.events().into_iter().filter(|e| e.target == RECEIPT_TARGET).collect();
    let ids: Vec<&str> = receipts.iter().map(|e| e.fields["hook_id"].as_str()).collect();
    assert_eq!(ids, ["note"]);
    assert_eq!(result.runs.len(), 1);
}

#[test]
fn tracing_sink_emits_one_event_per_receipt_with_every_field() {
    if !hook_testkit::alone::in_own_process(module_path!(), "tracing_sink_emits_one_event_per_receipt_with_every_field")
    {
        return;
    }
    let capture = Capture::default();
    let mut failed = receipt(4);
    failed.outcome = Outcome::CommandFailed;
    failed.exit_code = None;
    capture.run(|| {
        TracingSink.record(&receipt(3)).unwrap();
        TracingSink.record(&failed).unwrap();
    });
    let events = capture.events();
    assert_eq!(events.len(), 2);
    assert!(events.iter().all(|e| e.target == RECEIPT_TARGET));
    assert_eq!((events[0].level.as_str(), events[1].level.as_str()), ("INFO", "WARN"));
    let fields = &events[0].fields;
    let expected = [
        ("time", "2026-11-30T04:35:23.003Z"),
        ("hook_id", "project.guard-3"),
        ("origin", "project"),
        ("source", ".hooks/hooks.yaml"),
        ("hash", "8edef845af953d62"),
        ("event", "pre_tool"),
        ("kind", "command"),
        ("outcome", "blocked"),
        ("effects", "inject_reminder"),
        ("exit_code", "2"),
        ("output_bytes", "30"),
        ("tool_name", "shell"),
        ("duration_ms", "3"),
        ("session_id", "sess-1"),
    ];
    for (name, value) in expected {
        assert_eq!(fields.get(name).map(String::as_str), Some(value), "field {name}: {fields:?}");
    }
    assert!(!events[1].fields.contains_key("exit_code"), "an absent exit code is left out");
}

#[test]
fn dispatch_and_hook_spans_carry_event_hook_id_status_and_duration() {
    if !hook_testkit::alone::in_own_process(
        module_path!(),
        "dispatch_and_hook_spans_carry_event_hook_id_status_and_duration",
    ) {
        return;
    }
    let capture = Capture::default();
    capture.run(|| {
        let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({})).with_session("s1");
        let dispatch = spans::dispatch_span(&input);
        dispatch.in_scope(|| {
            let hook = spans::hook_span("project.guard", &Event::PreTool);
            spans::record_run(&hook, RunStatus::Blocked, Some(2), Duration::from_millis(12));
        });
        spans::record_dispatch(&dispatch, Verdict::Deny, 1, Duration::from_millis(15));
    });
    let spans = capture.spans();
    let [dispatch, hook] = &spans[..] else { panic!("{spans:#?}") };
    assert_eq!((dispatch.name.as_str(), dispatch.level.as_str()), ("hook_dispatch", "INFO"));
    let fields =
        |c: &receipts_support::Captured| c.fields.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
    assert_eq!(fields(dispatch), "duration_ms=15 event=pre_tool hooks=1 session_id=s1 tool_name=shell verdict=deny");
    assert_eq!(hook.name, "hook_run");
    assert_eq!(hook.parent.as_deref(), Some("hook_dispatch"), "the hook span is the dispatch span's child");
    assert_eq!(fields(hook), "duration_ms=12 event=pre_tool exit_code=2 hook_id=project.guard status=blocked");
}

#[test]
fn real_dispatch_opens_one_dispatch_span_and_a_hook_span_per_run_with_their_results() {
    if !hook_testkit::alone::in_own_process(
        module_path!(),
        "real_dispatch_opens_one_dispatch_span_and_a_hook_span_per_run_with_their_results",
    ) {
        return;
    }
    let fixture = Fixture::new();
    fixture.user_hooks(
        r#"
- {id: guard, on: pre_tool, kind: command, shell: "echo no >&2; exit 2"}
- {id: ok, on: pre_tool, kind: command, shell: "exit 0"}
"#,
    );
    // `ok` has the higher precedence, so it runs to its end whatever the timing: both statuses are fixed.
    let pipeline = fixture.pipeline();
    let capture = Capture::default();
    // One thread, so the thread-local subscriber sees every span the dispatch opens.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let result = capture.run(|| rt.block_on(pipeline.dispatch(&input())));
    assert_eq!(result.verdict, Verdict::Deny);

    let spans = capture.spans();
    let dispatches: Vec<_> = spans.iter().filter(|s| s.name == "hook_dispatch").collect();
    let [dispatch_span] = &dispatches[..] else { panic!("{spans:#?}") };
    let field = |s: &receipts_support::Captured, name: &str| s.fields.get(name).cloned().unwrap_or_default();
    assert_eq!(
        ["event", "tool_name", "session_id", "verdict", "hooks"].map(|f| field(dispatch_span, f)),
        ["pre_tool", "shell", "sess-1", "deny", "2"]
    );
    assert!(field(dispatch_span, "duration_ms").parse::<u64>().is_ok(), "{dispatch_span:?}");

    let mut hooks: Vec<(String, String, Option<String>)> = spans
        .iter()
        .filter(|s| s.name == "hook_run")
        .map(|s| (field(s, "hook_id"), field(s, "status"), s.parent.clone()))
        .collect();
    hooks.sort();
    let inside = Some("hook_dispatch".to_owned());
    assert_eq!(hooks, [("guard".into(), "blocked".into(), inside.clone()), ("ok".into(), "completed".into(), inside)]);
    for span in spans.iter().filter(|s| s.name == "hook_run") {
        assert_eq!(field(span, "event"), "pre_tool");
        assert!(field(span, "duration_ms").parse::<u64>().is_ok() && !field(span, "exit_code").is_empty(), "{span:?}");
    }
}
