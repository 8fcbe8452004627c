//! Building what a host builds for a dispatch: the loaded configuration, the pipeline with its receipt sink, and a
//! runtime to drive it. `hook run` and `hook test` share it, so both dispatch exactly as a host would.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use hook_config::{Config, LoadOptions};
use hook_middleware::otel::OtelExporter;
use hook_middleware::pipeline::UserTier;
use hook_middleware::receipts::FileSink;
use hook_middleware::{DispatchResult, EventInput, Pipeline};
use hook_types::Limits;

use crate::context::Context;
use crate::exit::one_line;
use crate::signals::{self, Outcome, Signals};

/// How to build the engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineOptions {
    /// `--trust-workspace`: trust the workspace's own hooks for this process only.
    pub trust_workspace: bool,
    /// Write receipts to the workspace's default log (`--no-receipts` turns this off).
    pub receipts: bool,
    /// Listen for SIGINT, SIGTERM and SIGHUP from before the configuration is loaded, not from the first supervised
    /// dispatch on: a signal during the load then stops that dispatch before it starts (`hook bridge`, which must
    /// answer the agent whenever it is stopped).
    pub signals_from_start: bool,
    /// How long the process waits, when it is done, for the `async: true` hooks still running before it cancels
    /// them (their groups killed, their receipts written): `None` waits until each ends by itself (each is bounded by
    /// its timeout), as `hook run` and the bridge's detached runner do.
    pub async_wait: Option<std::time::Duration>,
    /// Check the `async: true` hooks a dispatch matches but leave them to the caller to start
    /// ([`crate::background::hand_off`]): the bridge, which exits with its answer.
    pub hand_off_background: bool,
    /// Keep no session state even where receipts are written: the bridge's detached runner, whose dispatch is a
    /// second one of an event the bridge already answered (the notices it would mark as told reach nobody).
    pub stateless: bool,
    /// The invoking agent's own cap on turn_end continuations in a row, where it has one (`hook bridge`: Claude
    /// Code's Stop-loop cap, as its environment sets it): the pipeline's cap is the lower of it and the engine's.
    pub agent_continuation_cap: Option<u32>,
}

/// How long a process waits for its OpenTelemetry spans to be sent before it exits.
pub const OTEL_FLUSH: std::time::Duration = std::time::Duration::from_secs(2);

/// A loaded configuration and the pipeline built from it.
pub struct Engine {
    /// The configuration, after `--trust-workspace` if given, less its hooks: `config.hooks` is empty, the hooks
    /// having moved into `pipeline`.
    pub config: Config,
    /// The pipeline.
    pub pipeline: Pipeline,
    /// Where receipts go, if anywhere.
    pub receipts: Option<PathBuf>,
    runtime: tokio::runtime::Runtime,
    /// The signal handlers of [`Engine::dispatch_supervised`], installed at its first call.
    signals: std::cell::RefCell<Option<Signals>>,
    /// The OpenTelemetry exporter, when the `OTEL_EXPORTER_OTLP_*` variables ask for one.
    otel: Option<Arc<OtelExporter>>,
    async_wait: Option<std::time::Duration>,
    finished: std::cell::Cell<bool>,
}

impl Drop for Engine {
    /// No async hook outlives the process, and its spans are sent: [`Engine::finish`], if nobody called it.
    fn drop(&mut self) {
        self.finish();
    }
}

impl Engine {
    /// Loads the workspace and builds the pipeline: the loaded hooks as the user tier, the host's default limits,
    /// and a file sink at the default receipt path unless receipts are off.
    pub fn new(ctx: &Context, options: EngineOptions) -> Result<Engine> {
        Engine::new_keeping(ctx, options, |_| true)
    }

