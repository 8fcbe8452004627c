//! Concurrency, cancellation and deadlines with real processes: the outcome never depends on finishing order.

use crate::pipeline_support;

use std::time::{Duration, Instant};

use hook_middleware::pipeline::Concurrency;
use hook_types::{Limits, RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

/// A small xorshift: sleeps differ per run without a dependency; the seed comes from the clock.
struct Jitter(u64);

impl Jitter {
    fn new() -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        Jitter(u64::from(nanos) | 1)
    }
    fn millis(&mut self, max: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % (max + 1)
    }
}

#[test]
fn six_hooks_with_random_sleeps_fold_to_the_same_result_every_time() {
    let fx = Fixture::new();
    // Each hook sleeps for what $OUT/<id>.delay says, then answers. h1 and h3 deny: h3 has the higher precedence,
    // so h0..h2 are cancelled whatever finished first, h3's reason is shown, h4 and h5 run to their end.
    let hook = |id: &str, answer: &str| {
        format!(
            "- id: {id}\n  on: pre_tool\n  kind: command\n  shell: {}\n",
            serde_json::to_string(&format!("sleep \"$(cat $OUT/{id}.delay)\"; {answer}")).unwrap()
        )
    };
    let yaml = [
        hook("h0", "echo 'reminder from h0'"),
        hook("h1", "echo 'h1 says no' >&2; exit 2"),
        hook("h2", r#"echo '{"effects":[{"kind":"allow_tool","reason":"h2 likes it"}]}'"#),
        hook("h3", "echo 'h3 says no' >&2; exit 2"),
        hook("h4", "echo 'reminder from h4'"),
        hook("h5", r#"echo '{"effects":[{"kind":"notify_operator","message":"h5 saw it","key":"h5"}]}'"#),
    ]
    .concat();
    fx.user_hooks(&yaml);
    let pipeline = fx.pipeline();
    let rt = runtime();
    let input = pre_tool("shell", json!({"command": "make deploy"}));
    let mut jitter = Jitter::new();
    let mut first: Option<String> = None;
    let started = Instant::now();
    for run in 0..20 {
        for id in ["h0", "h1", "h2", "h3", "h4", "h5"] {
            let delay = jitter.millis(300);
            std::fs::write(fx.out_file(&format!("{id}.delay")), format!("{}.{:03}", delay / 1000, delay % 1000))
                .unwrap();
        }
        let result = rt.block_on(pipeline.dispatch(&input));
        let rendered = render(&result);
        match &first {
            None => {
                assert_eq!(result.verdict, Verdict::Deny);
                assert_eq!(result.reason.as_deref(), Some("h3 says no"));
                let statuses: Vec<RunStatus> = result.runs.iter().map(|r| r.status).collect();
                use RunStatus::*;
                assert_eq!(statuses, vec![Cancelled, Cancelled, Cancelled, Blocked, Completed, Completed]);
                insta::assert_yaml_snapshot!("determinism_runs", result.runs, {
                    "[].duration_ms" => "[duration]",
                    "[].source" => "[source]",
                    // The commands name the temp directory, so their hashes differ per run.
                    "[].hash" => "[hash]",
                });
                first = Some(rendered);
            }
            Some(first) => assert_eq!(&rendered, first, "run {run} differs"),
        }
    }
    // 20 runs of at most 300 ms of sleep each, plus spawning: generous.
    assert!(started.elapsed() < Duration::from_secs(40), "took {:?}", started.elapsed());
}

#[test]
fn a_fast_higher_deny_cancels_a_slow_lower_hook_and_leaves_no_process() {
    let fx = Fixture::new();
    // The denier waits until the sleeper has written its pid, so the sleeper is surely running when it is killed.
    fx.user_hooks(
        r#"
- id: sleeper
  on: pre_tool
  kind: command
  shell: "echo $$ > $OUT/sleeper.pid; sleep 30"
  timeout_ms: 60000
- id: denier
  on: pre_tool
  kind: command
  shell: "while [ ! -s $OUT/sleeper.pid ]; do sleep 0.01; done; echo 'not today' >&2; exit 2"
"#,
    );
    let started = Instant::now();
    let result = dispatch(&fx.pipeline(), &pre_tool("shell", json!({})));
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(10), "the dispatch took {elapsed:?}");
    assert_eq!((result.verdict, result.reason.as_deref()), (Verdict::Deny, Some("not today")));
    assert_eq!(
        statuses(&result),
        vec![("sleeper".into(), RunStatus::Cancelled), ("denier".into(), RunStatus::Blocked)]
    );
    let pid: i32 = fx.read_out("sleeper.pid").unwrap().trim().parse().unwrap();
    // The shell (the group's leader) and its `sleep 30` child: nothing of the group may be left alive.
    assert!(
        eventually(Duration::from_secs(2), || is_dead(pid) && live_members(pid).is_empty()),
        "pid {pid} group alive: {:?}",
        live_members(pid)
    );
}

#[test]
fn eight_matching_sleep_hooks_run_concurrently() {
    let fx = Fixture::new();
    let yaml: String =
        (0..8).map(|i| format!("- {{id: nap{i}, on: post_tool, kind: command, shell: \"sleep 0.3\"}}\n")).collect();
    fx.user_hooks(&yaml);
    let pipeline = fx.pipeline();
    let rt = runtime();
    rt.block_on(pipeline.dispatch(&post_tool("shell")));
    let started = Instant::now();
    let result = rt.block_on(pipeline.dispatch(&post_tool("shell")));
    let elapsed = started.elapsed();
    assert!(result.runs.iter().all(|r| r.status == RunStatus::Completed), "{result:#?}");
    assert_eq!(result.runs.len(), 8);
    // The sum is 2.4 s; concurrently it is about one sleep. The bound is generous for a loaded machine.
    assert!(elapsed < Duration::from_millis(1800), "8 × sleep 0.3 took {elapsed:?}");
}

#[test]
fn a_sequential_hook_starts_after_every_lower_precedence_hook_finished() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"
- {id: slow, on: post_tool, kind: command, shell: "echo start-slow >> $OUT/log; sleep 0.4; echo end-slow >> $OUT/log"}
- {id: quick, on: post_tool, kind: command, shell: "echo start-quick >> $OUT/log; echo end-quick >> $OUT/log"}
- {id: ordered, on: post_tool, kind: command, sequential: true, shell: "echo start-ordered >> $OUT/log"}
"#,
    );
    let result = dispatch(&fx.pipeline(), &post_tool("shell"));
    assert!(result.runs.iter().all(|r| r.status == RunStatus::Completed), "{result:#?}");
    let log = fx.read_out("log").unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let position = |line: &str| lines.iter().position(|l| *l == line).unwrap_or_else(|| panic!("{line} in {lines:?}"));
    assert!(position("start-ordered") > position("end-slow"), "{lines:?}");
    assert!(position("start-ordered") > position("end-quick"), "{lines:?}");
    // `quick` is not sequential: it did not wait for `slow`.
    assert!(position("end-quick") < position("end-slow"), "{lines:?}");
}

