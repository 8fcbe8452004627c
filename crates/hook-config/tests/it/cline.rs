//! The Cline reader (docs/agents.md#cline): a directory of one executable per event (`.cline/hooks/PreToolUse.sh`)
//! into the model, one command hook per file, with `protocol: cline`.

use hook_config::{FileContext, FileLoad, Format, HookSpec, Program, load_file};
use hook_testkit::paths::fixture;
use hook_testkit::reader::{load_project, rows, snapshot};
use hook_types::{OnError, Origin};

fn project() -> FileLoad {
    load_project(&fixture("cline/project"), ".cline/hooks", Format::Cline)
}

fn argv(load: &FileLoad, i: usize) -> Vec<String> {
    match &load.hooks[i].spec {
        HookSpec::Command(command) => match &command.program {
            Program::Argv(argv) => argv.clone(),
            Program::Shell(line) | Program::PowerShell(line) => vec![line.clone()],
        },
        other => panic!("not a command hook: {other:?}"),
    }
}

#[test]
fn each_file_named_after_an_event_is_one_command_hook_run_as_cline_runs_it() {
    let load = project();
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    let rows = rows(&load);
    let events: Vec<&str> = rows.iter().map(|r| r.on.as_str()).collect();
    // Path order; README.md, PreToolUse.sh.bak and notes/PreToolUse are not hook files for Cline.
    assert_eq!(events, ["post_tool", "pre_tool", "foreign:TaskError", "session_start"]);
    assert_eq!(argv(&load, 0), ["python3", ".cline/hooks/PostToolUse.py"], "#!/usr/bin/env python3");
    assert_eq!(argv(&load, 1), ["bash", ".cline/hooks/PreToolUse.sh"], "#!/bin/bash");
    assert_eq!(argv(&load, 2), ["sh", ".cline/hooks/TaskError.sh"], "#!/bin/sh");
    assert_eq!(argv(&load, 3), ["bash", ".cline/hooks/TaskStart"], "no shebang, no extension: bash");
    for row in &rows {
        assert_eq!(row.protocol, "cline");
        assert_eq!(row.timeout_ms, 120_000, "toolCallTimeoutMs ?? 120000");
    }
    assert!(load.hooks.iter().all(|h| h.on_error == OnError::Ignore), "Cline skips a hook that fails");
    insta::assert_yaml_snapshot!("cline_project", snapshot(&load));
}

#[test]
fn the_deprecated_clinerules_directory_is_read_the_same_way_without_regard_to_case() {
    let load = load_project(&fixture("cline/project"), ".clinerules/hooks", Format::Cline);
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    assert_eq!(rows(&load)[0].on, "turn_start");
    assert_eq!(argv(&load, 0), ["node", ".clinerules/hooks/userpromptsubmit.JS"]);
}

#[test]
fn ids_are_derived_from_the_path_and_move_with_it() {
    let ws = tempfile::tempdir().unwrap();
    let write = |dir: &str| {
        std::fs::create_dir_all(ws.path().join(dir)).unwrap();
        std::fs::write(ws.path().join(dir).join("PreToolUse"), "#!/bin/sh\necho '{}'\n").unwrap();
    };
    write(".cline/hooks");
    write(".clinerules/hooks");
    let cx = FileContext { origin: Origin::Project, workspace: ws.path(), root: ws.path(), source_id: None };
    let a = load_file(&ws.path().join(".cline/hooks"), Format::Cline, &cx);
    let b = load_file(&ws.path().join(".clinerules/hooks"), Format::Cline, &cx);
    assert_ne!(a.hooks[0].id, b.hooks[0].id, "the same script in two places is two hooks");
    let again = load_file(&ws.path().join(".cline/hooks"), Format::Cline, &cx);
    assert_eq!(a.hooks[0].id, again.hooks[0].id);
    assert_eq!(a.hooks[0].hash, again.hooks[0].hash);
}

#[test]
fn the_user_origin_names_files_by_absolute_path() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("Documents/Cline/Hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("TaskComplete.sh"), "echo done\n").unwrap();
    let ws = tempfile::tempdir().unwrap();
    let cx = FileContext { origin: Origin::User, workspace: ws.path(), root: dir.parent().unwrap(), source_id: None };
    let load = load_file(&dir, Format::Cline, &cx);
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    assert_eq!(rows(&load)[0].on, "turn_end");
    assert_eq!(argv(&load, 0), ["bash".to_owned(), dir.join("TaskComplete.sh").display().to_string()]);
}

#[test]
fn a_bridge_script_is_read_as_the_bridge_line_so_the_loader_keeps_it_out() {
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join(".cline/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("PreToolUse"), "#!/bin/sh\nexec hook bridge --protocol cline\n").unwrap();
    let cx = FileContext { origin: Origin::Project, workspace: ws.path(), root: ws.path(), source_id: None };
    let load = load_file(&dir, Format::Cline, &cx);
    assert_eq!(argv(&load, 0), ["exec hook bridge --protocol cline"]);
    assert!(hook_config::BridgeProgram::named(["hook"]).invokes_bridge(match &load.hooks[0].spec {
        HookSpec::Command(c) => &c.program,
        _ => unreachable!(),
    }));
}

#[test]
fn a_symlink_named_after_an_event_is_not_a_hook_file_and_a_file_in_place_of_the_directory_is_an_error() {
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join(".cline/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(ws.path().join("guard.sh"), "exit 0\n").unwrap();
    std::os::unix::fs::symlink(ws.path().join("guard.sh"), dir.join("PreToolUse")).unwrap();
    let cx = FileContext { origin: Origin::Project, workspace: ws.path(), root: ws.path(), source_id: None };
    assert!(load_file(&dir, Format::Cline, &cx).hooks.is_empty(), "Dirent.isFile() is false for a symlink");

    let file = ws.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let load = load_file(&file, Format::Cline, &cx);
    assert_eq!(load.issues.len(), 1);
    assert!(load.issues[0].message.contains("cannot list the Cline hooks directory"), "{}", load.issues[0].message);
    assert!(!load.closed_gates.is_empty(), "what cannot be read closes the gates");
    assert!(load.issues[0].source.ends_with("not-a-dir"));
}
