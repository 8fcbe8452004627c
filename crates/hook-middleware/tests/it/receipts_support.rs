//! Shared by the receipt tests: receipt fixtures, a sink that panics, and a `tracing` subscriber that captures spans
//! and events.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use hook_middleware::receipts::{ReceiptSink, SinkError};
use hook_types::{Event, HookKind, Origin, Outcome, Receipt};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Metadata, Subscriber};

/// A sink that breaks its contract by panicking.
pub struct Panics;

impl ReceiptSink for Panics {
    fn name(&self) -> String {
        "panics".into()
    }

    fn record(&self, _: &Receipt) -> Result<(), SinkError> {
        panic!("disk on fire")
    }
}

/// The `n`th fixture receipt: fields vary with `n` so every line of a log differs.
pub fn receipt(n: u64) -> Receipt {
    Receipt {
        time: hook_types::format_rfc3339_millis(1_796_013_323_000 + n),
        hook_id: format!("project.guard-{n}"),
        origin: Some(Origin::Project),
        source: ".hooks/hooks.yaml".into(),
        hash: "8edef845af953d62".into(),
        event: Event::PreTool,
        kind: HookKind::Command,
        outcome: if n.is_multiple_of(2) { Outcome::CommandOk } else { Outcome::Blocked },
        effects: vec!["inject_reminder".into()],
        exit_code: Some(if n.is_multiple_of(2) { 0 } else { 2 }),
        output_bytes: n * 10,
        tool_name: Some("shell".into()),
        duration_ms: n % 50,
        http_status: None,
        session_id: Some("sess-1".into()),
        bound: None,
        reason: None,
        background: false,
        dropped: None,
        prev: None,
    }
}

/// What a captured span or event carried.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    pub name: String,
    pub target: String,
    pub level: String,
    /// The span this one was opened in (spans only).
    pub parent: Option<String>,
    pub fields: BTreeMap<String, String>,
}

#[derive(Default)]
struct State {
    spans: Vec<Captured>,
    events: Vec<Captured>,
    entered: Vec<u64>,
}

/// A minimal subscriber recording every span (with later `record`s) and event, fields rendered as strings.
#[derive(Clone, Default)]
pub struct Capture(Arc<Mutex<State>>);

impl Capture {
    /// Runs `f` with this subscriber as the thread's default.
    pub fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        tracing::subscriber::with_default(self.clone(), f)
    }

    pub fn spans(&self) -> Vec<Captured> {
        self.0.lock().unwrap().spans.clone()
    }

    pub fn events(&self) -> Vec<Captured> {
        self.0.lock().unwrap().events.clone()
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

fn captured(meta: &Metadata<'_>) -> Captured {
    Captured {
        name: meta.name().to_owned(),
        target: meta.target().to_owned(),
        level: meta.level().to_string(),
        ..Captured::default()
    }
}

impl Subscriber for Capture {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        // Ask every time: other tests' threads run without this subscriber.
        Interest::sometimes()
    }

    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut state = self.0.lock().unwrap();
        let mut span = captured(attrs.metadata());
        attrs.record(&mut Fields(&mut span.fields));
        span.parent = state.entered.last().map(|id| state.spans[*id as usize - 1].name.clone());
        state.spans.push(span);
        Id::from_u64(state.spans.len() as u64)
    }

    fn record(&self, id: &Id, values: &Record<'_>) {
        let mut state = self.0.lock().unwrap();
        values.record(&mut Fields(&mut state.spans[id.into_u64() as usize - 1].fields));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        let mut record = captured(event.metadata());
        event.record(&mut Fields(&mut record.fields));
        self.0.lock().unwrap().events.push(record);
    }

    fn enter(&self, id: &Id) {
        self.0.lock().unwrap().entered.push(id.into_u64());
    }

    fn exit(&self, _: &Id) {
        self.0.lock().unwrap().entered.pop();
    }
}
