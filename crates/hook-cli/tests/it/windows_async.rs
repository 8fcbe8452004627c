//! The bridge's `async: true` observers on Windows (run under Wine in CI), on the real `hook.exe`: the Claude Code
//! bridge answers at once and its observer runs afterwards in a detached runner, which writes a receipt marked
//! background and then frees its slot; with every slot held by another process the answer says the observer did
//! not run; and a runner started for a hand-off its slot no longer offers exits without running.
//!
//! The observer is this test binary again in a helper mode (the ignored test [`helper`]): Wine has no `sleep`.
//!
//! Where Wine differs from Windows: Wine's Job Objects accept `CREATE_BREAKAWAY_FROM_JOB` but the test's `hook.exe`
//! is in no job, so the fallback for a job that forbids breakaway (the runner started inside the agent's job) is not
//! exercised; Wine has no console process groups of Windows' kind, so that the agent's Ctrl-C does not reach the
//! runner (`DETACHED_PROCESS`, `CREATE_NEW_PROCESS_GROUP`) is not tested. `LockFileEx` byte-range locks, which the
//! slots rest on, are Wine's server-side locks with Windows' semantics.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::Env;
use hook_config::locked::{self, LockKind};
use hook_testkit::process::eventually;
use serde_json::json;

const HELPER: &str = "HOOK_CLI_ASYNC_HELPER";
const HELPER_FILE: &str = "HOOK_CLI_ASYNC_HELPER_FILE";

/// How long a test waits for what a runner does in the background: far past any bound the hooks here have.
const PATIENCE: Duration = Duration::from_secs(60);

/// Not a test: the observer the hooks start (this binary again, on this test alone). It waits 1 s, then writes
/// `done` to its file.
#[test]
#[ignore = "a helper process the hooks start"]
fn helper() {
    let Some(file) = std::env::var_os(HELPER_FILE) else { return };
    if std::env::var_os(HELPER).is_some_and(|mode| mode == "late") {
        std::thread::sleep(Duration::from_secs(1));
    }
    std::fs::write(PathBuf::from(file), "done").expect("the observer writes its file");
}

/// The user's hooks: one `async: true` observer on `post_tool`, the helper in `mode`, writing `marker`.
fn observer(env: &Env, id: &str, mode: &str, marker: &Path) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let yaml = format!(
        "- id: {id}\n  on: post_tool\n  kind: command\n  async: true\n  timeout_ms: 30000\n  argv: ['{}', \
         windows_async::helper, --exact, --include-ignored, --nocapture, --test-threads, '1']\n  env:\n    {HELPER}: \
         {mode}\n    {HELPER_FILE}: '{}'\n",
        exe.display(),
        marker.display()
    );
    std::fs::create_dir_all(env.config_home()).expect("config home");
    std::fs::write(env.config_home().join("hooks.yaml"), yaml).expect("hooks.yaml");
}

fn post_tool(env: &Env) -> serde_json::Value {
    json!({"hook_event_name": "PostToolUse", "session_id": "w-async", "cwd": env.ws, "tool_name": "Bash",
           "tool_input": {"command": "dir"}, "tool_response": {"stdout": ""}})
}

/// The runners' slot files: `%LOCALAPPDATA%\hooks\background\runner-N`.
fn slots(env: &Env) -> Vec<PathBuf> {
    let dir = env.home.join("state").join("hooks").join("background");
    std::fs::create_dir_all(&dir).expect("slot dir");
    (0..16).map(|n| dir.join(format!("runner-{n}"))).collect()
}

/// The slot file at `path`, opened and locked whole by this process, as a foreign process (or a runner) holds it;
/// `None` when another process holds a lock in it.
fn lock_whole(path: &Path) -> Option<std::fs::File> {
    let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).expect("slot file");
    locked::flock_within(&file, path, LockKind::Exclusive, Duration::ZERO).ok().map(|()| file)
}

/// The receipts of `id`, as `hook receipts --json tail` reads them.
fn receipts_of(env: &Env, id: &str) -> Vec<serde_json::Value> {
    let out = env.hook(&["--json", "receipts", "tail", "-n", "100"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let receipts = out.json()["receipts"].as_array().cloned().unwrap_or_default();
    receipts.into_iter().filter(|r| r["hook_id"] == id).collect()
}

#[test]
fn the_bridge_answers_at_once_and_its_async_observer_runs_afterwards_in_a_runner() {
    let env = Env::new("empty");
    let marker = env.home.join("observer-done");
    observer(&env, "win.slow-log", "late", &marker);
    let out = env.bridge("claude", &post_tool(&env));
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(!out.stdout.contains("did not run"), "{out:#?}");
    // The observer waits 1 s before it writes: had the bridge waited for it, the file would be there.
    assert!(!marker.exists(), "the bridge waited for its async observer");

    assert!(eventually(PATIENCE, || marker.exists()), "the observer never ran: {out:#?}");
    assert!(eventually(PATIENCE, || !receipts_of(&env, "win.slow-log").is_empty()), "no receipt for the observer");
    let mine = receipts_of(&env, "win.slow-log");
    assert_eq!(mine.len(), 1, "{mine:#?}");
    assert_eq!(mine[0]["outcome"], "command_ok", "{mine:#?}");
    assert_eq!(mine[0]["background"], true, "{mine:#?}");
    assert_eq!(std::fs::read_to_string(&marker).expect("marker"), "done");
    // The runner ends with its hooks, and its slot is free again.
    let all_free = || slots(&env).iter().all(|slot| lock_whole(slot).is_some());
    assert!(eventually(PATIENCE, all_free), "a runner still holds its slot");
}

#[test]
fn when_every_runner_slot_is_held_the_answer_says_the_observer_did_not_run() {
    let env = Env::new("empty");
    let marker = env.home.join("ran");
    observer(&env, "win.observer", "now", &marker);
    // This process holds every slot, as sixteen runners of earlier calls (or any other process) would.
    let held: Vec<std::fs::File> =
        slots(&env).iter().map(|slot| lock_whole(slot).expect("the slot is free at first")).collect();
    let out = env.bridge("claude", &post_tool(&env));
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("async hook(s) win.observer did not run"), "{out:#?}");
    assert!(out.stdout.contains("16 runners of earlier calls are still running"), "{out:#?}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!marker.exists(), "the observer ran without a slot");
    drop(held);
}

#[test]
fn a_runner_whose_slot_no_longer_offers_its_hand_off_exits_without_running() {
    let env = Env::new("empty");
    let marker = env.home.join("ran");
    observer(&env, "win.observer", "now", &marker);
    let slot = slots(&env).swap_remove(0);
    // A slot its bridge gave up on: the offer cleared, no claim held.
    std::fs::write(&slot, [0u8; 48]).expect("slot");
    let slot_arg = slot.to_str().expect("a UTF-8 path");
    let token = "0123456789abcdef0123456789abcdef";
    let out = env.hook(&[
        "background-run",
        "--protocol",
        "claude",
        "--hook",
        "win.observer",
        "--slot",
        slot_arg,
        "--token",
        token,
    ]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stderr.contains("is no longer offered to this runner"), "{out:#?}");
    assert!(!marker.exists(), "a runner ran hooks its bridge did not hand it");
    assert!(lock_whole(&slot).is_some(), "the runner left its slot held");
}
