//! The output protocol (docs/output-protocol.md): the stdin payload a command hook reads, and what its finished run means.
//!
//! Pure functions, no I/O: [`payload`] builds the bytes the pipeline writes to a hook's stdin; [`interpret`] turns
//! the [`RunResult`] that `hook-exec` returned into a status, effects, a [`Decision`] for the folds and transcript
//! entries. One classifier decides how every run ended (cancelled, spawn failure, timeout, signal, exit code), the
//! same for every event; what differs between agents is a small table of rules per protocol.
//!
//! # The native rules
//!
//! | hook result | gate events (turn_start, pre_tool) | other events |
//! |---|---|---|
//! | exit 0, empty stdout | pass | nothing |
//! | exit 0, stdout whose first non-space character is `{` | must parse as a JSON object (below), else invalid output | same |
//! | exit 0, other stdout | pass; stdout becomes the hook's `as` effect | same; a Feedback entry where no effect fits (session_end) |
//! | exit 2 | deny; reason = stderr, else stdout, else "blocked by hook `<id>`" | block where the event can (permission_request denies, turn_end continues), else a Feedback entry |
//! | other exit, signal, timeout, spawn failure, invalid output | `on_error` (deny by default) with a reason naming the failure | Error entry, no effect |
//!
//! JSON accepted: `effects` (closed effects, each valid on the event); `decision` (`block`, `deny`, `approve`,
//! `allow`) with `reason`; `continue: false` with `stopReason` (a `halt`, which on a gate also denies);
//! `systemMessage` (a `notify_operator`); `suppressOutput`; `hookSpecificOutput` with `permissionDecision`
//! (`allow`, `deny`, `ask`), `permissionDecisionReason`, `updatedInput` (a `rewrite_tool_input`),
//! `additionalContext` (an `inject_reminder`) and, on a permission request, `decision: {behavior, message,
//! updatedInput}`. Unknown fields are ignored; a known field of the wrong type makes the output invalid.
//!
//! # Failures
//!
//! A failure (spawn failure, timeout, signal, an exit code the protocol does not define, invalid output) drops
//! whatever the hook said and leaves one Error entry. With `on_error: deny` on an event that can deny (turn_start,
//! pre_tool, permission_request) the decision is a deny whose reason names the failure ("hook `x` timed out after
//! 1500 ms"); the status stays `failed` or `timed_out`. A cancelled run has status `cancelled`, no effects and no
//! entries. Every text taken from a hook passes through [`sanitize_text`].
//!
//! # Other protocols
//!
//! A hook whose `protocol` is an agent's follows that agent's rules where they differ — for Claude Code, Codex and
//! Gemini CLI as the real agent runs them at the version its table entry pins, not as its documents say: Claude Code
//! feeds exit 2's stderr back, reads stdout JSON on any other code (a deny there denies) and otherwise treats it as
//! a non-blocking error, takes stdout that does not parse for plain text, and continues the turn on a Stop hook's
//! context; Codex is stricter (unknown fields, `ask`, a deny without a reason, legacy `approve` fail the run);
//! Gemini CLI reads stdout, else stderr, whatever the exit code (`gemini.rs`); Cursor answers with `permission`; mecha denies on exit 2 with stdout as the reason; clio-coder speaks through
//! effects only. The table is in `rules.rs`, each row citing its source.
//!
//! Where this engine decides more strictly than the agent — a deny where the agent lets the tool run — the run keeps
//! no [`Interpretation::replay`], and the project's `docs/agents.md` lists the case.
//!
//! ```
//! use hook_exec::{Exit, RunResult};
//! use hook_middleware::{EventInput, protocol::{interpret, HookRules}};
//! use hook_config::AsMode;
//! use hook_types::{Decision, Event, OnError, Protocol, RunStatus};
//!
//! let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "rm -rf /"}));
//! let rules = HookRules::new("guard", Protocol::Native, &Event::PreTool);
//! let run = RunResult { exit: Some(Exit::Code(2)), stderr: b"no rm -rf\n".to_vec(), ..Default::default() };
//! let result = interpret(&rules, &input, &run);
//! assert_eq!(result.status, RunStatus::Blocked);
//! assert_eq!(result.decision, Decision::Deny { reason: "no rm -rf".into() });
//!
//! let crashed = RunResult { exit: Some(Exit::Code(7)), ..Default::default() };
//! let result = interpret(&rules, &input, &crashed);
//! assert_eq!(result.status, RunStatus::Failed);
//! assert_eq!(result.decision, Decision::Deny { reason: "hook `guard` exited with undefined code 7".into() });
//! ```

