//! `policy` hooks: Rego evaluated in-process on real files. What the example policy answers, and every way an
//! evaluation can fail (an error, an undefined or malformed answer, the time limit, the memory limit) denies a gate
//! with the reason; an evaluation that runs long holds up no other dispatch.
//!
//! This binary's allocator reports to the pipeline (`allocator`), as the `hook` binary's does, so the memory limit
//! holds here. The tests that read the process's peak memory, and the one that leaves a runaway thread behind, run in
//! a process of their own (`hook_testkit::alone`).

use crate::pipeline_support;
use hook_testkit::hook_server;
use hook_testkit::runaway_policies;

use std::time::{Duration, Instant};

use hook_types::{EntryKind, RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

const EXAMPLE: &str = include_str!("../../../../examples/policy/policy/hooks.rego");

fn policy_fixture(rego: &str, query: &str, event: &str) -> Fixture {
    timed_policy_fixture(rego, query, event, 300)
}

fn timed_policy_fixture(rego: &str, query: &str, event: &str, timeout_ms: u64) -> Fixture {
    let fixture = Fixture::new();
    fixture.write("policy/p.rego", rego);
    let path = fixture.ws.join("policy/p.rego");
    fixture.user_hooks(&format!(
        "- {{id: policy, on: {event}, kind: policy, files: [\"{}\"], query: {query}, timeout_ms: {timeout_ms}}}\n",
        path.display()
    ));
    fixture
}

#[test]
fn the_example_policy_denies_and_passes_in_process() {
    let fixture = policy_fixture(EXAMPLE, "data.hooks.pre_tool.decision", "pre_tool");
    let pipeline = fixture.pipeline();
    let mut input = pre_tool("shell", json!({"command": "git push --force"}));
    input.cwd = Some(fixture.ws.display().to_string());
    let result = dispatch(&pipeline, &input);
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    assert!(result.reason.unwrap().contains("force pushes rewrite shared history"));
    let mut input = pre_tool("write", json!({"file_path": "src/lib.rs", "content": ""}));
    input.cwd = Some(fixture.ws.display().to_string());
    let result = dispatch(&pipeline, &input);
    assert_eq!(result.verdict, Verdict::Pass, "{}", render(&result));
    assert_eq!(status_of(&result, "policy"), RunStatus::Completed);
}

#[test]
fn a_list_of_effects_is_an_answer() {
    let rego = "package p\nimport rego.v1\nanswer := [{\"kind\": \"block_tool\", \"reason\": \"listed\"}] if input.tool == \"shell\"\ndefault answer := []\n";
    let fixture = policy_fixture(rego, "data.p.answer", "pre_tool");
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    assert_eq!(result.reason.as_deref(), Some("listed"));
}

#[test]
fn every_evaluation_failure_denies_a_gate_with_the_reason() {
    let cases = [
        (
            "an undefined answer",
            "package p\nimport rego.v1\nd := {\"decision\": \"deny\"} if input.tool == \"nothing\"\n",
            "undefined",
        ),
        ("a malformed answer", "package p\nimport rego.v1\nd := 42\n", "a number"),
        (
            "an unknown decision",
            "package p\nimport rego.v1\nd := {\"decision\": \"maybe\"}\n",
            "unknown decision `maybe`",
        ),
        ("an unknown field", "package p\nimport rego.v1\nd := {\"verdict\": \"deny\"}\n", "unknown field `verdict`"),
        (
            "a builtin error",
            "package p\nimport rego.v1\nd := {\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [to_number(\"x\")])}\n",
            "failed to evaluate",
        ),
        // The failing builtin sits in the body of a rule that would deny, under a default that passes: an engine that
        // drops a failing body as `undefined` (regorus 0.14's bytecode VM does, strict builtin errors or not) answers
        // `pass` here, so this case is what keeps a policy from allowing more than it says.
        (
            "a builtin error in a deny rule's body",
            "package p\nimport rego.v1\ndefault d := {\"decision\": \"pass\"}\n\
             d := {\"decision\": \"deny\", \"reason\": \"big\"} if count(deny) > 0\n\
             deny contains \"big\" if to_number(input.input.command) > 5\n",
            "failed to evaluate",
        ),
        (
            "the time limit",
            "package p\nimport rego.v1\nd := {\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [count([1 | some a in numbers.range(1, 20000); some b in numbers.range(1, 20000); a == b + 30000])])}\n",
            "timed out after 300 ms",
        ),
    ];
    for (what, rego, says) in cases {
        let fixture = policy_fixture(rego, "data.p.d", "pre_tool");
        let started = Instant::now();
        let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
        assert!(started.elapsed() < Duration::from_secs(20), "{what}: took {:?}", started.elapsed());
        assert_eq!(result.verdict, Verdict::Deny, "{what}: {}", render(&result));
        let reason = result.reason.clone().unwrap_or_default();
        assert!(reason.starts_with("hook `policy`") && reason.contains(says), "{what}: {reason}");
        assert!(matches!(status_of(&result, "policy"), RunStatus::Failed | RunStatus::TimedOut), "{what}");
    }
}

#[test]
fn an_evaluation_failure_on_an_observer_is_an_error_entry() {
    let fixture = policy_fixture("package p\nimport rego.v1\nd := 42\n", "data.p.d", "post_tool");
    let result = dispatch(&fixture.pipeline(), &post_tool("shell"));
    assert_ne!(result.verdict, Verdict::Deny);
    assert!(result.runs[0].entries.iter().any(|e| e.kind == EntryKind::Error && e.text.contains("a number")));
}

#[test]
fn a_workspace_policy_needs_trust_and_its_files_are_pinned() {
    let fixture = Fixture::new();
    fixture.write("policy/p.rego", "package p\nimport rego.v1\nd := {\"decision\": \"allow\"}\n");
    fixture.project_hooks("- {id: policy, on: pre_tool, kind: policy, files: [policy/p.rego], query: data.p.d}\n");
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(status_of(&result, "policy"), RunStatus::Untrusted);
    fixture.trust_all();
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Allow, "{}", render(&result));
    // An edit of the Rego is an edit of what runs: trusted no more.
    fixture
        .write("policy/p.rego", "package p\nimport rego.v1\nd := {\"decision\": \"allow\", \"reason\": \"edited\"}\n");
    let config = fixture.load();
    assert_eq!(config.hooks[0].trust, hook_config::TrustStatus::Modified);
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(status_of(&result, "policy"), RunStatus::Untrusted);
}

