//! The watchdog: a process that outlives the host to kill what the host's runs left running when the host dies,
//! even by SIGKILL.
//!
//! The host tells it each group as the group starts and ends (`+ pid` / `- pid`) through a pipe whose write end
//! only the host holds — each group, that is, that no cgroup of the runs' holds: the cgroups it reaches anyway. When the host dies, however it dies, the kernel closes that end; the watchdog reads EOF and
//! SIGKILLs every group still listed. A group's id cannot be reused while any member of it lives, so that kill
//! reaches the hook's own processes, not a stranger. Given the cgroup the runs' cgroups are made in, it then looks
//! there once: every run cgroup of the host's still there (`hook-exec.<host pid>.<n>`) is killed, waited for (a
//! second at most) and removed, and the empty ones of hosts that are gone are removed too.
//!
//! On Linux the watchdog is not a program: it is a process made with `clone(CLONE_VM)` that shares the host's
//! memory and never executes anything, so starting it costs a clone instead of the start of a shell (and, at the
//! end, of `grep` and `rmdir`): about as much as a thread. Sharing memory with a running host asks for the same
//! care as a `vfork` child (src/vfork.rs), for longer:
//!
//! - it only makes raw system calls (rustix's Linux backend: no libc, so no `errno` of the host's thread is
//!   written), and never allocates, locks or touches a Rust value the host uses. Everything it reads — its stack,
//!   its list of groups, the cgroup paths — was allocated for it before the clone and is never freed;
//! - it starts with every signal blocked (the host blocks them around the clone and the child never unblocks
//!   them), in a process group of its own, so neither a terminal's Ctrl-C nor a `kill` of the host's job reaches it;
//! - it closes every descriptor it inherited but its end of the pipe (those `/proc/self/fd` lists, each with a raw
//!   system call), so it keeps no pipe, socket or lock of the host's open (a hook's output pipe held open would hide
//!   the hook's end, a held lock would outlive the host);
//! - the host's memory stays mapped until the watchdog exits, even after the host died (the address space is
//!   released when its last user exits), so nothing it reads goes away under it.
//!
//! Elsewhere it is a small `/bin/sh` script reading the same lines on its stdin.

use std::io;
use std::path::Path;

/// A running watchdog: its pid and the host's end of its pipe.
pub(crate) struct Watchdog {
    pid: i32,
    tell: std::fs::File,
}

impl Watchdog {
    /// The watchdog's pid (a child of this process until this process dies).
    pub(crate) fn pid(&self) -> i32 {
        self.pid
    }

    /// Tells the watchdog that the group led by `pid` started (`+`) or ended (`-`). An error means the watchdog
    /// is gone (someone killed it).
    pub(crate) fn tell(&mut self, op: char, pid: i32) -> io::Result<()> {
        imp::tell(&mut self.tell, op, pid)
    }

