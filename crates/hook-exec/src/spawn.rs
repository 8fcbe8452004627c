//! Starting the process: cwd check, stdio pipes, a new process group, and spawn errors told apart from failed runs.

use std::ffi::OsString;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;

use rustix::io::Errno;
use tokio::net::unix::pipe;

use crate::group::{Leader, WatchMode};
use crate::invocation::{Invocation, Program};
use crate::live;
use crate::result::{OsError, SpawnError};
use crate::verified::{self, Frozen};

/// A started process: its group leader and the parent's ends of its pipes.
pub(crate) struct Spawned {
    pub(crate) leader: Leader,
    /// `None` when the payload is empty: the pipe is closed at once, so the child reads EOF.
    pub(crate) stdin: Option<pipe::Sender>,
    pub(crate) stdout: pipe::Receiver,
    pub(crate) stderr: pipe::Receiver,
}

pub(crate) fn spawn(inv: &Invocation, mode: WatchMode, kill_with_parent: bool) -> Result<Spawned, SpawnError> {
    let program = inv.program_name();
    if let Some(dir) = &inv.cwd {
        check_cwd(dir)?;
    }
    let mut cmd = inv.command().ok_or_else(|| SpawnError::Io {
        program: program.clone(),
        source: OsError::from(&io::Error::new(io::ErrorKind::InvalidInput, "empty argv")),
    })?;
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    if kill_with_parent {
        die_with_parent(&mut cmd);
    }
    // Checked and frozen before the fork; the child executes the frozen copy.
    let verified = match (&inv.program, &inv.verified_program) {
        (Program::Argv(argv), Some(expected)) => {
            let frozen = verified::freeze(&program, expected)?;
            let env = verified::final_env(inv);
            let args = verified::c_args(argv).ok_or_else(|| SpawnError::Io {
                program: program.clone(),
                source: OsError::from(&io::Error::new(io::ErrorKind::InvalidInput, "an argument holds a NUL byte")),
            })?;
            Some((frozen, args, env))
        }
        _ => None,
    };
    // Made after every early return, so none leaves it behind; joined in the child before the exec.
    let cgroup = join_run_cgroup(&mut cmd);
    // The exec of the frozen copy must be the last closure: it does not return.
    let _frozen = verified.map(|(frozen, args, env)| {
        exec_frozen(&mut cmd, &frozen, args, env);
        frozen
    });
    // The registry's lock is held from before the fork until the leader is listed, so an orphan sweep on another
    // thread can never mistake a child being born for an orphan.
    let mut registry = live::lock();
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            if let Some(cgroup) = &cgroup {
                cgroup.kill_and_remove();
            }
            return Err(classify(inv, program.clone(), &e));
        }
    };
    registry.add(rustix::process::Pid::from_child(&child));
    drop(registry);

    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    // From here on the leader's drop kills the group, so a failed setup leaves nothing running.
    let leader = Leader::new(child, mode, cgroup);
    let io_error = |e: io::Error| SpawnError::Io { program: program.clone(), source: OsError::from(&e) };
    let missing = || io::Error::other("child pipe missing");
    let stdin = match stdin {
        Some(fd) if !inv.stdin.is_empty() => Some(pipe::Sender::from_owned_fd(OwnedFd::from(fd)).map_err(io_error)?),
        _ => None,
    };
    let stdout = pipe::Receiver::from_owned_fd(OwnedFd::from(stdout.ok_or_else(missing).map_err(io_error)?))
        .map_err(io_error)?;
    let stderr = pipe::Receiver::from_owned_fd(OwnedFd::from(stderr.ok_or_else(missing).map_err(io_error)?))
        .map_err(io_error)?;
    Ok(Spawned { leader, stdin, stdout, stderr })
}

fn check_cwd(dir: &Path) -> Result<(), SpawnError> {
    let bad = |e: &io::Error| SpawnError::BadCwd { path: dir.to_path_buf(), source: OsError::from(e) };
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(bad(&io::Error::from_raw_os_error(Errno::NOTDIR.raw_os_error()))),
        Err(e) => Err(bad(&e)),
    }
}

