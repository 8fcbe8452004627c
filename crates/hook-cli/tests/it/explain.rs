//! `hook explain`: every hook for an event, matched or not, with the reason — each reason through a real `hook`.

use crate::common::Env;

/// A workspace whose hooks are each ruled out (or not) for `pre_tool` on `Bash` by one rule.
fn workspace() -> Env {
    let env = Env::new("empty");
    env.write("guard.sh", "#!/bin/sh\necho no >&2\nexit 2\n");
    std::fs::set_permissions(env.ws.join("guard.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    env.write(
        ".hooks/hooks.yaml",
        "\
- {id: shell-guard, on: pre_tool, tools: [shell], kind: command, shell: ./guard.sh}
- {id: writes-only, on: pre_tool, tools: [write], kind: command, shell: ./guard.sh}
- {id: claude-write, on: pre_tool, matcher: '^Write$', protocol: claude, kind: command, shell: ./guard.sh}
- {id: off, on: pre_tool, enabled: false, kind: command, shell: ./guard.sh}
- {id: on-failure, on: post_tool, only_errors: true, kind: command, shell: ./guard.sh}
- {id: subagents, on: turn_end, scope: subagent, kind: prompt, message: check the subagent}
- {id: greeting, on: turn_start, kind: prompt, message: hello}
",
    );
    env
}

/// The `--json` hooks by id: (state word from `will_run`/`skip`/`mismatch.rule`, why).
fn hooks(json: &serde_json::Value) -> Vec<(String, String, String)> {
    json["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let state = match (&h["mismatch"], &h["skip"]) {
                (serde_json::Value::Object(m), _) => m["rule"].as_str().unwrap().to_owned(),
                (_, serde_json::Value::String(skip)) => skip.clone(),
                _ => "runs".to_owned(),
            };
            (h["id"].as_str().unwrap().to_owned(), state, h["why"].as_str().unwrap().to_owned())
        })
        .collect()
}

fn find<'a>(hooks: &'a [(String, String, String)], id: &str) -> &'a (String, String, String) {
    hooks.iter().find(|h| h.0 == id).unwrap_or_else(|| panic!("no `{id}` in {hooks:#?}"))
}

