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
use std::sync::Arc;
use std::time::Duration;

use hook_config::EvaluatedSpec;
use hook_types::{Bound, Decision, EntryKind, RunStatus};

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

/// What an evaluated hook is asked with: the event, its payload in the hook's protocol, its timeout, and the most
/// bytes its answer may take (the host's capture limit, as a command hook's output).
pub(crate) struct Ask<'a> {
    pub input: &'a EventInput,
    pub payload: String,
    pub timeout: Duration,
    pub answer_limit: usize,
}

/// Runs one evaluated hook in a dispatch: skipped without an evaluator; else the evaluator's answer, held to the
/// hook's timeout and stopped by the dispatch's cancellation (then with why, for the caller to cancel the record).
///
/// The evaluator's future is polled on a thread of its own, inside the host's runtime (its timers, I/O and tasks
/// are the host's), so one that blocks in `poll` — a synchronous call inside an `async fn` — holds that thread, not
/// the dispatch: the dispatch decides at the timeout whatever the thread is doing. The future is dropped at the
/// timeout or when the dispatch stops waiting; a thread still blocked ends when its call returns.
pub(crate) async fn run(
    mut record: Record,
    evaluator: Option<&Arc<dyn HostEvaluator>>,
    spec: &EvaluatedSpec,
    coordinator: &Coordinator,
    position: usize,
    ask: Ask<'_>,
    deny_on_error: bool,
) -> (Record, Option<Cancel>) {
    let input = ask.input;
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
    let started = std::time::Instant::now();
    let timeout = ask.timeout;
    let (stop, answer) = match start(Arc::clone(evaluator), &record.meta.hook_id, spec, &ask) {
        Ok(started) => started,
        Err(why) => {
            record.fail(event, deny_on_error, &why);
            return (record, None);
        }
    };
    let answer = tokio::select! {
        biased;
        cause = coordinator.cancelled(position) => Err(cause),
        answer = tokio::time::timeout(timeout, answer) => Ok(answer),
    };
    // The thread drops the evaluator's future now, if it is still polling it.
    drop(stop);
    record.set_duration(started.elapsed());
    let answer = match answer {
        Err(cause) => return (record, Some(cause)),
        Ok(answer) => answer,
    };
    match answer {
        Err(_) => {
            let ms = timeout.as_millis();
            record.fail(event, deny_on_error, &format!("got no answer from the host's evaluator within {ms} ms"));
            record.summary.status = RunStatus::TimedOut;
            record.bound = Some(Bound::Time);
        }
        Ok(Err(_)) => record.fail(event, deny_on_error, "got no answer: the host's evaluator panicked"),
        Ok(Ok(Err(error))) => record.fail(event, deny_on_error, &format!("could not be evaluated: {error}")),
        Ok(Ok(Ok(evaluation))) => match answer_bytes(&evaluation) {
            n if n > ask.answer_limit => {
                let limit = ask.answer_limit;
                record.fail(event, deny_on_error, &format!("answered with {n} bytes, past the limit of {limit}"));
            }
            n => {
                record.output_bytes = n as u64;
                inprocess::apply(&mut record, input, deny_on_error, evaluation.effects, evaluation.decision);
            }
        },
    }
    (record, None)
}

/// The evaluator's answer, when it comes.
type Answer = tokio::sync::oneshot::Receiver<Result<Evaluation, EvalError>>;

/// Starts the evaluator on a thread of its own; dropping the returned sender stops it at its next `poll`.
fn start(
    evaluator: Arc<dyn HostEvaluator>,
    hook_id: &str,
    spec: &EvaluatedSpec,
    ask: &Ask<'_>,
) -> Result<(tokio::sync::oneshot::Sender<()>, Answer), String> {
    let host = tokio::runtime::Handle::try_current().map_err(|e| format!("could not be evaluated: {e}"))?;
    let (hook_id, prompt, model, agent) = (hook_id.to_owned(), spec.prompt.clone(), spec.model.clone(), spec.agent);
    let (input, payload, timeout) = (ask.input.clone(), ask.payload.clone(), ask.timeout);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (tx, answer) = tokio::sync::oneshot::channel();
    let evaluation = async move {
        let request = EvaluationRequest {
            hook_id: &hook_id,
            prompt: &prompt,
            payload: &payload,
            model: model.as_deref(),
            agent,
            timeout,
            input: &input,
        };
        // The dispatch drops `stop` when it stops waiting (its timeout, a cancellation, the dispatch dropped).
        tokio::select! {
            biased;
            _ = stopped => {}
            answer = evaluator.evaluate(request) => drop(tx.send(answer)),
        }
    };
    std::thread::Builder::new()
        .name("hook-evaluated".into())
        .spawn(move || host.block_on(evaluation))
        .map_err(|e| format!("could not start its evaluation: {e}"))?;
    Ok((stop, answer))
}

/// The size of an answer as JSON (its effects and decision), counted without building it.
fn answer_bytes(evaluation: &Evaluation) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, &evaluation.effects);
    let _ = serde_json::to_writer(&mut count, &evaluation.decision);
    count.0
}
