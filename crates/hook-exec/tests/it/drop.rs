//! Dropping the run future mid-flight: the guard kills the group synchronously and the leader is reaped.

use crate::common;

use std::time::Duration;

use common::{Scratch, assert_group_dead, eventually, is_gone};
use hook_exec::{Invocation, run};

#[tokio::test]
async fn dropping_the_run_future_mid_flight_kills_the_group() {
    let s = Scratch::new();
    let script = format!("echo $$ > {}; sleep 30 & echo $! > {}; sleep 30", s.quoted("leader"), s.quoted("bg"));
    let inv = Invocation::shell(script);
    let opts = common::deadline(Duration::from_secs(60));
    let bg_file = s.path("bg");
    let started = async {
        while common::read_pid(&bg_file).is_none() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::select! {
        result = run(&inv, &opts) => panic!("the run ended by itself: {result:?}"),
        () = started => {} // the run future is dropped here, mid-flight
    }
    let leader = s.pid("leader");
    assert_group_dead(leader, &[s.pid("bg")]).await;
    // This test process is the leader's parent: a zombie here would be a leak of ours.
    assert!(eventually(Duration::from_secs(5), || is_gone(leader)).await, "the leader was never reaped");
}
