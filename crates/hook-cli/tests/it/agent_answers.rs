//! Claude Code's answers that no effect of the engine carries, through the real `hook bridge`, when it answers for
//! several hooks at once: `defer` on PreToolUse, `updatedToolOutput` on PostToolUse, `retry` on PermissionDenied,
//! the `permissionDecision` of its PreModelSwitch, and its own Stop-loop cap.

use crate::common;

use common::Env;
use serde_json::{Value, json};

/// A workspace whose trusted native file holds `hooks` (id, event, answer), each a command hook of Claude Code's
/// protocol that prints its fixed answer.
fn workspace(hooks: &[(&str, &str, &str)]) -> Env {
    workspace_of("claude", hooks)
}

/// [`workspace`] for the hooks of `protocol`.
fn workspace_of(protocol: &str, hooks: &[(&str, &str, &str)]) -> Env {
    let env = Env::new("empty");
    let mut yaml = String::new();
    for (id, on, answer) in hooks {
        let file = format!(".answers/{id}.json");
        env.write(&file, answer);
        let cat = format!("cat {}", env.ws.join(&file).display());
        yaml.push_str(&format!(
            "- id: {id}\n  on: \"{on}\"\n  protocol: {protocol}\n  kind: command\n  shell: {cat}\n"
        ));
    }
    env.write(".hooks/hooks.yaml", &yaml);
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    env
}

fn bridge(env: &Env, input: Value) -> Value {
    let out = env.bridge("claude", &input);
    assert_eq!(out.code, 0, "{out:#?}");
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:#?}"))
}

fn pre_tool(session: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": session, "cwd": "/", "tool_name": "Bash",
           "tool_input": {"command": "make deploy"}, "tool_use_id": "t1", "permission_mode": "default"})
}

#[test]
fn a_claude_hooks_defer_outranks_another_hooks_allow_and_yields_to_a_deny() {
    let defer = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"a person decides deploys"}}"#;
    let allow = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;
    let env = workspace(&[("defers", "pre_tool", defer), ("allows", "pre_tool", allow)]);
    let answer = bridge(&env, pre_tool("s1"));
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "defer", "{answer:#}");
    assert_eq!(specific["permissionDecisionReason"], "a person decides deploys", "{answer:#}");

    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no deploys today"}}"#;
    let env = workspace(&[("defers", "pre_tool", defer), ("denies", "pre_tool", deny)]);
    let answer = bridge(&env, pre_tool("s2"));
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer:#}");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecisionReason"], "no deploys today", "{answer:#}");
}

#[test]
fn a_claude_hooks_updated_tool_output_reaches_claude_beside_another_hooks_context() {
    let redact = r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"token=[redacted]"}}"#;
    let note =
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"the output was redacted"}}"#;
    let env = workspace(&[("redacts", "post_tool", redact), ("notes", "post_tool", note)]);
    let input = json!({"hook_event_name": "PostToolUse", "session_id": "s", "cwd": "/", "tool_name": "Bash",
                       "tool_input": {"command": "env"}, "tool_response": {"stdout": "token=abc"}, "tool_use_id": "t"});
    let answer = bridge(&env, input);
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PostToolUse", "{answer:#}");
    assert_eq!(specific["updatedToolOutput"], "token=[redacted]", "{answer:#}");
    assert_eq!(specific["additionalContext"], "the output was redacted", "{answer:#}");
}

#[test]
fn an_answer_codex_rejects_is_not_carried_into_the_bridges_answer_beside_another_hooks_block() {
    // Codex fails a PostToolUse hook that answers `updatedMCPToolOutput`; carried, it would fail the bridge's whole
    // answer, the other hook's block with it.
    let rejected = r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"ok":true}}}"#;
    let block = r#"{"decision":"block","reason":"the output holds a secret"}"#;
    let env = workspace_of("codex", &[("rewrites", "post_tool", rejected), ("blocks", "post_tool", block)]);
    let input = json!({"hook_event_name": "PostToolUse", "session_id": "s", "cwd": "/", "tool_name": "Bash",
                       "tool_input": {"command": "env"}, "tool_response": "token=abc", "tool_use_id": "t",
                       "turn_id": "u", "model": "m", "permission_mode": "default", "transcript_path": null});
    let out = env.bridge("codex", &input);
    assert_eq!(out.code, 0, "{out:#?}");
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (answer["decision"].as_str(), answer["reason"].as_str()),
        (Some("block"), Some("the output holds a secret"))
    );
    // Nothing of the failed hook's answer is carried; its failure is a notice.
    assert!(answer.get("hookSpecificOutput").is_none(), "{out:#?}");
    assert!(answer["systemMessage"].as_str().unwrap().contains("hook `rewrites` wrote invalid output"), "{out:#?}");
}

