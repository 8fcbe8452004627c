//! One hook's run inside a dispatch: its summary plus what the folds and receipts need.

use std::time::Duration;

use hook_types::{
    Bound, Decision, Effect, EntryKind, Event, HookKind, Origin, OutputEntry, Protocol, Receipt, RunStatus, RunSummary,
};

use super::result::deny_decides;

/// Who a record is about.
#[derive(Debug, Clone)]
pub(crate) struct Meta {
    pub hook_id: String,
    pub origin: Option<Origin>,
    pub source: String,
    pub hash: String,
    pub protocol: Protocol,
    pub kind: HookKind,
}

/// Why a hook was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cancel {
    /// A higher-precedence hook denied (its position in the user tier).
    Deny,
    /// The dispatch deadline passed.
    Deadline,
}

/// One hook's run.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub meta: Meta,
    pub summary: RunSummary,
    /// Effects that count, after the conflict rules.
    pub effects: Vec<Effect>,
    /// The kinds of the effects the hook produced, before any rule dropped one (for the receipt).
    pub emitted: Vec<&'static str>,
    pub decision: Decision,
    pub output_bytes: u64,
    /// The status an `http` hook's server answered with.
    pub http_status: Option<u16>,
    /// The bound an in-process evaluation ran into, which failed it.
    pub bound: Option<Bound>,
    pub cancelled: Option<Cancel>,
    /// Not run because what it runs changed since it was trusted (its status is `untrusted`; its receipt says
    /// `modified`).
    pub modified: bool,
    /// The allow the pipeline dropped from this run, and why (for the receipt).
    pub dropped: Option<String>,
    /// The hook's span, if it ran in one. Its status is recorded only once the dispatch has folded every run, so
    /// the span says what the run summary and the receipt say (a run the fold discards is `cancelled` there too).
    pub span: Option<tracing::Span>,
}

impl Record {
    /// A record with a status and no effect.
    pub(crate) fn bare(meta: Meta, event: &Event, status: RunStatus) -> Record {
        let summary = RunSummary {
            hook_id: meta.hook_id.clone(),
            origin: meta.origin,
            source: meta.source.clone(),
            hash: meta.hash.clone(),
            event: event.clone(),
            protocol: meta.protocol,
            status,
            exit_code: None,
            duration_ms: 0,
            entries: Vec::new(),
            replay: None,
        };
        Record {
            meta,
            summary,
            effects: Vec::new(),
            emitted: Vec::new(),
            decision: Decision::Pass,
            output_bytes: 0,
            http_status: None,
            bound: None,
            cancelled: None,
            modified: false,
            dropped: None,
            span: None,
        }
    }

    /// A hook that was not run, with one entry saying why.
    pub(crate) fn not_run(meta: Meta, event: &Event, status: RunStatus, why: impl Into<String>) -> Record {
        let mut record = Record::bare(meta, event, status);
        record.entry(EntryKind::Feedback, why);
        record
    }

    /// Whether the run allows: an allow decision, or an `allow_tool` effect.
    pub(crate) fn allows(&self) -> bool {
        matches!(self.decision, Decision::Allow { .. })
            || self.effects.iter().any(|e| matches!(e, Effect::AllowTool { .. }))
    }

    /// Drops the run's allow (an allow decision and every `allow_tool`), with a Warning entry: `its allow was
    /// dropped: {why}`. Whether it had one.
    pub(crate) fn drop_allow(&mut self, why: &str) -> bool {
        if !self.allows() {
            return false;
        }
        self.effects.retain(|e| !matches!(e, Effect::AllowTool { .. }));
        if matches!(self.decision, Decision::Allow { .. }) {
            self.decision = Decision::Pass;
        }
        self.entry(EntryKind::Warning, format!("its allow was dropped: {why}"));
        self.dropped = Some(why.to_owned());
        true
    }

    /// A cancelled hook: every result it had is discarded, one entry says why.
    pub(crate) fn cancel(&mut self, cause: Cancel, why: impl Into<String>) {
        self.summary.status = RunStatus::Cancelled;
        self.summary.exit_code = None;
        self.summary.entries.clear();
        self.effects.clear();
        self.emitted.clear();
        self.decision = Decision::Pass;
        self.output_bytes = 0;
        self.bound = None;
        self.cancelled = Some(cause);
        self.entry(EntryKind::Feedback, why);
    }

