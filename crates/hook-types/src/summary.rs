//! Run summaries (docs/output-protocol.md) and receipts (docs/receipts.md): what one hook execution left behind.

use serde::{Deserialize, Serialize};

use crate::{Event, HookKind, Origin, Protocol};

/// How one hook's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Ran and finished without blocking.
    Completed,
    /// The hook itself denied or blocked.
    Blocked,
    /// Spawn failure, undefined exit code, signal or invalid output (an `on_error: deny` keeps this status; the
    /// verdict carries the deny).
    Failed,
    /// Killed at its deadline.
    TimedOut,
    /// Not run: disabled, filtered by `only_managed`, or after a halt.
    Skipped,
    /// Not run: untrusted, or modified since it was trusted.
    Untrusted,
    /// Stopped or discarded because a higher-precedence hook denied, or the dispatch deadline passed.
    Cancelled,
}

/// The kind of one transcript entry of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// Text the hook meant for the user or model (a block reason, plain output).
    Feedback,
    /// Something worth a look that did not fail the run (a truncated output, a clamp, a lost rewrite).
    Warning,
    /// A failure of the hook.
    Error,
    /// Context added to the model.
    Context,
}

/// One ordered transcript entry of a run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OutputEntry {
    /// What kind of entry.
    pub kind: EntryKind,
    /// The text, already stripped of control characters where it came from a hook.
    pub text: String,
}

impl OutputEntry {
    /// A new entry.
    pub fn new(kind: EntryKind, text: impl Into<String>) -> Self {
        OutputEntry { kind, text: text.into() }
    }
}

/// What one hook's run produced, for the transcript and the CLI trace (docs/output-protocol.md). Field names are a wire contract.
///
/// ```
/// use hook_types::{Event, Origin, Protocol, RunStatus, RunSummary};
/// let summary = RunSummary {
///     hook_id: "project.guard".into(),
///     origin: Some(Origin::Project),
///     source: ".hooks/hooks.yaml".into(),
///     hash: "8edef845af953d62".into(),
///     event: Event::PreTool,
///     protocol: Protocol::Native,
///     status: RunStatus::Blocked,
///     exit_code: Some(2),
///     duration_ms: 12,
///     entries: vec![],
///     replay: None,
/// };
/// assert!(serde_json::to_string(&summary).unwrap().contains(r#""status":"blocked""#));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The hook's id.
    pub hook_id: String,
    /// Where the hook was declared; `null` for a registration coded by the host.
    pub origin: Option<Origin>,
    /// The declaring file (or the host's name for a coded registration).
    pub source: String,
    /// The hook's content hash (docs/declarations.md#content-hash); empty for a coded registration.
    pub hash: String,
    /// The event dispatched.
    pub event: Event,
    /// The protocol the hook follows.
    pub protocol: Protocol,
    /// How the run ended.
    pub status: RunStatus,
    /// The exit code of a command hook that exited.
    pub exit_code: Option<i32>,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// Ordered transcript entries.
    pub entries: Vec<OutputEntry>,
    /// The hook's own answer, for a bridge to hand back to the agent whose protocol the hook follows (see
    /// [`Replay`]); never serialized.
    #[serde(skip)]
    pub replay: Option<Replay>,
}

/// A command hook's answer exactly as it gave it: exit code, stdout, stderr.
///
/// A run keeps it only when the hook follows the protocol of an agent that reads that answer exactly as this engine
/// did (same outcome, nothing this engine holds stricter). A bridge into that agent whose dispatch ran that one hook
/// and nothing else answers with it unchanged, so the agent shows what it shows for its own hook: its words, its
/// status, its default messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    /// The exit code.
    pub exit_code: i32,
    /// stdout, as written.
    pub stdout: String,
    /// stderr, as written.
    pub stderr: String,
}

/// The outcome recorded in a receipt (docs/receipts.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A prompt, effect or in-process hook produced its effects.
    Emitted,
    /// A command hook completed.
    CommandOk,
    /// A hook blocked or denied.
    Blocked,
    /// A command hook failed.
    CommandFailed,
    /// A command hook timed out.
    CommandTimeout,
    /// Not run (disabled, `only_managed`, halted).
    Skipped,
    /// Not run: not trusted in this workspace.
    Untrusted,
    /// Not run: what it runs (its command's files, its Rego) changed since it was trusted.
    Modified,
    /// Cancelled or discarded.
    Cancelled,
}

