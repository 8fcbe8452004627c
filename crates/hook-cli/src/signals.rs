//! What `hook run` and `hook test` do when they are told to stop (SIGINT, SIGTERM, SIGHUP): no hook outlives them.
//!
//! Each hook runs in a process group of its own, so a terminal's Ctrl-C or a `kill` of `hook` never reaches it by
//! itself. While a dispatch runs, a signal is forwarded to every running hook group; the hooks get
//! [`GRACE`] to end on it (their results and receipts are then the usual ones); then the dispatch is dropped, which
//! SIGKILLs and reaps every group still running, processes that left their group and were adopted by `hook` (a child
//! subreaper on Linux) are killed and reaped, and `hook` exits with `128 + the signal's number`. A second signal
//! skips the grace. Against a SIGKILL of `hook` itself, which no handler sees, the watchdog and the leaders'
//! parent-death signal of [`hook_exec::supervise`] stand in.
//!
//! On Windows (`signals/windows.rs`) the stop signals are the console's Ctrl-C and Ctrl-Break, which the C runtime
//! delivers as SIGINT and SIGBREAK on a thread of their own; each hook is in a Job Object, killed with it.

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use hook_exec::{GroupSignal, Supervision};

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{Signals, StopReceiver, stop_signal_pipe, wait_for_signal};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{Signals, StopReceiver, stop_signal_pipe, wait_for_signal};

/// How long the hooks have to end on a forwarded signal before they are killed.
pub const GRACE: Duration = Duration::from_millis(500);

/// Turns on, for this process, what keeps hooks from outliving it: the child subreaper and the watchdog. A failure
/// is a warning: the signal forwarding and the leaders' parent-death signal still hold.
pub fn supervise() {
    if let Err(err) = hook_exec::supervise(Supervision { subreaper: true, watchdog: true, cgroup: true }) {
        eprintln!("hook: warning: cannot supervise the hooks' processes fully ({err}); a killed hook may leave some");
    }
}

/// How a supervised dispatch ended.
pub enum Outcome<T> {
    /// It finished by itself.
    Finished(T),
    /// A signal stopped it; every hook it started is dead and reaped.
    Interrupted(GroupSignal),
}

/// Drives `work` (a dispatch) until it finishes or a signal arrives; see the module documentation for what a signal
/// does.
pub async fn until_signal<T>(signals: &mut Signals, work: impl Future<Output = T>) -> Outcome<T> {
    let mut work = pin!(work);
    let first = tokio::select! {
        done = &mut work => return Outcome::Finished(done),
        signal = signals.next() => signal,
    };
    hook_exec::signal_live_groups(first);
    tokio::select! {
        _ = &mut work => {}
        () = tokio::time::sleep(GRACE) => {}
        _ = signals.next() => {}
    }
    Outcome::Interrupted(first)
}

/// After an interruption: kills what is left (the dropped dispatch already killed its groups) and says so.
pub fn finish_interrupted(signal: GroupSignal) -> u8 {
    stop_hooks();
    eprintln!("hook: interrupted by {}: the running hooks were stopped", name(signal));
    u8::try_from(128 + signal.number()).unwrap_or(crate::exit::ERROR)
}

/// Kills every hook group still alive and every orphan adopted as a subreaper.
pub fn stop_hooks() {
    hook_exec::signal_live_groups(GroupSignal::Kill);
    hook_exec::reap_orphans();
}

/// The signal's name, as messages say it.
pub fn name(signal: GroupSignal) -> &'static str {
    match signal {
        GroupSignal::Interrupt => "SIGINT",
        GroupSignal::Terminate => "SIGTERM",
        GroupSignal::Hangup => "SIGHUP",
        GroupSignal::Kill => "SIGKILL",
    }
}
