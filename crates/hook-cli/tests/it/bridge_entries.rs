//! After `hook install`, the agent's file holds a bridge entry on every event. Every host that loads the workspace
//! — `hook run` here, with everything trusted — runs each hook once and never that entry (which would run them all a
//! second time through the bridge), and `hook inspect` lists the entry with why it never runs.

use crate::common;

use common::{Env, Out, read_json};
use serde_json::json;

/// The Claude Code fixture with a marking hook in the agent's file and one in the native file, installed (the agent's
/// hook moved to the native file, the bridge in its place) and everything trusted.
fn installed() -> Env {
    let env = Env::new("tests/fixtures/install/claude");
    let mark = |who: &str| format!("echo {who} >> \"$HOME/ran.log\"");
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": mark("claude")}]}
    ]}});
    env.write(".claude/settings.json", &serde_json::to_string_pretty(&settings).unwrap());
    env.write(
        ".hooks/hooks.yaml",
        &format!("- id: native-mark\n  on: pre_tool\n  kind: command\n  shell: {}\n", json!(mark("native"))),
    );
    let out = env.hook(&["install", "--agent", "claude", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let trust = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(trust.code, 0, "{trust:#?}");
    assert!(trust.stdout.contains("trusted native-mark"), "{trust:#?}");
    assert!(!trust.stdout.contains("bridge"), "a bridge entry is never offered for trust: {trust:#?}");
    env
}

/// `hook run pre_tool` for a Bash call, with `extra` flags; returns the output and the marks left, sorted. (The log
/// is outside the workspace: a file a command names under it is part of its fingerprint.)
fn run(env: &Env, extra: &[&str]) -> (Out, Vec<String>) {
    let _ = std::fs::remove_file(env.home.join("ran.log"));
    let args = ["run", "pre_tool", "--tool", "Bash", "--input", r#"{"command":"make"}"#, "--json", "--no-receipts"];
    let out = env.hook(&[&args[..], extra].concat());
    let mut marks: Vec<String> =
        std::fs::read_to_string(env.home.join("ran.log")).unwrap_or_default().lines().map(str::to_owned).collect();
    marks.sort();
    (out, marks)
}

#[test]
fn after_install_hook_run_runs_each_hook_once_and_never_the_bridge_entry() {
    let env = installed();
    for flags in [&[][..], &["--trust-workspace"][..]] {
        let (out, marks) = run(&env, flags);
        assert_eq!(out.code, 0, "{flags:?}: {out:#?}");
        assert_eq!(marks, ["claude", "native"], "{flags:?}: each hook once, none through a bridge: {out:#?}");
        let json = out.json();
        let runs: Vec<(&str, &str, &str)> = json["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["source"].as_str().unwrap(), r["protocol"].as_str().unwrap(), r["status"].as_str().unwrap()))
            .collect();
        assert_eq!(
            runs,
            [("[WS]/.hooks/hooks.yaml", "native", "completed"), ("[WS]/.hooks/hooks.yaml", "claude", "completed")],
            "{flags:?}: the two hooks, nothing from the agent's file, not even skipped"
        );
    }
}

#[test]
fn inspect_says_why_the_bridge_entry_never_runs() {
    let env = installed();
    let settings = read_json(&env.ws.join(".claude/settings.json"));
    let events = settings["hooks"].as_object().unwrap().len();
    assert!(events >= 5, "the bridge is on every event: {settings:#}");

    let report = env.inspect_json();
    let excluded = report["excluded"].as_array().unwrap();
    assert_eq!(excluded.len(), events, "one entry per event: {report:#}");
    for entry in excluded {
        assert_eq!(entry["source"], "[WS]/.claude/settings.json", "{entry:#}");
        assert_eq!((entry["reason"].as_str(), entry["format"].as_str()), (Some("bridge"), Some("claude")));
        assert!(entry["runs"].as_str().unwrap().contains(" bridge --protocol claude"), "{entry:#}");
    }
    let sources: Vec<&str> =
        report["hooks"].as_array().unwrap().iter().map(|h| h["source"].as_str().unwrap()).collect();
    assert!(sources.iter().all(|s| !s.ends_with(".claude/settings.json")), "{sources:?}");

    let text = env.hook(&["inspect"]);
    assert_eq!(text.code, 0, "{text:#?}");
    assert!(text.stdout.contains(&format!("── never run ({events}) ")), "{}", text.stdout);
    // Said once, and the identical entries of the file grouped: one line for what they run, then their events.
    let why = "why: it runs `hook bridge`, which its agent calls to reach this engine; run as\n    a hook here it would \
               run the workspace's hooks twice";
    assert_eq!(text.stdout.matches(why).count(), 1, "{}", text.stdout);
    let section = text.stdout.split("── never run").nth(1).unwrap().split("\n\n").next().unwrap();
    assert!(section.lines().count() < 12, "{events} entries in a few lines:\n{section}");
    assert!(section.contains(" × "), "grouped:\n{section}");
}
