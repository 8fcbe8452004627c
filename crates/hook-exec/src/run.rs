//! The run: one deadline over the stdin write, the process and the reads; the grace for held pipes; the group kill.
//!
//! Order of events, as enforced below:
//! 1. Spawn (a failure returns at once with [`RunResult::spawn_error`]).
//! 2. Concurrently: write the payload and close stdin, drain stdout and stderr, watch for the leader's exit.
//! 3. The run is over when the leader has exited and both outputs are at EOF. If the leader exited but a descendant
//!    still holds an output, the descendant gets [`RunOptions::grace`]; then the group is killed and the result keeps
//!    the leader's exit status with a warning.
//! 4. At the deadline (or when the caller's cancellation completes) the group is SIGKILLed wherever the run is.
//! 5. After any kill: wait for the leader to die, take what is already in the pipes, wait at most `grace` for EOF
//!    (a process that left the group with `setsid` is out of reach: reading stops and a warning says so), then reap.
//!
//! The group is never signalled after step 3 ends without a kill (a detached child that redirected its output is left
//! alone by design), nor after the leader was reaped.

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use tokio::time::Instant;

use crate::capture::{Capture, write_stdin};
use crate::group::{Leader, WatchMode};
use crate::invocation::Invocation;
use crate::options::RunOptions;
use crate::result::{Exit, RunResult};
use crate::spawn::{Spawned, spawn};

/// How long to wait for a SIGKILLed leader to die before leaving it to a background reaper. Only a process stuck in
/// uninterruptible sleep takes this long.
const KILL_WAIT: Duration = Duration::from_secs(2);

/// Runs one process to completion, to its deadline, or until the grace after its leader's exit, and returns
/// everything there is to know about it. Never returns an error: a process that could not start is reported in
/// [`RunResult::spawn_error`].
///
/// The returned future may be dropped at any point: the process group is then SIGKILLed synchronously.
///
/// # Panics
/// When called outside a Tokio runtime with both the IO and the time drivers enabled.
pub async fn run(inv: &Invocation, opts: &RunOptions) -> RunResult {
    run_cancellable(inv, opts, std::future::pending()).await
}

/// [`run`], stopped early when `cancel` completes first: the group is killed and reaped, and the result has
/// `cancelled: true` with whatever was captured until then.
///
/// # Panics
/// As [`run`].
pub async fn run_cancellable(inv: &Invocation, opts: &RunOptions, cancel: impl Future<Output = ()>) -> RunResult {
    run_with(inv, opts, cancel, WatchMode::Auto).await
}

enum Ending {
    /// The leader exited and both outputs reached EOF.
    Finished,
    /// The leader exited but an output was still open after the grace.
    GraceExpired,
    TimedOut,
    Cancelled,
}

