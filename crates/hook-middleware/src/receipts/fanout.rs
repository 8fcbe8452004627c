//! Recording to several sinks at once, turning each failing sink into exactly one diagnostic per dispatch; from an
//! async task, on Tokio's blocking pool ([`Sinks::record_all_off_task`]), since sinks do blocking I/O.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hook_types::Receipt;

use super::{BatchError, ReceiptSink, SinkError};

/// The receipt sinks of a pipeline. [`Sinks::record_all`] gives every receipt of one dispatch to every sink and
/// returns one [`SinkDiagnostic`] per sink that failed, never an error: a sink failure never fails a dispatch.
///
/// ```
/// use std::sync::Arc;
/// use hook_middleware::receipts::{FileSink, RingSink, Sinks};
/// # let receipt: hook_types::Receipt = serde_json::from_str(r#"{"time":"1970-01-01T00:00:00.000Z","hook_id":"h",
/// #   "origin":null,"source":"host","hash":"","event":"pre_tool","kind":"in_process","outcome":"emitted",
/// #   "effects":[],"exit_code":null,"output_bytes":0,"tool_name":null,"duration_ms":0,"session_id":null,"prev":null}"#).unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("not-a-dir"), "").unwrap();
/// let ring = Arc::new(RingSink::new(16));
/// let sinks = Sinks::new()
///     .with(ring.clone())
///     .with(Arc::new(FileSink::new(dir.path().join("not-a-dir/log.jsonl"))));
/// let diagnostics = sinks.record_all(&[receipt.clone(), receipt]);
/// assert_eq!(ring.snapshot().len(), 2);
/// assert_eq!(diagnostics.len(), 1);
/// assert_eq!((diagnostics[0].failed, diagnostics[0].attempted), (2, 2));
/// ```
#[derive(Default)]
pub struct Sinks {
    sinks: Vec<(Arc<dyn ReceiptSink>, AtomicBool)>,
    /// [`Sinks::inline`]: record on the caller's thread even when a sink may block.
    inline: bool,
}

/// One failing sink in one dispatch: how many receipts it lost and the first error it gave.
#[derive(Debug)]
pub struct SinkDiagnostic {
    /// The sink's [`ReceiptSink::name`].
    pub sink: String,
    /// Receipts of this dispatch the sink did not record.
    pub failed: usize,
    /// Receipts of this dispatch given to it.
    pub attempted: usize,
    /// The first error (later ones are nearly always the same cause).
    pub error: SinkError,
}

impl fmt::Display for SinkDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} of {} receipts not recorded)", self.error, self.failed, self.attempted)
    }
}

impl fmt::Debug for Sinks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.sinks.iter().map(|(sink, _)| sink.name())).finish()
    }
}

impl Sinks {
    /// No sinks: recording is free.
    pub fn new() -> Self {
        Sinks::default()
    }

    /// Adds a sink; receipts go to sinks in the order they were added.
    pub fn with(mut self, sink: Arc<dyn ReceiptSink>) -> Self {
        self.push(sink);
        self
    }

    /// Records on the calling thread even when a sink [may block](ReceiptSink::may_block): for a process that
    /// handles one event and exits (`hook bridge`), where nothing else waits on its runtime while receipts are
    /// written and the thread [`Sinks::record_all_off_task`] would create costs more than the write itself.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hook_middleware::receipts::{FileSink, Sinks};
    /// let dir = tempfile::tempdir().unwrap();
    /// let sinks = Sinks::new().with(Arc::new(FileSink::new(dir.path().join("log.jsonl")))).inline(true);
    /// assert!(sinks.is_inline());
    /// ```
    pub fn inline(mut self, inline: bool) -> Self {
        self.inline = inline;
        self
    }

    /// Whether [`Sinks::inline`] is on.
    pub fn is_inline(&self) -> bool {
        self.inline
    }

    /// Adds a sink.
    pub fn push(&mut self, sink: Arc<dyn ReceiptSink>) {
        self.sinks.push((sink, AtomicBool::new(false)));
    }

    /// How many sinks there are.
    pub fn len(&self) -> usize {
        self.sinks.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.sinks.is_empty()
    }

    /// Records `receipts` (one dispatch's, in precedence order) to every sink with
    /// [`ReceiptSink::record_batch`]; a sink that fails, or panics, yields one diagnostic for the whole call.
    pub fn record_all(&self, receipts: &[Receipt]) -> Vec<SinkDiagnostic> {
        let mut diagnostics = Vec::new();
        if receipts.is_empty() {
            return diagnostics;
        }
        for (sink, failing) in &self.sinks {
            let result = catch_unwind(AssertUnwindSafe(|| sink.record_batch(receipts))).unwrap_or_else(|panic| {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".to_owned());
                let error =
                    SinkError::Other { sink: sink_name(sink.as_ref()), message: format!("panicked: {message}") };
                Err(BatchError { failed: receipts.len(), error })
            });
            failing.store(result.is_err(), Ordering::Relaxed);
            if let Err(BatchError { failed, error }) = result {
                let sink = sink_name(sink.as_ref());
                diagnostics.push(SinkDiagnostic { sink, failed, attempted: receipts.len(), error });
            }
        }
        diagnostics
    }

