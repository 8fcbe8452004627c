//! Loading declarations that are valid: the clio-coder format, the defaults of docs/declarations.md and resolution, file-level keys, ids.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hook_config::{
    AsMode, FileContext, FileLoad, Format, HookDecl, HookSpec, IssueSeverity, Program, load_file, parse_str,
};
use hook_testkit::reader::issue_lines;
use hook_types::{Event, OnError, Origin, Protocol, Scope};
use serde::Serialize;
use tempfile::TempDir;

fn fixture(name: &str) -> PathBuf {
    hook_testkit::paths::repo_root().join("tests/fixtures/config").join(name)
}

/// Loads YAML text as a file at `path` of `origin`, with the workspace as its root for project origins and the
/// file's directory otherwise (docs/trust.md#origins).
fn load_text(origin: Origin, workspace: &Path, path: &Path, yaml: &str) -> FileLoad {
    let file_dir = path.parent().unwrap();
    let root = if matches!(origin, Origin::Project | Origin::ProjectLocal) { workspace } else { file_dir };
    let cx = FileContext { origin, workspace, root, source_id: None };
    parse_str(yaml, path, Format::Native, &cx)
}

fn command(decl: &HookDecl) -> &hook_config::CommandSpec {
    match &decl.spec {
        HookSpec::Command(command) => command,
        other => panic!("expected a command hook, got {other:?}"),
    }
}

/// A hook as the snapshot shows it: what it means, not where the fixture sits on this machine.
#[derive(Serialize)]
struct Row {
    id: String,
    on: String,
    kind: &'static str,
    protocol: &'static str,
    on_error: OnError,
    enabled: bool,
    tools: Option<Vec<String>>,
    timeout_ms: Option<u64>,
    program: Option<Vec<String>>,
    hash: String,
}

fn rows(load: &FileLoad) -> Vec<Row> {
    load.hooks
        .iter()
        .map(|h| Row {
            id: h.id.clone(),
            on: h.event.to_string(),
            kind: h.kind().as_str(),
            protocol: h.protocol.as_str(),
            on_error: h.on_error,
            enabled: h.enabled,
            tools: h.tools.clone(),
            timeout_ms: match &h.spec {
                HookSpec::Command(c) => Some(c.timeout_ms),
                _ => None,
            },
            program: match &h.spec {
                HookSpec::Command(c) => match &c.program {
                    Program::Argv(argv) => Some(argv.clone()),
                    Program::Shell(shell) => Some(vec!["sh".into(), "-c".into(), shell.clone()]),
                    Program::PowerShell(line) => Some(vec!["pwsh".into(), "-Command".into(), line.clone()]),
                },
                _ => None,
            },
            hash: h.hash.clone(),
        })
        .collect()
}

