//! Claude Code's `if` conditions end to end, with the real `hook` binary: an `if`-scoped deny guard in a user's
//! `.claude/settings.json` decides the same calls before `hook install` (run by another agent's bridge, which runs
//! Claude Code's hooks) and after it (moved into the native file, run by the bridge install wrote, as Claude Code
//! runs it); a native `if`; handlers that cannot run here close their gate instead of vanishing.

use crate::common;

use common::{Env, Out};
use serde_json::{Value, json};

/// The user's Claude Code settings: two `if`-scoped deny guards, a plain observer, and an `mcp_tool` guard.
const SETTINGS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'pushes are reviewed first' >&2; exit 2", "if": "Bash(git push *)"}
      ]},
      {"matcher": "Edit|Write", "hooks": [
        {"type": "command", "command": "echo 'secrets are read-only' >&2; exit 2", "if": "Edit(/secrets/**)"}
      ]},
      {"matcher": "WebFetch", "hooks": [
        {"type": "mcp_tool", "server": "audit", "tool": "check_url"}
      ]}
    ]
  }
}"#;

/// The calls each guard is tried with, and whether it denies them.
fn calls() -> Vec<(Value, bool)> {
    let bash = |command: &str| json!({"tool_name": "Bash", "tool_input": {"command": command}});
    let edit = |path: &str| json!({"tool_name": "Edit", "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"}});
    vec![
        (bash("git push origin main"), true),
        (bash("git push"), true),
        (bash("npm test && git push --force"), true),
        (bash("FOO=1 git push"), true),
        (bash("git status"), false),
        (bash("git pull --rebase"), false),
        (bash("echo 'git push'"), false),
        (edit("secrets/token"), true),
        (edit("src/main.rs"), false),
    ]
}

/// A PreToolUse input of `agent`'s shape for the workspace.
fn pre_tool(env: &Env, call: &Value) -> Value {
    let mut input = json!({"hook_event_name": "PreToolUse", "session_id": "s-1", "transcript_path": "/tmp/t.jsonl",
        "cwd": env.ws.display().to_string()});
    input.as_object_mut().unwrap().extend(call.as_object().unwrap().clone());
    input
}

fn decisions(env: &Env, run: impl Fn(&Value) -> Out, agent: &str) -> Vec<bool> {
    calls().iter().map(|(call, _)| run(&pre_tool(env, call)).denies(agent)).collect()
}

#[test]
fn a_migrated_if_guard_denies_exactly_what_it_denied_before() {
    let env = Env::new("empty");
    env.write(".claude/settings.json", SETTINGS);
    let expected: Vec<bool> = calls().iter().map(|(_, denies)| *denies).collect();

    // Before: the hooks are loaded (none dropped) and run by another agent's bridge, which runs Claude Code's files.
    let validate = env.hook(&["validate"]);
    assert!(!validate.stdout.contains("cannot be tested"), "{validate:#?}");
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let before = decisions(&env, |input| env.bridge("codex", input), "codex");
    assert_eq!(before, expected);

    // `hook install` moves the `if` guards into the native file, keeping their conditions, and keeps the
    // `mcp_tool` handler with Claude Code, which runs it.
    let out = env.hook(&["install", "--agent", "claude", "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    assert_eq!(report["moved"].as_array().unwrap().len(), 2, "{report:#}");
    let kept = report["kept"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{report:#}");
    assert!(kept[0]["reason"].as_str().unwrap().contains("`mcp_tool`"), "{report:#}");
    let native = std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap();
    assert!(native.contains("if: Bash(git push *)") && native.contains("if: Edit(/secrets/**)"), "{native}");

    // After: the bridge install wrote, run the way Claude Code runs a hook, denies the same calls.
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(env.ws.join(".claude/settings.json")).unwrap()).unwrap();
    let bridge = settings["hooks"]["PreToolUse"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|group| group["hooks"].as_array().unwrap())
        .find_map(|h| h["command"].as_str().filter(|c| c.contains("bridge --protocol claude")))
        .expect("the bridge on PreToolUse")
        .to_owned();
    let after = decisions(
        &env,
        |input| env.run_as_agent(&bridge, Some("CLAUDE_PROJECT_DIR"), input.to_string().as_bytes()),
        "claude",
    );
    assert_eq!(after, expected);
    // The deny carries the guard's own words.
    let push =
        env.run_as_agent(&bridge, Some("CLAUDE_PROJECT_DIR"), pre_tool(&env, &calls()[0].0).to_string().as_bytes());
    assert!(format!("{}{}", push.stdout, push.stderr).contains("pushes are reviewed first"), "{push:#?}");
}

#[test]
fn a_native_if_filters_and_inspect_and_validate_show_it() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- {id: no-force-push, on: pre_tool, if: \"shell(git push *)\", kind: effect, \
         effect: {kind: block_tool, reason: no pushes from the agent}}\n",
    );
    let inspect = env.inspect_json();
    assert_eq!(inspect["hooks"][0]["filters"]["if"], "shell(git push *)", "{inspect:#}");
    let text = env.hook(&["inspect"]);
    assert!(text.stdout.contains("if shell(git push *)"), "{text:#?}");
    // The same canonical rule holds for every agent's spelling of the shell tool.
    let push = |tool: &str| json!({"tool_name": tool, "tool_input": {"command": "git push -f"}});
    let gemini = json!({"hook_event_name": "BeforeTool", "session_id": "s", "cwd": env.ws.display().to_string(),
        "tool_name": "run_shell_command", "tool_input": {"command": "git push -f"}});
    assert!(env.bridge("claude", &pre_tool(&env, &push("Bash"))).denies("claude"));
    assert!(env.bridge("gemini", &gemini).denies("gemini"));
    assert!(
        !env.bridge("claude", &pre_tool(&env, &json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})))
            .denies("claude")
    );

    // A rule that cannot be read is an error that names the file, the hook and the field, and closes the gate.
    env.write(
        ".hooks/hooks.yaml",
        "- {on: pre_tool, if: \"Bash(git push *)\", kind: effect, effect: {kind: block_tool, reason: x}}\n",
    );
    let validate = env.hook(&["validate"]);
    assert_ne!(validate.code, 0, "{validate:#?}");
    assert!(
        validate.stdout.contains(
            "hooks.yaml:1:22: error: hooks[0].if: `Bash` is an agent's name for the tool `shell`; a native `if` names \
             canonical tools: write `shell`"
        ),
        "{validate:#?}"
    );
    assert!(
        env.bridge("claude", &pre_tool(&env, &json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})))
            .denies("claude")
    );
}

