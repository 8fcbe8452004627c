//! The Gemini CLI reader (docs/declarations.md#foreign-formats): `.gemini/settings.json` `hooks` into the model, with `protocol: gemini`.

use hook_config::{Format, Matcher};
use hook_testkit::paths::fixture;
use hook_testkit::reader::{assert_issue, errors, load_project, load_text, rows, snapshot};

fn project() -> hook_config::FileLoad {
    load_project(&fixture("gemini/project"), ".gemini/settings.json", Format::Gemini)
}

fn check(settings: &str) -> hook_config::FileLoad {
    load_text(settings, ".gemini/settings.json", Format::Gemini)
}

#[test]
fn gemini_project_loads_every_documented_event_and_passes_over_other_settings() {
    let load = project();
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    let events: Vec<String> = rows(&load).into_iter().map(|r| r.on).collect();
    assert_eq!(
        events,
        [
            "pre_tool",
            "pre_tool",
            "pre_tool",
            "pre_tool",
            "pre_tool",
            "pre_tool",
            "post_tool",
            "turn_start",
            "turn_end",
            "session_start",
            "session_end",
            "session_end",
            "notification",
            "compaction",
            "foreign:BeforeModel",
        ]
    );
    assert!(load.hooks.iter().all(|h| h.format == Format::Gemini && h.protocol.as_str() == "gemini"));
    insta::assert_yaml_snapshot!("gemini_project", snapshot(&load));
}

#[test]
fn gemini_hooks_fail_open_on_every_event() {
    let load = project();
    assert!(load.hooks.iter().all(|h| h.on_error == hook_types::OnError::Ignore), "{:#?}", rows(&load));
}

#[test]
fn gemini_timeouts_are_milliseconds_with_a_60_second_default() {
    let rows = rows(&project());
    assert_eq!(rows[0].timeout_ms, 5_000, "`timeout: 5000` is 5 s");
    assert_eq!(rows[2].timeout_ms, 60_000, "no timeout: Gemini CLI's default");
    assert_eq!(rows[5].timeout_ms, 300);
}

#[test]
fn gemini_tool_matchers_stay_unanchored_regexes() {
    let load = project();
    let matcher = |i: usize| load.hooks[i].matcher.clone().unwrap();
    assert_eq!(matcher(0).pattern, "(?:run_shell_command)");
    assert_eq!(matcher(2).pattern, "(?:write_file|replace)");
    assert_eq!(matcher(3).pattern, "read_.*", "already a regex: kept as written");
    assert!(matcher(2).matches("replace") && matcher(2).matches("write_file"));
    // As in Gemini CLI, a name pattern also matches the tools whose names contain it (an MCP tool's too).
    let load =
        check(r#"{"hooks": {"BeforeTool": [{"matcher": "read", "hooks": [{"type": "command", "command": "x"}]}]}}"#);
    let read: &Matcher = load.hooks[0].matcher.as_ref().unwrap();
    assert!(read.matches("read_file") && read.matches("mcp_fs_read_many") && !read.matches("write_file"));
    // Lifecycle matchers are exact strings in Gemini CLI, as the engine's rule reads them.
    assert_eq!(
        load_project(&fixture("gemini/project"), ".gemini/settings.json", Format::Gemini).hooks[9]
            .matcher
            .as_ref()
            .map(|m| m.pattern.as_str()),
        Some("startup")
    );
}

#[test]
fn gemini_sequential_groups_mark_each_of_their_hooks_sequential() {
    let rows = rows(&project());
    let sequential: Vec<bool> = rows.iter().map(|r| r.sequential).collect();
    assert_eq!(sequential.iter().filter(|s| **s).count(), 2);
    assert!(rows[10].sequential && rows[11].sequential, "the two SessionEnd hooks");
}

#[test]
fn gemini_disabled_hooks_load_disabled_by_name_or_command() {
    let load = project();
    let disabled: Vec<String> = rows(&load).into_iter().filter(|r| !r.enabled).map(|r| r.on).collect();
    assert_eq!(disabled, ["foreign:BeforeModel"], "`legacy-audit` is in hooksConfig.disabled");

    // The older layout kept the switches inside `hooks`; a command is matched as well as a name.
    let load = check(
        r#"{"hooks": {"disabled": ["./a.sh"], "BeforeTool": [{"hooks": [
            {"type": "command", "command": "./a.sh"}, {"type": "command", "command": "./b.sh"}]}]}}"#,
    );
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    assert_eq!(load.hooks.iter().map(|h| h.enabled).collect::<Vec<_>>(), [false, true]);

    let load = check(
        r#"{"hooksConfig": {"enabled": false}, "hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#,
    );
    assert!(!load.hooks[0].enabled, "hooks switched off as a whole load disabled");
}

