//! Every live process group of this process's runs, in one registry: what a host needs so that no hook outlives it.
//!
//! Every run registers its leader here from spawn until the leader is reaped, under one lock, so whoever holds the
//! lock sees only leaders that are still unreaped — whose pid is still theirs and whose group can still be
//! signalled safely. On that registry stand three process-wide services a host opts into:
//!
//! - [`signal_live_groups`]: forward a signal (the host got SIGINT, SIGTERM or SIGHUP) to every running group, so
//!   hooks hear what their host heard even though they run in groups of their own, out of a terminal's reach.
//! - [`supervise`] with a [`Supervision`]:
//!   - `subreaper` (Linux): the host becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`), so a descendant that
//!     left its group with `setsid`/`setpgid` and lost its parent is re-parented to the host instead of init; when a
//!     run ends, [`reap_orphans`] kills and reaps every such adopted process (and every adopted zombie) that is not
//!     in the group of a run still going. An escape cannot be told apart by the run it came from, so one that a
//!     still-running run left behind dies then too. Only for a process whose children are all this crate's runs: any other child the host spawns
//!     would count as an orphan.
//!   - `watchdog`: a process in a group of its own, deaf to SIGINT, SIGTERM and SIGHUP, told each group as it
//!     starts and ends (on Linux a clone that shares this process's memory and executes nothing, elsewhere a small
//!     `/bin/sh` script; see `watchdog.rs`); when the host dies, even by SIGKILL, its end of the pipe closes and the watchdog
//!     SIGKILLs every group still listed. A group's id cannot be reused while any member of it lives, so that kill
//!     reaches the hook's own processes, not a stranger.
//! - Each leader also gets `PR_SET_PDEATHSIG` = SIGKILL on Linux when [`RunOptions::kill_with_parent`] is set (the
//!   default): if the thread that spawned it dies, so does the leader.
//!
//! - `cgroup` (Linux, where a cgroup below the host's own can be made): each run in a cgroup of its own, killed and
//!   removed when the run ends, all of them killed by the watchdog when the host dies (see `cgroup.rs`).
//!
//! What is left without a cgroup: a descendant that left the group *and* outlives a SIGKILLed host (its parent
//! still alive, or re-parented past the dead host) is out of reach; see the crate documentation.
//!
//! [`RunOptions::kill_with_parent`]: crate::RunOptions::kill_with_parent

use std::collections::BTreeSet;
use std::io;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use crate::watchdog::Watchdog;

/// A signal a host forwards to its running hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupSignal {
    /// SIGINT (a terminal's Ctrl-C).
    Interrupt,
    /// SIGTERM (`kill`, `timeout`, a service manager).
    Terminate,
    /// SIGHUP (the terminal went away).
    Hangup,
    /// SIGKILL.
    Kill,
}

impl GroupSignal {
    /// The signal's number, as a shell reports it (`128 + n` is a process's exit code after it).
    pub fn number(self) -> i32 {
        self.signal().as_raw()
    }

    fn signal(self) -> Signal {
        match self {
            GroupSignal::Interrupt => Signal::INT,
            GroupSignal::Terminate => Signal::TERM,
            GroupSignal::Hangup => Signal::HUP,
            GroupSignal::Kill => Signal::KILL,
        }
    }
}

/// What [`supervise`] turns on for the whole process. All off by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Supervision {
    /// Become a child subreaper and kill adopted orphans when a run ends (Linux; ignored elsewhere).
    pub subreaper: bool,
    /// Start the watchdog that kills every listed group when this process dies.
    pub watchdog: bool,
    /// Linux, where this process may create cgroups below its own (cgroup v2, delegated or as root): run each hook
    /// in a cgroup of its own and `cgroup.kill` it when the run ends, so nothing a run started survives it, whatever
    /// group or session it moved to. It starts the watchdog too, which kills what is left in the runs' cgroups and
    /// removes them when this process ends, however it ends. Silently not used where no such cgroup can be made
    /// ([`cgroup_in_use`] tells).
    pub cgroup: bool,
}

