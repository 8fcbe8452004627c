//! The installed handler fails closed without the engine: for every bridged agent, the handler `hook install`
//! writes on its pre-tool gate, run exactly as the agent runs it (its shell, a minimal environment, the event's input
//! on stdin), blocks in that agent's own form when the bridge cannot answer — `hook` not on PATH, killed by SIGKILL
//! or SIGABRT in the middle of its dispatch, hung — and says why; an observer's handler stays the bare command.

use crate::common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Env, HOOK, Out};
use serde_json::{Value, json};

/// The agents the bridge speaks to, each with the fixture it installs into and its pre-tool event.
const AGENTS: [(&str, &str); 8] = [
    ("claude", "PreToolUse"),
    ("codex", "PreToolUse"),
    ("gemini", "BeforeTool"),
    ("cursor", "preToolUse"),
    ("qwen", "PreToolUse"),
    ("droid", "PreToolUse"),
    ("cline", "PreToolUse"),
    ("copilot", "preToolUse"),
];

/// A shell tool call in `agent`'s own input format.
fn shell_call(agent: &str, ws: &Path) -> Value {
    let ws = ws.display().to_string();
    let claude_like = |tool: &str| {
        json!({"hook_event_name": "PreToolUse", "session_id": "fail-closed", "transcript_path": "/tmp/t.jsonl",
               "cwd": ws, "tool_name": tool, "tool_input": {"command": "ls"}})
    };
    match agent {
        "claude" | "codex" => claude_like("Bash"),
        "qwen" => claude_like("run_shell_command"),
        "droid" => claude_like("Execute"),
        "gemini" => json!({"hook_event_name": "BeforeTool", "session_id": "fail-closed", "cwd": ws,
                           "transcript_path": "/tmp/t.jsonl", "timestamp": "2026-01-01T00:00:00.000Z",
                           "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
        "cursor" => json!({"hook_event_name": "preToolUse", "conversation_id": "c", "generation_id": "g",
                           "workspace_roots": [ws], "tool_name": "Shell", "tool_input": {"command": "ls"}}),
        "copilot" => json!({"sessionId": "fail-closed", "timestamp": 1_704_614_600_000_u64, "cwd": ws,
                            "toolName": "bash", "toolArgs": {"command": "ls"}}),
        "cline" => json!({"clineVersion": "3.0.65", "timestamp": "2026-11-30T00:00:00.000Z", "taskId": "t",
                          "sessionContext": {"rootSessionId": "t"}, "workspaceRoots": [ws], "userId": "dev",
                          "agent_id": "a", "parent_agent_id": null, "hookName": "tool_call", "iteration": 1,
                          "tool_call": {"id": "c", "name": "run_commands", "input": {"commands": ["ls"]}},
                          "preToolUse": {"toolName": "run_commands", "parameters": {"commands": "[\"ls\"]"}}}),
        other => panic!("no input for {other}"),
    }
}

/// What `hook install --agent <agent> --scope project` wrote for one event: the shell text the agent runs (for
/// Cline, the script's path, run as `sh <file>`), and the handler object where there is one.
struct Installed {
    env: Env,
    agent: &'static str,
    command: String,
    handler: Option<Value>,
    /// The process group of the last run.
    group: std::sync::Mutex<Option<u32>>,
}

impl Installed {
    fn new(agent: &'static str, event: &str, extra_env: &[(&str, &str)]) -> Installed {
        let env = Env::new("tests/fixtures/install/claude");
        std::fs::remove_dir_all(env.ws.join(".claude")).unwrap();
        std::fs::remove_dir_all(env.ws.join(".hooks")).unwrap();
        let mut install = env.command(&["install", "--agent", agent, "--scope", "project", "--yes"]);
        for (name, value) in extra_env {
            install.env(name, value);
        }
        let out = env.finish(install);
        assert_eq!(out.code, 0, "{agent}: {out:#?}");
        let (command, handler) = installed_handler(&env.ws, agent, event);
        Installed { env, agent, command, handler, group: std::sync::Mutex::new(None) }
    }

    /// Runs the handler as the agent would: its shell, in the workspace, a minimal environment whose `PATH` is
    /// `path`, the input on stdin.
    fn run(&self, path: &str, extra_env: &[(&str, &str)]) -> Out {
        let mut agent = Command::new("sh");
        if self.agent == "cline" {
            agent.arg(&self.command);
        } else {
            agent.args(["-c", &self.command]);
        }
        agent
            .current_dir(&self.env.ws)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &self.env.home)
            .env("XDG_STATE_HOME", self.env.home.join("state"))
            .env("XDG_CONFIG_HOME", self.env.home.join("xdg-config"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in extra_env {
            agent.env(name, value);
        }
        // A group of its own, as Claude Code, Qwen Code and Factory Droid start a handler: what the handler leaves
        // behind can be found by its group.
        std::os::unix::process::CommandExt::process_group(&mut agent, 0);
        let mut child = agent.spawn().unwrap();
        *self.group.lock().unwrap() = Some(child.id());
        let input = shell_call(self.agent, &self.env.ws).to_string();
        let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{}: the installed handler did not end within 60 s", self.agent);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        Out {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Asserts the agent's blocking answer, with a reason holding `why`.
    fn assert_blocks(&self, out: &Out, why: &str) {
        assert!(out.denies(self.agent), "{}: not a block: {out:#?}\n{}", self.agent, self.command);
        let said = format!("{}{}", out.stdout, out.stderr);
        assert!(said.contains(why), "{}: the reason lacks {why:?}: {out:#?}", self.agent);
        assert!(said.contains("the call is blocked"), "{}: {out:#?}", self.agent);
        if !out.stdout.trim().is_empty() {
            let parsed: Result<Value, _> = serde_json::from_str(out.stdout.trim());
            assert!(parsed.is_ok(), "{}: stdout is not one JSON answer: {out:#?}", self.agent);
        }
    }
}

/// The shell text of `agent`'s installed handler for `event`, and its handler object (none for Cline's scripts).
fn installed_handler(ws: &Path, agent: &str, event: &str) -> (String, Option<Value>) {
    if agent == "cline" {
        return (ws.join(".cline/hooks").join(event).display().to_string(), None);
    }
    let file = match agent {
        "claude" => ".claude/settings.json",
        "codex" => ".codex/hooks.json",
        "gemini" => ".gemini/settings.json",
        "cursor" => ".cursor/hooks.json",
        "qwen" => ".qwen/settings.json",
        "droid" => ".factory/settings.json",
        "copilot" => ".github/hooks/hook-engine.json",
        other => panic!("no file for {other}"),
    };
    let path = ws.join(file);
    let settings = common::read_json(&path);
    let entry = &settings["hooks"][event][0];
    let handler = if entry.get("hooks").is_some() { entry["hooks"][0].clone() } else { entry.clone() };
    let line = handler.get("bash").or_else(|| handler.get("command")).and_then(Value::as_str);
    let line = line.unwrap_or_else(|| panic!("{agent}: no command in {handler:#}")).to_owned();
    (line, Some(handler))
}

/// A directory holding only a `hook` that is `script`.
fn fake_hook(script: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hook");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// `PATH` with this build's `hook` first, then the system's.
fn path_with_hook() -> String {
    let dir: PathBuf = Path::new(HOOK).parent().unwrap().to_path_buf();
    format!("{}:/usr/bin:/bin", dir.display())
}

const SYSTEM_PATH: &str = "/usr/bin:/bin";

#[test]
fn hook_missing_from_the_agents_path_blocks_the_call_for_every_agent() {
    assert!(!Path::new("/usr/bin/hook").exists() && !Path::new("/bin/hook").exists(), "a hook on the system PATH");
    for (agent, event) in AGENTS {
        let installed = Installed::new(agent, event, &[]);
        let out = installed.run(SYSTEM_PATH, &[]);
        installed.assert_blocks(&out, "was not found on the PATH the agent gives its hooks (exit 127)");
        installed.assert_blocks(&out, "reinstall with: hook install --agent");
    }
}

#[test]
fn a_bridge_killed_mid_dispatch_by_sigkill_or_sigabrt_blocks_the_call_for_every_agent() {
    for (agent, event) in AGENTS {
        for (signal, number) in [("KILL", 9), ("ABRT", 6)] {
            let installed = Installed::new(agent, event, &[]);
            // A hook of the workspace that kills the bridge running it: its parent.
            installed.env.write(
                ".hooks/hooks.yaml",
                &format!(
                    "hooks:\n  - id: assassin\n    on: pre_tool\n    kind: command\n    shell: kill -{signal} $PPID\n"
                ),
            );
            let trust = installed.env.hook(&["trust", "--all", "--yes"]);
            assert_eq!(trust.code, 0, "{trust:#?}");
            let out = installed.run(&path_with_hook(), &[]);
            installed.assert_blocks(&out, &format!("hook was killed by signal {number}"));
        }
    }
}

#[test]
fn a_bridge_that_hangs_is_stopped_by_the_handlers_timer_and_the_call_blocked() {
    // The dispatch deadline shortened for the test: install writes a timer of a few seconds.
    let short = [("HOOK_TEST_DISPATCH_DEADLINE_MS", "1000")];
    let hung = fake_hook("#!/bin/sh\nexec sleep 600\n");
    let path = format!("{}:{SYSTEM_PATH}", hung.path().display());
    std::thread::scope(|scope| {
        let runs: Vec<_> = AGENTS
            .iter()
            .map(|&(agent, event)| {
                let path = &path;
                scope.spawn(move || {
                    let installed = Installed::new(agent, event, &short);
                    let started = Instant::now();
                    let out = installed.run(path, &[]);
                    installed.assert_blocks(&out, "hook did not answer within 5 s");
                    assert!(started.elapsed() < Duration::from_secs(30), "{agent}: {:?}", started.elapsed());
                })
            })
            .collect();
        for run in runs {
            run.join().unwrap();
        }
    });
}

#[test]
fn a_program_named_hook_that_is_not_the_engine_blocks_the_call() {
    let installed = Installed::new("claude", "PreToolUse", &[]);
    let other = fake_hook("#!/bin/sh\ncat >/dev/null\nexit 5\n");
    let out = installed.run(&format!("{}:{SYSTEM_PATH}", other.path().display()), &[]);
    installed.assert_blocks(&out, "hook exited with status 5, which hook bridge never uses");
    let not_executable = tempfile::tempdir().unwrap();
    std::fs::write(not_executable.path().join("hook"), "not a program").unwrap();
    let out = installed.run(&format!("{}:{SYSTEM_PATH}", not_executable.path().display()), &[]);
    // Root may run a file without execute bits through sh's fallback; what it must never do is pass.
    assert!(out.denies("claude"), "{out:#?}");
}

#[test]
fn a_hook_exiting_1_or_3_blocks_the_call_for_every_agent() {
    // 1 is what the npm launcher exits with when its platform package is missing, and what Claude Code and Codex
    // read as a non-blocking error: the tool would run.
    for status in [1, 3] {
        let failing = fake_hook(&format!("#!/bin/sh\ncat >/dev/null\necho 'launcher: no binary' >&2\nexit {status}\n"));
        for (agent, event) in AGENTS {
            let installed = Installed::new(agent, event, &[]);
            let out = installed.run(&format!("{}:{SYSTEM_PATH}", failing.path().display()), &[]);
            installed.assert_blocks(&out, &format!("hook exited with status {status}, which hook bridge never uses"));
        }
    }
}

#[test]
fn a_hooks_own_exit_1_on_a_gate_is_answered_not_replayed() {
    // A Claude Code hook that exits 1 is a non-blocking error by Claude Code's rules: the engine passes, and the
    // bridge says so with a status the handler passes through (0), not the 1 it would read as a failure.
    let installed = Installed::new("claude", "PreToolUse", &[]);
    installed.env.write(
        ".hooks/hooks.yaml",
        "hooks:\n  - id: flaky\n    on: pre_tool\n    protocol: claude\n    kind: command\n    shell: \"echo oops >&2; exit 1\"\n    on_error: ignore\n",
    );
    assert_eq!(installed.env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = installed.run(&path_with_hook(), &[]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(!out.denies("claude"), "{out:#?}");
}

#[test]
fn the_bridges_own_answers_pass_through_the_handler_unchanged() {
    for (agent, event) in AGENTS {
        let installed = Installed::new(agent, event, &[]);
        installed.env.write(
            ".hooks/hooks.yaml",
            "hooks:\n  - id: no-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    shell: \"echo 'no shell here' >&2; exit 2\"\n",
        );
        assert_eq!(installed.env.hook(&["trust", "--all", "--yes"]).code, 0);
        let out = installed.run(&path_with_hook(), &[]);
        assert!(out.denies(agent), "{agent}: {out:#?}");
        let said = format!("{}{}", out.stdout, out.stderr);
        assert!(said.contains("no shell here"), "{agent}: {out:#?}");
        assert!(!said.contains("the call is blocked"), "{agent}: the bridge answered; the fallback must not: {out:#?}");
        // The timer was stopped and its `sleep` reaped: nothing of the handler is left, not even a zombie (an
        // orphan would wait for an init that may never reap it).
        let group = installed.group.lock().unwrap().unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(in_group(group), Vec::<String>::new(), "{agent}: the handler left processes behind");

        std::fs::remove_file(installed.env.ws.join(".hooks/hooks.yaml")).unwrap();
        let out = installed.run(&path_with_hook(), &[]);
        assert!(!out.denies(agent), "{agent}: nothing guards this call: {out:#?}");
    }
}

#[test]
fn observer_handlers_stay_the_bare_bridge_command_and_cursor_gates_get_fail_closed() {
    let claude = Installed::new("claude", "PostToolUse", &[]);
    assert_eq!(claude.command, "hook bridge --protocol claude");
    let cursor = Installed::new("cursor", "preToolUse", &[]);
    assert_eq!(cursor.handler.as_ref().unwrap()["failClosed"], true, "{:#?}", cursor.handler);
    let (_, observer) = installed_handler(&cursor.env.ws, "cursor", "postToolUse");
    assert!(observer.unwrap().get("failClosed").is_none());
}

#[test]
fn uninstall_gives_back_the_workspace_byte_for_byte_after_a_guarded_install() {
    for (agent, event) in AGENTS {
        let env = Env::new("tests/fixtures/install/claude");
        std::fs::remove_dir_all(env.ws.join(".claude")).unwrap();
        std::fs::remove_dir_all(env.ws.join(".hooks")).unwrap();
        let before = tree(&env.ws);
        let out = env.hook(&["install", "--agent", agent, "--scope", "project", "--yes"]);
        assert_eq!(out.code, 0, "{agent}: {out:#?}");
        let (command, _) = installed_handler(&env.ws, agent, event);
        let text = if agent == "cline" { std::fs::read_to_string(&command).unwrap() } else { command };
        assert!(text.contains("the call is blocked"), "{agent}: {text}");
        let out = env.hook(&["uninstall", "--agent", agent, "--scope", "project"]);
        assert_eq!(out.code, 0, "{agent}: {out:#?}");
        assert_eq!(tree(&env.ws), before, "{agent}");
    }
}

/// Every file under `root` with its bytes, in name order.
fn tree(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.push((path.strip_prefix(root).unwrap().to_path_buf(), Vec::new()));
                dirs.push(path);
            } else {
                files.push((path.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn validate_flags_a_hand_written_bridge_entry_without_the_fallback_and_not_an_installed_one() {
    let installed = Installed::new("claude", "PreToolUse", &[]);
    let out = installed.env.hook(&["validate"]);
    assert!(!out.stdout.contains("no fallback") && !out.stderr.contains("no fallback"), "{out:#?}");
    let settings = json!({"hooks": {
        "PreToolUse": [{"hooks": [{"type": "command", "command": "hook bridge --protocol claude"}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "command": "hook bridge --protocol claude"}]}]
    }});
    installed.env.write(".claude/settings.json", &settings.to_string());
    let out = installed.env.hook(&["validate"]);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(said.matches("runs the bridge with no fallback").count(), 1, "the gate only: {out:#?}");
    assert!(said.contains("run `hook install --agent claude` again"), "{out:#?}");
}

/// The processes of process group `group` (zombies included), each as `pid state name`.
fn in_group(group: u32) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // pid (comm) state ppid pgrp …; comm may hold spaces, so read after its last ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(group) {
            found.push(format!("{} {} {}", entry.file_name().to_string_lossy(), fields[0], head));
        }
    }
    found
}

#[test]
fn a_bridge_that_fails_at_once_never_leaves_the_handler_waiting_on_its_timer() {
    // The regression: a bridge that exited before the timer had set itself up left the handler waiting the whole
    // timer (64 s) about one time in twenty. Each run must end long before the timer could.
    let installed = Installed::new("claude", "PreToolUse", &[]);
    for round in 0..40 {
        let started = Instant::now();
        let out = installed.run(SYSTEM_PATH, &[]);
        assert!(out.denies("claude"), "round {round}: {out:#?}");
        assert!(started.elapsed() < Duration::from_secs(20), "round {round}: {:?}", started.elapsed());
    }
}
