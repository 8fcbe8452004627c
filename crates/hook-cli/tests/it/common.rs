//! The end-to-end harness: a fixture workspace copied into a temp dir, a temp "home" holding the config home, the
//! managed file and the state directory, and the real `hook` binary run against them. Nothing here reads or writes
//! the real ~/.config, /etc/hooks or ~/.local/state.

// Built for Windows the binary uses only part of the harness (the `windows` suite).
#![cfg_attr(windows, allow(dead_code))]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The built binary.
pub const HOOK: &str = env!("CARGO_BIN_EXE_hook");

/// A workspace and a home for one test.
pub struct Env {
    /// The workspace (a copy of a fixture), canonical.
    pub ws: PathBuf,
    /// Holds `xdg-config/hooks/` (the config home), `managed.yaml`'s place, `state/` and serves as `$HOME`.
    pub home: PathBuf,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

/// What one run of `hook` left.
#[derive(Debug)]
pub struct Out {
    /// The exit code.
    pub code: i32,
    /// stdout, with the workspace and home paths redacted.
    pub stdout: String,
    /// stderr, redacted the same way.
    pub stderr: String,
}

impl Out {
    /// Whether this bridge answer denies, in `agent`'s own form: exit 2 or a JSON deny for Claude Code, Codex, Qwen
    /// Code, Factory Droid and Gemini CLI, `permission: deny` for Cursor.
    pub fn denies(&self, agent: &str) -> bool {
        match agent {
            "claude" | "codex" | "qwen" | "droid" => {
                self.code == 2
                    || self.stdout.contains("\"permissionDecision\":\"deny\"")
                    || self.stdout.contains("\"decision\":\"block\"")
            }
            "gemini" => self.code == 2 || self.stdout.contains("\"decision\":\"deny\""),
            "cursor" => self.stdout.contains("\"permission\":\"deny\""),
            // Cline has no deny of one call: `cancel` ends its run before the tool runs.
            "cline" => serde_json::from_str::<serde_json::Value>(self.stdout.trim()).is_ok_and(|v| v["cancel"] == true),
            // GitHub Copilot CLI: exit 2 denies on preToolUse and permissionRequest, as do its JSON denies.
            "copilot" => {
                self.code == 2
                    || self.stdout.contains("\"permissionDecision\":\"deny\"")
                    || self.stdout.contains("\"behavior\":\"deny\"")
            }
            other => panic!("no such agent {other}"),
        }
    }

    /// stdout parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

impl Env {
    /// A copy of `tests/fixtures/cli/<fixture>` (or of any directory under the repository root when the name holds
    /// a `/`), with an empty home.
    pub fn new(fixture: &str) -> Env {
        let source = if fixture.contains('/') {
            repo_root().join(fixture)
        } else {
            repo_root().join("tests/fixtures/cli").join(fixture)
        };
        let ws_dir = tempfile::tempdir().unwrap();
        let home_dir = tempfile::tempdir().unwrap();
        copy_dir(&source, ws_dir.path());
        Env {
            ws: ws_dir.path().canonicalize().unwrap(),
            home: home_dir.path().canonicalize().unwrap(),
            _dirs: (ws_dir, home_dir),
        }
    }

    /// The config home passed as `--config-home`: the one `hook` finds by itself too (`$XDG_CONFIG_HOME/hooks`), so
    /// that a bridge command written without it (a committed file's) finds the same trust store.
    pub fn config_home(&self) -> PathBuf {
        self.home.join("xdg-config").join("hooks")
    }

    /// The trust store.
    pub fn trust_store(&self) -> PathBuf {
        self.config_home().join("trusted.json")
    }

    /// `hook` with the isolating flags and environment, run in the workspace.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = self.command_without_workspace(&[]);
        command.args(["--workspace".as_ref(), self.ws.as_os_str()]).args(args);
        command
    }

