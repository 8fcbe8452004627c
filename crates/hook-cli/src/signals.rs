//! What `hook run` and `hook test` do when they are told to stop (SIGINT, SIGTERM, SIGHUP): no hook outlives them.
//!
//! Each hook runs in a process group of its own, so a terminal's Ctrl-C or a `kill` of `hook` never reaches it by
//! itself. While a dispatch runs, a signal is forwarded to every running hook group; the hooks get
//! [`GRACE`] to end on it (their results and receipts are then the usual ones); then the dispatch is dropped, which
//! SIGKILLs and reaps every group still running, processes that left their group and were adopted by `hook` (a child
//! subreaper on Linux) are killed and reaped, and `hook` exits with `128 + the signal's number`. A second signal
//! skips the grace. Against a SIGKILL of `hook` itself, which no handler sees, the watchdog and the leaders'
//! parent-death signal of [`hook_exec::supervise`] stand in.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use hook_exec::{GroupSignal, Supervision};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

/// How long the hooks have to end on a forwarded signal before they are killed.
pub const GRACE: Duration = Duration::from_millis(500);

/// The signals `hook` stops on.
const STOP_SIGNALS: [(libc::c_int, GroupSignal); 3] = [
    (libc::SIGINT, GroupSignal::Interrupt),
    (libc::SIGTERM, GroupSignal::Terminate),
    (libc::SIGHUP, GroupSignal::Hangup),
];

/// Turns on, for this process, what keeps hooks from outliving it: the child subreaper and the watchdog. A failure
/// is a warning: the signal forwarding and the leaders' parent-death signal still hold.
pub fn supervise() {
    if let Err(err) = hook_exec::supervise(Supervision { subreaper: true, watchdog: true, cgroup: true }) {
        eprintln!("hook: warning: cannot supervise the hooks' processes fully ({err}); a killed hook may leave some");
    }
}

/// The signals `hook` stops on, listened to from the first dispatch on. Each one's handler writes its number into
/// a pipe the dispatch reads: one byte, by a raw `write(2)`, which is all a handler may safely do. (Tokio's own
/// signal support would do the same through a registry of every signal, built with the runtime: more than this
/// costs for the three `hook` needs, on every event.)
pub struct Signals {
    arrived: pipe::Receiver,
}

impl Signals {
    /// Installs the handlers. Must be called inside the runtime.
    pub fn new() -> std::io::Result<Signals> {
        Ok(Signals { arrived: pipe::Receiver::from_owned_fd(stop_signal_pipe()?)? })
    }

    /// The next of the three signals to arrive.
    async fn next(&mut self) -> GroupSignal {
        let mut byte = [0u8; 1];
        loop {
            match self.arrived.read(&mut byte).await {
                Ok(1) => {
                    if let Some(signal) = stop_signal(byte[0]) {
                        return signal;
                    }
                }
                // The handlers hold the write end for as long as the process lives: no end of file, and no error
                // a read of a pipe can give. Should one come, no signal is known to have arrived.
                _ => std::future::pending::<()>().await,
            }
        }
    }
}

/// How a supervised dispatch ended.
pub enum Outcome<T> {
    /// It finished by itself.
    Finished(T),
    /// A signal stopped it; every hook it started is dead and reaped.
    Interrupted(GroupSignal),
}

/// The read end of a new non-blocking pipe into which each of the three stop signals writes its number, one byte
/// per arrival. Each caller gets a pipe and handlers of its own (the registry keeps every action of a signal), so a
/// reader never takes another's byte.
pub fn stop_signal_pipe() -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::pipe::PipeFlags;
    let (read, write) = rustix::pipe::pipe_with(PipeFlags::CLOEXEC | PipeFlags::NONBLOCK)?;
    let write = Arc::new(write);
    for (number, _) in STOP_SIGNALS {
        let write = Arc::clone(&write);
        let byte = [u8::try_from(number).map_err(std::io::Error::other)?];
        #[allow(unsafe_code)]
        // SAFETY: the action is async-signal-safe: one write(2) through rustix's raw system call (no allocation,
        // no lock, no errno) to a non-blocking pipe it keeps open; a full pipe drops the byte, and a signal
        // already waiting there stops the dispatch just the same.
        let registered = unsafe {
            signal_hook_registry::register(number, move || {
                let _ = rustix::io::write(&*write, &byte);
            })
        };
        registered?;
    }
    Ok(read)
}

/// The stop signal whose number a [`stop_signal_pipe`] byte holds.
pub fn stop_signal(byte: u8) -> Option<GroupSignal> {
    STOP_SIGNALS.iter().find(|(n, _)| *n == libc::c_int::from(byte)).map(|(_, signal)| *signal)
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