#[test]
fn each_hook_is_listed_with_the_rule_that_rules_it_out_or_why_it_does_not_run() {
    let env = workspace();
    env.hook(&["trust", "--all", "--yes"]);
    let out = env.hook(&["explain", "PreToolUse", "--tool", "Bash", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let json = out.json();
    assert_eq!(json["version"], 1);
    assert_eq!(json["tool_reading"], "`Bash` reads as the canonical tool `shell`");
    let hooks = hooks(&json);
    assert_eq!(hooks.len(), 8, "every hook, matched or not, the built-in gate first: {hooks:#?}");
    assert_eq!(hooks[0], ("hook.self-protection".to_owned(), "runs".to_owned(), "matches and runs".to_owned()));
    assert_eq!(find(&hooks, "shell-guard").1, "runs");
    let writes = find(&hooks, "writes-only");
    assert_eq!(writes.1, "tools");
    assert_eq!(writes.2, "does not match: `tools: [write]` names none of `Bash`, `shell`");
    let claude = find(&hooks, "claude-write");
    assert_eq!(claude.1, "matcher");
    assert_eq!(claude.2, "does not match: matcher `^Write$` (claude spelling) matches none of `Bash`");
    assert_eq!(find(&hooks, "off").1, "disabled");
    assert!(find(&hooks, "off").2.contains("`enabled: false`"));
    assert_eq!(find(&hooks, "on-failure").2, "does not match: listens to post_tool");
    assert_eq!(find(&hooks, "greeting").1, "event");

    // The same through the text form, one hook a line with its reason under it.
    let text = env.hook(&["explain", "pre_tool", "--tool", "Bash"]);
    assert!(text.stdout.starts_with("pre_tool · tool Bash · 8 hook(s): 3 match, 2 would run\n"), "{}", text.stdout);
    assert!(text.stdout.contains("  disabled     off  project · command\n"), "{}", text.stdout);
}

#[test]
fn only_errors_and_scope_are_conditions_without_an_input_and_tested_with_one() {
    let env = workspace();
    env.hook(&["trust", "--all", "--yes"]);
    let loose = env.hook(&["explain", "post_tool", "--tool", "shell", "--json"]).json();
    assert_eq!(find(&hooks(&loose), "on-failure").2, "matches and runs only when the tool call failed (`only_errors`)");
    let ok = env.hook(&["explain", "post_tool", "--tool", "shell", "--input", r#"{"command":"ls"}"#, "--json"]).json();
    assert_eq!(ok["settled"], true);
    assert_eq!(
        find(&hooks(&ok), "on-failure").2,
        "does not match: `only_errors: true`, and the tool call did not fail"
    );
    let failed = env.hook(&["explain", "PostToolUseFailure", "--tool", "shell", "--input", "{}", "--json"]).json();
    assert_eq!(find(&hooks(&failed), "on-failure").1, "runs");

    let main = env.hook(&["explain", "turn_end", "--input", "{}", "--json"]).json();
    assert_eq!(
        find(&hooks(&main), "subagents").2,
        "does not match: `scope: subagent`, and this is the main agent's run"
    );
    let sub = env.hook(&["explain", "SubagentStop", "--input", "{}", "--json"]).json();
    assert_eq!(find(&hooks(&sub), "subagents").1, "runs");
}

#[test]
fn untrusted_and_modified_hooks_match_and_say_why_they_do_not_run() {
    let env = workspace();
    let untrusted = env.hook(&["explain", "pre_tool", "--tool", "shell", "--json"]).json();
    let listed = hooks(&untrusted);
    let guard = find(&listed, "shell-guard");
    assert_eq!(guard.1, "untrusted");
    assert_eq!(guard.2, "matches, not run: the hook is not trusted in this workspace (see `hook trust`)");

    env.hook(&["trust", "--all", "--yes"]);
    env.write("guard.sh", "#!/bin/sh\necho changed >&2\nexit 2\n");
    let modified = env.hook(&["explain", "pre_tool", "--tool", "shell"]);
    assert!(modified.stdout.contains("  modified     shell-guard  project · command\n"), "{}", modified.stdout);
    assert!(modified.stdout.contains("matches, not run: what the hook runs changed since it was trusted"));
}

#[test]
fn declarations_outside_the_pipeline_are_listed_with_why() {
    let env = workspace();
    // Claude Code's own file: a handler whose `shell` names no shell Claude Code has (not loaded), and one whose
    // `if` condition does not match the call; and a hook of the same id as a project one is overridden by the local
    // file's.
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./guard.sh", "shell": "zsh"},
            {"type": "command", "command": "./guard.sh", "if": "Bash(git push *)"}]}]}}"#,
    );
    env.write(
        ".hooks/hooks.local.yaml",
        "- {id: shell-guard, on: pre_tool, tools: [shell], kind: command, shell: ./guard.sh}\n",
    );
    let json = env.hook(&["explain", "pre_tool", "--tool", "Bash", "--json"]).json();
    let elsewhere = json["elsewhere"].as_array().unwrap();
    let states: Vec<&str> = elsewhere.iter().map(|o| o["state"].as_str().unwrap()).collect();
    assert!(states.contains(&"not_loaded") && states.contains(&"overridden"), "{json:#}");
    let not_loaded = elsewhere.iter().find(|o| o["state"] == "not_loaded").unwrap();
    assert!(not_loaded["why"].as_str().unwrap().contains(".shell: expected"), "{not_loaded:#}");
    let overridden = elsewhere.iter().find(|o| o["state"] == "overridden").unwrap();
    assert_eq!(overridden["id"], "shell-guard");
    assert!(overridden["why"].as_str().unwrap().starts_with("overridden: the project.local hook of the same id in "));

    // The `if` hook is loaded and tested against the call's input.
    let out = env.hook(&["explain", "pre_tool", "--tool", "Bash", "--input", r#"{"command":"ls"}"#]);
    assert!(out.stdout.contains("`if: Bash(git push *)` does not match the call"), "{}", out.stdout);
}

#[test]
fn with_an_agent_its_own_hooks_are_its_own_and_its_spelling_is_checked() {
    let env = workspace();
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}}"#,
    );
    let json = env.hook(&["explain", "pre_tool", "--tool", "run_shell_command", "--agent", "claude", "--json"]).json();
    assert_eq!(
        json["tool_reading"],
        "`run_shell_command` is not Claude Code's spelling: another agent's name for `shell` (Claude Code calls it Bash)"
    );
    let theirs = json["agent_runs"].as_array().unwrap();
    assert_eq!(theirs.len(), 1, "{json:#}");
    assert!(theirs[0]["why"].as_str().unwrap().contains("Claude Code runs it itself, not through the bridge"));
    let ids: Vec<&str> = json["hooks"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert!(!ids.iter().any(|id| id.starts_with("claude.")), "the bridge does not run it: {ids:?}");

    let unknown = env.hook(&["explain", "pre_tool", "--tool", "Frobnicate", "--agent", "gemini", "--json"]).json();
    assert!(unknown["tool_reading"].as_str().unwrap().starts_with("Gemini CLI has no tool `Frobnicate`"));
}

#[test]
fn a_tool_on_an_event_without_one_is_refused_with_the_fix() {
    let env = workspace();
    let out = env.hook(&["explain", "turn_start", "--tool", "shell"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stderr.contains("turn_start has no such field: leave --tool out"), "{}", out.stderr);
}
