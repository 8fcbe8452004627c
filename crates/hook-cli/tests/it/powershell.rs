//! PowerShell handlers, end to end with the real `hook` binary: Claude Code's `shell: "powershell"` and the engine's
//! own `powershell:` run by `pwsh -NoLogo -NoProfile -NonInteractive -Command LINE`; where `PATH` has no PowerShell
//! a gate denies, naming it, and never passes; `hook install` moves such a guard into the native file as a
//! `powershell:` hook that the installed bridge runs.
//!
//! These machines have no PowerShell. A stand-in `pwsh`, a shell script, plays it: it refuses any other arguments
//! than the engine's, logs the line it was given, and runs it with `sh` (so the lines below are POSIX, which
//! PowerShell would not read the same way; what is tested is the engine's side: that it reaches PowerShell and how).

use std::path::{Path, PathBuf};

use crate::common;

use common::{Env, Out};
use serde_json::{Value, json};

/// A PowerShell guard on Claude Code's shell tool: pushes are refused, anything else passes.
const SETTINGS: &str = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
  "shell": "powershell", "command": "if grep -q 'git push'; then echo 'pushes go through review' >&2; exit 2; fi"}]}]}}"#;

/// A directory holding the stand-in `pwsh`, which appends its line to `log`.
fn stand_in(env: &Env) -> (PathBuf, PathBuf) {
    let bin = env.home.join("pwsh-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = env.home.join("pwsh.log");
    let script = format!(
        "#!/bin/sh\n\
         [ \"$1 $2 $3 $4\" = '-NoLogo -NoProfile -NonInteractive -Command' ] || {{ echo \"pwsh: unexpected $*\" >&2; exit 64; }}\n\
         printf '%s\\n' \"$5\" >> '{}'\n\
         exec sh -c \"$5\"\n",
        log.display()
    );
    let path = bin.join("pwsh");
    std::fs::write(&path, script).unwrap();
    make_executable(&path);
    (bin, log)
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `PATH` for the hooks: `first` (when given), then the system's own directories, where there is no PowerShell.
fn path(first: Option<&Path>) -> String {
    let system = "/usr/local/bin:/usr/bin:/bin";
    match first {
        Some(dir) => format!("{}:{system}", dir.display()),
        None => system.to_owned(),
    }
}

fn bash(env: &Env, command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s-1", "transcript_path": "/tmp/t.jsonl",
        "cwd": env.ws.display().to_string(), "tool_name": "Bash", "tool_input": {"command": command}})
}

/// `hook bridge --protocol <agent>` with `PATH` set to `path`.
fn bridge(env: &Env, agent: &str, path: &str, input: &Value) -> Out {
    let mut command = env.command(&["bridge", "--protocol", agent]);
    command.env("PATH", path);
    env.finish_within(command, input.to_string().as_bytes(), std::time::Duration::from_secs(30))
}

fn no_powershell_on_this_machine() -> bool {
    let found = path(None).split(':').any(|dir| Path::new(dir).join("pwsh").exists());
    if found {
        eprintln!("skipped: this machine has a `pwsh` of its own");
    }
    !found
}

