//! Faults around a dispatch: the hook's program deleted between load and run, and the host dropping a dispatch
//! mid-flight. Each must end in a known verdict with nothing left running.

use crate::pipeline_support;

use std::time::Duration;

use hook_types::{RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

#[test]
fn a_hook_program_deleted_between_load_and_run_fails_its_gate_closed() {
    let fx = Fixture::new();
    let script = fx.script("scripts/guard.sh", "exit 0");
    fx.user_hooks(
        "- {id: guard, on: pre_tool, kind: command, argv: [./scripts/guard.sh]}\n"
            .replace("./scripts", &fx.ws.join("scripts").display().to_string())
            .as_str(),
    );
    let pipeline = fx.pipeline();
    assert_eq!(dispatch(&pipeline, &pre_tool("shell", json!({}))).verdict, Verdict::Pass);
    std::fs::remove_file(&script).unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({})));
    assert_eq!(result.verdict, Verdict::Deny, "{result:#?}");
    assert_eq!(statuses(&result), vec![("guard".into(), RunStatus::Failed)]);
    assert!(result.reason.unwrap().contains("could not start"));
}

#[test]
fn a_dispatch_the_host_drops_mid_flight_leaves_no_process() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"- {id: slow, on: pre_tool, kind: command, timeout_ms: 60000, shell: "echo $$ > $OUT/leader; sleep 300 & echo $! > $OUT/child; sleep 300"}"#,
    );
    let pipeline = fx.pipeline();
    let child_file = fx.out_file("child");
    let runtime = runtime();
    let input = pre_tool("shell", json!({}));
    runtime.block_on(async {
        let started = async {
            while std::fs::read_to_string(&child_file).map_or(true, |s| s.trim().is_empty()) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::select! {
            result = pipeline.dispatch(&input) => panic!("the dispatch ended by itself: {result:?}"),
            () = started => {} // the host gives up: the dispatch future is dropped here
        }
    });
    let pid = |name: &str| fx.read_out(name).unwrap().trim().parse::<i32>().unwrap();
    let (leader, child) = (pid("leader"), pid("child"));
    assert!(
        eventually(Duration::from_secs(5), || is_dead(leader) && is_dead(child) && live_members(leader).is_empty()),
        "survivors of a dropped dispatch: leader {leader} alive {}, child {child} alive {}",
        !is_dead(leader),
        !is_dead(child)
    );
}
