//! hook-agents' import module: planning, checking and writing the native form of an agent's hooks.

use std::path::Path;

use hook_agents::import::{ImportError, ImportPlan, plan_import};
use hook_config::{Format, Layout, load};

/// A workspace and a config home, with `files` (path relative to the workspace, or `~/…` for the home) written.
struct Ws {
    ws: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Ws {
    fn new(files: &[(&str, &str)]) -> Ws {
        let ws = Ws { ws: tempfile::tempdir().unwrap(), home: tempfile::tempdir().unwrap() };
        for (path, text) in files {
            ws.write(path, text);
        }
        ws
    }

    fn write(&self, path: &str, text: &str) {
        let path = match path.strip_prefix("~/") {
            Some(rest) => self.home.path().join(rest),
            None => self.ws.path().join(path),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.ws.path().join(path)).unwrap()
    }

    fn layout(&self) -> Layout {
        Layout::new(self.ws.path())
            .with_config_home(self.home.path().join("cfg"))
            .with_home(Some(self.home.path().to_path_buf()))
            .with_managed_file(self.home.path().join("managed.yaml"))
    }

    fn plan(&self, format: Format) -> Result<ImportPlan, ImportError> {
        plan_import(&self.layout(), format)
    }
}

const CURSOR: (&str, &str) = (
    ".cursor/hooks.json",
    r#"{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./guard.sh", "failClosed": true}]}}"#,
);

/// Plans and writes `format`'s import, removes `sources`, and checks every imported hook loads back natively with
/// the same id and hash (beside what the native file held already).
fn check_round_trip(ws: &Ws, format: Format, sources: &[&str]) {
    let plan = ws.plan(format).unwrap();
    let planned: Vec<(String, String)> = plan.hooks().map(|h| (h.decl.id.clone(), h.decl.hash.clone())).collect();
    assert!(!planned.is_empty());
    plan.write().unwrap();
    for source in sources {
        std::fs::remove_file(ws.ws.path().join(source)).unwrap();
    }
    let config = load(&ws.layout(), &Default::default()).unwrap();
    let loaded: Vec<(String, String)> = config
        .hooks
        .iter()
        .filter(|h| h.decl.format == Format::Native)
        .map(|h| (h.decl.id.clone(), h.decl.hash.clone()))
        .collect();
    assert!(planned.iter().all(|hook| loaded.contains(hook)), "{planned:?} not all in {loaded:?}");
    assert!(!config.has_errors(), "{:#?}", config.issues);
}

#[test]
fn import_keeps_ids_and_hashes_of_gemini_cursor_and_mecha_hooks() {
    let ws = Ws::new(&[
        (
            ".gemini/settings.json",
            r#"{"hooks": {"BeforeTool": [{"matcher": "read", "sequential": true,
            "hooks": [{"type": "command", "command": "./a.sh", "timeout": 1500}]}],
            "AfterModel": [{"hooks": [{"type": "command", "command": "./b.sh", "name": "b"}]}]},
            "hooksConfig": {"disabled": ["b"]}}"#,
        ),
        CURSOR,
        (
            ".mecha/config.toml",
            "[[hook]]\nevent = \"pre_tool\"\ncommand = \"./c.sh\"\ntools = [\"shell\"]\ntimeout_secs = 3\n",
        ),
    ]);
    check_round_trip(&ws, Format::Gemini, &[".gemini/settings.json"]);
    let text = ws.read(".hooks/hooks.yaml");
    assert!(text.contains("on: foreign:AfterModel") && text.contains("enabled: false"), "{text}");
    assert!(text.contains("sequential: true") && text.contains("matcher: (?:read)"), "{text}");
    check_round_trip(&ws, Format::Cursor, &[".cursor/hooks.json"]);
    check_round_trip(&ws, Format::Mecha, &[".mecha/config.toml"]);
    insta::assert_snapshot!("import_three_formats_into_one_file", ws.read(".hooks/hooks.yaml"));
}

#[test]
fn import_is_idempotent_and_leaves_the_native_hooks_alone() {
    let native = "# mine\n- id: mine\n  on: turn_start\n  kind: prompt\n  message: hello\n";
    let ws = Ws::new(&[CURSOR, (".hooks/hooks.yaml", native)]);
    let plan = ws.plan(Format::Cursor).unwrap();
    assert!(!plan.is_empty());
    assert!(plan.targets[0].block.starts_with("# imported from .cursor/hooks.json by `hook import --from cursor`\n"));
    plan.write().unwrap();
    let written = ws.read(".hooks/hooks.yaml");
    assert!(written.starts_with(native), "{written}");
    let again = ws.plan(Format::Cursor).unwrap();
    assert!(again.is_empty() && again.hooks().all(|h| h.already_there));
    again.write().unwrap();
    assert_eq!(ws.read(".hooks/hooks.yaml"), written);
}

