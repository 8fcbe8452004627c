//! The ordered hook pipeline: registrations, dispatch of one event, folds, the output protocol, receipts.
//!
//! Depends on `hook-types`, `hook-config` (the declaration model) and `hook-exec` (running one subprocess). Never
//! parses configuration files and never prints to a terminal.
#![forbid(unsafe_code)]

pub mod bridge;
mod budget;
mod input;
pub mod pipeline;
pub mod protocol;
pub mod receipts;
pub mod spans;

pub use budget::{BudgetConfig, BudgetDiagnostic, Budgets};
pub use input::EventInput;
pub use pipeline::{
    BuildError, Concurrency, DispatchResult, EvalError, Evaluate, Evaluation, Pipeline, PipelineBuilder, PreviewEntry,
    Registration, Reload,
};
pub use protocol::{HookRules, Interpretation, interpret, payload, sanitize_text};
