//! The guard protects itself: in a workspace where `hook install --agent claude` ran, every way a model would try to
//! switch its guards off through its own tools meets the built-in gate `hook.self-protection` in the real bridge
//! (an ask where the agent has a person to ask, a deny where it runs unattended or cannot ask), while reads and
//! ordinary edits pass. The engine's loosening commands refuse to run as an agent's tool call.

use crate::common;

use common::{Env, Out};
use serde_json::{Value, json};

fn installed() -> Env {
    let env = Env::new("gates");
    let out = env.hook(&["install", "--agent", "claude"]);
    assert_eq!(out.code, 0, "{out:#?}");
    env
}

/// A PreToolUse payload in `agent`'s own shape (Claude Code and Codex share it), in permission `mode`.
fn call(env: &Env, tool: &str, input: Value, mode: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": env.ws, "permission_mode": mode,
        "tool_name": tool, "tool_input": input, "tool_use_id": "t1", "transcript_path": null, "turn_id": "u"})
}

fn protected_by_the_gate(out: &Out) -> bool {
    out.stdout.contains("hook.self-protection") || out.stderr.contains("hook.self-protection")
}

/// Each row of what a model tries, as Claude Code's tool call.
fn attempts(env: &Env) -> Vec<(&'static str, &'static str, Value)> {
    let trust = env.trust_store().display().to_string();
    vec![
        ("Write of {} over the settings", "Write", json!({"file_path": ".claude/settings.json", "content": "{}"})),
        ("echo into the settings", "Bash", json!({"command": "echo {} > .claude/settings.json"})),
        ("sed -i on the settings", "Bash", json!({"command": "sed -i 's/hook/true/' .claude/settings.json"})),
        ("rm of the workspace hooks", "Bash", json!({"command": "rm .hooks/hooks.yaml"})),
        (
            "an Edit that moves a guard off pre_tool",
            "Edit",
            json!({"file_path": env.ws.join(".hooks/hooks.yaml"), "old_string": "on: pre_tool",
                "new_string": "on: post_tool"}),
        ),
        ("a new file in .hooks", "Write", json!({"file_path": "./sub/../.hooks/off.yaml", "content": "version: 1"})),
        ("a write to the trust store", "Bash", json!({"command": format!("printf '{{}}' >| {trust}")})),
        ("hook trust through the shell", "Bash", json!({"command": "hook trust --all --yes"})),
        ("hook uninstall through the shell", "Bash", json!({"command": "cd . && hook uninstall --agent claude"})),
        ("a hook shadowing the binary on PATH", "Bash", json!({"command": "cp /bin/true /usr/local/bin/hook"})),
        ("the user's settings by ~", "Bash", json!({"command": "touch ~/.claude/settings.json"})),
        // On a file system that folds case (macOS's, Windows') these are the settings file and the hooks folder.
        ("the settings in another case", "Write", json!({"file_path": ".Claude/Settings.JSON", "content": "{}"})),
        ("the hooks folder in another case", "Bash", json!({"command": "rm -rf .HOOKS"})),
        (
            "a dynamic target in a line naming the settings",
            "Bash",
            json!({"command": "F=.claude/settings.json; echo {} > \"$F\""}),
        ),
        (
            "python writing the settings",
            "Bash",
            json!({"command": "python3 -c 'open(\".claude/settings.json\",\"w\")'"}),
        ),
    ]
}

#[test]
fn each_way_a_model_would_turn_its_guards_off_is_asked_about_in_claude_code() {
    let env = installed();
    for (what, tool, input) in attempts(&env) {
        let out = env.bridge("claude", &call(&env, tool, input, "default"));
        assert!(protected_by_the_gate(&out), "{what}: {out:#?}");
        assert!(out.stdout.contains("\"permissionDecision\":\"ask\"") || out.denies("claude"), "{what}: {out:#?}");
    }
}

#[test]
fn unattended_each_is_denied_with_the_way_to_do_it_by_hand() {
    let env = installed();
    for (what, tool, input) in attempts(&env) {
        let out = env.bridge("claude", &call(&env, tool, input, "bypassPermissions"));
        assert!(out.denies("claude") && protected_by_the_gate(&out), "{what}: {out:#?}");
        assert!(out.stdout.contains("your own terminal") || out.stderr.contains("your own terminal"), "{what}");
    }
}

