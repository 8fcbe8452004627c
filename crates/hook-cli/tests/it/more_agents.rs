//! The agents added after the first four, each end to end through the real `hook` binary: a native `tools: [shell]`
//! gate denies the agent's own shell tool through `hook bridge`; `hook install` moves the agent's own hooks out of its
//! file and its migrated guard still denies through the bridge command install wrote (run as the agent runs a hook);
//! the continuation cap holds across bridge processes and a skipped guard is announced, where the agent's answer can
//! carry them; and `hook uninstall` gives the agent's file back byte for byte.

use crate::common;

use std::path::PathBuf;

use common::{Env, Out};
use serde_json::{Value, json};

/// One agent as these tests drive it.
struct Agent {
    /// Its wire name (`--protocol`, `--agent`).
    name: &'static str,
    /// Its hook file in the install fixture.
    file: &'static str,
    /// The variable it sets to the project for its hooks.
    project_var: Option<&'static str>,
    /// Its hook input for a call of its shell tool running `command`.
    shell: fn(&Env, &str, &str) -> Value,
    /// Its hook input at the end of a turn (`active`: it is continuing because a hook asked it to).
    turn_end: Option<fn(&str, bool) -> Value>,
    /// Its hook input at session start.
    session_start: Option<fn(&str) -> Value>,
    /// The field of its answer the user sees (notices go there).
    channel: &'static str,
}

fn qwen_shell(env: &Env, session: &str, command: &str) -> Value {
    // Qwen Code's PreToolUse input (its hooks reference, "Common Fields" and "PreToolUse").
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": env.ws, "hook_event_name": "PreToolUse",
           "timestamp": "2026-01-01T00:00:00.000Z", "permission_mode": "default", "tool_name": "run_shell_command",
           "tool_input": {"command": command, "is_background": false}, "tool_use_id": "toolu_1"})
}

fn qwen_stop(session: &str, active: bool) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/", "hook_event_name": "Stop",
           "timestamp": "2026-01-01T00:00:00.000Z", "stop_hook_active": active, "last_assistant_message": "done"})
}

fn qwen_start(session: &str) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/", "hook_event_name": "SessionStart",
           "timestamp": "2026-01-01T00:00:00.000Z", "permission_mode": "default", "source": "startup"})
}

const QWEN: Agent = Agent {
    name: "qwen",
    file: ".qwen/settings.json",
    project_var: Some("QWEN_PROJECT_DIR"),
    shell: qwen_shell,
    turn_end: Some(qwen_stop),
    session_start: Some(qwen_start),
    channel: "systemMessage",
};

fn droid_shell(env: &Env, session: &str, command: &str) -> Value {
    // Factory Droid's PreToolUse input (`executePreToolUseHooks` in its bundled JavaScript).
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": env.ws, "permission_mode": "auto-low",
           "hook_event_name": "PreToolUse", "tool_name": "Execute", "tool_input": {"command": command}})
}

fn droid_stop(session: &str, active: bool) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/", "permission_mode": "auto-low",
           "hook_event_name": "Stop", "stop_hook_active": active, "tool_execution_count": 1, "elapsed_time": 10})
}

fn droid_start(session: &str) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/", "permission_mode": "auto-low",
           "hook_event_name": "SessionStart", "source": "startup"})
}

const DROID: Agent = Agent {
    name: "droid",
    file: ".factory/settings.json",
    project_var: Some("FACTORY_PROJECT_DIR"),
    shell: droid_shell,
    turn_end: Some(droid_stop),
    session_start: Some(droid_start),
    channel: "systemMessage",
};

const AGENTS: [&Agent; 2] = [&QWEN, &DROID];

const SHELL_GATE: &str = "\
- id: no-rm
  on: pre_tool
  tools: [shell]
  kind: command
  shell: \"grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\"
";

/// A workspace whose native hooks are `hooks`, trusted.
fn workspace(hooks: &str) -> Env {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", hooks);
    let trusted = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(trusted.code, 0, "{trusted:#?}");
    env
}

fn denies(agent: &Agent, out: &Out) -> bool {
    out.denies(agent.name)
}

#[test]
fn a_native_shell_gate_denies_each_agents_shell_tool_through_the_bridge() {
    let env = workspace(SHELL_GATE);
    for agent in AGENTS {
        let out = env.bridge(agent.name, &(agent.shell)(&env, "s1", "rm -rf /"));
        assert!(denies(agent, &out), "{} was not denied: {out:#?}", agent.name);
        assert!(out.stdout.contains("no rm -rf here") || out.stderr.contains("no rm -rf here"), "{out:#?}");
        let out = env.bridge(agent.name, &(agent.shell)(&env, "s1", "ls"));
        assert!(!denies(agent, &out), "{} denied a harmless command: {out:#?}", agent.name);
    }
}