/// The registry: unreaped leaders, whether orphans are swept, and the watchdog's pipe.
pub(crate) struct Registry {
    leaders: BTreeSet<i32>,
    /// The leaders the watchdog was told about: those of runs it cannot reach through their cgroup.
    told: BTreeSet<i32>,
    subreaper: bool,
    watchdog: Option<Watchdog>,
    /// The cgroup runs get cgroups of their own in (this process's), when [`Supervision::cgroup`] found it usable.
    cgroup: Option<PathBuf>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    leaders: BTreeSet::new(),
    told: BTreeSet::new(),
    subreaper: false,
    watchdog: None,
    cgroup: None,
});

/// The registry, locked. A panic while it was held cannot leave it inconsistent (every change is one insert or
/// remove), so a poisoned lock is taken over.
pub(crate) fn lock() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Registry {
    /// Records a freshly spawned leader (called with the lock held since before the spawn). `killable` says that
    /// its run is in a cgroup the watchdog kills (`cgroup.kill`) when this process dies; only the other runs' groups
    /// are told to the watchdog, which spares two pipe writes and two wake-ups of the watchdog per run.
    pub(crate) fn add(&mut self, pid: Pid, killable: bool) {
        self.leaders.insert(pid.as_raw_nonzero().get());
        if !killable {
            self.tell('+', pid);
        }
    }

    /// Forgets a leader that was just reaped (called with the lock held across the reap).
    pub(crate) fn remove(&mut self, pid: Pid) {
        if self.leaders.remove(&pid.as_raw_nonzero().get()) && self.told.remove(&pid.as_raw_nonzero().get()) {
            self.tell_watchdog('-', pid);
        }
    }

    /// Tells the watchdog a group started, and remembers it was told.
    fn tell(&mut self, op: char, pid: Pid) {
        if self.watchdog.is_some() {
            self.told.insert(pid.as_raw_nonzero().get());
        }
        self.tell_watchdog(op, pid);
    }

    fn tell_watchdog(&mut self, op: char, pid: Pid) {
        if let Some(dog) = &mut self.watchdog
            && dog.tell(op, pid.as_raw_nonzero().get()).is_err()
        {
            // It died (someone killed it): nothing to tell any more; the other guards still hold.
            self.watchdog = None;
        }
    }
}

/// Sends `signal` to every live process group of this process's runs; returns how many groups were signalled.
///
/// A host calls this from its own handler for SIGINT, SIGTERM or SIGHUP: each run's group is its own, so a
/// terminal's Ctrl-C or a `kill` of the host never reaches the hooks by itself. Only groups whose leader is not yet
/// reaped are signalled, so the signal can never reach a stranger that reused a pid.
///
/// ```
/// assert_eq!(hook_exec::signal_live_groups(hook_exec::GroupSignal::Terminate), 0); // nothing runs
/// ```
pub fn signal_live_groups(signal: GroupSignal) -> usize {
    let registry = lock();
    for &pid in &registry.leaders {
        if let Some(pid) = Pid::from_raw(pid) {
            let _ = rustix::process::kill_process_group(pid, signal.signal());
        }
    }
    registry.leaders.len()
}

/// How many runs of this process have a leader not yet reaped.
pub fn live_group_count() -> usize {
    lock().leaders.len()
}

/// Turns on what `supervision` asks for, for the whole process; idempotent. Errors only when the subreaper cannot be
/// set on Linux or the watchdog cannot be started; what succeeded stays on.
///
/// ```
/// hook_exec::supervise(hook_exec::Supervision::default()).unwrap(); // nothing asked, nothing done
/// ```
pub fn supervise(supervision: Supervision) -> io::Result<()> {
    let mut registry = lock();
    if supervision.subreaper && !registry.subreaper {
        set_subreaper()?;
        registry.subreaper = true;
    }
    if supervision.cgroup && registry.cgroup.is_none() {
        registry.cgroup = cgroup_home();
    }
    // A cgroup must go when this process goes, which only the watchdog outlives it to do.
    if (supervision.watchdog || registry.cgroup.is_some()) && registry.watchdog.is_none() {
        let dog = Watchdog::start(registry.cgroup.as_deref())?;
        registry.watchdog = Some(dog);
        // Groups already running when the watchdog arrived.
        let leaders: Vec<i32> = registry.leaders.iter().copied().collect();
        for pid in leaders.into_iter().filter_map(Pid::from_raw) {
            registry.tell('+', pid);
        }
    }
    Ok(())
}

