//! Processes on Windows, by pid: whether one still runs, killing one, a pid a helper wrote to a file, and waiting
//! for a condition. The Windows half of the Unix module of the same name (no process groups here: a run's tree is
//! its Job Object, which the tests check process by process).
#![allow(unsafe_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use windows_sys::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_TERMINATE, TerminateProcess,
};

/// Whether `pid` has exited (or never was): a process that cannot be opened, or whose exit code is set.
///
/// ```no_run
/// let mut child = std::process::Command::new("cmd").args(["/c", "exit"]).spawn().unwrap();
/// child.wait().unwrap();
/// assert!(hook_testkit::process::is_dead(child.id() as i32));
/// ```
pub fn is_dead(pid: i32) -> bool {
    let Ok(pid) = u32::try_from(pid) else { return true };
    // SAFETY: opens by id with a query right; the result is checked and closed below.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if handle.is_null() {
        return true;
    }
    let mut code = 0u32;
    // SAFETY: the handle is open with the right the call needs; `code` is a writable u32.
    let ok = unsafe { GetExitCodeProcess(handle, &mut code) };
    // SAFETY: the handle was opened above and is closed once.
    unsafe { CloseHandle(handle) };
    ok == 0 || code != STILL_ACTIVE as u32
}

/// Kills `pid`, a process the test left running on purpose; a pid already gone is no error.
///
/// ```no_run
/// let mut child = std::process::Command::new("cmd").args(["/c", "pause"]).spawn().unwrap();
/// hook_testkit::process::kill(child.id() as i32);
/// assert!(!child.wait().unwrap().success());
/// ```
pub fn kill(pid: i32) {
    let Ok(pid) = u32::try_from(pid) else { return };
    // SAFETY: opens by id with the terminate right; the result is checked and closed below.
    let handle = unsafe { OpenProcess(PROCESS_TERMINATE, 0, pid) };
    if handle.is_null() {
        return;
    }
    // SAFETY: the handle is open with PROCESS_TERMINATE, and closed once.
    unsafe {
        TerminateProcess(handle, 1);
        CloseHandle(handle);
    }
}

/// The pid written (as decimal text) to `path`, or `None` while the file is missing or incomplete.
///
/// ```no_run
/// let dir = tempfile::tempdir().unwrap();
/// assert_eq!(hook_testkit::process::read_pid(&dir.path().join("none")), None);
/// ```
pub fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Polls `condition` every 20 ms until it holds or `limit` passes; whether it held.
///
/// ```no_run
/// use std::time::Duration;
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