    /// `hook` with the isolating flags and environment but no `--workspace`: the workspace is the current
    /// directory, the workspace unless the test changes it.
    pub fn command_without_workspace(&self, args: &[&str]) -> Command {
        let mut command = Command::new(HOOK);
        command
            .args(["--config-home".as_ref(), self.config_home().as_os_str()])
            .args(["--managed-file".as_ref(), self.home.join("managed.yaml").as_os_str()])
            .args(args)
            .current_dir(&self.ws)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", self.home.join("state"))
            .env("XDG_CONFIG_HOME", self.home.join("xdg-config"))
            // The same three on Windows.
            .env("USERPROFILE", &self.home)
            .env("LOCALAPPDATA", self.home.join("state"))
            .env("APPDATA", self.home.join("xdg-config"))
            .env("PATH", path_with_this_hook())
            .env_remove("NO_COLOR")
            .env_remove("RUST_BACKTRACE")
            .env_remove("HOOK_BRIDGE_DEPTH")
            // The variables an agent's shell tool sets (the agent table's `tool_call_env`): a suite run from inside
            // an agent still runs `hook trust` as a person would.
            .env_remove("CLAUDECODE")
            .env_remove("CODEX_THREAD_ID")
            .stdin(Stdio::null());
        command
    }

    /// Runs `hook args…` to the end.
    pub fn hook(&self, args: &[&str]) -> Out {
        self.finish(self.command(args))
    }

    /// `hook inspect --json`, which must succeed, as JSON.
    pub fn inspect_json(&self) -> serde_json::Value {
        let out = self.hook(&["inspect", "--json"]);
        assert_eq!(out.code, 0, "{out:#?}");
        out.json()
    }

    /// Runs a command built by [`Env::command`] or [`Env::command_without_workspace`] to the end.
    pub fn finish(&self, mut command: Command) -> Out {
        let output = command.output().unwrap();
        Out {
            code: output.status.code().unwrap_or(-1),
            stdout: self.redact(&String::from_utf8_lossy(&output.stdout)),
            stderr: self.redact(&String::from_utf8_lossy(&output.stderr)),
        }
    }

    /// Replaces the temp paths with `[WS]` and `[HOME]`, and durations with `[ms]`, so output can be snapshotted.
    pub fn redact(&self, text: &str) -> String {
        let text = text.replace(self.ws.to_str().unwrap(), "[WS]").replace(self.home.to_str().unwrap(), "[HOME]");
        redact_durations(&text)
    }

    /// Runs `command`, a hook command from an agent's configuration (the bridge `hook install` wrote), the way the
    /// agent runs a hook: `sh -c` in the workspace, `input` on stdin, the agent's project variable (`project_var`)
    /// set to the workspace and the other agents' unset. Fails if it has not ended within 30 s, well inside any
    /// agent's timeout (a bridge that ran a bridge would not end).
    pub fn run_as_agent(&self, command: &str, project_var: Option<&str>, input: &[u8]) -> Out {
        let mut agent = Command::new("sh");
        agent
            .args(["-c", command])
            .current_dir(&self.ws)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", self.home.join("state"))
            .env("XDG_CONFIG_HOME", self.home.join("xdg-config"))
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("GEMINI_PROJECT_DIR")
            .env_remove("CURSOR_PROJECT_DIR")
            .env_remove("HOOK_BRIDGE_TEST_PANIC")
            .env_remove("HOOK_BRIDGE_DEPTH");
        if let Some(var) = project_var {
            agent.env(var, &self.ws);
        }
        // A committed file names `hook` on PATH, as a teammate's machine has it: this build.
        agent.env("PATH", path_with_this_hook());
        self.finish_within(agent, input, Duration::from_secs(30))
    }

    /// `hook bridge --protocol <agent>` with `input` on stdin, as the agent runs it (with `--workspace`).
    pub fn bridge(&self, agent: &str, input: &serde_json::Value) -> Out {
        let mut command = self.command(&["bridge", "--protocol", agent]);
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        Out {
            code: output.status.code().unwrap_or(-1),
            stdout: self.redact(&String::from_utf8_lossy(&output.stdout)),
            stderr: self.redact(&String::from_utf8_lossy(&output.stderr)),
        }
    }