impl Outcome {
    /// The receipt outcome for a run of `kind` that ended with `status`. A run refused because what it runs changed
    /// since it was trusted has the status `untrusted` and the outcome [`Outcome::Modified`], which the pipeline sets
    /// where it knows the difference.
    ///
    /// ```
    /// use hook_types::{HookKind, Outcome, RunStatus};
    /// assert_eq!(Outcome::from_status(HookKind::Command, RunStatus::TimedOut), Outcome::CommandTimeout);
    /// assert_eq!(Outcome::from_status(HookKind::Prompt, RunStatus::Completed), Outcome::Emitted);
    /// ```
    pub fn from_status(kind: HookKind, status: RunStatus) -> Outcome {
        match status {
            RunStatus::Completed if kind == HookKind::Command => Outcome::CommandOk,
            RunStatus::Completed => Outcome::Emitted,
            RunStatus::Blocked => Outcome::Blocked,
            RunStatus::Failed => Outcome::CommandFailed,
            RunStatus::TimedOut => Outcome::CommandTimeout,
            RunStatus::Skipped => Outcome::Skipped,
            RunStatus::Untrusted => Outcome::Untrusted,
            RunStatus::Cancelled => Outcome::Cancelled,
        }
    }
}

/// A record of one execution or skip, for the audit log (docs/receipts.md). Field names are a wire contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// When the run ended, RFC 3339 UTC with milliseconds (see [`format_rfc3339_millis`]).
    pub time: String,
    /// The hook's id.
    pub hook_id: String,
    /// Where the hook was declared; `null` for a coded registration.
    pub origin: Option<Origin>,
    /// The declaring file.
    pub source: String,
    /// The content hash.
    pub hash: String,
    /// The event.
    pub event: Event,
    /// What the hook runs.
    pub kind: HookKind,
    /// How it ended.
    pub outcome: Outcome,
    /// The kinds of the effects it produced, in order.
    pub effects: Vec<String>,
    /// The exit code of a command hook that exited.
    pub exit_code: Option<i32>,
    /// Bytes of stdout plus stderr captured.
    pub output_bytes: u64,
    /// The tool of a tool event.
    pub tool_name: Option<String>,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// The HTTP status an `http` hook's server answered with; absent for every other kind and for a request that
    /// got no answer. Header values are never recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// The host's session id, if the dispatch carried one.
    pub session_id: Option<String>,
    /// The bound an in-process evaluation (`policy`, `http`, `evaluated`) ran into, which failed it; absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
    /// Why the hook denied (a block, or a failure that fails closed) or asked: the decision's reason; absent for
    /// every other run and for an ask without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `true` for an `async: true` hook, which ran in the background: its dispatch had answered without it, and it
    /// decided nothing. Absent (`false`) otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub background: bool,
    /// The hook allowed, and the pipeline dropped the allow: why (an approval scoped by `command:` or an `if` rule
    /// on a line that runs a command it does not cover; a rewrite by a higher-precedence hook). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
    /// The sha256 (hex) of the previous line of the log, filled in by the file sink; `null` elsewhere.
    pub prev: Option<String>,
}

/// A bound an in-process evaluation ran into (a receipt's `bound`).
///
/// ```
/// use hook_types::Bound;
/// assert_eq!(serde_json::to_string(&Bound::Memory).unwrap(), "\"memory\"");
/// assert_eq!(Bound::Time.to_string(), "time");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Its timeout passed before it answered.
    Time,
    /// It would have held more memory than its limit allows.
    Memory,
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Bound::Time => "time",
            Bound::Memory => "memory",
        })
    }
}

/// Formats milliseconds since the Unix epoch as RFC 3339 UTC (`2026-11-30T04:35:23.120Z`). Pure arithmetic.
///
/// ```
/// assert_eq!(hook_types::format_rfc3339_millis(0), "1970-01-01T00:00:00.000Z");
/// assert_eq!(hook_types::format_rfc3339_millis(1_796_013_323_120), "2026-11-30T04:35:23.120Z");
/// ```
pub fn format_rfc3339_millis(unix_ms: u64) -> String {
    let millis = unix_ms % 1000;
    let secs = unix_ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (hour, minute, second) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // Howard Hinnant's civil-from-days algorithm, for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z")
}
