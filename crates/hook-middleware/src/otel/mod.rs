//! OpenTelemetry export (feature `otel`): every dispatch as a span, `hook_dispatch`, with one child span per hook,
//! `hook_run`, sent over OTLP/HTTP with protobuf to the collector the standard `OTEL_EXPORTER_OTLP_*` variables
//! name. See `docs/observability.md`.
//!
//! - **Attributes.** Dispatch: `hook.event`, `hook.tool_name`, `hook.session_id`, `hook.verdict`, `hook.runs`,
//!   `hook.duration_ms`. Hook: `hook.id`, `hook.origin`, `hook.source`, `hook.hash`, `hook.kind`, `hook.protocol`,
//!   `hook.status`, `hook.exit_code`, `hook.duration_ms`, `hook.event`, `hook.async`. No payload content — the tool
//!   input, the prompt, the deciding reason — unless the operator sets `HOOK_OTEL_PAYLOAD=1`
//!   ([`PAYLOAD_VAR`]); then `hook.tool_input`, `hook.prompt` and `hook.reason`, each cut to 4 096 characters.
//! - **Never in the way.** [`OtelExporter::export`] builds the spans and puts them on a bounded queue
//!   ([`QUEUE_DISPATCHES`] dispatches); a full queue drops them and counts them ([`OtelStats::dropped`]). One
//!   thread of the exporter's own sends them, one batch per request, each request bounded by
//!   `OTEL_EXPORTER_OTLP_TIMEOUT` (10 s by default). A collector that is down, slow or refusing costs the dispatch
//!   nothing; its failures are counted ([`OtelStats::failed`]).
//! - **Configuration.** On when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and
//!   neither `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none`); `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS` and
//!   `_TIMEOUT` apply; `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` name the resource (`service.name` is
//!   `hook` by default). `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` must be `http/protobuf` if set, and the endpoint
//!   `http://` or `https://` (rustls, the http hook kind's client): this build carries no gRPC, and says so rather
//!   than exporting nothing in silence.
//!
//! ```no_run
//! use std::sync::Arc;
//! use hook_middleware::otel::OtelExporter;
//! use hook_middleware::Pipeline;
//! let workspace = tempfile::tempdir().unwrap();
//! let mut builder = Pipeline::builder().workspace(workspace.path());
//! let exporter = OtelExporter::from_env().expect("a usable OTEL_* configuration").map(Arc::new);
//! if let Some(exporter) = &exporter {
//!     builder = builder.exporter(exporter.clone());
//! }
//! let pipeline = builder.build().unwrap();
//! // … dispatch …
//! if let Some(exporter) = exporter {
//!     let stats = exporter.shutdown(std::time::Duration::from_secs(2));
//!     eprintln!("{} spans exported, {} dropped", stats.exported, stats.dropped);
//! }
//! # let _ = pipeline;
//! ```

mod http;

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use hook_types::RunStatus;
use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceState};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator, SpanData, SpanEvents, SpanExporter, SpanLinks};

use crate::export::{DispatchExporter, ExportedDispatch};
use crate::spans::status_name;

/// Set to `1` (or `true`) to export payload content (tool input, prompt, reason) as attributes.
pub const PAYLOAD_VAR: &str = "HOOK_OTEL_PAYLOAD";

/// How many dispatches the queue holds before it drops.
pub const QUEUE_DISPATCHES: usize = 512;

/// The most spans one request carries.
const BATCH_SPANS: usize = 512;

/// The most characters of one payload attribute.
const PAYLOAD_CHARS: usize = 4_096;

/// Why the `OTEL_*` configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OtelError {
    /// A variable holds what this build cannot do.
    #[error("{var}={value}: {why}")]
    Unsupported {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What this build supports instead.
        why: &'static str,
    },
    /// The OTLP exporter could not be built.
    #[error("the OTLP exporter could not be set up: {0}")]
    Build(String),
    /// The exporter's thread could not be started.
    #[error("the OTLP exporter's thread could not be started: {0}")]
    Thread(std::io::Error),
}

