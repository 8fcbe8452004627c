//! The pipeline (docs/embedding.md#build-the-pipeline): three registration tiers, routing, dispatch of one event, concurrency, the folds,
//! cancellation, and hot reload of the user tier.
//!
//! A host builds one [`Pipeline`] with [`Pipeline::builder`], keeps it for the session (it is cheap to clone and
//! `Send + Sync`), and calls [`Pipeline::dispatch`] for every lifecycle event. What happens in a dispatch:
//!
//! 1. The table is taken with one pointer load; a [`Pipeline::reload`] meanwhile does not affect this dispatch.
//! 2. The routing index picks the matching hooks (event, then tool name and aliases; regex matchers only among the
//!    hooks of that event). Nothing matching: the result is returned at once, without allocating and without
//!    cloning the input. Before that, a gate naming a tool its agent's table does not know while a `tools:`-scoped
//!    hook is on the event gets a notice, once per session (the `unknown_tool` module).
//! 3. The **guards** run first, one after another: the fixed tier, then the host tier. On a gate (and on
//!    permission_request) a guard's deny ends the dispatch there: no user hook starts (each is reported `skipped`).
//! 4. User hooks that may not run are reported: disabled and `only_managed` → `skipped`; untrusted or modified →
//!    `untrusted`.
//! 5. In-process user hooks (prompt and effect declarations) run in precedence order, each seeing the effects
//!    before it.
//! 6. Command hooks run concurrently (bounded by [`Limits::max_concurrency`], or one at a time in
//!    [`Concurrency::Sequential`]); `sequential: true` hooks wait for every lower-precedence hook. Before each run the
//!    hook's `cwd` and, for an origin that was not trusted in its load, its fingerprint are checked again (see
//!    [`command`](self)).
//! 7. Once a hook denies, every hook of lower precedence is cancelled (if still running) and its results discarded
//!    (status `cancelled` either way); hooks of higher precedence run to the end. The total deadline
//!    ([`Limits::dispatch_deadline_ms`]) cancels whatever still runs, and a gate then fails closed.
//! 8. Everything is folded in precedence order (see the fold module's policy), the winning `rewrite_tool_input`
//!    goes back through the guards, turn_end continuations are capped, every run leaves a receipt.
//!
//! ```
//! use hook_middleware::pipeline::{Evaluation, Pipeline, Registration};
//! use hook_middleware::EventInput;
//! use hook_types::{Event, Verdict};
//!
//! let workspace = tempfile::tempdir().unwrap();
//! let no_force_push = Registration::in_process("host.no-force-push", [Event::PreTool], |input: &EventInput, _: &[_]| {
//!     let command = input.tool_input.as_ref().and_then(|i| i["command"].as_str()).unwrap_or("");
//!     Ok(if command.contains("push --force") { Evaluation::deny("force pushes are off") } else { Evaluation::pass() })
//! })
//! .tools(["shell"]);
//! let pipeline = Pipeline::builder().workspace(workspace.path()).host(no_force_push).build().unwrap();
//!
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "git push --force"}));
//! let result = rt.block_on(pipeline.dispatch(&input));
//! assert_eq!(result.verdict, Verdict::Deny);
//! assert_eq!(result.reason.as_deref(), Some("force pushes are off"));
//! ```

mod background;
pub(crate) mod bounded;
mod closed;
mod command;
mod continuation;
mod dispatch;
mod env;
mod evaluated;
mod explain;
mod fold;
#[cfg(feature = "http")]
mod http;
mod inprocess;
#[cfg(all(test, any(not(feature = "policy"), not(feature = "http"))))]
mod missing_kinds;
mod policy;
mod preview;
mod record;
mod registration;
mod result;
mod routing;
mod schedule;
mod table;
mod unknown_tool;

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use hook_config::Issue;
use hook_exec::EnvPolicy;
use hook_types::Limits;

pub use background::{BackgroundReport, MAX_BACKGROUND};
pub use env::{BRIDGE_DEPTH_VAR, MAX_BRIDGE_DEPTH, Nesting, bridge_marker};
pub use evaluated::{EvaluationFuture, EvaluationRequest, HostEvaluator};
pub use explain::{Explanation, Mismatch};
pub use registration::{EvalError, Evaluate, Evaluation, Registration, Tier};
pub use result::{DispatchResult, Phase, PreviewEntry, Reload};
pub use table::{SkipReason, UserTier};

