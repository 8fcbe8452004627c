//! Codex's hooks end to end: a project with `.codex/hooks.json` and `[hooks]` in `.codex/config.toml`, a user's
//! `~/.codex/config.toml`, and the hook script suite, through the real `hook` binary, reaching the decisions Codex
//! documents — stricter than Claude Code's where the two differ.

use crate::claude_support;
use crate::import_support;

use claude_support::{run, statuses, suite_cases, suite_env};
use import_support::run_cases;
use serde_json::json;

#[test]
fn codex_script_suite_reaches_the_decisions_codex_documents() {
    let env = suite_env("codex");
    let decisions = run_cases(&env, &suite_cases("codex"));
    assert_eq!(decisions.len(), 16);
    let log = std::fs::read_to_string(env.home.join(".codex/log/notifications.log")).unwrap();
    assert_eq!(log, "session-end\n", "the user's SessionEnd hook ran; its Notification hook never does");
}

#[test]
fn the_same_scripts_answer_differently_under_codex_and_claude_code_where_the_agents_differ() {
    let codex = suite_env("codex");
    let claude = suite_env("claude");
    let push = json!({"command": "git push origin main"});
    let (_, under_codex) = run(&codex, "PreToolUse", Some("Bash"), &push, true);
    let (_, under_claude) = run(&claude, "PreToolUse", Some("Bash"), &push, true);
    assert_eq!((under_codex["verdict"].as_str(), under_claude["verdict"].as_str()), (Some("pass"), Some("ask")));
    // A Codex hook that fails lets the action proceed: the failure is on the run, not on the verdict.
    assert_eq!(statuses(&under_codex), [("project".into(), "completed".into()), ("project".into(), "failed".into())]);
}

#[test]
fn a_deny_through_hook_run_json_is_stable() {
    let env = suite_env("codex");
    let (code, json) = run(&env, "PreToolUse", Some("Bash"), &json!({"command": "rm -rf /"}), true);
    assert_eq!(code, 2, "{json:#}");
    insta::assert_yaml_snapshot!("codex_exit_2_deny", json);
}

#[test]
fn inspect_shows_each_hooks_source_format_and_protocol() {
    let env = suite_env("codex");
    let json = env.inspect_json();
    let hooks = json["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 14);
    assert!(hooks.iter().all(|h| h["format"] == "codex" && h["protocol"] == "codex" && h["on_error"] == "ignore"));
    let text = env.hook(&["inspect"]).stdout;
    assert!(text.contains("    codex format · [WS]/.codex/config.toml [0]\n"), "{text}");
    assert!(text.contains("    codex format · [HOME]/.codex/config.toml [1]\n"), "{text}");
}
