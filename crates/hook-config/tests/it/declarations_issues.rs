//! Bad input (docs/declarations.md#errors-and-closed-gates): each case gives exactly one precise issue — file, hook index, field path, line:column,
//! severity, message — while the rest of the file loads. Fixtures are real files under `tests/fixtures/config/bad/`.

use std::path::{Path, PathBuf};

use hook_config::{FileContext, FileLoad, Format, Issue, IssueSeverity, load_file};
use hook_types::Origin;
use tempfile::TempDir;

fn fixture(name: &str) -> PathBuf {
    hook_testkit::paths::repo_root().join("tests/fixtures/config").join(name)
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
            message: "`argv` and `shell` are both set; a command hook has exactly one of `argv`, `shell` and `powershell`",
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

/// The hook every inline case starts with; it must always load.
const SIBLING: &str = "- {id: sibling, on: post_tool, kind: prompt, message: The sibling still loads.}\n";

/// Loads `SIBLING` followed by `bad` (YAML for one more hook) and checks it gives exactly one placed error with this
/// field path and message, while the sibling loads.
fn check_hook(bad: &str, field: &str, message: &str) {
    let workspace = TempDir::new().unwrap();
    let cx =
        FileContext { origin: Origin::Project, workspace: workspace.path(), root: workspace.path(), source_id: None };
    let load = hook_config::parse_str(&format!("{SIBLING}{bad}"), Path::new("hooks.yaml"), Format::Native, &cx);
    let issue = only_issue(&load, bad);
    assert_eq!(
        (issue.severity, issue.field.as_deref(), issue.message.as_str()),
        (IssueSeverity::Error, Some(field), message),
        "{bad}"
    );
    assert!(issue.line.is_some() && issue.column.is_some(), "{bad}: {issue}");
    assert_eq!(load.hooks.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["sibling"], "{bad}");
}

/// Loads a whole file and checks it gives exactly this one issue (`file:line:column: severity: field: message`).
fn check_file(yaml: &str, expected: &str, hooks: usize) {
    let workspace = TempDir::new().unwrap();
    let cx =
        FileContext { origin: Origin::Project, workspace: workspace.path(), root: workspace.path(), source_id: None };
    let load = hook_config::parse_str(yaml, Path::new("hooks.yaml"), Format::Native, &cx);
    assert_eq!(only_issue(&load, yaml).to_string(), expected);
    assert_eq!(load.hooks.len(), hooks, "{yaml}");
}

#[test]
fn rules_that_depend_on_the_event_name_the_field_and_the_event() {
    // A pattern in `tools` would wait for a tool name that never comes: refused, so the gate closes.
    check_hook(
        "- {on: pre_tool, tools: [\"mcp:github:*\"], kind: command, argv: [sh]}",
        "hooks[1].tools",
        "`tools` entries are exact tool names, so `mcp:github:*` (with `*`) would match no tool; to match by pattern \
         write `matcher: \"mcp:github:.*\"` (a regex) instead",
    );
    check_hook(
        "- {on: turn_start, tools: [shell], kind: prompt, message: x}",
        "hooks[1].tools",
        "`tools` applies to tool events (pre_tool, permission_request, post_tool), not turn_start",
    );
    check_hook(
        "- {on: turn_end, matcher: Bash, kind: prompt, message: x}",
        "hooks[1].matcher",
        "`matcher` applies to tool events, session_start (source) and compaction (trigger), not turn_end",
    );
    check_hook(
        "- {on: pre_tool, tools: [shell], matcher: 'Bash|Edit', kind: prompt, message: x}",
        "hooks[1].matcher",
        "`tools` and `matcher` are both set; use one of them",
    );
    check_hook(
        "- {on: pre_tool, only_errors: true, kind: prompt, message: x}",
        "hooks[1].only_errors",
        "`only_errors` applies to post_tool only, not pre_tool",
    );
    check_hook(
        "- {on: pre_tool, scope: subagent, kind: prompt, message: x}",
        "hooks[1].scope",
        "`scope` applies to turn_end only, not pre_tool",
    );
    check_hook(
        "- {on: SubagentStop, scope: main, kind: prompt, message: x}",
        "hooks[1].scope",
        "contradicts the event alias, which implies `scope: subagent`",
    );
    check_hook(
        "- {on: session_end, kind: prompt, message: x}",
        "hooks[1]",
        "a prompt hook adds an `inject_reminder`, which is not valid on session_end",
    );
    check_hook(
        "- {on: 'foreign:SubagentStart', kind: prompt, message: x}",
        "hooks[1].on",
        "`foreign:SubagentStart` is another agent's event; it is allowed only on a hook whose `protocol` is not native \
         (set `protocol` to that agent's)",
    );
}

#[test]
fn required_fields_closed_vocabularies_and_ids() {
    check_hook("- {kind: prompt, message: x}", "hooks[1]", "missing required field `on` (the event, e.g. `pre_tool`)");
    check_hook(
        "- {on: pre_tool, message: x}",
        "hooks[1]",
        "missing required field `kind` (`command`, `prompt`, `effect`, `evaluated`, `http` or `policy`)",
    );
    check_hook(
        "- {on: pre_tool, kind: comand, argv: [sh]}",
        "hooks[1].kind",
        "unknown kind `comand` (did you mean `command`?); expected one of `command`, `prompt`, `effect`, `evaluated`, `http`, `policy`",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], on_error: fail}",
        "hooks[1].on_error",
        "unknown on_error `fail`; expected one of `deny`, `ignore`",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], protocol: claud}",
        "hooks[1].protocol",
        "unknown protocol `claud` (did you mean `claude`?); expected one of `native`, `claude`, `codex`, `gemini`, \
         `cursor`, `mecha`, `clio`, `qwen`, `droid`, `cline`, `copilot`, `opencode`, `kilo`, `crush`, `auggie`",
    );
    check_hook(
        "- {id: Lint Check, on: pre_tool, kind: command, argv: [sh]}",
        "hooks[1].id",
        "invalid id `Lint Check`: expected lowercase letters, digits, `.`, `_` and `-` only",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], message: x}",
        "hooks[1].message",
        "`message` belongs to prompt hooks; this is a command hook",
    );
    check_hook(
        "- {on: pre_tool, kind: effect}",
        "hooks[1]",
        "an effect hook needs `effect` (e.g. `effect: { kind: block_tool, reason: ... }`)",
    );
    check_hook(
        "- {on: pre_tool, kind: effect, effect: {kind: block_tool, reasn: x}}",
        "hooks[1].effect.reasn",
        "unknown field `reasn` in effect `block_tool` (did you mean `reason`?)",
    );
    check_hook(
        "- {on: pre_tool, kind: prompt, message: x, severity: loud}",
        "hooks[1].severity",
        "unknown severity `loud`; expected one of `info`, `advisory`, `warn`, `hard-block`",
    );
}

