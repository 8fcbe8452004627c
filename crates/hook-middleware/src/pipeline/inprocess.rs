//! In-process hooks: the host's [`Evaluate`] registrations and the user's prompt and effect declarations.
//!
//! They run on the dispatching task, one after another, each seeing the effects of those before it. A panic is
//! caught (`catch_unwind`) and becomes an Error entry and a receipt like any other failure: the host never sees it,
//! and the following hooks still run. (The process's panic hook still runs first, so the default hook prints the
//! panic message to stderr; a host that minds installs its own.) Every effect is checked against the event (see
//! docs/effects.md#the-effect-kinds): an invalid one is a failure of the hook, not something passed on to the host.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use hook_config::{HookDecl, HookSpec};
use hook_types::{Decision, Effect, EntryKind, RunStatus};

use super::record::{Meta, Record, decision_from_effects, status_of};
use super::registration::Evaluate;
use crate::EventInput;

/// Runs one in-process registration, isolated.
pub(crate) fn evaluate(
    meta: Meta,
    evaluate: &dyn Evaluate,
    deny_on_error: bool,
    input: &EventInput,
    prior: &[Effect],
) -> Record {
    let start = Instant::now();
    let mut record = Record::bare(meta, &input.event, RunStatus::Completed);
    match catch_unwind(AssertUnwindSafe(|| evaluate.evaluate(input, prior))) {
        Err(panic) => record.fail(&input.event, deny_on_error, &format!("panicked: {}", panic_message(&*panic))),
        Ok(Err(error)) => record.fail(&input.event, deny_on_error, &format!("failed: {error}")),
        Ok(Ok(evaluation)) => apply(&mut record, input, deny_on_error, evaluation.effects, evaluation.decision),
    }
    record.set_duration(start.elapsed());
    record
}

/// Runs one prompt or effect declaration: its effect is fixed by the declaration.
pub(crate) fn declared(meta: Meta, decl: &HookDecl, input: &EventInput) -> Record {
    let start = Instant::now();
    let mut record = Record::bare(meta, &input.event, RunStatus::Completed);
    let effects = match &decl.spec {
        HookSpec::Prompt { message, severity } => {
            vec![Effect::InjectReminder { message: message.clone(), severity: *severity }]
        }
        HookSpec::Effect(effect) => vec![effect.clone()],
        HookSpec::Command(_) | HookSpec::Evaluated(_) | HookSpec::Http(_) | HookSpec::Policy(_) => {
            unreachable!("command, evaluated and http hooks do not run here; policy hooks run in `policy`")
        }
    };
    let deny_on_error = decl.on_error == hook_types::OnError::Deny;
    apply(&mut record, input, deny_on_error, effects, None);
    record.set_duration(start.elapsed());
    record
}

pub(crate) fn apply(
    record: &mut Record,
    input: &EventInput,
    deny_on_error: bool,
    effects: Vec<Effect>,
    decision: Option<Decision>,
) {
    let event = &input.event;
    if let Some(invalid) = effects.iter().find(|e| !e.valid_on(event)) {
        let what = format!("emitted a `{}` effect, which is not valid on `{event}`", invalid.kind());
        record.fail(event, deny_on_error, &what);
        return;
    }
    let decision = decision.unwrap_or_else(|| decision_from_effects(event, &effects));
    record.summary.status = status_of(event, &decision);
    if let (RunStatus::Blocked, Decision::Deny { reason }) = (record.summary.status, &decision) {
        record.entry(EntryKind::Feedback, reason.clone());
    }
    record.emitted = effects.iter().map(Effect::kind).collect();
    record.effects = effects;
    record.decision = decision;
}

/// The text of a panic payload (`panic!("…")` carries a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_owned()
    }
}
