//! Windows: every run in a Job Object of its own.
//!
//! Windows has no process groups, signals or pidfds; a Job Object gives the same guarantees the Unix half gets from
//! them:
//!
//! | guarantee | how, on Windows |
//! |---|---|
//! | the whole tree dies at the deadline, on cancellation and when the run ends | `TerminateJobObject`: the leader is started suspended, put in the job, then resumed, so every descendant is born inside it, and a job without `JOB_OBJECT_LIMIT_BREAKAWAY_OK` lets none leave |
//! | nothing outlives a dropped run | the job's only handle is the run's: closing it kills what is in it (`JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`) |
//! | nothing outlives the host, however it dies | Windows closes a dead process's handles, so the same limit kills every run of a host that was killed |
//! | one deadline over the stdin write | the write is part of the run the deadline covers; the kill breaks the pipe under a blocked write |
//! | no pipe held open forever | a descendant that keeps stdout open after the leader exited gets the grace, then the job is killed, which closes its handles |
//!
//! What differs from Unix: at the end of a run the job is killed even when the run finished by itself, so a
//! background process a hook started (`start /b`) never outlives it (on Unix one that redirected its output away is
//! left alone); a killed run reports [`Exit::Code`](crate::Exit::Code) of [`KILLED_EXIT_CODE`] (there are no
//! signals); a verified program is kept open without write or delete sharing from its hash to the process's
//! creation, so it cannot be changed in between (on Linux a sealed copy is executed instead).
//!
//! Shells: [`Program::Shell`](crate::Program::Shell) runs `%ComSpec%` (`cmd.exe`) with `/d /s /c "<line>"`;
//! [`Program::PowerShell`](crate::Program::PowerShell) runs `pwsh`, else `powershell`, found in `PATH`; a missing
//! shell is a [`SpawnError`](crate::SpawnError), which a gate's host treats as a failure, never a pass.

mod job;
mod live;
mod run;
mod spawn;

pub use live::{
    GroupSignal, Supervision, cgroup_in_use, live_group_count, reap_orphans, signal_live_groups, supervise,
};
pub use run::{run, run_cancellable};

/// The exit code of every process of a job that was killed (by the deadline, a cancellation, the end of the run or
/// [`signal_live_groups`]): `0xC000013A`, `STATUS_CONTROL_C_EXIT`, which Windows also reports for a console
/// process ended by Ctrl-C.
pub const KILLED_EXIT_CODE: u32 = 0xC000_013A;