#[test]
fn permission_denied_retries_when_any_claude_hook_asks_and_pre_model_switch_takes_the_strictest_decision() {
    let retry = r#"{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}"#;
    let quiet = r#"{"hookSpecificOutput":{"hookEventName":"PermissionDenied"}}"#;
    let env =
        workspace(&[("retries", "foreign:PermissionDenied", retry), ("quiet", "foreign:PermissionDenied", quiet)]);
    let input = json!({"hook_event_name": "PermissionDenied", "session_id": "s", "cwd": "/", "tool_name": "Bash",
                       "tool_input": {"command": "ls"}, "tool_use_id": "t", "reason": "auto mode refused"});
    let answer = bridge(&env, input);
    assert_eq!(answer["hookSpecificOutput"], json!({"hookEventName": "PermissionDenied", "retry": true}));

    let allow = r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"allow"}}"#;
    let ask = r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"ask","permissionDecisionReason":"the cache is warm"}}"#;
    let env = workspace(&[("allows", "foreign:PreModelSwitch", allow), ("asks", "foreign:PreModelSwitch", ask)]);
    let input = json!({"hook_event_name": "PreModelSwitch", "session_id": "s", "cwd": "/", "model": "opus"});
    let answer = bridge(&env, input);
    let expected = json!({"hookEventName": "PreModelSwitch", "permissionDecision": "ask",
                          "permissionDecisionReason": "the cache is warm"});
    assert_eq!(answer["hookSpecificOutput"], expected, "{answer:#}");
}

#[test]
fn the_bridge_refuses_continuations_at_claude_codes_own_stop_cap_where_it_is_lower() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: keep-going\n  on: turn_end\n  kind: effect\n  effect: {kind: request_continuation, message: KEEP-GOING}\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let mut continued = 0;
    for call in 0..3 {
        let input = json!({"hook_event_name": "Stop", "session_id": "capped", "cwd": "/",
                           "stop_hook_active": call > 0, "transcript_path": null});
        let mut command = env.command(&["bridge", "--protocol", "claude"]);
        command.env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "1");
        let out = env.finish_within(command, input.to_string().as_bytes(), std::time::Duration::from_secs(30));
        assert_eq!(out.code, 0, "{out:#?}");
        if out.stdout.contains("\"decision\":\"block\"") {
            continued += 1;
        } else {
            assert!(out.stdout.contains("continuations in a row"), "{out:#?}");
        }
    }
    // Claude Code ends the turn itself after one block in a row here; the bridge asks for no more than that.
    assert_eq!(continued, 1);
}

#[test]
fn a_claude_handler_with_on_failure_block_denies_when_it_fails_as_claude_code_blocks() {
    let env = Env::new("empty");
    let handler = |policy: Option<&str>| {
        let mut handler = json!({"type": "command", "command": "exit 1"});
        if let Some(policy) = policy {
            handler["onFailure"] = policy.into();
        }
        handler
    };
    let run = |policy: Option<&str>| {
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler(policy)]}]}});
        env.write(".claude/settings.json", &settings.to_string());
        let input = json!({"command": "ls"}).to_string();
        let args = ["run", "PreToolUse", "--tool", "Bash", "--input", &input, "--json", "--no-receipts"];
        let out = env.hook(&[&args[..], &["--trust-workspace"]].concat());
        (out.code, out.json()["verdict"].as_str().unwrap_or_default().to_owned(), out)
    };
    // Claude Code's default: the failure is reported and the call goes ahead.
    let (code, verdict, out) = run(None);
    assert_eq!((code, verdict.as_str()), (0, "pass"), "{out:#?}");
    let (code, verdict, out) = run(Some("continue"));
    assert_eq!((code, verdict.as_str()), (0, "pass"), "{out:#?}");
    // `onFailure: "block"`: the failure counts as exit 2, a deny.
    let (code, verdict, out) = run(Some("block"));
    assert_eq!((code, verdict.as_str()), (2, "deny"), "{out:#?}");
    // A value Claude Code's schema rejects drops the hook and closes its gate: the call is denied, not let through.
    let (code, verdict, out) = run(Some("sometimes"));
    assert_eq!((code, verdict.as_str()), (2, "deny"), "{out:#?}");
    let validate = env.hook(&["validate"]);
    assert!(validate.stdout.contains("onFailure") || validate.stderr.contains("onFailure"), "{validate:#?}");
}