/// What an exporter did so far (see [`OtelExporter::stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OtelStats {
    /// Spans the collector accepted.
    pub exported: u64,
    /// Spans dropped because the queue was full (or the exporter shut down).
    pub dropped: u64,
    /// Spans a request failed to deliver (collector down, refusing, or too slow).
    pub failed: u64,
}

#[derive(Default)]
struct Counters {
    exported: AtomicU64,
    dropped: AtomicU64,
    failed: AtomicU64,
}

/// A [`DispatchExporter`] that sends every dispatch to an OTLP collector (see the [module docs](self)).
pub struct OtelExporter {
    queue: Mutex<Option<SyncSender<Vec<SpanData>>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    counters: Arc<Counters>,
    payload: bool,
    scope: InstrumentationScope,
    ids: RandomIdGenerator,
}

impl std::fmt::Debug for OtelExporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtelExporter").field("payload", &self.payload).field("stats", &self.stats()).finish()
    }
}

impl OtelExporter {
    /// The exporter the `OTEL_*` variables ask for; `Ok(None)` when they ask for none (no endpoint set, or export
    /// disabled).
    ///
    /// # Errors
    /// A protocol other than `http/protobuf`, an endpoint that is not `http://`, or an exporter that cannot be set
    /// up: the message names the variable and what this build supports.
    pub fn from_env() -> Result<Option<OtelExporter>, OtelError> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"))
            || var("OTEL_TRACES_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"))
        {
            return Ok(None);
        }
        let endpoint_var = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"]
            .into_iter()
            .find_map(|name| var(name).map(|value| (name, value)));
        let Some((endpoint_var, endpoint)) = endpoint_var else { return Ok(None) };
        for name in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
            if let Some(protocol) = var(name) {
                if protocol.trim() != "http/protobuf" {
                    return Err(OtelError::Unsupported {
                        var: name,
                        value: protocol,
                        why: "this build exports over OTLP/HTTP with protobuf only: set it to `http/protobuf`",
                    });
                }
                break;
            }
        }
        let scheme = endpoint.trim_start().to_ascii_lowercase();
        if !(scheme.starts_with("http://") || scheme.starts_with("https://")) {
            return Err(OtelError::Unsupported {
                var: endpoint_var,
                value: endpoint,
                why: "give an `http://` or `https://` endpoint (a collector's OTLP/HTTP address)",
            });
        }
        let timeout_ms = ["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"]
            .into_iter()
            .find_map(|name| var(name).and_then(|v| v.trim().parse::<u64>().ok()))
            .unwrap_or(10_000);
        let payload = var(PAYLOAD_VAR).is_some_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
        let mut exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_timeout(Duration::from_millis(timeout_ms))
            .with_http_client(http::CollectorHttp { timeout: Duration::from_millis(timeout_ms.max(1)) })
            .build()
            .map_err(|e| OtelError::Build(e.to_string()))?;
        let resource = Resource::builder().with_service_name(service_name()).build();
        exporter.set_resource(&resource);
        OtelExporter::start(exporter, payload).map(Some)
    }

    /// Starts an exporter over any OpenTelemetry [`SpanExporter`] (the OTLP one, or an in-memory one in a test).
    /// `payload` exports payload content as attributes.
    ///
    /// # Errors
    /// The exporter's thread could not be started.
    pub fn start<E: SpanExporter + 'static>(exporter: E, payload: bool) -> Result<OtelExporter, OtelError> {
        let (queue, receiver) = sync_channel::<Vec<SpanData>>(QUEUE_DISPATCHES);
        let counters = Arc::new(Counters::default());
        let worker = std::thread::Builder::new()
            .name("hook-otel-export".into())
            .spawn({
                let counters = Arc::clone(&counters);
                move || send_loop(exporter, receiver, &counters)
            })
            .map_err(OtelError::Thread)?;
        let scope = InstrumentationScope::builder("hook-middleware").with_version(env!("CARGO_PKG_VERSION")).build();
        Ok(OtelExporter {
            queue: Mutex::new(Some(queue)),
            worker: Mutex::new(Some(worker)),
            counters,
            payload,
            scope,
            ids: RandomIdGenerator::default(),
        })
    }

    /// What was exported, dropped and lost so far.
    pub fn stats(&self) -> OtelStats {
        OtelStats {
            exported: self.counters.exported.load(Ordering::Relaxed),
            dropped: self.counters.dropped.load(Ordering::Relaxed),
            failed: self.counters.failed.load(Ordering::Relaxed),
        }
    }

    /// Stops taking spans and waits up to `bound` for the queued ones to be sent; a process calls it before it
    /// exits. Spans still queued at the bound are counted as dropped; the thread is left to the process's exit.
    pub fn shutdown(&self, bound: Duration) -> OtelStats {
        drop(self.queue.lock().unwrap_or_else(|e| e.into_inner()).take());
        let worker = self.worker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(worker) = worker {
            let until = Instant::now() + bound;
            while !worker.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
            if worker.is_finished() {
                let _ = worker.join();
            } else {
                tracing::warn!(
                    target: crate::spans::SPAN_TARGET,
                    "OpenTelemetry export: spans still unsent after {} ms; the process exits without them",
                    bound.as_millis()
                );
            }
        }
        self.stats()
    }

    fn spans(&self, dispatch: &ExportedDispatch<'_>) -> Vec<SpanData> {
        let trace_id = self.ids.new_trace_id();
        let end = dispatch.started + dispatch.duration;
        let input = dispatch.input;
        let context = |span_id| SpanContext::new(trace_id, span_id, TraceFlags::SAMPLED, false, TraceState::default());
        let mut spans = Vec::with_capacity(dispatch.runs.len() + 1);
        let parent = if dispatch.verdict.is_some() {
            let span_id = self.ids.new_span_id();
            let mut attributes = vec![
                KeyValue::new("hook.event", input.event.to_string()),
                KeyValue::new("hook.runs", dispatch.runs.len() as i64),
                KeyValue::new("hook.duration_ms", millis(dispatch.duration)),
            ];
            if let Some(verdict) = dispatch.verdict {
                attributes.push(KeyValue::new("hook.verdict", verdict.as_str()));
            }
            if let Some(tool) = input.tool_name.as_deref().filter(|_| input.event.is_tool_event()) {
                attributes.push(KeyValue::new("hook.tool_name", tool.to_owned()));
            }
            if let Some(session) = &input.session_id {
                attributes.push(KeyValue::new("hook.session_id", session.clone()));
            }
            if self.payload {
                self.payload_attributes(dispatch, &mut attributes);
            }
            spans.push(self.span(
                context(span_id),
                SpanId::INVALID,
                "hook_dispatch",
                (dispatch.started, end),
                attributes,
                Status::Unset,
            ));
            span_id
        } else {
            SpanId::INVALID
        };
        for run in dispatch.runs {
            let summary = run.summary;
            let mut attributes = vec![
                KeyValue::new("hook.id", summary.hook_id.clone()),
                KeyValue::new("hook.event", summary.event.to_string()),
                KeyValue::new("hook.kind", run.kind.as_str()),
                KeyValue::new("hook.protocol", summary.protocol.as_str()),
                KeyValue::new("hook.status", status_name(summary.status)),
                KeyValue::new("hook.duration_ms", i64::try_from(summary.duration_ms).unwrap_or(i64::MAX)),
                KeyValue::new("hook.source", summary.source.clone()),
                KeyValue::new("hook.async", run.run_async),
            ];
            if let Some(origin) = summary.origin {
                attributes.push(KeyValue::new("hook.origin", origin.as_str()));
            }
            if !summary.hash.is_empty() {
                attributes.push(KeyValue::new("hook.hash", summary.hash.clone()));
            }
            if let Some(code) = summary.exit_code {
                attributes.push(KeyValue::new("hook.exit_code", i64::from(code)));
            }
            if parent == SpanId::INVALID {
                if let Some(session) = &input.session_id {
                    attributes.push(KeyValue::new("hook.session_id", session.clone()));
                }
                if self.payload {
                    self.payload_attributes(dispatch, &mut attributes);
                }
            }
            let status = match summary.status {
                RunStatus::Failed | RunStatus::TimedOut => Status::error(status_name(summary.status)),
                _ => Status::Unset,
            };
            let run_end =
                (dispatch.started + Duration::from_millis(summary.duration_ms)).min(end.max(dispatch.started));
            let run_end = if parent == SpanId::INVALID { end } else { run_end };
            let span_id = self.ids.new_span_id();
            spans.push(self.span(
                context(span_id),
                parent,
                "hook_run",
                (dispatch.started, run_end),
                attributes,
                status,
            ));
        }
        spans
    }

    fn payload_attributes(&self, dispatch: &ExportedDispatch<'_>, attributes: &mut Vec<KeyValue>) {
        let input = dispatch.input;
        if let Some(tool_input) = &input.tool_input {
            attributes.push(KeyValue::new("hook.tool_input", cut(&tool_input.to_string())));
        }
        if let Some(prompt) = &input.prompt {
            attributes.push(KeyValue::new("hook.prompt", cut(prompt)));
        }
        if let Some(reason) = dispatch.reason {
            attributes.push(KeyValue::new("hook.reason", cut(reason)));
        }
    }

    fn span(
        &self,
        span_context: SpanContext,
        parent_span_id: SpanId,
        name: &'static str,
        (start_time, end_time): (SystemTime, SystemTime),
        attributes: Vec<KeyValue>,
        status: Status,
    ) -> SpanData {
        SpanData {
            span_context,
            parent_span_id,
            parent_span_is_remote: false,
            span_kind: SpanKind::Internal,
            name: Cow::Borrowed(name),
            start_time,
            end_time,
            attributes,
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status,
            instrumentation_scope: self.scope.clone(),
        }
    }
}