pub(crate) async fn run_with(
    inv: &Invocation,
    opts: &RunOptions,
    cancel: impl Future<Output = ()>,
    mode: WatchMode,
) -> RunResult {
    let start = std::time::Instant::now();
    let deadline = start
        .checked_add(opts.timeout)
        .map(Instant::from_std)
        .unwrap_or_else(|| Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600));
    let Spawned { mut leader, stdin, stdout, stderr } = match spawn(inv, mode, opts.kill_with_parent) {
        Ok(spawned) => spawned,
        Err(e) => return RunResult::spawn_failed(e, start.elapsed()),
    };
    let mut out = Capture::new(Some(stdout), opts.capture_limit);
    let mut err = Capture::new(Some(stderr), opts.capture_limit);
    let mut warnings = Vec::new();
    let mut stdin_error = None;

    let ending = {
        let supervised = supervise(&mut leader, &mut out, &mut err, stdin, &inv.stdin, opts.grace, &mut stdin_error);
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
                "a descendant still held stdout or stderr {:?} after the leader exited; killed the process group",
                opts.grace
            ));
        }
        leader.kill_group();
        settle(&mut leader, &mut out, &mut err, opts.grace, &mut warnings).await;
    }

    let exit = if leader_exited(&mut leader).await {
        match leader.reap() {
            Ok(status) => Exit::from_status(status),
            Err(e) => {
                warnings.push(format!("could not reap the leader: {e}"));
                None
            }
        }
    } else {
        leader.abandon();
        warnings.push(format!("the leader did not die within {KILL_WAIT:?} of SIGKILL; left to a background reaper"));
        None
    };
    // Under cgroup supervision: whatever the run started and left behind dies with its cgroup.
    let all_exited = leader.end_cgroup();
    if crate::live::sweeps_orphans() {
        // Whatever this (subreaper) process adopted dies now — a descendant that left its group with `setsid`, or a
        // group member (perhaps already a zombie) whose parent died. Silently: most are the remains of a group
        // that was just killed, and the count would depend on timing. When the run's cgroup is gone, everything it
        // started has exited: what is left to do is reaping the zombies among them that were adopted.
        if all_exited {
            crate::live::reap_exited_orphans();
        } else {
            crate::live::reap_orphans();
        }
    }
    for (name, capture) in [("stdout", &mut out), ("stderr", &mut err)] {
        if let Some(e) = capture.error.take() {
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

/// Step 2 and 3: returns when the run is over by itself or the grace after the leader's exit has expired.
async fn supervise(
    leader: &mut Leader,
    out: &mut Capture,
    err: &mut Capture,
    stdin: Option<tokio::net::unix::pipe::Sender>,
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
            () = leader.exited(), if leader_running => {
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

/// Step 5: after the group was killed, collects what the dead processes left in the pipes.
async fn settle(
    leader: &mut Leader,
    out: &mut Capture,
    err: &mut Capture,
    grace: Duration,
    warnings: &mut Vec<String>,
) {
    leader_exited(leader).await;
    // Whatever the killed processes wrote is already in the pipes; EOF follows as soon as the last holder is gone.
    let _ = tokio::time::timeout(grace, async {
        tokio::join!(out.drain(), err.drain());
    })
    .await;
    for (name, capture) in [("stdout", out), ("stderr", err)] {
        capture.drain_available();
        if !capture.is_closed() {
            capture.abandon();
            warnings.push(format!(
                "{name} was still held open after the process group was killed (a process that left the group, \
                 e.g. with setsid, is out of reach); stopped reading"
            ));
        }
    }
}

/// Waits, boundedly, for the leader to have exited.
async fn leader_exited(leader: &mut Leader) -> bool {
    tokio::time::timeout(KILL_WAIT, leader.exited()).await.is_ok()
}

#[cfg(test)]
mod tests {
    //! The `waitid` fallback, which the integration tests cannot select, through the same scenarios as the pidfd path.

    use std::time::Instant;

    use super::*;

    fn opts(timeout: Duration) -> RunOptions {
        RunOptions { timeout, ..RunOptions::default() }
    }

    async fn run_waitid(script: &str, timeout: Duration) -> (RunResult, Duration) {
        let start = Instant::now();
        let result =
            run_with(&Invocation::shell(script), &opts(timeout), std::future::pending(), WatchMode::Waitid).await;
        (result, start.elapsed())
    }

    /// Gone or a zombie (orphans may not be reaped by PID 1 here).
    fn dead(pid: &str) -> bool {
        match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
            Err(_) => true,
            Ok(stat) => stat.rsplit(") ").next().is_some_and(|rest| rest.starts_with('Z') || rest.starts_with('X')),
        }
    }

    async fn eventually_dead(pid: &str) -> bool {
        for _ in 0..250 {
            if dead(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    #[tokio::test]
    async fn pidfd_is_used_where_the_kernel_offers_it() {
        let probe = rustix::process::pidfd_open(rustix::process::getpid(), rustix::process::PidfdFlags::empty());
        use std::os::unix::process::CommandExt;
        let child = std::process::Command::new("true").process_group(0).spawn().unwrap();
        let mut leader = Leader::new(child, WatchMode::Auto, None);
        assert_eq!(leader.uses_pidfd(), probe.is_ok());
        leader.exited().await;
        assert!(leader.reap().unwrap().success());
    }

    #[tokio::test]
    async fn waitid_fallback_reports_codes_and_signals() {
        assert_eq!(run_waitid("exit 7", Duration::from_secs(20)).await.0.exit, Some(Exit::Code(7)));
        assert_eq!(run_waitid("kill -TERM $$", Duration::from_secs(20)).await.0.exit, Some(Exit::Signal(15)));
    }

    #[tokio::test]
    async fn waitid_fallback_gives_a_held_pipe_only_the_grace() {
        let dir = tempfile::tempdir().unwrap();
        let bg = dir.path().join("bg");
        let (result, elapsed) =
            run_waitid(&format!("sleep 30 & echo $! > '{}'; echo done; exit 3", bg.display()), Duration::from_secs(30))
                .await;
        assert_eq!((result.exit, result.stdout_lossy().as_str()), (Some(Exit::Code(3)), "done\n"));
        assert!(!result.timed_out && !result.warnings.is_empty());
        assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
        assert!(eventually_dead(&std::fs::read_to_string(&bg).unwrap()).await);
    }

    #[tokio::test]
    async fn waitid_fallback_deadline_kills_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let bg = dir.path().join("bg");
        let (result, elapsed) =
            run_waitid(&format!("sleep 30 & echo $! > '{}'; sleep 30", bg.display()), Duration::from_secs(1)).await;
        assert!(result.timed_out);
        assert_eq!(result.exit, Some(Exit::Signal(9)));
        assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");
        assert!(eventually_dead(&std::fs::read_to_string(&bg).unwrap()).await);
    }
}
