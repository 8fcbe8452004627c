//! Which hooks the bridge runs: never a bridge entry (its own, another agent's, a native hook that calls one — no
//! recursion), never a hook still in the invoking agent's live configuration (the agent runs it, once), every other
//! hook: a `.codex/hooks.json` hook under the Claude Code bridge runs.

use crate::common;

use std::path::Path;

use common::{Env, HOOK};
use serde_json::{Value, json};

/// A workspace where Claude Code and Codex both hold a bridge entry and a hook of their own that leaves a mark, and
/// the native file holds a marking hook and one that calls a bridge; every hook trusted.
fn project() -> (Env, String, String) {
    let env = Env::new("tests/fixtures/bridge/selection");
    let flags = format!(
        "--config-home '{}' --managed-file '{}'",
        env.config_home().display(),
        env.home.join("managed.yaml").display()
    );
    let claude_bridge = format!("'{HOOK}' bridge --protocol claude {flags}");
    let codex_bridge = format!("'{HOOK}' bridge --protocol codex {flags}");
    let group = |command: &str| json!({"hooks": [{"type": "command", "command": command, "timeout": 66}]});
    let claude = json!({"hooks": {"PreToolUse": [group(&claude_bridge), group("echo claude >> \"$HOME/ran.log\"")]}});
    let codex = json!({"hooks": {"PreToolUse": [group(&codex_bridge), group("echo codex >> \"$HOME/ran.log\"")]}});
    env.write(".claude/settings.json", &serde_json::to_string_pretty(&claude).unwrap());
    env.write(".codex/hooks.json", &serde_json::to_string_pretty(&codex).unwrap());
    let native = std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap();
    let gemini_bridge = format!("'{HOOK}' bridge --protocol gemini {flags}");
    let calls_a_bridge =
        format!("- id: calls-a-bridge\n  on: pre_tool\n  kind: command\n  shell: {}\n", json!(gemini_bridge));
    env.write(".hooks/hooks.yaml", &format!("{native}{calls_a_bridge}"));
    let trust = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(trust.code, 0, "{trust:#?}");
    assert!(trust.stdout.contains("trusted native-mark"), "{trust:#?}");
    // A handler that calls a bridge never loads as a hook, so there is nothing to trust there.
    assert!(!trust.stdout.contains("calls-a-bridge") && !trust.stdout.contains("bridge --protocol"), "{trust:#?}");
    (env, claude_bridge, codex_bridge)
}

/// Runs a bridge command as its agent would, with a PreToolUse input; fails if it does not end well within the
/// agent's timeout (a bridge that ran a bridge would not).
fn call(env: &Env, command: &str) -> (i32, String) {
    let _ = std::fs::remove_file(env.home.join("ran.log"));
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": env.ws.display().to_string(),
        "tool_name": "Bash", "tool_input": {"command": "make"}});
    let out = env.run_as_agent(command, Some("CLAUDE_PROJECT_DIR"), input.to_string().as_bytes());
    (out.code, out.stdout)
}

/// The marks left, sorted. (The log is outside the workspace: a file a command names under the workspace is part of
/// its fingerprint, and one that appears there mid-dispatch would change it.)
fn marks(home: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(home.join("ran.log")).unwrap_or_default();
    let mut marks: Vec<String> = text.lines().map(str::to_owned).collect();
    marks.sort();
    marks
}

/// The files of the hooks the receipt log holds, workspace-relative, in order.
fn receipt_sources(env: &Env) -> Vec<String> {
    let dir = env.home.join("state/hooks/receipts");
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            for line in std::fs::read_to_string(path).unwrap().lines() {
                let receipt: Value = serde_json::from_str(line).unwrap();
                let source = receipt["source"].as_str().unwrap();
                sources.push(source.strip_prefix(&format!("{}/", env.ws.display())).unwrap_or(source).to_owned());
            }
        }
    }
    sources
}

#[test]
fn the_claude_bridge_runs_the_codex_hook_never_a_bridge_and_not_claudes_own_hook() {
    let (env, claude_bridge, _) = project();
    let (code, stdout) = call(&env, &claude_bridge);
    assert_eq!((code, stdout.as_str()), (0, ""), "nothing blocked");
    assert_eq!(
        marks(&env.home),
        ["codex", "native"],
        "Claude Code runs its own hook itself; the bridge runs the rest once"
    );
    let sources = receipt_sources(&env);
    assert_eq!(sources, [".hooks/hooks.yaml", ".codex/hooks.json"], "only the two marking hooks ran, once each");
}

#[test]
fn the_codex_bridge_runs_the_claude_hook_never_a_bridge_and_not_codexs_own_hook() {
    let (env, _, codex_bridge) = project();
    let (code, _) = call(&env, &codex_bridge);
    assert_eq!(code, 0);
    assert_eq!(marks(&env.home), ["claude", "native"]);
    let sources = receipt_sources(&env);
    assert_eq!(sources, [".hooks/hooks.yaml", ".claude/settings.json"], "only the two marking hooks ran, once each");
}