mod builder;
mod classify;
mod cline;
mod codex;
mod copilot;
mod crush;
mod cursor;
mod gemini;
mod json;
mod names;
mod opa;
mod payload;
mod rules;
mod sanitize;
mod schema;
mod wire;

use hook_config::{AsMode, HookDecl, HookSpec};
use hook_exec::RunResult;
use hook_types::{Decision, Effect, Event, OnError, OutputEntry, Protocol, Replay, RunStatus};

pub use classify::exit_code;
pub use names::event_name;
pub use opa::{PolicyAnswer, policy_answer};
pub use payload::{CONTENT_LIMIT_CHARS, payload, payload_object};
pub use sanitize::sanitize_text;
pub use schema::{output_schema, payload_schema};
pub use wire::json_type_name;

use crate::EventInput;
use builder::{BlockFrom, Builder};
use classify::{Ending, Failure, classify, stderr_tail};
use rules::{BlockExitOn, Plain, Reading, ReasonFrom};
use sanitize::{clean, clean_bytes};

/// The per-hook facts the protocol needs. The pipeline builds it from a [`HookDecl`] with [`HookRules::for_decl`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRules<'a> {
    /// The hook's id, named in failure reasons ("hook `x` timed out after 1500 ms").
    pub hook_id: &'a str,
    /// Whose output rules the hook follows.
    pub protocol: Protocol,
    /// What a failure turns into.
    pub on_error: OnError,
    /// What plain stdout on exit 0 becomes (native and clio).
    pub as_mode: AsMode,
    /// The deadline the run had (after the host's clamp), named in a timeout's reason; `None` names the measured
    /// duration instead.
    pub timeout_ms: Option<u64>,
}

impl<'a> HookRules<'a> {
    /// Rules with the protocol's defaults for `event`: its failure policy and the `as` mode of the event.
    ///
    /// ```
    /// use hook_middleware::protocol::HookRules;
    /// use hook_types::{Event, OnError, Protocol};
    /// assert_eq!(HookRules::new("g", Protocol::Native, &Event::PreTool).on_error, OnError::Deny);
    /// assert_eq!(HookRules::new("g", Protocol::Claude, &Event::PreTool).on_error, OnError::Ignore);
    /// ```
    pub fn new(hook_id: &'a str, protocol: Protocol, event: &Event) -> Self {
        HookRules {
            hook_id,
            protocol,
            on_error: protocol.default_on_error(event),
            as_mode: AsMode::default_for(event),
            timeout_ms: None,
        }
    }

    /// The rules of a declared hook: its id, protocol, resolved `on_error`, `as` mode and declared timeout (the
    /// pipeline overwrites `timeout_ms` with the clamped value it actually ran with).
    pub fn for_decl(decl: &'a HookDecl) -> Self {
        let (as_mode, timeout_ms) = match &decl.spec {
            HookSpec::Command(command) => (command.as_mode, Some(command.timeout_ms)),
            _ => (AsMode::default_for(&decl.event), None),
        };
        HookRules { hook_id: &decl.id, protocol: decl.protocol, on_error: decl.on_error, as_mode, timeout_ms }
    }
}

/// What one finished run means: the summary status, the effects (each valid on the event), the decision the gate
/// and permission folds read, and the ordered transcript entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Interpretation {
    /// `completed`, `blocked`, `failed`, `timed_out` or `cancelled`.
    pub status: RunStatus,
    /// The effects, in the order the hook gave them; empty on a failure.
    pub effects: Vec<Effect>,
    /// Deny, ask, allow or pass, for `gate_fold` / `permission_fold`. A failure with `on_error: deny` is a deny here
    /// while `status` stays `failed`.
    pub decision: Decision,
    /// Transcript entries, every text sanitized.
    pub entries: Vec<OutputEntry>,
    /// The hook asked to keep its output out of the transcript (`suppressOutput`).
    pub suppress_output: bool,
    /// The hook's answer as it gave it, when it follows the protocol of an agent this engine is checked against (a
    /// table entry with a pinned version) and that agent reads the answer exactly as this engine did: nothing
    /// decided more strictly here (a deny where the agent runs the tool), no truncated output, a run that exited.
    /// A bridge into that agent may answer with it unchanged.
    pub replay: Option<Replay>,
}