use crate::Budgets;
use crate::export::DispatchExporter;
use crate::receipts::{ReceiptSink, Sinks};
use background::Background;
use continuation::Sessions;
use table::{Guards, Table};

/// How the command hooks of one dispatch run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concurrency {
    /// Up to this many at once (never more than [`Limits::max_concurrency`]).
    Parallel(usize),
    /// One at a time, in precedence order.
    Sequential,
}

/// The error returned by [`PipelineBuilder::build`].
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// No workspace was given.
    #[error("no workspace: call `.workspace(dir)` on the builder (command hooks run there and stay inside it)")]
    NoWorkspace,
    /// The workspace cannot be resolved.
    #[error("workspace {}: cannot resolve it", .path.display())]
    Workspace {
        /// The workspace as given.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The workspace is not a directory.
    #[error("workspace {} is not a directory", .path.display())]
    NotADirectory {
        /// The workspace, resolved.
        path: PathBuf,
    },
    /// A registration id is not lowercase `[a-z0-9._-]+`.
    #[error("{tier} registration id `{id}` is invalid: expected lowercase letters, digits, `.`, `_` or `-`")]
    InvalidId {
        /// The id as given.
        id: String,
        /// Its tier.
        tier: Tier,
    },
    /// Two registrations share an id.
    #[error("registration id `{id}` is used twice (a {first} and a {second} registration); ids are one namespace")]
    DuplicateId {
        /// The id.
        id: String,
        /// The tier of the first one.
        first: Tier,
        /// The tier of the second one.
        second: Tier,
    },
    /// A registration listens to no event.
    #[error("{tier} registration `{id}` lists no event, so it would never run")]
    NoEvents {
        /// The id.
        id: String,
        /// Its tier.
        tier: Tier,
    },
    /// A limit that would make the pipeline unusable.
    #[error("limits: `{field}` {message}")]
    Limits {
        /// The field of [`Limits`].
        field: &'static str,
        /// What is wrong and what was expected.
        message: String,
    },
    /// `Concurrency::Parallel(0)`.
    #[error("concurrency: `Parallel(0)` would run no command hook; use `Parallel(n)` with n ≥ 1 or `Sequential`")]
    ZeroConcurrency,
}

/// What every dispatch of a pipeline shares.
pub(crate) struct Inner {
    table: RwLock<Arc<Table>>,
    /// Serializes reloads so generations are handed out in order.
    reloading: Mutex<()>,
    guards: Arc<Guards>,
    limits: Limits,
    /// Canonical.
    workspace: PathBuf,
    /// Shared with the blocking task that records a dispatch's receipts.
    sinks: Arc<Sinks>,
    budgets: Option<Budgets>,
    env_policy: EnvPolicy,
    permits: usize,
    sessions: Sessions,
    /// The host's answer to `kind: evaluated` hooks, if it has one.
    evaluator: Option<Arc<dyn HostEvaluator>>,
    /// Where finished dispatches are exported, if anywhere.
    exporter: Option<Arc<dyn DispatchExporter>>,
    /// The `async: true` hooks still running.
    background: Background,
    /// [`PipelineBuilder::hand_off_background`].
    hand_off_background: bool,
}

