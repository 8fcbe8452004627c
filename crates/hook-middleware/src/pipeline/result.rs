//! What a dispatch, a preview and a reload return.

use hook_config::Issue;
use hook_types::{Effect, Event, EventClass, HookKind, Origin, RunSummary, Verdict};
use serde::Serialize;

use super::registration::Tier;
use super::table::SkipReason;

/// The outcome of one dispatch (docs/embedding.md#apply-the-result).
///
/// ```
/// use hook_middleware::pipeline::DispatchResult;
/// use hook_types::{Event, Verdict};
/// let nothing = DispatchResult::nothing(&Event::PermissionRequest);
/// assert_eq!(nothing.verdict, Verdict::None);
/// assert!(nothing.runs.is_empty() && nothing.effects.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DispatchResult {
    /// deny, ask, allow, pass (gates), allow, deny or none (permission_request), pass (everything else).
    pub verdict: Verdict,
    /// Why: the highest-precedence deny's reason (or the deciding ask's or allow's, where it gave one).
    pub reason: Option<String>,
    /// The effects the host applies, in precedence order (guards first), after the conflict rules.
    pub effects: Vec<Effect>,
    /// One summary per matching hook, guards first, then user hooks in precedence order, then the guards' re-check
    /// of a rewritten input, if there was one.
    pub runs: Vec<RunSummary>,
    /// A `halt` effect survived: the host stops the agent's run after this event.
    pub halted: bool,
    /// Problems of the pipeline itself (a receipt sink that failed, the dispatch deadline, a refused continuation),
    /// one line each, for the host's log.
    pub diagnostics: Vec<String>,
    /// What the agent's user must be told (not the model): guards that matched and did not run (untrusted,
    /// modified since trusted), a continuation the cap refused. A bridge shows them in the agent's user-visible
    /// channel; a host shows them to its user.
    pub notices: Vec<String>,
    /// The table generation the dispatch ran against.
    pub generation: u64,
    /// The `async: true` hooks this dispatch started and did not wait for (their receipts are written when they
    /// end; see [`Pipeline::finish_background`](super::Pipeline::finish_background)).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub background: Vec<String>,
}

impl DispatchResult {
    /// The result of a dispatch that matched nothing: pass, or none on permission_request. Allocates nothing.
    pub fn nothing(event: &Event) -> DispatchResult {
        DispatchResult {
            verdict: empty_verdict(event),
            reason: None,
            effects: Vec::new(),
            runs: Vec::new(),
            halted: false,
            diagnostics: Vec::new(),
            notices: Vec::new(),
            generation: 0,
            background: Vec::new(),
        }
    }

    /// Whether the host must refuse what the event was about.
    pub fn denied(&self) -> bool {
        self.verdict == Verdict::Deny
    }
}

/// The verdict of an event no hook decided about.
pub(crate) fn empty_verdict(event: &Event) -> Verdict {
    match event {
        Event::PermissionRequest => Verdict::None,
        _ => Verdict::Pass,
    }
}

/// Whether a deny decides the event: gates and permission_request. Elsewhere a hook's deny is no verdict.
pub(crate) fn deny_decides(event: &Event) -> bool {
    event.class() == EventClass::Gate || *event == Event::PermissionRequest
}

/// When a hook of a preview would run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// A fixed or host registration: first, one after another.
    Guard,
    /// A prompt or effect declaration: after the guards, in precedence order.
    InProcess,
    /// A command or evaluated declaration: after the in-process hooks, concurrently.
    Command,
}

/// One line of [`Pipeline::preview`](super::Pipeline::preview): a hook that matches, whether it would run, and
/// why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreviewEntry {
    /// The hook's id.
    pub id: String,
    /// Its tier.
    pub tier: Tier,
    /// When it runs.
    pub phase: Phase,
    /// What it runs.
    pub kind: HookKind,
    /// Where it was declared; `None` for a registration.
    pub origin: Option<Origin>,
    /// The declaring file, or the registration's source name.
    pub source: String,
    /// The content hash; empty for a registration.
    pub hash: String,
    /// Starts only after every lower-precedence hook of the dispatch has finished.
    pub sequential: bool,
    /// Filters a preview cannot settle (`only_errors`, `scope`), described.
    pub conditions: Vec<String>,
    /// `Some` when it matches but would not run.
    pub skip: Option<SkipReason>,
}

impl PreviewEntry {
    /// Whether it would run (given its conditions hold).
    pub fn will_run(&self) -> bool {
        self.skip.is_none()
    }
}

/// What [`Pipeline::reload`](super::Pipeline::reload) did.
#[derive(Debug, Clone, PartialEq)]
pub struct Reload {
    /// The new table's generation.
    pub generation: u64,
    /// How many user hooks the new table holds.
    pub hooks: usize,
    /// Hooks dropped (an id a guard or an earlier hook already took), one issue each.
    pub issues: Vec<Issue>,
}