/// Interprets a finished run of the hook described by `rules` for the dispatch `input` (see the module docs for the
/// rules).
///
/// ```
/// use hook_exec::{Exit, RunResult};
/// use hook_middleware::{EventInput, protocol::{interpret, HookRules}};
/// use hook_types::{Decision, Effect, Event, Protocol, RunStatus};
///
/// let input = EventInput::new(Event::TurnEnd);
/// let rules = HookRules::new("tests", Protocol::Claude, &Event::TurnEnd);
/// let stdout = br#"{"decision":"block","reason":"run the tests first"}"#.to_vec();
/// let run = RunResult { exit: Some(Exit::Code(0)), stdout, ..Default::default() };
/// let result = interpret(&rules, &input, &run);
/// assert_eq!(result.status, RunStatus::Blocked);
/// assert_eq!(result.effects, vec![Effect::RequestContinuation { message: "run the tests first".into() }]);
/// assert_eq!(result.decision, Decision::Pass);
/// ```
pub fn interpret(rules: &HookRules<'_>, input: &EventInput, run: &RunResult) -> Interpretation {
    let table = rules::rules(rules.protocol);
    let ending = classify(table, run, rules.timeout_ms);
    if let Ending::Cancelled = ending {
        return Interpretation {
            status: RunStatus::Cancelled,
            effects: Vec::new(),
            decision: Decision::Pass,
            entries: Vec::new(),
            suppress_output: false,
            replay: None,
        };
    }
    let mut b = Builder::new(rules, input, table);
    for warning in &run.warnings {
        b.warning(sanitize_text(warning));
    }
    if run.stdout_truncated {
        b.warning("stdout went past the capture limit; the rest was dropped".into());
    }
    if run.stderr_truncated {
        b.warning("stderr went past the capture limit; the rest was dropped".into());
    }
    let result = match (ending, table.reading) {
        (Ending::Cancelled, _) => Ok(()),
        (Ending::Failed(failure @ (Failure::NonBlockingExit(code) | Failure::UndefinedExit(code))), _)
            if table.halt_exit == Some(code) =>
        {
            halting_exit(&mut b, run, failure)
        }
        (
            Ending::Success | Ending::Block | Ending::Failed(Failure::NonBlockingExit(_) | Failure::UndefinedExit(_)),
            Reading::StdoutOnly,
        ) => cline::read(&mut b, run),
        (Ending::Success, Reading::OutputWhateverExit) => gemini::read(&mut b, run, 0),
        (Ending::Block, Reading::OutputWhateverExit) => gemini::read(&mut b, run, 2),
        (
            Ending::Failed(Failure::NonBlockingExit(code) | Failure::UndefinedExit(code)),
            Reading::OutputWhateverExit,
        ) => gemini::read(&mut b, run, code),
        (Ending::Success, Reading::ByExitCode | Reading::ByExitCodeJsonOnOtherExit) => success(&mut b, run),
        (Ending::Block, Reading::ByExitCode | Reading::ByExitCodeJsonOnOtherExit) => blocking_exit(&mut b, run),
        (
            Ending::Failed(failure @ (Failure::NonBlockingExit(_) | Failure::UndefinedExit(_))),
            Reading::ByExitCodeJsonOnOtherExit,
        ) => other_exit(&mut b, run, failure),
        (Ending::Failed(failure), _) => Err(failure),
    };
    if let Err(failure) = result {
        b.fail(failure, stderr_tail(run));
    }
    let replay = replay(&b, run);
    let mut interpretation = b.finish();
    interpretation.replay = replay;
    interpretation
}

/// The run's answer as it gave it, when the bridge may hand it back to the hook's agent (see
/// [`Interpretation::replay`]).
fn replay(b: &Builder<'_>, run: &RunResult) -> Option<Replay> {
    let agent = b.hook.protocol.agent();
    if agent.version.is_none() || !agent.bridge || !b.replayable() {
        return None;
    }
    let Some(hook_exec::Exit::Code(exit_code)) = run.exit else { return None };
    let stdout = String::from_utf8(run.stdout.clone()).ok()?;
    let stderr = String::from_utf8(run.stderr.clone()).ok()?;
    Some(Replay { exit_code, stdout, stderr })
}

/// Claude Code: an exit code other than 0 and 2 still reads stdout, and JSON that is a valid answer decides as on
/// exit 0; anything else is the non-blocking error the code means.
fn other_exit(b: &mut Builder<'_>, run: &RunResult, failure: Failure) -> Result<(), Failure> {
    let text = String::from_utf8_lossy(&run.stdout);
    let body = text.trim_start().trim_start_matches('\u{feff}').trim_start();
    if !b.rules.json.reads(body) {
        return Err(failure);
    }
    match wire::parse(body, (b.rules.known)(b.event)) {
        Ok(output) => json::apply(b, output),
        Err(_) => Err(failure),
    }
}