#[test]
fn mcp_tool_guards_close_their_gate_under_another_agents_bridge() {
    let env = Env::new("empty");
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [
          {"matcher": "Bash", "hooks": [{"type": "mcp_tool", "server": "audit", "tool": "check_command"}]},
          {"matcher": "WebFetch", "hooks": [{"type": "mcp_tool", "server": "audit", "tool": "check_url"}]}
        ], "PostToolUse": [{"hooks": [{"type": "mcp_tool", "server": "audit", "tool": "log"}]}]}}"#,
    );
    let validate = env.hook(&["validate"]);
    assert!(validate.stdout.contains("its gate is closed instead"), "{validate:#?}");
    assert!(validate.stdout.contains("on PostToolUse, not a gate, it is not loaded"), "{validate:#?}");
    // No trust needed: a closed gate only denies. Each denies the calls its handler would have seen, and no other.
    let call = |tool: &str, input: Value| {
        env.bridge("codex", &pre_tool(&env, &json!({"tool_name": tool, "tool_input": input})))
    };
    let shell = call("Bash", json!({"command": "ls"}));
    assert!(shell.denies("codex"), "{shell:#?}");
    assert!(format!("{}{}", shell.stdout, shell.stderr).contains("cannot reach"), "{shell:#?}");
    assert!(call("WebFetch", json!({"url": "https://example.com"})).denies("codex"));
    assert!(!call("Read", json!({"file_path": "README.md"})).denies("codex"));
}

#[test]
fn an_exec_form_handler_runs_its_program_with_its_arguments_and_no_shell() {
    let env = Env::new("empty");
    // Through a shell, `$HOME` would expand and `;` would start a second command; as argv they are one file name.
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
          {"type": "command", "command": "touch", "args": ["$HOME; echo not-run"], "if": "Bash(git *)"}
        ]}]}}"#,
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let call = |command: &str| pre_tool(&env, &json!({"tool_name": "Bash", "tool_input": {"command": command}}));
    let out = env.bridge("codex", &call("ls"));
    assert!(!out.denies("codex") && !env.ws.join("$HOME; echo not-run").exists(), "the if does not match: {out:#?}");
    let out = env.bridge("codex", &call("git status"));
    assert!(!out.denies("codex"), "{out:#?}");
    assert!(env.ws.join("$HOME; echo not-run").exists(), "one argument, taken literally: {out:#?}");

    // `${CLAUDE_PROJECT_DIR}` in a word is the project directory, as Claude Code substitutes it; the rest stays
    // literal.
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
          {"type": "command", "command": "touch", "args": ["${CLAUDE_PROJECT_DIR}/made by $USER's hook"]}
        ]}]}}"#,
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = env.bridge("codex", &call("ls"));
    assert!(env.ws.join("made by $USER's hook").exists(), "{out:#?}");
}

#[test]
fn a_changed_if_makes_a_trusted_hook_modified() {
    let env = Env::new("empty");
    let hook = |rule: &str| {
        format!("- {{id: guard, on: pre_tool, if: \"{rule}\", kind: command, shell: \"echo no >&2; exit 2\"}}\n")
    };
    env.write(".hooks/hooks.yaml", &hook("shell(git push *)"));
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    assert_eq!(env.inspect_json()["hooks"][0]["trust"], "trusted");
    // Narrowing or widening what the guard sees changes what it does: it needs trust again.
    env.write(".hooks/hooks.yaml", &hook("shell"));
    assert_eq!(env.inspect_json()["hooks"][0]["trust"], "modified");
}
