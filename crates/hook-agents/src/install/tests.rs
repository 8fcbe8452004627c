//! Install plans over real files: what moves, what stays, what is kept as written.

use serde_json::{Value, json};

use super::{Agent, InstallError, InstallRequest, InstallScope, plan_install, uninstall};
use hook_config::Layout;

/// A workspace with `files` (relative path, text), a config home beside it, and the plan for `agent` at project
/// scope.
struct Project {
    ws: tempfile::TempDir,
    cfg: tempfile::TempDir,
}

impl Project {
    fn new(files: &[(&str, &str)]) -> Project {
        let project = Project { ws: tempfile::tempdir().unwrap(), cfg: tempfile::tempdir().unwrap() };
        for (path, text) in files {
            let path = project.ws.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        project
    }

    fn layout(&self) -> Layout {
        Layout::new(self.ws.path())
            .with_config_home(self.cfg.path())
            .with_home(None)
            .with_managed_file(self.cfg.path().join("managed.yaml"))
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.ws.path().join(path)).unwrap()
    }

    fn json(&self, path: &str) -> Value {
        serde_json::from_str(&self.read(path)).unwrap()
    }
}

fn request(agent: Agent, layout: &Layout) -> InstallRequest<'_> {
    InstallRequest::new(agent, InstallScope::Project, layout, "hook bridge --protocol x")
}

#[test]
fn a_handler_the_engine_does_not_run_stays_with_the_agent_next_to_the_bridge() {
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "sh guard.sh"},
        {"type": "prompt", "prompt": "Is this command safe?"}
    ]}]}});
    let project = Project::new(&[(".claude/settings.json", &settings.to_string())]);
    let layout = project.layout();
    let plan = plan_install(&request(Agent::Claude, &layout)).unwrap();
    assert_eq!(plan.moved.len(), 1);
    assert_eq!(plan.kept.len(), 1);
    assert!(plan.kept[0].reason.starts_with("the engine does not run it: "), "{:?}", plan.kept);
    plan.apply().unwrap();
    let written = project.json(".claude/settings.json");
    let guarded =
        crate::install::guarded_command(Agent::Claude, "PreToolUse", "hook bridge --protocol x", &Default::default());
    assert_eq!(
        written["hooks"]["PreToolUse"],
        json!([
            {"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is this command safe?"}]},
            {"hooks": [{"type": "command", "command": guarded, "timeout": 66}]}
        ])
    );
}

#[test]
fn gemini_switches_and_an_empty_list_the_user_wrote_are_kept_as_written() {
    let settings = json!({"hooksConfig": {"enabled": true}, "hooks": {
        "disabled": ["noisy"], "enabled": true, "AfterModel": [],
        "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "sh g.sh", "name": "g"}]}]
    }});
    let project = Project::new(&[(".gemini/settings.json", &serde_json::to_string_pretty(&settings).unwrap())]);
    let layout = project.layout();
    plan_install(&request(Agent::Gemini, &layout)).unwrap().apply().unwrap();
    let written = project.json(".gemini/settings.json");
    assert_eq!(written["hooksConfig"], json!({"enabled": true}));
    let hooks = written["hooks"].as_object().unwrap();
    assert_eq!(
        (&hooks["disabled"], &hooks["enabled"], &hooks["AfterModel"]),
        (&json!(["noisy"]), &json!(true), &json!([]))
    );
    assert_eq!(hooks["BeforeTool"].as_array().unwrap().len(), 1, "the moved group is gone, the bridge took its place");
    let native = project.read(".hooks/hooks.yaml");
    assert!(native.contains("matcher: (?:run_shell_command)") && native.contains("protocol: gemini"), "{native}");
}

#[test]
fn codex_hooks_in_config_toml_are_listed_as_staying_with_codex() {
    let toml = "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"sh g.sh\"\n";
    let project = Project::new(&[(".codex/config.toml", toml)]);
    let layout = project.layout();
    let plan = plan_install(&request(Agent::Codex, &layout)).unwrap();
    assert!(plan.moved.is_empty());
    assert_eq!(plan.kept.len(), 1, "{:?}", plan.kept);
    assert!(plan.kept[0].reason.contains("config.toml, which hook install does not edit"), "{:?}", plan.kept);
}

