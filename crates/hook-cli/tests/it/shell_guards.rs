//! The example shell guards (`examples/guards`) through the real `hook`: their own `hook test` cases pass, and every
//! row of hook-shell's table gets the verdict the table lists, in one `hook test` run of the whole table; and a
//! force push refused once and tried again as `git push -f` or inside `bash -c` is refused again through the bridge,
//! in Claude Code's and Codex's own input and answer.

use crate::common::Env;
use hook_types::{Agent, Event};

const TABLE: &str = include_str!("../../../hook-shell/tests/it/table.txt");

#[test]
fn the_example_guards_pass_their_own_cases() {
    let env = Env::new("examples/guards");
    let out = env.hook(&["test", "cases.yaml"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains(" passed, 0 failed"), "{}", out.stdout);
}

#[test]
fn every_row_of_the_table_gets_its_verdict_from_the_example_guards() {
    let rows: Vec<(String, &str)> = TABLE
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|row| {
            let columns: Vec<&str> = row.split('\t').collect();
            assert_eq!(columns.len(), 3, "a table row has a line, its commands and a verdict: {row:?}");
            (columns[0].replace("\\n", "\n"), columns[2])
        })
        .collect();
    assert!(rows.len() >= 200, "{} rows", rows.len());
    let cases: Vec<serde_json::Value> = rows
        .iter()
        .map(|(line, verdict)| {
            serde_json::json!({"name": line, "event": "pre_tool", "tool": "shell", "input": {"command": line},
                               "expect": {"verdict": verdict}})
        })
        .collect();
    let env = Env::new("examples/guards");
    // JSON is YAML: the cases file is written as JSON, so no line needs quoting.
    env.write("table.cases.yaml", &serde_json::json!({"version": 1, "cases": cases}).to_string());
    let out = env.hook(&["--json", "test", "table.cases.yaml"]);
    let json = out.json();
    let failed: Vec<String> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|case| case["passed"] != true)
        .map(|case| format!("{}: got {} ({})", case["name"], case["verdict"], case["reason"]))
        .collect();
    assert!(failed.is_empty(), "{} of {} rows:\n{}", failed.len(), rows.len(), failed.join("\n"));
}

/// The agent's own hook input for a call of its shell tool running `line`.
fn shell_call(agent: &Agent, ws: &std::path::Path, line: &str) -> serde_json::Value {
    let gate = agent.install_events().find(|name| agent.read_event(name).0 == Event::PreTool).unwrap();
    let shell = agent.tool_names("shell").next().unwrap();
    serde_json::json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": ws.display().to_string(),
                       "hook_event_name": gate, "tool_name": shell, "tool_input": {"command": line}})
}

#[test]
fn a_denied_force_push_tried_again_differently_is_denied_again_through_claude_code_and_codex() {
    let env = Env::new("examples/guards");
    for name in ["claude", "codex"] {
        let agent = Agent::parse(name).unwrap();
        for line in ["git push --force origin main", "git push -f", "bash -c 'git push --force'"] {
            let out = env.bridge(name, &shell_call(agent, &env.ws, line));
            assert!(out.denies(name), "{name}: `{line}` is refused in the agent's form: {out:#?}");
        }
        let plain = env.bridge(name, &shell_call(agent, &env.ws, "git push origin main"));
        assert!(!plain.denies(name), "{name}: a plain push goes through: {plain:#?}");
    }
}

/// Cline's `run_commands` takes a list of lines (`commands`), given to hooks as the JSON text of that list: its
/// lines are read like any shell call's, and a shell call whose command cannot be found at all is unknown, which the
/// guard's `on_unknown: deny` refuses, never a call that runs nothing.
#[test]
fn clines_list_of_commands_is_read_and_a_shell_call_without_a_command_is_unknown_not_harmless() {
    let env = Env::new("examples/guards");
    let run_commands = |commands: &[&str]| {
        let list = serde_json::to_string(commands).unwrap();
        serde_json::json!({"taskId": "t-1", "workspaceRoots": [env.ws], "hookName": "tool_call",
                           "preToolUse": {"toolName": "run_commands", "parameters": {"commands": list}}})
    };
    let rm = env.bridge("cline", &run_commands(&["ls", "rm -rf ~"]));
    assert!(rm.denies("cline"), "the second line is a destructive rm: {rm:#?}");
    let ls = env.bridge("cline", &run_commands(&["ls", "git status"]));
    assert!(!ls.denies("cline"), "{ls:#?}");

    let claude = Agent::parse("claude").unwrap();
    let mut call = shell_call(claude, &env.ws, "ls");
    call["tool_input"] = serde_json::json!({"cmd": "rm -rf ~"});
    let out = env.bridge("claude", &call);
    assert!(out.denies("claude"), "no `command` to read: unknown, denied: {out:#?}");
    assert!(out.stdout.contains("no command line this reader knows"), "{out:#?}");
}
