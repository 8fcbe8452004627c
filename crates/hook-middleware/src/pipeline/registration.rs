//! Registrations coded by the host: the **fixed** tier (the host's builtins) and the **host** tier (appended by the
//! host), together the host's *guards*. A registration is either an in-process [`Evaluate`] or a command run.
//!
//! User hooks are not registrations: they arrive as [`hook_config::LoadedHook`]s through
//! [`PipelineBuilder::user_hooks`](super::PipelineBuilder::user_hooks) and [`Pipeline::reload`](super::Pipeline::reload).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use hook_config::{AsMode, Matcher};
use hook_types::{Decision, Effect, Event, OnError, Protocol, Scope};

use crate::EventInput;

/// Which registration tier a hook belongs to. The three tiers share one id namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// The host's builtins: run first.
    Fixed,
    /// Registrations the host appends: run after the fixed tier, before every user hook.
    Host,
    /// Declarations loaded from files, replaced as one unit by [`Pipeline::reload`](super::Pipeline::reload).
    User,
}

impl Tier {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Fixed => "fixed",
            Tier::Host => "host",
            Tier::User => "user",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an in-process registration answers: effects, plus an optional decision.
///
/// Without a decision, one is read from the effects: `block_tool`, `block_turn` or (on a gate) `halt` deny,
/// `ask_user` asks, `allow_tool` allows; anything else passes. A guard denies through either.
///
/// ```
/// use hook_middleware::pipeline::Evaluation;
/// use hook_types::{Decision, Effect};
/// let deny = Evaluation::deny("writes outside the workspace");
/// assert!(matches!(deny.decision, Some(Decision::Deny { .. })));
/// let note = Evaluation::effects(vec![Effect::NotifyOperator { message: "seen".into(), key: "k".into() }]);
/// assert!(note.decision.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    /// Effects, in the order the host should apply them.
    pub effects: Vec<Effect>,
    /// The registration's decision; `None` reads it from the effects.
    pub decision: Option<Decision>,
}

impl Evaluation {
    /// No effect, no decision.
    pub fn pass() -> Self {
        Evaluation::default()
    }

    /// These effects; the decision is read from them.
    pub fn effects(effects: Vec<Effect>) -> Self {
        Evaluation { effects, decision: None }
    }

    /// A deny with this reason; the dispatch's verdict carries it (no effect is added).
    pub fn deny(reason: impl Into<String>) -> Self {
        Evaluation { effects: Vec::new(), decision: Some(Decision::Deny { reason: reason.into() }) }
    }

    /// Sets the decision.
    pub fn with_decision(mut self, decision: Decision) -> Self {
        self.decision = Some(decision);
        self
    }
}

/// The error an in-process registration returns when it cannot evaluate: reported as an Error entry, then the
/// registration's failure policy applies (see [`Registration::on_error`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    message: String,
}

impl EvalError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        EvalError { message: message.into() }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// An in-process hook: synchronous, called on the dispatching task, so it must be quick and must not block.
///
/// `prior_effects` are the effects of every hook that ran before it in this dispatch, in order. A panic is caught
/// and reported like an error; it never reaches the host.
///
/// Closures implement it:
///
/// ```
/// use hook_middleware::pipeline::{EvalError, Evaluate, Evaluation};
/// use hook_middleware::EventInput;
/// use hook_types::{Effect, Event};
/// let guard = |input: &EventInput, _prior: &[Effect]| -> Result<Evaluation, EvalError> {
///     let command = input.tool_input.as_ref().and_then(|i| i["command"].as_str()).unwrap_or("");
///     Ok(if command.contains("rm -rf /") { Evaluation::deny("refusing rm -rf /") } else { Evaluation::pass() })
/// };
/// let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "ls"}));
/// assert_eq!(guard.evaluate(&input, &[]).unwrap(), Evaluation::pass());
/// ```
pub trait Evaluate: Send + Sync + 'static {
    /// Evaluates one dispatch.
    fn evaluate(&self, input: &EventInput, prior_effects: &[Effect]) -> Result<Evaluation, EvalError>;
}

impl<F> Evaluate for F
where
    F: Fn(&EventInput, &[Effect]) -> Result<Evaluation, EvalError> + Send + Sync + 'static,
{
    fn evaluate(&self, input: &EventInput, prior_effects: &[Effect]) -> Result<Evaluation, EvalError> {
        self(input, prior_effects)
    }
}

/// The declaration filters a hook or registration applies on top of its events (docs/declarations.md).
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    /// Tool names (tool events only): canonical names match every agent's spelling of the tool.
    pub tools: Option<Vec<String>>,
    /// Whose spelling of tool names `matcher` is written in: a Claude-protocol matcher `Bash` matches Gemini CLI's
    /// `run_shell_command`, since both are the canonical `shell`.
    pub protocol: Protocol,
    /// Matched against the event's own field (tool name, `source`, `trigger`).
    pub matcher: Option<Matcher>,
    /// A permission rule the tool call must match (tool events only).
    pub condition: Option<hook_config::PermissionRule>,
    /// Patterns over the commands a shell call runs (`command:`), and what a line not read means.
    pub command: Option<hook_config::CommandMatcher>,
    /// post_tool only: fire only for failed calls.
    pub only_errors: bool,
    /// turn_end only: main run, subagents, or both.
    pub scope: Scope,
}