#[test]
fn clio_coder_file_loads_with_the_same_meaning_as_its_native_equivalent() {
    let workspace = fixture("clio").canonicalize().unwrap();
    let cx = FileContext { origin: Origin::Project, workspace: &workspace, root: &workspace, source_id: None };
    let clio = load_file(&workspace.join(".clio-coder/hooks.yaml"), Format::Clio, &cx);

    // Only the two clamped timeouts are worth a word; both say what runs instead.
    assert_eq!(
        issue_lines(&clio),
        [
            "hooks.yaml:10:16: warning: hooks[0].timeoutMs: 9000 ms is outside the clio protocol's bounds \
             (100 … 5000 ms); using 5000 ms",
            "hooks.yaml:33:16: warning: hooks[3].timeoutMs: 20 ms is outside the clio protocol's bounds \
             (100 … 5000 ms); using 100 ms",
        ]
    );
    assert!(clio.issues.iter().all(|i| i.severity == IssueSeverity::Warning));

    let ids: Vec<&str> = clio.hooks.iter().map(|h| h.id.as_str()).collect();
    let default_guard = format!("project.command.{}", clio.hooks[3].hash);
    let default_snapshot = format!("project.command.{}", clio.hooks[4].hash);
    assert_eq!(ids, ["lint-on-write", "remind-tests", "protect-plan", &default_guard, &default_snapshot, "say-done"]);
    let kinds: Vec<&str> = clio.hooks.iter().map(|h| h.kind().as_str()).collect();
    assert_eq!(kinds, ["command", "prompt", "effect", "command", "command", "effect"]);
    let events: Vec<Event> = clio.hooks.iter().map(|h| h.event.clone()).collect();
    use Event::*;
    assert_eq!(events, [PostTool, TurnStart, PreTool, PreTool, Compaction, TurnEnd]);
    let timeouts: Vec<u64> = clio
        .hooks
        .iter()
        .filter_map(|h| match &h.spec {
            HookSpec::Command(c) => Some(c.timeout_ms),
            _ => None,
        })
        .collect();
    assert_eq!(timeouts, [5_000, 100, 2_000], "clamped to clio-coder's bounds; its default where none is given");
    // clio-coder fails open: a failed command emits nothing, even before a tool call.
    assert!(clio.hooks.iter().all(|h| h.protocol == Protocol::Clio && h.on_error == OnError::Ignore));
    assert!(!clio.hooks[5].enabled);
    assert_eq!(command(&clio.hooks[0]).resolved_program, Some(workspace.join("scripts/lint.sh")));

    // The same hooks written natively with `protocol: clio` are the same declarations: same ids, same hashes.
    let native = load_file(&workspace.join("native-equivalent.yaml"), Format::Native, &cx);
    assert_eq!(native.issues, []);
    let pairs: Vec<(&str, &str)> = native.hooks.iter().map(|h| (h.id.as_str(), h.hash.as_str())).collect();
    let clio_pairs: Vec<(&str, &str)> = clio.hooks.iter().map(|h| (h.id.as_str(), h.hash.as_str())).collect();
    assert_eq!(pairs, clio_pairs);

    insta::assert_yaml_snapshot!("clio_coder_hooks", rows(&clio));
}

#[test]
fn relative_programs_resolve_against_the_origin_root() {
    let workspace = TempDir::new().unwrap();
    let home = TempDir::new().unwrap();
    let yaml = "- {on: pre_tool, kind: command, argv: [./scripts/guard.sh, ./not-the-program]}\n\
                - {on: pre_tool, kind: command, argv: [sh, x]}\n\
                - {on: pre_tool, kind: command, argv: [/usr/bin/env, ls]}\n\
                - {on: pre_tool, kind: command, shell: ./scripts/guard.sh}\n";
    // `argv[0]` resolves against the origin root; a shell word against the hook's cwd, the workspace.
    for root in [workspace.path(), home.path()] {
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/guard.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(root.join("scripts/guard.sh"), PermissionsExt::from_mode(0o755)).unwrap();
    }
    let project = load_text(Origin::Project, workspace.path(), &workspace.path().join(".hooks/hooks.yaml"), yaml);
    let user = load_text(Origin::User, workspace.path(), &home.path().join("hooks.yaml"), yaml);
    for (load, root) in [(&project, workspace.path()), (&user, home.path())] {
        assert_eq!(load.issues, []);
        let resolved: Vec<Option<PathBuf>> = load.hooks.iter().map(|h| command(h).resolved_program.clone()).collect();
        assert_eq!(resolved, [Some(root.join("scripts/guard.sh")), None, None, None]);
    }
    // The origin root is not hashed: the same hook from two origins is the same declaration.
    assert_eq!(project.hooks[0].hash, user.hooks[0].hash);
    // Resolved against the origin root, so a script only the workspace has is missing for the user origin.
    std::fs::remove_file(home.path().join("scripts/guard.sh")).unwrap();
    let user = load_text(Origin::User, workspace.path(), &home.path().join("hooks.yaml"), yaml);
    assert_eq!(user.hooks.len(), 3, "{:#?}", user.issues);
    assert_eq!(user.issues.len(), 1, "{:#?}", user.issues);
    assert_eq!(user.issues[0].severity, IssueSeverity::Error);
    assert_eq!(user.issues[0].field.as_deref(), Some("hooks[0].argv[0]"));
    assert!(user.issues[0].message.starts_with("the program `./scripts/guard.sh` ("), "{}", user.issues[0]);
    assert!(user.issues[0].message.ends_with("/scripts/guard.sh) does not exist"), "{}", user.issues[0]);
}

