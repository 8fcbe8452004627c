//! Auggie end to end through the real `hook` binary (docs/agents.md#auggie), on the payloads its 0.36.0 bundle
//! (`augment.mjs` of `@augmentcode/auggie`) builds — `B7n` for the tool events (`{hook_event_name, conversation_id,
//! workspace_roots, tool_name, tool_input, tool_output, tool_error, is_mcp_tool}`), `k7n` for PromptSubmit — written
//! by `C7n` as JSON indented by two spaces with no newline after it, and the answers its executor reads (`wao`,
//! `zIt`, `_7n`): a native `tools: [shell]` gate denies its `launch-process` tool in `hookSpecificOutput`; a
//! post_tool note rides in PostToolUse's `hookSpecificOutput`; an untrusted guard is announced in `systemMessage`;
//! a user's own hook, moved by `hook install` out of `.augment/settings.json`, still blocks through the installed
//! handler, and `hook uninstall` gives the file back byte for byte. Auggie itself does not run here: it needs a
//! signed-in Augment account.

use crate::common;

use common::Env;
use serde_json::{Value, json};

/// Auggie's PreToolUse payload for `tool` (`B7n`: no `tool_output` before the call, `tool_error` null).
fn pre_tool(env: &Env, tool: &str, input: Value) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "conversation_id": "4f1c2a9e-auggie",
        "workspace_roots": [env.ws],
        "tool_name": tool,
        "tool_input": input,
        "tool_error": null,
        "is_mcp_tool": false
    })
}

/// `launch-process`'s input as its schema has it (`command`, `wait`, `max_wait_seconds`, `cwd`).
fn launch(env: &Env, command: &str) -> Value {
    json!({"command": command, "wait": true, "max_wait_seconds": 60, "cwd": env.ws})
}

fn trusted(env: &Env) {
    let out = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
}

#[test]
fn a_native_shell_gate_denies_auggies_launch_process_and_a_pass_says_nothing() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: no-rm\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  \
         shell: \"grep -q 'rm -rf' && { echo 'RM-1 no rm -rf here' >&2; exit 2; }; exit 0\"\n",
    );
    trusted(&env);
    let out = env.bridge("auggie", &pre_tool(&env, "launch-process", launch(&env, "rm -rf /")));
    assert_eq!(out.code, 0, "{out:#?}");
    let answer = out.json();
    let specific = &answer["hookSpecificOutput"];
    // `zIt` reads the PreToolUse answer only under this name; `_7n` hands a deny's reason to the model.
    assert_eq!(specific["hookEventName"], "PreToolUse", "{answer}");
    assert_eq!(specific["permissionDecision"], "deny", "{answer}");
    assert!(specific["permissionDecisionReason"].as_str().unwrap().contains("RM-1"), "{answer}");
    // Its second tool set's shell tool is the same gate's.
    let bash = env.bridge("auggie", &pre_tool(&env, "bash", json!({"command": "rm -rf /tmp/x"}))).json();
    assert_eq!(bash["hookSpecificOutput"]["permissionDecision"], "deny", "{bash}");
    let pass = env.bridge("auggie", &pre_tool(&env, "launch-process", launch(&env, "ls")));
    assert_eq!((pass.code, pass.stdout.as_str(), pass.stderr.as_str()), (0, "", ""), "{pass:#?}");
}

#[test]
fn a_post_tool_note_rides_in_post_tool_uses_own_answer() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: note\n  on: post_tool\n  tools: [shell]\n  kind: effect\n  \
         effect: {kind: annotate_tool_result, message: NOTE-3 ran in CI}\n",
    );
    trusted(&env);
    let mut input = pre_tool(&env, "launch-process", launch(&env, "make"));
    input["hook_event_name"] = "PostToolUse".into();
    input["tool_output"] = "Here are the results from executing the command.\n<return-code>0</return-code>".into();
    let out = env.bridge("auggie", &input);
    assert_eq!(out.code, 0, "{out:#?}");
    let answer = out.json();
    // `runPostToolUseHook` appends the agent messages to the tool result; `zIt` reads PostToolUse's block and
    // context only inside `hookSpecificOutput`, so nothing is at the top level.
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PostToolUse", "{answer}");
    assert!(specific.to_string().contains("NOTE-3 ran in CI"), "{answer}");
    assert!(answer.get("decision").is_none(), "{answer}");
}

