//! Receipts from real dispatches: every outcome of docs/receipts.md from real command hooks, declarations loaded through
//! `hook_config::load`; a receipt path that cannot be created costs one diagnostic, never a verdict; budgets see
//! real dispatch times; the dispatch and hook spans carry what a subscriber needs.

use crate::pipeline_support;

use std::sync::Arc;
use std::time::Duration;

use hook_middleware::receipts::{FileSink, RingSink, verify};
use hook_middleware::{BudgetConfig, Budgets, DispatchResult};
use hook_types::{Event, Outcome, Receipt, Verdict};
use pipeline_support::{Fixture, dispatch, pre_tool};

/// User hooks (trusted by default) that between them end in every outcome on one pre_tool dispatch. Later means
/// higher precedence: `a` is below the blocker, so it is cancelled; everything above it runs to its end.
const EVERY_OUTCOME: &str = r#"
- id: a.cancelled
  on: pre_tool
  kind: command
  shell: "exit 0"
- id: b.blocked
  on: pre_tool
  kind: command
  shell: "echo 'no rm here' >&2; exit 2"
- id: c.ok
  on: pre_tool
  kind: command
  shell: "echo fine"
- id: d.failed
  on: pre_tool
  kind: command
  shell: "exit 7"
  on_error: ignore
- id: e.timeout
  on: pre_tool
  kind: command
  shell: "sleep 5"
  timeout_ms: 200
  on_error: ignore
- id: f.prompt
  on: pre_tool
  kind: prompt
  message: Mind the blast radius.
- id: g.disabled
  on: pre_tool
  kind: command
  shell: "exit 0"
  enabled: false
"#;

/// A project hook nobody trusted.
const UNTRUSTED: &str = r#"
- id: h.untrusted
  on: pre_tool
  kind: command
  shell: "exit 0"
"#;

fn every_outcome() -> Fixture {
    let fixture = Fixture::new();
    fixture.user_hooks(EVERY_OUTCOME).project_hooks(UNTRUSTED);
    fixture
}

fn input() -> hook_middleware::EventInput {
    pre_tool("shell", serde_json::json!({"command": "rm -rf build"})).with_session("sess-1")
}

/// `hook_id: outcome` per receipt, in order.
fn outcomes(receipts: &[Receipt]) -> Vec<(&str, Outcome)> {
    receipts.iter().map(|r| (r.hook_id.as_str(), r.outcome)).collect()
}

#[test]
fn receipts_of_every_outcome_from_one_real_dispatch() {
    let fixture = every_outcome();
    let ring = Arc::new(RingSink::new(64));
    let state = tempfile::tempdir().unwrap();
    let file = Arc::new(FileSink::new(state.path().join("receipts.jsonl")));
    let pipeline = fixture.builder().receipt_sink(ring.clone()).receipt_sink(file.clone()).build().unwrap();

    let result = dispatch(&pipeline, &input());
    assert_eq!(result.verdict, Verdict::Deny);
    assert!(result.diagnostics.is_empty(), "{:?}", result.diagnostics);

    let receipts = ring.snapshot();
    let mut seen = outcomes(&receipts);
    seen.sort_by_key(|(id, _)| *id);
    assert_eq!(
        seen,
        [
            ("a.cancelled", Outcome::Cancelled),
            ("b.blocked", Outcome::Blocked),
            ("c.ok", Outcome::CommandOk),
            ("d.failed", Outcome::CommandFailed),
            ("e.timeout", Outcome::CommandTimeout),
            ("f.prompt", Outcome::Emitted),
            ("g.disabled", Outcome::Skipped),
            ("h.untrusted", Outcome::Untrusted),
        ]
    );
    assert_eq!(receipts.len(), result.runs.len(), "one receipt per run summary");
    for (receipt, run) in receipts.iter().zip(&result.runs) {
        assert_eq!((&receipt.hook_id, receipt.duration_ms), (&run.hook_id, run.duration_ms));
        assert_eq!((receipt.tool_name.as_deref(), receipt.session_id.as_deref()), (Some("shell"), Some("sess-1")));
        assert!(receipt.time.ends_with('Z') && receipt.prev.is_none());
    }
    for receipt in &receipts {
        let file = if receipt.hook_id == "h.untrusted" { ".hooks/hooks.yaml" } else { "hooks.yaml" };
        assert!(receipt.source.ends_with(file), "{} from {}", receipt.hook_id, receipt.source);
    }
    let timeout = receipts.iter().find(|r| r.hook_id == "e.timeout").unwrap();
    assert!(timeout.duration_ms >= 150 && timeout.duration_ms < 5_000, "{}", timeout.duration_ms);

    let report = verify(file.path(), None).unwrap();
    assert!(report.is_intact(), "{report:#?}");
    assert_eq!(report.lines, receipts.len() as u64);

    insta::assert_yaml_snapshot!("receipts_of_every_outcome", receipts, {
        "[].time" => "[time]",
        "[].duration_ms" => "[duration]",
        "[].source" => "[source]",
    });
}

