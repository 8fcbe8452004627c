//! The ordered hook pipeline: registrations, dispatch of one event, folds, the output protocol, receipts, budgets.
//!
//! Depends on `hook-types`, `hook-config` (the declaration model) and `hook-exec` (running one subprocess). Never
//! parses configuration files and never prints to a terminal. A host builds a [`Pipeline`] once — its own guards,
//! then the loaded user hooks — and calls [`Pipeline::dispatch`] for each event; the answer is one verdict, the
//! effects in precedence order, and a run summary per hook.
//!
//! ```
//! use hook_exec::Invocation;
//! use hook_middleware::{EvalError, Evaluation, EventInput, Pipeline, Registration};
//! use hook_types::{Effect, Event, Protocol, RunStatus, Verdict};
//! use std::time::Duration;
//!
//! let workspace = tempfile::tempdir().unwrap();
//! // A host guard, in process: it runs before any user hook and can end a gate.
//! let guard = Registration::in_process("host.no-sudo", [Event::PreTool], |input: &EventInput, _: &[Effect]| {
//!     let command = input.tool_input.as_ref().and_then(|i| i["command"].as_str()).unwrap_or_default();
//!     Ok::<_, EvalError>(if command.starts_with("sudo") { Evaluation::deny("no sudo here") } else { Evaluation::pass() })
//! });
//! // A command hook: exit 2 denies with stderr as the reason.
//! let script = "grep -q 'rm -rf' && { echo 'refusing rm -rf' >&2; exit 2; }; exit 0";
//! let hook = Registration::command(
//!     "host.no-rm-rf", [Event::PreTool], Invocation::shell(script), Duration::from_secs(5), Protocol::Native,
//! );
//! let pipeline = Pipeline::builder().workspace(workspace.path()).fixed(guard).host(hook).build().unwrap();
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "rm -rf /"}));
//! let result = runtime.block_on(pipeline.dispatch(&input));
//! assert_eq!(result.verdict, Verdict::Deny);
//! assert_eq!(result.reason.as_deref(), Some("refusing rm -rf"));
//! assert_eq!(result.runs[1].status, RunStatus::Blocked);
//! ```
#![forbid(unsafe_code)]

mod budget;
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
