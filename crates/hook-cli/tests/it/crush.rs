//! Crush end to end through the real `hook` binary (docs/agents.md#crush), on the payloads its source defines
//! (`BuildPayload` in internal/hooks/input.go: `{event, session_id, cwd, tool_name, tool_input}`, `tool_input` the
//! model's raw arguments) and the answers it reads (`parseStdout`: its own envelope, or Claude Code's
//! `hookSpecificOutput`): a native `tools: [shell]` gate denies its `bash` tool through `hook bridge --protocol crush`;
//! its own hooks, moved by `hook install` into the native file, keep Crush's meaning (`halt`, `updated_input`'s
//! shallow merge, a matcher searched for in the tool name, Crush's `CRUSH_*` variables); `hook uninstall` gives
//! `crush.json` back byte for byte.

use crate::common;

use common::Env;
use serde_json::{Value, json};

/// Crush's PreToolUse payload.
fn pre_tool(env: &Env, tool: &str, input: Value) -> Value {
    json!({"event": "PreToolUse", "session_id": "313909e", "cwd": env.ws, "tool_name": tool, "tool_input": input})
}

fn trusted(env: &Env) {
    let out = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
}

/// The user's own `crush.json`: a setting of Crush's and three hooks in its envelope.
const CRUSH_JSON: &str = r#"{
  "options": {"debug": false},
  "hooks": {
    "PreToolUse": [
      {"name": "halt-push", "matcher": "^bash$", "command": "grep -q 'git push' && printf '%s' '{\"halt\":true,\"reason\":\"HALT-4410 no pushing\"}'; exit 0", "timeout": 5},
      {"name": "edits", "matcher": "edit", "command": "printf '%s' '{\"decision\":\"deny\",\"reason\":\"EDIT-7 not today\"}'"},
      {"name": "no-haskell", "matcher": "^bash$", "command": "echo \"$CRUSH_TOOL_INPUT_COMMAND\" | grep -qE '(^| )ghc( |$)' && [ \"$AGENT/$CRUSH_TOOL_NAME/$CRUSH_EVENT\" = crush/bash/PreToolUse ] && { echo 'HASKELL-9 no Haskell' >&2; exit 2; }; exit 0"},
      {"name": "bun", "matcher": "^bash$", "command": "grep -q 'npm test' && printf '%s' '{\"updated_input\":{\"command\":\"bun test\"},\"context\":[\"REWRITE-2 bun it is\"]}'; exit 0"}
    ]
  }
}
"#;

#[test]
fn a_native_shell_gate_denies_crushs_bash_tool_in_claude_codes_answer() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: no-rm\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  \
         shell: \"grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\"\n",
    );
    trusted(&env);
    let out = env.bridge("crush", &pre_tool(&env, "bash", json!({"command": "rm -rf /"})));
    assert_eq!(out.code, 0, "{out:#?}");
    let answer = out.json();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
    assert!(answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().contains("no rm -rf here"));
    let out = env.bridge("crush", &pre_tool(&env, "bash", json!({"command": "ls"})));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "a pass says nothing: {out:#?}");
}

#[test]
fn an_ask_is_a_deny_saying_approval_is_required_since_crush_reads_no_ask() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: ask-push\n  on: pre_tool\n  tools: [shell]\n  kind: effect\n  \
         effect: {kind: ask_user, reason: pushing needs a human}\n",
    );
    trusted(&env);
    let answer = env.bridge("crush", &pre_tool(&env, "bash", json!({"command": "git push"}))).json();
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny", "{answer}");
    assert!(specific["permissionDecisionReason"].as_str().unwrap().contains("approval is required"), "{answer}");
}

#[test]
fn an_unreadable_input_blocks_the_call() {
    let env = Env::new("empty");
    let out = env.bridge("crush", &json!({"session_id": "s", "tool_name": "bash"}));
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains("`event`"), "{}", out.stderr);
}

#[test]
fn crushs_own_hooks_keep_their_meaning_through_install_and_uninstall_restores_every_byte() {
    let env = Env::new("empty");
    env.write("crush.json", CRUSH_JSON);
    let out = env.hook(&["install", "--agent", "crush", "--scope", "project", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(env.ws.join("crush.json")).unwrap()).unwrap();
    assert_eq!(written["options"], json!({"debug": false}), "Crush's own settings stay");
    assert!(written.get("version").is_none(), "crush.json takes no version key: {written}");
    let handlers = written["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(handlers.len(), 1, "{written}");
    assert!(handlers[0]["command"].as_str().unwrap().starts_with("sh -c '"), "the embedded shell starts sh");

    let halted = env.bridge("crush", &pre_tool(&env, "bash", json!({"command": "git push -f"}))).json();
    assert_eq!(halted["hookSpecificOutput"]["permissionDecision"], "deny", "{halted}");
    assert!(halted.to_string().contains("HALT-4410"), "{halted}");

    // Crush's own variables reach a moved hook, as its hooks guide's first example reads them.
    let haskell = env.bridge("crush", &pre_tool(&env, "bash", json!({"command": "ghc Main.hs"}))).json();
    assert_eq!(haskell["hookSpecificOutput"]["permissionDecision"], "deny", "{haskell}");
    assert!(haskell.to_string().contains("HASKELL-9"), "{haskell}");

    let edit = env.bridge("crush", &pre_tool(&env, "multiedit", json!({"file_path": "a.go"}))).json();
    assert_eq!(edit["hookSpecificOutput"]["permissionDecision"], "deny", "`edit` is searched for: {edit}");

    let rewritten =
        env.bridge("crush", &pre_tool(&env, "bash", json!({"command": "npm test", "timeout": 60000}))).json();
    let specific = &rewritten["hookSpecificOutput"];
    assert_eq!(specific["updatedInput"], json!({"command": "bun test", "timeout": 60000}), "{rewritten}");
    assert!(specific["additionalContext"].as_str().unwrap().contains("REWRITE-2"), "{rewritten}");

    let out = env.hook(&["uninstall", "--agent", "crush", "--scope", "project"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(std::fs::read_to_string(env.ws.join("crush.json")).unwrap(), CRUSH_JSON);
    assert!(!env.ws.join(".hooks").exists(), "the native file install created is gone");
}
