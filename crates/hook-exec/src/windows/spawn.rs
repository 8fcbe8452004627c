//! Starting the leader inside its job: the command (argv, `cmd /c`, PowerShell), the cwd check, the verified
//! program held unchangeable, the suspended start, the job, the resume.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use sha2::{Digest, Sha256};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use windows_sys::Win32::Storage::FileSystem::FILE_SHARE_READ;
use windows_sys::Win32::System::Threading::{CREATE_NO_WINDOW, CREATE_SUSPENDED};

use super::job::{Job, resume_first_thread};
use crate::invocation::{Invocation, POWERSHELL_ARGS, Program, SHELL};
use crate::result::{OsError, SpawnError};

/// A started leader in its job, and the parent's ends of its pipes.
pub(crate) struct Spawned {
    pub(crate) child: Child,
    pub(crate) job: Job,
    /// `None` when the payload is empty: the pipe is closed at once, so the child reads EOF.
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) stdout: ChildStdout,
    pub(crate) stderr: ChildStderr,
}

pub(crate) fn spawn(inv: &Invocation) -> Result<Spawned, SpawnError> {
    let program = inv.program_name();
    if let Some(dir) = &inv.cwd {
        check_cwd(dir)?;
    }
    let io_error = |e: io::Error| SpawnError::Io { program: program.clone(), source: OsError::from(&e) };
    let mut cmd = command(inv, &program)?;
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.creation_flags(CREATE_SUSPENDED | CREATE_NO_WINDOW);
    // Held from the hash to the process's creation, without write or delete sharing: nothing can change or replace
    // the program in between.
    let _held = match (&inv.program, &inv.verified_program) {
        (Program::Argv(_), Some(expected)) => Some(hold_verified(&program, expected)?),
        _ => None,
    };
    let job = Job::new().map_err(io_error)?;
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|e| classify(inv, program.clone(), &e))?;
    let started = (|| {
        let handle = child.raw_handle().ok_or_else(|| io::Error::other("the child has no process handle"))?;
        job.assign(handle)?;
        resume_first_thread(child.id().unwrap_or_default())
    })();
    // On failure the suspended child is killed (kill_on_drop) and the job closed: nothing ran.
    started.map_err(|e| SpawnError::Io {
        program: program.clone(),
        source: OsError::from(&io::Error::new(e.kind(), format!("could not start it inside a Job Object: {e}"))),
    })?;
    let missing = || io_error(io::Error::other("child pipe missing"));
    let stdin = child.stdin.take().filter(|_| !inv.stdin.is_empty());
    let stdout = child.stdout.take().ok_or_else(missing)?;
    let stderr = child.stderr.take().ok_or_else(missing)?;
    Ok(Spawned { child, job, stdin, stdout, stderr })
}

/// The standard library's command for the invocation, with its cwd and environment.
fn command(inv: &Invocation, program: &OsStr) -> Result<std::process::Command, SpawnError> {
    let mut cmd = match &inv.program {
        Program::Argv(argv) => {
            let Some((first, args)) = argv.split_first() else {
                return Err(SpawnError::Io {
                    program: program.to_owned(),
                    source: OsError::from(&io::Error::new(io::ErrorKind::InvalidInput, "empty argv")),
                });
            };
            let mut cmd = std::process::Command::new(first);
            cmd.args(args);
            cmd
        }
        Program::Shell(line) => {
            let comspec = std::env::var_os("ComSpec").unwrap_or_else(|| OsString::from(SHELL));
            let mut cmd = std::process::Command::new(comspec);
            // `/s`: cmd takes what is between the first and the last quote as the line, verbatim.
            cmd.raw_arg("/d /s /c \"").raw_arg(line).raw_arg("\"");
            cmd
        }
        Program::PowerShell(line) => {
            let Some(shell) = find_powershell(inv) else {
                return Err(SpawnError::NotFound { program: OsString::from("pwsh (nor powershell) in PATH") });
            };
            let mut cmd = std::process::Command::new(shell);
            cmd.args(POWERSHELL_ARGS).arg(line);
            cmd
        }
    };
    if let Some(dir) = &inv.cwd {
        cmd.current_dir(dir);
    }
    inv.apply_env(&mut cmd);
    Ok(cmd)
}

/// `pwsh.exe`, else `powershell.exe`, in the child's `PATH` (the invocation's own, else the host's).
fn find_powershell(inv: &Invocation) -> Option<PathBuf> {
    let added = inv.env_add.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case("PATH")).map(|(_, v)| v.clone());
    let path = added.or_else(|| std::env::var_os("PATH"))?;
    ["pwsh.exe", "powershell.exe"]
        .iter()
        .find_map(|name| std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file()))
}

/// Opens the verified program so that no one can write, rename or delete it while the handle is open, and checks
/// its sha256 (lowercase hex) against `expected`.
fn hold_verified(program: &OsString, expected: &str) -> Result<File, SpawnError> {
    let mut file =
        std::fs::OpenOptions::new().read(true).share_mode(FILE_SHARE_READ).open(Path::new(program)).map_err(
            |e| match e.kind() {
                io::ErrorKind::NotFound => SpawnError::NotFound { program: program.clone() },
                io::ErrorKind::PermissionDenied => SpawnError::NotExecutable { program: program.clone() },
                _ => SpawnError::Io { program: program.clone(), source: OsError::from(&e) },
            },
        )?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(SpawnError::Io { program: program.clone(), source: OsError::from(&e) }),
        }
    }
    let found = hex::encode(hasher.finalize());
    if found != expected {
        return Err(SpawnError::Changed { program: program.clone(), expected: expected.to_owned(), found });
    }
    Ok(file)
}

fn check_cwd(dir: &Path) -> Result<(), SpawnError> {
    let bad = |e: &io::Error| SpawnError::BadCwd { path: dir.to_path_buf(), source: OsError::from(e) };
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(bad(&io::Error::new(io::ErrorKind::NotADirectory, "not a directory"))),
        Err(e) => Err(bad(&e)),
    }
}

/// Tells a missing program from one that cannot be executed from anything else.
fn classify(inv: &Invocation, program: OsString, e: &io::Error) -> SpawnError {
    if let Some(dir) = &inv.cwd
        && let Err(bad) = check_cwd(dir)
    {
        return bad;
    }
    // The standard library's own PATH search fails with NotFound and no code; then ERROR_FILE_NOT_FOUND,
    // ERROR_PATH_NOT_FOUND; ERROR_ACCESS_DENIED, ERROR_BAD_EXE_FORMAT, ERROR_EXE_MACHINE_TYPE_MISMATCH.
    if e.kind() == io::ErrorKind::NotFound {
        return SpawnError::NotFound { program };
    }
    match e.raw_os_error() {
        Some(2 | 3) => SpawnError::NotFound { program },
        Some(5 | 193 | 216) => SpawnError::NotExecutable { program },
        _ => SpawnError::Io { program, source: OsError::from(e) },
    }
}
