//! The runs in flight, for a host that forwards Ctrl-C or a stop to them: every live job, listed by its handle
//! while its [`super::job::Job`] lives.
//!
//! What the Unix half needs supervision for is Windows's own doing here: a job dies with the host's last handle to
//! it (no watchdog), nothing leaves a job (no cgroup), and a process whose parent died is nobody's zombie (no
//! subreaper). [`supervise`] therefore has nothing to turn on.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// A signal a host forwards to its running hooks. Windows has no signals to forward: every one ends the runs'
/// jobs ([`super::KILLED_EXIT_CODE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupSignal {
    /// Ctrl-C (SIGINT's number).
    Interrupt,
    /// A stop (SIGTERM's number).
    Terminate,
    /// The console went away (SIGHUP's number).
    Hangup,
    /// A kill (SIGKILL's number).
    Kill,
}

impl GroupSignal {
    /// The POSIX number of the signal it stands for, as a shell reports it (`128 + n`).
    ///
    /// ```
    /// assert_eq!(hook_exec::GroupSignal::Terminate.number(), 15);
    /// ```
    pub fn number(self) -> i32 {
        match self {
            GroupSignal::Interrupt => 2,
            GroupSignal::Terminate => 15,
            GroupSignal::Hangup => 1,
            GroupSignal::Kill => 9,
        }
    }
}

/// What [`supervise`] would turn on. On Windows every field is satisfied by the Job Objects already (see the module
/// documentation), so none changes anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Supervision {
    /// Kill what a run left behind when it ends: every run's job is killed at its end anyway.
    pub subreaper: bool,
    /// Kill the runs when the host dies: Windows does, closing the host's job handles.
    pub watchdog: bool,
    /// Keep every descendant reachable: nothing leaves a job that does not allow breakaway.
    pub cgroup: bool,
}

struct Registry {
    jobs: BTreeMap<u64, usize>,
    next: u64,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { jobs: BTreeMap::new(), next: 0 });

fn lock() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Lists an open job handle; returns its key for [`remove`].
pub(crate) fn add(handle: usize) -> u64 {
    let mut registry = lock();
    registry.next += 1;
    let id = registry.next;
    registry.jobs.insert(id, handle);
    id
}

/// Unlists a job before its handle is closed.
pub(crate) fn remove(id: u64) {
    lock().jobs.remove(&id);
}

/// Ends every live run's job (Windows has no signal to pass on; whatever `signal` is, the runs are killed) and
/// returns how many there were.
///
/// ```
/// assert_eq!(hook_exec::signal_live_groups(hook_exec::GroupSignal::Terminate), 0); // nothing runs
/// ```
pub fn signal_live_groups(signal: GroupSignal) -> usize {
    let _ = signal;
    let registry = lock();
    for &handle in registry.jobs.values() {
        super::job::terminate_raw(handle);
    }
    registry.jobs.len()
}

/// How many runs of this process are in flight.
pub fn live_group_count() -> usize {
    lock().jobs.len()
}

/// Nothing to turn on under Windows (see [`Supervision`]); always `Ok`.
///
/// ```
/// hook_exec::supervise(hook_exec::Supervision { subreaper: true, watchdog: true, cgroup: true }).unwrap();
/// ```
pub fn supervise(supervision: Supervision) -> io::Result<()> {
    let _ = supervision;
    Ok(())
}

/// Windows has no cgroups: always `None`.
///
/// ```
/// assert_eq!(hook_exec::cgroup_in_use(), None);
/// ```
pub fn cgroup_in_use() -> Option<PathBuf> {
    None
}

/// Windows adopts no orphans (a process whose parent died is nobody's child): always 0.
///
/// ```
/// assert_eq!(hook_exec::reap_orphans(), 0);
/// ```
pub fn reap_orphans() -> usize {
    0
}
