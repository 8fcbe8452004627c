//! `async: true` observer hooks: the dispatch starts them and returns; they run on the runtime under every bound of
//! a run (the hook's timeout, the process-group kill, the capture bound: `hook-exec` runs them like any other), and
//! each one's receipt is written, and its span exported, when it ends.
//!
//! A host that exits calls [`Pipeline::finish_background`] with a short bound: the hooks still running then are
//! cancelled (their process groups killed by `hook-exec`), and their receipts say so. A runtime dropped meanwhile
//! drops the runs' futures, which kills their groups too: no async hook outlives its host.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use hook_types::{EntryKind, RunStatus};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::Pipeline;
use super::command::{self, Prepared};
use super::record::{Cancel, Meta, Record};
use crate::export::{DispatchExporter, ExportedDispatch, ExportedRun};
use crate::receipts::Sinks;
use crate::{EventInput, spans};

/// The most `async: true` hooks of one pipeline that run at once: past it a new one is not started but reported
/// `skipped` in its dispatch, so a host whose observers are slower than its events never piles up processes.
pub const MAX_BACKGROUND: usize = 64;

/// The background hooks of a pipeline.
pub(crate) struct Background {
    tasks: Mutex<Vec<JoinHandle<()>>>,
    stop: watch::Sender<bool>,
}

impl Default for Background {
    fn default() -> Self {
        Background { tasks: Mutex::new(Vec::new()), stop: watch::Sender::new(false) }
    }
}

/// What [`Pipeline::finish_background`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BackgroundReport {
    /// Async hooks that ended on their own within the bound.
    pub finished: usize,
    /// Async hooks still running at the bound: cancelled, their process groups killed, their receipts written
    /// with status `cancelled`.
    pub cancelled: usize,
}

/// What one background run needs, owned.
pub(crate) struct Launch {
    pub meta: Meta,
    pub prepared: Prepared,
    pub input: EventInput,
    pub sinks: Arc<Sinks>,
    pub exporter: Option<Arc<dyn DispatchExporter>>,
}

impl Background {
    /// Starts one async hook on the current runtime.
    pub(crate) fn launch(&self, launch: Launch) {
        let mut stop = self.stop.subscribe();
        let task = tokio::spawn(async move {
            let Launch { meta, prepared, input, sinks, exporter } = launch;
            let event = input.event.clone();
            let span = spans::hook_span(&meta.hook_id, &event);
            let started = SystemTime::now();
            let stopped = async move {
                if stop.wait_for(|stop| *stop).await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            let run = tracing::Instrument::instrument(
                hook_exec::run_cancellable(&prepared.invocation, &prepared.options, stopped),
                span.clone(),
            )
            .await;
            let mut record = Record::bare(meta, &event, RunStatus::Completed);
            if run.cancelled {
                record.cancel(Cancel::Deadline, "cancelled: the host exited before this async hook finished");
                record.set_duration(run.duration);
            } else {
                command::interpret(&mut record, &prepared, &input, &run);
            }
            record.entry(EntryKind::Feedback, "ran in the background (`async: true`); the dispatch did not wait");
            spans::record_hook(&span, &record.summary);
            drop(span);
            let time = hook_types::format_rfc3339_millis(unix_ms(SystemTime::now()));
            let tool = if event.is_tool_event() { input.tool_name.as_deref() } else { None };
            let receipt =
                hook_types::Receipt { background: true, ..record.receipt(&time, tool, input.session_id.as_deref()) };
            for diagnostic in sinks.record_all_off_task(vec![receipt]).await {
                tracing::warn!(target: spans::SPAN_TARGET, hook_id = %record.meta.hook_id, "async hook: {diagnostic}");
            }
            if let Some(exporter) = exporter {
                let runs = [ExportedRun { summary: &record.summary, kind: record.meta.kind, run_async: true }];
                let duration = Duration::from_millis(record.summary.duration_ms);
                exporter.export(&ExportedDispatch {
                    input: &input,
                    verdict: None,
                    reason: None,
                    started,
                    duration,
                    runs: &runs,
                });
            }
        });
        let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
    }

    pub(crate) fn running(&self) -> usize {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner()).iter().filter(|t| !t.is_finished()).count()
    }
}

impl Pipeline {
    /// How many `async: true` hooks are still running.
    pub fn background_running(&self) -> usize {
        self.inner.background.running()
    }

    /// Waits up to `bound` for the `async: true` hooks still running, then cancels the rest (their process groups
    /// are killed and their receipts written with status `cancelled`) and waits for that, so that a host can exit
    /// with no hook left behind. A host that exits after each event (a bridge) calls this with a short bound; one
    /// that lives on needs not call it. Must be awaited inside the runtime that dispatched.
    ///
    /// ```
    /// use hook_middleware::Pipeline;
    /// let workspace = tempfile::tempdir().unwrap();
    /// let pipeline = Pipeline::builder().workspace(workspace.path()).build().unwrap();
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let report = rt.block_on(pipeline.finish_background(std::time::Duration::from_secs(1)));
    /// assert_eq!((report.finished, report.cancelled), (0, 0));
    /// ```
    pub async fn finish_background(&self, bound: Duration) -> BackgroundReport {
        let background = &self.inner.background;
        let mut tasks: Vec<JoinHandle<()>> =
            std::mem::take(&mut *background.tasks.lock().unwrap_or_else(|e| e.into_inner()));
        let mut report = BackgroundReport::default();
        if tasks.is_empty() {
            return report;
        }
        let deadline = tokio::time::Instant::now() + bound;
        for task in &mut tasks {
            let _ = tokio::time::timeout_at(deadline, task).await;
        }
        report.finished = tasks.iter().filter(|t| t.is_finished()).count();
        report.cancelled = tasks.len() - report.finished;
        if report.cancelled > 0 {
            background.stop.send_replace(true);
            // A cancelled run is killed and reaped within the grace; then its receipt is written.
            let grace = Duration::from_millis(self.inner.limits.grace_ms) + Duration::from_secs(2);
            let deadline = tokio::time::Instant::now() + grace;
            for task in &mut tasks {
                let _ = tokio::time::timeout_at(deadline, &mut *task).await;
                // Dropping its future kills its process group (hook-exec's drop guard).
                task.abort();
            }
            background.stop.send_replace(false);
        }
        report
    }
}

fn unix_ms(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH).map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)).unwrap_or(0)
}
