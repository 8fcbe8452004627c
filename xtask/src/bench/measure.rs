//! Whole-process measurements: wall time of a spawned command to its exit (stdout and stderr to /dev/null, stdin
//! from memory), and from `wait4` its CPU time and peak RSS; medians of interleaved runs.
//!
//! The CPU time counts every process the command started, those it left running too (a watchdog that outlives it,
//! what that one starts): the measuring process is a child subreaper ([`crate::adopt_orphans`]), so they are
//! re-parented to it and reaped, with their usage, after the command.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// One command to measure.
#[derive(Debug, Clone)]
pub struct Cmd {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(String, String)>,
    /// The working directory, if not ours.
    pub cwd: Option<PathBuf>,
    /// What it reads on stdin (`/dev/null` if `None`).
    pub stdin: Option<Vec<u8>>,
    /// Exit codes that count as success.
    pub ok_codes: Vec<i32>,
    /// A directory removed before each run, outside the timing (a cold cache).
    pub fresh_dir: Option<PathBuf>,
}

impl Cmd {
    /// `program args…`, success being exit 0.
    pub fn new(program: impl Into<PathBuf>, args: &[&str]) -> Cmd {
        Cmd {
            program: program.into(),
            args: args.iter().map(|a| (*a).to_string()).collect(),
            env: Vec::new(),
            cwd: None,
            stdin: None,
            ok_codes: vec![0],
            fresh_dir: None,
        }
    }

    /// Adds variables.
    pub fn envs(mut self, vars: &[(&str, &Path)]) -> Cmd {
        self.env.extend(vars.iter().map(|(k, v)| ((*k).to_string(), v.display().to_string())));
        self
    }

    /// Sets stdin.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Cmd {
        self.stdin = Some(bytes.into());
        self
    }

    /// Sets the working directory.
    pub fn cwd(mut self, dir: &Path) -> Cmd {
        self.cwd = Some(dir.to_path_buf());
        self
    }

    pub(super) fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        command.stdout(Stdio::null()).stderr(Stdio::null());
        command.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        command
    }

    pub(super) fn describe(&self) -> String {
        format!("{} {}", self.program.display(), self.args.join(" "))
    }

    /// Runs once: the wall time from before the spawn to after the wait, the CPU time (user + system, of the
    /// process and the children it waited for) and the peak resident set.
    pub fn run(&self) -> Result<Sample> {
        if let Some(dir) = &self.fresh_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
        let mut command = self.command();
        let start = Instant::now();
        let mut child = command.spawn().with_context(|| format!("cannot start `{}`", self.describe()))?;
        if let (Some(bytes), Some(mut stdin)) = (&self.stdin, child.stdin.take()) {
            let _ = stdin.write_all(bytes);
        }
        let (code, usage) = wait4(child.id())?;
        let wall = start.elapsed();
        let left_behind = reap_left_behind().with_context(|| format!("after `{}`", self.describe()))?;
        match code {
            Some(code) if self.ok_codes.contains(&code) => {}
            _ => bail!("`{}` failed (exit {code:?}); run it by hand to see why", self.describe()),
        }
        Ok(Sample { wall, cpu: usage.0 + left_behind, max_rss_kib: usage.1 })
    }
}

impl Cmd {
    /// The command's peak resident set in KiB, from one more run under GNU time (`/usr/bin/time -f %M`), or `None`
    /// when it is not installed. `wait4`'s own figure cannot be used for this: a child's peak includes the resident
    /// set of the process it was spawned from (the address space it shared until its `exec`, or copied), so a child
    /// of this process reads at least this process's size; GNU time is small.
    pub fn peak_rss(&self) -> Result<Option<u64>> {
        const TIME: &str = "/usr/bin/time";
        if !Path::new(TIME).exists() {
            return Ok(None);
        }
        if let Some(dir) = &self.fresh_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
        let report = std::env::temp_dir().join(format!("xtask-peak-rss-{}", std::process::id()));
        let command = self.command();
        let program = command.get_program().to_owned();
        let mut timed = Command::new(TIME);
        timed.arg("-f").arg("%M").arg("-o").arg(&report).arg(program).args(command.get_args());
        timed.envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &self.cwd {
            timed.current_dir(dir);
        }
        timed.stdout(Stdio::null()).stderr(Stdio::null());
        timed.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        let mut child = timed.spawn().with_context(|| format!("cannot start `{TIME} {}`", self.describe()))?;
        if let (Some(bytes), Some(mut stdin)) = (&self.stdin, child.stdin.take()) {
            let _ = stdin.write_all(bytes);
        }
        let status = child.wait()?;
        reap_left_behind()?;
        let text = std::fs::read_to_string(&report).unwrap_or_default();
        let _ = std::fs::remove_file(&report);
        if !status.code().is_some_and(|code| self.ok_codes.contains(&code)) {
            bail!("`{TIME} {}` failed ({status}): {text}", self.describe());
        }
        let kib = text.lines().last().and_then(|line| line.trim().parse().ok());
        Ok(Some(kib.with_context(|| format!("{TIME} printed no peak RSS: {text}"))?))
    }
}

