//! The ordered hook pipeline: registrations, dispatch of one event, folds, the output protocol, receipts, budgets.
//!
//! Depends on `hook-types`, `hook-config` (the declaration model) and `hook-exec` (running one subprocess), with
//! tokio and tracing. Never parses configuration files and never prints to a terminal. A host loads its hooks with
//! [`hook_config::load`], builds a [`Pipeline`] once — its own guards first, then the loaded hooks — and calls
//! [`Pipeline::dispatch`] for each event; the answer is one verdict, the effects in precedence order, and a run
//! summary per hook. `docs/embedding.md` in the repository walks through a whole host, and `examples/agent-host`
//! runs one.
//!
//! Load → pipeline → dispatch → verdict:
//!
//! ```
//! use hook_config::{Layout, LoadOptions, load};
//! use hook_exec::Invocation;
//! use hook_middleware::{EvalError, Evaluation, EventInput, Pipeline, Registration};
//! use hook_types::{Effect, Event, Protocol, RunStatus, Verdict};
//! use std::time::Duration;
//!
//! // A workspace with one hook file, and a config home beside it (a throwaway directory here).
//! let base = std::env::temp_dir().join(format!("hook-middleware-front-page-{}", std::process::id()));
//! let workspace = base.join("repo");
//! std::fs::create_dir_all(workspace.join(".hooks")).unwrap();
//! std::fs::write(
//!     workspace.join(".hooks/hooks.yaml"),
//!     "- id: no-web\n  on: pre_tool\n  tools: [web_fetch]\n  kind: effect\n  \
//!      effect: {kind: block_tool, reason: no web access from this repository}\n",
//! )
//! .unwrap();
//!
//! // 1. Load every hook file of the workspace: validated, merged in precedence order, with trust.
//! let layout = Layout::new(&workspace)
//!     .with_config_home(base.join("config"))
//!     .with_home(None)
//!     .with_managed_file(base.join("no-managed-policy.yaml"));
//! let config = load(&layout, &LoadOptions::default()).unwrap();
//! assert!(config.issues.is_empty(), "{:?}", config.issues);
//!
//! // 2. Build the pipeline: the host's guards first (coded, in process, or a command), then the loaded hooks.
//! let no_sudo = Registration::in_process("host.no-sudo", [Event::PreTool], |input: &EventInput, _: &[Effect]| {
//!     let command = input.tool_input.as_ref().and_then(|i| i["command"].as_str()).unwrap_or_default();
//!     Ok::<_, EvalError>(if command.starts_with("sudo") { Evaluation::deny("no sudo here") } else { Evaluation::pass() })
//! });
//! // A command guard: the payload on stdin; exit 2 denies with stderr as the reason.
//! let script = "grep -q 'rm -rf' && { echo 'refusing rm -rf' >&2; exit 2; }; exit 0";
//! let no_rm = Registration::command(
//!     "host.no-rm-rf", [Event::PreTool], Invocation::shell(script), Duration::from_secs(5), Protocol::Native,
//! ).tools(["shell"]);
//! let pipeline = Pipeline::builder()
//!     .workspace(&config.workspace)
//!     .fixed(no_sudo)
//!     .host(no_rm)
//!     .user_hooks(&config)
//!     .build()
//!     .unwrap();
//!
//! // 3. Dispatch each event as it happens, and 4. act on the verdict.
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let fetch = EventInput::new(Event::PreTool).with_tool("web_fetch", serde_json::json!({"url": "https://x.test"}));
//! let result = runtime.block_on(pipeline.dispatch(&fetch));
//! assert_eq!(result.verdict, Verdict::Deny);
//! assert_eq!(result.reason.as_deref(), Some("no web access from this repository"));
//!
//! let rm = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "rm -rf /"}));
//! let result = runtime.block_on(pipeline.dispatch(&rm));
//! assert_eq!((result.verdict, result.reason.as_deref()), (Verdict::Deny, Some("refusing rm -rf")));
//! assert_eq!(result.runs.iter().find(|r| r.hook_id == "host.no-rm-rf").unwrap().status, RunStatus::Blocked);
//!
//! let ls = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "ls"}));
//! assert_eq!(runtime.block_on(pipeline.dispatch(&ls)).verdict, Verdict::Pass);
//! std::fs::remove_dir_all(&base).unwrap();
//! ```
//!
//! # Features
//!
//! - `policy` (default): `kind: policy` hooks, evaluated on a thread of their own within their bounds; turns on
//!   hook-config's `policy` (regorus).
//! - `http` (default): `kind: http` hooks, one POST per run through ureq with rustls; turns on hook-config's `http`.
//! - `otel`: the `otel` module, an exporter of every dispatch as OpenTelemetry spans over OTLP/HTTP (protobuf, sent
//!   through the same ureq client).
//!
//! Without `policy` or `http` no hook of that kind runs and none passes in silence: the loader reports it as an
//! error on its `kind` and closes the gate it was on, and the pipeline drops an http hook handed to it (a host that
//! turned on hook-config's `http` alone) with the same issue, closing its gate too.
#![forbid(unsafe_code)]

/// What a process's global allocator reports so that an in-process evaluation (a `policy` hook's Rego) stays
/// within [`Limits::evaluation_memory_bytes`](hook_types::Limits): [`charge`](allocation::charge) before each
/// allocation, [`release`](allocation::release) after each free. The `hook` binary's allocator reports; a host
/// whose allocator does not gets the time bound only (docs/policy.md#bounds).
pub mod allocation {
    pub use crate::pipeline::bounded::{charge, release};
}
mod budget;
#[cfg(any(feature = "http", feature = "otel"))]
mod client;
pub mod export;
mod input;
#[cfg(feature = "otel")]
pub mod otel;
pub mod pipeline;
pub mod protocol;
pub mod receipts;
pub mod spans;

pub use budget::{BudgetConfig, BudgetDiagnostic, Budgets};
pub use input::{AgentFields, EventInput};
pub use pipeline::{
    BackgroundReport, BuildError, Concurrency, DispatchResult, EvalError, Evaluate, Evaluation, EvaluationFuture,
    EvaluationRequest, HostEvaluator, Pipeline, PipelineBuilder, PreviewEntry, Registration, Reload,
};
pub use protocol::{HookRules, Interpretation, interpret, payload, sanitize_text};
