//! Fixtures for the pipeline tests: a real workspace, config home and managed file in tempdirs, hooks written as
//! YAML and loaded through `hook_config::load`, dispatched on a Tokio runtime; and a compact rendering of a result
//! that `check` compares against an expected text.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hook_config::{Config, Layout, LoadOptions, TrustStore, load};
use hook_middleware::{DispatchResult, EventInput, Pipeline, PipelineBuilder};
// Processes seen from /proc, shared with the other crates' suites.
pub use hook_testkit::process::{eventually, is_dead, live_members};
use hook_types::{Event, RunStatus};
use serde_json::Value;

/// A workspace with its own config home and managed file, all in tempdirs.
pub struct Fixture {
    /// Holds the workspace's directory (removed on drop).
    _workspace: tempfile::TempDir,
    config_home: tempfile::TempDir,
    /// Canonical workspace path.
    pub ws: PathBuf,
    /// A scratch directory outside the workspace, for hooks to write markers into (`$OUT` in scripts).
    out: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        let workspace = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(workspace.path()).unwrap();
        Fixture {
            _workspace: workspace,
            config_home: tempfile::tempdir().unwrap(),
            ws,
            out: tempfile::tempdir().unwrap(),
        }
    }

    /// Where hooks write what they observed: the fixture substitutes `$OUT` in hook YAML with this path.
    pub fn out(&self) -> &Path {
        self.out.path()
    }

    pub fn out_file(&self, name: &str) -> PathBuf {
        self.out.path().join(name)
    }

    /// Reads a file a hook wrote into `$OUT`, or `None` if it never did.
    pub fn read_out(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.out_file(name)).ok()
    }

    /// Writes a file under the workspace (parents created), returning its path.
    pub fn write(&self, relative: &str, content: &str) -> PathBuf {
        let path = self.ws.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Writes an executable script under the workspace.
    pub fn script(&self, relative: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.write(relative, &format!("#!/bin/sh\n{body}\n"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn expand(&self, yaml: &str) -> String {
        yaml.replace("$OUT", &self.out.path().display().to_string())
    }

    /// The user origin's file (trusted by default).
    pub fn user_hooks(&self, yaml: &str) -> &Self {
        std::fs::write(self.config_home.path().join("hooks.yaml"), self.expand(yaml)).unwrap();
        self
    }

    /// The project origin's file (needs trust for anything that widens).
    pub fn project_hooks(&self, yaml: &str) -> &Self {
        self.write(".hooks/hooks.yaml", &self.expand(yaml));
        self
    }

    /// The managed policy file.
    pub fn managed_hooks(&self, yaml: &str) -> &Self {
        std::fs::write(self.managed_file(), self.expand(yaml)).unwrap();
        self
    }

    fn managed_file(&self) -> PathBuf {
        self.config_home.path().join("managed.yaml")
    }

    pub fn layout(&self) -> Layout {
        Layout::new(&self.ws)
            .with_config_home(self.config_home.path())
            .with_home(None)
            .with_managed_file(self.managed_file())
    }

    /// Loads every origin; panics on an error-level issue, which in these tests is a broken fixture.
    pub fn load(&self) -> Config {
        let config = load(&self.layout(), &LoadOptions::default()).unwrap();
        let errors: Vec<String> = config
            .issues
            .iter()
            .filter(|i| i.severity == hook_config::IssueSeverity::Error)
            .map(|i| i.to_string())
            .collect();
        assert!(errors.is_empty(), "fixture has errors: {errors:#?}");
        config
    }

    /// Trusts every hook currently loaded, with its current fingerprint, as `hook trust --all` would.
    pub fn trust_all(&self) {
        let config = self.load();
        let (mut store, issue) = TrustStore::open(self.layout().trust_store_path());
        assert!(issue.is_none(), "{issue:?}");
        for hook in &config.hooks {
            store.trust_hook(&config.workspace, &hook.decl, hook.fingerprint.as_ref());
        }
        store.save().unwrap();
    }

    /// A builder with this workspace and the loaded hooks.
    pub fn builder(&self) -> PipelineBuilder {
        Pipeline::builder().workspace(&self.ws).user_hooks(self.load().hooks)
    }

    pub fn pipeline(&self) -> Pipeline {
        self.builder().build().unwrap()
    }
}

/// A runtime like a host's: multi-threaded, IO and time enabled.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Dispatches on a fresh runtime and returns the result.
pub fn dispatch(pipeline: &Pipeline, input: &EventInput) -> DispatchResult {
    runtime().block_on(pipeline.dispatch(input))
}

pub fn pre_tool(tool: &str, input: Value) -> EventInput {
    EventInput::new(Event::PreTool).with_tool(tool, input)
}

pub fn post_tool(tool: &str) -> EventInput {
    let mut input = EventInput::new(Event::PostTool).with_tool(tool, serde_json::json!({}));
    input.tool_response = Some(serde_json::json!({"ok": true}));
    input
}

/// `hook_id: status` per run, in order.
pub fn statuses(result: &DispatchResult) -> Vec<(String, RunStatus)> {
    result.runs.iter().map(|r| (r.hook_id.clone(), r.status)).collect()
}

pub fn status_of(result: &DispatchResult, id: &str) -> RunStatus {
    result.runs.iter().find(|r| r.hook_id == id).unwrap_or_else(|| panic!("no run of `{id}` in {result:#?}")).status
}

/// Every entry text of one run, joined by newlines.
pub fn entries_of(result: &DispatchResult, id: &str) -> String {
    let run = result.runs.iter().find(|r| r.hook_id == id).unwrap_or_else(|| panic!("no run of `{id}`"));
    run.entries.iter().map(|e| format!("{:?}: {}", e.kind, e.text)).collect::<Vec<_>>().join("\n")
}

/// A compact, timing-free rendering of a result: the verdict and reason, each effect as JSON, each run as
/// `id: status [exit] | entries`. What `check` compares.
pub fn render(result: &DispatchResult) -> String {
    let mut out = String::new();
    let verdict = serde_json::to_value(result.verdict).unwrap();
    writeln!(out, "verdict: {}", verdict.as_str().unwrap()).unwrap();
    if let Some(reason) = &result.reason {
        writeln!(out, "reason: {reason}").unwrap();
    }
    for effect in &result.effects {
        writeln!(out, "effect: {}", serde_json::to_string(effect).unwrap()).unwrap();
    }
    for run in &result.runs {
        let status = serde_json::to_value(run.status).unwrap();
        write!(out, "run: {}: {}", run.hook_id, status.as_str().unwrap()).unwrap();
        if let Some(code) = run.exit_code {
            write!(out, " (exit {code})").unwrap();
        }
        for entry in &run.entries {
            write!(out, " | {:?}: {}", entry.kind, entry.text).unwrap();
        }
        out.push('\n');
    }
    if result.halted {
        out.push_str("halted\n");
    }
    out
}

/// Asserts the rendering of `result` equals `expected` (leading/trailing blank lines and indentation ignored).
#[track_caller]
pub fn check(result: &DispatchResult, expected: &str) {
    let expected: String =
        expected.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    let actual = render(result);
    assert_eq!(actual, expected, "\n--- actual ---\n{actual}--- expected ---\n{expected}");
}