/// A command a registration runs.
#[derive(Debug, Clone)]
pub(crate) struct CommandAction {
    /// What to run; its stdin is replaced by the payload and the pipeline's variables are added to its environment.
    pub invocation: hook_exec::Invocation,
    /// The timeout, before the host's `Limits` clamp.
    pub timeout: Duration,
    /// Whose output rules the command follows.
    pub protocol: Protocol,
    /// What plain stdout becomes; `None` is the event's default.
    pub as_mode: Option<AsMode>,
}

/// What a registration does.
#[derive(Clone)]
pub(crate) enum Action {
    /// Called in process.
    InProcess(Arc<dyn Evaluate>),
    /// Run as a subprocess through `hook-exec`.
    Command(CommandAction),
}

/// One hook coded by the host, for the fixed or host tier: an id, the events it listens to, filters, and an
/// in-process [`Evaluate`] or a command.
///
/// ```
/// use std::time::Duration;
/// use hook_middleware::pipeline::{Evaluation, Registration};
/// use hook_types::{Event, Protocol};
///
/// let guard = Registration::in_process("host.no-secrets", [Event::PreTool], |_: &_, _: &[_]| Ok(Evaluation::pass()))
///     .tools(["shell", "write"]);
/// let audit = Registration::command(
///     "host.audit",
///     [Event::PostTool],
///     hook_exec::Invocation::argv(["logger", "-t", "agent"]),
///     Duration::from_secs(2),
///     Protocol::Native,
/// );
/// assert_eq!((guard.id(), audit.id()), ("host.no-secrets", "host.audit"));
/// ```
#[derive(Clone)]
pub struct Registration {
    pub(crate) id: String,
    pub(crate) events: Vec<Event>,
    pub(crate) filter: Filter,
    pub(crate) source: Option<String>,
    pub(crate) on_error: Option<OnError>,
    pub(crate) action: Action,
    pub(crate) quiet_pass: bool,
}

impl Registration {
    /// An in-process registration.
    pub fn in_process(id: impl Into<String>, events: impl IntoIterator<Item = Event>, evaluate: impl Evaluate) -> Self {
        Registration {
            id: id.into(),
            events: events.into_iter().collect(),
            filter: Filter::default(),
            source: None,
            on_error: None,
            quiet_pass: false,
            action: Action::InProcess(Arc::new(evaluate)),
        }
    }

    /// A command registration: `invocation` gets the event payload on stdin (in `protocol`'s shape) and the
    /// pipeline's variables in its environment; its output is read by `protocol`'s rules.
    pub fn command(
        id: impl Into<String>,
        events: impl IntoIterator<Item = Event>,
        invocation: hook_exec::Invocation,
        timeout: Duration,
        protocol: Protocol,
    ) -> Self {
        Registration {
            id: id.into(),
            events: events.into_iter().collect(),
            filter: Filter::default(),
            source: None,
            on_error: None,
            quiet_pass: false,
            action: Action::Command(CommandAction { invocation, timeout, protocol, as_mode: None }),
        }
    }

    /// Fires only for these exact tool names (tool events only); any of the dispatch's tool aliases may match.
    pub fn tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.filter.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Fires only when the matcher accepts the event's own field (tool name, session_start `source`, compaction
    /// `trigger`).
    pub fn matcher(mut self, matcher: Matcher) -> Self {
        self.filter.matcher = Some(matcher);
        self
    }

    /// post_tool: fires only for failed calls.
    pub fn only_errors(mut self, only_errors: bool) -> Self {
        self.filter.only_errors = only_errors;
        self
    }

    /// turn_end: which runs it fires for (default: the main run only).
    pub fn scope(mut self, scope: Scope) -> Self {
        self.filter.scope = scope;
        self
    }

    /// The name shown as the run summary's and receipt's `source` (default: the tier's name).
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// What a failure (a panic, an error, an invalid effect, a failed command) turns into. Default: the event's
    /// own policy (gates deny, everything else ignores); for a command, its protocol's.
    pub fn on_error(mut self, on_error: OnError) -> Self {
        self.on_error = Some(on_error);
        self
    }

    /// For a command registration: what plain stdout on exit 0 becomes (default: the event's).
    pub fn as_mode(mut self, as_mode: AsMode) -> Self {
        if let Action::Command(command) = &mut self.action {
            command.as_mode = Some(as_mode);
        }
        self
    }

    /// Leaves no run in the result, the receipts or the spans when the registration passes with nothing to say (no
    /// effect, no entry, no error): a built-in guard consulted on every call (the `hook` CLI's self-protection) is
    /// then seen only when it acts. Every ask, deny, effect or failure is recorded as usual.
    ///
    /// ```
    /// use hook_middleware::pipeline::{Evaluation, Registration};
    /// use hook_types::Event;
    /// let guard = Registration::in_process("host.quiet", [Event::PreTool], |_: &_, _: &[_]| Ok(Evaluation::pass()))
    ///     .quiet_when_passing(true);
    /// assert_eq!(guard.id(), "host.quiet");
    /// ```
    pub fn quiet_when_passing(mut self, quiet: bool) -> Self {
        self.quiet_pass = quiet;
        self
    }

    /// The registration's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The events it listens to.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Whether it runs in process (otherwise it runs a command).
    pub fn is_in_process(&self) -> bool {
        matches!(self.action, Action::InProcess(_))
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.action {
            Action::InProcess(_) => "in_process",
            Action::Command(_) => "command",
        };
        f.debug_struct("Registration")
            .field("id", &self.id)
            .field("events", &self.events)
            .field("kind", &kind)
            .field("filter", &self.filter)
            .finish_non_exhaustive()
    }
}
