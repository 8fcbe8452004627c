//! Host-evaluated hooks (`kind: evaluated`; Claude Code's `type: "prompt"` and `type: "agent"`): the host answers
//! them through a [`HostEvaluator`] — with a model, where it has one — and the pipeline holds the answer to the
//! hook's timeout and the dispatch deadline.
//!
//! A pipeline built without an evaluator reports every such hook `skipped`, with why, and its `on_error` applies:
//! a gate whose hook says `on_error: deny` denies (a native hook on a gate does by default; Claude Code's fail
//! open). The session's user is told once per session that this host has no model (a notice), so such a hook never
//! vanishes in silence. See `docs/evaluated-hooks.md`.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use hook_config::EvaluatedSpec;
use hook_types::{Decision, EntryKind, RunStatus};

use super::inprocess;
use super::record::{Cancel, Record};
use super::registration::{EvalError, Evaluation};
use super::result::deny_decides;
use super::schedule::Coordinator;
use crate::EventInput;

/// What a host's evaluator gets for one hook: the prompt, the payload the hook's protocol gives a command hook, and
/// how long it has.
#[derive(Debug, Clone, Copy)]
pub struct EvaluationRequest<'a> {
    /// The hook's id.
    pub hook_id: &'a str,
    /// The prompt as declared.
    pub prompt: &'a str,
    /// The event's payload as JSON text, in the hook's protocol (what a command hook would read on stdin).
    pub payload: &'a str,
    /// The model the author asked for, if any.
    pub model: Option<&'a str>,
    /// Claude Code's `type: "agent"`: the evaluator may use tools before it answers.
    pub agent: bool,
    /// How long the evaluator has; the pipeline stops waiting then (and at the dispatch deadline).
    pub timeout: Duration,
    /// The event.
    pub input: &'a EventInput,
}

impl EvaluationRequest<'_> {
    /// The prompt with Claude Code's `$ARGUMENTS` replaced by the payload, or the payload appended when the prompt
    /// has no placeholder: what a model should read.
    ///
    /// ```
    /// use hook_middleware::pipeline::EvaluationRequest;
    /// use hook_middleware::EventInput;
    /// use hook_types::Event;
    /// let input = EventInput::new(Event::PreTool);
    /// let request = EvaluationRequest {
    ///     hook_id: "h", prompt: "Is this safe? $ARGUMENTS", payload: "{}", model: None, agent: false,
    ///     timeout: std::time::Duration::from_secs(30), input: &input,
    /// };
    /// assert_eq!(request.full_prompt(), "Is this safe? {}");
    /// ```
    pub fn full_prompt(&self) -> String {
        if self.prompt.contains("$ARGUMENTS") {
            self.prompt.replace("$ARGUMENTS", self.payload)
        } else {
            format!("{}\n\n{}", self.prompt, self.payload)
        }
    }
}

/// The future an evaluator returns.
pub type EvaluationFuture<'a> = Pin<Box<dyn Future<Output = Result<Evaluation, EvalError>> + Send + 'a>>;

/// How a host answers `kind: evaluated` hooks: a prompt, the payload and a timeout in, a decision and a reason out
/// (an [`Evaluation`]: `Evaluation::deny(reason)`, `Evaluation::pass()`, or effects). An error is a failure of the
/// hook (an Error entry, then its `on_error`); so is an answer that does not come within the timeout.
///
/// ```
/// use std::sync::Arc;
/// use hook_middleware::pipeline::{EvalError, Evaluation, EvaluationFuture, EvaluationRequest, HostEvaluator};
/// use hook_middleware::Pipeline;
///
/// /// A stand-in for a model: refuses anything that mentions `rm -rf`.
/// struct Careful;
/// impl HostEvaluator for Careful {
///     fn evaluate<'a>(&'a self, request: EvaluationRequest<'a>) -> EvaluationFuture<'a> {
///         Box::pin(async move {
///             Ok::<_, EvalError>(if request.payload.contains("rm -rf") {
///                 Evaluation::deny("the model thinks this deletes too much")
///             } else {
///                 Evaluation::pass()
///             })
///         })
///     }
/// }
/// let workspace = tempfile::tempdir().unwrap();
/// let pipeline = Pipeline::builder().workspace(workspace.path()).evaluator(Arc::new(Careful)).build().unwrap();
/// # let _ = pipeline;
/// ```
pub trait HostEvaluator: Send + Sync + 'static {
    /// Answers one hook.
    fn evaluate<'a>(&'a self, request: EvaluationRequest<'a>) -> EvaluationFuture<'a>;
}

/// The key of the once-per-session notice that this host has no evaluator.
pub(crate) const NO_EVALUATOR_NOTICE: &str = "no-evaluator";

/// Why an evaluated hook did not run on a host without an evaluator.
pub(crate) const NO_EVALUATOR: &str =
    "not run: this host has no evaluator (no model) to answer a `kind: evaluated` hook's prompt";

/// Runs one evaluated hook in a dispatch: skipped without an evaluator; else the evaluator's answer, held to the
/// hook's timeout and stopped by the dispatch's cancellation (then with why, for the caller to cancel the record).
pub(crate) async fn run(
    mut record: Record,
    evaluator: Option<&dyn HostEvaluator>,
    spec: &EvaluatedSpec,
    coordinator: &Coordinator,
    position: usize,
    (input, payload, timeout): (&EventInput, &str, Duration),
    deny_on_error: bool,
) -> (Record, Option<Cancel>) {
    let event = &input.event;
    let Some(evaluator) = evaluator else {
        record.summary.status = RunStatus::Skipped;
        record.entry(EntryKind::Feedback, NO_EVALUATOR);
        if deny_on_error && deny_decides(event) {
            let reason =
                format!("hook `{}` was not evaluated: this host has no model to answer it", record.meta.hook_id);
            record.decision = Decision::Deny { reason };
        }
        return (record, None);
    };
    let request = EvaluationRequest {
        hook_id: &record.meta.hook_id,
        prompt: &spec.prompt,
        payload,
        model: spec.model.as_deref(),
        agent: spec.agent,
        timeout,
        input,
    };
    let started = std::time::Instant::now();
    let answer = tokio::select! {
        biased;
        cause = coordinator.cancelled(position) => Err(cause),
        answer = tokio::time::timeout(timeout, evaluator.evaluate(request)) => Ok(answer),
    };
    let answer = match answer {
        Err(cause) => {
            record.set_duration(started.elapsed());
            return (record, Some(cause));
        }
        Ok(answer) => answer,
    };
    match answer {
        Err(_) => {
            let ms = timeout.as_millis();
            record.fail(event, deny_on_error, &format!("got no answer from the host's evaluator within {ms} ms"));
            record.summary.status = RunStatus::TimedOut;
        }
        Ok(Err(error)) => record.fail(event, deny_on_error, &format!("could not be evaluated: {error}")),
        Ok(Ok(evaluation)) => {
            inprocess::apply(&mut record, input, deny_on_error, evaluation.effects, evaluation.decision);
        }
    }
    record.set_duration(started.elapsed());
    (record, None)
}
