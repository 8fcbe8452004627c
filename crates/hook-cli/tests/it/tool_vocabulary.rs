//! One tool vocabulary under every agent: a native `tools: [shell]` gate fires for each agent's own name of its shell
//! tool through `hook bridge`, a Claude-protocol matcher `Bash` fires for Gemini CLI's shell tool, and `hook preview`
//! and `hook run` take any agent's spelling. Each was a silent pass before: the agent ran the command. A tool the
//! agent's table entry does not know is announced to its user once per session while a `tools:` gate is loaded.

use crate::common;

use common::Env;
use serde_json::{Value, json};

const SHELL_GATE: &str = "\
- id: no-rm
  on: pre_tool
  tools: [shell]
  kind: command
  shell: \"grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\"
";

/// A workspace whose hooks are trusted, with `hooks` as its native file.
fn workspace(hooks: &str) -> Env {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", hooks);
    let trusted = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(trusted.code, 0, "{trusted:#?}");
    env
}

fn claude_shell(env: &Env, command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": env.ws, "tool_name": "Bash",
           "tool_input": {"command": command}})
}

fn codex_shell(env: &Env, command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s1", "turn_id": "t1", "cwd": env.ws, "model": "m",
           "permission_mode": "default", "transcript_path": null, "tool_name": "Bash", "tool_use_id": "c1",
           "tool_input": {"command": command}})
}

fn gemini_shell(env: &Env, command: &str) -> Value {
    json!({"hook_event_name": "BeforeTool", "session_id": "s1", "cwd": env.ws, "transcript_path": "",
           "timestamp": "2026-01-01T00:00:00Z", "tool_name": "run_shell_command", "tool_input": {"command": command}})
}

fn cursor_shell(env: &Env, command: &str) -> Value {
    json!({"hook_event_name": "beforeShellExecution", "conversation_id": "c1", "generation_id": "g1",
           "workspace_roots": [env.ws], "command": command, "cwd": env.ws})
}

#[test]
fn a_native_shell_gate_denies_every_agents_shell_tool_through_the_bridge() {
    let env = workspace(SHELL_GATE);
    type Input = fn(&Env, &str) -> Value;
    let agents: [(&str, Input); 4] =
        [("claude", claude_shell), ("codex", codex_shell), ("gemini", gemini_shell), ("cursor", cursor_shell)];
    for (agent, input) in agents {
        let out = env.bridge(agent, &input(&env, "rm -rf /"));
        assert!(out.denies(agent), "{agent} was not denied: {out:#?}");
        assert!(out.stdout.contains("no rm -rf here") || out.stderr.contains("no rm -rf here"), "{agent}: {out:#?}");
        let out = env.bridge(agent, &input(&env, "ls"));
        assert!(!out.denies(agent), "{agent} denied a harmless command: {out:#?}");
    }
}

#[test]
fn a_claude_matcher_bash_fires_for_gemini_clis_shell_tool() {
    let env = workspace("[]\n");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'claude guard says no' >&2; exit 2"}]}]}});
    env.write(".claude/settings.json", &settings.to_string());
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = env.bridge("gemini", &gemini_shell(&env, "ls"));
    assert!(out.denies("gemini"), "{out:#?}");
    assert!(out.stdout.contains("claude guard says no") || out.stderr.contains("claude guard says no"), "{out:#?}");
    // Not for another tool.
    let mut read = gemini_shell(&env, "ls");
    read["tool_name"] = json!("read_file");
    let out = env.bridge("gemini", &read);
    assert!(!out.denies("gemini"), "{out:#?}");
}

#[test]
fn a_claude_hook_sees_its_own_spelling_of_a_gemini_tool() {
    let env = workspace("[]\n");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "cat > \"$HOME/seen.json\""}]}]}});
    env.write(".claude/settings.json", &settings.to_string());
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    let out = env.bridge("gemini", &gemini_shell(&env, "ls"));
    assert_eq!(out.code, 0, "{out:#?}");
    let seen = common::read_json(&env.home.join("seen.json"));
    assert_eq!(seen["tool_name"], "Bash", "{seen:#}");
    assert_eq!(seen["hook_event_name"], "PreToolUse", "{seen:#}");
}