impl DispatchExporter for OtelExporter {
    fn export(&self, dispatch: &ExportedDispatch<'_>) {
        if dispatch.runs.is_empty() {
            return;
        }
        let spans = self.spans(dispatch);
        let count = spans.len() as u64;
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let sent = match queue.as_ref() {
            Some(queue) => match queue.try_send(spans) {
                Ok(()) => true,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
            },
            None => false,
        };
        if !sent {
            self.counters.dropped.fetch_add(count, Ordering::Relaxed);
        }
    }
}

/// The exporter's thread: one request per batch of queued spans, until the queue is closed and drained.
fn send_loop<E: SpanExporter>(exporter: E, receiver: Receiver<Vec<SpanData>>, counters: &Counters) {
    while let Ok(mut batch) = receiver.recv() {
        while batch.len() < BATCH_SPANS {
            match receiver.try_recv() {
                Ok(more) => batch.extend(more),
                Err(_) => break,
            }
        }
        let count = batch.len() as u64;
        match futures_executor::block_on(exporter.export(batch)) {
            Ok(()) => counters.exported.fetch_add(count, Ordering::Relaxed),
            Err(error) => {
                tracing::debug!(target: crate::spans::SPAN_TARGET, "OpenTelemetry export failed: {error}");
                counters.failed.fetch_add(count, Ordering::Relaxed)
            }
        };
    }
}

fn service_name() -> String {
    std::env::var("OTEL_SERVICE_NAME").ok().filter(|v| !v.trim().is_empty()).unwrap_or_else(|| "hook".to_owned())
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(PAYLOAD_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
