//! Cursor's hooks end to end: a project with `.cursor/hooks.json` and a suite of hook scripts, through the real
//! `hook` binary, reaching the decisions Cursor documents.

use crate::import_support;

use import_support::{agent_env, cases, run_cases};

#[test]
fn cursor_script_suite_reaches_the_decisions_cursor_documents() {
    let env = agent_env("cursor");
    let decisions = run_cases(&env, &cases("cursor"));
    assert_eq!(decisions.len(), cases("cursor").len());
}

#[test]
fn cursor_inspect_shows_the_fail_closed_hook_and_the_per_tool_filters() {
    let env = agent_env("cursor");
    let json = env.inspect_json();
    let hooks = json["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 11);
    assert!(hooks.iter().all(|h| h["format"] == "cursor" && h["protocol"] == "cursor"));
    let closed: Vec<&str> =
        hooks.iter().filter(|h| h["on_error"] == "deny").map(|h| h["filters"]["matcher"].as_str().unwrap()).collect();
    assert_eq!(closed, ["(?i)^shell$"], "only the failClosed shell guard denies on failure");
    insta::assert_yaml_snapshot!("cursor_inspect", json);
}