    /// Writes a file in the workspace.
    pub fn write(&self, relative: &str, contents: &str) {
        let path = self.ws.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
}

/// `12 ms` and `1.5 s` in text become `[ms]`; `"duration_ms": 12` in JSON becomes `"duration_ms": 0`.
pub fn redact_durations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let digits = from.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(from.len());
        let (number, after) = from.split_at(digits);
        let preceded_by_word = before.chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        let unit =
            after.strip_prefix(" ms").or_else(|| after.strip_prefix(" s").filter(|r| r.starts_with([' ', '\n'])));
        if let (false, Some(unit_rest)) = (preceded_by_word, unit) {
            out.push_str("[ms]");
            rest = unit_rest;
        } else if before.ends_with("\"duration_ms\": ") {
            out.push('0');
            rest = after;
        } else {
            out.push_str(number);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// A JSON file, parsed; a file that is missing or not JSON fails naming it.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON ({e}):\n{text}", path.display()))
}

pub use hook_testkit::paths::{copy_dir, repo_root};

/// Asserts the one-line error contract: exit 1, nothing on stdout, one line on stderr starting `hook: error: `
/// that contains `needle`, and no panic or backtrace.
pub fn assert_one_line_error(out: &Out, needle: &str) {
    assert_eq!(out.code, 1, "{out:#?}");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr is not one line: {out:#?}");
    assert!(lines[0].starts_with("hook: error: "), "{out:#?}");
    assert!(lines[0].contains(needle), "stderr lacks {needle:?}: {out:#?}");
    assert!(!out.stderr.contains("panicked") && !out.stderr.contains("backtrace"), "{out:#?}");
}

/// `PATH` with the directory of the `hook` Cargo just built first.
pub fn path_with_this_hook() -> std::ffi::OsString {
    let dir = Path::new(HOOK).parent().expect("the binary has a directory").to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(&rest))).expect("paths without a colon")
}

/// Another process holding the `flock` of a file, as any process of the user can (the agent's own shell tool):
/// util-linux `flock -x FILE cat`, whose `cat` ends when its stdin is closed, which dropping this does.
#[cfg(unix)]
pub struct LockHolder {
    child: std::process::Child,
}

#[cfg(unix)]
impl LockHolder {
    /// Starts the holder and returns once it holds the lock of `path` (created if missing).
    pub fn new(path: &Path) -> LockHolder {
        use rustix::fs::{FlockOperation, flock};
        let child = Command::new("flock")
            .arg("-x")
            .arg(path)
            .arg("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("util-linux flock runs");
        let holder = LockHolder { child };
        let started = Instant::now();
        loop {
            // An open file description of our own: it conflicts with the holder's lock as another process's would.
            if let Ok(probe) = std::fs::File::open(path) {
                match flock(&probe, FlockOperation::NonBlockingLockShared) {
                    Err(e) if e == rustix::io::Errno::WOULDBLOCK => return holder,
                    _ => {}
                }
            }
            assert!(started.elapsed() < Duration::from_secs(10), "flock did not take the lock of {}", path.display());
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

#[cfg(unix)]
impl Drop for LockHolder {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

impl Env {
    /// Runs `command` with `stdin` written to it; one that has not ended within `limit` is killed and the test
    /// fails (a command that waits without bound, on a lock, would otherwise hang the test run).
    pub fn finish_within(&self, mut command: Command, stdin: &[u8], limit: Duration) -> Out {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{command:?} did not end within {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let output = child.wait_with_output().unwrap();
        Out {
            code: output.status.code().unwrap_or(-1),
            stdout: self.redact(&String::from_utf8_lossy(&output.stdout)),
            stderr: self.redact(&String::from_utf8_lossy(&output.stderr)),
        }
    }
}
