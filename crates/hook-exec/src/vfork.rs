//! Linux: starting a hook's leader with `clone(CLONE_VM | CLONE_VFORK)`, as glibc's `posix_spawn` does, instead of
//! the `fork` that the standard library falls back to whenever a `pre_exec` closure is set.
//!
//! The leader needs three things no `posix_spawn` attribute gives: the parent-death signal (`PR_SET_PDEATHSIG`), the
//! join of its run's cgroup, and for a verified program the `fexecve` of the frozen copy. With `fork`, each spawn
//! copied the page tables of the whole host (about 10 MB resident for `hook`) and every page either side wrote
//! before the child's `exec` was copied again (docs/performance.md#the-process-start). Here the child shares the
//! host's memory and runs on a stack of its own until it executes the program, while the spawning thread waits.
//!
//! What the child does is fixed and prepared before the clone: every string, pointer array and candidate path is
//! built in the parent, so the child only makes system calls through libc's thin wrappers (`sigaction`, `dup2`,
//! `setpgid`, `chdir`, `prctl`, `getppid`, `write`, `sigprocmask`, `fcntl`, `execve`/`fexecve`, `_exit`), which are
//! async-signal-safe, neither allocate nor take locks, and touch no Rust state. It reports why it could not execute
//! by writing an errno into the parent's memory (shared, and read only after the parent resumes) and exits 127.

use std::ffi::{CString, c_char, c_int, c_void};
use std::io;
use std::os::fd::RawFd;

/// Everything the child does, prepared in the parent.
pub(crate) struct Plan {
    /// The paths to try, in order: one, or one per `PATH` entry for a bare program name.
    pub(crate) candidates: Vec<CString>,
    /// Execute this descriptor (`fexecve`, the frozen copy of a verified program) instead of a path.
    pub(crate) exec_fd: Option<RawFd>,
    pub(crate) argv: Vec<CString>,
    pub(crate) envp: Vec<CString>,
    pub(crate) cwd: Option<CString>,
    /// The child's ends of its stdin, stdout and stderr pipes, made fds 0, 1 and 2.
    pub(crate) stdio: [RawFd; 3],
    /// Our pid, when the child gets SIGKILL as its parent-death signal.
    pub(crate) parent_death: Option<libc::pid_t>,
    /// `cgroup.procs` of the run's cgroup, which the child joins by writing `0`.
    pub(crate) cgroup_procs: Option<RawFd>,
}

/// What the child reads (through raw pointers into the parent's memory) and the one thing it writes back.
struct Shared {
    candidates: Vec<*const c_char>,
    exec_fd: c_int,
    argv: Vec<*const c_char>,
    envp: Vec<*const c_char>,
    cwd: *const c_char,
    stdio: [c_int; 3],
    parent_death: libc::pid_t,
    cgroup_procs: c_int,
    /// Zero, or the errno of the step that failed (then the child exited 127 without executing anything).
    errno: c_int,
}

/// The child's stack. It runs a few system calls only; glibc's `posix_spawn` uses about as much.
const STACK_BYTES: usize = 64 * 1024;

/// Starts the leader as the plan says; returns its pid once it has executed the program, or the error that stopped
/// it (the child is then reaped).
#[allow(unsafe_code)]
pub(crate) fn spawn(plan: &Plan) -> io::Result<libc::pid_t> {
    let pointers = |strings: &[CString]| {
        strings.iter().map(|s| s.as_ptr()).chain(std::iter::once(std::ptr::null())).collect::<Vec<_>>()
    };
    let mut shared = Shared {
        candidates: plan.candidates.iter().map(|s| s.as_ptr()).collect(),
        exec_fd: plan.exec_fd.unwrap_or(-1),
        argv: pointers(&plan.argv),
        envp: pointers(&plan.envp),
        cwd: plan.cwd.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
        stdio: plan.stdio,
        parent_death: plan.parent_death.unwrap_or(0),
        cgroup_procs: plan.cgroup_procs.unwrap_or(-1),
        errno: 0,
    };
    // Left uninitialised: zeroing it would touch (and fault in) all of its pages, where the child touches one or
    // two at its top. Nothing reads it as Rust data; the child writes before it reads, as any stack.
    let mut stack: Vec<std::mem::MaybeUninit<u8>> = Vec::with_capacity(STACK_BYTES);
    // The stack grows down from its top, which must be 16-byte aligned.
    let top = {
        let end = stack.spare_capacity_mut().as_mut_ptr().wrapping_add(STACK_BYTES) as usize;
        (end & !15) as *mut c_void
    };
    // SAFETY: `all` and `old` are plain C data initialised by sigfillset/pthread_sigmask before use. Blocking every
    // signal around the clone means no handler of ours can run in the child while it shares our memory; the child
    // resets every handler to the default before it unblocks them.
    let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
    }
    // SAFETY: `child` only reads `shared` (alive on this frame until clone returns: with CLONE_VFORK this thread is
    // suspended until the child has executed or exited) and writes its `errno` field; it runs on `stack`, which
    // outlives the child's use of it for the same reason. See the module documentation for why the child's calls
    // are safe in a child that shares our memory.
    let pid = unsafe {
        libc::clone(child, top, libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD, (&raw mut shared).cast::<c_void>())
    };
    let clone_error = io::Error::last_os_error();
    // SAFETY: restores the mask saved above.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
    drop(stack);
    if pid == -1 {
        return Err(clone_error);
    }
    // SAFETY: the child has executed or exited, so it no longer writes `shared`; read it as memory another
    // process wrote.
    let errno = unsafe { std::ptr::read_volatile(&raw const shared.errno) };
    if errno != 0 {
        reap(pid);
        return Err(io::Error::from_raw_os_error(errno));
    }
    Ok(pid)
}

