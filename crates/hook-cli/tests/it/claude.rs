//! Claude Code's hooks end to end: a project with `.claude/settings.json` and `.claude/settings.local.json`, a
//! user's `~/.claude/settings.json`, and the hook script suite, through the real `hook` binary, reaching the
//! decisions Claude Code documents.

use crate::claude_support;
use crate::import_support;

use claude_support::{run, statuses, suite_cases, suite_env};
use import_support::run_cases;
use serde_json::json;

#[test]
fn claude_script_suite_reaches_the_decisions_claude_code_documents() {
    let env = suite_env("claude");
    let decisions = run_cases(&env, &suite_cases("claude"));
    assert_eq!(decisions.len(), 28);
    // The user's async notifier and its SessionEnd twin wrote where they meant to: under $HOME, not the workspace.
    let log = std::fs::read_to_string(env.home.join(".claude/log/notifications.log")).unwrap();
    assert_eq!(log, "notification\nsession-end\n");
}

#[test]
fn identical_handlers_run_once_the_users_copy_until_the_workspace_is_trusted() {
    let env = suite_env("claude");
    let rm = json!({"command": "rm -rf /"});
    // Untrusted, the workspace's copies of the guard stay out; the user's copy, the same command, runs, once.
    let (code, json) = run(&env, "PreToolUse", Some("Bash"), &rm, false);
    assert_eq!((code, json["verdict"].as_str()), (2, Some("deny")), "{json:#}");
    assert_eq!(statuses(&json), [("user".into(), "blocked".into()), ("project".into(), "untrusted".into())]);
    // Trusted, the highest-precedence copy (settings.local.json, with its own 5 s timeout) runs instead, once.
    let (code, json) = run(&env, "PreToolUse", Some("Bash"), &rm, true);
    assert_eq!(code, 2);
    assert_eq!(statuses(&json), [("project".into(), "cancelled".into()), ("project.local".into(), "blocked".into())]);
    let guards = json["runs"].as_array().unwrap().iter().filter(|r| r["status"] == "blocked").count();
    assert_eq!(guards, 1);
}

#[test]
fn a_stop_hook_lets_the_agent_stop_once_the_tests_passed() {
    let env = suite_env("claude");
    let (_, json) = run(&env, "Stop", None, &json!({}), true);
    assert_eq!(json["effects"][0]["kind"], "request_continuation", "{json:#}");
    // The marker the script looks for, relative to the hook's working directory: the workspace.
    env.write(".tests-passed", "");
    let (code, json) = run(&env, "Stop", None, &json!({}), true);
    assert_eq!((code, json["effects"].clone()), (0, json!([])), "{json:#}");
    // settings.local.json's `type: "prompt"` Stop hook: `hook run` has no model, so it is skipped (and fails open).
    assert_eq!(statuses(&json), [("project".into(), "completed".into()), ("project.local".into(), "skipped".into())]);
}

#[test]
fn a_deny_through_hook_run_json_is_stable() {
    let env = suite_env("claude");
    let write = json!({"file_path": "secrets/env", "content": "API_KEY=x"});
    let (code, json) = run(&env, "PreToolUse", Some("Write"), &write, true);
    assert_eq!(code, 2, "{json:#}");
    insta::assert_yaml_snapshot!("claude_protected_path_deny", json);
}

#[test]
fn inspect_shows_each_hooks_source_format_and_protocol() {
    let env = suite_env("claude");
    let json = env.inspect_json();
    let hooks = json["hooks"].as_array().unwrap();
    // 18 commands and settings.local.json's `type: "prompt"` hook, loaded as `kind: evaluated`.
    assert_eq!(hooks.len(), 20);
    assert_eq!(hooks.iter().filter(|h| h["kind"] == "evaluated").count(), 1);
    assert!(hooks.iter().all(|h| h["format"] == "claude" && h["protocol"] == "claude" && h["on_error"] == "ignore"));
    let text = env.hook(&["inspect"]).stdout;
    assert!(text.contains("    pre_tool · command · claude · "), "{text}");
    assert!(text.contains("    claude format · [WS]/.claude/settings.json [1]\n"), "{text}");
    assert!(text.contains("    claude format · [HOME]/.claude/settings.json [0]\n"), "{text}");
}