impl Inner {
    /// The current table: one pointer load (an `Arc` clone; no allocation).
    fn current(&self) -> Arc<Table> {
        Arc::clone(&self.table.read().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The hook pipeline of one workspace. Clone it freely: clones share the table, the sinks and the continuation
/// counts.
#[derive(Clone)]
pub struct Pipeline {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let table = self.inner.current();
        f.debug_struct("Pipeline")
            .field("workspace", &self.inner.workspace)
            .field("generation", &table.generation)
            .field("guards", &table.guards.list.len())
            .field("user_hooks", &table.user.len())
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// A builder; see [`PipelineBuilder`].
    pub fn builder() -> PipelineBuilder {
        PipelineBuilder::default()
    }

    /// Replaces the user tier as one unit. Dispatches already running keep the table they started with; the next
    /// dispatch uses the new one. A hook whose id a fixed or host registration (or an earlier hook) already took is
    /// dropped with an error-level issue. Pass the whole reloaded [`hook_config::Config`], so that the gates it left
    /// closed deny (see [`UserTier`]).
    ///
    /// ```
    /// use hook_middleware::pipeline::Pipeline;
    /// let workspace = tempfile::tempdir().unwrap();
    /// let pipeline = Pipeline::builder().workspace(workspace.path()).build().unwrap();
    /// assert_eq!(pipeline.generation(), 1);
    /// let reload = pipeline.reload(Vec::new());
    /// assert_eq!((reload.generation, pipeline.generation()), (2, 2));
    /// ```
    pub fn reload(&self, tier: impl Into<UserTier>) -> Reload {
        let _one_at_a_time = self.inner.reloading.lock().unwrap_or_else(|e| e.into_inner());
        let generation = self.inner.current().generation + 1;
        let table = Table::new(generation, Arc::clone(&self.inner.guards), tier.into());
        let reload = Reload { generation, hooks: table.user.len() - table.closed, issues: table.issues.clone() };
        *self.inner.table.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(table);
        reload
    }

    /// The current table's generation: 1 after `build`, one more per [`Pipeline::reload`].
    pub fn generation(&self) -> u64 {
        self.inner.current().generation
    }

    /// The issues of the current generation (user hooks dropped for an id that was already taken).
    pub fn issues(&self) -> Vec<Issue> {
        self.inner.current().issues.clone()
    }

    /// The host's limits this pipeline runs with.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// The workspace, canonical.
    pub fn workspace(&self) -> &std::path::Path {
        &self.inner.workspace
    }
}

/// Builds a [`Pipeline`].
///
/// # Order
///
/// The order of the calls does not matter, except among registrations of one tier, which run in the order they
/// were added. The order of a dispatch is fixed:
///
/// 1. `.fixed(..)` registrations, in the order added (the host's builtins);
/// 2. `.host(..)` registrations, in the order added;
/// 3. `.user_hooks(..)`: prompt and effect declarations in precedence order, then command declarations
///    concurrently, folded in precedence order; a gate the configuration left closed denies above all of them;
/// 4. the guards again, on an input a user hook rewrote.
///
/// Receipts go to every `.receipt_sink(..)` in the order added, after the dispatch's runs are folded, on Tokio's
/// blocking pool (a sink's file I/O never blocks a runtime worker); the dispatch returns once they are recorded.
///
/// ```
/// use std::sync::Arc;
/// use hook_middleware::pipeline::{Concurrency, Pipeline};
/// use hook_middleware::receipts::RingSink;
/// use hook_types::Limits;
///
/// let workspace = tempfile::tempdir().unwrap();
/// let ring = Arc::new(RingSink::new(1024));
/// let pipeline = Pipeline::builder()
///     .workspace(workspace.path())
///     .limits(Limits { dispatch_deadline_ms: 5_000, ..Limits::default() })
///     .concurrency(Concurrency::Parallel(4))
///     .env_policy(hook_exec::EnvPolicy::Deny(vec!["AWS_*".into()]))
///     .receipt_sink(ring)
///     .build()
///     .unwrap();
/// assert_eq!(pipeline.limits().dispatch_deadline_ms, 5_000);
/// ```
#[derive(Default)]
pub struct PipelineBuilder {
    limits: Limits,
    workspace: Option<PathBuf>,
    fixed: Vec<Registration>,
    host: Vec<Registration>,
    user: UserTier,
    sinks: Sinks,
    budgets: Option<Budgets>,
    env_policy: EnvPolicy,
    concurrency: Option<Concurrency>,
    session_state: Option<PathBuf>,
    hand_off_background: bool,
    evaluator: Option<Arc<dyn HostEvaluator>>,
    exporter: Option<Arc<dyn DispatchExporter>>,
}

impl std::fmt::Debug for PipelineBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineBuilder")
            .field("workspace", &self.workspace)
            .field("fixed", &self.fixed)
            .field("host", &self.host)
            .field("user_hooks", &self.user.hooks.len())
            .finish_non_exhaustive()
    }
}

impl PipelineBuilder {
    /// Keep what the pipeline remembers per session — the continuation count, which skipped guards the user was
    /// told about — in files under `dir`, one per session, locked, expired after a day. For a process that handles
    /// one event and exits (a bridge), so that the count is the session's, not the process's; without it the
    /// pipeline keeps it in memory. Use [`crate::receipts::session_state_dir`] for the default place.
    ///
    /// ```
    /// use hook_middleware::Pipeline;
    /// let workspace = tempfile::tempdir().unwrap();
    /// let state = tempfile::tempdir().unwrap();
    /// let pipeline = Pipeline::builder().workspace(workspace.path()).session_state(state.path()).build().unwrap();
    /// # let _ = pipeline;
    /// ```
    pub fn session_state(mut self, dir: impl Into<PathBuf>) -> Self {
        self.session_state = Some(dir.into());
        self
    }

