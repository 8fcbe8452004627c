//! An unreadable gate fails closed: a declaration dropped for an error on a gate — or one whose event cannot be told,
//! or a file that does not parse — closes that gate (every gate, when the event is unknown) with a reason naming
//! the file, line and column; a broken declaration on another event, or a disabled one, closes nothing. Each case is
//! a real file text as a user would mistype it.

use std::fs;
use std::path::Path;

use hook_config::{Config, FileContext, Format, GATES, InspectReport, Layout, LoadOptions, load, parse_str};
use hook_types::{Event, Origin};

/// The gates `text` (read as `file` of `format`) closes, each as `(events, location)`, the location being the
/// reason without its fixed words.
fn closed(format: Format, file: &str, text: &str) -> Vec<(Vec<String>, String)> {
    let cx =
        FileContext { origin: Origin::Project, workspace: Path::new("/ws"), root: Path::new("/ws"), source_id: None };
    let load = parse_str(text, &Path::new("/ws").join(file), format, &cx);
    load.closed_gates
        .iter()
        .map(|gate| {
            let reason = gate.reason();
            let location = reason
                .strip_prefix("the hook configuration has errors: ")
                .and_then(|r| r.strip_suffix(" (run hook validate)"))
                .unwrap_or_else(|| panic!("the reason's fixed words: {reason}"));
            (gate.events.iter().map(ToString::to_string).collect(), location.to_owned())
        })
        .collect()
}

fn all_gates() -> Vec<String> {
    GATES.iter().map(ToString::to_string).collect()
}

/// One gate closed, for `events`, at a location starting with `at`.
fn check(format: Format, file: &str, text: &str, events: &[&str], at: &str) {
    let closed = closed(format, file, text);
    assert_eq!(closed.len(), 1, "{closed:#?}");
    assert_eq!(closed[0].0, events, "{closed:#?}");
    assert!(closed[0].1.starts_with(at), "expected the location to start with {at:?}: {closed:#?}");
}

const GUARD: &str = "- id: sibling\n  on: turn_start\n  kind: prompt\n  message: still loads\n";

#[test]
fn a_misspelt_on_key_leaves_the_event_unknown_and_closes_every_gate() {
    let text = format!("{GUARD}- evnt: pre_tool\n  kind: effect\n  effect: {{kind: block_tool, reason: no}}\n");
    let gates = all_gates();
    let gates: Vec<&str> = gates.iter().map(String::as_str).collect();
    check(
        Format::Native,
        ".hooks/hooks.yaml",
        &text,
        &gates,
        "/ws/.hooks/hooks.yaml:5:3: hooks[1].evnt: unknown field",
    );
}

#[test]
fn an_unknown_event_name_closes_every_gate() {
    let text = format!("{GUARD}- on: pre_tol\n  kind: effect\n  effect: {{kind: block_tool, reason: no}}\n");
    let closed = closed(Format::Native, ".hooks/hooks.yaml", &text);
    assert_eq!(closed.len(), 1, "{closed:#?}");
    assert_eq!(closed[0].0, all_gates());
    assert_eq!(
        closed[0].1,
        "/ws/.hooks/hooks.yaml:5:7: hooks[1].on: unknown event `pre_tol` (did you mean `pre_tool`?)"
    );
}

#[test]
fn a_yaml_file_that_does_not_parse_closes_every_gate() {
    // A tab where YAML wants spaces: nothing of the file is read, so any gate could have had a guard in it.
    let text = "- on: pre_tool\n\tkind: effect\n  effect: {kind: block_tool, reason: no}\n";
    let closed = closed(Format::Native, ".hooks/hooks.yaml", text);
    assert_eq!(closed.len(), 1, "{closed:#?}");
    assert_eq!(closed[0].0, all_gates());
    assert!(closed[0].1.starts_with("/ws/.hooks/hooks.yaml:2:1: syntax error: "), "{closed:#?}");
    // Bad JSON too, in any format.
    let closed = closed_json();
    assert_eq!(closed[0].0, all_gates());
    assert!(closed[0].1.starts_with("/ws/.claude/settings.json:1:"), "{closed:#?}");
}