/// A state directory where `hooks` is a regular file: the receipt directory can never be created, even as root.
fn blocked_sink() -> (tempfile::TempDir, Arc<FileSink>) {
    let state = tempfile::tempdir().unwrap();
    std::fs::write(state.path().join("hooks"), "a file where a directory should be").unwrap();
    let sink = Arc::new(FileSink::new(state.path().join("hooks/receipts/ws.jsonl")));
    (state, sink)
}

/// Checks a dispatch's verdict and that its diagnostics are exactly one line naming the failing sink and why.
fn check(result: &DispatchResult, verdict: Verdict, sink: &FileSink) {
    assert_eq!(result.verdict, verdict);
    let [diagnostic] = &result.diagnostics[..] else { panic!("expected one diagnostic: {:?}", result.diagnostics) };
    assert!(diagnostic.contains(&format!("file:{}", sink.path().display())), "{diagnostic}");
    assert!(diagnostic.contains("creating the directory"), "{diagnostic}");
}

#[test]
fn uncreatable_receipt_path_keeps_every_verdict_and_says_why_once_per_dispatch() {
    let fixture = Fixture::new();
    fixture.user_hooks(
        r#"
- {id: guard, on: pre_tool, kind: command, shell: "echo 'no rm here' >&2; exit 2"}
- {id: note, on: post_tool, kind: command, shell: "echo noted"}
"#,
    );
    let (_state, sink) = blocked_sink();
    let ring = Arc::new(RingSink::new(64));
    let pipeline = fixture.builder().receipt_sink(sink.clone()).receipt_sink(ring.clone()).build().unwrap();

    let denied = dispatch(&pipeline, &input());
    check(&denied, Verdict::Deny, &sink);
    assert_eq!(denied.reason.as_deref(), Some("no rm here"));
    let post = pipeline_support::post_tool("shell");
    let passed = dispatch(&pipeline, &post);
    check(&passed, Verdict::Pass, &sink);
    assert_eq!(ring.snapshot().len(), denied.runs.len() + passed.runs.len(), "the other sink kept recording");
}

#[test]
fn steadily_slow_real_dispatches_raise_one_budget_diagnostic() {
    let fixture = Fixture::new();
    fixture.user_hooks("- {id: slow, on: pre_tool, kind: command, shell: 'sleep 0.05'}");
    let budget = BudgetConfig { budget: Duration::from_millis(1), warmup: 1, window: 3, slow_fraction: 0.5 };
    let pipeline = fixture.builder().budgets(Budgets::new().with(Event::PreTool, budget)).build().unwrap();
    let diagnostics: Vec<Vec<String>> = (0..4).map(|_| dispatch(&pipeline, &input()).diagnostics).collect();
    let fired: Vec<usize> = (0..4).filter(|i| !diagnostics[*i].is_empty()).map(|i| i + 1).collect();
    assert_eq!(fired, [4], "warm-up 1, then a full window of 3: {diagnostics:#?}");
    assert!(diagnostics[3][0].contains("`pre_tool` dispatches are steadily over their 1 ms budget"));
}