#[test]
fn codex_which_cannot_ask_is_denied_its_patch_and_its_shell_line() {
    let env = installed();
    let patch = "*** Begin Patch\n*** Update File: .codex/hooks.json\n@@\n-x\n+y\n*** End Patch\n";
    for input in [
        call(&env, "apply_patch", json!({"command": patch}), "default"),
        call(&env, "Bash", json!({"command": "hook trust --all --yes"}), "default"),
        call(&env, "Bash", json!({"command": "echo {} > .claude/settings.json"}), "default"),
    ] {
        let out = env.bridge("codex", &input);
        assert!(out.denies("codex") && protected_by_the_gate(&out), "{input}: {out:#?}");
    }
}

#[test]
fn reads_and_ordinary_edits_pass_the_gate() {
    let env = installed();
    for (tool, input) in [
        ("Bash", json!({"command": "cat .claude/settings.json"})),
        ("Bash", json!({"command": "hook inspect && git diff -- .claude/settings.json"})),
        ("Bash", json!({"command": "echo x > notes.txt 2>&1; cp notes.txt other.txt"})),
        ("Read", json!({"file_path": ".claude/settings.json"})),
        ("Write", json!({"file_path": "src/main.rs", "content": "fn main() {}"})),
        ("Edit", json!({"file_path": "README.md", "old_string": "a", "new_string": "b"})),
    ] {
        let out = env.bridge("claude", &call(&env, tool, input.clone(), "bypassPermissions"));
        assert!(!protected_by_the_gate(&out), "{input}: {out:#?}");
    }
}

#[test]
fn the_loosening_commands_refuse_inside_an_agent_and_the_others_still_run() {
    let env = installed();
    for (var, args) in [
        ("CLAUDECODE", &["trust", "--all", "--yes"][..]),
        ("CODEX_THREAD_ID", &["uninstall", "--agent", "claude"]),
        ("CLAUDECODE", &["install", "--agent", "claude", "--scope", "user"]),
    ] {
        let mut command = env.command(args);
        command.env(var, "1");
        let out = env.finish(command);
        assert_ne!(out.code, 0, "{args:?}: {out:#?}");
        assert!(out.stderr.contains("your own terminal"), "{args:?}: {out:#?}");
    }
    for args in [&["inspect"][..], &["validate"]] {
        let mut command = env.command(args);
        command.env("CLAUDECODE", "1");
        let out = env.finish(command);
        assert!(!out.stderr.contains("your own terminal"), "{args:?}: {out:#?}");
    }
    // A person at a terminal is unaffected.
    let out = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
}

#[test]
fn only_the_managed_file_turns_the_gate_off_and_inspect_shows_which() {
    let env = installed();
    let settings =
        call(&env, "Write", json!({"file_path": ".claude/settings.json", "content": "{}"}), "bypassPermissions");
    let inspect = env.inspect_json();
    assert_eq!(inspect["built_in"][0]["id"], "hook.self-protection", "{inspect:#}");
    assert_eq!(inspect["built_in"][0]["enabled"], true);
    // A user file cannot: the key is ignored there with a warning, and the gate still denies.
    let user = env.config_home().join("hooks.yaml");
    std::fs::create_dir_all(env.config_home()).unwrap();
    std::fs::write(&user, "version: 1\nself_protection: false\nhooks: []\n").unwrap();
    let out = env.hook(&["validate"]);
    assert!(
        out.stdout.contains("only has an effect in the managed file")
            || out.stderr.contains("only has an effect in the managed file"),
        "{out:#?}"
    );
    assert!(env.bridge("claude", &settings).denies("claude"));
    std::fs::remove_file(&user).unwrap();
    // The managed file can.
    std::fs::write(env.home.join("managed.yaml"), "version: 1\nself_protection: false\nhooks: []\n").unwrap();
    let out = env.bridge("claude", &settings);
    assert!(!protected_by_the_gate(&out), "{out:#?}");
    let inspect = env.inspect_json();
    assert_eq!(inspect["self_protection_off"], true, "{inspect:#}");
    assert_eq!(inspect["built_in"][0]["enabled"], false);
    let text = env.hook(&["inspect"]);
    assert!(text.stdout.contains("hook.self-protection  pre_tool · OFF"), "{}", text.stdout);
}