#[test]
fn the_opa_endpoint_answers_as_the_policy_does_in_process() {
    let server = hook_server::HookServer::start(&[("hooks.rego".into(), EXAMPLE.into())]);
    let local = policy_fixture(EXAMPLE, "data.hooks.pre_tool.decision", "pre_tool");
    let remote = Fixture::new();
    remote.user_hooks(&format!(
        "- {{id: policy, on: pre_tool, kind: http, format: opa, url: \"{}\", timeout_ms: 2000}}\n",
        server.url("/v1/data/hooks/pre_tool/decision")
    ));
    let commands = ["git push -f", "ls", "echo AKIAIOSFODNN7EXAMPLE", "git push origin +main", "password=abcdefghij"];
    for command in commands {
        let input = pre_tool("shell", json!({"command": command}));
        let (a, b) = (dispatch(&local.pipeline(), &input), dispatch(&remote.pipeline(), &input));
        assert_eq!((a.verdict, &a.reason), (b.verdict, &b.reason), "{command}");
    }
}

/// This process's peak resident memory so far (`VmHWM`), in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

const GIB: u64 = 1 << 30;

/// Dispatches a pre_tool `shell` call on `fixture`'s hooks with a receipt ring; the result, its receipt of hook
/// `policy`, and how long the dispatch took.
fn dispatch_with_receipt(
    fixture: &Fixture,
    event_input: &hook_middleware::EventInput,
) -> (hook_middleware::DispatchResult, hook_types::Receipt, Duration) {
    let ring = std::sync::Arc::new(hook_middleware::receipts::RingSink::new(8));
    let pipeline = fixture.builder().receipt_sink(ring.clone()).build().unwrap();
    let started = Instant::now();
    let result = dispatch(&pipeline, event_input);
    let took = started.elapsed();
    let receipt = ring.snapshot().into_iter().find(|r| r.hook_id == "policy").expect("a receipt of the policy hook");
    (result, receipt, took)
}