/// Reaps a child that failed before executing (it has exited already).
fn reap(pid: libc::pid_t) {
    let Some(pid) = rustix::process::Pid::from_raw(pid) else { return };
    while let Err(rustix::io::Errno::INTR) = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty())
    {
    }
}

/// The child, between the clone and the exec: system calls only (module documentation).
#[allow(unsafe_code)]
extern "C" fn child(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the parent's `Shared`, alive and not touched by the parent until this child executes or
    // exits; every pointer in it points into strings the parent keeps alive for as long.
    unsafe {
        let shared = &mut *arg.cast::<Shared>();
        let fail = |shared: &mut Shared| -> ! {
            std::ptr::write_volatile(&raw mut shared.errno, errno().max(1));
            libc::_exit(127)
        };
        // Every handler of the host goes back to the default (they are host code, and the memory is shared); so
        // does SIGPIPE, which the Rust runtime ignores, as the standard library does for its children.
        for signal in 1..libc::SIGRTMAX() {
            if signal == libc::SIGKILL || signal == libc::SIGSTOP {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut action) != 0 {
                continue;
            }
            if action.sa_sigaction != libc::SIG_DFL && (action.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
            {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        for (target, &fd) in shared.stdio.iter().enumerate() {
            let target = target as c_int;
            let ok = if fd == target { libc::fcntl(fd, libc::F_SETFD, 0) != -1 } else { libc::dup2(fd, target) != -1 };
            if !ok {
                fail(shared);
            }
        }
        if libc::setpgid(0, 0) != 0 {
            fail(shared);
        }
        if !shared.cwd.is_null() && libc::chdir(shared.cwd) != 0 {
            fail(shared);
        }
        if shared.parent_death != 0 {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                fail(shared);
            }
            // The parent may have died before the prctl took effect: then no signal will ever come.
            if libc::getppid() != shared.parent_death {
                *libc::__errno_location() = libc::ESRCH;
                fail(shared);
            }
        }
        if shared.cgroup_procs >= 0 {
            // A failure leaves the run outside the cgroup (without its reach), never fails the spawn.
            libc::write(shared.cgroup_procs, b"0".as_ptr().cast(), 1);
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        if shared.exec_fd >= 0 {
            // A `#!` interpreter opens the script as /dev/fd/N after the exec: the copy must survive it.
            if libc::fcntl(shared.exec_fd, libc::F_SETFD, 0) == -1 {
                fail(shared);
            }
            libc::fexecve(shared.exec_fd, shared.argv.as_ptr(), shared.envp.as_ptr());
            fail(shared);
        }
        // As execvp: the first candidate that can be executed; a missing one goes on to the next, a permission
        // error is remembered and reported if nothing else executes.
        let mut denied = false;
        for &path in &shared.candidates {
            libc::execve(path, shared.argv.as_ptr(), shared.envp.as_ptr());
            match errno() {
                libc::EACCES => denied = true,
                libc::ENOENT
                | libc::ENOTDIR
                | libc::ENAMETOOLONG
                | libc::ELOOP
                | libc::ESTALE
                | libc::ENODEV
                | libc::ETIMEDOUT => {}
                _ => fail(shared),
            }
        }
        if denied {
            *libc::__errno_location() = libc::EACCES;
        } else if shared.candidates.is_empty() || errno() == 0 {
            *libc::__errno_location() = libc::ENOENT;
        }
        fail(shared)
    }
}

#[allow(unsafe_code)]
fn errno() -> c_int {
    // SAFETY: reads this thread's errno, which libc keeps at a valid address.
    unsafe { *libc::__errno_location() }
}

/// The paths `program` is tried at: itself when it holds a `/`, else each entry of the child's `PATH` (of `env`,
/// or `/bin:/usr/bin` without one, as `execvp` does) joined with it.
pub(crate) fn candidates(program: &std::ffi::OsStr, env: &[CString]) -> Option<Vec<CString>> {
    use std::os::unix::ffi::OsStrExt;
    let name = program.as_bytes();
    if name.is_empty() {
        return Some(Vec::new());
    }
    if name.contains(&b'/') {
        return Some(vec![CString::new(name).ok()?]);
    }
    let path = env.iter().find_map(|pair| pair.as_bytes().strip_prefix(b"PATH=")).unwrap_or(b"/bin:/usr/bin");
    path.split(|&b| b == b':')
        .map(|dir| {
            let mut full = if dir.is_empty() { Vec::new() } else { dir.to_vec() };
            if !full.is_empty() && !full.ends_with(b"/") {
                full.push(b'/');
            }
            full.extend_from_slice(name);
            CString::new(full).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_name_is_looked_up_along_the_childs_path() {
        let env = [CString::new("PATH=/a:/b/::/c").unwrap()];
        let found = candidates(std::ffi::OsStr::new("tool"), &env).unwrap();
        let found: Vec<&[u8]> = found.iter().map(|c| c.as_bytes()).collect();
        assert_eq!(found, [&b"/a/tool"[..], b"/b/tool", b"tool", b"/c/tool"]);
        let none = candidates(std::ffi::OsStr::new("tool"), &[]).unwrap();
        assert_eq!(none.len(), 2, "execvp's default path");
        let slash = candidates(std::ffi::OsStr::new("./x/tool"), &env).unwrap();
        assert_eq!(slash[0].as_bytes(), b"./x/tool");
    }
}