#[test]
fn import_sends_each_origin_to_its_own_native_file() {
    let ws = Ws::new(&[
        ("~/.cursor/hooks.json", r#"{"version": 1, "hooks": {"stop": [{"command": "/opt/bin/notify"}]}}"#),
        CURSOR,
        (".clio-coder/hooks.local.yaml", "- {on: before_tool, kind: command, shell: ./mine.sh}\n"),
    ]);
    let plan = ws.plan(Format::Cursor).unwrap();
    let targets: Vec<(String, &Path)> = plan
        .targets
        .iter()
        .map(|t| (t.origin.to_string(), t.path.strip_prefix(ws.home.path()).unwrap_or(&t.path)))
        .collect();
    assert_eq!(targets[0], ("user".to_owned(), Path::new("cfg/hooks.yaml")));
    assert_eq!(targets[1].0, "project");
    assert!(targets[1].1.ends_with(".hooks/hooks.yaml"));
    let clio = ws.plan(Format::Clio).unwrap();
    assert!(clio.targets[0].path.ends_with(".hooks/hooks.local.yaml"));
    assert_eq!(clio.targets[0].origin.to_string(), "project.local");
}

#[test]
fn import_refuses_what_it_cannot_do_safely() {
    // Native hooks are not imported.
    let ws = Ws::new(&[CURSOR]);
    assert!(matches!(ws.plan(Format::Native), Err(ImportError::NotForeign)));

    // A user hook needs a config home to go to.
    let ws = Ws::new(&[("~/.cursor/hooks.json", r#"{"version": 1, "hooks": {"stop": [{"command": "x"}]}}"#)]);
    let layout = Layout::new(ws.ws.path())
        .with_config_home("")
        .with_home(Some(ws.home.path().to_path_buf()))
        .with_managed_file(ws.home.path().join("managed.yaml"));
    let err = plan_import(&layout, Format::Cursor).unwrap_err();
    assert!(matches!(err, ImportError::NoConfigHome), "{err}");

    // A relative program of a user-level clio-coder hook would resolve against the config home instead.
    let ws = Ws::new(&[("~/.clio-coder/hooks.yaml", "- {on: turn_end, kind: command, argv: [./notify.sh]}\n")]);
    let err = ws.plan(Format::Clio).unwrap_err();
    assert!(err.to_string().contains("would run another program"), "{err}");

    // The source has an error-level issue: a hook would be left behind.
    let ws = Ws::new(&[(
        ".cursor/hooks.json",
        r#"{"version": 1, "hooks": {"stop": [{"command": "x"}, {"type": "prompt"}]}}"#,
    )]);
    let plan = ws.plan(Format::Cursor).unwrap();
    assert!(plan.has_errors() && plan.issues.len() == 1, "{:#?}", plan.issues);
    assert!(matches!(plan.write(), Err(ImportError::SourceErrors { count: 1, .. })));
    assert!(!ws.ws.path().join(".hooks").exists());

    // The native file changed since the plan was made.
    let ws = Ws::new(&[CURSOR]);
    let plan = ws.plan(Format::Cursor).unwrap();
    ws.write(".hooks/hooks.yaml", "- {id: late, on: turn_start, kind: prompt, message: hi}\n");
    assert!(matches!(plan.write(), Err(ImportError::Changed { .. })));
}

#[test]
fn import_reports_a_native_hook_that_takes_the_same_id_with_other_contents() {
    let ws = Ws::new(&[(".clio-coder/hooks.yaml", "- {id: guard, on: before_tool, kind: command, shell: ./a.sh}\n")]);
    ws.write(".hooks/hooks.yaml", "- {id: guard, on: pre_tool, kind: command, shell: exit 0}\n");
    let err = ws.plan(Format::Clio).unwrap_err();
    assert!(matches!(&err, ImportError::Conflict { id, .. } if id == "guard"), "{err}");
    assert!(err.to_string().contains("already has a hook `guard` that differs"), "{err}");
}

#[test]
fn import_keeps_ids_and_hashes_of_qwen_code_and_factory_droid_hooks() {
    let ws = Ws::new(&[
        (
            ".qwen/settings.json",
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "sequential": true,
            "hooks": [{"type": "command", "command": "./q.sh", "timeout": 10, "env": {"LEVEL": "strict"}}]}],
            "TodoCreated": [{"hooks": [{"type": "command", "command": "./todo.sh"}]}]}}"#,
        ),
        (
            ".factory/hooks.json",
            r#"{"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "./d.sh", "timeout": 5}]}],
            "showHookOutput": true}"#,
        ),
        (
            ".factory/settings.json",
            r#"{"model": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]}}"#,
        ),
    ]);
    check_round_trip(&ws, Format::Qwen, &[".qwen/settings.json"]);
    let text = ws.read(".hooks/hooks.yaml");
    assert!(text.contains("protocol: qwen") && text.contains("on: foreign:TodoCreated"), "{text}");
    assert!(text.contains("(?:Bash)|^(?:run_shell_command)$") && text.contains("LEVEL: strict"), "{text}");
    check_round_trip(&ws, Format::Droid, &[".factory/hooks.json", ".factory/settings.json"]);
    let text = ws.read(".hooks/hooks.yaml");
    assert!(text.contains("protocol: droid") && text.contains("./d.sh") && text.contains("./stop.sh"), "{text}");
}

#[test]
fn import_keeps_ids_and_hashes_of_github_copilot_cli_hooks_from_every_file_of_its_directory() {
    let ws = Ws::new(&[
        (
            ".github/hooks/guard.json",
            r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./g.sh", "matcher": "bash",
            "timeoutSec": 5, "env": {"LEVEL": "strict"}}], "errorOccurred": [{"bash": "./err.sh"}]}}"#,
        ),
        (
            ".github/hooks/stop.json",
            r#"{"version": 1, "hooks": {"agentStop": [{"type": "command", "exec": "./stop", "args": ["--once"]}]}}"#,
        ),
    ]);
    check_round_trip(&ws, Format::Copilot, &[".github/hooks/guard.json", ".github/hooks/stop.json"]);
    let text = ws.read(".hooks/hooks.yaml");
    assert!(text.contains("protocol: copilot") && text.contains("on: foreign:errorOccurred"), "{text}");
    assert!(text.contains("^(?:bash)$") && text.contains("LEVEL: strict") && text.contains("--once"), "{text}");
}
