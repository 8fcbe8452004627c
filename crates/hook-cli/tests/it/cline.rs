//! Cline end to end through the real `hook` binary (docs/agents.md#cline): its hook input is the payload its
//! `hook-file-hooks.ts` builds (Cline 3.0.65, `@cline/core` 0.0.86), fed to `hook bridge --protocol cline` and to the
//! bridge scripts `hook install` writes, run as Cline runs a hook file (`sh <file>`, the input on stdin).
//!
//! A native `tools: [shell]` gate denies Cline's shell tool `run_commands`, and the extension's `execute_command`;
//! `tools: [write, edit]` meets the extension's `write_to_file` and `replace_in_file`; a tool no table knows is
//! announced once per session while a `tools:` gate is loaded; install moves Cline's own hook files aside and its
//! migrated guard still denies through the bridge script; a skipped guard is announced; import keeps every hook's
//! hash; uninstall gives the directory back byte for byte and mode for mode.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::Env;
use serde_json::{Value, json};

/// Cline's PreToolUse input for `run_commands` running `command` (`createPayloadBase` plus `tool_call` and
/// `preToolUse`, whose parameters `mapParams` turns into strings).
fn shell(env: &Env, command: &str) -> Value {
    json!({"clineVersion": "3.0.65", "timestamp": "2026-11-30T00:00:00.000Z", "taskId": "task-1",
           "sessionContext": {"rootSessionId": "task-1"}, "workspaceRoots": [env.ws], "userId": "dev",
           "agent_id": "agent-1", "parent_agent_id": null, "hookName": "tool_call", "iteration": 1,
           "tool_call": {"id": "call-1", "name": "run_commands", "input": {"commands": [command]}},
           "preToolUse": {"toolName": "run_commands", "parameters": {"commands": format!("[{command:?}]")}}})
}

/// Cline's PostToolUse input after `run_commands` ran.
fn after_shell(env: &Env) -> Value {
    json!({"clineVersion": "3.0.65", "timestamp": "2026-11-30T00:00:01.000Z", "taskId": "task-1",
           "workspaceRoots": [env.ws], "userId": "dev", "agent_id": "agent-1", "parent_agent_id": null,
           "hookName": "tool_result", "iteration": 1,
           "tool_result": {"id": "call-1", "name": "run_commands", "input": {"commands": ["ls"]}, "output": "a b",
                           "durationMs": 3, "startedAt": "2026-11-30T00:00:00.000Z",
                           "endedAt": "2026-11-30T00:00:00.003Z"},
           "postToolUse": {"toolName": "run_commands", "parameters": {"commands": "[\"ls\"]"}, "result": "a b",
                           "success": true, "executionTimeMs": 3}})
}

/// The input of Cline's VS Code extension (its hook reference; `completeParams` and `ToolHookUtils` of the
/// extension through 3.89.2): `hookName` is the file name, and the call is `preToolUse` alone, every parameter a
/// string.
fn extension_call(env: &Env, task: &str, tool: &str, parameters: Value) -> Value {
    json!({"clineVersion": "3.89.2", "hookName": "PreToolUse", "timestamp": "1764460800000", "taskId": task,
           "workspaceRoots": [env.ws], "userId": "dev", "model": {"provider": "openrouter", "slug": "m"},
           "preToolUse": {"toolName": tool, "parameters": parameters}})
}

const SHELL_GATE: &str = "\
- id: no-rm
  on: pre_tool
  tools: [shell]
  kind: command
  shell: \"grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\"
";

