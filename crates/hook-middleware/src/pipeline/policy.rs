//! `policy` hooks: Rego compiled at load ([`hook_config::CompiledPolicy`]), evaluated here with the native payload
//! as `input`, on a thread of its own within the hook's bounds ([`super::bounded`]): its timeout (clamped by the
//! host's limits, and never past the dispatch deadline) and [`Limits::evaluation_memory_bytes`]. The query's value is
//! read by [`protocol::policy_answer`](crate::protocol::policy_answer), exactly as an `opa`-format http hook's
//! `result` is.
//!
//! An evaluation error, an undefined or malformed answer, a panic, and a bound that is hit are failures of the hook:
//! its `on_error` applies (a native gate denies, with the reason). The timeout makes the run `timed_out`; the memory
//! limit makes it `failed`; either way the receipt's `bound` says which. The dispatch deadline cancels it like any
//! other hook.
//!
//! A hook that runs only on trust runs only the bytes that were trusted: the digests of the files as compiled are
//! compared with its fingerprint's before each evaluation.

use std::time::Duration;

use hook_config::{LoadedHook, PolicyError, PolicySpec};
use hook_types::{Bound, EntryKind, Limits, OnError, Protocol, RunStatus};
use tokio::time::Instant;

use super::bounded::{self, Ended};
use super::inprocess;
use super::record::{Cancel, Meta, Record};
use crate::EventInput;
use crate::protocol::{payload_object, policy_answer};

/// Evaluates one policy hook for `input`; `deadline` is the dispatch's.
pub(crate) async fn run(
    meta: Meta,
    hook: &LoadedHook,
    spec: &PolicySpec,
    input: &EventInput,
    limits: &Limits,
    deadline: Instant,
) -> Record {
    let start = Instant::now();
    let decl = &hook.decl;
    let event = &input.event;
    let mut record = Record::bare(meta, event, RunStatus::Completed);
    let deny = decl.on_error == OnError::Deny;
    if !hook.origin_trusted
        && let Some(trusted) = &hook.fingerprint
        && !compiled_as_trusted(spec, trusted)
    {
        record.summary.status = RunStatus::Untrusted;
        record.modified = true;
        record.entry(
            EntryKind::Feedback,
            "not run: its Rego files as compiled are not the ones that were trusted; run `hook trust` to trust it again",
        );
        return record;
    }
    let (timeout_ms, notes) = super::command::clamp(limits, decl.protocol, spec.timeout_ms);
    record.summary.entries = notes;
    let timeout = Duration::from_millis(timeout_ms);
    let payload = serde_json::Value::Object(payload_object(Protocol::Native, input));
    let (compiled, query) = (spec.compiled.clone(), spec.query.clone());
    let until = (start + timeout).min(deadline);
    let memory = limits.evaluation_memory_bytes;
    let ended = bounded::run(until, memory, move || compiled.evaluate(&query, payload, timeout)).await;
    let query = &spec.query;
    match ended {
        Ended::Answered(Ok(answer)) => match policy_answer(&decl.id, answer.as_ref()) {
            Ok((effects, decision)) => inprocess::apply(&mut record, input, deny, effects, decision),
            Err(why) => record.fail(event, deny, &format!("answered `{query}` wrongly: {why}")),
        },
        Ended::Answered(Err(PolicyError::TimeLimit(_))) => timed_out(&mut record, input, deny, timeout_ms),
        Ended::Answered(Err(PolicyError::Failed(error))) => {
            record.fail(event, deny, &format!("failed to evaluate `{query}`: {}", one_line(&error)));
        }
        Ended::Panicked(message) => {
            record.fail(event, deny, &format!("panicked while evaluating `{query}`: {}", one_line(&message)));
        }
        Ended::TimedOut if until < start + timeout => {
            let ms = limits.dispatch_deadline_ms;
            record.cancel(Cancel::Deadline, super::dispatch::deadline_text(ms));
        }
        Ended::TimedOut => timed_out(&mut record, input, deny, timeout_ms),
        Ended::OverMemory { requested } => {
            let what = format!(
                "ran past its memory limit of {} evaluating `{query}` (it asked for {} more); the evaluation was \
                 stopped",
                bytes(memory),
                bytes(requested)
            );
            record.fail(event, deny, &what);
            record.bound = Some(Bound::Memory);
        }
        Ended::Refused(why) => record.fail(event, deny, &why),
    }
    record.set_duration(start.elapsed());
    record
}

fn timed_out(record: &mut Record, input: &EventInput, deny: bool, timeout_ms: u64) {
    record.fail(&input.event, deny, &format!("timed out after {timeout_ms} ms; the evaluation was given up"));
    record.summary.status = RunStatus::TimedOut;
    record.bound = Some(Bound::Time);
}

/// `n` bytes for a person, rounded down to a whole GiB, MiB or KiB.
fn bytes(n: usize) -> String {
    const MIB: usize = 1 << 20;
    match n {
        n if n >= MIB << 10 => format!("{} GiB", n >> 30),
        n if n >= MIB => format!("{} MiB", n / MIB),
        n if n >= 1 << 10 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// Whether every file as compiled has the digest its trusted fingerprint recorded.
fn compiled_as_trusted(spec: &PolicySpec, trusted: &hook_config::Fingerprint) -> bool {
    spec.resolved
        .iter()
        .zip(spec.compiled.digests())
        .all(|(path, digest)| trusted.files.iter().any(|f| f.path == *path && f.sha256 == *digest))
}

/// The last non-empty line of a multi-line message (the interpreter draws the source line and a caret).
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    match lines.as_slice() {
        [] => message.to_owned(),
        [only] => (*only).to_owned(),
        many => many.join(" | "),
    }
}
