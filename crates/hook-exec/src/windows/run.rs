//! The run on Windows: the Unix run's order of events ([`crate::run`] there), with the job in place of the group.
//!
//! 1. Spawn inside the job (a failure returns at once with [`RunResult::spawn_error`]).
//! 2. Concurrently: write the payload and close stdin, drain stdout and stderr, wait for the leader's exit.
//! 3. The run is over when the leader has exited and both outputs are at EOF; a descendant still holding an output
//!    gets [`RunOptions::grace`], then the job is killed and the result keeps the leader's code with a warning.
//! 4. At the deadline (or when the caller's cancellation completes) the job is killed wherever the run is.
//! 5. After any kill: wait for the leader to be gone, take what is in the pipes within `grace`.
//! 6. Whatever way it ended, the job is killed and closed: nothing the run started outlives it.

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use tokio::io::AsyncRead;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::time::Instant;

use super::spawn::{Spawned, spawn};
use crate::capture::{Capture, write_stdin};
use crate::invocation::Invocation;
use crate::options::RunOptions;
use crate::result::{Exit, RunResult};

/// How long to wait for a killed leader to be gone. A process a job kill does not end at once is stuck in the
/// kernel.
const KILL_WAIT: Duration = Duration::from_secs(2);

/// Runs one process to completion, to its deadline, or until the grace after its leader's exit, and returns
/// everything there is to know about it. Never returns an error: a process that could not start is reported in
/// [`RunResult::spawn_error`].
///
/// The returned future may be dropped at any point: its job is then closed, which kills every process in it.
///
/// # Panics
/// When called outside a Tokio runtime with both the IO and the time drivers enabled.
pub async fn run(inv: &Invocation, opts: &RunOptions) -> RunResult {
    run_cancellable(inv, opts, std::future::pending()).await
}

/// [`run`], stopped early when `cancel` completes first: the job is killed, and the result has `cancelled: true`
/// with whatever was captured until then.
///
/// # Panics
/// As [`run`].
pub async fn run_cancellable(inv: &Invocation, opts: &RunOptions, cancel: impl Future<Output = ()>) -> RunResult {
    let start = std::time::Instant::now();
    let deadline = start
        .checked_add(opts.timeout)
        .map(Instant::from_std)
        .unwrap_or_else(|| Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600));
    let Spawned { mut child, job, stdin, stdout, stderr } = match spawn(inv) {
        Ok(spawned) => spawned,
        Err(e) => return RunResult::spawn_failed(e, start.elapsed()),
    };
    let mut out = Capture::new(Some(stdout), opts.capture_limit);
    let mut err = Capture::new(Some(stderr), opts.capture_limit);
    let mut warnings = Vec::new();
    let mut stdin_error = None;
    let ending = {
        let supervised = supervise(&mut child, &mut out, &mut err, stdin, &inv.stdin, opts.grace, &mut stdin_error);
        tokio::select! {
            biased;
            ending = supervised => ending,
            () = tokio::time::sleep_until(deadline) => Ending::TimedOut,
            () = cancel => Ending::Cancelled,
        }
    };
    if let Some(e) = stdin_error {
        warnings.push(format!("writing stdin failed: {e}"));
    }
    let (timed_out, cancelled) = (matches!(ending, Ending::TimedOut), matches!(ending, Ending::Cancelled));
    if !matches!(ending, Ending::Finished) {
        if matches!(ending, Ending::GraceExpired) {
            warnings.push(format!(
                "a descendant still held stdout or stderr {:?} after the leader exited; killed the run's job",
                opts.grace
            ));
        }
        if !job.terminate() {
            warnings.push(format!("killing the run's job failed: {}", std::io::Error::last_os_error()));
        }
        settle(&mut out, &mut err, opts.grace, &mut warnings).await;
    }
    let exit = match tokio::time::timeout(KILL_WAIT, child.wait()).await {
        Ok(Ok(status)) => Exit::from_status(status),
        Ok(Err(e)) => {
            warnings.push(format!("could not wait for the leader: {e}"));
            None
        }
        Err(_) => {
            warnings.push(format!("the leader was not gone {KILL_WAIT:?} after its job was killed"));
            None
        }
    };
    // Whatever the run left behind (a `start /b` of a hook's) ends with it.
    job.terminate();
    drop(job);
    for (name, error) in [("stdout", out.error.take()), ("stderr", err.error.take())] {
        if let Some(e) = error {
            warnings.push(format!("reading {name} failed: {e}"));
        }
    }
    RunResult {
        exit,
        timed_out,
        cancelled,
        stdout_truncated: out.truncated,
        stderr_truncated: err.truncated,
        stdout: out.bytes,
        stderr: err.bytes,
        duration: start.elapsed(),
        spawn_error: None,
        warnings,
    }
}

enum Ending {
    /// The leader exited and both outputs reached EOF.
    Finished,
    /// The leader exited but an output was still open after the grace.
    GraceExpired,
    TimedOut,
    Cancelled,
}

/// Steps 2 and 3: returns when the run is over by itself or the grace after the leader's exit has expired.
async fn supervise(
    child: &mut Child,
    out: &mut Capture<ChildStdout>,
    err: &mut Capture<ChildStderr>,
    stdin: Option<ChildStdin>,
    payload: &[u8],
    grace: Duration,
    stdin_error: &mut Option<std::io::Error>,
) -> Ending {
    let mut writer = pin!(write_stdin(stdin, payload));
    let mut writing = true;
    let mut outputs = pin!(async {
        tokio::join!(out.drain(), err.drain());
    });
    let mut outputs_open = true;
    let mut exited = pin!(child.wait());
    let mut leader_running = true;
    let mut grace_timer = pin!(tokio::time::sleep(grace));
    loop {
        tokio::select! {
            result = &mut writer, if writing => {
                writing = false;
                if let Err(e) = result {
                    *stdin_error = Some(e);
                }
            }
            () = &mut outputs, if outputs_open => {
                outputs_open = false;
                if !leader_running {
                    return Ending::Finished;
                }
            }
            _ = &mut exited, if leader_running => {
                leader_running = false;
                if !outputs_open {
                    return Ending::Finished;
                }
                grace_timer.as_mut().reset(Instant::now() + grace);
            }
            () = &mut grace_timer, if !leader_running => return Ending::GraceExpired,
        }
    }
}

/// Step 5: after the job was killed, collects what the dead processes left in the pipes; EOF follows as soon as the
/// last holder is gone, which the kill makes at once.
async fn settle<O, E>(out: &mut Capture<O>, err: &mut Capture<E>, grace: Duration, warnings: &mut Vec<String>)
where
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    let _ = tokio::time::timeout(grace, async {
        tokio::join!(out.drain(), err.drain());
    })
    .await;
    for (name, closed) in [("stdout", out.is_closed()), ("stderr", err.is_closed())] {
        if !closed {
            warnings.push(format!("{name} was still open after the run's job was killed; stopped reading"));
        }
    }
    out.abandon();
    err.abandon();
}