#[test]
fn defaults_follow_the_event_and_the_protocol() {
    let workspace = TempDir::new().unwrap();
    let path = workspace.path().join("hooks.yaml");
    let yaml = "
- {on: pre_tool, kind: command, argv: [sh]}
- {on: post_tool, kind: command, argv: [sh]}
- {on: turn_end, kind: command, argv: [sh]}
- {on: PreToolUse, kind: command, argv: [sh], protocol: claude}
- {on: pre_tool, kind: command, argv: [sh], protocol: mecha}
- {on: pre_tool, kind: command, argv: [sh], on_error: ignore, as: annotate, env: {B: '2', A: '1'}}
";
    let load = load_text(Origin::Project, workspace.path(), &path, yaml);
    assert_eq!(load.issues, []);
    let summary: Vec<(OnError, AsMode, u64)> =
        load.hooks.iter().map(|h| (h.on_error, command(h).as_mode, command(h).timeout_ms)).collect();
    use AsMode::*;
    use OnError::*;
    assert_eq!(
        summary,
        [
            (Deny, Reminder, 10_000),
            (Ignore, Annotate, 10_000),
            (Ignore, Reminder, 10_000),
            (Ignore, Reminder, 600_000),
            (Deny, Reminder, 10_000),
            (Ignore, Annotate, 10_000),
        ]
    );
    let last = command(&load.hooks[5]);
    assert_eq!(last.cwd, ".");
    assert_eq!(last.resolved_cwd, workspace.path().canonicalize().unwrap());
    assert_eq!(last.env.keys().collect::<Vec<_>>(), ["A", "B"]);
    assert_eq!(load.hooks[0].filters, Default::default());
    assert!(load.hooks.iter().all(|h| h.enabled && !h.sequential && h.matcher.is_none() && h.tools.is_none()));
}

#[test]
fn event_aliases_set_their_filters_and_foreign_events_need_a_foreign_protocol() {
    let workspace = TempDir::new().unwrap();
    let path = workspace.path().join("hooks.yaml");
    let yaml = "
- {on: PostToolUseFailure, kind: prompt, message: look at the error}
- {on: SubagentStop, kind: prompt, message: subagent done}
- {on: turn_end, scope: any, kind: prompt, message: any run}
- {on: 'foreign:SubagentStart', protocol: claude, matcher: Explore, kind: command, shell: exit 0}
- {on: session_start, matcher: 'startup|resume', kind: prompt, message: welcome back}
";
    let load = load_text(Origin::Project, workspace.path(), &path, yaml);
    assert_eq!(load.issues, []);
    let filters: Vec<(bool, Scope)> = load.hooks.iter().map(|h| (h.filters.only_errors, h.filters.scope)).collect();
    assert_eq!(
        filters,
        [
            (true, Scope::Main),
            (false, Scope::Subagent),
            (false, Scope::Any),
            (false, Scope::Main),
            (false, Scope::Main)
        ]
    );
    assert_eq!(load.hooks[3].event, Event::Foreign("SubagentStart".into()));
    assert_eq!(load.hooks[3].on_error, OnError::Ignore);
    let matcher = load.hooks[4].matcher.as_ref().unwrap();
    assert!(matcher.matches("resume") && !matcher.matches("clear"));
}

#[test]
fn long_prompt_is_cut_at_2000_characters_with_a_warning() {
    let workspace = TempDir::new().unwrap();
    let message = "é".repeat(2_500);
    let yaml = format!("- {{on: turn_start, kind: prompt, message: {message}}}\n");
    let load = load_text(Origin::Project, workspace.path(), &workspace.path().join("hooks.yaml"), &yaml);
    assert_eq!(
        issue_lines(&load),
        ["hooks.yaml:1:43: warning: hooks[0].message: the message has 2500 characters; it was cut to 2000"]
    );
    let HookSpec::Prompt { message, .. } = &load.hooks[0].spec else { panic!("a prompt hook") };
    assert_eq!(message.chars().count(), 2_000);
}

