//! Tests of a build without `policy` or without `http` (`cargo test -p hook-middleware --no-default-features`): a
//! hook of a kind the build cannot run never passes in silence; the gate it was on denies.

use std::path::Path;

use hook_types::{Event, Verdict};

use crate::{EventInput, Pipeline};

/// A trusted user-origin http hook on `event` that lets failures through (`on_error: ignore`), as if a loader
/// that accepts http hooks had read it.
#[cfg(not(feature = "http"))]
fn http_hook(id: &str, event: Event, source: &Path) -> hook_config::LoadedHook {
    use hook_config::{HookDecl, HookSpec, HttpFormat, HttpSpec, LoadedHook, TrustStatus};
    use hook_types::{EventFilters, OnError, Origin, Protocol};
    use std::path::PathBuf;

    let spec = HttpSpec {
        url: "http://127.0.0.1:9/v1/data/hooks".into(),
        method: "POST".into(),
        headers: std::collections::BTreeMap::new(),
        allowed_env_vars: None,
        timeout_ms: 1_000,
        format: HttpFormat::Native,
    };
    let mut decl = HookDecl {
        id: id.into(),
        origin: Origin::User,
        source: source.to_path_buf(),
        format: Protocol::Native,
        index: 0,
        root: source.parent().map_or_else(PathBuf::new, Path::to_path_buf),
        event,
        filters: EventFilters::default(),
        tools: None,
        matcher: None,
        condition: None,
        command: None,
        sequential: false,
        run_async: false,
        enabled: true,
        protocol: Protocol::Native,
        on_error: OnError::Ignore,
        spec: HookSpec::Http(spec),
        hash: String::new(),
    };
    decl.hash = hook_config::content_hash(&decl);
    LoadedHook { decl, trust: TrustStatus::Trusted, fingerprint: None, allowed_by_policy: true, origin_trusted: true }
}

/// Loads `hooks` as a workspace's `.hooks/hooks.yaml` (with a valid `policy/hooks.rego` beside it) and builds a
/// pipeline from the whole configuration.
#[cfg(not(feature = "policy"))]
fn pipeline_from_files(dir: &Path, hooks: &str) -> Pipeline {
    let workspace = dir.join("repo");
    std::fs::create_dir_all(workspace.join(".hooks")).unwrap();
    std::fs::create_dir_all(workspace.join("policy")).unwrap();
    std::fs::write(workspace.join("policy/hooks.rego"), "package hooks\ndefault decision := {}\n").unwrap();
    std::fs::write(workspace.join(".hooks/hooks.yaml"), hooks).unwrap();
    let layout = hook_config::Layout::new(&workspace)
        .with_config_home(dir.join("config"))
        .with_home(None)
        .with_managed_file(dir.join("managed.yaml"));
    let config = hook_config::load(&layout, &hook_config::LoadOptions::default()).unwrap();
    Pipeline::builder().workspace(&config.workspace).user_hooks(&config).build().unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn shell(command: &str) -> EventInput {
    EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({ "command": command }))
}

#[cfg(not(feature = "policy"))]
#[test]
fn a_policy_guard_in_a_file_denies_its_gate_and_names_the_feature() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = "\
- id: rego-guard
  on: pre_tool
  kind: policy
  files: [policy/hooks.rego]
  query: data.hooks.decision
";
    let pipeline = pipeline_from_files(dir.path(), hooks);
    let rt = runtime();
    let result = rt.block_on(pipeline.dispatch(&shell("ls")));
    assert_eq!(result.verdict, Verdict::Deny);
    let reason = result.reason.unwrap();
    assert!(reason.starts_with("the hook configuration has errors: "), "{reason}");
    assert!(reason.contains("/.hooks/hooks.yaml:3:"), "{reason}");
    assert!(reason.contains("hooks[0].kind: this build of `"), "{reason}");
    assert!(reason.contains("has no `policy` support; enable the `policy` feature of hook-config/hook-middleware"));
    // The other gates are open: the guard was on pre_tool only.
    assert_eq!(rt.block_on(pipeline.dispatch(&EventInput::new(Event::TurnStart))).verdict, Verdict::Pass);
}

#[cfg(not(feature = "http"))]
#[test]
fn an_http_guard_handed_over_by_the_host_is_dropped_and_its_gate_denies() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("hooks.yaml");
    let hooks =
        vec![http_hook("remote-guard", Event::PreTool, &source), http_hook("remote-log", Event::PostTool, &source)];
    let pipeline = Pipeline::builder().workspace(dir.path()).user_hooks(hooks).build().unwrap();

    let issues = pipeline.issues();
    assert_eq!(issues.len(), 2, "{issues:#?}");
    for issue in &issues {
        assert_eq!(issue.field.as_deref(), Some("hooks[0].kind"));
        assert_eq!(issue.severity, hook_config::IssueSeverity::Error);
        assert!(issue.message.contains(
            "has no `http` support; enable the `http` feature of hook-config/hook-middleware, so this hook is dropped"
        ));
    }

    let rt = runtime();
    let result = rt.block_on(pipeline.dispatch(&shell("ls")));
    // `on_error: ignore` does not let it through: the hook never ran, so its gate is closed.
    assert_eq!(result.verdict, Verdict::Deny);
    let reason = result.reason.unwrap();
    assert!(reason.contains("hooks[0].kind: this build of `"), "{reason}");
    assert!(reason.ends_with("so this hook is dropped (run hook validate)"), "{reason}");
    // An observer closes nothing, and nothing of it runs.
    let after = EventInput::new(Event::PostTool).with_tool("shell", serde_json::json!({"command": "ls"}));
    let result = rt.block_on(pipeline.dispatch(&after));
    assert_eq!(result.verdict, Verdict::Pass);
    assert!(result.runs.iter().all(|run| run.hook_id != "remote-log"), "{:#?}", result.runs);
}
