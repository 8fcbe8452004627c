//! A host's view of the engine: load the shipped demo workspace with `hook-config`, trust it through the trust store,
//! build a `hook-middleware` pipeline from it, and dispatch real events through real hook scripts.

use std::path::{Path, PathBuf};

use hook_config::{Config, Layout, LoadOptions, TrustStatus, TrustStore, load};
use hook_middleware::{EventInput, Pipeline};
use hook_types::{Effect, Event, RunStatus, Verdict};
use serde_json::json;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/demo").canonicalize().unwrap()
}

/// A layout over the demo whose config home and managed file live in `home`, never the machine's own.
fn layout(home: &Path) -> Layout {
    Layout::new(demo()).with_config_home(home.join("config")).with_managed_file(home.join("managed.yaml"))
}

fn load_demo(home: &Path) -> Config {
    let config = load(&layout(home), &LoadOptions::default()).expect("the demo loads");
    let errors: Vec<_> = config.issues.iter().map(ToString::to_string).collect();
    assert!(!config.has_errors(), "the demo loads cleanly: {errors:#?}");
    config
}

/// Records every hook of the demo that needs trust in the store, as `hook trust --all --yes` would.
fn trust_all(home: &Path, config: &Config) {
    let (mut store, issue) = TrustStore::open(layout(home).trust_store_path());
    assert!(issue.is_none(), "{issue:?}");
    for hook in &config.hooks {
        if matches!(hook.trust, TrustStatus::Untrusted | TrustStatus::Modified) {
            store.trust_hook(&config.workspace, &hook.decl, hook.fingerprint.as_ref());
        }
    }
    store.save().unwrap();
}

fn pipeline(config: &Config) -> Pipeline {
    Pipeline::builder().workspace(&config.workspace).user_hooks(config.hooks.clone()).build().unwrap()
}

fn dispatch(pipeline: &Pipeline, input: EventInput) -> hook_middleware::DispatchResult {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(pipeline.dispatch(&input))
}

fn shell(command: &str) -> EventInput {
    EventInput::new(Event::PreTool).with_tool("shell", json!({ "command": command })).with_session("demo")
}

fn status_of(result: &hook_middleware::DispatchResult, id: &str) -> RunStatus {
    result.runs.iter().find(|r| r.hook_id == id).unwrap_or_else(|| panic!("no run of {id}: {:#?}", result.runs)).status
}

#[test]
fn untrusted_demo_runs_only_what_narrows() {
    let home = tempfile::tempdir().unwrap();
    let config = load_demo(home.path());
    let protect = config.get("demo.protect-env").unwrap();
    assert_eq!(protect.trust, TrustStatus::Trusted, "an effect that only narrows needs no trust");
    assert_eq!(config.get("demo.no-destructive-shell").unwrap().trust, TrustStatus::Untrusted);

    let result = dispatch(&pipeline(&config), shell("rm -rf /"));
    // Nothing that could widen ran, and nothing denied: the project's guard script is not trusted yet.
    assert_eq!(result.verdict, Verdict::Pass, "{result:#?}");
    assert_eq!(status_of(&result, "demo.no-destructive-shell"), RunStatus::Untrusted);
    assert_eq!(status_of(&result, "demo.protect-env"), RunStatus::Completed);
    assert!(result.effects.iter().any(|e| matches!(e, Effect::ProtectPath { path, .. } if path == ".env")));
}

#[test]
fn trusted_demo_denies_asks_allows_and_passes() {
    let home = tempfile::tempdir().unwrap();
    trust_all(home.path(), &load_demo(home.path()));
    let config = load_demo(home.path());
    assert!(config.hooks.iter().all(|h| h.trust == TrustStatus::Trusted), "{:#?}", config.hooks);
    let pipeline = pipeline(&config);

    let denied = dispatch(&pipeline, shell("rm -rf /"));
    assert_eq!(denied.verdict, Verdict::Deny);
    assert!(denied.reason.as_deref().unwrap_or_default().contains("destructive"), "{denied:#?}");
    assert_eq!(status_of(&denied, "demo.no-destructive-shell"), RunStatus::Blocked);

    let asked = dispatch(&pipeline, shell("git push origin main"));
    assert_eq!(asked.verdict, Verdict::Ask, "{asked:#?}");

    let passed = dispatch(&pipeline, shell("cargo test"));
    assert_eq!(passed.verdict, Verdict::Pass, "{passed:#?}");

    let mut permission = shell("ls -la");
    permission.event = Event::PermissionRequest;
    assert_eq!(dispatch(&pipeline, permission).verdict, Verdict::Allow);

    let mut unknown = shell("make deploy");
    unknown.event = Event::PermissionRequest;
    assert_eq!(dispatch(&pipeline, unknown).verdict, Verdict::None);

    let mut prompt = EventInput::new(Event::TurnStart);
    prompt.prompt = Some("add a feature".into());
    let turn = dispatch(&pipeline, prompt);
    assert_eq!(turn.verdict, Verdict::Pass);
    assert!(
        turn.effects.iter().any(|e| matches!(e, Effect::InjectReminder { message, .. } if message.contains("tests"))),
        "{turn:#?}"
    );

    let mut failed = EventInput::new(Event::PostTool).with_tool("shell", json!({ "command": "false" }));
    failed.is_error = true;
    let note = dispatch(&pipeline, failed);
    assert!(note.effects.iter().any(|e| matches!(e, Effect::AnnotateToolResult { .. })), "{note:#?}");
}
