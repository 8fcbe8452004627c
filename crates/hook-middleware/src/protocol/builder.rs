//! What each kind of answer means on each event, shared by every protocol: a block, a halt, context, a failure.
//! The protocol-specific parts (which words a hook may use, which fields it may send) are in `json` and `rules`.

use hook_types::{
    AnnotationSeverity, Decision, Effect, EntryKind, Event, EventClass, OnError, OutputEntry, RunStatus, Severity,
};
use sha2::{Digest, Sha256};

use super::classify::Failure;
use super::rules::Rules;
use super::{HookRules, Interpretation, sanitize_text};
use crate::EventInput;

/// Where a block came from: Codex records a post_tool exit 2 as completed feedback but a `decision: block` as
/// blocked (codex-rs/hooks/src/events/post_tool_use.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockFrom {
    /// The blocking exit code.
    Exit,
    /// A JSON answer.
    Json,
}

/// Accumulates one run's interpretation.
pub(crate) struct Builder<'h> {
    pub hook: &'h HookRules<'h>,
    pub event: &'h Event,
    pub rules: &'static Rules,
    /// The tool input of the dispatch, for rewrites that merge into it (Gemini CLI).
    pub tool_input: Option<&'h serde_json::Map<String, serde_json::Value>>,
    /// The dispatch is of a failed tool call (post_tool).
    pub is_error: bool,
    effects: Vec<Effect>,
    decision: Decision,
    entries: Vec<OutputEntry>,
    /// Entries that survive a failure (truncation and runner warnings come first).
    kept: usize,
    blocked: bool,
    failure: Option<Failure>,
    pub suppress_output: bool,
    /// This engine decided more strictly than the hook's agent would have (it denies where the agent lets the tool
    /// run): the hook's own answer must not be handed back to the agent as it is.
    stricter: bool,
}

impl<'h> Builder<'h> {
    pub(crate) fn new(hook: &'h HookRules<'h>, input: &'h EventInput, rules: &'static Rules) -> Self {
        Builder {
            hook,
            event: &input.event,
            rules,
            tool_input: input.tool_input.as_ref().and_then(serde_json::Value::as_object),
            is_error: input.is_error,
            effects: Vec::new(),
            decision: Decision::Pass,
            entries: Vec::new(),
            kept: 0,
            blocked: false,
            failure: None,
            suppress_output: false,
            stricter: false,
        }
    }

    /// Marks the run as one this engine holds more strictly than the hook's agent does.
    pub(crate) fn stricter(&mut self) {
        self.stricter = true;
    }

    /// Whether a gate or the permission request ended in a deny.
    pub(crate) fn denies(&self) -> bool {
        matches!(self.decision, Decision::Deny { .. })
    }

    /// An entry that stays even if the run turns out to be a failure (truncation, runner warnings).
    pub(crate) fn warning(&mut self, text: String) {
        self.entries.insert(self.kept, OutputEntry::new(EntryKind::Warning, text));
        self.kept += 1;
    }

    pub(crate) fn entry(&mut self, kind: EntryKind, text: String) {
        self.entries.push(OutputEntry::new(kind, text));
    }

    /// The reason a block without one shows.
    pub(crate) fn default_reason(&self) -> String {
        format!("blocked by hook `{}`", self.hook.hook_id)
    }

    fn can_deny(&self) -> bool {
        matches!(self.event, Event::PreTool | Event::TurnStart | Event::PermissionRequest)
    }

    /// Records a decision; a stronger one replaces a weaker one (deny > ask > allow > pass) and the first of equal
    /// strength keeps its reason.
    pub(crate) fn decide(&mut self, decision: Decision) {
        fn rank(d: &Decision) -> u8 {
            match d {
                Decision::Pass => 0,
                Decision::Allow { .. } => 1,
                Decision::Ask { .. } => 2,
                Decision::Deny { .. } => 3,
            }
        }
        if rank(&decision) > rank(&self.decision) {
            self.decision = decision;
        }
    }