#[test]
fn an_untrusted_guard_is_announced_to_auggies_user() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: team-guard\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  shell: \"exit 2\"\n",
    );
    let out = env.bridge("auggie", &pre_tool(&env, "launch-process", launch(&env, "ls")));
    assert_eq!(out.code, 0, "{out:#?}");
    let answer = out.json();
    assert!(answer.get("hookSpecificOutput").is_none(), "the skipped guard decides nothing: {answer}");
    // `Gao` shows `systemMessage` to the user.
    let notice = answer["systemMessage"].as_str().unwrap();
    assert!(notice.contains("team-guard") && notice.contains("hook trust"), "{answer}");
}

#[test]
fn a_prompt_deny_auggie_drops_is_said_not_passed_in_silence() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: no-secrets\n  on: turn_start\n  kind: effect\n  effect: {kind: block_turn, reason: SECRET-5 no keys}\n",
    );
    trusted(&env);
    // `k7n`; `firePromptSubmitHook` does not wait for the answer.
    let input = json!({"hook_event_name": "PromptSubmit", "conversation_id": "c1", "workspace_roots": [env.ws],
                       "user_prompt": "my key is x"});
    let out = env.bridge("auggie", &input);
    assert_eq!(out.code, 0, "{out:#?}");
    let answer = out.json();
    // A `hookSpecificOutput` named PromptSubmit would fail Auggie's answer schema and void the message too.
    assert!(answer.get("hookSpecificOutput").is_none(), "{answer}");
    let notice = answer["systemMessage"].as_str().unwrap();
    assert!(
        notice.contains("does not read a hook's answer on PromptSubmit") && notice.contains("SECRET-5"),
        "{answer}"
    );
}

/// The user's own `.augment/settings.json`: a setting of Auggie's and a hook of theirs in its shape (a timeout in
/// milliseconds, a matcher searched for in the tool name).
const SETTINGS: &str = r#"{
  "model": "sonnet4.5",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "process",
        "hooks": [
          {"type": "command", "command": "grep -q ghc && [ \"$AUGMENT_TOOL_NAME\" = launch-process ] && { echo 'HASKELL-9 no Haskell' >&2; exit 2; }; exit 0", "timeout": 5000}
        ]
      }
    ]
  }
}
"#;

#[test]
fn auggies_own_hook_is_moved_still_blocks_and_uninstall_restores_every_byte() {
    let env = Env::new("empty");
    env.write(".augment/settings.json", SETTINGS);
    let out = env.hook(&["install", "--agent", "auggie", "--scope", "project", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(env.ws.join(".augment/settings.json")).unwrap()).unwrap();
    assert_eq!(written["model"], "sonnet4.5", "Auggie's own settings stay");
    let gate = &written["hooks"]["PreToolUse"][0]["hooks"][0];
    let command = gate["command"].as_str().unwrap();
    assert!(command.contains("hook bridge --protocol auggie"), "{gate}");
    // The fail-closed wrapper has shell syntax, which makes Auggie run it with `bash -c` (`dao`).
    assert!(command.contains("hook bridge failed"), "{gate}");
    // Auggie's timeouts are milliseconds: above the wrapper's own 64 s, so the wrapper answers first.
    assert!(gate["timeout"].as_u64().unwrap() > 64_000, "{gate}");
    assert_eq!(written["hooks"]["PreToolUse"].as_array().unwrap().len(), 1, "the user's hook moved: {written}");

    // Through the installed handler, as Auggie runs it: its input indented, no newline after it, its variables set.
    let input = serde_json::to_string_pretty(&pre_tool(&env, "launch-process", launch(&env, "ghc Main.hs"))).unwrap();
    let env_command = format!("AUGMENT_TOOL_NAME=launch-process AUGMENT_HOOK_EVENT=PreToolUse {command}");
    let out = env.run_as_agent(&env_command, Some("AUGMENT_PROJECT_DIR"), input.as_bytes());
    // Exit 2 blocks Auggie's PreToolUse with stderr for the model (`wao`, `_7n`).
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains("HASKELL-9"), "{out:#?}");
    let input = serde_json::to_string_pretty(&pre_tool(&env, "launch-process", launch(&env, "ls"))).unwrap();
    let out = env.run_as_agent(&env_command, Some("AUGMENT_PROJECT_DIR"), input.as_bytes());
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:#?}");

    let out = env.hook(&["uninstall", "--agent", "auggie", "--scope", "project"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(std::fs::read_to_string(env.ws.join(".augment/settings.json")).unwrap(), SETTINGS);
    assert!(!env.ws.join(".hooks").exists(), "the native file install created is gone");
}