    /// [`Engine::new`] with only the loaded hooks `keep` accepts in the pipeline: `hook bridge` drops the hooks the
    /// invoking agent runs itself. Filtered before the pipeline is built, so it is built once. The closed gates stay
    /// closed: a declaration that cannot be read runs nowhere, in the agent or here.
    ///
    /// # Order
    ///
    /// 1. the async runtime, and the signal handlers where they listen from the start;
    /// 2. the workspace, loaded with the load cache where receipts are written, less the hooks `keep` refuses, with
    ///    a warning for error-level issues and for `--trust-workspace`;
    /// 3. the pipeline, with the session state and a receipt sink where receipts are written, and the OpenTelemetry
    ///    exporter where the environment asks for one.
    pub fn new_keeping(
        ctx: &Context,
        options: EngineOptions,
        keep: impl FnMut(&hook_config::LoadedHook) -> bool,
    ) -> Result<Engine> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        let signals = match options.signals_from_start {
            true => {
                let _entered = runtime.enter();
                Signals::new().map_err(|err| eprintln!("hook: warning: cannot listen for signals ({err})")).ok()
            }
            false => None,
        };
        let mut config = load(ctx, &options, keep)?;
        let (pipeline, receipts, otel) = pipeline(&mut config, &options, &ctx.layout)?;
        Ok(Engine {
            config,
            pipeline,
            receipts,
            runtime,
            signals: std::cell::RefCell::new(signals),
            otel,
            async_wait: options.async_wait,
            finished: std::cell::Cell::new(false),
        })
    }

    /// [`Engine::finish`] for a process that exits right after: the configuration, the pipeline and the runtime
    /// are then left to the operating system instead of being freed block by block (1.6 % of a bridge call's
    /// samples and 3 % of a `hook run`'s in a profile). Returns the async hooks it had to cancel.
    pub fn end(self) -> usize {
        let cancelled = self.finish();
        std::mem::forget(self);
        cancelled
    }

    /// What a process does before it exits: waits for its `async: true` hooks (up to
    /// [`EngineOptions::async_wait`], then cancels the rest, whose receipts say so) and sends its OpenTelemetry
    /// spans (up to [`OTEL_FLUSH`]). Returns the async hooks it had to cancel. Called again, it does nothing more.
    pub fn finish(&self) -> usize {
        if self.finished.replace(true) {
            return 0;
        }
        let limits = self.pipeline.limits();
        let whole = std::time::Duration::from_millis(limits.timeout_max_ms.saturating_add(limits.grace_ms));
        let bound = self.async_wait.unwrap_or(whole);
        let report = self.runtime.block_on(self.pipeline.finish_background(bound));
        if let Some(otel) = &self.otel {
            let stats = otel.shutdown(OTEL_FLUSH);
            if stats.dropped > 0 || stats.failed > 0 {
                eprintln!(
                    "hook: warning: OpenTelemetry: {} span(s) dropped (queue full), {} not delivered",
                    stats.dropped, stats.failed
                );
            }
        }
        report.cancelled
    }

    /// One dispatch, its diagnostics reported on stderr, stopped by SIGINT, SIGTERM or SIGHUP as the
    /// [`crate::signals`] module describes: `Err` carries the exit code to leave with, after every hook of the
    /// dispatch was stopped and reaped. The first call installs the handlers, unless
    /// [`EngineOptions::signals_from_start`] did (from then on these signals no longer end the process by themselves).
    pub fn dispatch_supervised(&self, input: &EventInput) -> Result<DispatchResult, u8> {
        self.dispatch_until_signal(input).map_err(signals::finish_interrupted)
    }

    /// [`Engine::dispatch_supervised`] that leaves the end to the caller: `Err` names the signal that stopped the
    /// dispatch, whose hooks were signalled and, after the grace, killed with it; what is left is for
    /// [`signals::stop_hooks`].
    pub fn dispatch_until_signal(&self, input: &EventInput) -> Result<DispatchResult, hook_exec::GroupSignal> {
        // Boxed: `block_on` keeps its future on this frame, which would make the frame ~40 KiB, every page of it
        // touched (docs/performance.md#the-process-start).
        let outcome = self.runtime.block_on(Box::pin(async {
            let taken = self.signals.borrow_mut().take();
            let mut listening = taken.or_else(|| {
                Signals::new().map_err(|err| eprintln!("hook: warning: cannot listen for signals ({err})")).ok()
            });
            let outcome = match listening.as_mut() {
                Some(signals) => signals::until_signal(signals, self.pipeline.dispatch(input)).await,
                None => Outcome::Finished(self.pipeline.dispatch(input).await),
            };
            *self.signals.borrow_mut() = listening;
            outcome
        }));
        match outcome {
            Outcome::Finished(result) => {
                self.report(&result);
                Ok(result)
            }
            Outcome::Interrupted(signal) => Err(signal),
        }
    }

    fn report(&self, result: &DispatchResult) {
        for diagnostic in &result.diagnostics {
            eprintln!("hook: warning: {}", one_line(diagnostic));
        }
    }
}

/// Tests only: a dispatch deadline in milliseconds below the default, so the deadlines that follow from it (the
/// bridge's answer deadline, the timer and timeout `hook install` writes) can be reached in a test. It can only
/// shorten: a deadline that fires sooner denies sooner, and turns no gate off.
pub const TEST_DEADLINE_VAR: &str = "HOOK_TEST_DISPATCH_DEADLINE_MS";