#[test]
fn command_values_say_what_was_expected() {
    check_hook(
        "- {on: pre_tool, kind: command}",
        "hooks[1]",
        "a command hook needs `argv` (a list: program and arguments), `shell` (a string run by `sh -c`) or \
         `powershell` (a string run by PowerShell)",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sleep, 1]}",
        "hooks[1].argv[1]",
        "expected a string, found a number (quote it)",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: sleep 1}",
        "hooks[1].argv",
        "expected a list (the program and its arguments), found a string",
    );
    check_hook(
        "- {on: pre_tool, kind: command, shell: ' '}",
        "hooks[1].shell",
        "`shell` is empty; expected a command line for `sh -c`",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], timeout_ms: -5}",
        "hooks[1].timeout_ms",
        "expected a positive whole number of milliseconds, found a negative number",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], timeout_ms: 1.5}",
        "hooks[1].timeout_ms",
        "expected a whole number of milliseconds, found a decimal number",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], env: {DEBUG: true}}",
        "hooks[1].env.DEBUG",
        "expected a string, found a boolean (quote it)",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], env: [A=1]}",
        "hooks[1].env",
        "expected a mapping of variable names to strings, found a list",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], as: note}",
        "hooks[1].as",
        "unknown as `note`; expected one of `annotate`, `reminder`",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], sequential: yes}",
        "hooks[1].sequential",
        "expected `true` or `false`, found a string",
    );
    check_hook(
        "- {on: pre_tool, kind: command, argv: [sh], timeout_ms: 500, timeoutMs: 500}",
        "hooks[1].timeoutMs",
        "`timeoutMs` repeats `timeout_ms` (the same field spelled twice); set it once",
    );
}

#[test]
fn file_level_problems() {
    check_file(
        "version: 2\nhooks: []\n",
        "hooks.yaml:1:10: error: version: unsupported version 2: this engine reads version 1; nothing in this file was loaded",
        0,
    );
    check_file(
        &format!("version: 1\nonly_manged: true\nhooks:\n{}", SIBLING.replace("- ", "  - ")),
        "hooks.yaml:2:1: error: only_manged: unknown top-level key `only_manged` (did you mean `only_managed`?); \
         expected `version`, `hooks` or `only_managed`",
        1,
    );
    check_file("hooks: {on: pre_tool}\n", "hooks.yaml:1:8: error: hooks: expected a list of hooks, found a mapping", 0);
    check_file(
        "just a string\n",
        "hooks.yaml:1:1: error: expected a list of hooks or `{ version: 1, hooks: [...] }`, found a string",
        0,
    );
    check_file(
        &format!("{SIBLING}- pre_tool\n"),
        "hooks.yaml:2:3: error: hooks[1]: expected a hook (a mapping with `on` and `kind`), found a string; this entry was skipped",
        1,
    );
    check_file(
        &format!("{SIBLING}- {{on: pre_tool, kind: prompt, message: x, on: post_tool}}\n"),
        "hooks.yaml:2:44: error: syntax error: duplicate key `on`; nothing in this file was loaded",
        0,
    );
}

