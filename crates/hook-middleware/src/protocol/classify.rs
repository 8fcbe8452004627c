//! The one classifier every event and protocol shares: how a finished run ended, and what a failure is called.

use hook_exec::{Exit, RunResult};

use super::rules::{OtherExit, Rules};
use super::sanitize::{clean, clean_bytes};

/// How a run ended, as far as the protocol cares.
#[derive(Debug)]
pub(crate) enum Ending {
    /// The caller cancelled it: no effects, no decision.
    Cancelled,
    /// Exit 0: read stdout.
    Success,
    /// The protocol's blocking exit code.
    Block,
    /// Anything that makes the hook's answer unusable.
    Failed(Failure),
}

/// A hook failure (docs/declarations.md#failure-policies-and-on_error): what `on_error` decides about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The process could not be started.
    Spawn(String),
    /// The deadline fired.
    TimedOut {
        /// The deadline, or the measured duration when the caller did not say.
        after_ms: u64,
    },
    /// Killed by a signal (not by our deadline).
    Signal(i32),
    /// Neither an exit status nor a spawn error (a leader that would not die even after SIGKILL).
    NoStatus,
    /// An exit code the protocol does not define.
    UndefinedExit(i32),
    /// An exit code the protocol defines as a non-blocking error.
    NonBlockingExit(i32),
    /// A `{`-first stdout that is not JSON (serde's message).
    InvalidJson(String),
    /// Output that does not follow the protocol; the message names what is wrong.
    InvalidOutput(String),
}

impl Failure {
    /// The reason a deny built from this failure shows, naming the hook: "hook `x` timed out after 1500 ms".
    pub(crate) fn reason(&self, hook_id: &str) -> String {
        match self {
            Failure::Spawn(error) => format!("hook `{hook_id}` could not start: {error}"),
            Failure::TimedOut { after_ms } => format!("hook `{hook_id}` timed out after {after_ms} ms"),
            Failure::Signal(signal) => format!("hook `{hook_id}` was killed by signal {signal}"),
            Failure::NoStatus => format!("hook `{hook_id}` ended without an exit status"),
            Failure::UndefinedExit(code) => format!("hook `{hook_id}` exited with undefined code {code}"),
            Failure::NonBlockingExit(code) => {
                format!("hook `{hook_id}` exited with code {code} (a non-blocking error)")
            }
            Failure::InvalidJson(message) => format!("hook `{hook_id}` wrote invalid JSON: {message}"),
            Failure::InvalidOutput(message) => format!("hook `{hook_id}` wrote invalid output: {message}"),
        }
    }

    /// Whether this is the deadline (status `timed_out` rather than `failed`).
    pub(crate) fn is_timeout(&self) -> bool {
        matches!(self, Failure::TimedOut { .. })
    }

    /// Whether stderr is worth appending to the Error entry (the process ran and may have said why).
    pub(crate) fn ran(&self) -> bool {
        !matches!(self, Failure::Spawn(_))
    }
}

/// Classifies a finished run. Order matters: a cancellation wins over everything (its result is discarded), a spawn
/// error means nothing ran, a timeout wins over the SIGKILL it caused.
pub(crate) fn classify(rules: &Rules, run: &RunResult, timeout_ms: Option<u64>) -> Ending {
    if run.cancelled {
        return Ending::Cancelled;
    }
    if let Some(error) = &run.spawn_error {
        let text = clean(&error.to_string()).unwrap_or_else(|| "unknown error".into());
        return Ending::Failed(Failure::Spawn(text));
    }
    if run.timed_out {
        let after_ms = timeout_ms.unwrap_or_else(|| u64::try_from(run.duration.as_millis()).unwrap_or(u64::MAX));
        return Ending::Failed(Failure::TimedOut { after_ms });
    }
    match run.exit {
        None => Ending::Failed(Failure::NoStatus),
        Some(Exit::Signal(signal)) => Ending::Failed(Failure::Signal(signal)),
        Some(Exit::Code(0)) => Ending::Success,
        Some(Exit::Code(code)) if rules.block_exit == Some(code) => Ending::Block,
        Some(Exit::Code(code)) => Ending::Failed(match rules.other_exit {
            OtherExit::Undefined => Failure::UndefinedExit(code),
            OtherExit::NonBlocking => Failure::NonBlockingExit(code),
        }),
    }
}

/// The exit code of a run that exited, for the run summary's `exit_code` (`None` after a signal, a spawn failure or
/// a timeout).
///
/// ```
/// use hook_exec::{Exit, RunResult};
/// let run = RunResult { exit: Some(Exit::Code(2)), ..Default::default() };
/// assert_eq!(hook_middleware::protocol::exit_code(&run), Some(2));
/// ```
pub fn exit_code(run: &RunResult) -> Option<i32> {
    match run.exit {
        Some(Exit::Code(code)) => Some(code),
        _ => None,
    }
}

/// The last part of stderr, sanitized, for an Error entry: enough to see why, bounded so a flood does not become
/// one giant entry.
pub(crate) fn stderr_tail(run: &RunResult) -> Option<String> {
    const TAIL_CHARS: usize = 2_000;
    let text = clean_bytes(&run.stderr)?;
    let count = text.chars().count();
    if count <= TAIL_CHARS {
        return Some(text);
    }
    let skip = count - TAIL_CHARS;
    Some(format!("…{}", text.chars().skip(skip).collect::<String>()))
}
