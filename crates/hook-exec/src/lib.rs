//! Run one subprocess safely: argv or shell, stdin payload, bounded capture, one deadline, process-group kill.
//!
//! A host hands [`run`] an [`Invocation`] (what to run, where, with which environment and stdin) and
//! [`RunOptions`] (deadline, capture limit, grace) and always gets a [`RunResult`] back: the exit code or signal,
//! whether the deadline or a cancellation fired, the captured stdout and stderr as bytes, truncation flags, the
//! duration, and a [`SpawnError`] when nothing could be started.
//!
//! What it guarantees, whatever the child does:
//! - **It never hangs.** One deadline covers writing stdin, running and reading. At the deadline the whole process
//!   group (each run gets its own) is SIGKILLed and the leader reaped. A hook that never reads a large payload, or a
//!   backgrounded grandchild that keeps stdout open, cannot stretch the run: after the leader exits, a descendant
//!   still holding a pipe gets [`RunOptions::grace`] (100 ms) before the group is killed.
//! - **It never leaks.** Grandchildren die with the group; dropping the run future mid-flight kills the group
//!   synchronously. A detached child that redirected its own output (`cmd >/dev/null 2>&1 &`) and exited the
//!   pipes is left alone by design.
//! - **It never floods.** Capture is capped per stream (1 MiB by default); the rest is read and dropped.
//! - A child that exits without reading its stdin is not an error (EPIPE is ignored).
//!
//! Depends on `tokio` (pipes, timers, the reactor), `rustix` (pidfd, `waitid`, `kill`, `prctl`, memfd), `libc`
//! (`clone`, `execve`, `fexecve`) and `sha2`. Its `unsafe`, each block with a `// SAFETY:` comment: registering the
//! pidfd with Tokio's reactor (its safe constructor is deprecated), and on Linux the leader's start with
//! `clone(CLONE_VM | CLONE_VFORK)` (`vfork.rs`), whose child sets up the parent-death signal, joins the run's cgroup
//! and executes the program (a verified program's sealed copy through `fexecve`) with system calls only; and the
//! watchdog's `clone(CLONE_VM)` (`watchdog.rs`), which shares the host's memory and makes raw system calls only;
//! and the orphan sweep's `waitid(P_ALL)` (`live.rs`), which rustix does not offer. No inline assembly.
//! It never knows what a hook, an event or an effect is, never interprets the output, and adds no environment
//! variable of its own: the caller decides all of that.
//!
//! Platforms: Linux first (a pidfd tells that the leader exited without reaping it); other Unix (macOS) through
//! `waitid(WNOWAIT)` on a blocking thread. Windows has neither process groups nor signals: there each run is a Job
//! Object, with the same guarantees (see the `windows` module: the job is killed at the deadline, at the end of the
//! run, when the run is dropped, and by Windows itself when the host dies, since the host holds the job's only
//! handle). A descendant that left the group with `setsid` cannot be killed through the
//! group; the run stops reading its pipe after the grace and says so in [`RunResult::warnings`]. A host that sets
//! `SIGCHLD` to `SIG_IGN` loses exit statuses (the kernel reaps children itself).
//!
//! **Nothing outlives the host**, for a host that asks ([`supervise`], [`signal_live_groups`]; the `hook` CLI does):
//!
//! | the host… | Linux | other Unix |
//! |---|---|---|
//! | gets SIGINT/SIGTERM/SIGHUP and forwards it ([`signal_live_groups`]), then drops its runs | every group gets the signal, then SIGKILL; all reaped | same |
//! | ends a run whose descendant left the group (`setsid`) | with a cgroup ([`Supervision::cgroup`]): killed with the run's cgroup; else, once its parent is gone, adopted (child subreaper) and killed when a run ends ([`reap_orphans`]) | survives |
//! | is SIGKILLed | the watchdog SIGKILLs every listed group, and with a cgroup everything in it; each leader also dies with its parent (`PR_SET_PDEATHSIG`) | the watchdog kills every listed group |
//! | is SIGKILLed while a `setsid` escape runs | killed with the cgroup where there is one; else it survives | survives |
//!
//! The functions must be called inside a Tokio runtime with IO and time enabled.
//!
//! ```
//! use std::time::Duration;
//! use hook_exec::{Exit, Invocation, RunOptions, run};
//!
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let result = rt.block_on(async {
//!     let inv = Invocation::shell("read name; echo \"hello $name\"; exit 3")
//!         .stdin(b"world\n".to_vec());
//!     run(&inv, &RunOptions { timeout: Duration::from_secs(5), ..Default::default() }).await
//! });
//! assert_eq!(result.stdout_lossy(), "hello world\n");
//! assert_eq!(result.exit, Some(Exit::Code(3)));
//! assert!(!result.success() && !result.timed_out && result.spawn_error.is_none());
//! ```
#![deny(unsafe_code)]
#![cfg(any(unix, windows))]

mod capture;
#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(unix)]
mod group;
mod invocation;
#[cfg(unix)]
mod live;
mod options;
#[cfg(unix)]
mod procfs;
mod result;
#[cfg(unix)]
mod run;
#[cfg(unix)]
mod spawn;
mod text;
#[cfg(unix)]
mod verified;
#[cfg(target_os = "linux")]
mod vfork;
#[cfg(unix)]
mod watchdog;
#[cfg(windows)]
mod windows;

pub use invocation::{EnvPolicy, Invocation, Program};
#[cfg(unix)]
pub use live::{
    GroupSignal, Supervision, cgroup_in_use, live_group_count, reap_orphans, signal_live_groups, supervise,
};
pub use options::RunOptions;
pub use result::{Exit, OsError, RunResult, SpawnError};
#[cfg(unix)]
pub use run::{run, run_cancellable};
pub use text::{terminal_safe, terminal_safe_str};
#[cfg(windows)]
pub use windows::{
    GroupSignal, Supervision, cgroup_in_use, live_group_count, reap_orphans, run, run_cancellable, signal_live_groups,
    supervise,
};