#[test]
fn gemini_disabling_a_hook_keeps_its_hash() {
    let on = check(r#"{"hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "x", "name": "n"}]}]}}"#);
    let off = check(
        r#"{"hooksConfig": {"disabled": ["n"]}, "hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "x", "name": "n"}]}]}}"#,
    );
    assert_eq!((on.hooks[0].enabled, off.hooks[0].enabled), (true, false));
    assert_eq!(on.hooks[0].hash, off.hooks[0].hash);
    assert_eq!(on.hooks[0].id, off.hooks[0].id);
}

#[test]
fn gemini_settings_without_hooks_load_nothing_and_say_nothing() {
    for settings in [r#"{"general": {"vimMode": true}}"#, r#"{"hooks": null}"#, r#"{"hooks": {}}"#, ""] {
        let load = check(settings);
        assert!(load.hooks.is_empty() && load.issues.is_empty(), "{settings}: {load:#?}");
    }
}

#[test]
fn gemini_unknown_event_names_load_as_foreign_observers_and_typos_are_flagged() {
    let load = check(
        r#"{"hooks": {
            "AfterModel": [{"hooks": [{"type": "command", "command": "a"}]}],
            "BeforeTol": [{"hooks": [{"type": "command", "command": "b"}]}]
        }}"#,
    );
    let events: Vec<String> = load.hooks.iter().map(|h| h.event.to_string()).collect();
    assert_eq!(events, ["foreign:AfterModel", "foreign:BeforeTol"]);
    assert_eq!(load.issues.len(), 1, "a documented foreign event is silent: {:#?}", load.issues);
    assert_issue(&load, &["settings.json:3:13: warning: hooks.BeforeTol:", "(did you mean `BeforeTool`?)"]);
}

#[test]
fn gemini_mistakes_are_reported_with_the_file_field_and_position() {
    let load = load_project(&fixture("gemini/bad"), ".gemini/settings.json", Format::Gemini);
    assert_issue(&load, &["settings.json:2:32: error: hooksConfig.disabled:", "expected a list of hook names"]);
    assert_issue(&load, &["hooks.BeforeTool[0].matchers:", "unknown key `matchers` (did you mean `matcher`?)"]);
    assert_issue(&load, &["hooks[1].type:", "hook type `plugin` is not supported"]);
    assert_issue(&load, &["error: hooks[2]:", "missing `type`"]);
    assert_issue(&load, &["error: hooks[3]:", "needs `command`"]);
    assert_issue(&load, &["hooks[4].timeout:", "expected a whole number of milliseconds, found a string"]);
    assert_issue(&load, &["warning: hooks[5].timout:", "(did you mean `timeout`?)"]);
    assert_issue(&load, &["hooks.SessionEnd[0].matcher:", "cannot filter SessionEnd"]);
    assert_issue(&load, &["hooks.AfterTool[0].hooks:", "expected a list of hooks, found a mapping"]);
    assert_issue(&load, &["hooks.Notification:", "expected a list of hook groups"]);
    assert_issue(&load, &["hooks[8].sequential:", "expected `true` or `false`, found a string"]);
    // What is sound still loads: the typo'd event (as a foreign observer), the hook with an unknown key, the
    // SessionEnd hook without its matcher, and the last SessionStart hook.
    let shells: Vec<String> = rows(&load).into_iter().map(|r| r.shell).collect();
    assert_eq!(shells, ["./guard.sh", "./guard.sh", "./bye.sh", "./still-loads.sh"]);
    insta::assert_yaml_snapshot!("gemini_bad", errors(&load));
}

#[test]
fn gemini_settings_may_hold_comments_as_gemini_cli_allows() {
    let load = check(
        "{\n  // Guard the shell.\n  \"hooks\": { /* before tools */ \"BeforeTool\": [{\"hooks\": [\n    {\"type\": \"command\", \"command\": \"./a.sh // not a comment\", \"timeout\": \"soon\"}]}]}\n}\n",
    );
    assert_issue(&load, &["settings.json:4:74: error: hooks[0].timeout: expected a whole number of milliseconds"]);
    let load = check(
        "{\"hooks\": {\"AfterTool\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./a.sh // kept\"}]}]}} // end",
    );
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    assert_eq!(rows(&load)[0].shell, "./a.sh // kept");
}