    /// Adds an effect the hook asked for, with the decision and entry it implies. The caller has checked
    /// `valid_on`.
    pub(crate) fn effect(&mut self, effect: Effect) {
        match &effect {
            Effect::BlockTool { reason, .. } | Effect::BlockTurn { reason } => {
                self.decide(Decision::Deny { reason: reason.clone() });
                self.entry(EntryKind::Feedback, reason.clone());
            }
            Effect::Halt { reason } => {
                if self.event.class() == EventClass::Gate {
                    self.decide(Decision::Deny { reason: reason.clone() });
                }
                self.entry(EntryKind::Feedback, reason.clone());
            }
            Effect::AllowTool { reason } => self.decide(Decision::Allow { reason: reason.clone() }),
            Effect::AskUser { reason } => self.decide(Decision::Ask { reason: reason.clone() }),
            Effect::InjectReminder { message, .. } | Effect::AnnotateToolResult { message, .. } => {
                self.entry(EntryKind::Context, message.clone());
            }
            Effect::RequestContinuation { message } => self.entry(EntryKind::Feedback, message.clone()),
            _ => {}
        }
        self.effects.push(effect);
    }

    /// A deny or block, in the event's own terms: a deny on the gates and the permission request (with the
    /// `block_tool` / `block_turn` effect that carries its reason), a continuation on turn_end (Claude's "prevents
    /// stopping"), feedback to the model on post_tool where the protocol feeds it back, the hook's recorded answer
    /// on a foreign event, a Feedback entry elsewhere.
    pub(crate) fn block(&mut self, reason: String, from: BlockFrom) {
        match self.event {
            Event::PreTool | Event::PermissionRequest => {
                self.effect(Effect::BlockTool { reason, severity: Default::default() })
            }
            Event::TurnStart => self.effect(Effect::BlockTurn { reason }),
            Event::TurnEnd => self.effect(Effect::RequestContinuation { message: reason }),
            Event::PostTool if self.rules.block_annotates_post_tool => {
                self.blocked |= from == BlockFrom::Json;
                self.effects
                    .push(Effect::AnnotateToolResult { message: reason.clone(), severity: AnnotationSeverity::Warn });
                self.entry(EntryKind::Feedback, reason);
            }
            // A foreign event's verdict here is pass, but the hook's own answer is kept (status `blocked`, the reason
            // in a Feedback entry) for the bridge, which folds those answers by the agent's rule (docs/events.md#other-agents-events).
            Event::Foreign(_) => {
                self.blocked = true;
                self.entry(EntryKind::Feedback, reason);
            }
            _ => self.entry(EntryKind::Feedback, reason),
        }
    }

    /// An explicit allow: meaningful on pre_tool and the permission request only.
    pub(crate) fn allow(&mut self, reason: Option<String>) {
        if matches!(self.event, Event::PreTool | Event::PermissionRequest) {
            self.effect(Effect::AllowTool { reason });
        }
    }

    /// Ask the human: meaningful on pre_tool; on a permission request the human is asked anyway (no decision).
    pub(crate) fn ask(&mut self, reason: Option<String>) {
        if *self.event == Event::PreTool {
            self.effect(Effect::AskUser { reason });
        }
    }

    /// `continue: false`: stop the agent's run after this event; on a gate it also denies.
    pub(crate) fn halt(&mut self, reason: Option<String>) {
        let reason = reason.unwrap_or_else(|| format!("stopped by hook `{}`", self.hook.hook_id));
        let halt = Effect::Halt { reason };
        if *self.event == Event::PreTool && self.rules.halt_runs_the_tool {
            self.stricter();
        }
        if halt.valid_on(self.event) {
            self.effect(halt);
        } else {
            self.entry(EntryKind::Warning, format!("`continue: false` has no effect on {}", self.event));
        }
    }

    /// Text for the model: an `inject_reminder` where the event takes one, a Feedback entry where it cannot
    /// (session_end, foreign events).
    pub(crate) fn context(&mut self, message: String) {
        if *self.event == Event::PostTool && self.rules.context_annotates_post_tool {
            return self.annotate(message, AnnotationSeverity::Info);
        }
        if *self.event == Event::TurnEnd && self.rules.context_continues_turn {
            return self.effect(Effect::RequestContinuation { message });
        }
        let effect = Effect::InjectReminder { message, severity: Severity::Info };
        if effect.valid_on(self.event) {
            self.effect(effect);
        } else if let Effect::InjectReminder { message, .. } = effect {
            self.entry(EntryKind::Feedback, message);
        }
    }

