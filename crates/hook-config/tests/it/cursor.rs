//! The Cursor reader (docs/events.md, docs/declarations.md#foreign-formats): `.cursor/hooks.json` into the model, with `protocol: cursor`.

use hook_config::{FileLoad, Format};
use hook_testkit::paths::fixture;
use hook_testkit::reader::{assert_issue, errors, load_project, load_text, rows, snapshot};
use hook_types::OnError;

fn project() -> FileLoad {
    load_project(&fixture("cursor/project"), ".cursor/hooks.json", Format::Cursor)
}

fn check(hooks: &str) -> FileLoad {
    load_text(hooks, ".cursor/hooks.json", Format::Cursor)
}

#[test]
fn cursor_project_maps_each_event_to_its_canonical_event_and_filters() {
    let load = project();
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    let rows = rows(&load);
    let events: Vec<(&str, Option<&str>)> = rows.iter().map(|r| (r.on.as_str(), r.matcher.as_deref())).collect();
    assert_eq!(
        events,
        [
            ("pre_tool", Some("(?i)^shell$")),
            ("pre_tool", Some("(?i)^mcp(__|:)")),
            ("pre_tool", Some("(?i)^read$")),
            ("pre_tool", Some("Write")),
            ("post_tool", Some("(?i)^(edit|write)$")),
            ("post_tool", None),
            ("turn_start", None),
            ("turn_end", None),
            ("turn_end", None),
            ("session_start", None),
            ("foreign:afterAgentResponse", None),
        ]
    );
    assert!(rows[5].only_errors, "postToolUseFailure: post_tool on failed calls only");
    assert_eq!(rows[8].scope, Some("subagent"), "subagentStop: a subagent's turn_end");
    assert_eq!(rows[7].scope, None, "stop: the main agent's turn_end");
    insta::assert_yaml_snapshot!("cursor_project", snapshot(&load));
}

#[test]
fn cursor_per_tool_events_fire_for_exactly_the_calls_the_payload_names_after_them() {
    let load = project();
    let fires = |i: usize, tool: &str| load.hooks[i].matcher.as_ref().is_none_or(|m| m.matches(tool));
    assert!(fires(0, "shell") && fires(0, "Shell") && !fires(0, "shell_exec"), "beforeShellExecution");
    assert!(fires(1, "mcp__db__query") && fires(1, "mcp:db:query") && !fires(1, "shell"), "beforeMCPExecution");
    assert!(fires(2, "Read") && !fires(2, "read_many"), "beforeReadFile");
    assert!(fires(4, "edit") && fires(4, "Write") && !fires(4, "read"), "afterFileEdit");
    assert!(fires(3, "Write") && !fires(3, "Shell"), "preToolUse keeps its own matcher");
}

#[test]
fn cursor_fail_closed_is_on_error_deny_and_everything_else_fails_open() {
    let load = project();
    let policies: Vec<OnError> = load.hooks.iter().map(|h| h.on_error).collect();
    assert_eq!(policies[0], OnError::Deny, "failClosed: true");
    assert!(policies[1..].iter().all(|p| *p == OnError::Ignore), "{policies:?}");
    // `failClosed: false` says what the protocol already does: the same hook, the same hash.
    let open = check(r#"{"version": 1, "hooks": {"preToolUse": [{"command": "x", "failClosed": false}]}}"#);
    let plain = check(r#"{"version": 1, "hooks": {"preToolUse": [{"command": "x"}]}}"#);
    assert_eq!(open.hooks[0].hash, plain.hooks[0].hash);
}

#[test]
fn cursor_timeouts_are_seconds_with_a_30_second_default() {
    let rows = rows(&project());
    assert_eq!(rows[0].timeout_ms, 1_000);
    assert_eq!(rows[1].timeout_ms, 10_000);
    assert_eq!(rows[2].timeout_ms, 30_000);
    let load = check(r#"{"version": 1, "hooks": {"postToolUse": [{"command": "x", "timeout": 2.5}]}}"#);
    assert_eq!(hook_testkit::reader::row(&load.hooks[0]).timeout_ms, 2_500);
}

#[test]
fn cursor_files_without_version_load_with_a_warning_and_other_versions_load_nothing() {
    let load = check(r#"{"hooks": {"stop": [{"command": "x"}]}}"#);
    assert_eq!(load.hooks.len(), 1);
    assert_issue(&load, &["warning:", "no `\"version\": 1`"]);
    let load = check(r#"{"version": 2, "hooks": {"stop": [{"command": "x"}]}}"#);
    assert!(load.hooks.is_empty());
    assert_issue(&load, &["hooks.json:1:13: error: version: unsupported version 2", "nothing in this file was loaded"]);
    let load = check(r#"{"version": 1}"#);
    assert!(load.hooks.is_empty() && load.issues.is_empty(), "{load:#?}");
}

#[test]
fn cursor_mistakes_are_reported_with_the_file_field_and_position() {
    let load = load_project(&fixture("cursor/bad"), ".cursor/hooks.json", Format::Cursor);
    assert_issue(&load, &["hooks.json:3:3: warning: hook: unknown key `hook` (did you mean `hooks`?)"]);
    assert_issue(&load, &["warning: hooks.beforeShellExec:", "(did you mean `beforeShellExecution`?)"]);
    assert_issue(&load, &["warning: hooks[1].matcher:", "beforeShellExecution already names its tools"]);
    assert_issue(&load, &["error: hooks[2].timeout: expected a number of seconds, found a string"]);
    assert_issue(&load, &["error: hooks[3].failClosed: expected `true` or `false`, found a string"]);
    assert_issue(&load, &["warning: hooks[4].failclosed:", "(did you mean `failClosed`?)"]);
    assert_issue(&load, &["error: hooks[5].type:", "`prompt` hooks are evaluated by Cursor's own model"]);
    assert_issue(&load, &["error: hooks[6]:", "needs `command`"]);
    assert_issue(&load, &["error: hooks[7].timeout:", "found a negative number"]);
    assert_issue(&load, &["warning: hooks[8].loop_limit:", "the host's cap on continuations"]);
    assert_issue(&load, &["warning: hooks[9].matcher:", "cannot filter sessionEnd"]);
    assert_issue(&load, &["error: hooks.afterFileEdit: expected a list of hooks, found a mapping"]);
    // Sound entries still load: the typo'd event as a foreign observer, the entries with only warnings.
    let loaded: Vec<(String, String)> = rows(&load).into_iter().map(|r| (r.on, r.shell)).collect();
    assert_eq!(loaded.len(), 6, "{loaded:#?}");
    assert_eq!(loaded[0], ("foreign:beforeShellExec".to_owned(), "./guard.sh".to_owned()));
    insta::assert_yaml_snapshot!("cursor_bad", errors(&load));
}
