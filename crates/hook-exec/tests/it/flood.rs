//! A child that prints forever: capture stops at the cap and memory stays flat. In a process of its own
//! (`hook_testkit::alone`), so that the process's peak memory measures this run only.

use crate::common;

use std::time::{Duration, Instant};

use common::deadline;
use hook_exec::{Invocation, run};

/// Peak resident memory of this test process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("VmHWM value")
}

#[tokio::test]
async fn yes_for_two_seconds_keeps_exactly_the_cap_and_flat_memory() {
    if !hook_testkit::alone::in_own_process(module_path!(), "yes_for_two_seconds_keeps_exactly_the_cap_and_flat_memory")
    {
        return;
    }
    let opts = deadline(Duration::from_secs(2));
    let start = Instant::now();
    let result = run(&Invocation::argv(["yes"]), &opts).await;
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(result.timed_out);
    assert_eq!(result.stdout.len(), opts.capture_limit);
    assert!(result.stdout_truncated && !result.stderr_truncated);
    assert!(result.stdout.chunks(2).all(|c| c == b"y\n"));
    // `yes` writes gigabytes in 2 s; keeping them would blow far past this.
    let peak = peak_rss_kib();
    assert!(peak < 64 * 1024, "peak RSS {peak} KiB");
}
