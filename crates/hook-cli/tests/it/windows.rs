//! The real `hook.exe` on Windows (run under Wine in CI): a gate denies; a hook that never reads its stdin still
//! times out; a hook's grandchild dies with the run, and when `hook` itself is killed; a flood stays bounded; the
//! bridge answers Claude Code's PreToolUse with a deny in Claude's form; `install` and `uninstall` give Claude Code's,
//! Codex's, Cursor's and GitHub Copilot CLI's files back byte for byte, the gates wrapped in the Windows form; a
//! PowerShell gate without PowerShell denies, Copilot CLI's hooks take their Windows line, and `hook doctor` does not
//! count a gate live that PowerShell cannot run.
//!
//! The hooks are `cmd /c` lines, or this test binary again in a helper mode (the ignored test [`helper`], told what
//! to be by `HOOK_CLI_HELPER`): Wine has no `sleep` or `yes`.
//!
//! Where Wine differs from Windows: Wine's `cmd` is its own (the lines here use only `echo`, redirection and `exit`),
//! its `powershell.exe` is a stub that runs nothing and ends 0 (and there is no `pwsh`), so the PowerShell shell mode
//! is tested as a missing shell (here with a `PATH` without it, and in hook-exec's suite), and install's PowerShell
//! wrapper around a gate's bridge as written and recognised (its script is checked by hook-agents' unit tests) and
//! by `hook doctor`, whose probe must not take the stub's clean exit for the bridge's answer; and it does not model a
//! console's Ctrl-C, so the stop signals are not tested here.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{self, Env};
use hook_testkit::process::{eventually, is_dead, kill, read_pid};
use serde_json::json;

const HELPER: &str = "HOOK_CLI_HELPER";
const HELPER_FILE: &str = "HOOK_CLI_HELPER_FILE";

/// A `kind: command` hook on `pre_tool` that runs this binary as the helper `mode`, `pid_file` its file.
fn helper_hook(id: &str, mode: &str, pid_file: &Path, timeout_ms: u64) -> String {
    let exe = std::env::current_exe().expect("the test binary's path");
    format!(
        "  - id: {id}\n    on: pre_tool\n    kind: command\n    timeout_ms: {timeout_ms}\n    argv: ['{}', \
         windows::helper, --exact, --include-ignored, --nocapture, --test-threads, '1']\n    env:\n      {HELPER}: \
         {mode}\n      {HELPER_FILE}: '{}'\n",
        exe.display(),
        pid_file.display()
    )
}

/// A workspace whose `.hooks/hooks.yaml` holds `hooks` (YAML list items).
fn workspace(hooks: &str) -> Env {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", &format!("version: 1\nhooks:\n{hooks}"));
    env
}

/// `hook run pre_tool` on a shell call, the workspace trusted, as JSON. The input goes through a file: a Windows
/// command line holds at most 32 767 characters.
fn run_pre_tool(env: &Env, command: &str) -> (i32, serde_json::Value, common::Out) {
    let input_file = env.home.join("input.json");
    std::fs::write(&input_file, json!({ "command": command }).to_string()).expect("input file");
    let input = format!("@{}", input_file.display());
    let args =
        ["run", "pre_tool", "--tool", "shell", "--input", &input, "--json", "--no-receipts", "--trust-workspace"];
    let out = env.hook(&args);
    let parsed = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:#?}"));
    (out.code, parsed, out)
}

fn wait_pid(file: &Path) -> i32 {
    assert!(eventually(Duration::from_secs(30), || read_pid(file).is_some()), "no pid in {}", file.display());
    read_pid(file).expect("pid")
}

/// Not a test: the helper processes the hooks run (this binary again, on this test alone).
// The grandchild it starts is never waited for on purpose: the run's Job Object is what must end it.
#[allow(clippy::zombie_processes)]
#[test]
#[ignore = "a helper process the hooks start"]
fn helper() {
    let Some(mode) = std::env::var_os(HELPER) else { return };
    let file = std::env::var_os(HELPER_FILE).map(PathBuf::from).unwrap_or_default();
    match mode.to_str().unwrap_or_default() {
        "sleep" => std::thread::sleep(Duration::from_secs(120)),
        "tree" => {
            let exe = std::env::current_exe().expect("exe");
            let grandchild = std::process::Command::new(exe)
                .args(["windows::helper", "--exact", "--include-ignored", "--nocapture", "--test-threads", "1"])
                .env(HELPER, "sleep")
                .spawn()
                .expect("spawn");
            std::fs::write(&file, grandchild.id().to_string()).expect("pid file");
            std::thread::sleep(Duration::from_secs(120));
        }
        "flood" => {
            use std::io::Write;
            let chunk = vec![b'y'; 64 * 1024];
            let mut out = std::io::stdout().lock();
            for _ in 0..512 {
                if out.write_all(&chunk).is_err() {
                    return;
                }
            }
        }
        other => panic!("unknown helper mode {other}"),
    }
}

