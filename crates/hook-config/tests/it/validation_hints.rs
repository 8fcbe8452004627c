//! What `hook validate` says about a mistake points at the fix: a matcher naming no tool any agent uses suggests
//! the nearest, an unknown effect kind lists every kind, a YAML error caused by a tab says so, and a misspelt `on`
//! is called `on`.

use std::path::Path;

use hook_config::{FileContext, FileLoad, Format, IssueSeverity, parse_str};
use hook_types::Origin;

fn load(yaml: &str) -> FileLoad {
    let workspace = Path::new("/ws");
    let cx = FileContext { origin: Origin::Project, workspace, root: workspace, source_id: None };
    parse_str(yaml, Path::new("/ws/.hooks/hooks.yaml"), Format::Native, &cx)
}

fn lines(load: &FileLoad) -> Vec<String> {
    load.issues.iter().map(|i| i.to_string().replace("/ws/.hooks/hooks.yaml:", "")).collect()
}

#[test]
fn an_exact_names_matcher_naming_no_known_tool_is_a_warning_with_the_nearest_name() {
    let yaml = "- {on: pre_tool, matcher: 'Bsh|Edit|shell', kind: effect, effect: {kind: block_tool, reason: no}}\n\
                - {on: post_tool, matcher: 'mcp__github__.*', kind: prompt, message: regexes are not guessed at}\n\
                - {on: session_start, matcher: 'startup', kind: prompt, message: not a tool event}\n";
    let load = load(yaml);
    assert_eq!(
        lines(&load),
        ["1:27: warning: hooks[0].matcher: `Bsh` is no tool any known agent uses (did you mean `Bash`?); the matcher \
          matches only a tool named exactly `Bsh`"]
    );
    assert_eq!(load.hooks.len(), 3, "a warning drops nothing");
}

#[test]
fn an_unknown_effect_kind_names_every_kind() {
    let load = load("- {on: pre_tool, kind: effect, effect: {kind: deny_tool, reason: no}}\n");
    let issue = &load.issues[0];
    assert_eq!(issue.severity, IssueSeverity::Error);
    let kinds: Vec<&str> = hook_types::effect_kinds().collect();
    assert_eq!(kinds.len(), 13);
    assert!(issue.message.starts_with("unknown effect kind `deny_tool`"), "{issue}");
    assert!(issue.message.ends_with(&format!("; the effect kinds are {}", kinds.join(", "))), "{issue}");
}

#[test]
fn a_yaml_error_caused_by_a_tab_says_tab_and_how_to_fix_it() {
    let load = load("- on: pre_tool\n\tkind: effect\n  effect: {kind: block_tool, reason: no}\n");
    let issue = &load.issues[0];
    assert!(issue.message.starts_with("syntax error: "), "{issue}");
    assert!(
        issue
            .message
            .contains("(line 2 is indented with a tab: YAML indents with spaces only; replace the tab with spaces)"),
        "{issue}"
    );
    // A tab inside a quoted value is text, and an error elsewhere says nothing of tabs.
    let load = self::load("- {on: pre_tool, kind: prompt, message: \"a\ttab\"}\n- [unclosed\n");
    assert!(!load.issues[0].message.contains("tab"), "{}", load.issues[0]);
}

#[test]
fn a_key_close_to_event_is_a_misspelt_on_in_one_issue() {
    let load = load("- evnt: pre_tool\n  kind: effect\n  effect: {kind: block_tool, reason: no}\n");
    assert_eq!(lines(&load), ["1:3: error: hooks[0].evnt: unknown field `evnt` (did you mean `on`?)"]);
    let load = self::load(
        "- {event: pre_tool, kind: prompt, message: x}\n- {on: pre_tool, tiemout_ms: 5, kind: prompt, message: x}\n",
    );
    let messages: Vec<&str> = load.issues.iter().map(|i| i.message.as_str()).collect();
    assert_eq!(messages[0], "unknown field `event` (did you mean `on`?)");
    assert_eq!(messages[1], "unknown field `tiemout_ms` (did you mean `timeout_ms`?)", "other keys are as before");
}
