//! The README's "Use it in your agent" is true: for each agent, the commands of its section are run exactly as
//! written, in the demo workspace with its hooks trusted, with `hook` on `PATH` being this build (isolated from the
//! machine's config home, policy file and state). Between install and `hook receipts tail`, the agent is played: the
//! command install wrote into the agent's file is run the way the agent runs a hook, with the agent's own input for a
//! destructive shell call, and must deny in the agent's form.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Env, HOOK, repo_root};
use hook_types::{Agent, Event, InstallScope};
use serde_json::{Value, json};

/// The commands of the README section `### <title>`, comments left out.
fn section_commands(title: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let start = readme.find(&format!("\n### {title}\n")).unwrap_or_else(|| panic!("no README section {title}"));
    let section = &readme[start + 1..];
    let end = section[4..].find("\n#").map_or(section.len(), |i| i + 4);
    let block = section[..end].split("```sh\n").nth(1).unwrap_or_else(|| panic!("{title}: no ```sh block"));
    let block = block.split("```").next().unwrap();
    block
        .lines()
        .map(|l| l.split(" #").next().unwrap().trim().to_owned())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// `hook` on `PATH`: this build, with the managed file kept out of the machine's /etc.
fn wrapper(env: &Env) -> PathBuf {
    let bin = env.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let wrapper = bin.join("hook");
    let managed = env.home.join("managed.yaml");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{HOOK}' --managed-file '{}' \"$@\"\n", managed.display()))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn sh(env: &Env, bin: &Path, command: &str) -> (i32, String, String) {
    run(env, bin, Command::new("sh").args(["-c", command]), None)
}

/// Runs `command` on a terminal (util-linux `script` gives it one) where the user types `answer`: what `hook
/// install` needs to ask before it records trust.
fn at_terminal(env: &Env, bin: &Path, command: &str, answer: &str) -> (i32, String, String) {
    run(env, bin, Command::new("script").args(["-qec", command, "/dev/null"]), Some(answer))
}

fn run(env: &Env, bin: &Path, command: &mut Command, typed: Option<&str>) -> (i32, String, String) {
    use std::io::Write;
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut child = command
        .current_dir(&env.ws)
        .env("PATH", path)
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.home.join("xdg-config"))
        .env("XDG_STATE_HOME", env.home.join("state"))
        .env_remove("CODEX_HOME")
        .env_remove("HOOK_BRIDGE_DEPTH")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    if let Some(typed) = typed {
        stdin.write_all(typed.as_bytes()).unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

/// The agent's hook input for a call of its shell tool running `rm -rf /`.
fn destructive_call(agent: &Agent, ws: &Path) -> (String, Value) {
    let gate = agent.install_events().find(|name| agent.read_event(name).0 == Event::PreTool).unwrap();
    let shell = agent.tool_names("shell").next().unwrap();
    let ws = ws.display().to_string();
    let mut input = match agent.as_str() {
        "cursor" => json!({"conversation_id": "c-1", "generation_id": "g-1", "workspace_roots": [ws]}),
        _ => json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": ws}),
    };
    let fields = json!({"hook_event_name": gate, "tool_name": shell, "tool_input": {"command": "rm -rf /"}});
    input.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    (gate.to_owned(), input)
}

/// The command install wrote on `event` of the agent's file.
fn bridge_command(agent: &Agent, file: &Path, event: &str) -> String {
    let written: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let entry = &written["hooks"][event][0];
    let handler = if agent.as_str() == "cursor" { entry } else { &entry["hooks"][0] };
    handler["command"].as_str().unwrap_or_else(|| panic!("no command on {event}: {written:#}")).to_owned()
}

fn check_agent_section(title: &str, name: &str) {
    let agent = Agent::parse(name).unwrap();
    let commands = section_commands(title);
    let expected = [
        format!("hook install --agent {name}"),
        "hook receipts tail".to_owned(),
        format!("hook uninstall --agent {name}"),
    ];
    assert_eq!(commands, expected, "the README's {title} section");

    let env = Env::new("examples/demo");
    let bin = wrapper(&env);
    // "Before you start": the hooks trusted.
    let (code, stdout, stderr) = sh(&env, &bin, "hook trust --all --yes");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let file = agent.settings_file(InstallScope::Project, &env.ws, None).unwrap();
    assert!(!file.exists());

    // Install asks before it records trust in the agent's own store (Codex); the user says yes.
    let (code, stdout, stderr) = at_terminal(&env, &bin, &commands[0], "y\n");
    assert_eq!(code, 0, "`{}`\n{stdout}\n{stderr}", commands[0]);
    let (gate, input) = destructive_call(agent, &env.ws);
    let command = bridge_command(agent, &file, &gate);
    // On a gate, the portable command inside the fail-closed wrapper.
    let portable = format!(" hook bridge --protocol {name} <&3 3<&- &");
    assert!(command.contains(&portable) && !command.contains(HOOK), "{command}");
    if name == "codex" {
        let state = std::fs::read_to_string(env.home.join(".codex/config.toml")).unwrap_or_default();
        assert!(state.contains("trusted_hash"), "install trusts its bridge entries in Codex's store: {state}");
    }

    // The agent calls the bridge for a destructive shell command: the demo's guard denies, in the agent's form.
    let project_var = agent.project_env.first().copied();
    let answer = env.run_as_agent(&command, project_var, input.to_string().as_bytes());
    assert!(answer.denies(name), "{title} is told to refuse `rm -rf /`: {answer:#?}");

    let (code, stdout, stderr) = sh(&env, &bin, &commands[1]);
    assert_eq!(code, 0, "`{}`\n{stdout}\n{stderr}", commands[1]);
    assert!(stdout.contains("demo.no-destructive-shell"), "the receipt of the guard that denied: {stdout}");

    let (code, stdout, stderr) = sh(&env, &bin, &commands[2]);
    assert_eq!(code, 0, "`{}`\n{stdout}\n{stderr}", commands[2]);
    assert!(!file.exists(), "uninstall removes the file install created: {}", file.display());
    if name == "codex" {
        let state = std::fs::read_to_string(env.home.join(".codex/config.toml")).unwrap_or_default();
        assert!(!state.contains("trusted_hash"), "uninstall takes Codex's trust records back: {state}");
    }
}

#[test]
fn the_claude_code_section_installs_answers_records_and_uninstalls() {
    check_agent_section("Claude Code", "claude");
}

#[test]
fn the_codex_section_installs_answers_records_and_uninstalls() {
    check_agent_section("Codex", "codex");
}

#[test]
fn the_gemini_cli_section_installs_answers_records_and_uninstalls() {
    check_agent_section("Gemini CLI", "gemini");
}

#[test]
fn the_cursor_section_installs_answers_records_and_uninstalls() {
    check_agent_section("Cursor", "cursor");
}

/// The ```sh blocks of docs/install.md's "Check your install without opening the agent", each one command (its
/// continuation lines joined).
fn install_check_snippets() -> Vec<String> {
    let doc = std::fs::read_to_string(repo_root().join("docs/install.md")).unwrap();
    let start = doc.find("\n## Check your install without opening the agent\n").expect("the section is there");
    let section = &doc[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut commands = Vec::new();
    for block in section.split("```sh\n").skip(1) {
        let block = block.split("```").next().unwrap();
        commands.extend(block.replace("\\\n", " ").lines().map(|l| l.split(" #").next().unwrap().trim().to_owned()));
    }
    commands.retain(|c| !c.is_empty());
    commands
}

#[test]
fn each_agents_install_check_in_the_docs_denies_in_its_own_form() {
    let env = Env::new("examples/demo");
    let bin = wrapper(&env);
    assert_eq!(sh(&env, &bin, "hook trust --all --yes").0, 0);
    let snippets = install_check_snippets();
    assert!(snippets.len() >= 10, "one check per bridged agent: {snippets:#?}");
    for snippet in &snippets {
        let (code, stdout, stderr) = sh(&env, &bin, snippet);
        assert_eq!(code, 0, "{snippet}\n{stderr}");
        assert!(stdout.trim_end().ends_with("exit 0"), "the bridge answers on stdout with exit 0: {snippet}\n{stdout}");
        let answer: Value = serde_json::from_str(stdout.lines().next().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{snippet}: not JSON ({e}): {stdout}"));
        let text = answer.to_string();
        let denies = text.contains("\"permissionDecision\":\"deny\"")
            || text.contains("\"decision\":\"deny\"")
            || text.contains("\"permission\":\"deny\"")
            || answer["cancel"] == true;
        assert!(denies && text.contains("refusing a destructive shell command"), "{snippet}\n{answer:#}");
    }
}