/// The protocol's exit code that stops the agent: the answer on stdout still counts, then the run halts with stderr
/// as its reason, which on a gate also denies.
fn halting_exit(b: &mut Builder<'_>, run: &RunResult, failure: Failure) -> Result<(), Failure> {
    // Only the JSON answer counts here; without one this is still a halt, not a failure.
    let _ = other_exit(b, run, failure);
    let reason = clean_bytes(&run.stderr);
    if b.event.class() == hook_types::EventClass::Gate && !b.denies() {
        b.block(reason.clone().unwrap_or_else(|| b.default_reason()), BlockFrom::Exit);
    }
    b.halt(reason);
    Ok(())
}

/// Exit 0: read stdout.
fn success(b: &mut Builder<'_>, run: &RunResult) -> Result<(), Failure> {
    let text = String::from_utf8_lossy(&run.stdout);
    // A byte-order mark (PowerShell writes one) is not content.
    let body = text.trim_start().trim_start_matches('\u{feff}').trim_start();
    if body.is_empty() {
        return Ok(());
    }
    if b.rules.json.reads(body) {
        match wire::parse(body, (b.rules.known)(b.event)) {
            Ok(output) => return json::apply(b, output),
            Err(wire::WireError::Json(_)) if b.rules.unparsed_json_is_text => {}
            Err(wire::WireError::Json(message)) => return Err(Failure::InvalidJson(message)),
            Err(wire::WireError::Shape(message)) => return Err(Failure::InvalidOutput(message)),
        }
    }
    let Some(text) = clean(&text) else { return Ok(()) };
    match b.rules.plain {
        Plain::AsDeclared => match b.hook.as_mode {
            AsMode::Annotate => b.annotate(text, Default::default()),
            AsMode::Reminder => b.context(text),
        },
        Plain::ContextOnPromptAndStart | Plain::ContextOnPromptAndStartInvalidOnStop
            if matches!(b.event, Event::TurnStart | Event::SessionStart) =>
        {
            b.context(text)
        }
        Plain::ContextOnPromptAndStart | Plain::Feedback => b.entry(hook_types::EntryKind::Feedback, text),
        // codex-rs/hooks/src/events/stop.rs: anything on a Stop hook's stdout that is not its JSON fails the run.
        Plain::ContextOnPromptAndStartInvalidOnStop if *b.event == Event::TurnEnd => {
            return Err(Failure::InvalidOutput("hook returned invalid stop hook JSON output".into()));
        }
        Plain::ContextOnPromptAndStartInvalidOnStop | Plain::Ignored => {}
        Plain::Notify => b.notify(text),
    }
    Ok(())
}

/// The protocol's blocking exit code: a block with the reason the protocol reads.
fn blocking_exit(b: &mut Builder<'_>, run: &RunResult) -> Result<(), Failure> {
    let stderr = || clean_bytes(&run.stderr);
    let stdout = || clean_bytes(&run.stdout);
    let reason = match b.rules.block_reason {
        ReasonFrom::Stderr => stderr(),
        ReasonFrom::StderrThenStdout => stderr().or_else(stdout),
        ReasonFrom::StdoutThenStderr => stdout().or_else(stderr),
    };
    if b.rules.block_exit_on == BlockExitOn::GatesOnly && !matches!(b.event, Event::PreTool | Event::PermissionRequest)
    {
        // GitHub Copilot CLI: a warning for the user, and on a failed call guidance for the model.
        if let Some(reason) = reason {
            if *b.event == Event::PostTool && b.is_error {
                b.context(reason);
            } else {
                b.notify(reason);
            }
        }
        return Ok(());
    }
    if *b.event == Event::PermissionRequest && b.rules.block_exit_on == BlockExitOn::AllButPermission {
        b.stricter();
    }
    let reason = match reason {
        Some(reason) => reason,
        // codex-rs/hooks/src/events/pre_tool_use.rs: "exited with code 2 but did not write a blocking reason to
        // stderr" fails the run.
        None if b.rules.reason_required => {
            return Err(Failure::InvalidOutput("exited with code 2 but did not write a reason to stderr".into()));
        }
        None => b.default_reason(),
    };
    b.block(reason, BlockFrom::Exit);
    Ok(())
}