/// Tells a missing program from one that cannot be executed from anything else. `chdir` failures share errno values
/// with `execve`'s, so a cwd that turned bad after [`check_cwd`] is caught by checking it again.
fn classify(inv: &Invocation, program: OsString, e: &io::Error) -> SpawnError {
    if let Some(dir) = &inv.cwd
        && let Err(bad) = check_cwd(dir)
    {
        return bad;
    }
    match e.raw_os_error().map(Errno::from_raw_os_error) {
        Some(Errno::NOENT | Errno::NOTDIR) => SpawnError::NotFound { program },
        Some(Errno::ACCESS | Errno::NOEXEC | Errno::ISDIR | Errno::PERM) => SpawnError::NotExecutable { program },
        _ => SpawnError::Io { program, source: OsError::from(e) },
    }
}

/// Linux: the leader gets SIGKILL when the thread that spawned it dies (`PR_SET_PDEATHSIG`), so even a host killed
/// by SIGKILL does not leave its hook's leader running. Elsewhere: nothing.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(cmd: &mut std::process::Command) {
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the child between fork and exec, where only async-signal-safe calls are allowed:
    // it makes two raw syscalls (prctl, getppid) through rustix, which neither allocates nor takes a lock.
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent may have died before the prctl took effect: then no signal will ever come.
            if rustix::process::getppid() != Some(parent) {
                return Err(io::Error::other("the parent died during the spawn"));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_cmd: &mut std::process::Command) {}

/// Linux: the child executes the frozen copy of a verified program (`fexecve` of the sealed memory file) instead of
/// looking the path up again. Elsewhere the exec goes by path, as usual.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn exec_frozen(
    cmd: &mut std::process::Command,
    frozen: &Frozen,
    args: Vec<std::ffi::CString>,
    env: Vec<std::ffi::CString>,
) {
    use std::os::fd::AsRawFd;
    /// Null-terminated pointer arrays into `args` and `env`, which the closure owns, so they stay valid.
    struct Vectors {
        _args: Vec<std::ffi::CString>,
        _env: Vec<std::ffi::CString>,
        argv: Vec<*const libc::c_char>,
        envp: Vec<*const libc::c_char>,
    }
    // SAFETY: the pointers point into the CStrings this struct owns, which are never changed or moved out while
    // it lives; they are only read, by the exec in the child.
    unsafe impl Send for Vectors {}
    // SAFETY: as above: nothing writes through them.
    unsafe impl Sync for Vectors {}
    let null_terminated = |strings: &[std::ffi::CString]| {
        strings.iter().map(|s| s.as_ptr()).chain(std::iter::once(std::ptr::null())).collect::<Vec<_>>()
    };
    let vectors = Vectors { argv: null_terminated(&args), envp: null_terminated(&env), _args: args, _env: env };
    let fd = frozen.fd.as_raw_fd();
    // SAFETY: the closure runs in the child between fork and exec and makes only async-signal-safe calls (fcntl,
    // fexecve) with arguments prepared before the fork; it allocates nothing. `fd` stays open in the parent until
    // the spawn has returned (`Frozen` outlives it), so the child's copy is open too.
    unsafe {
        cmd.pre_exec(move || {
            // A `#!` interpreter opens the script as /dev/fd/N after the exec: the copy must survive it.
            if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            let Vectors { argv, envp, .. } = &vectors;
            libc::fexecve(fd, argv.as_ptr(), envp.as_ptr());
            Err(io::Error::last_os_error())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn exec_frozen(
    _cmd: &mut std::process::Command,
    _frozen: &Frozen,
    _args: Vec<std::ffi::CString>,
    _env: Vec<std::ffi::CString>,
) {
}

/// Linux, with [`Supervision::cgroup`](crate::Supervision::cgroup) in use: a cgroup for this run, which the leader
/// joins between fork and exec (so everything it starts is in it); `None` otherwise or when it cannot be made.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn join_run_cgroup(cmd: &mut std::process::Command) -> Option<crate::cgroup::RunCgroup> {
    let root = live::cgroup_in_use()?;
    let cgroup = crate::cgroup::RunCgroup::new(&root)?;
    let procs = cgroup.procs.try_clone().ok()?;
    // SAFETY: the closure runs in the child between fork and exec and makes one write(2) of two bytes to a
    // descriptor opened before the fork; it allocates nothing. A failure leaves the run outside the cgroup (it
    // still runs, only without the cgroup's reach), never fails the spawn.
    unsafe {
        cmd.pre_exec(move || {
            let _ = std::io::Write::write_all(&mut &procs, b"0");
            Ok(())
        });
    }
    Some(cgroup)
}

#[cfg(not(target_os = "linux"))]
fn join_run_cgroup(_cmd: &mut std::process::Command) -> Option<crate::group::RunCgroup> {
    None
}
