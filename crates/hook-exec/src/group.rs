//! The leader process and its process group: exit detection without reaping, the group kill, and the drop guard.
//!
//! Invariants enforced here:
//! - The leader is reaped only through [`Leader::reap`] (or, on the drop path, after the group kill), so while a
//!   [`Leader`] holds its child, the leader's pid, which is also the group id, cannot have been reused, and signalling
//!   the group is safe. Once the leader is reaped the group is never signalled again.
//! - Dropping a [`Leader`] that has not been reaped SIGKILLs the whole group synchronously, then reaps the leader
//!   (at once when it is already dead, else on a short-lived thread), so a dropped run leaves no survivor and no
//!   zombie. `kill_on_drop` alone would reach only the leader.
//!
//! Exit detection: a pidfd (`pidfd_open`, Linux ≥ 5.3) registered with the reactor becomes readable when the leader
//! exits, without reaping it. Where pidfd is unavailable (older kernels, seccomp filters, other Unix), a blocking-pool
//! thread waits with `waitid(P_PID, WEXITED | WNOWAIT)`, which also leaves the leader waitable.

use std::io;
use std::os::fd::OwnedFd;
use std::process::ExitStatus;

use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
#[cfg(target_os = "linux")]
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::task::JoinHandle;

use crate::live;

#[cfg(target_os = "linux")]
use crate::cgroup::RunCgroup;
/// Where cgroups do not exist, a run never has one.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
pub(crate) struct RunCgroup;
#[cfg(not(target_os = "linux"))]
impl RunCgroup {
    pub(crate) fn kill_and_remove(&self) -> bool {
        false
    }
}

/// How to learn that the leader exited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WatchMode {
    /// A pidfd when the kernel allows it, else `waitid`.
    Auto,
    /// Always `waitid(WNOWAIT)` on a blocking thread (the fallback, selectable so that tests exercise it).
    #[cfg_attr(not(test), allow(dead_code))]
    Waitid,
}

enum Watch {
    Pidfd(AsyncFd<OwnedFd>),
    Waitid(Option<JoinHandle<()>>),
}

/// A spawned leader: from the standard library's `Command`, or by pid from [`crate::vfork`] (Linux).
pub(crate) enum Child {
    /// Spawned by `std::process::Command`.
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    Std(std::process::Child),
    /// Spawned by pid; reaped with `waitpid`.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Raw(Pid),
}

impl From<std::process::Child> for Child {
    fn from(child: std::process::Child) -> Child {
        Child::Std(child)
    }
}

impl Child {
    fn pid(&self) -> Pid {
        match self {
            Child::Std(child) => Pid::from_child(child),
            Child::Raw(pid) => *pid,
        }
    }

    /// Reaps it if it has exited.
    fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        match self {
            Child::Std(child) => child.try_wait(),
            Child::Raw(pid) => loop {
                match rustix::process::waitpid(Some(*pid), rustix::process::WaitOptions::NOHANG) {
                    Ok(reaped) => {
                        use std::os::unix::process::ExitStatusExt;
                        return Ok(reaped.map(|(_, status)| ExitStatus::from_raw(status.as_raw())));
                    }
                    Err(Errno::INTR) => continue,
                    Err(e) => return Err(e.into()),
                }
            },
        }
    }
}

/// The spawned leader of a run's process group.
pub(crate) struct Leader {
    /// `Some` until reaped.
    child: Option<Child>,
    pid: Pid,
    watch: Watch,
    exited: bool,
    /// The run's cgroup, when the host supervises with cgroups: killed and removed when the run ends.
    cgroup: Option<RunCgroup>,
}

impl Leader {
    /// Takes ownership of a freshly spawned child that leads its own process group (`process_group(0)`).
    pub(crate) fn new(child: impl Into<Child>, mode: WatchMode, cgroup: Option<RunCgroup>) -> Self {
        let child = child.into();
        let pid = child.pid();
        let watch = match mode {
            WatchMode::Auto => match open_pidfd(pid) {
                Some(fd) => Watch::Pidfd(fd),
                None => spawn_waitid(pid),
            },
            WatchMode::Waitid => spawn_waitid(pid),
        };
        Leader { child: Some(child), pid, watch, exited: false, cgroup }
    }

    /// Whether exit detection uses a pidfd (rather than the `waitid` thread).
    #[cfg(test)]
    pub(crate) fn uses_pidfd(&self) -> bool {
        matches!(self.watch, Watch::Pidfd(_))
    }

    /// Completes once the leader has exited; it stays unreaped. Cancel-safe, and immediate once it has completed.
    pub(crate) async fn exited(&mut self) {
        if self.exited {
            return;
        }
        let pid = self.pid;
        loop {
            match &mut self.watch {
                Watch::Pidfd(fd) => {
                    match fd.readable().await {
                        // A pidfd stays readable once its process exited, so that readiness is never cleared; any
                        // other wake-up is cleared and waited out again.
                        Ok(guard) if has_exited(pid) => {
                            drop(guard);
                            break;
                        }
                        Ok(mut guard) => guard.clear_ready(),
                        // The reactor is going away; keep watching without it.
                        Err(_) => self.watch = spawn_waitid(pid),
                    }
                }
                Watch::Waitid(handle) => {
                    if let Some(h) = handle.as_mut() {
                        let _ = h.await;
                        *handle = None;
                    }
                    break;
                }
            }
        }
        self.exited = true;
    }