#[test]
fn a_file_that_changes_between_plan_and_apply_stops_the_install_with_nothing_written() {
    let settings = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh stop.sh"}]}]}});
    let project = Project::new(&[(".claude/settings.json", &settings.to_string())]);
    let layout = project.layout();
    let plan = plan_install(&request(Agent::Claude, &layout)).unwrap();
    std::fs::write(project.ws.path().join(".claude/settings.json"), "{}").unwrap();
    let err = plan.apply().unwrap_err();
    assert!(matches!(err, InstallError::Changed { .. }), "{err}");
    assert!(!project.ws.path().join(".hooks").exists());
    assert!(!project.cfg.path().join("installs.json").exists() && !project.cfg.path().join("trusted.json").exists());
}

#[test]
fn moved_hooks_go_inside_the_hooks_list_of_a_mapping_file_and_come_out_again() {
    let native = "version: 1\nhooks:\n  - id: mine\n    on: turn_start\n    kind: prompt\n    message: hi\n";
    let settings = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh stop.sh"}]}]}});
    let project = Project::new(&[(".hooks/hooks.yaml", native), (".claude/settings.json", &settings.to_string())]);
    let layout = project.layout();
    plan_install(&request(Agent::Claude, &layout)).unwrap().apply().unwrap();
    let written = project.read(".hooks/hooks.yaml");
    assert!(written.starts_with(native) && written.contains("\n  - id: claude.command."), "{written}");
    let load = hook_config::load_file(
        &project.ws.path().join(".hooks/hooks.yaml"),
        hook_config::Format::Native,
        &context(&project),
    );
    assert_eq!(load.hooks.len(), 2, "{:?}", load.issues);
    let report = uninstall(Agent::Claude, InstallScope::Project, &layout).unwrap();
    assert_eq!((report.records, report.restored.len()), (1, 2));
    assert_eq!(project.read(".hooks/hooks.yaml"), native);
    assert_eq!(project.json(".claude/settings.json"), settings);
}

fn context(project: &Project) -> hook_config::FileContext<'_> {
    hook_config::FileContext {
        origin: hook_types::Origin::Project,
        workspace: project.ws.path(),
        root: project.ws.path(),
        source_id: None,
    }
}

#[test]
fn no_config_home_means_no_install_record_and_no_install() {
    let project = Project::new(&[]);
    let layout = Layout::new(project.ws.path()).with_home(None);
    let layout = Layout { config_home: None, ..layout };
    let err = plan_install(&request(Agent::Cursor, &layout)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the config home is not known: pass --config-home DIR (install records what it changed there)"
    );
}

#[test]
fn an_event_a_broader_scope_bridges_gets_no_second_bridge_and_a_narrower_one_is_reported() {
    let home = tempfile::tempdir().unwrap();
    let bridge = json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "hook bridge --protocol gemini"}]}]}});
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(home.path().join(".gemini/settings.json"), bridge.to_string()).unwrap();
    let project = Project::new(&[]);
    let layout = project.layout().with_home(Some(home.path().to_path_buf()));
    let user_file = home.path().join(".gemini/settings.json");
    let project_file = project.ws.path().join(".gemini/settings.json");

    let mut request = request(Agent::Gemini, &layout);
    request.program = hook_config::BridgeProgram::named(["hook"]);
    let plan = plan_install(&request).unwrap();
    assert!(!plan.added_events.contains(&"BeforeTool".to_string()), "{:?}", plan.added_events);
    assert!(plan.added_events.contains(&"AfterTool".to_string()));
    assert_eq!(plan.bridged_elsewhere, vec![("BeforeTool".to_string(), user_file)]);

    request.scope = InstallScope::User;
    std::fs::remove_file(home.path().join(".gemini/settings.json")).unwrap();
    std::fs::create_dir_all(project.ws.path().join(".gemini")).unwrap();
    std::fs::write(&project_file, bridge.to_string()).unwrap();
    let plan = plan_install(&request).unwrap();
    assert!(plan.added_events.contains(&"BeforeTool".to_string()), "a user bridge serves every workspace");
    assert_eq!(plan.bridged_narrower, vec![("BeforeTool".to_string(), project_file)]);
}