#[test]
fn a_claude_powershell_guard_runs_through_pwsh_with_the_engines_arguments() {
    let env = Env::new("empty");
    env.write(".claude/settings.json", SETTINGS);
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let (bin, log) = stand_in(&env);
    let path = path(Some(&bin));

    // Another agent's bridge runs Claude Code's file: the guard decides through PowerShell.
    let push = bridge(&env, "codex", &path, &bash(&env, "git push origin main"));
    assert!(push.denies("codex"), "{push:#?}");
    assert!(format!("{}{}", push.stdout, push.stderr).contains("pushes go through review"), "{push:#?}");
    let status = bridge(&env, "codex", &path, &bash(&env, "git status"));
    assert!(!status.denies("codex"), "{status:#?}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged.lines().count(), 2, "{logged}");
    assert!(logged.starts_with("if grep -q 'git push'; then"), "{logged}");
}

#[test]
fn without_powershell_a_powershell_gate_denies_and_names_what_is_missing() {
    if !no_powershell_on_this_machine() {
        return;
    }
    let env = Env::new("empty");
    env.write(".claude/settings.json", SETTINGS);
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    // The call the guard would let through is denied all the same: the guard could not run.
    // Claude Code runs its own file; another agent's bridge runs it here, as after `hook install` the bridge does.
    let status = bridge(&env, "codex", &path(None), &bash(&env, "git status"));
    assert!(status.denies("codex"), "{status:#?}");
    let said = format!("{}{}", status.stdout, status.stderr);
    assert!(said.contains("pwsh"), "{status:#?}");
}

#[test]
fn a_native_powershell_hook_runs_and_validate_warns_where_there_is_no_powershell() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: no-push\n  on: pre_tool\n  kind: command\n  tools: [shell]\n  \
         powershell: \"if grep -q 'git push'; then echo 'not from the agent' >&2; exit 2; fi\"\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let inspect = env.inspect_json();
    assert_eq!(inspect["hooks"][0]["kind"], "command", "{inspect:#}");
    let (bin, log) = stand_in(&env);
    let push = bridge(&env, "claude", &path(Some(&bin)), &bash(&env, "git push"));
    assert!(push.denies("claude"), "{push:#?}");
    assert!(format!("{}{}", push.stdout, push.stderr).contains("not from the agent"), "{push:#?}");
    assert!(std::fs::read_to_string(&log).unwrap().contains("git push"));

    if no_powershell_on_this_machine() {
        let mut validate = env.command(&["validate"]);
        validate.env("PATH", path(None));
        let validate = env.finish(validate);
        assert!(
            validate.stdout.contains("hooks[0].powershell: PowerShell (`pwsh`) is not found on PATH"),
            "{validate:#?}"
        );
    }
    // Exactly one of `argv`, `shell` and `powershell`.
    env.write(".hooks/hooks.yaml", "- {on: pre_tool, kind: command, shell: \"true\", powershell: \"exit 0\"}\n");
    let validate = env.hook(&["validate"]);
    assert_ne!(validate.code, 0, "{validate:#?}");
    assert!(
        validate.stdout.contains(
            "`shell` and `powershell` are both set; a command hook has exactly one of `argv`, `shell` and `powershell`"
        ),
        "{validate:#?}"
    );
}

#[test]
fn install_moves_a_powershell_guard_into_the_native_file_and_the_bridge_runs_it() {
    let env = Env::new("empty");
    env.write(".claude/settings.json", SETTINGS);
    let out = env.hook(&["install", "--agent", "claude", "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    assert_eq!(report["moved"].as_array().unwrap().len(), 1, "{report:#}");
    let native = std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap();
    assert!(native.contains("powershell: "), "{native}");
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);

    // Run as Claude Code runs the entry install wrote, with the stand-in on the agent's PATH.
    let (bin, log) = stand_in(&env);
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(env.ws.join(".claude/settings.json")).unwrap()).unwrap();
    let entry = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    let hook_dir = common::path_with_this_hook();
    let mut agent = std::process::Command::new("sh");
    agent
        .args(["-c", &entry])
        .current_dir(&env.ws)
        .env("HOME", &env.home)
        .env("XDG_STATE_HOME", env.home.join("state"))
        .env("XDG_CONFIG_HOME", env.home.join("xdg-config"))
        .env("CLAUDE_PROJECT_DIR", &env.ws)
        .env("PATH", format!("{}:{}", bin.display(), hook_dir.to_string_lossy()));
    let input = bash(&env, "git push --force").to_string();
    let push = env.finish_within(agent, input.as_bytes(), std::time::Duration::from_secs(30));
    assert!(push.denies("claude"), "{push:#?}");
    assert!(format!("{}{}", push.stdout, push.stderr).contains("pushes go through review"), "{push:#?}");
    assert!(std::fs::read_to_string(&log).unwrap().contains("git push"));
}
