//! A subreaper host with cgroup supervision: a descendant that left the run's group and session (`setsid`) and lost
//! its parent is adopted by the host, dies with the run's cgroup, and is reaped when the run ends — not left a
//! zombie of the host's. In a process of its own
//! (`hook_testkit::alone`): supervision changes the whole process.
#![cfg(target_os = "linux")]

use crate::common;

use std::time::Duration;

use common::{Scratch, eventually, is_dead, is_gone};
use hook_exec::{Exit, Invocation, Supervision};

#[tokio::test]
async fn an_adopted_escape_is_killed_and_reaped_when_its_run_ends() {
    if !hook_testkit::alone::in_own_process(module_path!(), "an_adopted_escape_is_killed_and_reaped_when_its_run_ends")
    {
        return;
    }
    hook_exec::supervise(Supervision { subreaper: true, watchdog: false, cgroup: true }).unwrap();
    let s = Scratch::new();
    // The shell exits at once: the escape, its stdio elsewhere, has lost its parent and is adopted by this process
    // while the run ends.
    let script = format!("setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo $! > {}; exit 0", s.quoted("escaped"));
    let result = hook_exec::run(&Invocation::shell(script), &common::deadline(Duration::from_secs(30))).await;
    assert_eq!(result.exit, Some(Exit::Code(0)), "{result:?}");
    let escaped = s.pid("escaped");
    // With a cgroup it died with it, without one the orphan sweep killed it; either way it was reaped here.
    let gone = eventually(Duration::from_secs(5), || is_gone(escaped)).await;
    if !is_dead(escaped) {
        common::kill(escaped);
    }
    assert!(gone, "the escape {escaped} is {}", if is_dead(escaped) { "a zombie left unreaped" } else { "alive" });
}
