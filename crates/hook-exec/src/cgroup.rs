//! Linux cgroup v2, where the host may create cgroups below its own (a delegated cgroup, or root): every run gets a
//! cgroup of its own, `<host's cgroup>/hook-exec.<host pid>.<n>`, which its leader joins before it executes.
//! Whatever the run starts stays in it, whatever group or session it moves to, so `cgroup.kill` at the end of the
//! run reaches even what left with `setsid`; and when the host dies, even by SIGKILL, the watchdog kills and removes
//! every run cgroup of the host's still there, and removes the empty ones of hosts that are gone (a host whose
//! watchdog was killed too).
//!
//! The run cgroups sit directly in the host's cgroup, with no cgroup of the host's own around them: making and
//! removing a cgroup is the dearest system call of a run (the kernel creates and deletes its dozen interface
//! files), so a `hook run` of one hook pays it once, not twice.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The prefix of every run cgroup's name; the host's pid and the run's number follow it.
pub(crate) const PREFIX: &str = "hook-exec.";

/// The host's own cgroup, where runs' cgroups are made, when it can be written to (a read-only cgroup2 mount, as in
/// most containers, or one not delegated to this user, cannot). A run whose cgroup still cannot be made goes
/// without, and tells [`crate::live`] so.
pub(crate) fn home() -> Option<PathBuf> {
    let own = own_cgroup()?;
    let access = rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK;
    rustix::fs::access(&own, access).ok()?;
    Some(own)
}

/// This process's cgroup v2 directory: the `0::<path>` line of `/proc/self/cgroup` under the cgroup2 mount.
fn own_cgroup() -> Option<PathBuf> {
    let text = crate::procfs::read("/proc/self/cgroup").ok()?;
    let path = text.lines().find_map(|l| l.strip_prefix("0::"))?.trim().to_owned();
    // Other lines are cgroup v1 hierarchies: a hybrid system, whose cgroup2 is most likely at `…/unified`.
    let hybrid = text.lines().any(|l| !l.starts_with("0::"));
    Some(cgroup2_mount(hybrid)?.join(path.trim_start_matches('/')))
}

/// Where cgroup v2 is mounted: one of the two usual places when the file system there says it is cgroup2 (a
/// `statfs` each, the likelier first), else the first cgroup2 mount of `/proc/self/mountinfo`, which the kernel
/// writes out in full for every read.
fn cgroup2_mount(hybrid: bool) -> Option<PathBuf> {
    const CGROUP2_SUPER_MAGIC: u64 = 0x6367_7270;
    let usual = match hybrid {
        true => ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"],
        false => ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"],
    };
    for usual in usual {
        if rustix::fs::statfs(usual).is_ok_and(|fs| fs.f_type as u64 == CGROUP2_SUPER_MAGIC) {
            return Some(PathBuf::from(usual));
        }
    }
    cgroup2_mounts(&crate::procfs::read("/proc/self/mountinfo").ok()?).next()
}

/// The mount points of the cgroup2 file systems `mountinfo` (`/proc/self/mountinfo`'s text) lists, in its order.
fn cgroup2_mounts(mountinfo: &str) -> impl Iterator<Item = PathBuf> + '_ {
    mountinfo.lines().filter_map(|l| {
        let (before, after) = l.split_once(" - ")?;
        after.starts_with("cgroup2 ").then(|| before.split_whitespace().nth(4).map(PathBuf::from))?
    })
}

/// One run's cgroup: made before the spawn; the leader joins it through `procs` between fork and exec.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    pub(crate) dir: PathBuf,
    /// `cgroup.procs`, open for the child's write of `0` (itself).
    pub(crate) procs: File,
    /// Whether the kernel has `cgroup.kill` (Linux 5.14): then the watchdog kills the run through its cgroup when
    /// the host dies, and need not be told its group.
    pub(crate) killable: bool,
}

impl RunCgroup {
    /// A fresh run cgroup in `home`, `hook-exec.<pid>.<n>`.
    ///
    /// # Errors
    ///
    /// Why it could not be made or opened (nothing is left behind).
    pub(crate) fn new(home: &Path) -> io::Result<RunCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("{PREFIX}{}.{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let dir = home.join(name);
        fs::create_dir(&dir)?;
        static KILLABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let killable = *KILLABLE.get_or_init(|| dir.join("cgroup.kill").exists());
        match OpenOptions::new().write(true).open(dir.join("cgroup.procs")) {
            Ok(procs) => Ok(RunCgroup { dir, procs, killable }),
            Err(e) => {
                let _ = fs::remove_dir(&dir);
                Err(e)
            }
        }
    }

    /// Kills everything left in the run's cgroup, waits (boundedly) until it is empty, and removes it. Returns
    /// whether it was removed: then every process the run started has exited (some may be zombies to reap).
    pub(crate) fn kill_and_remove(&self) -> bool {
        // The kernel removes only an empty cgroup (`EBUSY` while a process is in it): when the run left nothing
        // behind, as most do, that one call is all, without the kill file's write and the events file's read.
        if fs::remove_dir(&self.dir).is_ok() {
            return true;
        }
        let killed =
            OpenOptions::new().write(true).open(self.dir.join("cgroup.kill")).and_then(|mut f| f.write_all(b"1"));
        if killed.is_err() {
            // No cgroup.kill (a kernel before 5.14): signal every process listed instead.
            if let Ok(text) = crate::procfs::read(self.dir.join("cgroup.procs")) {
                for pid in text.split_whitespace().filter_map(|p| p.parse::<i32>().ok()) {
                    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                    }
                }
            }
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            let populated = crate::procfs::read(self.dir.join("cgroup.events"))
                .map(|events| events.lines().any(|l| l == "populated 1"))
                .unwrap_or(false);
            if !populated {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        fs::remove_dir(&self.dir).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::{cgroup2_mount, cgroup2_mounts};
    use std::path::PathBuf;

    /// The quick answer is the one `/proc/self/mountinfo` gives when it lists a single cgroup2 mount.
    #[test]
    fn the_mount_found_by_statfs_is_the_one_mountinfo_names() {
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let sample = "36 25 0:31 / /sys/fs/cgroup/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw\n\
                      37 25 0:32 / /sys/fs/cgroup/memory rw,nosuid shared:10 - cgroup cgroup rw,memory\n";
        assert_eq!(cgroup2_mounts(sample).collect::<Vec<_>>(), [PathBuf::from("/sys/fs/cgroup/unified")]);
        let cgroup2: Vec<PathBuf> = cgroup2_mounts(&mounts).collect();
        match cgroup2.as_slice() {
            [] => assert_eq!((cgroup2_mount(false), cgroup2_mount(true)), (None, None)),
            [only] => {
                assert_eq!(cgroup2_mount(false).as_ref(), Some(only));
                assert_eq!(cgroup2_mount(true).as_ref(), Some(only));
            }
            several => {
                assert!(several.contains(&cgroup2_mount(false).unwrap()), "{several:?}");
                assert!(several.contains(&cgroup2_mount(true).unwrap()), "{several:?}");
            }
        }
    }
}
