//! The bridge as a careless install or an impatient agent meets it: the workspace is the project the agent works in
//! whichever of its directories the session is in.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::Env;
use serde_json::{Value, json};

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