    /// A failure (panic, error, invalid effect, refused cwd): an Error entry, status `failed`, and the failure policy:
    /// with `deny` on an event a deny decides, the decision is a deny whose reason names the failure.
    pub(crate) fn fail(&mut self, event: &Event, deny: bool, what: &str) {
        let text = format!("hook `{}` {what}", self.meta.hook_id);
        self.summary.status = RunStatus::Failed;
        self.effects.clear();
        self.entry(EntryKind::Error, text.clone());
        self.decision = if deny && deny_decides(event) { Decision::Deny { reason: text } } else { Decision::Pass };
    }

    /// Adds an entry. Every entry the pipeline adds after the interpretation says it changed the run's outcome (a
    /// refused continuation, a failure, a cancellation), so the hook's own answer no longer says what the dispatch
    /// decided and is not kept for a bridge to hand back.
    pub(crate) fn entry(&mut self, kind: EntryKind, text: impl Into<String>) {
        self.summary.entries.push(OutputEntry::new(kind, text));
        self.summary.replay = None;
    }

    pub(crate) fn set_duration(&mut self, duration: Duration) {
        self.summary.duration_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
    }

    /// Whether this record's decision is a deny that decides `event`.
    pub(crate) fn denies(&self, event: &Event) -> bool {
        deny_decides(event) && matches!(self.decision, Decision::Deny { .. })
    }

    /// The receipt of this run (docs/receipts.md).
    pub(crate) fn receipt(&self, time: &str, tool_name: Option<&str>, session_id: Option<&str>) -> Receipt {
        Receipt {
            time: time.to_owned(),
            hook_id: self.meta.hook_id.clone(),
            origin: self.meta.origin,
            source: self.meta.source.clone(),
            hash: self.meta.hash.clone(),
            event: self.summary.event.clone(),
            kind: self.meta.kind,
            outcome: match hook_types::Outcome::from_status(self.meta.kind, self.summary.status) {
                hook_types::Outcome::Untrusted if self.modified => hook_types::Outcome::Modified,
                outcome => outcome,
            },
            effects: self.emitted.iter().map(|k| (*k).to_owned()).collect(),
            exit_code: self.summary.exit_code,
            output_bytes: self.output_bytes,
            tool_name: tool_name.map(str::to_owned),
            duration_ms: self.summary.duration_ms,
            http_status: self.http_status,
            session_id: session_id.map(str::to_owned),
            bound: self.bound,
            reason: match &self.decision {
                Decision::Deny { reason } if self.denies(&self.summary.event) => Some(reason.clone()),
                Decision::Ask { reason } => reason.clone(),
                _ => None,
            },
            background: false,
            dropped: self.dropped.clone(),
            prev: None,
        }
    }
}

/// The decision an in-process hook's effects imply when it gives none: `block_tool`, `block_turn` and (on a gate)
/// `halt` deny; else `ask_user` asks; else `allow_tool` allows; else pass.
pub(crate) fn decision_from_effects(event: &Event, effects: &[Effect]) -> Decision {
    let gate = event.class() == hook_types::EventClass::Gate;
    for effect in effects {
        match effect {
            Effect::BlockTool { reason, .. } | Effect::BlockTurn { reason } => {
                return Decision::Deny { reason: reason.clone() };
            }
            Effect::Halt { reason } if gate => return Decision::Deny { reason: reason.clone() },
            _ => {}
        }
    }
    if let Some(reason) = effects.iter().find_map(|e| match e {
        Effect::AskUser { reason } => Some(reason.clone()),
        _ => None,
    }) {
        return Decision::Ask { reason };
    }
    if let Some(reason) = effects.iter().find_map(|e| match e {
        Effect::AllowTool { reason } => Some(reason.clone()),
        _ => None,
    }) {
        return Decision::Allow { reason };
    }
    Decision::Pass
}

/// The status a decision gives a hook that ran to its end: `blocked` for a deny, else `completed`.
pub(crate) fn status_of(event: &Event, decision: &Decision) -> RunStatus {
    if deny_decides(event) && matches!(decision, Decision::Deny { .. }) {
        RunStatus::Blocked
    } else {
        RunStatus::Completed
    }
}
