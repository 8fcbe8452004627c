//! Qwen Code (`-p`) and Factory Droid (`exec`) print no `systemMessage` in a headless run: the bridge's notices (a
//! guard that did not run) also reach their model, marked as for the user, where their model reads a hook's
//! context, and with a deny's reason on PreToolUse. Claude Code, which shows `systemMessage`, keeps them there only.

use serde_json::json;

use crate::common::Env;

/// An untrusted guard on shell calls, and a trusted one that denies `rm` on every tool call.
fn workspace() -> Env {
    let env = Env::new("empty");
    env.write("deny.sh", "#!/bin/sh\necho no >&2\nexit 2\n");
    std::fs::set_permissions(env.ws.join("deny.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    env.write(
        ".hooks/hooks.yaml",
        "- {id: guard, on: pre_tool, tools: [shell], kind: command, shell: ./deny.sh}\n\
         - {id: stop-writes, on: pre_tool, tools: [write], kind: effect, effect: {kind: block_tool, reason: no writes}}\n",
    );
    env
}

const NOTICE: &str = "did not run: `guard` (not trusted in this workspace)";
const MARK: &str = "[hook notice for the user] ";

fn session_start(session: &str) -> serde_json::Value {
    json!({"session_id": session, "hook_event_name": "SessionStart", "source": "startup", "cwd": "."})
}

#[test]
fn session_start_notices_reach_the_model_of_qwen_code_and_factory_droid() {
    let env = workspace();
    for agent in ["qwen", "droid"] {
        let out = env.bridge(agent, &session_start(&format!("{agent}-1")));
        assert_eq!(out.code, 0, "{out:#?}");
        let answer = out.json();
        let context = answer["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or_default();
        assert!(context.starts_with(MARK) && context.contains(NOTICE), "{agent}: {answer:#}");
        assert!(answer["systemMessage"].as_str().unwrap().contains(NOTICE), "still the user's too: {answer:#}");
    }
    let claude = env.bridge("claude", &session_start("claude-1")).json();
    assert!(claude["systemMessage"].as_str().unwrap().contains(NOTICE), "{claude:#}");
    assert!(claude.get("hookSpecificOutput").is_none(), "Claude Code shows systemMessage: {claude:#}");
}

#[test]
fn a_pre_tool_deny_carries_the_notice_to_the_model() {
    let env = workspace();
    for (agent, write) in [("qwen", "write_file"), ("droid", "Create")] {
        // The guard is met first on a shell call (the notice is given once a session), then a write is denied.
        let input = json!({"session_id": format!("{agent}-2"), "hook_event_name": "PreToolUse", "tool_name": write,
                           "tool_input": {"file_path": "x"}, "cwd": "."});
        let deny = env.bridge(agent, &input).json();
        assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny", "{deny:#}");
        let shell = if agent == "qwen" { "run_shell_command" } else { "Execute" };
        let input = json!({"session_id": format!("{agent}-3"), "hook_event_name": "PreToolUse", "tool_name": shell,
                           "tool_input": {"command": "ls"}, "cwd": "."});
        let told = env.bridge(agent, &input).json();
        // The guard is untrusted, so the shell call passes: the notice rides in systemMessage only (neither agent
        // reads a PreToolUse answer's context).
        assert!(told["systemMessage"].as_str().unwrap().contains("`guard` (not trusted"), "{told:#}");
        assert!(told.get("hookSpecificOutput").is_none(), "{told:#}");
    }
    // A deny and a notice in the same answer: the model reads both in the deny's reason.
    env.write(
        ".hooks/hooks.yaml",
        "- {id: guard, on: pre_tool, tools: [shell], kind: command, shell: ./deny.sh}\n\
         - {id: stop-shell, on: pre_tool, tools: [shell], kind: effect, effect: {kind: block_tool, reason: no shell}}\n",
    );
    for (agent, shell) in [("qwen", "run_shell_command"), ("droid", "Execute")] {
        let input = json!({"session_id": format!("{agent}-4"), "hook_event_name": "PreToolUse", "tool_name": shell,
                           "tool_input": {"command": "ls"}, "cwd": "."});
        let answer = env.bridge(agent, &input).json();
        let reason = answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
        assert!(reason.starts_with("no shell\n\n[hook notice for the user] 1 hook matched"), "{agent}: {answer:#}");
        assert!(reason.contains(NOTICE), "{answer:#}");
    }
}

#[test]
fn post_tool_and_prompt_notices_go_to_the_model_as_context() {
    let env = workspace();
    env.write(
        ".hooks/hooks.yaml",
        "- {id: guard, on: post_tool, kind: command, shell: ./deny.sh}\n- {id: greeter, on: turn_start, kind: command, shell: ./deny.sh}\n",
    );
    for agent in ["qwen", "droid"] {
        let post = json!({"session_id": format!("{agent}-5"), "hook_event_name": "PostToolUse", "tool_name": "Read",
                          "tool_input": {}, "tool_response": "x", "cwd": "."});
        let answer = env.bridge(agent, &post).json();
        let context = answer["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or_default();
        assert!(context.starts_with(MARK) && context.contains("`guard` (not trusted"), "{agent}: {answer:#}");
        let prompt = json!({"session_id": format!("{agent}-6"), "hook_event_name": "UserPromptSubmit", "prompt": "hi",
                            "cwd": "."});
        let answer = env.bridge(agent, &prompt).json();
        let context = answer["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or_default();
        assert!(context.starts_with(MARK) && context.contains("`greeter` (not trusted"), "{agent}: {answer:#}");
    }
}