/// One run's figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sample {
    /// Spawn to exit.
    pub wall: Duration,
    /// User + system time of the process and its waited-for children.
    pub cpu: Duration,
    /// Peak resident set, KiB.
    pub max_rss_kib: u64,
}

/// `wait4(pid)`: the exit code (`None` when killed by a signal), the CPU time and the peak RSS of the child. The
/// standard library's `Child::wait` gives no resource usage; the `Child` is then dropped unwaited (dropping never
/// waits or kills).
#[allow(unsafe_code)]
fn wait4(pid: u32) -> Result<(Option<i32>, (Duration, u64))> {
    let pid = libc::pid_t::try_from(pid).context("pid out of range")?;
    let mut status: libc::c_int = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    loop {
        // SAFETY: `status` and `usage` are valid, writable and live across the call; wait4 only writes into them.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, usage.as_mut_ptr()) };
        if rc == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).context("wait4");
        }
    }
    // SAFETY: wait4 returned the pid, so it filled `usage` (and zeroed memory is a valid `rusage` anyway).
    let usage = unsafe { usage.assume_init() };
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Ok((code, (cpu_time(&usage), u64::try_from(usage.ru_maxrss).unwrap_or(0))))
}

/// Waits for every child left (orphans of the measured command, re-parented here) and returns their CPU time. Only
/// measured commands run while measuring, so any child is theirs; one still running after ten seconds is an error.
#[allow(unsafe_code)]
fn reap_left_behind() -> Result<Duration> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut total = Duration::ZERO;
    loop {
        let mut status: libc::c_int = 0;
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: as in `wait4`.
        let rc = unsafe { libc::wait4(-1, &mut status, libc::WNOHANG, usage.as_mut_ptr()) };
        match rc {
            0 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            0 => bail!("a process it left behind still runs after 10 s"),
            -1 => {
                let err = std::io::Error::last_os_error();
                match err.raw_os_error() {
                    Some(libc::ECHILD) => return Ok(total),
                    Some(libc::EINTR) => {}
                    _ => return Err(err).context("wait4"),
                }
            }
            _ => {
                // SAFETY: wait4 reaped a child, so it filled `usage`.
                let usage = unsafe { usage.assume_init() };
                total += cpu_time(&usage);
            }
        }
    }
}

fn cpu_time(usage: &libc::rusage) -> Duration {
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The medians of one command's runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Medians {
    /// Wall time.
    pub wall: Duration,
    /// CPU time.
    pub cpu: Duration,
    /// Peak RSS, KiB: from GNU time where installed ([`Cmd::peak_rss`]), else the largest `wait4` figure of the
    /// runs (which is at least this process's own size).
    pub max_rss_kib: u64,
}

/// Runs every command `runs` times, interleaved (one of each per round, after one warm-up round), and returns each
/// command's medians.
pub fn interleaved(cmds: &[&Cmd], runs: usize) -> Result<Vec<Medians>> {
    for cmd in cmds {
        cmd.run()?;
    }
    let mut samples: Vec<Vec<Sample>> = vec![Vec::with_capacity(runs); cmds.len()];
    for _ in 0..runs {
        for (cmd, samples) in cmds.iter().zip(&mut samples) {
            samples.push(cmd.run()?);
        }
    }
    let mut medians = Vec::with_capacity(cmds.len());
    for (cmd, s) in cmds.iter().zip(samples) {
        let max_rss_kib = match cmd.peak_rss()? {
            Some(kib) => kib,
            None => s.iter().map(|s| s.max_rss_kib).max().unwrap_or(0),
        };
        medians.push(Medians {
            wall: median(s.iter().map(|s| s.wall).collect()),
            cpu: median(s.iter().map(|s| s.cpu).collect()),
            max_rss_kib,
        });
    }
    Ok(medians)
}

/// The median (the upper one of an even count).
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

/// Milliseconds with a precision that suits the figure.
pub fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 0.001 {
        return format!("{:.0} ns", ms * 1e6);
    }
    if ms < 1.0 {
        return format!("{:.1} µs", ms * 1e3);
    }
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 100.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}