    /// Starts the watchdog; `cgroup` is where the runs' cgroups are made, which it kills and removes when this
    /// process dies.
    pub(crate) fn start(cgroup: Option<&Path>) -> io::Result<Watchdog> {
        imp::start(cgroup)
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::{CStr, CString, c_int, c_void};
    use std::io::{self, Write};
    use std::mem::MaybeUninit;
    use std::os::fd::{AsRawFd, BorrowedFd, IntoRawFd, RawFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use rustix::fs::{AtFlags, Mode, OFlags, RawDir};
    use rustix::process::{Pid, Signal};

    use super::Watchdog;

    /// The most groups the watchdog keeps track of at once. A host runs a few dozen at most; past this many, the
    /// groups started later are not killed by the watchdog (their cgroup, when there is one, still is).
    const MAX_GROUPS: usize = 16 * 1024;

    /// The watchdog's stack: it makes a few system calls with 4 KiB buffers.
    const STACK_BYTES: usize = 64 * 1024;

    /// One message on the pipe: `+` or `-`, then the pid in native byte order. Five bytes, so every write is atomic.
    const MESSAGE: usize = 5;

    /// What the watchdog reads, allocated before the clone and never freed.
    struct Plan {
        /// Its end of the pipe.
        listen: RawFd,
        /// The directory the runs' cgroups are made in.
        cgroup: Option<CString>,
        /// The host's pid, as the runs' cgroup names spell it.
        host: [u8; 10],
        host_len: usize,
        /// The groups listed so far: the first `len`.
        groups: &'static mut [MaybeUninit<i32>],
        len: usize,
    }

    pub(super) fn tell(pipe: &mut std::fs::File, op: char, pid: i32) -> io::Result<()> {
        let mut message = [0u8; MESSAGE];
        message[0] = op as u8;
        message[1..].copy_from_slice(&pid.to_ne_bytes());
        pipe.write_all(&message)
    }

    #[allow(unsafe_code)]
    pub(super) fn start(cgroup: Option<&Path>) -> io::Result<Watchdog> {
        let (listen, tell) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
        let cgroup =
            cgroup.map(|dir| CString::new(dir.as_os_str().as_bytes()).map_err(io::Error::other)).transpose()?;
        let digits = std::process::id().to_string();
        let mut host = [0u8; 10];
        host[..digits.len()].copy_from_slice(digits.as_bytes());
        // Never freed: the watchdog uses them for as long as it lives, which is longer than this process. Not
        // initialised, so the pages it does not touch are never faulted in.
        let stack: &'static mut [MaybeUninit<u8>] = Box::leak(Box::new_uninit_slice(STACK_BYTES));
        let groups: &'static mut [MaybeUninit<i32>] = Box::leak(Box::new_uninit_slice(MAX_GROUPS));
        let plan = Plan { listen: listen.as_raw_fd(), cgroup, host, host_len: digits.len(), groups, len: 0 };
        let plan: &'static mut Plan = Box::leak(Box::new(plan));
        // The stack grows down from its top, which must be 16-byte aligned.
        let top = ((stack.as_mut_ptr().wrapping_add(STACK_BYTES) as usize) & !15) as *mut c_void;
        // SAFETY: see the module documentation. Every signal is blocked across the clone (plain C masks, set by
        // sigfillset and pthread_sigmask), so the child starts with all of them blocked and no handler of ours runs
        // in it; this thread's mask is put back right after.
        let pid = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            let pid =
                libc::clone(watch, top, libc::CLONE_VM | libc::SIGCHLD, std::ptr::from_mut(plan).cast::<c_void>());
            let error = io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            if pid == -1 {
                return Err(error);
            }
            pid
        };
        // The watchdog has its own copy of the read end; the write end is ours alone (close-on-exec, and the
        // watchdog closed its copy).
        drop(listen);
        Ok(Watchdog { pid, tell: std::fs::File::from(tell) })
    }

    /// The watchdog: listens until EOF, then kills. Raw system calls only (module documentation).
    #[allow(unsafe_code)]
    extern "C" fn watch(arg: *mut c_void) -> c_int {
        // SAFETY: `arg` is the leaked `Plan`, which only this process uses from now on.
        let plan = unsafe { &mut *arg.cast::<Plan>() };
        let _ = rustix::process::setpgid(None, None);
        close_all_but(plan.listen);
        listen(plan);
        for slot in &plan.groups[..plan.len] {
            // SAFETY: the first `len` entries were written by `listen`.
            let pid = unsafe { slot.assume_init() };
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = rustix::process::kill_process_group(pid, Signal::KILL);
            }
        }
        if let Some(dir) = &plan.cgroup {
            sweep(dir, &plan.host[..plan.host_len]);
        }
        0
    }

    /// Reads messages until the host's end of the pipe is closed, keeping the list of live groups.
    #[allow(unsafe_code)]
    fn listen(plan: &mut Plan) {
        // SAFETY: `listen` is open in this process (close_all_but kept it).
        let pipe = unsafe { BorrowedFd::borrow_raw(plan.listen) };
        let mut buf = [0u8; 4096];
        let mut have = 0;
        loop {
            match rustix::io::read(pipe, &mut buf[have..]) {
                Ok(0) => return,
                Ok(n) => have += n,
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return,
            }
            let whole = have - have % MESSAGE;
            for message in buf[..whole].chunks_exact(MESSAGE) {
                let pid = i32::from_ne_bytes([message[1], message[2], message[3], message[4]]);
                match message[0] {
                    b'+' if plan.len < MAX_GROUPS => {
                        plan.groups[plan.len] = MaybeUninit::new(pid);
                        plan.len += 1;
                    }
                    b'-' => {
                        // SAFETY: the first `len` entries were written above.
                        let listed = |slot: &MaybeUninit<i32>| unsafe { slot.assume_init() } == pid;
                        if let Some(i) = plan.groups[..plan.len].iter().position(listed) {
                            plan.len -= 1;
                            plan.groups.swap(i, plan.len);
                        }
                    }
                    _ => {}
                }
            }
            buf.copy_within(whole..have, 0);
            have -= whole;
        }
    }

