//! `async: true` observers and host-evaluated hooks through the real `hook` binary: `hook inspect` shows each kind,
//! `hook run` waits for its async hooks before it exits, and the bridge, which has no model, says so once per
//! session. The bridge's detached runner of async hooks is `async_runner`.

use crate::common;

use common::Env;
use serde_json::json;

fn user_hooks(env: &Env, yaml: &str) {
    std::fs::create_dir_all(env.config_home()).unwrap();
    std::fs::write(env.config_home().join("hooks.yaml"), yaml).unwrap();
}

/// Every receipt written under the test's state directory.
fn receipts(env: &Env) -> Vec<serde_json::Value> {
    let mut found = Vec::new();
    let mut dirs = vec![env.home.join("state")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(&path).unwrap();
                found.extend(text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()));
            }
        }
    }
    found
}

/// The lines `hook inspect` shows for one hook: its id line and the indented lines below it.
fn block(text: &str, id: &str) -> String {
    let mut lines = text.lines().skip_while(|l| !l.trim_start().starts_with(&format!("{id} ")));
    let first = lines.next().unwrap_or_else(|| panic!("no `{id}` in {text}"));
    let rest = lines.take_while(|l| l.starts_with("    "));
    std::iter::once(first).chain(rest).collect::<Vec<_>>().join("\n")
}

#[test]
fn hook_inspect_shows_each_kind_and_which_hooks_are_async() {
    let env = Env::new("empty");
    user_hooks(
        &env,
        "- {id: k.command, on: pre_tool, kind: command, shell: 'exit 0'}\n\
         - {id: k.prompt, on: turn_start, kind: prompt, message: Run the tests.}\n\
         - {id: k.effect, on: pre_tool, kind: effect, effect: {kind: protect_path, path: .env, reason: secrets}}\n\
         - {id: k.evaluated, on: pre_tool, kind: evaluated, prompt: Is this command safe?}\n\
         - {id: k.async, on: post_tool, kind: command, async: true, shell: 'exit 0'}\n",
    );
    let out = env.hook(&["inspect"]);
    assert_eq!(out.code, 0, "{out:#?}");
    for (id, kind) in [
        ("k.command", "pre_tool · command"),
        ("k.prompt", "turn_start · prompt"),
        ("k.effect", "pre_tool · effect"),
        ("k.evaluated", "pre_tool · evaluated"),
        ("k.async", "post_tool · command"),
    ] {
        let block = block(&out.stdout, id);
        assert!(block.contains(kind), "{id}: {block}");
    }
    assert!(out.stdout.contains("evaluated by a model: Is this command safe?"), "{out:#?}");
    let async_block = block(&out.stdout, "k.async");
    assert!(async_block.lines().any(|l| l.trim() == "async"), "{async_block}");

    let json = env.inspect_json();
    let kinds: Vec<&str> = json["hooks"].as_array().unwrap().iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["command", "prompt", "effect", "evaluated", "command"]);
    assert_eq!(json["hooks"][4]["filters"]["async"], true);
}

#[test]
fn hook_run_returns_its_verdict_and_waits_for_its_async_hook_before_it_exits() {
    let env = Env::new("empty");
    let marker = env.home.join("async-done");
    user_hooks(
        &env,
        &format!(
            "- {{id: slow-log, on: post_tool, kind: command, async: true, shell: 'sleep 2; echo done > {}'}}\n",
            marker.display()
        ),
    );
    let out = env.hook(&["run", "post_tool", "--tool", "shell", "--input", "{}"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("async    slow-log started in the background"), "{out:#?}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "done\n", "hook run exited before its async hook ended");
    let receipts = receipts(&env);
    let mine: Vec<&serde_json::Value> = receipts.iter().filter(|r| r["hook_id"] == "slow-log").collect();
    assert_eq!(mine.len(), 1, "{receipts:#?}");
    assert_eq!(mine[0]["outcome"], "command_ok");
}

#[test]
fn the_bridge_has_no_model_and_says_so_once_per_session_while_a_native_evaluated_gate_fails_closed() {
    let env = Env::new("empty");
    user_hooks(&env, "- {id: judge, on: pre_tool, kind: evaluated, prompt: Is this command safe?}\n");
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "no-model", "cwd": "/", "tool_name": "Bash",
                       "tool_input": {"command": "ls"}});
    let first = env.bridge("claude", &input);
    assert!(first.denies("claude"), "{first:#?}");
    assert!(first.stdout.contains("this host has no model to evaluate prompt hooks"), "{first:#?}");
    let second = env.bridge("claude", &input);
    assert!(second.denies("claude"), "{second:#?}");
    assert!(!second.stdout.contains("no model to evaluate"), "once per session: {second:#?}");
}
