//! Install touches one file of one scope: every other key of that file keeps its value and its place, and the
//! agent's files of the other scopes — the user's own hooks among them — stay as they were, byte for byte.

use crate::common;

use common::{Env, read_json};
use serde_json::{Value, json};

const USER_SETTINGS: &str = r#"{
  "theme": "dark",
  "hooks": {
    "Notification": [
      { "hooks": [ { "type": "command", "command": "notify-send claude" } ] }
    ]
  }
}
"#;

const LOCAL_SETTINGS: &str = r#"{
  "hooks": {
    "PostToolUse": [
      { "matcher": "Write", "hooks": [ { "type": "command", "command": "sh scripts/context.sh" } ] }
    ]
  },
  "permissions": { "allow": ["Bash(make:*)"] }
}
"#;

/// The Claude Code fixture with the user's own settings in `~/.claude` and a local settings file.
fn project() -> Env {
    let env = Env::new("tests/fixtures/install/claude");
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(env.home.join(".claude/settings.json"), USER_SETTINGS).unwrap();
    env.write(".claude/settings.local.json", LOCAL_SETTINGS);
    env
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_project_install_keeps_every_other_key_in_place_and_the_other_scopes_untouched() {
    let env = project();
    let original: Value = read_json(&env.ws.join(".claude/settings.json"));
    let out = env.hook(&["install", "--agent", "claude", "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    let moved: Vec<&str> = report["moved"].as_array().unwrap().iter().map(|m| m["event"].as_str().unwrap()).collect();
    assert_eq!(moved, ["PreToolUse", "UserPromptSubmit", "Stop"], "only the project file's hooks move");

    let written = read_json(&env.ws.join(".claude/settings.json"));
    let keys: Vec<&str> = written.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["model", "permissions", "hooks", "env"], "every key where it was");
    for key in ["model", "permissions", "env"] {
        assert_eq!(written[key], original[key], "{key} is unchanged");
    }
    assert_eq!(read(&env.home.join(".claude/settings.json")), USER_SETTINGS, "the user's own hooks are untouched");
    assert_eq!(read(&env.ws.join(".claude/settings.local.json")), LOCAL_SETTINGS, "the local scope is untouched");

    // The user scope is another install, into the user's file and the config home's hooks.yaml; user hooks need
    // no new trust.
    let out = env.hook(&["install", "--agent", "claude", "--scope", "user", "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    assert_eq!(report["moved"][0]["needs_trust"], false, "{report:#}");
    assert!(report["trusted"].as_array().unwrap().is_empty(), "{report:#}");
    let user = read_json(&env.home.join(".claude/settings.json"));
    assert_eq!(user["theme"], "dark");
    assert!(
        user["hooks"]["Notification"][0]["hooks"][0]["command"].as_str().unwrap().contains(" bridge --protocol claude")
    );
    let user_native = read(&env.config_home().join("hooks.yaml"));
    assert!(
        user_native.contains("shell: notify-send claude") && user_native.contains("protocol: claude"),
        "{user_native}"
    );
    assert_eq!(read(&env.ws.join(".claude/settings.json")), serde_json::to_string_pretty(&written).unwrap() + "\n");

    let out = env.hook(&["uninstall", "--agent", "claude", "--scope", "user"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(read(&env.home.join(".claude/settings.json")), USER_SETTINGS);
    assert!(!env.config_home().join("hooks.yaml").exists(), "install created it, uninstall removes it");
    let out = env.hook(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(read_json(&env.ws.join(".claude/settings.json")), original);
}

#[test]
fn a_local_install_moves_into_hooks_local_yaml_and_leaves_the_committed_file_alone() {
    let env = project();
    let committed = read(&env.ws.join(".claude/settings.json"));
    let out = env.hook(&["install", "--agent", "claude", "--scope", "local", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let local_native = read(&env.ws.join(".hooks/hooks.local.yaml"));
    assert!(local_native.contains("matcher: Write") && local_native.contains("on: post_tool"), "{local_native}");
    let local = read_json(&env.ws.join(".claude/settings.local.json"));
    assert_eq!(local["permissions"], json!({"allow": ["Bash(make:*)"]}));
    assert_eq!(read(&env.ws.join(".claude/settings.json")), committed, "the committed file is another scope");
    let out = env.hook(&["uninstall", "--agent", "claude", "--scope", "local"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(read(&env.ws.join(".claude/settings.local.json")), LOCAL_SETTINGS);
    assert!(!env.ws.join(".hooks/hooks.local.yaml").exists());
}

#[test]
fn uninstall_after_the_file_changed_takes_out_only_what_install_put_in() {
    let env = project();
    let original = read_json(&env.ws.join(".claude/settings.json"));
    assert_eq!(env.hook(&["install", "--agent", "claude", "--yes"]).code, 0);
    // The user edits the settings after install: a new key, and a new hook of their own.
    let mut edited = read_json(&env.ws.join(".claude/settings.json"));
    edited["outputStyle"] = "Explanatory".into();
    edited["hooks"]["SessionEnd"]
        .as_array_mut()
        .unwrap()
        .push(json!({"hooks": [{"type": "command", "command": "echo bye"}]}));
    env.write(".claude/settings.json", &serde_json::to_string_pretty(&edited).unwrap());

    let out = env.hook(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("edited .claude/settings.json"), "{out:#?}");
    let now = read_json(&env.ws.join(".claude/settings.json"));
    assert_eq!(now["outputStyle"], "Explanatory", "the user's new key stays");
    let mut expected_hooks = original["hooks"].clone();
    expected_hooks["SessionEnd"] = json!([{"hooks": [{"type": "command", "command": "echo bye"}]}]);
    assert_eq!(now["hooks"], expected_hooks, "the bridge out, the moved hooks back where they were, the new hook kept");
    assert_eq!(
        read(&env.ws.join(".hooks/hooks.yaml")),
        read(&common::repo_root().join("tests/fixtures/install/claude/.hooks/hooks.yaml"))
    );
}

#[test]
fn an_agent_file_install_creates_is_removed_with_its_directory_on_uninstall() {
    let env = Env::new("tests/fixtures/install/claude");
    let out = env.hook(&["install", "--agent", "cursor", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let created = read_json(&env.ws.join(".cursor/hooks.json"));
    assert_eq!(created["version"], 1, "Cursor reads version 1 files only");
    let events: Vec<&str> = created["hooks"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        events,
        [
            "sessionStart",
            "beforeSubmitPrompt",
            "preToolUse",
            "postToolUse",
            "postToolUseFailure",
            "stop",
            "subagentStop",
            "preCompact",
            "sessionEnd"
        ]
    );
    assert_eq!(created["hooks"]["stop"][0]["timeout"], 66, "seconds, above the 60 s dispatch deadline");
    let out = env.hook(&["uninstall", "--agent", "cursor"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(!env.ws.join(".cursor").exists(), "the file and the directory install made are gone");
}

#[test]
fn a_moved_hook_on_a_foreign_event_gets_the_bridge_there_and_its_block_is_the_agents_answer() {
    let env = Env::new("tests/fixtures/install/claude");
    let settings = json!({"hooks": {"SubagentStart": [{"matcher": "Explore", "hooks": [
        {"type": "command", "command": "echo no subagents today >&2; exit 2"}
    ]}]}});
    env.write(".claude/settings.json", &serde_json::to_string_pretty(&settings).unwrap());
    let out = env.hook(&["install", "--agent", "claude", "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.json()["added_events"].as_array().unwrap().contains(&json!("SubagentStart")));
    assert!(read(&env.ws.join(".hooks/hooks.yaml")).contains("on: foreign:SubagentStart"));

    let written = read_json(&env.ws.join(".claude/settings.json"));
    let command = written["hooks"]["SubagentStart"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    let input = json!({"hook_event_name": "SubagentStart", "session_id": "s", "cwd": env.ws.display().to_string(),
        "agent_id": "a1", "agent_type": "Explore"});
    let output = env.run_as_agent(&command, Some("CLAUDE_PROJECT_DIR"), input.to_string().as_bytes());
    assert_eq!(output.code, 2, "Claude Code's blocking form: {output:?}");
    assert_eq!(output.stderr, "no subagents today\n");
    assert!(output.stdout.is_empty());
}

#[test]
fn an_agent_file_install_cannot_edit_is_one_error_line_naming_it_and_nothing_changes() {
    let env = Env::new("tests/fixtures/install/claude");
    env.write(".claude/settings.json", "{\n  // my settings\n  \"model\": \"opus\"\n}\n");
    let out = env.hook(&["install", "--agent", "claude", "--yes"]);
    common::assert_one_line_error(&out, "[WS]/.claude/settings.json`: not valid JSON");
    assert!(out.stderr.contains("(comments and trailing commas cannot be kept); nothing was changed"), "{out:#?}");

    std::fs::remove_file(env.ws.join(".claude/settings.json")).unwrap();
    std::fs::create_dir(env.ws.join(".claude/settings.json")).unwrap();
    let out = env.hook(&["install", "--agent", "claude", "--yes"]);
    common::assert_one_line_error(&out, "`[WS]/.claude/settings.json`: is not a regular file; nothing was changed");
    assert!(!env.config_home().join("installs.json").exists());
}

#[test]
fn an_install_into_a_committed_file_writes_no_absolute_path() {
    for (agent, file) in [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
        ("cursor", ".cursor/hooks.json"),
    ] {
        let env = Env::new("empty");
        let out = env.hook(&["install", "--agent", agent, "--scope", "project", "--yes"]);
        assert_eq!(out.code, 0, "{agent}: {out:#?}");
        let text = std::fs::read_to_string(env.ws.join(file)).unwrap();
        assert!(!text.contains(common::HOOK) && !text.contains("[HOME]"), "{agent}: {text}");
        let written = env.redact(&text);
        assert!(!written.contains("[WS]") && !written.contains("[HOME]"), "{agent}: {written}");
        let commands: Vec<&str> = text.match_indices("\"command\": \"").map(|(i, m)| &text[i + m.len()..]).collect();
        assert!(!commands.is_empty(), "{agent}: {text}");
        // The bare bridge command on observers; on gates, the same inside the fail-closed wrapper (in `sh -c` for
        // Codex, which runs handlers with the user's own shell).
        for command in commands {
            let bare = command.starts_with(&format!("hook bridge --protocol {agent}\""));
            let line = command.lines().next().unwrap_or_default();
            let wrapped = ["sleep ", "sh -c 'sleep "].iter().any(|start| line.starts_with(start))
                && line.contains(&format!(" hook bridge --protocol {agent} <&3 3<&- &"));
            assert!(bare || wrapped, "{agent}: {command}");
        }
    }
}

/// Another process keeps the install records' lock: install fails within its wait with one line naming the records
/// and the holder's lock file, and changes nothing.
#[test]
fn a_held_install_record_lock_makes_install_fail_in_one_line_and_change_nothing() {
    let env = project();
    let settings = read(&env.ws.join(".claude/settings.json"));
    std::fs::create_dir_all(env.config_home()).unwrap();
    let holder = common::LockHolder::new(&env.config_home().join("installs.json.lock"));
    let install = env.command(&["install", "--agent", "claude", "--yes"]);
    let out = env.finish_within(install, b"", std::time::Duration::from_secs(60));
    assert_eq!(out.code, 1, "{out:#?}");
    // The harness's --config-home draws a warning first; the error is one line.
    let errors: Vec<&str> = out.stderr.lines().filter(|l| !l.starts_with("hook: warning: ")).collect();
    assert_eq!(errors.len(), 1, "{out:#?}");
    let expected =
        "hook: error: another process is changing the install records `[HOME]/xdg-config/hooks/installs.json`";
    assert!(errors[0].starts_with(expected), "{out:#?}");
    assert!(errors[0].contains("installs.json.lock` is locked by another process"), "{out:#?}");
    assert_eq!(read(&env.ws.join(".claude/settings.json")), settings, "nothing changed");
    drop(holder);
    assert_eq!(env.hook(&["install", "--agent", "claude", "--yes"]).code, 0);
}
