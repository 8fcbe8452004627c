//! The Unix half of [`crate::signals`]: SIGINT, SIGTERM and SIGHUP, each handler writing the signal's number into a
//! pipe.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::time::Duration;

use hook_exec::GroupSignal;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

/// The signals `hook` stops on.
const STOP_SIGNALS: [(libc::c_int, GroupSignal); 3] = [
    (libc::SIGINT, GroupSignal::Interrupt),
    (libc::SIGTERM, GroupSignal::Terminate),
    (libc::SIGHUP, GroupSignal::Hangup),
];

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
    pub(crate) async fn next(&mut self) -> GroupSignal {
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

/// What [`stop_signal_pipe`] returns: the read end of the pipe.
pub type StopReceiver = OwnedFd;

/// The read end of a new non-blocking pipe into which each of the three stop signals writes its number, one byte
/// per arrival. Each caller gets a pipe and handlers of its own (the registry keeps every action of a signal), so a
/// reader never takes another's byte.
pub fn stop_signal_pipe() -> std::io::Result<StopReceiver> {
    let (read, write) = nonblocking_pipe()?;
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

/// A pipe, both ends close-on-exec and non-blocking: in one call (`pipe2`) on Linux.
#[cfg(target_os = "linux")]
fn nonblocking_pipe() -> rustix::io::Result<(OwnedFd, OwnedFd)> {
    use rustix::pipe::PipeFlags;
    rustix::pipe::pipe_with(PipeFlags::CLOEXEC | PipeFlags::NONBLOCK)
}

/// A pipe, both ends close-on-exec and non-blocking: macOS has no `pipe2`, so the flags are set after, before any
/// spawn can inherit the ends (the handlers are installed before the first dispatch).
#[cfg(not(target_os = "linux"))]
fn nonblocking_pipe() -> rustix::io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = rustix::pipe::pipe()?;
    for end in [&read, &write] {
        rustix::io::fcntl_setfd(end, rustix::io::FdFlags::CLOEXEC)?;
        rustix::fs::fcntl_setfl(end, rustix::fs::OFlags::NONBLOCK)?;
    }
    Ok((read, write))
}

/// The stop signal whose number a [`stop_signal_pipe`] byte holds.
fn stop_signal(byte: u8) -> Option<GroupSignal> {
    STOP_SIGNALS.iter().find(|(n, _)| *n == libc::c_int::from(byte)).map(|(_, signal)| *signal)
}

/// Waits up to `left` for a byte on the signal pipe: the signal it names, if one came.
pub fn wait_for_signal(pipe: &StopReceiver, left: Duration) -> Option<GroupSignal> {
    use rustix::event::{PollFd, PollFlags, poll};
    let timeout = rustix::event::Timespec::try_from(left).ok();
    let mut fds = [PollFd::new(pipe, PollFlags::IN)];
    if poll(&mut fds, timeout.as_ref()).ok()? == 0 {
        return None;
    }
    let mut byte = [0u8; 1];
    match rustix::io::read(pipe.as_fd(), &mut byte) {
        Ok(1) => stop_signal(byte[0]),
        _ => None,
    }
}