    /// Check the `async: true` hooks a dispatch matches and list them in its result's
    /// [`background`](crate::DispatchResult::background), but leave starting them to the host (default: off, the
    /// pipeline starts them itself). For a process that must exit right after its answer, while its observers may
    /// take longer: `hook bridge` hands them to a detached runner that dispatches them again, where each is bounded
    /// and its receipt written. A hook the checks refuse is recorded in the dispatch as usual.
    ///
    /// ```
    /// use hook_middleware::Pipeline;
    /// let workspace = tempfile::tempdir().unwrap();
    /// let pipeline = Pipeline::builder().workspace(workspace.path()).hand_off_background(true).build().unwrap();
    /// assert_eq!(pipeline.background_running(), 0);
    /// ```
    pub fn hand_off_background(mut self, hand_off: bool) -> Self {
        self.hand_off_background = hand_off;
        self
    }

    /// The host's limits (default: [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The workspace: command hooks run there, their `cwd` must stay inside it. Required.
    pub fn workspace(mut self, workspace: impl Into<PathBuf>) -> Self {
        self.workspace = Some(workspace.into());
        self
    }

    /// Adds a registration to the fixed tier (the host's builtins, run first).
    pub fn fixed(mut self, registration: Registration) -> Self {
        self.fixed.push(registration);
        self
    }

    /// Adds a registration to the host tier (run after the fixed tier, before any user hook).
    pub fn host(mut self, registration: Registration) -> Self {
        self.host.push(registration);
        self
    }

    /// The user tier: the loaded configuration (`&config`), whose hooks run in precedence order and whose closed
    /// gates deny (see [`UserTier`]); or bare hooks. Replaces any earlier call.
    pub fn user_hooks(mut self, tier: impl Into<UserTier>) -> Self {
        self.user = tier.into();
        self
    }

    /// Adds a receipt sink; each gets every receipt. A sink's failure is one diagnostic per dispatch, never a
    /// failed dispatch.
    pub fn receipt_sink(mut self, sink: Arc<dyn ReceiptSink>) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Write receipts on the dispatching thread instead of Tokio's blocking pool (default: off): see
    /// [`Sinks::inline`](crate::receipts::Sinks::inline). For a process that handles one event and exits.
    ///
    /// ```
    /// use hook_middleware::Pipeline;
    /// let workspace = tempfile::tempdir().unwrap();
    /// let pipeline = Pipeline::builder().workspace(workspace.path()).receipts_inline(true).build().unwrap();
    /// # let _ = pipeline;
    /// ```
    pub fn receipts_inline(mut self, inline: bool) -> Self {
        self.sinks = std::mem::take(&mut self.sinks).inline(inline);
        self
    }

    /// The host's evaluator of `kind: evaluated` hooks (Claude Code's `type: "prompt"` and `"agent"`); without
    /// one they are reported `skipped` and their `on_error` applies (see [`HostEvaluator`]).
    pub fn evaluator(mut self, evaluator: Arc<dyn HostEvaluator>) -> Self {
        self.evaluator = Some(evaluator);
        self
    }