#[test]
fn sequential_mode_runs_command_hooks_one_at_a_time_in_precedence_order() {
    let fx = Fixture::new();
    let yaml: String = (0..4)
        .map(|i| {
            format!("- {{id: s{i}, on: post_tool, kind: command, shell: \"echo start-{i} >> $OUT/log; sleep 0.05; echo end-{i} >> $OUT/log\"}}\n")
        })
        .collect();
    fx.user_hooks(&yaml);
    let pipeline = fx.builder().concurrency(Concurrency::Sequential).build().unwrap();
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(result.runs.len(), 4);
    let expected: String = (0..4).map(|i| format!("start-{i}\nend-{i}\n")).collect();
    assert_eq!(fx.read_out("log").unwrap(), expected);
    // The host's `max_concurrency` bounds `Parallel(n)`: with 1, the same order.
    std::fs::remove_file(fx.out_file("log")).unwrap();
    let limits = Limits { max_concurrency: 1, ..Limits::default() };
    let pipeline = fx.builder().limits(limits).concurrency(Concurrency::Parallel(8)).build().unwrap();
    dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(fx.read_out("log").unwrap(), expected);
}

#[test]
fn the_dispatch_deadline_cancels_what_runs_and_a_gate_fails_closed() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"
- {id: stuck, on: pre_tool, kind: command, shell: "sleep 20", timeout_ms: 60000}
- {id: fine, on: pre_tool, kind: command, shell: "exit 0"}
- {id: observer, on: post_tool, kind: command, shell: "sleep 20", timeout_ms: 60000}
"#,
    );
    let limits = Limits { dispatch_deadline_ms: 400, ..Limits::default() };
    let pipeline = fx.builder().limits(limits).build().unwrap();
    let started = Instant::now();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({})));
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    check(
        &result,
        "verdict: deny
         reason: the dispatch deadline of 400 ms passed before `stuck` finished
         run: stuck: cancelled | Feedback: cancelled: the dispatch deadline of 400 ms passed
         run: fine: completed (exit 0)",
    );
    assert_eq!(result.diagnostics, vec!["the dispatch deadline of 400 ms passed; cancelled `stuck`".to_owned()]);
    // An observer is cancelled too, but nothing is denied.
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!((result.verdict, status_of(&result, "observer")), (Verdict::Pass, RunStatus::Cancelled));
}

#[test]
fn a_timeout_outside_the_host_limits_is_clamped_with_a_warning() {
    let fx = Fixture::new();
    fx.user_hooks(r#"- {id: hasty, on: post_tool, kind: command, shell: "sleep 0.05", timeout_ms: 10}"#);
    let result = dispatch(&fx.pipeline(), &post_tool("shell"));
    // 10 ms would have killed it; clamped to the default minimum of 100 ms it completes.
    check(
        &result,
        "verdict: pass
         run: hasty: completed (exit 0) | Warning: timeout 10 ms clamped to 100 ms by the host's limits (100 … 600000 ms)",
    );
}