    /// A descriptor the watchdog opened, closed with a raw system call when dropped (std's `OwnedFd` closes
    /// through libc, which writes `errno` on a failure).
    struct Fd(RawFd);

    impl Fd {
        fn open(path: &CStr, flags: OFlags) -> Option<Fd> {
            let fd = rustix::fs::open(path, flags | OFlags::CLOEXEC, Mode::empty()).ok()?;
            Some(Fd(fd.into_raw_fd()))
        }

        fn open_at(dir: &Fd, name: &CStr, flags: OFlags) -> Option<Fd> {
            let fd = rustix::fs::openat(dir.borrow(), name, flags | OFlags::CLOEXEC, Mode::empty()).ok()?;
            Some(Fd(fd.into_raw_fd()))
        }

        #[allow(unsafe_code)]
        fn borrow(&self) -> BorrowedFd<'_> {
            // SAFETY: open until `self` is dropped.
            unsafe { BorrowedFd::borrow_raw(self.0) }
        }
    }

    impl Drop for Fd {
        #[allow(unsafe_code)]
        fn drop(&mut self) {
            // SAFETY: ours, and closed once.
            unsafe { rustix::io::close(self.0) };
        }
    }

    /// Closes every descriptor this process inherited except `keep`: those listed in `/proc/self/fd`, else the first
    /// 4096. (`close_range(2)` would do it in one call, but neither rustix nor std offers it, and libc's `syscall`
    /// writes `errno`, which is the host thread's here.)
    #[allow(unsafe_code)]
    fn close_all_but(keep: RawFd) {
        let Some(dir) = Fd::open(c"/proc/self/fd", OFlags::RDONLY | OFlags::DIRECTORY) else {
            for fd in (0..4096).filter(|&fd| fd != keep) {
                // SAFETY: a descriptor of this process that nothing in it uses (or none: then nothing happens).
                unsafe { rustix::io::close(fd) };
            }
            return;
        };
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        // An entry closed while listing is just gone: list again until a pass closes nothing.
        loop {
            let mut closed = false;
            let mut entries = RawDir::new(dir.borrow(), &mut buf);
            while let Some(Ok(entry)) = entries.next() {
                if let Some(fd) = parse_fd(entry.file_name().to_bytes()).filter(|&fd| fd != keep && fd != dir.0) {
                    // SAFETY: as above.
                    unsafe { rustix::io::close(fd) };
                    closed = true;
                }
            }
            if !closed || rustix::fs::seek(dir.borrow(), rustix::fs::SeekFrom::Start(0)).is_err() {
                break;
            }
        }
    }

    fn parse_fd(name: &[u8]) -> Option<RawFd> {
        if name.is_empty() || name.len() > 9 || !name.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(name.iter().fold(0, |n, &d| n * 10 + RawFd::from(d - b'0')))
    }

    /// Looks once through the directory the runs' cgroups are made in: each of the host's run cgroups still there
    /// is killed, waited for and removed; the cgroups of hosts that are gone are removed when empty (so is a
    /// `hook-exec.<pid>` of an earlier version's layout, with its `run.<n>` cgroups).
    fn sweep(dir: &CStr, host: &[u8]) {
        let Some(home) = Fd::open(dir, OFlags::RDONLY | OFlags::DIRECTORY) else { return };
        let proc = Fd::open(c"/proc", OFlags::RDONLY | OFlags::DIRECTORY);
        // One second of waiting in all, however many cgroups are left.
        let mut waits = 10;
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut entries = RawDir::new(home.borrow(), &mut buf);
        while let Some(Ok(entry)) = entries.next() {
            let name = entry.file_name();
            let Some(rest) = name.to_bytes().strip_prefix(crate::cgroup::PREFIX.as_bytes()) else { continue };
            let (pid, run) = match rest.iter().position(|&b| b == b'.') {
                Some(dot) => (&rest[..dot], Some(&rest[dot + 1..])),
                None => (rest, None),
            };
            if pid.is_empty() || !pid.iter().all(u8::is_ascii_digit) {
                continue;
            }
            if pid == host && run.is_some() {
                kill_and_remove(&home, name, &mut waits);
            } else if pid != host && !alive(proc.as_ref(), pid) {
                if run.is_none() {
                    remove_runs_in(&home, name);
                }
                let _ = rustix::fs::unlinkat(home.borrow(), name, AtFlags::REMOVEDIR);
            }
        }
    }

    /// Whether `/proc/<pid>` is there (`pid` in digits); `true` when that cannot be told.
    fn alive(proc: Option<&Fd>, pid: &[u8]) -> bool {
        let Some(proc) = proc else { return true };
        !matches!(
            rustix::fs::accessat(proc.borrow(), pid, rustix::fs::Access::EXISTS, AtFlags::empty()),
            Err(rustix::io::Errno::NOENT)
        )
    }

    /// Removes the run cgroup `name` in `home`, killing what is in it first when there is anything; waits for it
    /// to empty, a tenth of a second at a time, only while `waits` lasts.
    fn kill_and_remove(home: &Fd, name: &CStr, waits: &mut u32) {
        // The kernel removes only a cgroup that holds no process: when this succeeds there was nothing to kill.
        if rustix::fs::unlinkat(home.borrow(), name, AtFlags::REMOVEDIR).is_ok() {
            return;
        }
        let Some(cgroup) = Fd::open_at(home, name, OFlags::RDONLY | OFlags::DIRECTORY) else { return };
        if let Some(file) = Fd::open_at(&cgroup, c"cgroup.kill", OFlags::WRONLY) {
            let _ = rustix::io::write(file.borrow(), b"1");
        }
        while *waits > 0 && populated(&cgroup) {
            *waits -= 1;
            let _ = rustix::thread::nanosleep(&rustix::thread::Timespec { tv_sec: 0, tv_nsec: 100_000_000 });
        }
        let _ = rustix::fs::unlinkat(home.borrow(), name, AtFlags::REMOVEDIR);
    }

    /// Removes the `run.<n>` cgroups in `home`'s `name` (the layout of an earlier version).
    fn remove_runs_in(home: &Fd, name: &CStr) {
        let Some(host) = Fd::open_at(home, name, OFlags::RDONLY | OFlags::DIRECTORY) else { return };
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut entries = RawDir::new(host.borrow(), &mut buf);
        while let Some(Ok(entry)) = entries.next() {
            if entry.file_name().to_bytes().starts_with(b"run.") {
                let _ = rustix::fs::unlinkat(host.borrow(), entry.file_name(), AtFlags::REMOVEDIR);
            }
        }
    }

    /// Whether the cgroup's `cgroup.events` says it still holds a process.
    fn populated(cgroup: &Fd) -> bool {
        let Some(file) = Fd::open_at(cgroup, c"cgroup.events", OFlags::RDONLY) else { return false };
        let mut buf = [0u8; 512];
        let n = rustix::io::read(file.borrow(), &mut buf).unwrap_or(0);
        buf[..n].windows(11).any(|w| w == b"populated 1")
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::io::{self, Write};
    use std::os::unix::process::CommandExt as _;
    use std::path::Path;
    use std::process::{Command, Stdio};

    use super::Watchdog;

    /// The same watchdog as a shell script reading `+ pid` / `- pid` lines; `$1` is the runs' cgroup (none here).
    const SCRIPT: &str = r#"trap '' INT TERM HUP
live=' '
while read -r op pid; do
  case $op in
    +) live="$live$pid " ;;
    -) case $live in *" $pid "*) live="${live%% $pid *} ${live#* $pid }" ;; esac ;;
  esac
done
for pid in $live; do kill -s KILL -- "-$pid" 2>/dev/null; done
exit 0
"#;

    pub(super) fn tell(pipe: &mut std::fs::File, op: char, pid: i32) -> io::Result<()> {
        writeln!(pipe, "{op} {pid}")
    }

    pub(super) fn start(_cgroup: Option<&Path>) -> io::Result<Watchdog> {
        let mut child = Command::new(crate::invocation::SHELL)
            .arg("-c")
            .arg(SCRIPT)
            .arg("hook-exec-watchdog")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| io::Error::other("watchdog stdin missing"))?;
        let pid = child.id() as i32;
        Ok(Watchdog { pid, tell: std::fs::File::from(std::os::fd::OwnedFd::from(stdin)) })
    }
}