    /// [`Sinks::record_all`] on Tokio's blocking pool, awaited: the file I/O, and a file sink's wait for its lock,
    /// never hold up the async task that records (on a current-thread runtime, the whole runtime). Every receipt is
    /// recorded, or its loss reported, by the time the future completes; a failing or panicking sink is one
    /// diagnostic, as with `record_all`. The caller's `tracing` subscriber and current span go with the work, so a
    /// [`TracingSink`](super::TracingSink)'s events reach the host's subscriber inside the dispatch's span.
    ///
    /// Nothing to record costs nothing: no task is spawned and nothing is allocated. When no sink
    /// [may block](ReceiptSink::may_block) (a ring and a tracing sink only), the receipts are recorded inline, since
    /// the hop to another thread would cost more than the recording; nor when [`Sinks::inline`] is on. Must be
    /// awaited inside a Tokio runtime. Dropping the future does not stop the recording once it has started.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hook_middleware::receipts::{RingSink, Sinks};
    /// # let receipt: hook_types::Receipt = serde_json::from_str(r#"{"time":"1970-01-01T00:00:00.000Z","hook_id":"h",
    /// #   "origin":null,"source":"host","hash":"","event":"pre_tool","kind":"in_process","outcome":"emitted",
    /// #   "effects":[],"exit_code":null,"output_bytes":0,"tool_name":null,"duration_ms":0,"session_id":null,"prev":null}"#).unwrap();
    /// let ring = Arc::new(RingSink::new(16));
    /// let sinks = Arc::new(Sinks::new().with(ring.clone()));
    /// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// let diagnostics = rt.block_on(sinks.record_all_off_task(vec![receipt]));
    /// assert!(diagnostics.is_empty());
    /// assert_eq!(ring.snapshot().len(), 1);
    /// ```
    pub async fn record_all_off_task(self: &Arc<Self>, receipts: Vec<Receipt>) -> Vec<SinkDiagnostic> {
        if receipts.is_empty() || self.is_empty() {
            return Vec::new();
        }
        if self.inline || !self.sinks.iter().any(|(sink, _)| may_block(sink.as_ref())) {
            return self.record_all(&receipts);
        }
        let attempted = receipts.len();
        let sinks = Arc::clone(self);
        let subscriber = tracing::dispatcher::get_default(Clone::clone);
        let span = tracing::Span::current();
        let task = tokio::task::spawn_blocking(move || {
            tracing::dispatcher::with_default(&subscriber, || span.in_scope(|| sinks.record_all(&receipts)))
        });
        match task.await {
            Ok(diagnostics) => diagnostics,
            // `record_all` catches each sink's panic, so this is a panic outside a sink call, or a runtime shutting
            // down before the task ran: no sink can be counted on to have recorded anything.
            Err(join) => {
                let why = if join.is_panic() {
                    "not recorded: the recording task panicked"
                } else {
                    "not recorded: the recording task was cancelled"
                };
                self.sinks
                    .iter()
                    .map(|(sink, failing)| {
                        failing.store(true, Ordering::Relaxed);
                        let name = sink_name(sink.as_ref());
                        let error = SinkError::Other { sink: name.clone(), message: why.to_owned() };
                        SinkDiagnostic { sink: name, failed: attempted, attempted, error }
                    })
                    .collect()
            }
        }
    }

    /// The names of the sinks whose latest [`Sinks::record_all`] failed, for a host's status view.
    pub fn failing(&self) -> Vec<String> {
        self.sinks.iter().filter(|(_, failing)| failing.load(Ordering::Relaxed)).map(|(sink, _)| sink.name()).collect()
    }
}

/// A sink's name for a diagnostic; a sink that panics even there is still named, so the report cannot crash.
fn sink_name(sink: &dyn ReceiptSink) -> String {
    catch_unwind(AssertUnwindSafe(|| sink.name())).unwrap_or_else(|_| "(a sink whose name panicked)".to_owned())
}

/// [`ReceiptSink::may_block`], with a panic counted as "may block" (the blocking pool then isolates the sink).
fn may_block(sink: &dyn ReceiptSink) -> bool {
    catch_unwind(AssertUnwindSafe(|| sink.may_block())).unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::thread::ThreadId;

    use hook_types::Receipt;

    use super::Sinks;
    use crate::receipts::{ReceiptSink, SinkError};

    /// Remembers which thread recorded; says whether it may block as told.
    struct ThreadSink {
        blocks: bool,
        seen: Mutex<Vec<ThreadId>>,
    }

    impl ReceiptSink for ThreadSink {
        fn name(&self) -> String {
            "thread".into()
        }
        fn record(&self, _: &Receipt) -> Result<(), SinkError> {
            self.seen.lock().unwrap().push(std::thread::current().id());
            Ok(())
        }
        fn may_block(&self) -> bool {
            self.blocks
        }
    }

    fn recording_thread(blocks: bool) -> ThreadId {
        recording_thread_with(blocks, false)
    }

    fn recording_thread_with(blocks: bool, inline: bool) -> ThreadId {
        let receipt: Receipt = serde_json::from_value(serde_json::json!({
            "time": "1970-01-01T00:00:00.000Z", "hook_id": "h", "origin": null, "source": "host", "hash": "",
            "event": "pre_tool", "kind": "in_process", "outcome": "emitted", "effects": [], "exit_code": null,
            "output_bytes": 0, "tool_name": null, "duration_ms": 0, "session_id": null, "prev": null
        }))
        .unwrap();
        let sink = Arc::new(ThreadSink { blocks, seen: Mutex::new(Vec::new()) });
        let sinks = Arc::new(Sinks::new().with(sink.clone()).inline(inline));
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        assert!(runtime.block_on(sinks.record_all_off_task(vec![receipt])).is_empty());
        let seen = sink.seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        seen[0]
    }

    #[test]
    fn sinks_that_never_block_record_inline_and_the_others_on_the_blocking_pool() {
        let here = std::thread::current().id();
        assert_eq!(recording_thread(false), here, "an in-memory sink is not worth a thread hop");
        assert_ne!(recording_thread(true), here, "a sink that may block must not hold up the runtime");
    }

    #[test]
    fn inline_sinks_record_on_the_calling_thread_even_when_they_may_block() {
        assert_eq!(recording_thread_with(true, true), std::thread::current().id());
    }
}
