//! `async: true` observers and host-evaluated hooks (`kind: evaluated`, Claude Code's `type: "prompt"`), through
//! real files, a real pipeline and real subprocesses.

use crate::pipeline_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hook_middleware::pipeline::{EvalError, Evaluation, EvaluationFuture, EvaluationRequest, HostEvaluator};
use hook_middleware::receipts::RingSink;
use hook_types::{HookKind, Outcome, RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

#[test]
fn an_async_hook_that_sleeps_two_seconds_leaves_the_dispatch_at_once_and_its_receipt_is_written_when_it_ends() {
    let fx = Fixture::new();
    fx.user_hooks(
        "- {id: slow-log, on: post_tool, kind: command, async: true, shell: 'sleep 2; echo done > $OUT/async-done'}",
    );
    let ring = Arc::new(RingSink::new(16));
    let pipeline = fx.builder().receipt_sink(ring.clone()).build().unwrap();
    let rt = runtime();
    let started = Instant::now();
    let result = rt.block_on(pipeline.dispatch(&post_tool("shell")));
    let took = started.elapsed();
    eprintln!("dispatch with a 2 s async hook took {took:?}");
    // The bench measures it (under 50 ms); here only what no noisy machine can miss.
    assert!(took < Duration::from_millis(1_500), "the dispatch waited for its async hook: {took:?}");
    assert_eq!(result.background, ["slow-log"]);
    assert!(result.runs.is_empty(), "an async hook has no run summary in its dispatch: {:?}", result.runs);
    assert!(ring.snapshot().is_empty(), "its receipt comes when it ends");
    assert_eq!(pipeline.background_running(), 1);

    let report = rt.block_on(pipeline.finish_background(Duration::from_secs(20)));
    assert_eq!((report.finished, report.cancelled), (1, 0));
    assert_eq!(fx.read_out("async-done").as_deref(), Some("done\n"));
    let receipts = ring.snapshot();
    assert_eq!(receipts.len(), 1);
    let receipt = &receipts[0];
    assert_eq!(
        (receipt.hook_id.as_str(), receipt.kind, receipt.outcome),
        ("slow-log", HookKind::Command, Outcome::CommandOk)
    );
    assert!(receipt.duration_ms >= 1_900, "it ran its whole two seconds: {receipt:?}");
    assert_eq!(receipt.tool_name.as_deref(), Some("shell"));
}

#[test]
fn a_host_that_exits_stops_its_async_hooks_at_the_bound_kills_them_and_says_so_in_their_receipts() {
    let fx = Fixture::new();
    fx.user_hooks(
        "- {id: stuck, on: session_end, kind: command, async: true, shell: 'echo $$ > $OUT/pid; exec sleep 30'}",
    );
    let ring = Arc::new(RingSink::new(16));
    let pipeline = fx.builder().receipt_sink(ring.clone()).build().unwrap();
    let rt = runtime();
    let result = rt.block_on(pipeline.dispatch(&hook_middleware::EventInput::new(hook_types::Event::SessionEnd)));
    assert_eq!(result.background, ["stuck"]);
    assert!(eventually(Duration::from_secs(10), || fx.read_out("pid").is_some_and(|p| p.ends_with('\n'))));
    let pid: i32 = fx.read_out("pid").unwrap().trim().parse().unwrap();
    assert!(!is_dead(pid));

    let report = rt.block_on(pipeline.finish_background(Duration::from_millis(200)));
    assert_eq!((report.finished, report.cancelled), (0, 1));
    assert!(is_dead(pid), "the async hook outlived its host");
    let receipts = ring.snapshot();
    assert_eq!(receipts.len(), 1, "{receipts:?}");
    assert_eq!(receipts[0].outcome, Outcome::Cancelled);
}

#[test]
fn async_true_is_refused_on_a_gate_and_on_hooks_that_are_not_commands() {
    let fx = Fixture::new();
    fx.project_hooks(
        "- {id: gate, on: pre_tool, kind: command, async: true, shell: 'true'}\n\
         - {id: decision, on: turn_end, kind: command, async: true, shell: 'true'}\n\
         - {id: note, on: post_tool, kind: prompt, async: true, message: hi}\n\
         - {id: fine, on: notification, kind: command, async: true, shell: 'true'}\n",
    );
    let config = hook_config::load(&fx.layout(), &hook_config::LoadOptions::default()).unwrap();
    let messages: Vec<(Option<String>, String)> =
        config.issues.iter().map(|i| (i.hook_id.clone(), i.message.clone())).collect();
    assert_eq!(
        messages,
        [
            (
                Some("gate".to_owned()),
                "`async: true` is for observers (post_tool, session_start, session_end, notification, compaction); \
                 pre_tool is a gate event, whose answer the dispatch must wait for: remove `async` or move the hook \
                 to an observer event"
                    .to_owned()
            ),
            (
                Some("decision".to_owned()),
                "`async: true` is for observers (post_tool, session_start, session_end, notification, compaction); \
                 turn_end is a decision event, whose answer the dispatch must wait for: remove `async` or move the \
                 hook to an observer event"
                    .to_owned()
            ),
            (
                Some("note".to_owned()),
                "`async: true` applies to command hooks only, not prompt hooks: remove `async`".to_owned()
            ),
        ]
    );
    assert!(config.issues.iter().all(|i| i.severity == hook_config::IssueSeverity::Error));
    let loaded: Vec<(&str, bool)> = config.hooks.iter().map(|h| (h.decl.id.as_str(), h.decl.run_async)).collect();
    assert_eq!(loaded, [("fine", true)]);
}

/// A stand-in for a model: denies a command that deletes recursively, and keeps every request it saw.
#[derive(Default)]
struct Careful {
    seen: Mutex<Vec<(String, String)>>,
    delay: Option<Duration>,
}

impl HostEvaluator for Careful {
    fn evaluate<'a>(&'a self, request: EvaluationRequest<'a>) -> EvaluationFuture<'a> {
        Box::pin(async move {
            self.seen.lock().unwrap().push((request.hook_id.to_owned(), request.full_prompt()));
            if let Some(delay) = self.delay {
                tokio::time::sleep(delay).await;
            }
            let payload: serde_json::Value =
                serde_json::from_str(request.payload).map_err(|e| EvalError::new(e.to_string()))?;
            Ok(if payload["tool_input"]["command"].as_str().is_some_and(|c| c.contains("rm -rf")) {
                Evaluation::deny("the model finds `rm -rf` too broad")
            } else {
                Evaluation::pass()
            })
        })
    }
}

const CLAUDE_PROMPT_HOOK: &str = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "prompt", "prompt": "Is this command safe? $ARGUMENTS", "timeout": 5}
]}]}}"#;

