//! Bad input (DESIGN §4.4): each case gives exactly one precise issue — file, hook index, field path, line:column,
//! severity, message — while the rest of the file loads. Fixtures are real files under `tests/fixtures/config/bad/`.

use std::path::{Path, PathBuf};

use hook_config::{FileContext, FileLoad, Format, Issue, IssueSeverity, load_file};
use hook_types::Origin;
use tempfile::TempDir;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/config").join(name)
}

/// Loads a fixture as a project file of `workspace`.
fn load_in(workspace: &Path, name: &str) -> FileLoad {
    let cx = FileContext { origin: Origin::Project, workspace, root: workspace, source_id: None };
    load_file(&fixture(name), Format::Native, &cx)
}

/// What the one issue of a bad fixture must say.
struct Expected<'a> {
    /// The field path (`None` for a file-level issue).
    field: Option<&'a str>,
    /// 1-based line and column.
    at: (usize, usize),
    /// The message, or its beginning where it goes on to name a temporary path.
    message: &'a str,
}

/// Loads `bad/<name>` in a fresh workspace and checks it gives exactly the expected error and that the sibling hook
/// (`id: sibling`, always `hooks[0]`) still loaded.
fn check(name: &str, expected: Expected<'_>) {
    let workspace = TempDir::new().unwrap();
    check_in(workspace.path(), name, expected);
}

fn check_in(workspace: &Path, name: &str, expected: Expected<'_>) {
    let load = load_in(workspace, &format!("bad/{name}"));
    let issue = only_issue(&load, name);
    assert_eq!(issue.severity, IssueSeverity::Error, "{name}: {issue}");
    assert_eq!(issue.field.as_deref(), expected.field, "{name}: {issue}");
    assert_eq!((issue.line, issue.column), (Some(expected.at.0), Some(expected.at.1)), "{name}: {issue}");
    assert!(issue.message.starts_with(expected.message), "{name}: message was {:?}", issue.message);
    assert!(issue.source.ends_with(name), "{name}: {issue}");
    if expected.field.is_some() {
        assert_eq!(issue.index, Some(1), "{name}: {issue}");
        let ids: Vec<&str> = load.hooks.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["sibling"], "{name}: the sibling must load and the bad hook must not");
    }
}

fn only_issue<'l>(load: &'l FileLoad, name: &str) -> &'l Issue {
    match load.issues.as_slice() {
        [issue] => issue,
        other => panic!("{name}: expected exactly one issue, got {}: {other:#?}", other.len()),
    }
}

#[test]
fn yaml_syntax_error_is_one_issue_with_the_parsers_position_and_other_files_still_load() {
    let workspace = TempDir::new().unwrap();
    let load = load_in(workspace.path(), "bad/syntax-error.yaml");
    let issue = only_issue(&load, "syntax-error.yaml");
    assert!(load.hooks.is_empty(), "a file that does not parse loads nothing");
    assert_eq!((issue.index, issue.field.as_deref()), (None, None));
    assert_eq!((issue.line, issue.column), (Some(9), Some(3)));
    assert_eq!(
        issue.message,
        "syntax error: did not find expected ',' or ']', while parsing a flow sequence at line 8 column 9; \
         nothing in this file was loaded"
    );
    assert_eq!(issue.severity, IssueSeverity::Error);
    // The next file of the same origin is unaffected.
    let other = load_in(workspace.path(), "golden/prompt.yaml");
    assert_eq!((other.hooks.len(), other.issues.len()), (1, 0));
}

#[test]
fn unknown_event_suggests_the_nearest_name() {
    check(
        "unknown-event.yaml",
        Expected {
            field: Some("hooks[1].on"),
            at: (6, 7),
            message: "unknown event `pre_tol` (did you mean `pre_tool`?)",
        },
    );
}

#[test]
fn argv_and_shell_together_are_refused() {
    check(
        "argv-and-shell.yaml",
        Expected {
            field: Some("hooks[1].shell"),
            at: (9, 10),
            message: "`argv` and `shell` are both set; a command hook has exactly one of them",
        },
    );
}

#[test]
fn empty_argv_is_refused() {
    check(
        "empty-argv.yaml",
        Expected {
            field: Some("hooks[1].argv"),
            at: (8, 9),
            message: "`argv` is empty; expected the program and its arguments, e.g. `[./scripts/check.sh, --fast]`",
        },
    );
}