#[test]
fn a_policy_that_asks_for_ten_billion_numbers_denies_at_its_memory_limit_and_never_aborts() {
    if !hook_testkit::alone::in_own_process(
        module_path!(),
        "a_policy_that_asks_for_ten_billion_numbers_denies_at_its_memory_limit_and_never_aborts",
    ) {
        return;
    }
    let fixture = timed_policy_fixture(runaway_policies::HUGE_RANGE, "data.p.d", "pre_tool", 5_000);
    let (result, receipt, took) = dispatch_with_receipt(&fixture, &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    let reason = result.reason.clone().unwrap_or_default();
    assert!(reason.contains("ran past its memory limit of 256 MiB"), "{reason}");
    assert_eq!(status_of(&result, "policy"), RunStatus::Failed);
    assert_eq!(receipt.bound, Some(hook_types::Bound::Memory), "{receipt:?}");
    assert!(took < Duration::from_secs(5), "stopped at the allocation, not at the timeout: {took:?}");
    assert!(peak_rss() < GIB, "peak RSS {} MiB", peak_rss() >> 20);
}

#[test]
fn a_string_that_doubles_past_the_memory_limit_on_an_observer_is_an_error_entry() {
    if !hook_testkit::alone::in_own_process(
        module_path!(),
        "a_string_that_doubles_past_the_memory_limit_on_an_observer_is_an_error_entry",
    ) {
        return;
    }
    let fixture = timed_policy_fixture(&runaway_policies::doubling_string(), "data.p.d", "post_tool", 30_000);
    let started = Instant::now();
    let result = dispatch(&fixture.pipeline(), &post_tool("shell"));
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    assert_ne!(result.verdict, Verdict::Deny);
    let entries = entries_of(&result, "policy");
    assert!(entries.contains("ran past its memory limit of 256 MiB"), "{entries}");
    assert!(result.runs[0].entries.iter().any(|e| e.kind == EntryKind::Error), "{}", render(&result));
    assert!(peak_rss() < GIB, "peak RSS {} MiB", peak_rss() >> 20);
}

#[test]
fn a_builtin_that_never_looks_at_the_timer_is_given_up_at_the_timeout() {
    if !hook_testkit::alone::in_own_process(
        module_path!(),
        "a_builtin_that_never_looks_at_the_timer_is_given_up_at_the_timeout",
    ) {
        return;
    }
    // `indexof_n` runs for 13 s in one builtin call on the shared development machine; the dispatch answers at the
    // hook's 300 ms. (The thread it leaves runs on until its process
    // exits: that process is its own, `hook_testkit::alone`.)
    let fixture = timed_policy_fixture(&runaway_policies::quadratic_search(18), "data.p.d", "pre_tool", 300);
    let (result, receipt, took) = dispatch_with_receipt(&fixture, &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    let reason = result.reason.clone().unwrap_or_default();
    assert!(reason.contains("timed out after 300 ms"), "{reason}");
    assert_eq!(status_of(&result, "policy"), RunStatus::TimedOut);
    assert_eq!((receipt.outcome, receipt.bound), (hook_types::Outcome::CommandTimeout, Some(hook_types::Bound::Time)));
    assert!(took < Duration::from_secs(5), "the dispatch waited {took:?} for a 300 ms timeout");
}

#[test]
fn a_stuck_evaluation_in_one_dispatch_holds_up_no_other_dispatch_of_the_same_policy() {
    let fixture = timed_policy_fixture(runaway_policies::SLOW_UNLESS_QUICK, "data.p.d", "pre_tool", 6_000);
    let pipeline = fixture.pipeline();
    let stuck = {
        let pipeline = pipeline.clone();
        std::thread::spawn(move || {
            let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "slow"})));
            (result, Instant::now())
        })
    };
    // Let the slow evaluation start first, so the quick one finds the policy busy.
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let quick = dispatch(&pipeline, &pre_tool("shell", json!({"command": "quick"})));
    let (took, finished) = (started.elapsed(), Instant::now());
    assert_eq!(quick.verdict, Verdict::Pass, "{}", render(&quick));
    assert_eq!(quick.runs[0].entries.len(), 0, "{}", render(&quick));
    assert!(took < Duration::from_secs(3), "the quick dispatch waited {took:?}");
    let (slow, slow_finished) = stuck.join().unwrap();
    assert!(finished < slow_finished, "the quick dispatch returned first");
    assert_eq!(slow.verdict, Verdict::Deny, "{}", render(&slow));
    assert_eq!(status_of(&slow, "policy"), RunStatus::TimedOut);
}

#[test]
fn a_memory_limit_of_zero_is_refused_when_the_pipeline_is_built() {
    let fixture = Fixture::new();
    let limits = hook_types::Limits { evaluation_memory_bytes: 0, ..Default::default() };
    let error = fixture.builder().limits(limits).build().unwrap_err().to_string();
    assert!(error.contains("evaluation_memory_bytes") && error.contains("is 0"), "{error}");
}