/// The cgroup in which each run gets a cgroup of its own (`hook-exec.<pid>.<n>`, this process's pid), when
/// [`Supervision::cgroup`] is on and it can be written to; `None` again once a run's cgroup could not be made there.
///
/// ```
/// assert_eq!(hook_exec::cgroup_in_use(), None); // nothing asked for
/// ```
pub fn cgroup_in_use() -> Option<PathBuf> {
    lock().cgroup.clone()
}

/// A cgroup for a run about to start, when cgroups are in use. A cgroup that cannot be made for a reason that will
/// not pass (no permission, a read-only or vanished cgroup) turns them off for the runs after it, so
/// [`cgroup_in_use`] tells the truth; any other failure leaves only this run without.
#[cfg(target_os = "linux")]
pub(crate) fn run_cgroup() -> Option<crate::cgroup::RunCgroup> {
    let home = lock().cgroup.clone()?;
    match crate::cgroup::RunCgroup::new(&home) {
        Ok(cgroup) => Some(cgroup),
        Err(e) => {
            use rustix::io::Errno;
            let lasting = [Errno::ACCESS, Errno::PERM, Errno::ROFS, Errno::NOENT, Errno::NOTDIR, Errno::OPNOTSUPP];
            if lasting.iter().any(|errno| e.raw_os_error() == Some(errno.raw_os_error())) {
                lock().cgroup = None;
            }
            None
        }
    }
}

#[cfg(target_os = "linux")]
fn cgroup_home() -> Option<PathBuf> {
    crate::cgroup::home()
}

#[cfg(not(target_os = "linux"))]
fn cgroup_home() -> Option<PathBuf> {
    None
}

#[cfg(target_os = "linux")]
fn set_subreaper() -> io::Result<()> {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).map_err(Into::into)
}

#[cfg(not(target_os = "linux"))]
fn set_subreaper() -> io::Result<()> {
    Ok(())
}

/// Kills and reaps every process this one adopted as a subreaper (a descendant of a run that outlived its parent,
/// typically after leaving its group with `setsid`), with its group when it leads one; returns how many. Does
/// nothing unless [`supervise`] turned the subreaper on. Every run calls it when it ends; a host calls it once more
/// before it exits.
///
/// Killing an adopted process can orphan its own children, which are adopted in turn: it goes on until no adopted
/// process is left or two seconds have passed.
pub fn reap_orphans() -> usize {
    let registry = lock();
    if !registry.subreaper {
        return 0;
    }
    let watchdog = registry.watchdog.as_ref().map(Watchdog::pid);
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut killed = 0;
    loop {
        // The watchdog and the leaders are known by their pids: their `/proc/<pid>/stat` is not read.
        let known = |pid: i32| registry.leaders.contains(&pid) || Some(pid) == watchdog;
        let orphans: Vec<(i32, i32)> = children_of(me, known)
            .into_iter()
            // A leader is not adopted; a member of a running group stays with its run (its group's kill, or the
            // sweep after that run, deals with it).
            .filter(|(pid, pgid)| {
                !registry.leaders.contains(pid) && !registry.leaders.contains(pgid) && Some(*pid) != watchdog
            })
            .collect();
        if orphans.is_empty() || Instant::now() >= deadline {
            return killed;
        }
        for &(pid, pgid) in &orphans {
            let Some(id) = Pid::from_raw(pid) else { continue };
            // Ours and unreaped: its pid, and its group's id when it leads one, cannot have been reused.
            if pgid == pid {
                let _ = rustix::process::kill_process_group(id, Signal::KILL);
            }
            let _ = rustix::process::kill_process(id, Signal::KILL);
        }
        for &(pid, _) in &orphans {
            if let Some(id) = Pid::from_raw(pid)
                && reap_within(id, deadline)
            {
                killed += 1;
            }
        }
    }
}