#[test]
fn cwd_climbing_out_of_the_workspace_is_refused() {
    // A workspace two levels down, so `../..` exists and is a directory: only confinement refuses it.
    let outer = TempDir::new().unwrap();
    let workspace = outer.path().join("a/ws");
    std::fs::create_dir_all(&workspace).unwrap();
    check_in(
        &workspace,
        "cwd-escape.yaml",
        Expected { field: Some("hooks[1].cwd"), at: (9, 8), message: "`../..` leads outside the workspace (to `" },
    );
}

#[test]
fn cwd_symlink_pointing_outside_the_workspace_is_refused() {
    let outside = TempDir::new().unwrap();
    let workspace = TempDir::new().unwrap();
    std::os::unix::fs::symlink(outside.path(), workspace.path().join("link-out")).unwrap();
    check_in(
        workspace.path(),
        "cwd-symlink.yaml",
        Expected {
            field: Some("hooks[1].cwd"),
            at: (9, 8),
            message: "`link-out` leads outside the workspace through a symlink (to `",
        },
    );
}

#[test]
fn cwd_symlink_staying_inside_the_workspace_is_accepted() {
    let workspace = TempDir::new().unwrap();
    std::fs::create_dir(workspace.path().join("tools")).unwrap();
    std::os::unix::fs::symlink(workspace.path().join("tools"), workspace.path().join("link-out")).unwrap();
    let load = load_in(workspace.path(), "bad/cwd-symlink.yaml");
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    let hook_config::HookSpec::Command(command) = &load.hooks[1].spec else { panic!("a command hook") };
    assert_eq!(command.cwd, "link-out", "cwd is kept as written");
    assert_eq!(command.resolved_cwd, workspace.path().canonicalize().unwrap().join("tools"));
}

#[test]
fn invalid_regex_matcher_is_refused_with_the_regex_error() {
    check(
        "invalid-regex.yaml",
        Expected {
            field: Some("hooks[1].matcher"),
            at: (9, 12),
            message: "invalid regex `mcp__(memory`: unclosed group",
        },
    );
}

#[test]
fn effect_invalid_on_its_event_names_event_and_effect() {
    check(
        "effect-wrong-event.yaml",
        Expected {
            field: Some("hooks[1].effect"),
            at: (8, 11),
            message: "effect `block_tool` is not valid on post_tool; it is valid on pre_tool, permission_request",
        },
    );
}

#[test]
fn unknown_field_suggests_the_nearest_field() {
    check(
        "unknown-field.yaml",
        Expected {
            field: Some("hooks[1].timout_ms"),
            at: (9, 3),
            message: "unknown field `timout_ms` (did you mean `timeout_ms`?)",
        },
    );
}

#[test]
fn wrong_type_says_what_was_expected_and_found() {
    check(
        "wrong-type.yaml",
        Expected {
            field: Some("hooks[1].timeout_ms"),
            at: (9, 15),
            message: "expected a whole number of milliseconds, found a string",
        },
    );
}

#[test]
fn duplicate_id_in_one_file_drops_the_later_hook() {
    check(
        "duplicate-id.yaml",
        Expected {
            field: Some("hooks[1].id"),
            at: (5, 7),
            message: "duplicate id `sibling` (first used by hooks[0]); this hook was dropped",
        },
    );
}

#[test]
fn non_utf8_file_is_one_issue_at_the_first_bad_byte() {
    let workspace = TempDir::new().unwrap();
    let load = load_in(workspace.path(), "bad/non-utf8.yaml");
    let issue = only_issue(&load, "non-utf8.yaml");
    assert!(load.hooks.is_empty());
    assert_eq!((issue.line, issue.column, issue.field.as_deref()), (Some(4), Some(15), None));
    assert_eq!(issue.message, "the file is not valid UTF-8 (byte offset 59); nothing in it was loaded");
}

#[test]
fn empty_and_comment_only_files_give_no_issue_and_no_hooks() {
    let workspace = TempDir::new().unwrap();
    for name in ["bad/empty.yaml", "bad/comments-only.yaml", "does-not-exist.yaml"] {
        assert_eq!(load_in(workspace.path(), name), FileLoad::default(), "{name}");
    }
}