#[test]
fn cwd_that_is_missing_or_a_regular_file_is_refused() {
    let workspace = TempDir::new().unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "not a directory").unwrap();
    let cx =
        FileContext { origin: Origin::Project, workspace: workspace.path(), root: workspace.path(), source_id: None };
    let real = workspace.path().canonicalize().unwrap();
    for (cwd, message) in [
        (
            "missing",
            format!("the directory `missing` does not exist (resolved to `{}`)", real.join("missing").display()),
        ),
        ("notes.txt", format!("`notes.txt` is not a directory (resolved to `{}`)", real.join("notes.txt").display())),
        (
            "notes.txt/sub",
            format!(
                "cannot resolve `notes.txt/sub` (`{}`): Not a directory (os error 20)",
                real.join("notes.txt/sub").display()
            ),
        ),
    ] {
        let yaml = format!("{SIBLING}- {{on: pre_tool, kind: command, argv: [sh], cwd: '{cwd}'}}\n");
        let load = hook_config::parse_str(&yaml, Path::new("hooks.yaml"), Format::Native, &cx);
        let issue = only_issue(&load, cwd);
        assert_eq!((issue.field.as_deref(), issue.message.as_str()), (Some("hooks[1].cwd"), message.as_str()));
        assert_eq!(load.hooks.len(), 1);
    }
}

#[test]
fn json_files_get_serde_json_syntax_positions_and_placed_semantic_issues() {
    let workspace = TempDir::new().unwrap();
    let cx =
        FileContext { origin: Origin::Project, workspace: workspace.path(), root: workspace.path(), source_id: None };
    let path = Path::new("hooks.json");
    let broken = "[\n  {\"on\": \"pre_tool\", \"kind\": \"prompt\",}\n]\n";
    let load = hook_config::parse_str(broken, path, Format::Native, &cx);
    assert_eq!(
        only_issue(&load, broken).to_string(),
        "hooks.json:2:39: error: syntax error: trailing comma; nothing in this file was loaded"
    );
    let typo =
        "{\"version\": 1, \"hooks\": [\n  {\"on\": \"turn_start\", \"kind\": \"prompt\", \"mesage\": \"hi\"}\n]}\n";
    let load = hook_config::parse_str(typo, path, Format::Native, &cx);
    assert_eq!(
        only_issue(&load, typo).to_string(),
        "hooks.json:2:42: error: hooks[0].mesage: unknown field `mesage` (did you mean `message`?)"
    );
}

#[test]
fn a_directory_where_the_file_should_be_is_one_issue() {
    let workspace = TempDir::new().unwrap();
    let path = workspace.path().join("hooks.yaml");
    std::fs::create_dir(&path).unwrap();
    let cx =
        FileContext { origin: Origin::Project, workspace: workspace.path(), root: workspace.path(), source_id: None };
    let load = load_file(&path, Format::Native, &cx);
    let issue = only_issue(&load, "directory");
    assert_eq!(
        issue.message,
        "cannot read the file: it is a directory, not a regular file; expected a file of hook declarations"
    );
    assert_eq!((issue.severity, issue.line, issue.index), (IssueSeverity::Error, None, None));
}

#[test]
fn every_issue_of_a_file_with_many_mistakes_in_file_order() {
    let workspace = TempDir::new().unwrap();
    let load = load_in(workspace.path(), "bad/many-mistakes.yaml");
    assert_eq!(load.hooks.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["fine"]);
    let real = workspace.path().canonicalize().unwrap();
    let lines: Vec<String> = load
        .issues
        .iter()
        .map(|issue| {
            let mut issue = issue.clone();
            issue.source = PathBuf::from(issue.source.file_name().unwrap());
            issue.to_string().replace(&*real.to_string_lossy(), "[workspace]")
        })
        .collect();
    insta::assert_yaml_snapshot!("many_mistakes", lines);
}

#[test]
fn odd_documents_give_issues_never_panics() {
    let workspace = TempDir::new().unwrap();
    let cx =
        FileContext { origin: Origin::Project, workspace: workspace.path(), root: workspace.path(), source_id: None };
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let odd = [
        "- !tagged {on: pre_tool, kind: prompt, message: x}",
        "--- []\n--- []\n",
        "- {on: pre_tool, kind: command, argv: [sh], timeout_ms: 99999999999999999999999}",
        "- {on: pre_tool, kind: command, argv: [sh], timeout_ms: .nan}",
        "- ~\n- []\n- 3\n",
        "{1: 2, hooks: []}",
        "? [complex, key]\n: value\nhooks: []\n",
        "- &a {on: pre_tool, kind: prompt, message: x}\n- *a\n",
        "hooks: ~\n",
        "- {on: '', kind: '', message: ''}",
        "- {on: 'foreign:', protocol: claude, kind: prompt, message: x}",
        "- {on: pre_tool, kind: effect, effect: [block_tool]}",
        "- {on: pre_tool, kind: command, argv: [''], cwd: '\u{0}'}",
        deep.as_str(),
    ];
    for text in odd {
        for path in ["hooks.yaml", "hooks.json"] {
            let load = hook_config::parse_str(text, Path::new(path), Format::Native, &cx);
            for issue in &load.issues {
                assert!(!issue.message.is_empty(), "{text:?}: {issue:?}");
            }
            assert!(load.hooks.len() + load.issues.len() > 0 || text.trim() == "hooks: ~", "{text:?} gave nothing");
        }
    }
}