/// After a run whose every process has exited (its cgroup emptied and removed): reaps the adopted zombies among its
/// processes, by asking the kernel for an exited child (`waitid` without reaping it) one at a time, rather than
/// reading every child's `/proc` entry as [`reap_orphans`] does, which it falls back to when an exited child is a
/// leader or the watchdog (theirs to reap) or the kernel cannot be asked. A live process adopted from this run
/// cannot exist: it would still be in the run's cgroup, which was empty. Returns how many it reaped.
#[cfg(target_os = "linux")]
pub(crate) fn reap_exited_orphans() -> usize {
    let registry = lock();
    if !registry.subreaper {
        return 0;
    }
    let watchdog = registry.watchdog.as_ref().map(Watchdog::pid);
    let mut reaped = 0;
    // Bounded: each turn reaps one child, and a host has few.
    for _ in 0..4096 {
        let Some(pid) = exited_child() else { return reaped };
        if pid == 0 {
            return reaped;
        }
        if registry.leaders.contains(&pid) || Some(pid) == watchdog {
            drop(registry);
            return reaped + reap_orphans();
        }
        let Some(id) = Pid::from_raw(pid) else { return reaped };
        if let Ok(Some(_)) = rustix::process::waitid(
            rustix::process::WaitId::Pid(id),
            rustix::process::WaitIdOptions::EXITED | rustix::process::WaitIdOptions::NOHANG,
        ) {
            reaped += 1;
        }
    }
    reaped
}

/// Elsewhere there are no cgroups, and this is never called for them.
#[cfg(not(target_os = "linux"))]
pub(crate) fn reap_exited_orphans() -> usize {
    reap_orphans()
}

/// The pid of a child of this process that exited and is not reaped yet, left unreaped (`waitid` with `WNOWAIT`);
/// `Some(0)` when there is none (or no child at all), `None` when the kernel cannot be asked.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn exited_child() -> Option<i32> {
    loop {
        // SAFETY: `info` is plain data the kernel fills (zeroed first: with WNOHANG and no exited child it writes
        // nothing, and a pid of 0 then says so).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::waitid(libc::P_ALL, 0, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT) };
        if rc == 0 {
            // SAFETY: filled by a successful waitid (or left zeroed).
            return Some(unsafe { info.si_pid() });
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::ECHILD) => return Some(0),
            _ => return None,
        }
    }
}

/// Reaps `pid` (a child of ours that was SIGKILLed), waiting until `deadline` at most.
fn reap_within(pid: Pid, deadline: Instant) -> bool {
    use rustix::process::{WaitId, WaitIdOptions};
    loop {
        match rustix::process::waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOHANG) {
            Ok(Some(_)) => return true,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            Err(rustix::io::Errno::INTR) => {}
            _ => return false,
        }
    }
}

/// `(pid, pgid)` of every child of `parent` (this process) that an orphan sweep has to look at: the children of
/// its main thread, from `/proc/self/task/<pid>/children` (one read, which costs in proportion to the children), else
/// from a scan of every process. The kernel hands an adopted orphan to the first live thread of its reaper — the
/// main thread, which lives as long as the process runs Rust's `main` — so the other threads' lists hold only the
/// leaders they spawned, which the sweep leaves alone anyway. The children `skip` names are left out unread.
fn children_of(parent: i32, skip: impl Fn(i32) -> bool) -> Vec<(i32, i32)> {
    let candidates: Vec<i32> = match crate::procfs::read(format!("/proc/self/task/{parent}/children")) {
        Ok(text) => text.split_whitespace().filter_map(|pid| pid.parse::<i32>().ok()).collect(),
        // No such file: a kernel built without it (CONFIG_PROC_CHILDREN).
        Err(_) => match std::fs::read_dir("/proc") {
            Ok(entries) => entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok()).collect(),
            Err(_) => Vec::new(),
        },
    };
    candidates
        .into_iter()
        .filter(|&pid| !skip(pid))
        .filter_map(|pid| {
            let stat = crate::procfs::read(format!("/proc/{pid}/stat")).ok()?;
            // The command name is parenthesised and may hold anything: the fields after its last ')' are fixed.
            let mut fields = stat[stat.rfind(')')? + 2..].split_whitespace();
            let _state = fields.next()?;
            let ppid: i32 = fields.next()?.parse().ok()?;
            let pgid: i32 = fields.next()?.parse().ok()?;
            (ppid == parent).then_some((pid, pgid))
        })
        .collect()
}

/// Whether orphans are swept when the last run ends.
pub(crate) fn sweeps_orphans() -> bool {
    lock().subreaper
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_signals_have_their_usual_numbers() {
        let numbers: Vec<i32> =
            [GroupSignal::Hangup, GroupSignal::Interrupt, GroupSignal::Kill, GroupSignal::Terminate]
                .iter()
                .map(|s| s.number())
                .collect();
        assert_eq!(numbers, [1, 2, 9, 15]);
    }
}
