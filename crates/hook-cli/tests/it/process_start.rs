//! What the process's start guarantees whatever state it is started in: with its stdout closed, no file it opens
//! takes stdout's place (descriptors 0 to 2 are opened on /dev/null); a hook that exits without reading its input
//! costs a write error, not the process (SIGPIPE is ignored).

use crate::common;

use std::process::Command;

use common::Env;

const GATE: &str = "- id: reads-nothing\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  argv: [/bin/true]\n";

/// `command`, started by `sh` with its descriptor `fd` closed.
fn with_closed(fd: u8, command: &Command) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(format!("exec \"$0\" \"$@\" {fd}>&-")).arg(command.get_program()).args(command.get_args());
    if let Some(dir) = command.get_current_dir() {
        sh.current_dir(dir);
    }
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => sh.env(key, value),
            None => sh.env_remove(key),
        };
    }
    sh
}

#[test]
fn a_closed_stdout_or_stdin_is_not_taken_by_a_file_the_engine_opens() {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", GATE);
    let args = ["run", "pre_tool", "--tool", "shell", "--input", "{\"command\":\"ls\"}", "--trust-workspace"];
    let open = env.hook(&args);
    assert_eq!(open.code, 0, "{open:#?}");
    for fd in [0, 1] {
        let closed = env.finish(with_closed(fd, &env.command(&args)));
        assert_eq!(closed.code, 0, "descriptor {fd} closed: {closed:#?}");
        assert!(!closed.stderr.contains("error"), "descriptor {fd} closed: {closed:#?}");
    }
    // The receipts log holds receipts only, never the verdict meant for stdout.
    let state = env.home.join("state/hooks/receipts");
    for entry in std::fs::read_dir(&state).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let receipt: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
                assert!(receipt.get("seq").is_some(), "{line}");
            }
        }
    }
}

#[test]
fn a_hook_that_reads_none_of_a_large_input_does_not_kill_hook() {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", GATE);
    // Far more than a pipe holds, so writing it to a hook that has exited fails with EPIPE.
    let input = format!("{{\"command\":\"{}\"}}", "x".repeat(4 << 20));
    env.write("input.json", &input);
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", "@input.json", "--trust-workspace"]);
    assert_eq!(out.code, 0, "killed by a signal (code -1) or failed: {out:#?}");
    let bridged = env.bridge(
        "claude",
        &serde_json::json!({
            "session_id": "s", "transcript_path": "/dev/null", "cwd": env.ws, "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": { "command": "x".repeat(4 << 20) },
        }),
    );
    assert_ne!(bridged.code, -1, "the bridge was killed by a signal: {bridged:#?}");
    assert!(!bridged.denies("claude"), "{bridged:#?}");
}
