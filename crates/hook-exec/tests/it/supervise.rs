//! The process-wide guards: a signal forwarded to every live group, and, with the subreaper on, a process that left
//! its group with `setsid` killed when the last run ends. In a process of its own
//! (`hook_testkit::alone`): both change the whole process, and it counts every live group in it.

use crate::common;

use std::time::Duration;

use common::{Scratch, eventually, is_dead};
use hook_exec::{Exit, GroupSignal, Invocation, Supervision};

#[tokio::test]
async fn forwarded_signal_reaches_every_live_group_and_setsid_escapes_die_with_the_last_run() {
    if !hook_testkit::alone::in_own_process(
        module_path!(),
        "forwarded_signal_reaches_every_live_group_and_setsid_escapes_die_with_the_last_run",
    ) {
        return;
    }
    hook_exec::supervise(Supervision { subreaper: true, watchdog: true, cgroup: false }).unwrap();
    let s = Scratch::new();
    let script = format!("(setsid sleep 300 & echo $! > {}); exec sleep 300", s.quoted("escaped"));
    let opts = common::deadline(Duration::from_secs(60));
    let inv = Invocation::shell(script);
    let run = hook_exec::run(&inv, &opts);
    let escaped = s.path("escaped");
    let forward = async {
        assert!(eventually(Duration::from_secs(20), || common::read_pid(&escaped).is_some()).await);
        assert_eq!(hook_exec::live_group_count(), 1);
        assert_eq!(hook_exec::signal_live_groups(GroupSignal::Terminate), 1);
    };
    let (result, ()) = tokio::join!(run, forward);
    assert_eq!(result.exit, Some(Exit::Signal(15)), "{result:?}");
    assert_eq!(hook_exec::live_group_count(), 0);
    let escaped = s.pid("escaped");
    assert!(eventually(Duration::from_secs(5), || is_dead(escaped)).await, "the setsid escape {escaped} survived");
}
