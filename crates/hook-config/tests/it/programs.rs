//! A command hook's program is checked at load, not discovered broken when the hook first fires: a path that does
//! not exist or lacks its run bit is an error with the fix in the message (and a gate it was on fails closed); a
//! bare name not on `PATH` is a warning. The run bit is what exec checks, for root too, so these tests hold whoever
//! runs them.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use hook_config::{FileContext, FileLoad, Format, IssueSeverity, parse_str};
use hook_types::{Event, Origin};

/// `yaml` loaded as the project's native file of `workspace`.
fn load(workspace: &Path, yaml: &str) -> FileLoad {
    let cx = FileContext { origin: Origin::Project, workspace, root: workspace, source_id: None };
    parse_str(yaml, &workspace.join(".hooks/hooks.yaml"), Format::Native, &cx)
}

fn script(workspace: &Path, relative: &str, mode: u32) {
    let path = workspace.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Each issue as `severity field: message`, with the workspace written `[ws]`.
fn issues(load: &FileLoad, workspace: &Path) -> Vec<String> {
    load.issues
        .iter()
        .map(|i| {
            let severity = if i.severity == IssueSeverity::Error { "error" } else { "warning" };
            let message = i.message.replace(&*workspace.to_string_lossy(), "[ws]");
            format!("{severity} {}: {message}", i.field.as_deref().unwrap_or(""))
        })
        .collect()
}

#[test]
fn a_script_without_its_run_bit_is_an_error_that_says_chmod_and_closes_its_gate() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    script(&ws, "scripts/guard.sh", 0o644);
    let load = load(&ws, "- {on: pre_tool, kind: command, argv: [./scripts/guard.sh]}\n");
    assert!(load.hooks.is_empty());
    assert_eq!(
        issues(&load, &ws),
        ["error hooks[0].argv[0]: the program `./scripts/guard.sh` ([ws]/scripts/guard.sh) is not executable (it has \
          no run bit): run `chmod +x [ws]/scripts/guard.sh`"]
    );
    assert_eq!(load.closed_gates.len(), 1);
    assert_eq!(load.closed_gates[0].events, [Event::PreTool]);
    assert!(load.closed_gates[0].reason().contains("run `chmod +x "), "{}", load.closed_gates[0].reason());

    // Fixed as the message says, it loads.
    fs::set_permissions(ws.join("scripts/guard.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    let load = self::load(&ws, "- {on: pre_tool, kind: command, argv: [./scripts/guard.sh]}\n");
    assert_eq!((load.hooks.len(), load.issues.len()), (1, 0), "{:#?}", load.issues);
}

#[test]
fn missing_programs_directories_and_shell_words_are_checked_where_they_run() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    script(&ws, "sub/run.sh", 0o755);
    script(&ws, "sub/plain.sh", 0o600);
    let yaml = "
- {on: post_tool, kind: command, argv: [./scripts/missing.sh]}
- {on: post_tool, kind: command, argv: [./sub]}
- {on: post_tool, kind: command, shell: './sub/plain.sh --fast && echo done'}
- {on: post_tool, kind: command, shell: 'FOO=1 \"$HOOK_PROJECT_DIR\"/sub/gone.sh'}
- {on: post_tool, kind: command, cwd: sub, shell: ./run.sh}
- {on: post_tool, kind: command, shell: 'cd sub && ./whatever.sh'}
- {on: post_tool, kind: command, argv: [/no/such/program]}
- {on: post_tool, kind: command, enabled: false, argv: [./scripts/missing.sh]}
";
    let load = load(&ws, yaml);
    assert_eq!(
        issues(&load, &ws),
        [
            "error hooks[0].argv[0]: the program `./scripts/missing.sh` ([ws]/scripts/missing.sh) does not exist",
            "error hooks[1].argv[0]: the program `./sub` ([ws]/sub) is a directory, not a program",
            "error hooks[2].shell: the program `./sub/plain.sh` ([ws]/sub/plain.sh) is not executable (it has no run \
             bit): run `chmod +x [ws]/sub/plain.sh`",
            "error hooks[3].shell: the program `[ws]/sub/gone.sh` does not exist",
            "error hooks[6].argv[0]: the program `/no/such/program` does not exist",
            "warning hooks[7].argv[0]: the program `./scripts/missing.sh` ([ws]/scripts/missing.sh) does not exist; \
             the hook is disabled, so it fails only once it is enabled",
        ]
    );
    // A shell word runs in the hook's cwd; what follows a `cd` only the shell knows.
    let loaded: Vec<usize> = load.hooks.iter().map(|h| h.index).collect();
    assert_eq!(loaded, [4, 5, 7]);
    // Observers fail open at run time, but their errors close no gate.
    assert_eq!(load.closed_gates, []);
}

#[test]
fn a_bare_name_not_on_path_is_a_warning_and_the_hooks_own_path_counts() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    script(&ws, "bin/lint-it", 0o755);
    let bin = ws.join("bin").display().to_string();
    let yaml = format!(
        "- {{on: pre_tool, kind: command, argv: [no-such-tool-xyz, --check]}}\n\
         - {{on: pre_tool, kind: command, shell: 'no-such-tool-xyz | cat'}}\n\
         - {{on: pre_tool, kind: command, argv: [lint-it], env: {{PATH: '{bin}'}}}}\n\
         - {{on: pre_tool, kind: command, argv: [sh, -c, 'exit 0']}}\n\
         - {{on: pre_tool, kind: command, shell: 'exit 0'}}\n"
    );
    let load = load(&ws, &yaml);
    let warning = "the program `no-such-tool-xyz` is not found on PATH; the hook fails when it runs unless the host's \
                   PATH has it";
    assert_eq!(
        issues(&load, &ws),
        [format!("warning hooks[0].argv[0]: {warning}"), format!("warning hooks[1].shell: {warning}")]
    );
    assert_eq!(load.hooks.len(), 5, "a warning drops nothing");
}

#[test]
fn an_agents_own_file_is_not_checked_and_a_hook_of_its_protocol_only_warns() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let cx = FileContext { origin: Origin::Project, workspace: &ws, root: &ws, source_id: None };
    let settings = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./missing.sh"}]}]}}"#;
    let load = parse_str(settings, &ws.join(".claude/settings.json"), Format::Claude, &cx);
    assert_eq!((load.hooks.len(), load.issues.len()), (1, 0), "{:#?}", load.issues);
    let clio = "- {on: before_tool, kind: command, argv: [./missing.sh]}\n";
    let load = parse_str(clio, &ws.join(".clio-coder/hooks.yaml"), Format::Clio, &cx);
    assert_eq!((load.hooks.len(), load.issues.len()), (1, 0), "{:#?}", load.issues);
    // Moved into the native file by `hook install` (or `hook import`), it keeps its agent's rules: a warning.
    let moved = "- {on: PreToolUse, protocol: claude, kind: command, shell: ./missing.sh}\n";
    let load = self::load(&ws, moved);
    assert_eq!(
        issues(&load, &ws),
        ["warning hooks[0].shell: the program `./missing.sh` ([ws]/missing.sh) does not exist; it follows Claude \
          Code's rules, and Claude Code loads it and lets it fail"]
    );
    assert_eq!((load.hooks.len(), load.closed_gates.len()), (1, 0));
}
