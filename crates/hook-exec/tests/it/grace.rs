//! After the leader exits: EOF ends the run, a held pipe gets the grace, a detached child is left alone.

use crate::common;

use std::time::Duration;

use common::{Scratch, assert_group_dead, eventually, is_dead, kill, run_sh};
use hook_exec::Exit;

const LONG: Duration = Duration::from_secs(30);

#[tokio::test]
async fn backgrounded_grandchild_holding_stdout_costs_only_the_grace() {
    let s = Scratch::new();
    let script = format!("echo $$ > {}; sleep 30 & echo $! > {}; echo done", s.quoted("leader"), s.quoted("bg"));
    let (result, elapsed) = run_sh(&script, LONG).await;
    assert_eq!(result.stdout_lossy(), "done\n");
    assert_eq!(result.exit, Some(Exit::Code(0)), "the leader's status is kept: {result:?}");
    assert!(!result.timed_out && result.success());
    assert!(elapsed < Duration::from_secs(10), "waited for the held pipe: {elapsed:?}");
    assert!(result.warnings.iter().any(|w| w.contains("held stdout or stderr")), "{:?}", result.warnings);
    assert_group_dead(s.pid("leader"), &[s.pid("bg")]).await;
}

#[tokio::test]
async fn detached_child_with_redirected_output_is_left_alone() {
    let s = Scratch::new();
    let script = format!("sleep 30 >/dev/null 2>&1 & echo $! > {}; exit 0", s.quoted("bg"));
    let (result, elapsed) = run_sh(&script, LONG).await;
    let bg = s.pid("bg");
    let alive = !is_dead(bg);
    kill(bg);
    assert!(result.success() && result.warnings.is_empty(), "{result:?}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert!(alive, "the detached child was killed although it released the pipes");
    assert!(eventually(Duration::from_secs(5), || is_dead(bg)).await);
}

#[tokio::test]
async fn descendant_that_left_the_group_is_reported_not_waited_for() {
    let s = Scratch::new();
    // Without job control the background job shares the shell's group, so setsid execs sleep without forking.
    let script = format!("setsid sleep 30 & echo $! > {}; echo done", s.quoted("escaped"));
    let (result, elapsed) = run_sh(&script, LONG).await;
    kill(s.pid("escaped"));
    assert_eq!(result.stdout_lossy(), "done\n");
    assert_eq!(result.exit, Some(Exit::Code(0)));
    assert!(!result.timed_out);
    assert!(elapsed < Duration::from_secs(10), "waited for a process out of reach: {elapsed:?}");
    assert!(result.warnings.iter().any(|w| w.contains("setsid")), "{:?}", result.warnings);
}

#[tokio::test]
async fn run_waits_for_the_leader_after_both_outputs_close() {
    let (result, _) = run_sh("echo early; exec >&- 2>&-; sleep 1; exit 4", LONG).await;
    assert_eq!(result.exit, Some(Exit::Code(4)), "{result:?}");
    assert_eq!(result.stdout_lossy(), "early\n");
    assert!(result.warnings.is_empty());
}
