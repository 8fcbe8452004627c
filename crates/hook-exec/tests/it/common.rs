//! Helpers of hook-exec's tests: running a script, pid files in a scratch directory, waiting on the runtime's timer.
//! Whether a process lives, read from `/proc`, comes from `hook_testkit::process`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hook_exec::{Invocation, RunOptions, RunResult};
pub use hook_testkit::process::{is_dead, is_gone, kill, live_members, read_pid};

/// Options with the given deadline and the default capture limit and grace.
pub fn deadline(timeout: Duration) -> RunOptions {
    RunOptions { timeout, ..RunOptions::default() }
}

/// Runs a `sh -c` script with the given deadline, timing the whole call from the outside.
pub async fn run_sh(script: &str, timeout: Duration) -> (RunResult, Duration) {
    let start = Instant::now();
    let result = hook_exec::run(&Invocation::shell(script), &deadline(timeout)).await;
    (result, start.elapsed())
}

/// A temporary directory for pid files, with its path single-quoted for embedding in a script.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Scratch { dir: tempfile::tempdir().expect("tempdir") }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `'<dir>/<name>'`, ready to paste into a shell script.
    pub fn quoted(&self, name: &str) -> String {
        format!("'{}'", self.path(name).display())
    }

    /// The pid a script wrote to `name` (with `echo $! > …` or `echo $$ > …`).
    pub fn pid(&self, name: &str) -> i32 {
        read_pid(&self.path(name)).unwrap_or_else(|| panic!("no pid in {name}"))
    }
}

/// Polls until `check` holds or `bound` passes; returns whether it held.
pub async fn eventually(bound: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if check() {
            return true;
        }
        if start.elapsed() > bound {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Asserts, allowing a generous settling time, that `pid` is dead and its whole group is gone.
pub async fn assert_group_dead(pgid: i32, also: &[i32]) {
    let ok =
        eventually(Duration::from_secs(5), || live_members(pgid).is_empty() && also.iter().all(|&p| is_dead(p))).await;
    assert!(ok, "survivors: group {pgid} has {:?}; of {also:?} alive: {:?}", live_members(pgid), {
        also.iter().filter(|&&p| !is_dead(p)).collect::<Vec<_>>()
    });
}