    /// Where each finished dispatch is exported (an OpenTelemetry exporter, with the `otel` feature); see
    /// [`DispatchExporter`]. An exporter never slows or fails a dispatch.
    pub fn exporter(mut self, exporter: Arc<dyn DispatchExporter>) -> Self {
        self.exporter = Some(exporter);
        self
    }

    /// Per-event soft time budgets; a steadily slow event becomes a diagnostic (default: none).
    pub fn budgets(mut self, budgets: Budgets) -> Self {
        self.budgets = Some(budgets);
        self
    }

    /// Which of the host's environment variables command hooks see (default: all).
    pub fn env_policy(mut self, policy: EnvPolicy) -> Self {
        self.env_policy = policy;
        self
    }

    /// How command hooks run (default: `Parallel(limits.max_concurrency)`).
    pub fn concurrency(mut self, concurrency: Concurrency) -> Self {
        self.concurrency = Some(concurrency);
        self
    }

    /// Checks everything and builds the pipeline at generation 1.
    ///
    /// # Errors
    /// No workspace or one that is not a directory; a registration id that is invalid, listed twice or without
    /// events; limits that would make every dispatch fail ([`BuildError`] names which).
    pub fn build(self) -> Result<Pipeline, BuildError> {
        let given = self.workspace.ok_or(BuildError::NoWorkspace)?;
        let workspace =
            hook_config::canonicalize(&given).map_err(|source| BuildError::Workspace { path: given, source })?;
        if !workspace.is_dir() {
            return Err(BuildError::NotADirectory { path: workspace });
        }
        check_limits(&self.limits)?;
        let permits = match self.concurrency.unwrap_or(Concurrency::Parallel(self.limits.max_concurrency)) {
            Concurrency::Parallel(0) => return Err(BuildError::ZeroConcurrency),
            Concurrency::Parallel(n) => n.min(self.limits.max_concurrency),
            Concurrency::Sequential => 1,
        };
        let mut seen: Vec<(&str, Tier)> = Vec::new();
        for (tier, registration) in
            self.fixed.iter().map(|r| (Tier::Fixed, r)).chain(self.host.iter().map(|r| (Tier::Host, r)))
        {
            let id = registration.id.as_str();
            if id.is_empty() || !id.bytes().all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-')) {
                return Err(BuildError::InvalidId { id: id.to_owned(), tier });
            }
            if registration.events.is_empty() {
                return Err(BuildError::NoEvents { id: id.to_owned(), tier });
            }
            if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == id) {
                return Err(BuildError::DuplicateId { id: id.to_owned(), first: *first, second: tier });
            }
            seen.push((id, tier));
        }
        let guards = Arc::new(Guards::new(self.fixed, self.host));
        let table = Table::new(1, Arc::clone(&guards), self.user);
        Ok(Pipeline {
            inner: Arc::new(Inner {
                table: RwLock::new(Arc::new(table)),
                reloading: Mutex::new(()),
                guards,
                limits: self.limits,
                workspace,
                sinks: Arc::new(self.sinks),
                budgets: self.budgets,
                env_policy: self.env_policy,
                permits,
                sessions: self.session_state.map(Sessions::in_dir).unwrap_or_default(),
                evaluator: self.evaluator,
                exporter: self.exporter,
                background: Background::default(),
                hand_off_background: self.hand_off_background,
            }),
        })
    }
}

fn check_limits(limits: &Limits) -> Result<(), BuildError> {
    let bad = |field, message: &str| Err(BuildError::Limits { field, message: message.to_owned() });
    if limits.max_concurrency == 0 {
        return bad("max_concurrency", "is 0: no command hook could run; expected at least 1");
    }
    if limits.dispatch_deadline_ms == 0 {
        return bad("dispatch_deadline_ms", "is 0: every dispatch would be cancelled at once; expected at least 1");
    }
    if limits.evaluation_memory_bytes == 0 {
        return bad("evaluation_memory_bytes", "is 0: every policy evaluation would be stopped at once; expected more");
    }
    if limits.timeout_min_ms > limits.timeout_max_ms {
        return bad("timeout_min_ms", "is above `timeout_max_ms`; expected min ≤ max");
    }
    Ok(())
}
