//! The one deadline: it covers the stdin write, kills the whole group, and keeps what was captured.

use crate::common;

use std::time::{Duration, Instant};

use common::{Scratch, assert_group_dead, deadline, run_sh};
use hook_exec::{Exit, Invocation, run, run_cancellable};

#[tokio::test]
async fn unread_64mib_payload_to_sleep_times_out_within_a_few_seconds() {
    // The write of a payload nobody reads must be under the deadline, or this hangs for 30 s (or forever).
    let inv = Invocation::argv(["sleep", "30"]).stdin(vec![b'x'; 64 << 20]);
    let start = Instant::now();
    let result = run(&inv, &deadline(Duration::from_secs(1))).await;
    let elapsed = start.elapsed();
    assert!(result.timed_out, "{result:?}");
    assert_eq!(result.exit, Some(Exit::Signal(9)));
    assert!(!result.success());
    assert!(elapsed < Duration::from_secs(6), "took {elapsed:?}");
}

#[tokio::test]
async fn deadline_kills_background_and_foreground_grandchildren() {
    let s = Scratch::new();
    // dash forks even for the last command, so both sleeps are grandchildren of the run's leader.
    let script = format!("echo $$ > {}; sleep 30 & echo $! > {}; sleep 30", s.quoted("leader"), s.quoted("bg"));
    let (result, elapsed) = run_sh(&script, Duration::from_secs(1)).await;
    assert!(result.timed_out, "{result:?}");
    assert!(elapsed < Duration::from_secs(6), "took {elapsed:?}");
    assert_group_dead(s.pid("leader"), &[s.pid("bg")]).await;
}

#[tokio::test]
async fn timeout_keeps_output_written_before_the_kill() {
    let (result, _) = run_sh("printf partial; printf oops >&2; sleep 30", Duration::from_secs(1)).await;
    assert!(result.timed_out && !result.cancelled);
    assert_eq!(result.stdout, b"partial");
    assert_eq!(result.stderr, b"oops");
    assert_eq!(result.exit, Some(Exit::Signal(9)));
}

#[tokio::test]
async fn cancellation_kills_the_group_and_returns_what_was_captured() {
    let s = Scratch::new();
    let script = format!(
        "echo $$ > {}; echo started; sleep 30 & echo $! > {}; touch {}; wait",
        s.quoted("leader"),
        s.quoted("bg"),
        s.quoted("ready")
    );
    let ready = s.path("ready");
    let cancel = async move {
        while !ready.exists() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let start = Instant::now();
    let result = run_cancellable(&Invocation::shell(script), &deadline(Duration::from_secs(30)), cancel).await;
    assert!(result.cancelled && !result.timed_out, "{result:?}");
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(result.stdout_lossy(), "started\n");
    assert!(!result.success());
    assert_group_dead(s.pid("leader"), &[s.pid("bg")]).await;
}