/// The workspace as the engine runs it: the load cache lives with the session state (a process that keeps state, a
/// bridge call or `hook run`, re-parses only the files that changed since the last; a rehearsal that writes no
/// receipts keeps no cache either); the hooks `keep` refuses are dropped; error-level issues and
/// `--trust-workspace` are announced on stderr.
fn load(ctx: &Context, options: &EngineOptions, keep: impl FnMut(&hook_config::LoadedHook) -> bool) -> Result<Config> {
    let cache_dir = if options.receipts { hook_config::default_load_cache_dir() } else { None };
    let load = LoadOptions { trust_workspace: options.trust_workspace, cache_dir, ..LoadOptions::default() };
    let mut config = ctx.load_with(&load)?;
    config.hooks.retain(keep);
    let errors = config.issues.iter().filter(|i| i.severity == hook_config::IssueSeverity::Error).count();
    if errors > 0 {
        // Lenient, as a host that runs what is valid: the dropped hooks do not run, the gates they were on deny,
        // and the user should know.
        let closed: Vec<String> = hook_config::GATES
            .iter()
            .filter(|gate| config.closed_gates.iter().any(|c| c.closes(gate)))
            .map(ToString::to_string)
            .collect();
        let closed = if closed.is_empty() {
            String::new()
        } else {
            format!(", and {} deny until they are fixed", closed.join(", "))
        };
        eprintln!(
            "hook: warning: {errors} error-level issue(s) in the hook configuration; what they concern does not \
             run{closed} (see `hook validate`)"
        );
    }
    if options.trust_workspace {
        eprintln!(
            "hook: --trust-workspace: trusting {} hook(s) of the workspace `{}` for this run only (in memory; \
             trusted.json is not written)",
            config.trusted_in_memory,
            crate::render::safe(&config.workspace.display().to_string())
        );
    }
    Ok(config)
}

/// The pipeline of `config`'s hooks, where its receipts go, and the OpenTelemetry exporter it hands dispatches to.
/// The hooks move out of `config` into the pipeline, which is all that reads them from here on: a copy of every hook
/// was 4 % of a bridge call at 10 000 hooks.
fn pipeline(
    config: &mut Config,
    options: &EngineOptions,
    layout: &hook_config::Layout,
) -> Result<(Pipeline, Option<PathBuf>, Option<Arc<OtelExporter>>)> {
    // One process per event: receipts are written on this thread, not on a thread made for them
    // (docs/performance.md#the-process-start).
    let tier = UserTier { hooks: std::mem::take(&mut config.hooks), closed_gates: config.closed_gates.clone() };
    let mut limits = limits();
    if let Some(cap) = options.agent_continuation_cap {
        limits.continuation_cap = limits.continuation_cap.min(cap);
    }
    let mut builder =
        Pipeline::builder().limits(limits).workspace(&config.workspace).user_hooks(tier).receipts_inline(true);
    // The guard protects itself: a fixed guard, before every user hook (docs/self-protection.md).
    // Only the managed file can turn it off (`self_protection: false`).
    if !config.self_protection_off {
        let protected = crate::protect::LazyProtected::new(layout, &config.workspace, layout.home.as_deref());
        builder = builder.fixed(crate::protect::registration(protected, layout.home.clone()));
    }
    // One process per event (a bridge call, a `hook run` in a script): the session's state lives on disk so the
    // continuation cap and the skipped-guard notices are the session's, not this process's. A rehearsal that
    // writes no receipts (`hook test`, `--no-receipts`) keeps no state either.
    builder = builder.hand_off_background(options.hand_off_background);
    if options.receipts
        && !options.stateless
        && let Some(dir) = hook_middleware::receipts::session_state_dir(&config.workspace)
    {
        builder = builder.session_state(dir);
    }
    let mut receipts = None;
    if options.receipts {
        match FileSink::for_workspace(&config.workspace) {
            Some(sink) => {
                receipts = Some(sink.path().to_path_buf());
                builder = builder.receipt_sink(Arc::new(sink));
            }
            None => eprintln!(
                "hook: warning: no receipts are written: neither $XDG_STATE_HOME nor $HOME is set (pass \
                 --no-receipts to silence this)"
            ),
        }
    }
    let otel = match OtelExporter::from_env() {
        Ok(otel) => otel.map(Arc::new),
        Err(err) => {
            eprintln!("hook: warning: OpenTelemetry export is off: {}", one_line(&err.to_string()));
            None
        }
    };
    if let Some(otel) = &otel {
        builder = builder.exporter(Arc::clone(otel) as Arc<dyn hook_middleware::export::DispatchExporter>);
    }
    let pipeline = builder.build().context("cannot build the pipeline")?;
    for issue in pipeline.issues() {
        eprintln!("hook: warning: {}", one_line(&issue.to_string()));
    }
    Ok((pipeline, receipts, otel))
}

/// The limits every command of the CLI runs and installs under: the defaults (and, in tests, a shorter dispatch
/// deadline from [`TEST_DEADLINE_VAR`]).
pub fn limits() -> Limits {
    let mut limits = Limits::default();
    let shorter = std::env::var(TEST_DEADLINE_VAR).ok().and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(ms) = shorter.filter(|ms| (1..limits.dispatch_deadline_ms).contains(ms)) {
        limits.dispatch_deadline_ms = ms;
    }
    limits
}
