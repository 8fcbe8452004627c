//! Helpers shared by the integration tests: running a script, and telling from `/proc` whether a process lives.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hook_exec::{Invocation, RunOptions, RunResult};

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

pub fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// `(state, pgrp)` from `/proc/<pid>/stat`, or `None` when the pid is gone.
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is parenthesised and may contain spaces: the fields after its last ')' are fixed.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// Gone, or a zombie (PID 1 here may not reap orphans), or being torn down.
pub fn is_dead(pid: i32) -> bool {
    !matches!(stat(pid), Some((state, _)) if !matches!(state, 'Z' | 'X' | 'x'))
}

/// Whether the pid no longer exists at all (reaped, not even a zombie).
pub fn is_gone(pid: i32) -> bool {
    stat(pid).is_none()
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

/// Live (non-zombie) members of process group `pgid`.
pub fn live_members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| matches!(stat(pid), Some((state, pgrp)) if pgrp == pgid && !matches!(state, 'Z' | 'X' | 'x')))
        .collect()
}

/// Asserts, allowing a generous settling time, that `pid` is dead and its whole group is gone.
pub async fn assert_group_dead(pgid: i32, also: &[i32]) {
    let ok =
        eventually(Duration::from_secs(5), || live_members(pgid).is_empty() && also.iter().all(|&p| is_dead(p))).await;
    assert!(ok, "survivors: group {pgid} has {:?}; of {also:?} alive: {:?}", live_members(pgid), {
        also.iter().filter(|&&p| !is_dead(p)).collect::<Vec<_>>()
    });
}

/// SIGKILLs a process the test left running on purpose.
pub fn kill(pid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}
