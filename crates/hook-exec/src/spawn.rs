//! Starting the process: cwd check, stdio pipes, a new process group, and spawn errors told apart from failed runs.

use std::ffi::OsString;
use std::io;
#[cfg(not(target_os = "linux"))]
use std::os::fd::OwnedFd;
#[cfg(not(target_os = "linux"))]
use std::os::unix::process::CommandExt;
use std::path::Path;
#[cfg(not(target_os = "linux"))]
use std::process::Stdio;

use rustix::io::Errno;
use tokio::net::unix::pipe;

use crate::group::{Leader, WatchMode};
use crate::invocation::{Invocation, Program};
use crate::live;
use crate::result::{OsError, SpawnError};
use crate::verified;

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
    spawn_checked(inv, mode, kill_with_parent, program)
}

/// Linux: the leader is started by [`crate::vfork`] (no copy of the host's memory), with its parent-death signal,
/// its run's cgroup and the exec of a verified program's frozen copy done in the child before the exec.
#[cfg(target_os = "linux")]
fn spawn_checked(
    inv: &Invocation,
    mode: WatchMode,
    kill_with_parent: bool,
    program: OsString,
) -> Result<Spawned, SpawnError> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let invalid = |what: &str| SpawnError::Io {
        program: program.clone(),
        source: OsError::from(&io::Error::new(io::ErrorKind::InvalidInput, what.to_owned())),
    };
    let io_error = |e: io::Error| SpawnError::Io { program: program.clone(), source: OsError::from(&e) };
    let argv_os: Vec<OsString> = inv.full_argv();
    let Some(first) = argv_os.first() else { return Err(invalid("empty argv")) };
    let argv = verified::c_args(&argv_os).ok_or_else(|| invalid("an argument holds a NUL byte"))?;
    let envp = verified::final_env(inv);
    // Checked and frozen before the spawn; the child executes the frozen copy.
    let frozen = match (&inv.program, &inv.verified_program) {
        (Program::Argv(_), Some(expected)) => Some(verified::freeze(&program, expected)?),
        _ => None,
    };
    let candidates = match frozen {
        Some(_) => Vec::new(),
        None => crate::vfork::candidates(first, &envp).ok_or_else(|| invalid("the program holds a NUL byte"))?,
    };
    let cwd = match &inv.cwd {
        Some(dir) => Some(
            std::ffi::CString::new(dir.as_os_str().as_bytes())
                .map_err(|_| invalid("the working directory holds a NUL byte"))?,
        ),
        None => None,
    };
    let pipe = || rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| io_error(e.into()));
    let (stdin_child, stdin) = pipe()?;
    let (stdout, stdout_child) = pipe()?;
    let (stderr, stderr_child) = pipe()?;
    // Made after every early return, so none leaves it behind; joined in the child before the exec.
    let cgroup = live::run_cgroup();
    let plan = crate::vfork::Plan {
        candidates,
        exec_fd: frozen.as_ref().map(|f| f.fd.as_raw_fd()),
        argv,
        envp,
        cwd,
        stdio: [stdin_child.as_raw_fd(), stdout_child.as_raw_fd(), stderr_child.as_raw_fd()],
        parent_death: kill_with_parent.then(|| rustix::process::getpid().as_raw_nonzero().get()),
        cgroup_procs: cgroup.as_ref().map(|c| c.procs.as_raw_fd()),
    };
    // The registry's lock is held from before the spawn until the leader is listed, so an orphan sweep on another
    // thread can never mistake a child being born for an orphan.
    let mut registry = live::lock();
    let pid = match crate::vfork::spawn(&plan) {
        Ok(pid) => pid,
        Err(e) => {
            drop(registry);
            if let Some(cgroup) = &cgroup {
                let _ = cgroup.kill_and_remove();
            }
            return Err(classify(inv, program.clone(), &e));
        }
    };
    let pid = rustix::process::Pid::from_raw(pid).ok_or_else(|| io_error(io::Error::other("clone returned pid 0")))?;
    registry.add(pid, cgroup.as_ref().is_some_and(|c| c.killable));
    drop(registry);
    drop((stdin_child, stdout_child, stderr_child, frozen));
    // From here on the leader's drop kills the group, so a failed setup leaves nothing running.
    let leader = Leader::new(crate::group::Child::Raw(pid), mode, cgroup);
    let stdin = match inv.stdin.is_empty() {
        true => None,
        false => Some(pipe::Sender::from_owned_fd(stdin).map_err(io_error)?),
    };
    let stdout = pipe::Receiver::from_owned_fd(stdout).map_err(io_error)?;
    let stderr = pipe::Receiver::from_owned_fd(stderr).map_err(io_error)?;
    Ok(Spawned { leader, stdin, stdout, stderr })
}

/// Elsewhere: `std::process::Command`, in a group of its own.
#[cfg(not(target_os = "linux"))]
fn spawn_checked(
    inv: &Invocation,
    mode: WatchMode,
    _kill_with_parent: bool,
    program: OsString,
) -> Result<Spawned, SpawnError> {
    let mut cmd = inv.command().ok_or_else(|| SpawnError::Io {
        program: program.clone(),
        source: OsError::from(&io::Error::new(io::ErrorKind::InvalidInput, "empty argv")),
    })?;
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    // Checked before the spawn (executed by path here: no `fexecve` of the frozen copy outside Linux).
    if let (Program::Argv(_), Some(expected)) = (&inv.program, &inv.verified_program) {
        verified::freeze(&program, expected)?;
    }
    let mut registry = live::lock();
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => return Err(classify(inv, program.clone(), &e)),
    };
    registry.add(rustix::process::Pid::from_child(&child), false);
    drop(registry);

    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    // From here on the leader's drop kills the group, so a failed setup leaves nothing running.
    let leader = Leader::new(child, mode, None);
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