    /// A note on the tool result where there is one (post_tool), context elsewhere.
    pub(crate) fn annotate(&mut self, message: String, severity: AnnotationSeverity) {
        if *self.event == Event::PostTool {
            self.effect(Effect::AnnotateToolResult { message, severity });
        } else {
            self.context(message);
        }
    }

    /// A message for the operator (not the model). The key is the hook id plus a digest of the message, so the same
    /// notice from the same hook de-duplicates while different notices do not.
    pub(crate) fn notify(&mut self, message: String) {
        let digest = Sha256::digest(message.as_bytes());
        let key = format!("{}:{}", self.hook.hook_id, &hex::encode(digest)[..12]);
        self.effects.push(Effect::NotifyOperator { message, key });
    }

    /// A hook-supplied `rewrite_tool_input` (pre_tool and permission_request only; callers check the event).
    pub(crate) fn rewrite(&mut self, input: serde_json::Map<String, serde_json::Value>) {
        self.effect(Effect::RewriteToolInput { input });
    }

    /// The run is a failure: whatever was read so far is dropped, an Error entry names the failure, and
    /// `on_error: deny` on an event that can deny turns it into a deny naming the failure (the status stays
    /// `failed` / `timed_out`).
    pub(crate) fn fail(&mut self, failure: Failure, stderr: Option<String>) {
        self.effects.clear();
        self.entries.truncate(self.kept);
        self.decision = Decision::Pass;
        self.blocked = false;
        self.suppress_output = false;
        // A failure's message can quote what the hook wrote (an unknown effect kind, a JSON error's excerpt): it is
        // hook text, and is sanitized like every other before it becomes an entry or a deny's reason.
        let reason = sanitize_text(&failure.reason(self.hook.hook_id));
        let text = match stderr.filter(|_| failure.ran()) {
            Some(stderr) => format!("{reason}; stderr: {stderr}"),
            None => reason.clone(),
        };
        self.entry(EntryKind::Error, text);
        if self.hook.on_error == OnError::Deny && self.can_deny() {
            self.decision = Decision::Deny { reason };
            // The agents this engine answers for let a failed hook's tool run.
            self.stricter();
        }
        self.failure = Some(failure);
    }

    /// Whether the run's answer may be handed back to the agent as it is (see [`Interpretation::replay`]): no
    /// stricter decision, no warning of the runner (truncation, a stray descendant) and, after a failure, one the
    /// agent sees the same way (the hook exited with a code).
    pub(crate) fn replayable(&self) -> bool {
        let exited = !matches!(
            self.failure,
            Some(Failure::Spawn(_) | Failure::TimedOut { .. } | Failure::Signal(_) | Failure::NoStatus)
        );
        !self.stricter && self.kept == 0 && exited
    }

    pub(crate) fn finish(mut self) -> Interpretation {
        let status = match &self.failure {
            Some(failure) if failure.is_timeout() => RunStatus::TimedOut,
            Some(_) => RunStatus::Failed,
            None => {
                if matches!(self.decision, Decision::Deny { .. }) {
                    // A deny drops every rewrite and allow of the same hook (docs/effects.md#conflicts).
                    self.effects.retain(|e| !matches!(e, Effect::AllowTool { .. } | Effect::RewriteToolInput { .. }));
                }
                let continues = self.effects.iter().any(|e| matches!(e, Effect::RequestContinuation { .. }));
                if self.blocked || continues || matches!(self.decision, Decision::Deny { .. }) {
                    RunStatus::Blocked
                } else {
                    RunStatus::Completed
                }
            }
        };
        Interpretation {
            status,
            effects: self.effects,
            decision: self.decision,
            entries: self.entries,
            suppress_output: self.suppress_output,
            replay: None,
        }
    }
}
