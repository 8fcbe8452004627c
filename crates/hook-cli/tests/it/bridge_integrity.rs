//! The bridge as a careless install or an impatient agent meets it: bridges never start bridges whatever they are
//! called, the workspace is the project the agent works in whichever of its directories the session is in, and a
//! bridge told to stop on a gate blocks.

use crate::common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Env, HOOK, read_json};
use serde_json::{Value, json};

/// `hook` under another name: a copy of the built binary at `dir/name`.
fn copy_of_hook(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::copy(HOOK, &path).unwrap();
    path.canonicalize().unwrap()
}

/// The live processes whose executable is one of `exes`.
fn processes_of(exes: &[PathBuf]) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| exe_of(*pid).is_some_and(|exe| exes.contains(&exe)))
        .collect()
}

fn exe_of(pid: u32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/exe")).ok()
}

/// The bridges among [`processes_of`]: a process whose parent runs the same executable is a fork of it that has not
/// yet executed the hook it is about to run.
fn bridges_of(exes: &[PathBuf]) -> Vec<u32> {
    let parent = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse::<u32>().ok()
    };
    processes_of(exes).into_iter().filter(|&pid| parent(pid).and_then(exe_of) != exe_of(pid)).collect()
}

/// Kills every process running one of `exes` until none is left (bounded): what a runaway chain of bridges left.
fn kill_all(exes: &[PathBuf]) {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        let pids = processes_of(exes);
        if pids.is_empty() {
            return;
        }
        for pid in pids {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills what a runaway chain of bridges left, when the test ends however it ends.
struct Reaper<'a>(&'a [PathBuf]);

impl Drop for Reaper<'_> {
    fn drop(&mut self) {
        kill_all(self.0);
    }
}

#[test]
fn two_differently_named_bridges_in_two_agents_user_files_make_two_processes_not_hundreds() {
    let env = Env::new("tests/fixtures/install/claude");
    std::fs::remove_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::remove_dir_all(env.ws.join(".hooks")).unwrap();
    let bin = tempfile::tempdir().unwrap();
    let alpha = copy_of_hook(bin.path(), "hook-alpha");
    let beta = copy_of_hook(bin.path(), "hook-beta");
    let exes = [alpha.clone(), beta.clone()];
    // Each build installs itself into one agent's user file: what installing two versions does.
    for (exe, agent) in [(&alpha, "claude"), (&beta, "codex")] {
        let mut install = Command::new(exe);
        install
            .args(["--config-home".as_ref(), env.config_home().as_os_str()])
            .args(["install", "--agent", agent, "--scope", "user", "--yes"])
            .current_dir(&env.ws)
            .env("HOME", &env.home)
            .env_remove("HOOK_BRIDGE_DEPTH")
            .stdin(Stdio::null());
        let out = env.finish(install);
        assert_eq!(out.code, 0, "{out:#?}");
    }
    let settings = read_json(&env.home.join(".claude/settings.json"));
    let command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    assert!(command.contains("hook-alpha"), "{command}");

    // Count the bridge processes while Claude Code runs its bridge, and for a while after.
    let done = AtomicBool::new(false);
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": env.ws,
        "tool_name": "Bash", "tool_input": {"command": "ls"}});
    // Whatever happens below, nothing of this test keeps running.
    let _reaper = Reaper(&exes);
    let (out, seen) = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let mut seen = BTreeSet::new();
            let mut quiet_since = None;
            loop {
                seen.extend(bridges_of(&exes));
                if done.load(Ordering::Relaxed) {
                    let since = *quiet_since.get_or_insert_with(Instant::now);
                    if since.elapsed() > Duration::from_secs(1) || seen.len() > 50 {
                        return seen;
                    }
                }
                std::thread::sleep(Duration::from_micros(200));
            }
        });
        let out = env.run_as_agent(&command, Some("CLAUDE_PROJECT_DIR"), input.to_string().as_bytes());
        done.store(true, Ordering::Relaxed);
        (out, watcher.join().unwrap())
    });
    let left = processes_of(&exes);
    assert!(seen.len() <= 2, "{} bridge processes ({seen:?}); the agent's call answered {out:#?}", seen.len());
    assert!(left.is_empty(), "bridges still running after the call returned: {left:?}");
    assert_eq!(out.code, 0, "{out:#?}");
    // The second one ran once, as a Codex hook of the first, and said why it dispatched nothing.
    let answer: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:#?}"));
    let notice = answer["systemMessage"].as_str().unwrap_or_default();
    assert_eq!(notice.matches("started by a hook of this engine").count(), 1, "{out:#?}");
}

/// `.hooks/hooks.yaml` of the gates fixture, trusted, and a directory deep inside the workspace.
fn trusted_gates() -> (Env, PathBuf) {
    let env = Env::new("gates");
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let deep = env.ws.join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    (env, deep)
}

/// Runs `hook bridge --protocol <agent> [extra…]` in `dir`, as the agent would run it there.
fn bridge_in(env: &Env, dir: &Path, agent: &str, extra: &[&str], input: &Value) -> common::Out {
    let mut command = env.command_without_workspace(&["bridge", "--protocol", agent]);
    command.args(extra).current_dir(dir).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command.env_remove("CLAUDE_PROJECT_DIR").env_remove("GEMINI_PROJECT_DIR").env_remove("CURSOR_PROJECT_DIR");
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    common::Out {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: env.redact(&String::from_utf8_lossy(&output.stderr)),
    }
}

