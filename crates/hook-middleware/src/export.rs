//! Exporting dispatches to a collector: the [`DispatchExporter`] a pipeline hands each finished dispatch (and each
//! finished `async` hook), with the event, the verdict and every hook's id, origin, hash, kind, status and
//! duration. With the `otel` feature, `otel::OtelExporter` sends them as OpenTelemetry spans over OTLP
//! (see `docs/observability.md`).
//!
//! An exporter is called on the dispatching task, after the fold, so it must only hand the data on (a bounded
//! queue) and return: a slow or failing collector never slows or fails a dispatch.

use std::time::{Duration, SystemTime};

use hook_types::{HookKind, RunSummary, Verdict};

use crate::EventInput;

/// One finished dispatch, as an exporter sees it.
#[derive(Debug, Clone, Copy)]
pub struct ExportedDispatch<'a> {
    /// The event and its input (payload content: an exporter sends it only when its operator opts in).
    pub input: &'a EventInput,
    /// The dispatch's verdict; `None` for an `async` hook that finished after its dispatch returned.
    pub verdict: Option<Verdict>,
    /// The deciding reason, if any.
    pub reason: Option<&'a str>,
    /// When the dispatch (or the async hook) started.
    pub started: SystemTime,
    /// How long it took.
    pub duration: Duration,
    /// Every hook of it, in the order of the run summaries.
    pub runs: &'a [ExportedRun<'a>],
}

/// One hook of an [`ExportedDispatch`].
#[derive(Debug, Clone, Copy)]
pub struct ExportedRun<'a> {
    /// Its run summary (id, origin, hash, status, duration, exit code).
    pub summary: &'a RunSummary,
    /// What it runs.
    pub kind: HookKind,
    /// An `async: true` hook, run in the background.
    pub run_async: bool,
}

/// Where a pipeline sends its finished dispatches (see the [module docs](self)).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use hook_middleware::export::{DispatchExporter, ExportedDispatch};
/// use hook_middleware::{EventInput, Pipeline};
///
/// #[derive(Default)]
/// struct Count(Mutex<Vec<String>>);
/// impl DispatchExporter for Count {
///     fn export(&self, dispatch: &ExportedDispatch<'_>) {
///         let ids = dispatch.runs.iter().map(|r| r.summary.hook_id.clone());
///         self.0.lock().unwrap().extend(ids);
///     }
/// }
/// let workspace = tempfile::tempdir().unwrap();
/// let count = Arc::new(Count::default());
/// let pipeline = Pipeline::builder().workspace(workspace.path()).exporter(count.clone()).build().unwrap();
/// # let _ = pipeline;
/// ```
pub trait DispatchExporter: Send + Sync + 'static {
    /// Takes one finished dispatch. Must return at once (queue it) and must not panic.
    fn export(&self, dispatch: &ExportedDispatch<'_>);
}