/// Installs the bridge for `agent` into a copy of its fixture; returns the project, the bridge command install
/// wrote under the agent's gate and the fixture's original files.
fn install(agent: &Agent) -> (Env, String, Vec<(PathBuf, Vec<u8>)>) {
    let env = Env::new(&format!("tests/fixtures/install/{}", agent.name));
    let originals: Vec<(PathBuf, Vec<u8>)> = [agent.file, ".hooks/hooks.yaml"]
        .iter()
        .map(|f| (env.ws.join(f), std::fs::read(env.ws.join(f)).unwrap()))
        .collect();
    let out = env.hook(&["install", "--agent", agent.name, "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    let moved = report["moved"].as_array().unwrap();
    assert_eq!(moved.len(), 3, "the guard, the context and the stop hooks move: {report:#}");
    let written = std::fs::read_to_string(env.ws.join(agent.file)).unwrap();
    let bridge = format!(" bridge --protocol {}", agent.name);
    assert!(written.contains(&bridge), "{written}");
    let value: Value = serde_json::from_str(&written).unwrap();
    let command = find_command(&value, &bridge).unwrap_or_else(|| panic!("no bridge command in {written}"));
    // The moved hooks load from the native file now, with the agent's protocol.
    let inspect = env.inspect_json();
    let protocols: Vec<&str> =
        inspect["hooks"].as_array().unwrap().iter().filter_map(|h| h["protocol"].as_str()).collect();
    assert_eq!(protocols.iter().filter(|p| **p == agent.name).count(), 3, "{protocols:?}");
    (env, command, originals)
}

/// The first string under `value` that contains `needle`.
fn find_command(value: &Value, needle: &str) -> Option<String> {
    match value {
        Value::String(s) if s.contains(needle) => Some(s.clone()),
        Value::Array(items) => items.iter().find_map(|v| find_command(v, needle)),
        Value::Object(map) => map.values().find_map(|v| find_command(v, needle)),
        _ => None,
    }
}

#[test]
fn each_agents_migrated_guard_still_denies_and_uninstall_gives_its_file_back_byte_for_byte() {
    for agent in AGENTS {
        let (env, command, originals) = install(agent);
        let run = |input: Value| env.run_as_agent(&command, agent.project_var, input.to_string().as_bytes());
        let rm = run((agent.shell)(&env, "s1", "rm -rf /"));
        assert!(denies(agent, &rm), "{}: the migrated guard did not deny: {rm:#?}", agent.name);
        assert!(rm.stdout.contains("rm -rf is not allowed") || rm.stderr.contains("rm -rf is not allowed"), "{rm:#?}");
        let ls = run((agent.shell)(&env, "s1", "ls -la"));
        assert!(!denies(agent, &ls), "{}: {ls:#?}", agent.name);
        if let Some(turn_end) = agent.turn_end {
            let stop = run(turn_end("s1", false));
            assert!(stop.stdout.contains("run the tests before you stop"), "{}: {stop:#?}", agent.name);
        }

        let out = env.hook(&["uninstall", "--agent", agent.name]);
        assert_eq!(out.code, 0, "{out:#?}");
        for (path, original) in &originals {
            assert_eq!(&std::fs::read(path).unwrap(), original, "{} is back as it was", path.display());
        }
    }
}

#[test]
fn an_always_continue_stop_hook_is_capped_for_each_agent_that_can_continue() {
    let env = workspace(
        "- id: keep-going\n  on: turn_end\n  kind: effect\n  effect: {kind: request_continuation, message: KEEP-GOING-1234}\n",
    );
    for agent in AGENTS {
        let Some(turn_end) = agent.turn_end else { continue };
        let session = format!("session-{}", agent.name);
        let mut continuations = 0;
        let mut refusals = Vec::new();
        for call in 0..6 {
            let out = env.bridge(agent.name, &turn_end(&session, call > 0));
            if out.stdout.contains("KEEP-GOING-1234") {
                continuations += 1;
            } else {
                refusals.push(out);
            }
        }
        assert_eq!(continuations, 3, "{}: {refusals:#?}", agent.name);
        assert!(
            refusals.iter().any(|o| o.stdout.contains(agent.channel) && o.stdout.contains("continuations in a row")),
            "{}: {refusals:#?}",
            agent.name
        );
    }
}

#[test]
fn an_untrusted_guard_is_announced_to_each_agents_user() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: team-guard\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  shell: \"exit 2\"\n",
    );
    for agent in AGENTS {
        let session = format!("notice-{}", agent.name);
        let first = env.bridge(agent.name, &(agent.shell)(&env, &session, "ls"));
        assert!(first.stdout.contains(agent.channel), "{}: {first:#?}", agent.name);
        assert!(first.stdout.contains("team-guard") && first.stdout.contains("hook trust"), "{first:#?}");
        let second = env.bridge(agent.name, &(agent.shell)(&env, &session, "ls"));
        assert!(!second.stdout.contains("team-guard"), "{}: once per session: {second:#?}", agent.name);
        if let Some(start) = agent.session_start {
            let out = env.bridge(agent.name, &start(&session));
            assert!(out.stdout.contains("team-guard"), "{}: {out:#?}", agent.name);
        }
    }
}