#[test]
fn a_payload_cwd_in_a_subdirectory_runs_the_repositorys_hooks() {
    let (env, deep) = trusted_gates();
    let cases = [
        (
            "codex",
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": deep,
            "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
        ),
        (
            "gemini",
            json!({"hook_event_name": "BeforeTool", "session_id": "s", "cwd": deep,
            "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"}}),
        ),
    ];
    for (agent, input) in &cases {
        let out = bridge_in(&env, &deep, agent, &[], input);
        assert_eq!(out.code, 0, "{agent}: {out:#?}");
        assert!(out.stdout.contains("\"deny\"") && out.stdout.contains("rm -rf is refused"), "{agent}: {out:#?}");
        // --workspace still wins: a directory with no hooks of its own allows it.
        let ws = env.ws.join("src").display().to_string();
        let out = bridge_in(&env, &deep, agent, &["--workspace", &ws], input);
        assert_eq!(out.code, 0, "{agent}: {out:#?}");
        assert!(!out.stdout.contains("\"deny\""), "{agent}: {out:#?}");
    }
}

#[test]
fn a_bridge_given_sigterm_on_a_gate_kills_its_hook_and_answers_deny() {
    let env = Env::new("gates");
    env.write(
        ".hooks/hooks.yaml",
        "version: 1\nhooks:\n  - id: slow\n    on: pre_tool\n    kind: command\n    timeout_ms: 60000\n    \
         shell: echo $$ > \"$HOOK_PROJECT_DIR/started\"; sleep 60\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": env.ws,
        "tool_name": "Bash", "tool_input": {"command": "make"}});
    for (signal, name) in [("-TERM", "SIGTERM"), ("-INT", "SIGINT")] {
        let _ = std::fs::remove_file(env.ws.join("started"));
        let mut command = env.command_without_workspace(&["bridge", "--protocol", "claude"]);
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        command.env("CLAUDE_PROJECT_DIR", &env.ws);
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
        let started = Instant::now();
        // Until the hook has written its pid, not merely created the file.
        while std::fs::read_to_string(env.ws.join("started")).map_or(true, |pid| !pid.ends_with('\n')) {
            assert!(started.elapsed() < Duration::from_secs(30), "the hook never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        let hook_pid = std::fs::read_to_string(env.ws.join("started")).unwrap().trim().to_owned();
        assert!(Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: the blocking form, not a death by signal: {stderr}");
        assert!(stderr.contains(&format!("interrupted by {name}")), "{name}: {stderr}");
        // The hook is dead (a zombie left for an init that does not reap counts as dead). A SIGKILL is delivered
        // after `kill` returns: on a loaded machine the process can still be seen for a moment.
        let pid: i32 = hook_pid.parse().unwrap();
        let dead = hook_testkit::process::eventually(Duration::from_secs(5), || hook_testkit::process::is_dead(pid));
        assert!(dead, "{name}: the hook's shell {pid} is still alive");
    }
}

/// A managed gate that denies every shell call, and a bridge input of Claude Code's for `rm -rf /`.
fn managed_shell_gate(env: &Env) -> Value {
    std::fs::write(
        env.home.join("managed.yaml"),
        "hooks:\n  - id: fleet.no-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    shell: \"echo 'the fleet forbids shell calls' >&2; exit 2\"\n",
    )
    .unwrap();
    json!({"hook_event_name": "PreToolUse", "session_id": "nested", "cwd": env.ws, "tool_name": "Bash",
           "tool_input": {"command": "rm -rf /"}})
}

#[test]
fn an_agent_started_with_the_depth_variable_set_still_meets_a_managed_gate() {
    let env = Env::new("empty");
    let input = managed_shell_gate(&env);
    // What the agent's own shell can set before it starts another agent: a plain depth, a depth with a made-up
    // digest, junk.
    for value in ["1", "3", "1:00000000000000000000000000000000", "junk"] {
        let mut command = env.command(&["bridge", "--protocol", "claude"]);
        command.env("HOOK_BRIDGE_DEPTH", value).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        let denied = output.status.code() == Some(2) || said.contains(r#""permissionDecision":"deny""#);
        assert!(denied && said.contains("the fleet forbids shell calls"), "{value}: {said}");
    }
}

#[test]
fn an_agent_a_hook_starts_is_gated_like_any_other() {
    let env = Env::new("empty");
    let call = managed_shell_gate(&env);
    // A hook at the end of a turn that starts an agent (a reviewer): that agent's bridge gets its own tool call,
    // with this engine's variable inherited from the hook.
    let answer = env.home.join("reviewer-answer");
    let started = env.home.join("reviewer-call.json");
    std::fs::write(&started, call.to_string()).unwrap();
    // The agent it starts, as far as this test needs one: it runs its own installed bridge on its own tool call.
    let agent = env.home.join("fake-agent.sh");
    let script = format!(
        "hook --config-home '{}' --managed-file '{}' bridge --protocol claude < '{}' > '{}' 2>&1\necho \"exit $?\" >> '{}'\n",
        env.config_home().display(),
        env.home.join("managed.yaml").display(),
        started.display(),
        answer.display(),
        answer.display(),
    );
    std::fs::write(&agent, script).unwrap();
    let reviewer = format!("cat >/dev/null; sh '{}'", agent.display());
    let hooks =
        format!("hooks:\n  - id: reviewer\n    on: turn_end\n    kind: command\n    shell: {}\n", json!(reviewer));
    env.write(".hooks/hooks.yaml", &hooks);
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let stop = json!({"hook_event_name": "Stop", "session_id": "outer", "cwd": env.ws, "stop_hook_active": false});
    let out = env.bridge("claude", &stop);
    assert_eq!(out.code, 0, "{out:#?}");
    let said = std::fs::read_to_string(&answer).unwrap_or_else(|e| panic!("the reviewer did not run ({e}): {out:#?}"));
    assert!(said.contains(r#""permissionDecision":"deny""#), "{said}");
    assert!(said.contains("the fleet forbids shell calls"), "{said}");
}