    /// SIGKILLs the whole process group. Never called after [`Leader::reap`]: the leader being unreaped is what makes
    /// the group id still ours.
    pub(crate) fn kill_group(&self) {
        if self.child.is_some() {
            kill_group(self.pid);
        }
    }

    /// Reaps the leader, which must have exited ([`Leader::exited`] completed). After this the group is never
    /// signalled again.
    pub(crate) fn reap(&mut self) -> io::Result<ExitStatus> {
        let mut child = self.child.take().ok_or_else(|| io::Error::other("leader already reaped"))?;
        // Reaped and forgotten under one lock: a forwarded signal never sees a reaped leader, an orphan sweep never
        // sees an unregistered one.
        let mut registry = live::lock();
        let reaped = child.try_wait();
        if matches!(reaped, Ok(Some(_))) {
            registry.remove(self.pid);
        }
        drop(registry);
        match reaped {
            Ok(Some(status)) => Ok(status),
            Ok(None) => {
                // Cannot happen once `exited` completed; never leave a zombie behind all the same.
                reap_in_background(child);
                Err(io::Error::other("leader reported exited but was not waitable"))
            }
            Err(e) => Err(e),
        }
    }

    /// Kills whatever is left in the run's cgroup (what left the group or the session included) and removes it;
    /// nothing without one. Called when the run is over. Returns whether the cgroup was there and is gone, which
    /// means every process of the run has exited.
    pub(crate) fn end_cgroup(&mut self) -> bool {
        self.cgroup.take().is_some_and(|cgroup| cgroup.kill_and_remove())
    }

    /// Gives up waiting for a leader that did not die after SIGKILL (uninterruptible sleep): a thread reaps it later.
    pub(crate) fn abandon(&mut self) {
        if let Some(child) = self.child.take() {
            reap_in_background(child);
        }
    }
}

impl Drop for Leader {
    fn drop(&mut self) {
        self.end_cgroup();
        // Dropped before being reaped: the run was cancelled mid-flight or a later setup step failed.
        if let Some(mut child) = self.child.take() {
            kill_group(self.pid);
            let mut registry = live::lock();
            match child.try_wait() {
                Ok(Some(_)) => registry.remove(self.pid),
                Err(_) => {}
                Ok(None) => {
                    drop(registry);
                    reap_in_background(child);
                }
            }
        }
    }
}

fn kill_group(pgid: Pid) {
    // ESRCH (the group is already empty) is the only expected failure and is harmless.
    let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
}

/// Reaps on a thread of its own: waits without reaping, then reaps and unregisters under the registry's lock, so the
/// leader stays listed (and signallable) exactly as long as it is unreaped.
fn reap_in_background(mut child: Child) {
    let pid = child.pid();
    let spawned = std::thread::Builder::new().name("hook-exec-reaper".into()).spawn(move || {
        while let Err(Errno::INTR) =
            rustix::process::waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT)
        {}
        let mut registry = live::lock();
        if matches!(child.try_wait(), Ok(Some(_))) {
            registry.remove(pid);
        }
    });
    // Without a thread the leader stays a zombie until the host exits; nothing better is possible here.
    drop(spawned);
}

#[cfg(target_os = "linux")]
fn open_pidfd(pid: Pid) -> Option<AsyncFd<OwnedFd>> {
    let fd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::NONBLOCK).ok()?;
    register_readable(fd).ok()
}

/// Pidfds are Linux's: elsewhere (macOS, the BSDs) the leader is always watched through `waitid(WNOWAIT)`.
#[cfg(not(target_os = "linux"))]
fn open_pidfd(_pid: Pid) -> Option<AsyncFd<OwnedFd>> {
    None
}

/// `unsafe` because Tokio's safe `AsyncFd` constructors are deprecated (they cannot check a generic `AsRawFd` for I/O
/// safety) in favour of this one; the crate's other `unsafe` is the leader's and the watchdog's start on Linux
/// (`vfork.rs`, `watchdog.rs`) and the orphan sweep's `waitid` (`live.rs`), listed in the crate's documentation.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn register_readable(fd: OwnedFd) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: the contract is that `as_raw_fd()` returns the same open descriptor for the AsyncFd's whole life.
    // An `OwnedFd` owns its descriptor, closes it only when dropped (which the AsyncFd does after deregistering),
    // and always returns the same number.
    unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.map_err(|e| e.into())
}

/// Whether the (unreaped) child has exited, checked without reaping it.
fn has_exited(pid: Pid) -> bool {
    loop {
        match rustix::process::waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG,
        ) {
            Ok(status) => return status.is_some(),
            Err(Errno::INTR) => continue,
            // ECHILD: not waitable by us any more (reaped elsewhere), so certainly not running under our watch.
            Err(_) => return true,
        }
    }
}

fn spawn_waitid(pid: Pid) -> Watch {
    let handle = tokio::task::spawn_blocking(move || {
        loop {
            match rustix::process::waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT) {
                Err(Errno::INTR) => continue,
                // Exited (left waitable), or ECHILD because the drop path already reaped it.
                _ => return,
            }
        }
    });
    Watch::Waitid(Some(handle))
}