/// Every file and directory under `root` (`.git` aside) with its mode and bytes.
fn tree(root: &Path) -> Vec<(String, u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            let bytes = if meta.is_file() { std::fs::read(&path).unwrap() } else { Vec::new() };
            out.push((name, meta.permissions().mode(), bytes));
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_native_shell_gate_denies_clines_run_commands_through_the_bridge() {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", SHELL_GATE);
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = env.bridge("cline", &shell(&env, "rm -rf /"));
    assert!(out.denies("cline"), "{out:#?}");
    assert_eq!(out.json()["errorMessage"], "no rm -rf here", "{out:#?}");
    let out = env.bridge("cline", &shell(&env, "ls"));
    assert!(!out.denies("cline"), "{out:#?}");
}

#[test]
fn clines_migrated_guard_still_denies_and_uninstall_gives_the_directory_back_byte_for_byte() {
    let env = Env::new("tests/fixtures/cline/project");
    // Git keeps the run bit; the copy keeps what the checkout has. Set it as Cline's users would.
    std::fs::set_permissions(env.ws.join(".cline/hooks/PreToolUse.sh"), std::fs::Permissions::from_mode(0o755))
        .unwrap();
    let before = tree(&env.ws);
    let out = env.hook(&["install", "--agent", "cline", "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    let moved: Vec<&str> = report["moved"].as_array().unwrap().iter().map(|m| m["event"].as_str().unwrap()).collect();
    assert_eq!(moved, ["PostToolUse", "PreToolUse", "TaskError", "TaskStart"], "{report:#}");
    assert_eq!(report["kept"].as_array().unwrap().len(), 1, "the .clinerules hook stays with Cline: {report:#}");
    let script = std::fs::read_to_string(env.ws.join(".cline/hooks/PreToolUse")).unwrap();
    assert!(script.contains(" hook bridge --protocol cline <&3 3<&- & hook_bridge_pid=$!;"), "{script}");
    let mode = std::fs::metadata(env.ws.join(".cline/hooks/PreToolUse")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    assert!(env.ws.join(".cline/hooks/moved-by-hook/PreToolUse.sh").is_file());
    assert!(!env.ws.join(".cline/hooks/PreToolUse.sh").exists(), "Cline no longer runs it itself");

    // Cline runs the file with the interpreter of its shebang: `sh <file>`, the input on stdin.
    let run = |file: &str, input: Value| env.run_as_agent(&format!("sh {file}"), None, input.to_string().as_bytes());
    let rm = run(".cline/hooks/PreToolUse", shell(&env, "rm -rf /"));
    assert!(rm.denies("cline"), "the migrated guard did not deny: {rm:#?}");
    assert!(rm.stdout.contains("rm -rf is not allowed here (own Cline hook)"), "{rm:#?}");
    let ls = run(".cline/hooks/PreToolUse", shell(&env, "ls -la"));
    assert!(!ls.denies("cline"), "{ls:#?}");
    let post = run(".cline/hooks/PostToolUse", after_shell(&env));
    assert_eq!(post.json()["contextModification"], "tool run_commands ran", "{post:#?}");
    // A second install has nothing to do.
    let again = env.hook(&["install", "--agent", "cline", "--yes"]);
    assert!(again.stdout.contains("nothing to do"), "{again:#?}");

    let out = env.hook(&["uninstall", "--agent", "cline"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(!out.stdout.contains("warning"), "{out:#?}");
    assert_eq!(tree(&env.ws), before, "every file, its bytes and its mode, and no file more");
}

#[test]
fn an_untrusted_guard_is_announced_to_clines_user_through_the_model_or_the_cancel() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: team-guard\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  shell: \"exit 2\"\n",
    );
    let out = env.bridge("cline", &shell(&env, "ls"));
    assert!(!out.denies("cline"), "{out:#?}");
    let context = out.json()["contextModification"].as_str().unwrap_or_default().to_owned();
    assert!(context.starts_with("[hook notice for the user]"), "{out:#?}");
    assert!(context.contains("team-guard") && context.contains("hook trust"), "{out:#?}");
}

#[test]
fn events_cline_runs_detached_get_an_answer_for_the_record_only() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: no-prompts\n  on: turn_start\n  kind: effect\n  effect: {kind: block_turn, reason: closed today}\n",
    );
    let prompt = json!({"taskId": "t", "workspaceRoots": [env.ws], "hookName": "prompt_submit",
                        "userPromptSubmit": {"prompt": "hi", "attachments": []}});
    let out = env.bridge("cline", &prompt);
    assert_eq!(out.json(), json!({"cancel": true, "errorMessage": "closed today"}), "{out:#?}");
}

#[test]
fn import_from_cline_keeps_each_hooks_hash_and_program() {
    let env = Env::new("tests/fixtures/cline/project");
    let before = env.inspect_json();
    let hashes = |inspect: &Value, format: &str| -> Vec<String> {
        let mut out: Vec<String> = inspect["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["source_format"] == format || h["format"] == format)
            .map(|h| format!("{} {}", h["hash"].as_str().unwrap(), h["command"]))
            .collect();
        out.sort();
        out
    };
    let cline = hashes(&before, "cline");
    assert_eq!(cline.len(), 5, "{before:#}");
    let out = env.hook(&["import", "--from", "cline", "--write"]);
    assert_eq!(out.code, 0, "{out:#?}");
    std::fs::remove_dir_all(env.ws.join(".cline")).unwrap();
    std::fs::remove_dir_all(env.ws.join(".clinerules")).unwrap();
    let after = env.inspect_json();
    assert_eq!(hashes(&after, "native"), cline, "{after:#}");
}

const WRITE_GATE: &str = "\
- id: no-generated-edits
  on: pre_tool
  tools: [write, edit]
  kind: command
  shell: \"grep -q 'generated/' && { echo 'generated files are read-only' >&2; exit 2; }; exit 0\"
";

#[test]
fn clines_extension_tool_names_meet_the_shell_and_write_gates_and_get_a_cancel() {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", &format!("{SHELL_GATE}{WRITE_GATE}"));
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let call = |tool: &str, parameters: Value| env.bridge("cline", &extension_call(&env, "ext-1", tool, parameters));

    let rm = call("execute_command", json!({"command": "rm -rf /", "requires_approval": "false"}));
    assert!(rm.denies("cline"), "{rm:#?}");
    assert_eq!(rm.json()["errorMessage"], "no rm -rf here", "{rm:#?}");
    let ls = call("execute_command", json!({"command": "ls -la", "requires_approval": "false"}));
    assert!(!ls.denies("cline"), "{ls:#?}");

    let write = call("write_to_file", json!({"path": "generated/api.ts", "content": "export {}"}));
    assert!(write.denies("cline"), "{write:#?}");
    assert_eq!(write.json()["errorMessage"], "generated files are read-only", "{write:#?}");
    let diff = "------- SEARCH\na\n=======\nb\n+++++++ REPLACE";
    let edit = call("replace_in_file", json!({"absolutePath": "/ws/generated/api.ts", "diff": diff}));
    assert!(edit.denies("cline"), "{edit:#?}");
    let rule = call("new_rule", json!({"path": "generated/.clinerules/x.md", "content": "x"}));
    assert!(rule.denies("cline"), "new_rule writes a file: {rule:#?}");
    // A read of the same file meets neither gate.
    let read = call("read_file", json!({"path": "generated/api.ts"}));
    assert!(!read.denies("cline"), "{read:#?}");
    // Nothing here was a tool the table does not know.
    for out in [&rm, &ls, &write, &edit, &rule, &read] {
        assert!(!out.stdout.contains("does not know"), "{out:#?}");
    }
}

#[test]
fn clines_extension_mcp_call_meets_a_gate_on_its_mcp_tool() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: no-issues\n  on: pre_tool\n  tools: [\"mcp:github:create_issue\"]\n  kind: effect\n  effect: {kind: \
         block_tool, reason: no new issues}\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let mcp = |tool: &str| {
        let parameters = json!({"server_name": "github", "tool_name": tool, "arguments": "{\"title\":\"x\"}"});
        env.bridge("cline", &extension_call(&env, "ext-mcp", "use_mcp_tool", parameters))
    };
    let create = mcp("create_issue");
    assert!(create.denies("cline"), "{create:#?}");
    assert_eq!(create.json()["errorMessage"], "no new issues", "{create:#?}");
    assert!(!mcp("search_issues").denies("cline"));
}

/// What the bridge told Cline's user on a call that went ahead: the `[hook notice for the user]` context.
fn notice(out: &common::Out) -> String {
    assert!(!out.denies("cline"), "{out:#?}");
    if out.stdout.trim().is_empty() {
        return String::new();
    }
    out.json()["contextModification"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn a_tool_no_table_knows_is_announced_once_per_session_while_a_tools_gate_is_loaded() {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", SHELL_GATE);
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let call = |task: &str| env.bridge("cline", &extension_call(&env, task, "run_terminal_cmd", json!({"cmd": "ls"})));

    let first = notice(&call("task-a"));
    assert!(first.starts_with("[hook notice for the user]"), "{first}");
    for needle in ["Cline called the tool `run_terminal_cmd`", "`no-rm`: shell", "add `run_terminal_cmd`", "report it"]
    {
        assert!(first.contains(needle), "no {needle:?} in {first}");
    }
    // Once per session: the same task's next call is quiet; another task is told again.
    assert_eq!(notice(&call("task-a")), "");
    assert!(notice(&call("task-b")).contains("`run_terminal_cmd`"));
    // The CLI's input names its tool in `tool_call`: the same rule, the same session set.
    let mut cli = shell(&env, "ls");
    cli["taskId"] = json!("task-c");
    cli["tool_call"]["name"] = json!("run_terminal_cmd");
    cli["preToolUse"]["toolName"] = json!("run_terminal_cmd");
    assert!(notice(&env.bridge("cline", &cli)).contains("`run_terminal_cmd`"));

    // A gate that lists the raw name knows it: nothing to tell, and it meets the call.
    env.write(
        ".hooks/hooks.yaml",
        &format!("{SHELL_GATE}- id: no-terminal\n  on: pre_tool\n  tools: [run_terminal_cmd]\n  kind: effect\n  effect: {{kind: block_tool, reason: use the shell tool}}\n"),
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let named = call("task-d");
    assert!(named.denies("cline") && !named.stdout.contains("does not know"), "{named:#?}");
}

#[test]
fn no_notice_for_an_unknown_tool_when_no_tools_scoped_gate_is_loaded() {
    let env = Env::new("empty");
    // A pre_tool hook without `tools:`, and a `tools:` hook on post_tool only (an observer).
    env.write(
        ".hooks/hooks.yaml",
        "- id: log-calls\n  on: pre_tool\n  kind: command\n  shell: \"exit 0\"\n\
         - id: after-shell\n  on: post_tool\n  tools: [shell]\n  kind: command\n  shell: \"exit 0\"\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = env.bridge("cline", &extension_call(&env, "task-q", "run_terminal_cmd", json!({"cmd": "ls"})));
    assert_eq!(notice(&out), "", "{out:#?}");
    assert!(out.stderr.is_empty() || !out.stderr.contains("does not know"), "{out:#?}");
}
