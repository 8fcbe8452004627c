//! The bridge's `async: true` observers, run to completion after the bridge answered: the bridge ends before the
//! observer does, the observer's receipt is written when it ends, one past its timeout is killed with its whole
//! group, the runner itself leaves nothing behind, and when every runner slot is taken the answer says the
//! observers did not run.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{Env, LockHolder};
use hook_testkit::process::{eventually, is_dead, read_pid};
use serde_json::json;

/// How long a test waits for what a runner does in the background: far past any bound the hooks here have.
const PATIENCE: Duration = Duration::from_secs(30);

fn user_hooks(env: &Env, yaml: &str) {
    std::fs::create_dir_all(env.config_home()).unwrap();
    std::fs::write(env.config_home().join("hooks.yaml"), yaml).unwrap();
}

fn post_tool() -> serde_json::Value {
    json!({"hook_event_name": "PostToolUse", "session_id": "s", "cwd": "/", "tool_name": "Bash",
           "tool_input": {"command": "ls"}, "tool_response": {"stdout": ""}})
}

/// The receipts of `id` in the workspace's receipt log, as `hook receipts --json tail` reads them.
fn receipts_of(env: &Env, id: &str) -> Vec<serde_json::Value> {
    let out = env.hook(&["--json", "receipts", "tail", "-n", "100"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let receipts = out.json()["receipts"].as_array().cloned().unwrap_or_default();
    receipts.into_iter().filter(|r| r["hook_id"] == id).collect()
}

/// Live runners of this test's workspace: processes whose command line is a `background-run` naming it.
fn runners(ws: &Path) -> Vec<i32> {
    let ws = ws.to_str().unwrap();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let words: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            words.contains(&b"background-run".as_slice()) && words.contains(&ws.as_bytes()) && !is_dead(pid)
        })
        .collect()
}

#[test]
fn the_bridge_answers_before_its_async_observer_ends_and_the_observer_runs_to_completion() {
    let env = Env::new("empty");
    let marker = env.home.join("observer-done");
    user_hooks(
        &env,
        &format!(
            "- {{id: slow-log, on: post_tool, kind: command, async: true, shell: 'sleep 2; echo done > {}'}}\n",
            marker.display()
        ),
    );
    let out = env.bridge("claude", &post_tool());
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(out.stdout, "", "nothing to tell the agent: {out:#?}");
    // The observer sleeps 2 s before it writes: had the bridge waited for it, the marker would be there.
    assert!(!marker.exists(), "the bridge waited for its async observer");
    assert!(receipts_of(&env, "slow-log").is_empty(), "a receipt before the observer ended");

    assert!(eventually(PATIENCE, || !receipts_of(&env, "slow-log").is_empty()), "no receipt for the observer");
    let mine = receipts_of(&env, "slow-log");
    assert_eq!(mine.len(), 1, "{mine:#?}");
    assert_eq!(mine[0]["outcome"], "command_ok", "{mine:#?}");
    assert_eq!(mine[0]["background"], true, "{mine:#?}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "done\n");
    assert!(eventually(PATIENCE, || runners(&env.ws).is_empty()), "the runner outlived its hooks");
}

#[test]
fn an_async_observer_past_its_timeout_is_killed_with_its_group_and_nothing_outlives_the_runner() {
    let env = Env::new("empty");
    let (leader, child) = (env.home.join("leader"), env.home.join("child"));
    user_hooks(
        &env,
        &format!(
            "- id: stuck\n  on: post_tool\n  kind: command\n  async: true\n  timeout_ms: 500\n  \
             shell: 'echo $$ > {}; sleep 60 & echo $! > {}; wait'\n",
            leader.display(),
            child.display()
        ),
    );
    let out = env.bridge("claude", &post_tool());
    assert_eq!(out.code, 0, "{out:#?}");

    assert!(eventually(PATIENCE, || !receipts_of(&env, "stuck").is_empty()), "no receipt for the observer");
    let mine = receipts_of(&env, "stuck");
    assert_eq!(mine[0]["outcome"], "command_timeout", "{mine:#?}");
    assert_eq!(mine[0]["background"], true, "{mine:#?}");
    let (leader, child) = (read_pid(&leader).expect("the hook ran"), read_pid(&child).expect("it started a child"));
    assert!(eventually(PATIENCE, || is_dead(leader) && is_dead(child)), "the hook's group outlived its timeout");
    assert!(eventually(PATIENCE, || runners(&env.ws).is_empty()), "the runner outlived its hooks");
}

#[test]
fn when_every_runner_slot_is_taken_the_answer_says_the_observers_did_not_run() {
    let env = Env::new("empty");
    let marker = env.home.join("ran");
    user_hooks(
        &env,
        &format!(
            "- {{id: observer, on: post_tool, kind: command, async: true, shell: 'touch {}'}}\n",
            marker.display()
        ),
    );
    let slots = env.home.join("state/hooks/background");
    std::fs::create_dir_all(&slots).unwrap();
    // Other processes hold every slot, as sixteen runners of earlier calls would.
    let _held: Vec<LockHolder> = (0..16).map(|n| LockHolder::new(&slots.join(format!("runner-{n}")))).collect();
    let out = env.bridge("claude", &post_tool());
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("async hook(s) observer did not run"), "{out:#?}");
    assert!(out.stdout.contains("16 runners of earlier calls are still running"), "{out:#?}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!marker.exists(), "the observer ran without a slot");
}

#[test]
fn install_leaves_claude_codes_async_rewake_hook_with_the_agent_which_wakes_the_model_itself() {
    let env = Env::new("empty");
    let settings = r#"{
  "hooks": {
    "PostToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/test-watch.sh", "asyncRewake": true}]}
    ]
  }
}
"#;
    env.write(".claude/settings.json", settings);
    let out = env.hook(&["install", "--agent", "claude", "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    let kept = report["kept"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{report:#}");
    assert!(kept[0].to_string().contains("asyncRewake"), "the reason names what only the agent does: {report:#}");
    assert!(report["moved"].as_array().unwrap().is_empty(), "{report:#}");
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.ws.join(".claude/settings.json")).unwrap()).unwrap();
    let handlers = written["hooks"]["PostToolUse"].to_string();
    assert!(handlers.contains("\"asyncRewake\":true") && handlers.contains("test-watch.sh"), "{written:#}");
    assert!(handlers.contains("bridge --protocol claude"), "{written:#}");

    let out = env.hook(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(std::fs::read_to_string(env.ws.join(".claude/settings.json")).unwrap(), settings);
}
