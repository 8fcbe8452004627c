//! An unreadable gate fails closed, end to end: a guard declaration the loader drops for an error makes its gate
//! (every gate, when its event cannot be told) deny with the file, line and column of the error — through `hook
//! run` as through `hook bridge` — until the file is fixed; `hook validate` says which gates are closed and how to
//! fix a script that lacks its run bit. The workspace is the `gates` fixture (nothing in it trusted) with one
//! mistake added, as a user would make it.

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::{Env, Out};
use serde_json::{Value, json};

/// The `gates` fixture's own hooks file.
const HOOKS: &str = include_str!("../../../../tests/fixtures/cli/gates/.hooks/hooks.yaml");

/// The `gates` fixture with `broken` appended to its list of hooks.
fn workspace_with(broken: &str) -> Env {
    let env = Env::new("gates");
    env.write(".hooks/hooks.yaml", &format!("{HOOKS}\n{broken}"));
    env
}

/// The line of the hooks file where `broken` starts.
fn first_line() -> usize {
    HOOKS.lines().count() + 2
}

/// `hook run pre_tool` on a shell call, as JSON.
fn run_pre_tool(env: &Env) -> (Out, Value) {
    let out = env.hook(&["run", "pre_tool", "--tool", "Bash", "--input", r#"{"command":"ls"}"#, "--json"]);
    let json = out.json();
    (out, json)
}

/// Asserts a deny whose reason is the configuration error at `line` (and `column`, if given) of the hooks file.
fn assert_config_deny(out: &Out, json: &Value, line: usize, column: Option<usize>, message: &str) {
    assert_eq!(out.code, 2, "{out:#?}");
    assert_eq!(json["verdict"], "deny", "{out:#?}");
    let reason = json["reason"].as_str().unwrap();
    let at = match column {
        Some(column) => format!("[WS]/.hooks/hooks.yaml:{line}:{column}: "),
        None => format!("[WS]/.hooks/hooks.yaml:{line}:"),
    };
    assert!(reason.starts_with(&format!("the hook configuration has errors: {at}")), "{reason}");
    assert!(reason.contains(message), "{reason}");
    assert!(reason.ends_with(" (run hook validate)"), "{reason}");
    // The deny comes from the configuration, above every hook that could be read.
    let last = json["runs"].as_array().unwrap().last().unwrap();
    assert_eq!(last["hook_id"], "config-error.pre_tool", "{json:#}");
    assert_eq!(last["status"], "blocked", "{json:#}");
}

#[test]
fn a_misspelt_on_key_denies_pre_tool_with_its_file_and_line() {
    let env = workspace_with("  - evnt: pre_tool\n    kind: effect\n    effect: {kind: block_tool, reason: no}\n");
    let (out, json) = run_pre_tool(&env);
    assert_config_deny(&out, &json, first_line(), Some(5), "unknown field `evnt` (did you mean `on`?)");
    // Its event cannot be told, so every gate is closed.
    let out = env.hook(&["run", "turn_start", "--json"]);
    assert_eq!((out.code, out.json()["verdict"].as_str()), (2, Some("deny")), "{out:#?}");
}

#[test]
fn an_unknown_event_denies_pre_tool() {
    let env = workspace_with("  - on: pre_tol\n    kind: effect\n    effect: {kind: block_tool, reason: no}\n");
    let (out, json) = run_pre_tool(&env);
    assert_config_deny(&out, &json, first_line(), Some(9), "unknown event `pre_tol` (did you mean `pre_tool`?)");
}

#[test]
fn a_tab_in_the_yaml_denies_pre_tool_and_says_tab() {
    let env = workspace_with("  - on: pre_tool\n\tkind: effect\n    effect: {kind: block_tool, reason: no}\n");
    let (out, json) = run_pre_tool(&env);
    assert_config_deny(&out, &json, first_line() + 1, None, "indented with a tab");
}

#[test]
fn a_misspelt_effect_field_on_pre_tool_denies_pre_tool_only() {
    let env = workspace_with("  - on: pre_tool\n    kind: effect\n    effect: {kind: block_tool, reasn: no}\n");
    let (out, json) = run_pre_tool(&env);
    assert_config_deny(&out, &json, first_line() + 2, Some(32), "unknown field `reasn` in effect `block_tool`");
    // The text trace says the same.
    let text = env.hook(&["run", "pre_tool", "--tool", "Bash", "--input", r#"{"command":"ls"}"#]);
    assert_eq!(text.code, 2);
    assert!(text.stdout.contains("verdict  deny\nreason   the hook configuration has errors:"), "{}", text.stdout);
    assert!(text.stderr.contains("and pre_tool deny until they are fixed"), "{}", text.stderr);
    // turn_start is another gate, and open.
    let out = env.hook(&["run", "turn_start", "--json"]);
    assert_eq!((out.code, out.json()["verdict"].as_str()), (0, Some("pass")), "{out:#?}");
}

#[test]
fn the_claude_bridge_denies_a_pre_tool_use_with_the_configuration_error() {
    let env = workspace_with("  - on: pre_tool\n    kind: effect\n    effect: {kind: block_tool, reasn: no}\n");
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": env.ws.display().to_string(),
        "transcript_path": "/tmp/t.jsonl", "permission_mode": "default", "tool_name": "Bash",
        "tool_input": {"command": "git push --force"}, "tool_use_id": "t1"});
    let mut command = env.command_without_workspace(&["bridge", "--protocol", "claude"]);
    command.env("CLAUDE_PROJECT_DIR", &env.ws).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = env.redact(&String::from_utf8_lossy(&output.stdout));
    let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {output:?}"));
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PreToolUse", "{answer:#}");
    assert_eq!(specific["permissionDecision"], "deny", "{answer:#}");
    let reason = specific["permissionDecisionReason"].as_str().unwrap();
    let at = format!("[WS]/.hooks/hooks.yaml:{}:32: ", first_line() + 2);
    assert!(reason.starts_with(&format!("the hook configuration has errors: {at}")), "{reason}");
    assert!(reason.ends_with(" (run hook validate)"), "{reason}");
}

#[test]
fn a_script_without_its_run_bit_is_an_error_in_validate_with_chmod_and_denies_its_gate() {
    let env = Env::new("gates");
    let script = env.ws.join("scripts/decide.sh");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let out = env.hook(&["validate"]);
    assert_eq!(out.code, 1, "{out:#?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            ".hooks/hooks.yaml:9:12: error: hooks[0].argv[0]: the program `./scripts/decide.sh` \
             ([WS]/scripts/decide.sh) is not executable (it has no run bit): run `chmod +x [WS]/scripts/decide.sh`",
            "fails closed: pre_tool deny until the errors above are fixed",
            "2 hooks in 1 file: 1 error, 0 warnings",
        ],
        "{out:#?}"
    );
    let (out, json) = run_pre_tool(&env);
    assert_config_deny(&out, &json, 9, Some(12), "run `chmod +x [WS]/scripts/decide.sh`");
    // Fixed as it says, the gate opens again (the script waits for trust, like any project command).
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    assert_eq!(env.hook(&["validate"]).code, 0);
    let (out, json) = run_pre_tool(&env);
    assert_eq!((out.code, json["verdict"].as_str()), (0, Some("pass")), "{out:#?}");
}

#[test]
fn a_clio_coder_file_its_validator_accepts_validates_with_warnings_only() {
    let env = Env::new("tests/fixtures/config/clio-accepted");
    let out = env.hook(&["validate"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.ends_with("4 hooks in 1 file: 0 errors, 7 warnings\n"), "{}", out.stdout);
    assert!(out.stdout.contains(".clio-coder/hooks.yaml:10:12: warning: hooks[0].tools: "), "{}", out.stdout);
    assert!(out.stdout.contains(".clio-coder/hooks.yaml:18:13: warning: hooks[1].effect: "), "{}", out.stdout);
    assert!(!out.stdout.contains("fails closed"), "{}", out.stdout);
}

#[test]
fn validate_json_lists_the_closed_gates() {
    let env = workspace_with("  - on: pre_tol\n    kind: prompt\n    message: x\n");
    let out = env.hook(&["validate", "--json"]);
    assert_eq!(out.code, 1, "{out:#?}");
    let json = out.json();
    let closed = json["closed_gates"].as_array().unwrap();
    assert_eq!(closed.len(), 1, "{json:#}");
    assert_eq!(closed[0]["events"], json!(["turn_start", "pre_tool", "permission_request"]));
    assert_eq!(closed[0]["issue"]["line"], first_line());
    // And a clean workspace has none.
    let out = Env::new("gates").hook(&["validate", "--json"]);
    assert!(out.json().get("closed_gates").is_none(), "{}", out.stdout);
}

#[test]
fn every_agents_bridge_denies_its_gate_with_the_configuration_errors_file_and_line() {
    let env = workspace_with("  - on: pre_tool\n    kind: effect\n    effect: {kind: block_tool, reasn: no}\n");
    let ws = env.ws.display().to_string();
    let cases = [
        (
            "claude",
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": ws, "tool_name": "Bash",
                          "tool_input": {"command": "ls"}}),
        ),
        (
            "codex",
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "turn_id": "t", "cwd": ws,
                         "tool_name": "Bash", "tool_use_id": "c", "tool_input": {"command": "ls"}}),
        ),
        (
            "gemini",
            json!({"hook_event_name": "BeforeTool", "session_id": "s", "cwd": ws,
                          "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
        ),
        (
            "cursor",
            json!({"hook_event_name": "beforeShellExecution", "conversation_id": "s", "generation_id": "g",
                          "command": "ls", "cwd": ws, "workspace_roots": [ws]}),
        ),
    ];
    let at = format!("[WS]/.hooks/hooks.yaml:{}:", first_line() + 2);
    for (agent, input) in cases {
        let out = env.bridge(agent, &input);
        assert!(out.denies(agent), "{agent}: {out:#?}");
        let text = format!("{}{}", out.stdout, out.stderr);
        assert!(text.contains("the hook configuration has errors") && text.contains(&at), "{agent}: {out:#?}");
    }
}