#[test]
fn a_cmd_gate_denies() {
    let env = workspace(
        "  - id: win.gate\n    on: pre_tool\n    kind: command\n    shell: 'echo rm is refused by the Windows gate 1>&2& exit 2'\n",
    );
    let (code, json, out) = run_pre_tool(&env, "rm -rf /");
    assert_eq!(code, 2, "{out:#?}");
    assert_eq!(json["verdict"], "deny", "{json:#}");
    assert!(json.to_string().contains("refused by the Windows gate"), "{json:#}");
}

#[test]
fn a_hook_that_never_reads_its_stdin_still_times_out_and_the_gate_holds() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let env = workspace(&helper_hook("win.sleeps", "sleep", &scratch.path().join("none"), 1_500));
    let big = "x".repeat(4 << 20);
    let started = Instant::now();
    let (code, json, out) = run_pre_tool(&env, &big);
    assert!(started.elapsed() < Duration::from_secs(60), "the deadline did not hold: {out:#?}");
    assert_eq!(json["runs"][0]["status"], "timed_out", "{json:#}");
    assert_ne!(code, 0, "a timed-out gate never passes: {json:#}");
}

#[test]
fn a_hooks_grandchild_dies_with_the_run() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let pid_file = scratch.path().join("grandchild");
    let env = workspace(&helper_hook("win.tree", "tree", &pid_file, 5_000));
    let (_, json, _) = run_pre_tool(&env, "ls");
    assert_eq!(json["runs"][0]["status"], "timed_out", "{json:#}");
    let grandchild = wait_pid(&pid_file);
    assert!(eventually(Duration::from_secs(10), || is_dead(grandchild)), "grandchild {grandchild} survived the run");
}

#[test]
fn a_hooks_grandchild_dies_when_hook_is_killed() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let pid_file = scratch.path().join("grandchild");
    let env = workspace(&helper_hook("win.tree", "tree", &pid_file, 120_000));
    let input = json!({ "command": "ls" }).to_string();
    let mut command = env.command(&["run", "pre_tool", "--tool", "shell", "--input", &input, "--trust-workspace"]);
    command.stdout(Stdio::null()).stderr(Stdio::null());
    let mut engine = command.spawn().expect("hook starts");
    let grandchild = wait_pid(&pid_file);
    assert!(!is_dead(grandchild));
    kill(engine.id() as i32);
    engine.wait().expect("hook reaped");
    let died = eventually(Duration::from_secs(10), || is_dead(grandchild));
    if !died {
        kill(grandchild);
    }
    assert!(died, "grandchild {grandchild} outlived the killed engine");
}

#[test]
fn a_flood_stays_bounded() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let env = workspace(&helper_hook("win.flood", "flood", &scratch.path().join("none"), 60_000));
    let (_, json, out) = run_pre_tool(&env, "ls");
    assert_eq!(json["runs"][0]["status"], "completed", "{json:#}");
    assert!(out.stdout.len() < 4 << 20, "32 MiB of hook output reached the answer: {} bytes", out.stdout.len());
}

#[test]
fn the_claude_bridge_answers_a_deny_in_claudes_form() {
    let env = workspace(
        "  - id: win.gate\n    on: pre_tool\n    kind: command\n    shell: 'echo no force pushes 1>&2& exit 2'\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "w1", "cwd": env.ws, "tool_name": "Bash",
                       "tool_input": {"command": "git push --force"}, "tool_use_id": "t1"});
    let out = env.bridge("claude", &input);
    assert!(out.denies("claude"), "{out:#?}");
    let answer: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:#?}"));
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer:#}");
    assert!(answer.to_string().contains("no force pushes"), "{answer:#}");
}

/// Every file under `dir`, relative, with its bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(at) = dirs.pop() {
        for entry in std::fs::read_dir(&at).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                files.push((path.strip_prefix(dir).expect("under dir").to_path_buf(), bytes));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn install_and_uninstall_give_each_agents_files_back_byte_for_byte() {
    for (agent, file, gate) in [
        ("claude", ".claude/settings.json", "PreToolUse"),
        ("codex", ".codex/hooks.json", "PreToolUse"),
        ("cursor", ".cursor/hooks.json", "preToolUse"),
        ("copilot", ".github/hooks/guard.json", "preToolUse"),
    ] {
        let env = Env::new(&format!("tests/fixtures/install/{agent}"));
        let before = tree(&env.ws);
        let out = env.hook(&["install", "--agent", agent, "--yes"]);
        assert_eq!(out.code, 0, "{agent}: {out:#?}");
        let written = tree(&env.ws);
        let settings: Vec<&(PathBuf, Vec<u8>)> = written
            .iter()
            .filter(|(p, _)| {
                String::from_utf8_lossy(&std::fs::read(env.ws.join(p)).unwrap_or_default())
                    .contains("bridge --protocol")
            })
            .collect();
        assert!(!settings.is_empty(), "{agent}: no file holds the bridge after install (expected one like {file})");
        // The gate's fail-closed wrapper in the form cmd, PowerShell and Git Bash all run (Wine has no real PowerShell to
        // run it: the uninstall below finds it as the bridge entry it is).
        let all: String = written.iter().map(|(_, b)| String::from_utf8_lossy(b).into_owned()).collect();
        assert!(
            all.contains("powershell.exe -NoLogo -NoProfile -NonInteractive -EncodedCommand "),
            "{agent}: no wrapper on {gate}"
        );
        let out = env.hook(&["uninstall", "--agent", agent]);
        assert_eq!(out.code, 0, "{agent}: {out:#?}");
        let after = tree(&env.ws);
        let names = |t: &[(PathBuf, Vec<u8>)]| t.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
        assert_eq!(names(&after), names(&before), "{agent}: the same files are back");
        for ((path, was), (_, is)) in before.iter().zip(&after) {
            assert!(was == is, "{agent}: {} is not back byte for byte", path.display());
        }
    }
}