fn closed_json() -> Vec<(Vec<String>, String)> {
    closed(Format::Claude, ".claude/settings.json", r#"{"hooks": {"PreToolUse": [}}"#)
}

#[test]
fn a_misspelt_effect_field_on_pre_tool_closes_pre_tool_only() {
    let text = format!("{GUARD}- on: pre_tool\n  kind: effect\n  effect: {{kind: block_tool, reasn: no}}\n");
    check(
        Format::Native,
        ".hooks/hooks.yaml",
        &text,
        &["pre_tool"],
        "/ws/.hooks/hooks.yaml:7:30: hooks[1].effect.reasn: unknown field `reasn` in effect `block_tool`",
    );
}

#[test]
fn each_gate_closes_alone_and_other_events_close_nothing() {
    let broken = |on: &str| format!("{GUARD}- on: {on}\n  kind: prompt\n  message: ''\n");
    for gate in ["pre_tool", "turn_start", "permission_request", "PreToolUse", "UserPromptSubmit"] {
        let canonical = Event::parse(gate).unwrap().event.to_string();
        check(Format::Native, "hooks.yaml", &broken(gate), &[&canonical], "/ws/hooks.yaml:7:12: hooks[1].message:");
    }
    for other in ["post_tool", "turn_end", "session_start", "compaction", "notification"] {
        assert_eq!(closed(Format::Native, "hooks.yaml", &broken(other)), [], "{other}");
    }
    // Another agent's event in a native file without its protocol is an error, but a known event that is no gate.
    assert_eq!(closed(Format::Native, "hooks.yaml", &broken("'foreign:SubagentStart'")), []);
}

#[test]
fn a_disabled_broken_declaration_closes_nothing() {
    let text = format!("{GUARD}- on: pre_tool\n  enabled: false\n  kind: effect\n  effect: {{kind: block_tol}}\n");
    assert_eq!(closed(Format::Native, "hooks.yaml", &text), []);
}

#[test]
fn an_entry_that_is_not_a_hook_and_a_file_of_the_wrong_shape_close_every_gate() {
    let closed_entry = closed(Format::Native, "hooks.yaml", &format!("{GUARD}- just a string\n"));
    assert_eq!(closed_entry.len(), 1);
    assert_eq!(closed_entry[0].0, all_gates());
    let closed_shape = closed(Format::Native, "hooks.yaml", "version: 2\nhooks: []\n");
    assert_eq!(closed_shape[0].0, all_gates(), "an unsupported version reads nothing");
}

#[test]
fn an_agents_own_file_closes_the_gate_of_the_entry_it_drops() {
    // Claude Code's file: the handler under PreToolUse has no command; the one under PostToolUse has none either.
    let settings = r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command"}]}],
  "PostToolUse": [{"hooks": [{"type": "command"}]}]
}}"#;
    let closed = closed(Format::Claude, ".claude/settings.json", settings);
    assert_eq!(closed.len(), 1, "{closed:#?}");
    assert_eq!(closed[0].0, ["pre_tool"]);
    assert!(closed[0].1.starts_with("/ws/.claude/settings.json:2:"), "{closed:#?}");
    // A clio-coder file with an event clio-coder does not know either: the event cannot be told.
    let clio = "- on: before_tol\n  kind: prompt\n  message: x\n";
    assert_eq!(closed_clio(clio)[0].0, all_gates());
}

fn closed_clio(text: &str) -> Vec<(Vec<String>, String)> {
    closed(Format::Clio, ".clio-coder/hooks.yaml", text)
}

/// A workspace with `project` as its native project file, and `managed` as the managed file if given.
fn load_workspace(project: &str, managed: Option<&str>) -> Config {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    fs::create_dir_all(root.join("ws/.hooks")).unwrap();
    fs::write(root.join("ws/.hooks/hooks.yaml"), project).unwrap();
    if let Some(managed) = managed {
        fs::write(root.join("managed.yaml"), managed).unwrap();
    }
    let layout = Layout::new(root.join("ws"))
        .with_home(None)
        .with_config_home(root.join("cfg"))
        .with_managed_file(root.join("managed.yaml"));
    load(&layout, &LoadOptions::default()).unwrap()
}

#[test]
fn a_broken_file_in_an_untrusted_project_still_fails_closed() {
    // Nothing of the project is trusted, yet a narrowing effect hook would have run without trust: the broken one
    // may have been such a guard.
    let config = load_workspace("- on: pre_tool\n  kind: effect\n  effect: {kind: block_tool, reasn: no}\n", None);
    assert!(config.hooks.is_empty());
    assert_eq!(config.closed_gates.len(), 1, "{:#?}", config.closed_gates);
    assert_eq!(config.closed_gates[0].events, [Event::PreTool]);
    assert_eq!(config.closed_gates[0].origin, Origin::Project);
    assert!(config.closed_gates[0].issue.source.ends_with("ws/.hooks/hooks.yaml"));

    // The inspect report shows it, first thing after the header, and in its JSON.
    let report = InspectReport::new(&config);
    let text = report.render_text();
    let at = text.find("── closed gates (1): deny until fixed ").unwrap_or_else(|| panic!("{text}"));
    assert!(text[at..].contains("\n  pre_tool\n    the hook configuration has errors:"), "{text}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["closed_gates"][0]["events"], serde_json::json!(["pre_tool"]));
    assert_eq!(json["closed_gates"][0]["line"], 3);
}

#[test]
fn under_only_managed_only_the_managed_files_errors_close_gates() {
    let managed = "version: 1\nonly_managed: true\nhooks:\n  - {on: turn_start, kind: prompt, message: hi}\n";
    let config = load_workspace("- on: pre_tol\n  kind: prompt\n  message: x\n", Some(managed));
    assert!(config.only_managed);
    assert_eq!(config.closed_gates, [], "the project's hooks do not run under only_managed, readable or not");
    let broken_policy = "version: 1\nonly_managed: true\nhooks:\n  - {on: turn_start, kind: prompt, mesage: hi}\n";
    let config = load_workspace("[]\n", Some(broken_policy));
    assert_eq!(config.closed_gates.len(), 1);
    assert_eq!(config.closed_gates[0].events, [Event::TurnStart]);
    assert_eq!(config.closed_gates[0].origin, Origin::Managed);
}
