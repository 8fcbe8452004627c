//! `command:` and `on_unknown:` in a native file: read at load into a matcher over what a shell call runs, hashed with
//! the hook, refused with the file, hook and field named when they cannot be read.

use std::path::Path;

use hook_config::{FileContext, Format, IssueSeverity, OnUnknown, canonical_hash_input, parse_str, shell_analysis};
use hook_shell::Match;
use hook_types::Origin;
use serde_json::json;

fn load(yaml: &str) -> hook_config::FileLoad {
    let cx =
        FileContext { origin: Origin::Project, workspace: Path::new("/ws"), root: Path::new("/ws"), source_id: None };
    parse_str(yaml, Path::new("/ws/.hooks/hooks.yaml"), Format::Native, &cx)
}

const GUARD: &str = "version: 1\nhooks:\n  - id: no-force-push\n    on: pre_tool\n    command: {program: git, args: [push, \"--force|-f\"]}\n    kind: effect\n    effect: {kind: block_tool, reason: no}\n";

/// The guard with `command` as its matcher is refused: an error on `field` saying `says`, naming the hook, and the
/// hook dropped (its gate closed).
fn assert_refused(command: &str, field: &str, says: &str) {
    let load = load(&GUARD.replace("{program: git, args: [push, \"--force|-f\"]}", command));
    let issue = load.issues.iter().find(|i| i.severity == IssueSeverity::Error).unwrap_or_else(|| panic!("{command}"));
    assert_eq!(issue.field.as_deref(), Some(field), "{command}: {issue:#?}");
    assert!(issue.message.contains(says), "{command}: {}", issue.message);
    assert_eq!(issue.hook_id.as_deref(), Some("no-force-push"));
    assert!(load.hooks.is_empty(), "{command}: the hook is dropped, its gate closed");
}

#[test]
fn a_command_matcher_loads_with_the_gates_fail_closed_default_and_matches_what_runs() {
    let load = load(GUARD);
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    let matcher = load.hooks[0].command.as_ref().expect("the matcher");
    assert_eq!(matcher.on_unknown(), OnUnknown::Deny, "on a gate, on_error deny: an unreadable line denies");
    let test = |line: &str| matcher.test(&shell_analysis(Some(&json!({"command": line}))).unwrap());
    assert_eq!(test("cd x && sudo git -c a=b push origin -f"), Match::Yes);
    assert_eq!(test("git push origin"), Match::No);
    assert!(matches!(test("eval \"$X\""), Match::Unknown(_)));
}

#[test]
fn the_matcher_and_on_unknown_are_part_of_the_hash() {
    let plain = load(GUARD);
    let input = canonical_hash_input(&plain.hooks[0]);
    assert_eq!(
        input["command"],
        json!({"on_unknown": "deny", "patterns": [{"args": ["push", "--force|-f"], "program": "git"}]})
    );
    let passing = load(&GUARD.replace("    kind: effect", "    on_unknown: pass\n    kind: effect"));
    assert_ne!(plain.hooks[0].hash, passing.hooks[0].hash);
    let other = load(&GUARD.replace("--force|-f", "--force"));
    assert_ne!(plain.hooks[0].hash, other.hooks[0].hash);
    // Reformatting keeps the hash: the flow mapping as a block mapping.
    let block = load(&GUARD.replace(
        "    command: {program: git, args: [push, \"--force|-f\"]}\n",
        "    command:\n      args: [push, \"--force|-f\"]\n      program: git\n",
    ));
    assert_eq!(plain.hooks[0].hash, block.hooks[0].hash);
}

#[test]
fn a_command_matcher_that_cannot_be_read_names_the_hook_and_the_field() {
    for (command, field, says) in [
        ("{args: [push]}", "hooks[0].command", "`program` is missing"),
        ("{program: git, args: [push, 5]}", "hooks[0].command.args[1]", "expected a string"),
        ("{program: git, arg: [push]}", "hooks[0].command.arg", "did you mean `args`"),
        ("[{program: rm}, {program: \"git||x\"}]", "hooks[0].command[1]", "empty alternative"),
        ("git push", "hooks[0].command", "expected a pattern"),
        // The allow-list form's own fields.
        ("{all: [{program: ls, writes: yes}]}", "hooks[0].command.all[0].writes", "expected `true` or `false`"),
        ("{all: [{program: ls}], any: [{program: rm}]}", "hooks[0].command.any", "unknown key `any` beside `all`"),
        ("{all: []}", "hooks[0].command.all", "non-empty list"),
        ("{all: [{program: ls}, {progam: cat}]}", "hooks[0].command.all[1].progam", "did you mean `program`"),
        ("{program: ls, writes: true}", "hooks[0].command.writes", "belongs to the allow-list form"),
    ] {
        assert_refused(command, field, says);
    }
}

#[test]
fn on_unknown_without_a_matcher_or_a_command_off_a_tool_event_is_an_error() {
    let stray =
        load(&GUARD.replace("    command: {program: git, args: [push, \"--force|-f\"]}\n", "    on_unknown: deny\n"));
    assert!(stray.issues.iter().any(|i| i.message.contains("has no `command:`")), "{:#?}", stray.issues);
    let off_tool =
        load("version: 1\nhooks:\n  - {id: t, on: turn_start, command: {program: git}, kind: prompt, message: hi}\n");
    assert!(off_tool.issues.iter().any(|i| i.message.contains("applies to tool events")), "{:#?}", off_tool.issues);
    let ask_after = load(
        &GUARD
            .replace("on: pre_tool", "on: post_tool")
            .replace("    kind: effect", "    on_unknown: ask\n    kind: effect"),
    );
    assert!(ask_after.issues.iter().any(|i| i.message.contains("pre_tool only")), "{:#?}", ask_after.issues);
}

#[test]
fn the_allow_list_form_loads_and_hashes_apart_from_the_plain_form() {
    let list = "{all: [{program: \"ls|cat\"}, {program: sort, writes: true}]}";
    let approver = load(&GUARD.replace("{program: git, args: [push, \"--force|-f\"]}", list));
    assert!(approver.issues.is_empty(), "{:#?}", approver.issues);
    let matcher = approver.hooks[0].command.as_ref().unwrap();
    assert!(matcher.is_allow_list());
    let input = canonical_hash_input(&approver.hooks[0]);
    assert_eq!(
        input["command"]["patterns"],
        json!({"all": [{"program": "ls|cat"}, {"program": "sort", "writes": true}]})
    );
    // The same patterns in the plain form are another hook: they approve another set of lines.
    let plain = load(
        &GUARD.replace("{program: git, args: [push, \"--force|-f\"]}", "[{program: \"ls|cat\"}, {program: sort}]"),
    );
    assert_ne!(approver.hooks[0].hash, plain.hooks[0].hash);
    let breaker = |line: &str| matcher.allow_breaker(&shell_analysis(Some(&json!({"command": line}))).unwrap());
    assert_eq!(breaker("ls | sort -o out"), None, "sort may write");
    assert!(breaker("cat x > y").unwrap().contains("`cat x` writes a file"));
}