#[test]
fn preview_and_run_take_any_agents_spelling_of_a_tool() {
    let env = workspace(SHELL_GATE);
    for spelling in ["run_shell_command", "Bash", "shell", "Shell"] {
        let out = env.hook(&["preview", "pre_tool", "--tool", spelling]);
        assert_eq!(out.code, 0, "{out:#?}");
        assert!(out.stdout.contains("no-rm"), "{spelling}: {out:#?}");
    }
    let out = env.hook(&["preview", "pre_tool", "--tool", "read_file"]);
    assert!(!out.stdout.contains("no-rm"), "{out:#?}");
    let out = env.hook(&["run", "pre_tool", "--tool", "run_shell_command", "--input", r#"{"command":"rm -rf /"}"#]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stdout.contains("tool shell (run_shell_command)"), "{out:#?}");
}

#[test]
fn a_tools_entry_in_an_agents_spelling_means_the_canonical_tool_and_a_name_nobody_uses_is_a_warning() {
    let env = workspace(
        "- id: agent-spelling\n  on: pre_tool\n  tools: [Bash]\n  kind: effect\n  effect: {kind: ask_user}\n\
         - id: typo\n  on: pre_tool\n  tools: [shel]\n  kind: effect\n  effect: {kind: ask_user}\n",
    );
    let out = env.hook(&["validate"]);
    assert!(out.stdout.contains("`Bash` is an agent's name"), "{out:#?}");
    assert!(out.stdout.contains("write `shell`"), "{out:#?}");
    assert!(out.stdout.contains("`shel` is no tool any known agent uses (did you mean `shell`?)"), "{out:#?}");
    let out = env.hook(&["preview", "pre_tool", "--tool", "run_shell_command"]);
    assert!(out.stdout.contains("agent-spelling") && !out.stdout.contains("typo"), "{out:#?}");
}

/// A pre_tool call of `tool` in `agent`'s input format, in session `session`.
fn call(env: &Env, agent: &str, session: &str, tool: &str) -> Value {
    match agent {
        "gemini" => json!({"hook_event_name": "BeforeTool", "session_id": session, "cwd": env.ws,
                           "tool_name": tool, "tool_input": {}}),
        "cursor" => json!({"hook_event_name": "preToolUse", "conversation_id": session, "generation_id": "g1",
                           "workspace_roots": [env.ws], "tool_name": tool, "tool_input": {}}),
        _ => json!({"hook_event_name": "PreToolUse", "session_id": session, "cwd": env.ws, "tool_name": tool,
                    "tool_input": {}}),
    }
}

#[test]
fn every_agent_tells_its_user_once_a_session_of_a_tool_its_table_does_not_know_while_a_tools_gate_is_loaded() {
    let env = workspace(SHELL_GATE);
    for (agent, name, shell) in [
        ("claude", "Claude Code", "Bash"),
        ("codex", "Codex", "Bash"),
        ("gemini", "Gemini CLI", "run_shell_command"),
        ("cursor", "Cursor", "Shell"),
        ("qwen", "Qwen Code", "run_shell_command"),
        ("droid", "Factory Droid", "Execute"),
    ] {
        let session = format!("unknown-{agent}");
        let first = env.bridge(agent, &call(&env, agent, &session, "frobnicate"));
        assert!(!first.denies(agent), "{agent}: {first:#?}");
        let told = format!("{name} called the tool `frobnicate`");
        assert!(first.stdout.contains(&told) && first.stdout.contains("`no-rm`: shell"), "{agent}: {first:#?}");
        let channel = if agent == "cursor" { "user_message" } else { "systemMessage" };
        assert!(first.stdout.contains(channel), "{agent}: {first:#?}");
        let second = env.bridge(agent, &call(&env, agent, &session, "frobnicate"));
        assert!(!second.stdout.contains("frobnicate"), "{agent}, told twice: {second:#?}");
        // Its own shell tool is one it knows: nothing to tell in a new session.
        let known = env.bridge(agent, &call(&env, agent, &format!("{session}-2"), shell));
        assert!(!known.stdout.contains("does not know"), "{agent}: {known:#?}");
        // Another session is told again.
        let other = env.bridge(agent, &call(&env, agent, &format!("{session}-3"), "frobnicate"));
        assert!(other.stdout.contains(&told), "{agent}: {other:#?}");
    }
    // A host (`hook run`) may use any agent's spelling; only a name no table has is announced.
    let run = env.hook(&["run", "pre_tool", "--tool", "frobnicate", "--input", "{}"]);
    assert!(run.stdout.contains("The tool `frobnicate` is in no agent's table"), "{run:#?}");
    let run = env.hook(&["run", "pre_tool", "--tool", "run_shell_command", "--input", r#"{"command":"ls"}"#]);
    assert!(!run.stdout.contains("table"), "{run:#?}");
}
