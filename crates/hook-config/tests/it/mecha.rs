//! The mecha reader (docs/declarations.md#foreign-formats): `[[hook]]` tables of its TOML config into the model, with `protocol: mecha`.

use hook_config::{FileLoad, Format};
use hook_testkit::paths::fixture;
use hook_testkit::reader::{assert_issue, errors, load_project, load_text, rows, snapshot};
use hook_types::OnError;

fn project() -> FileLoad {
    load_project(&fixture("mecha/project"), ".mecha/config.toml", Format::Mecha)
}

fn check(toml: &str) -> FileLoad {
    load_text(toml, ".mecha/config.toml", Format::Mecha)
}

#[test]
fn mecha_project_reads_every_hook_table_and_passes_over_the_rest_of_the_config() {
    let load = project();
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    let rows = rows(&load);
    let summary: Vec<(&str, Option<Vec<String>>, u64)> =
        rows.iter().map(|r| (r.on.as_str(), r.tools.clone(), r.timeout_ms)).collect();
    assert_eq!(
        summary,
        [
            ("pre_tool", Some(vec!["shell".to_owned()]), 1_000),
            ("pre_tool", Some(vec!["deploy".to_owned()]), 10_000),
            ("post_tool", Some(vec!["shell".to_owned()]), 10_000),
            ("turn_start", None, 2_500),
        ]
    );
    assert!(rows.iter().all(|r| r.protocol == "mecha"));
    insta::assert_yaml_snapshot!("mecha_project", snapshot(&load));
}

#[test]
fn mecha_pre_tool_hooks_fail_closed_and_the_others_fail_open() {
    let policies: Vec<OnError> = project().hooks.iter().map(|h| h.on_error).collect();
    assert_eq!(policies, [OnError::Deny, OnError::Deny, OnError::Ignore, OnError::Ignore]);
}

#[test]
fn mecha_config_without_hook_tables_loads_nothing_and_says_nothing() {
    for toml in ["model = \"x\"\n", "# only a comment\n", "", "[sandbox]\nnetwork = true\n"] {
        let load = check(toml);
        assert!(load.hooks.is_empty() && load.issues.is_empty(), "{toml:?}: {load:#?}");
    }
}

#[test]
fn mecha_a_single_hook_table_or_bad_toml_is_one_clear_issue() {
    let load = check("[hook]\nevent = \"pre_tool\"\ncommand = \"x\"\n");
    assert!(load.hooks.is_empty());
    assert_issue(&load, &["config.toml:1:1: error: hook:", "expected `[[hook]]` tables", "a single `[hook]` table"]);
    let load = check("[[hook]]\nevent = \"pre_tool\"\ncommand = \n");
    assert_issue(&load, &["config.toml:3:", "error: syntax error:", "nothing in this file was loaded"]);
}

#[test]
fn mecha_mistakes_are_errors_with_the_file_field_and_position() {
    let load = load_project(&fixture("mecha/bad"), ".mecha/config.toml", Format::Mecha);
    assert_issue(&load, &["config.toml:6:1: error: hooks[0].tool: unknown key `tool` (did you mean `tools`?)"]);
    assert_issue(
        &load,
        &["config.toml:9:9: error: hooks[1].event: unknown event `pre_tol` (did you mean `pre_tool`?)"],
    );
    assert_issue(
        &load,
        &["config.toml:15:16: error: hooks[2].timeout_secs: expected a number of seconds, found a string"],
    );
    assert_issue(&load, &["error: hooks[3].tools:", "`tools` applies to tool events"]);
    assert_issue(
        &load,
        &["config.toml:22:1: error: hooks[4]: a `[[hook]]` table needs `event`; this hook was not loaded"],
    );
    let loaded: Vec<(String, u64)> = rows(&load).into_iter().map(|r| (r.shell, r.timeout_ms)).collect();
    assert_eq!(loaded, [("./still-loads.sh".to_owned(), 250)]);
    insta::assert_yaml_snapshot!("mecha_bad", errors(&load));
}

#[test]
fn mecha_refuses_a_strict_start_on_any_error() {
    let load = load_project(&fixture("mecha/bad"), ".mecha/config.toml", Format::Mecha);
    let err = load.strict().unwrap_err();
    assert_eq!(err.errors.len(), 5, "{err}");
    assert!(project().strict().is_ok());
}