#[test]
fn a_host_evaluator_denies_through_a_claude_prompt_hook() {
    let fx = Fixture::new();
    fx.write(".claude/settings.json", CLAUDE_PROMPT_HOOK);
    fx.trust_all();
    let careful = Arc::new(Careful::default());
    let pipeline = fx.builder().evaluator(careful.clone()).build().unwrap();

    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "rm -rf /"})));
    assert_eq!(result.verdict, Verdict::Deny);
    assert_eq!(result.reason.as_deref(), Some("the model finds `rm -rf` too broad"));
    assert_eq!(result.runs.len(), 1);
    assert_eq!(result.runs[0].status, RunStatus::Blocked);
    assert!(result.runs[0].hook_id.starts_with("claude.evaluated."), "{:?}", result.runs[0]);

    let seen = careful.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    // The prompt with Claude Code's `$ARGUMENTS` filled with the Claude payload (the agent's tool name).
    assert!(seen[0].1.starts_with("Is this command safe? {"), "{}", seen[0].1);
    assert!(seen[0].1.contains(r#""tool_name":"Bash""#), "{}", seen[0].1);

    let allowed = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(allowed.verdict, Verdict::Pass);
    assert_eq!(allowed.runs[0].status, RunStatus::Completed);
}

#[test]
fn without_an_evaluator_a_prompt_hook_is_skipped_with_why_and_the_session_is_told_once() {
    let fx = Fixture::new();
    fx.write(".claude/settings.json", CLAUDE_PROMPT_HOOK);
    fx.trust_all();
    let pipeline = fx.pipeline();
    let input = pre_tool("shell", json!({"command": "rm -rf /"})).with_session("s-1");

    let first = dispatch(&pipeline, &input);
    // Claude Code's hooks fail open: skipped, and the tool call goes ahead.
    assert_eq!(first.verdict, Verdict::Pass);
    assert_eq!(first.runs[0].status, RunStatus::Skipped);
    assert!(entries_of(&first, &first.runs[0].hook_id).contains("this host has no evaluator"));
    assert_eq!(first.notices.len(), 1, "{:?}", first.notices);
    assert!(first.notices[0].contains("this host has no model to evaluate prompt hooks"), "{}", first.notices[0]);

    let second = dispatch(&pipeline, &input);
    assert_eq!(second.runs[0].status, RunStatus::Skipped);
    assert!(second.notices.is_empty(), "told once per session: {:?}", second.notices);
}

#[test]
fn a_native_evaluated_gate_fails_closed_without_an_evaluator_and_when_the_evaluator_is_too_slow() {
    let fx = Fixture::new();
    fx.user_hooks("- {id: judge, on: pre_tool, kind: evaluated, prompt: 'Is this safe?', timeout_ms: 200}");
    let without = dispatch(&fx.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(without.verdict, Verdict::Deny);
    assert_eq!(without.runs[0].status, RunStatus::Skipped);
    assert_eq!(without.reason.as_deref(), Some("hook `judge` was not evaluated: this host has no model to answer it"));

    let slow = Arc::new(Careful { delay: Some(Duration::from_secs(5)), ..Careful::default() });
    let pipeline = fx.builder().evaluator(slow).build().unwrap();
    let late = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(late.verdict, Verdict::Deny);
    assert_eq!(late.runs[0].status, RunStatus::TimedOut);
    assert!(late.reason.as_deref().is_some_and(|r| r.contains("no answer from the host's evaluator within 200 ms")));
}

/// An evaluator that misbehaves: it blocks its thread in `poll` (a synchronous call inside an `async` block) for
/// `block`, then answers with `reason_bytes` bytes of reason.
struct Misbehaving {
    block: Duration,
    reason_bytes: usize,
}

impl HostEvaluator for Misbehaving {
    fn evaluate<'a>(&'a self, _: EvaluationRequest<'a>) -> EvaluationFuture<'a> {
        Box::pin(async move {
            std::thread::sleep(self.block);
            Ok(Evaluation::deny("x".repeat(self.reason_bytes)))
        })
    }
}

#[test]
fn an_evaluator_that_blocks_its_thread_is_held_to_the_hook_timeout() {
    let fx = Fixture::new();
    fx.user_hooks("- {id: judge, on: pre_tool, kind: evaluated, prompt: 'Is this safe?', timeout_ms: 300}");
    let ring = Arc::new(RingSink::new(4));
    let blocking = Arc::new(Misbehaving { block: Duration::from_secs(10), reason_bytes: 1 });
    let pipeline = fx.builder().evaluator(blocking).receipt_sink(ring.clone()).build().unwrap();
    let started = Instant::now();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "the dispatch waited {took:?} for a 300 ms timeout");
    assert_eq!(result.verdict, Verdict::Deny);
    assert_eq!(result.runs[0].status, RunStatus::TimedOut);
    assert!(result.reason.as_deref().is_some_and(|r| r.contains("no answer from the host's evaluator within 300 ms")));
    let receipt = ring.snapshot().into_iter().find(|r| r.hook_id == "judge").unwrap();
    assert_eq!(receipt.bound, Some(hook_types::Bound::Time));
}

#[test]
fn an_evaluator_answer_past_the_capture_limit_fails_the_hook() {
    let fx = Fixture::new();
    fx.user_hooks("- {id: judge, on: pre_tool, kind: evaluated, prompt: 'Is this safe?', timeout_ms: 5000}");
    let verbose = Arc::new(Misbehaving { block: Duration::ZERO, reason_bytes: 2 << 20 });
    let pipeline = fx.builder().evaluator(verbose).build().unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Deny);
    assert_eq!(result.runs[0].status, RunStatus::Failed);
    let reason = result.reason.unwrap_or_default();
    assert!(reason.contains("past the limit of 1048576") && reason.len() < 200, "{reason}");
}

#[test]
fn async_hooks_are_bounded_in_number_and_one_past_the_bound_is_skipped_with_why() {
    use hook_middleware::pipeline::MAX_BACKGROUND;
    let fx = Fixture::new();
    fx.user_hooks("- {id: slow, on: notification, kind: command, async: true, shell: 'exec sleep 30'}");
    let pipeline = fx.pipeline();
    let rt = runtime();
    let input = hook_middleware::EventInput::new(hook_types::Event::Notification);
    for _ in 0..MAX_BACKGROUND {
        let result = rt.block_on(pipeline.dispatch(&input));
        assert_eq!(result.background, ["slow"]);
    }
    let past = rt.block_on(pipeline.dispatch(&input));
    assert!(past.background.is_empty());
    assert_eq!(past.runs.len(), 1);
    assert_eq!(past.runs[0].status, RunStatus::Skipped);
    assert!(entries_of(&past, "slow").contains("async hooks of this host are still running"), "{past:?}");
    let report = rt.block_on(pipeline.finish_background(Duration::from_millis(100)));
    assert_eq!((report.finished, report.cancelled), (0, MAX_BACKGROUND));
    assert_eq!(pipeline.background_running(), 0);
}
