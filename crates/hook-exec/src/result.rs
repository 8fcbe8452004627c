//! What a run returns: how the process ended, what it printed, and whether it could be started at all.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// How the leader process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// It was terminated by this signal number (9 after a deadline or a cancellation, since the group is SIGKILLed).
    Signal(i32),
}

impl Exit {
    #[cfg(unix)]
    pub(crate) fn from_status(status: std::process::ExitStatus) -> Option<Exit> {
        use std::os::unix::process::ExitStatusExt;
        status.code().map(Exit::Code).or_else(|| status.signal().map(Exit::Signal))
    }

    /// Windows has no signals: every process ends with a code (a killed one with the code its killer chose).
    #[cfg(windows)]
    pub(crate) fn from_status(status: std::process::ExitStatus) -> Option<Exit> {
        status.code().map(Exit::Code)
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(code) => write!(f, "exit code {code}"),
            Exit::Signal(sig) => write!(f, "killed by signal {sig}"),
        }
    }
}

/// The complete outcome of one run; a run never returns an error, it returns this.
///
/// Exactly one of these holds: [`spawn_error`](Self::spawn_error) is set (nothing ran), or
/// [`exit`](Self::exit) is set (the leader was reaped), or, in a pathological case where even a SIGKILLed leader did
/// not die in time, both are `None` and [`warnings`](Self::warnings) says so.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunResult {
    /// How the leader ended, when it ran and was reaped.
    pub exit: Option<Exit>,
    /// The deadline fired before the run was over; the group was killed.
    pub timed_out: bool,
    /// The caller's cancellation fired before the run was over; the group was killed.
    pub cancelled: bool,
    /// What the process wrote to stdout, up to the capture limit.
    pub stdout: Vec<u8>,
    /// What the process wrote to stderr, up to the capture limit.
    pub stderr: Vec<u8>,
    /// Stdout went past the capture limit; the rest was read and dropped.
    pub stdout_truncated: bool,
    /// Stderr went past the capture limit; the rest was read and dropped.
    pub stderr_truncated: bool,
    /// Wall time from before the spawn to the return.
    pub duration: Duration,
    /// The process could not be started; nothing ran.
    pub spawn_error: Option<SpawnError>,
    /// Things worth telling an operator that did not change the outcome (a descendant killed after the grace, a
    /// stdin write that failed other than by the child closing its end, a pipe held past the kill).
    pub warnings: Vec<String>,
}

impl RunResult {
    /// Stdout as text, with invalid UTF-8 replaced by U+FFFD.
    pub fn stdout_lossy(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Stderr as text, with invalid UTF-8 replaced by U+FFFD.
    pub fn stderr_lossy(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The process ran to completion by itself and exited with code 0.
    pub fn success(&self) -> bool {
        self.exit == Some(Exit::Code(0)) && !self.timed_out && !self.cancelled && self.spawn_error.is_none()
    }

    pub(crate) fn spawn_failed(error: SpawnError, duration: Duration) -> Self {
        RunResult { spawn_error: Some(error), duration, ..RunResult::default() }
    }
}

/// The error returned (inside [`RunResult::spawn_error`]) when [`run`](crate::run) could not start the process.
///
/// Distinct from a failed run: a missing program is a spawn error, while `sh -c missing-program` is a run that exits
/// with code 127.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpawnError {
    /// The program does not exist (or is not in `PATH`).
    #[error("program not found: {}", .program.to_string_lossy())]
    NotFound {
        /// The program as given.
        program: OsString,
    },
    /// The program exists but cannot be executed (no execute bit, a directory, an unknown binary format).
    #[error("program is not executable: {}", .program.to_string_lossy())]
    NotExecutable {
        /// The program as given.
        program: OsString,
    },
    /// The program's contents no longer hash to the digest it was to be run with
    /// ([`Invocation::verified_program`](crate::Invocation::verified_program)): it changed since it was checked.
    #[error("program changed since it was verified: {} (sha256 {found}, expected {expected})", .program.to_string_lossy())]
    Changed {
        /// The program as given.
        program: OsString,
        /// The digest it was to have.
        expected: String,
        /// The digest it has.
        found: String,
    },
    /// The working directory does not exist or is not a directory.
    #[error("bad working directory {}", .path.display())]
    BadCwd {
        /// The directory as given.
        path: PathBuf,
        /// Why it cannot be used.
        #[source]
        source: OsError,
    },
    /// Anything else that stopped the spawn (no file descriptors left, an empty argv, no reactor to register with).
    #[error("cannot start {}", .program.to_string_lossy())]
    Io {
        /// The program as given.
        program: OsString,
        /// The underlying error.
        #[source]
        source: OsError,
    },
}

/// A clonable, comparable snapshot of an [`io::Error`]: its kind, OS error number and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OsError {
    /// The error's kind.
    pub kind: io::ErrorKind,
    /// The OS error number, when there was one.
    pub raw_os_error: Option<i32>,
    /// The error's message.
    pub message: String,
}

impl From<&io::Error> for OsError {
    fn from(e: &io::Error) -> Self {
        OsError { kind: e.kind(), raw_os_error: e.raw_os_error(), message: e.to_string() }
    }
}

impl fmt::Display for OsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OsError {}