#[test]
fn qwen_codes_own_file_loads_with_its_matcher_timeout_and_sequential_rules() {
    let env = Env::new("empty");
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "sequential": true, "hooks": [
            {"type": "command", "command": "echo 'qwen guard says no' >&2; exit 2", "timeout": 1500, "env": {"A": "1"}}]},
        {"matcher": "WriteFile", "hooks": [{"type": "command", "command": "true", "timeout": "30s"}]},
        {"hooks": [{"type": "http", "url": "http://127.0.0.1:1/x"}]}]}});
    env.write(".qwen/settings.json", &settings.to_string());
    let json = env.hook(&["validate", "--json"]).json();
    let text = json.to_string();
    assert!(text.contains("names no tool this engine knows"), "the display name is warned about: {json:#}");
    assert!(text.contains("default of 60 s"), "the ignored timeout is announced: {json:#}");
    assert!(text.contains("has no counterpart in this engine"), "the http hook is announced: {json:#}");
    let inspect = env.inspect_json();
    let hooks = inspect["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 2, "{inspect:#}");
    let guard = &hooks[0];
    assert_eq!(guard["protocol"], "qwen");
    assert_eq!(guard["filters"]["sequential"], true, "{guard:#}");
    assert_eq!(guard["filters"]["matcher"], "(?:Bash)|^(?:run_shell_command)$", "{guard:#}");
    // The Claude Code name `Bash` is one of Qwen Code's matcher aliases: the guard fires for run_shell_command (the
    // Qwen bridge leaves Qwen Code's live file to Qwen Code, so `hook run` runs it here).
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = env.hook(&["run", "pre_tool", "--tool", "run_shell_command", "--input", r#"{"command":"ls"}"#]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stdout.contains("qwen guard says no"), "{out:#?}");
}

#[test]
fn droids_hooks_json_is_read_as_the_event_map_and_install_refuses_while_it_would_replace_the_bridge() {
    let env = Env::new("tests/fixtures/install/droid");
    let hooks = json!({"PreToolUse": [
        {"matcher": "Execute", "hooks": [{"type": "command", "command": "echo 'droid guard says no' >&2; exit 2"}]},
        {"matcher": "Execute", "commandRegex": "^git push", "hooks": [{"type": "command", "command": "exit 2"}]}],
        "showHookOutput": true});
    env.write(".factory/hooks.json", &hooks.to_string());
    let json = env.hook(&["validate", "--json"]).json();
    assert!(json.to_string().contains("`commandRegex` runs this group's hooks only for"), "{json:#}");
    let inspect = env.inspect_json();
    let from_hooks_json = inspect["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["source"].as_str().unwrap().ends_with(".factory/hooks.json"))
        .count();
    assert_eq!(from_hooks_json, 1, "the guard loads, the narrowed group does not: {inspect:#}");
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = env.hook(&["run", "pre_tool", "--tool", "Execute", "--input", r#"{"command":"ls"}"#]);
    assert_eq!(out.code, 2, "{out:#?}");
    let before = std::fs::read(env.ws.join(".factory/settings.json")).unwrap();
    let out = env.hook(&["install", "--agent", "droid", "--yes"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stderr.contains("hooks.json") && out.stderr.contains("in place of those in"), "{out:#?}");
    assert_eq!(std::fs::read(env.ws.join(".factory/settings.json")).unwrap(), before, "nothing changed");
}

#[test]
fn droids_exit_3_stops_the_agent_and_denies_the_tool() {
    let env = workspace("[]\n");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Execute", "hooks": [
        {"type": "command", "command": "echo 'stop everything' >&2; exit 3"}]}]}});
    env.write(".factory/settings.json", &settings.to_string());
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = env.hook(&["run", "pre_tool", "--tool", "Execute", "--input", r#"{"command":"ls"}"#, "--json"]);
    let json = out.json();
    assert_eq!(json["verdict"], "deny", "{json:#}");
    assert!(json.to_string().contains("stop everything"), "{json:#}");
}