#[test]
fn timeout_outside_the_host_limits_is_kept_as_declared_with_a_warning() {
    let workspace = TempDir::new().unwrap();
    let yaml = "- {on: pre_tool, kind: command, argv: [sh], timeout_ms: 900000}\n- {on: pre_tool, kind: command, argv: [sh], timeout_ms: 0}\n";
    let load = load_text(Origin::Project, workspace.path(), &workspace.path().join("hooks.yaml"), yaml);
    assert_eq!(
        issue_lines(&load),
        [
            "hooks.yaml:1:57: warning: hooks[0].timeout_ms: 900000 ms is outside the default host limits \
             (100 … 600000 ms); the hook will run with 600000 ms",
            "hooks.yaml:2:57: warning: hooks[1].timeout_ms: 0 ms is outside the default host limits \
             (100 … 600000 ms); the hook will run with 100 ms",
        ]
    );
    let timeouts: Vec<u64> = load.hooks.iter().map(|h| command(h).timeout_ms).collect();
    assert_eq!(timeouts, [900_000, 0], "the host clamps at run time; the declaration keeps what was written");
}

#[test]
fn only_managed_counts_in_the_managed_file_only() {
    let dir = TempDir::new().unwrap();
    let yaml = "version: 1\nonly_managed: true\nhooks:\n  - {on: pre_tool, kind: effect, effect: {kind: lock_tools}}\n";
    let path = dir.path().join("hooks.yaml");
    let managed = load_text(Origin::Managed, dir.path(), &path, yaml);
    assert!(managed.only_managed && managed.issues.is_empty() && managed.hooks.len() == 1);
    let project = load_text(Origin::Project, dir.path(), &path, yaml);
    assert!(!project.only_managed);
    assert_eq!(
        issue_lines(&project),
        ["hooks.yaml:2:15: warning: only_managed: `only_managed` only has an effect in the managed file; ignored"]
    );
    assert_eq!(project.hooks.len(), 1);
}

#[test]
fn default_ids_use_the_source_id_and_identical_copies_collapse() {
    let workspace = TempDir::new().unwrap();
    let yaml = "- {on: turn_start, kind: prompt, message: hi}\n- {on: turn_start, kind: prompt, message: hi}\n";
    let cx = FileContext {
        origin: Origin::Extension,
        workspace: workspace.path(),
        root: workspace.path(),
        source_id: Some("Lab Tools"),
    };
    let load = parse_str(yaml, Path::new("ext/hooks.yaml"), Format::Native, &cx);
    assert_eq!(load.hooks.len(), 1);
    assert_eq!(load.hooks[0].id, format!("lab-tools.prompt.{}", load.hooks[0].hash));
    assert_eq!(issue_lines(&load), ["hooks.yaml:2:3: warning: hooks[1]: identical to hooks[0]; this copy was dropped"]);
    let no_source = FileContext { source_id: None, ..cx };
    let load = parse_str(yaml, Path::new("ext/hooks.yaml"), Format::Native, &no_source);
    assert!(load.hooks[0].id.starts_with("extension.prompt."));
}

#[test]
fn strict_load_refuses_errors_and_accepts_warnings() {
    let workspace = TempDir::new().unwrap();
    let path = workspace.path().join("hooks.yaml");
    let warned = load_text(
        Origin::Project,
        workspace.path(),
        &path,
        "- {on: pre_tool, kind: command, argv: [sh], timeout_ms: 1}",
    );
    assert_eq!(warned.clone().strict().unwrap(), warned);
    let yaml = "- {on: pre_tool, kind: command, argv: [sh], timeout_ms: 1}\n- {on: pre_tol, kind: command, argv: []}";
    let err = load_text(Origin::Project, workspace.path(), &path, yaml).strict().unwrap_err();
    assert_eq!(err.errors.len(), 2, "{err}");
    let text = err.to_string().replace(&*path.to_string_lossy(), "hooks.yaml");
    assert_eq!(
        text,
        "2 errors in hook declarations\n  \
         hooks.yaml:2:8: error: hooks[1].on: unknown event `pre_tol` (did you mean `pre_tool`?)\n  \
         hooks.yaml:2:38: error: hooks[1].argv: `argv` is empty; expected the program and its arguments, e.g. \
         `[./scripts/check.sh, --fast]`"
    );
}
