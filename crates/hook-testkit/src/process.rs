//! Processes seen from `/proc` (Linux): whether one lives, the live members of a process group, a pid a script
//! wrote to a file, and waiting for a condition. What the suites of hook-exec, hook-middleware and hook-cli ask
//! after a hook is killed.
//!
//! A zombie counts as dead everywhere here: the test machine's PID 1 may not reap orphans, and a process that has
//! exited is past doing harm.
//!
//! ```
//! use std::time::Duration;
//! use hook_testkit::process::{eventually, is_dead};
//!
//! let mut child = std::process::Command::new("true").spawn().unwrap();
//! let pid = child.id() as i32;
//! child.wait().unwrap();
//! assert!(eventually(Duration::from_secs(5), || is_dead(pid)));
//! ```

use std::path::Path;
use std::time::{Duration, Instant};

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

/// Whether a `/proc` state letter is that of a process that has exited (zombie, dead, being torn down).
fn exited(state: char) -> bool {
    matches!(state, 'Z' | 'X' | 'x')
}

/// Gone, or a zombie, or being torn down.
///
/// ```
/// assert!(!hook_testkit::process::is_dead(std::process::id() as i32));
/// ```
pub fn is_dead(pid: i32) -> bool {
    !matches!(stat(pid), Some((state, _)) if !exited(state))
}

/// Whether the pid no longer exists at all: reaped, not even a zombie.
///
/// ```
/// let mut child = std::process::Command::new("true").spawn().unwrap();
/// let pid = child.id() as i32;
/// child.wait().unwrap(); // reaped here
/// assert!(hook_testkit::process::is_gone(pid));
/// ```
pub fn is_gone(pid: i32) -> bool {
    stat(pid).is_none()
}

/// Live (non-zombie) members of process group `pgid`.
///
/// ```
/// let me = std::process::id() as i32;
/// let group = rustix::process::getpgrp().as_raw_nonzero().get();
/// assert!(hook_testkit::process::live_members(group).contains(&me));
/// ```
pub fn live_members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| matches!(stat(pid), Some((state, pgrp)) if pgrp == pgid && !exited(state)))
        .collect()
}

/// The pid a script wrote to `path` (with `echo $! > …` or `echo $$ > …`), once it is there.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("pid"), "42\n").unwrap();
/// assert_eq!(hook_testkit::process::read_pid(&dir.path().join("pid")), Some(42));
/// assert_eq!(hook_testkit::process::read_pid(&dir.path().join("none")), None);
/// ```
pub fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// SIGKILLs `pid`, a process the test left running on purpose; a pid already gone is no error.
///
/// ```
/// let mut child = std::process::Command::new("sleep").arg("60").spawn().unwrap();
/// hook_testkit::process::kill(child.id() as i32);
/// assert!(!child.wait().unwrap().success());
/// ```
pub fn kill(pid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}

/// Polls `condition` every 20 ms until it holds or `limit` passes; whether it held. Blocks the calling thread: an
/// async test uses its runtime's timer instead.
///
/// ```
/// use std::time::{Duration, Instant};
/// let start = Instant::now();
/// assert!(hook_testkit::process::eventually(Duration::from_secs(5), || start.elapsed() > Duration::from_millis(50)));
/// assert!(!hook_testkit::process::eventually(Duration::from_millis(50), || false));
/// ```
pub fn eventually(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    condition()
}