/// `PATH` with the Windows directories and no PowerShell: neither `pwsh` nor `WindowsPowerShell\v1.0` (where Wine
/// keeps a stub `powershell.exe` that runs nothing and exits 0, and Windows the real one).
fn path_without_powershell() -> String {
    let root = std::env::var("SystemRoot").unwrap_or_else(|_| r"C:\windows".into());
    format!(r"{root}\system32;{root}")
}

#[test]
fn a_powershell_gate_without_powershell_denies_and_says_so() {
    let env = workspace("  - id: win.ps\n    on: pre_tool\n    kind: command\n    powershell: 'exit 0'\n");
    let input_file = env.home.join("input.json");
    std::fs::write(&input_file, json!({ "command": "dir" }).to_string()).expect("input file");
    let input = format!("@{}", input_file.display());
    let mut command = env.command(&[
        "run",
        "pre_tool",
        "--tool",
        "shell",
        "--input",
        &input,
        "--json",
        "--no-receipts",
        "--trust-workspace",
    ]);
    command.env("PATH", path_without_powershell());
    let out = env.finish(command);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:#?}"));
    assert_eq!(json["verdict"], "deny", "a gate whose PowerShell is missing never passes: {json:#}");
    assert!(json.to_string().contains("PowerShell cannot run here"), "{json:#}");
}

#[test]
fn doctor_finds_the_installed_gate_not_live_where_powershell_cannot_run_the_bridge() {
    let env = Env::new("tests/fixtures/install/claude");
    assert_eq!(env.hook(&["install", "--agent", "claude", "--yes"]).code, 0);
    let doctor = |path: Option<String>| {
        let mut command = env.command(&["doctor", "--agent", "claude", "--json"]);
        if let Some(path) = path {
            command.env("PATH", path);
        }
        let out = env.finish(command);
        let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:#?}"));
        let probes = report["agents"][0]["probes"].as_array().cloned().unwrap_or_default();
        assert!(!probes.is_empty(), "{report:#}");
        (out.code, probes)
    };
    // No PowerShell: `cmd` cannot start the wrapper, and the probe says what it wrote.
    let (code, probes) = doctor(Some(path_without_powershell()));
    assert_eq!(code, 1, "a gate that cannot answer is a failed check: {probes:#?}");
    assert!(
        probes.iter().all(|p| p["live"] == false && p["outcome"].as_str().unwrap().contains("exit ")),
        "{probes:#?}"
    );
    // Wine's `powershell.exe` is a stub that runs nothing and ends 0: a clean exit, and still no bridge answered.
    // (On Windows the real PowerShell runs the bridge, and this part does not apply.)
    if Path::new(r"C:\windows\system32\winecfg.exe").exists() {
        let (code, probes) = doctor(None);
        assert_eq!(code, 1, "{probes:#?}");
        assert!(
            probes
                .iter()
                .all(|p| p["live"] == false && p["outcome"].as_str().unwrap().contains("the bridge did not answer")),
            "{probes:#?}"
        );
    }
}

#[test]
fn copilot_hooks_take_their_windows_line() {
    // `powershell` is the line Copilot CLI runs on Windows: with no PowerShell on PATH it cannot start, and the gate
    // denies. Had the `bash` line been taken, `cmd` would have run `exit 0` and passed.
    let env = Env::new("empty");
    env.write(
        ".github/hooks/guard.json",
        r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "exit 0", "powershell": "exit 0"}]}}"#,
    );
    let run = |env: &Env| {
        let input_file = env.home.join("input.json");
        std::fs::write(&input_file, json!({ "command": "dir" }).to_string()).expect("input file");
        let input = format!("@{}", input_file.display());
        let mut command = env.command(&[
            "run",
            "pre_tool",
            "--tool",
            "shell",
            "--input",
            &input,
            "--json",
            "--no-receipts",
            "--trust-workspace",
        ]);
        command.env("PATH", path_without_powershell());
        let out = env.finish(command);
        serde_json::from_str::<serde_json::Value>(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:#?}"))
    };
    let json = run(&env);
    assert_eq!(json["verdict"], "deny", "{json:#}");
    assert!(json.to_string().contains("PowerShell cannot run here"), "{json:#}");
    // A hook with only a `bash` line is one Copilot skips on Windows: its gate closes, saying so.
    env.write(
        ".github/hooks/guard.json",
        r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "exit 0"}]}}"#,
    );
    let json = run(&env);
    assert_eq!(json["verdict"], "deny", "{json:#}");
    assert!(json.to_string().contains("on Linux and macOS only"), "{json:#}");
}
