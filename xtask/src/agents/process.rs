//! A scenario's sandbox (its own workspace, home and config directories under `target/agents/run/`) and running
//! one agent process in it: its own process group, a deadline, every line of its output kept, and the whole group
//! killed at the end whatever it left behind.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// One scenario's directories and environment. Nothing is written outside `root`.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// Everything of the scenario.
    pub root: PathBuf,
    /// The workspace the agent runs in.
    pub ws: PathBuf,
    /// `HOME` (and under it `XDG_CONFIG_HOME`, `XDG_STATE_HOME`, the agents' own homes).
    pub home: PathBuf,
    /// Put first on `PATH`: holds `hook`, a link to the binary under test.
    pub bin: PathBuf,
}

impl Sandbox {
    /// A fresh sandbox at `root` (removed first if it exists) with `hook` linked into its `bin`.
    pub fn create(root: &Path, hook_binary: &Path) -> Result<Sandbox> {
        if root.exists() {
            std::fs::remove_dir_all(root).with_context(|| format!("cannot remove {}", root.display()))?;
        }
        let sandbox =
            Sandbox { root: root.to_path_buf(), ws: root.join("ws"), home: root.join("home"), bin: root.join("bin") };
        for dir in [&sandbox.ws, &sandbox.home, &sandbox.bin, &sandbox.config_home(), &sandbox.state_home()] {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::os::unix::fs::symlink(hook_binary, sandbox.bin.join("hook"))?;
        // A project of its own, as real ones are: agents that look for the project root (the nearest `.git`, as
        // Codex does) must not find this repository's checkout around the sandbox.
        let status = sandbox.command("git").args(["init", "-q", "."]).status().context("cannot run git")?;
        if !status.success() {
            bail!("git init failed in {}", sandbox.ws.display());
        }
        Ok(sandbox)
    }

    /// `XDG_CONFIG_HOME`: the engine's config home (trust store, installs record) is `hooks/` under it.
    pub fn config_home(&self) -> PathBuf {
        self.home.join(".config")
    }

    /// `XDG_STATE_HOME`: the engine's receipts and session state.
    pub fn state_home(&self) -> PathBuf {
        self.home.join(".local/state")
    }

    /// The environment every process of the scenario gets (and nothing else of the caller's).
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin.display());
        vec![
            ("PATH".into(), path.into()),
            ("HOME".into(), self.home.clone().into()),
            ("XDG_CONFIG_HOME".into(), self.config_home().into()),
            ("XDG_STATE_HOME".into(), self.state_home().into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "dumb".into()),
            ("NO_COLOR".into(), "1".into()),
        ]
    }

    /// A command with the sandbox's environment, run in the workspace.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env_clear().envs(self.env()).current_dir(&self.ws);
        command
    }

    /// Runs the `hook` CLI on the workspace and returns its output; `Err` when it cannot start.
    pub fn hook(&self, args: &[&str]) -> Result<Output> {
        let mut command = self.command(self.bin.join("hook"));
        command.arg("--workspace").arg(&self.ws).args(args).stdin(Stdio::null());
        command.output().context("cannot run hook")
    }

    /// Runs the `hook` CLI and fails with its output unless it exits 0.
    pub fn hook_ok(&self, args: &[&str]) -> Result<String> {
        let output = self.hook(args)?;
        if !output.status.success() {
            bail!(
                "`hook {}` exited {}: {}",
                args.join(" "),
                output.status.code().unwrap_or(-1),
                one_line(&String::from_utf8_lossy(&output.stderr))
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Writes `text` to `relative` under the workspace, creating directories; an executable when it starts with
    /// `#!`.
    pub fn write(&self, relative: &str, text: &str) -> Result<PathBuf> {
        let path = self.ws.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        if text.starts_with("#!") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(path)
    }

    /// Takes `hook` off the sandbox's `PATH` by removing its link from `bin`, as an agent started from an IDE or a
    /// service finds it: the scenario's own `hook` commands ([`Sandbox::hook`]) cannot run after this either.
    pub fn take_hook_off_path(&self) -> Result<()> {
        let link = self.bin.join("hook");
        std::fs::remove_file(&link).with_context(|| format!("cannot remove {}", link.display()))
    }

    /// Whether `relative` exists under the workspace.
    pub fn exists(&self, relative: &str) -> bool {
        self.ws.join(relative).exists()
    }
}

/// The first line of `text`, trimmed and cut to 160 characters.
pub fn one_line(text: &str) -> String {
    let line = text.trim().lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let mut cut: String = line.chars().take(160).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    cut
}

/// What an agent process did.
#[derive(Debug, Default)]
pub struct Finished {
    /// Its exit code (`None`: killed by a signal, or by the deadline).
    pub code: Option<i32>,
    /// Whether the deadline killed it.
    pub timed_out: bool,
    /// Its stdout, line by line.
    pub stdout: Vec<String>,
    /// Its stderr.
    pub stderr: String,
    /// Wall time from spawn to exit.
    pub elapsed: Duration,
}

impl Finished {
    /// Stdout and stderr as one text, for searching what the agent showed its user.
    pub fn shown(&self) -> String {
        let mut text = self.stdout.join("\n");
        text.push('\n');
        text.push_str(&self.stderr);
        text
    }

    /// Stdout lines that parse as JSON objects (stream-json and jsonl events).
    pub fn events(&self) -> Vec<serde_json::Value> {
        self.stdout
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .filter(|v: &serde_json::Value| v.is_object())
            .collect()
    }
}

/// What a caller that talks to the agent over stdin does after one stdout line.
pub enum Reaction {
    /// Nothing.
    None,
    /// Write this line (a newline is added).
    Write(String),
    /// Write this line after a delay (an approver that takes its time).
    Later(Duration, String),
    /// Close stdin: the conversation is over.
    Close,
}

/// Talks to an agent over stdin, line by line, as its stdout arrives.
pub type Talk<'a> = dyn FnMut(&str) -> Reaction + 'a;

/// Runs `command` in a process group of its own until it exits or `deadline` passes, then kills the whole group.
/// With `talk`, stdin is a pipe: `first` is written at once and each stdout line is handed to `talk`; without,
/// stdin is `/dev/null`.
pub fn run(
    mut command: Command,
    deadline: Duration,
    first: &[String],
    talk: Option<&mut Talk<'_>>,
) -> Result<Finished> {
    use std::os::unix::process::CommandExt;
    command.process_group(0).stdout(Stdio::piped()).stderr(Stdio::piped());
    command.stdin(if talk.is_some() { Stdio::piped() } else { Stdio::null() });
    let started = Instant::now();
    let mut child = command.spawn().with_context(|| format!("cannot start {:?}", command.get_program()))?;
    let group = child.id();
    let mut stdin = child.stdin.take();
    if let Some(stdin) = stdin.as_mut() {
        for line in first {
            let _ = writeln!(stdin, "{line}");
        }
    }
    let lines = spawn_reader(child.stdout.take().context("no stdout")?);
    let stderr = child.stderr.take().context("no stderr")?;
    let stderr_thread = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut text);
        text
    });
    let mut finished = Finished::default();
    let (stdout, timed_out) = pump(&lines, &mut child, &mut stdin, talk, started, deadline);
    finished.stdout = stdout;
    finished.timed_out = timed_out;
    kill_group(group);
    let status = child.wait()?;
    finished.elapsed = started.elapsed();
    finished.code = if timed_out { None } else { status.code() };
    // A descendant that left the group may still hold stdout or stderr: do not wait for it forever.
    while let Ok(Some(line)) = lines.recv_timeout(Duration::from_millis(500)) {
        finished.stdout.push(line);
    }
    let wait_stderr = Instant::now();
    while !stderr_thread.is_finished() && wait_stderr.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    if stderr_thread.is_finished() {
        finished.stderr = stderr_thread.join().unwrap_or_default();
    }
    Ok(finished)
}

