//! `policy` hooks: Rego compiled at load ([`hook_config::CompiledPolicy`]), evaluated here on the dispatching task
//! with the native payload as `input`, within the hook's timeout (the interpreter checks its clock as it works).
//! The query's value is read by [`protocol::policy_answer`](crate::protocol::policy_answer), exactly as an
//! `opa`-format http hook's `result` is. An evaluation error, an undefined or malformed answer, a timeout or a
//! panic is a failure of the hook: its `on_error` applies (a native gate denies, with the reason).
//!
//! A hook that runs only on trust runs only the bytes that were trusted: the digests of the files as compiled are
//! compared with its fingerprint's before each evaluation.

use std::num::NonZeroU32;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use hook_config::{LoadedHook, PolicySpec};
use hook_types::{EntryKind, Limits, OnError, Protocol, RunStatus};

use super::inprocess;
use super::record::{Meta, Record};
use crate::EventInput;
use crate::protocol::{payload_object, policy_answer};

/// Evaluates one policy hook for `input`.
pub(crate) fn run(meta: Meta, hook: &LoadedHook, spec: &PolicySpec, input: &EventInput, limits: &Limits) -> Record {
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
        record.entry(
            EntryKind::Feedback,
            "not run: its Rego files as compiled are not the ones that were trusted; run `hook trust` to trust it again",
        );
        return record;
    }
    let (timeout_ms, notes) = super::command::clamp(limits, decl.protocol, spec.timeout_ms);
    let payload = serde_json::Value::Object(payload_object(Protocol::Native, input));
    let evaluated = catch_unwind(AssertUnwindSafe(|| {
        spec.compiled.with_engine(|engine| {
            engine.set_execution_timer_config(regorus::utils::limits::ExecutionTimerConfig {
                limit: Duration::from_millis(timeout_ms),
                check_interval: NonZeroU32::new(64).expect("64 is not zero"),
            });
            engine.set_input(regorus::Value::from(payload));
            engine.eval_rule(spec.query.clone())
        })
    }));
    record.summary.entries = notes;
    match evaluated {
        Err(_) => record.fail(event, deny, &format!("panicked while evaluating `{}`", spec.query)),
        Ok(Err(error)) => {
            let text = one_line(&error.to_string());
            record.fail(event, deny, &format!("failed to evaluate `{}`: {text}", spec.query));
            if start.elapsed() >= Duration::from_millis(timeout_ms) {
                record.summary.status = RunStatus::TimedOut;
            }
        }
        Ok(Ok(value)) => {
            let answer = match value {
                regorus::Value::Undefined => Ok(None),
                value => serde_json::to_value(&value).map(Some).map_err(|e| e.to_string()),
            };
            match answer.and_then(|answer| policy_answer(&decl.id, answer.as_ref())) {
                Ok((effects, decision)) => inprocess::apply(&mut record, input, deny, effects, decision),
                Err(why) => record.fail(event, deny, &format!("answered `{}` wrongly: {why}", spec.query)),
            }
        }
    }
    record.set_duration(start.elapsed());
    record
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