/// Reads stdout lines until the child exits (and its stdout closes) or the deadline passes; `true` on the deadline.
fn pump(
    lines: &Receiver<Option<String>>,
    child: &mut Child,
    stdin: &mut Option<ChildStdin>,
    mut talk: Option<&mut Talk<'_>>,
    started: Instant,
    deadline: Duration,
) -> (Vec<String>, bool) {
    let mut stdout = Vec::new();
    let mut later: Vec<(Instant, String)> = Vec::new();
    loop {
        let now = Instant::now();
        for (_, reply) in later.iter().filter(|(due, _)| *due <= now) {
            if let Some(pipe) = stdin.as_mut() {
                let _ = writeln!(pipe, "{reply}").and_then(|()| pipe.flush());
            }
        }
        later.retain(|(due, _)| *due > now);
        let Some(left) = deadline.checked_sub(started.elapsed()) else { return (stdout, true) };
        match lines.recv_timeout(left.min(Duration::from_millis(200))) {
            Ok(Some(line)) => {
                if let Some(talk) = talk.as_mut() {
                    match talk(&line) {
                        Reaction::None => {}
                        Reaction::Write(reply) => {
                            if let Some(pipe) = stdin.as_mut() {
                                let _ = writeln!(pipe, "{reply}").and_then(|()| pipe.flush());
                            }
                        }
                        Reaction::Later(delay, reply) => later.push((Instant::now() + delay, reply)),
                        Reaction::Close => *stdin = None,
                    }
                }
                stdout.push(line);
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                // Stdout closed: the agent is done (or detached it); give it a moment to exit.
                let waited = Instant::now();
                while waited.elapsed() < Duration::from_secs(5) {
                    if let Ok(Some(_)) = child.try_wait() {
                        return (stdout, false);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                return (stdout, false);
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Ok(Some(_)) = child.try_wait() {
                    // Exited; what is left in the pipe is read by the caller.
                    return (stdout, false);
                }
            }
        }
    }
}

fn spawn_reader(stdout: impl std::io::Read + Send + 'static) -> Receiver<Option<String>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            match line {
                Ok(line) => {
                    if sender.send(Some(line)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = sender.send(None);
    });
    receiver
}

/// Kills every process of the group `leader` led, ignoring a group that is already gone.
pub fn kill_group(leader: u32) {
    if let Some(pid) = rustix::process::Pid::from_raw(leader as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Kills and reaps every child this process has: between scenarios, which run one at a time, only what the last
/// one left running (in a session of its own, out of the group [`kill_group`] kills, as Cline's hub daemon; the suite
/// is a child subreaper, [`crate::adopt_orphans`], so it is re-parented here). Returns how many there were.
pub fn kill_left_behind() -> usize {
    let me = std::process::id();
    let Ok(list) = std::fs::read_to_string(format!("/proc/self/task/{me}/children")) else { return 0 };
    let pids: Vec<rustix::process::Pid> =
        list.split_whitespace().filter_map(|p| p.parse().ok()).filter_map(rustix::process::Pid::from_raw).collect();
    let mut running = 0;
    for &pid in &pids {
        // One that already ended (the engine's detached runner of async hooks, re-parented here) is only reaped.
        if !is_zombie(pid.as_raw_nonzero().get().unsigned_abs()) {
            running += 1;
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
        let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
    }
    running
}

/// Whether `pid` has exited and waits to be reaped (state `Z` in `/proc/<pid>/stat`).
pub fn is_zombie(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z'))
}
