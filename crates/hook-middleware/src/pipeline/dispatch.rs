//! One dispatch: guards, user hooks (in process, then commands), cancellation, fold, re-check, receipts.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use hook_config::HookSpec;
use hook_types::{Decision, Effect, EntryKind, Event, EventClass, HookKind, RunStatus, Verdict};
use tokio::sync::SemaphorePermit;
use tokio::time::Instant;
use tracing::Instrument;

use super::background::{Launch, MAX_BACKGROUND};
use super::command::{self, Payloads, RunContext};
use super::continuation::StateAccess;
use super::evaluated;
use super::fold;
use super::inprocess;
use super::record::{Cancel, Meta, Record};
use super::registration::Action;
use super::result::{DispatchResult, deny_decides};
use super::routing::{Probe, Routable};
use super::schedule::{Coordinator, HookFuture, join_into};
use super::table::{Guard, SkipReason, Table, UserHook};
use super::{Inner, Pipeline};
use crate::export::{ExportedDispatch, ExportedRun};
use crate::{EventInput, spans};

/// How long past the dispatch deadline the runs it cancelled get to be killed and reaped before their futures are
/// dropped (which kills their process groups synchronously but loses their results).
const BACKSTOP: Duration = Duration::from_secs(1);

impl Pipeline {
    /// Runs every hook that matches `input` and folds their answers (see the [module docs](super)).
    ///
    /// Never panics (a panicking in-process hook is caught), never returns an error (failures are run statuses,
    /// entries and diagnostics), and returns within [`Limits::dispatch_deadline_ms`](hook_types::Limits) plus the
    /// time to kill what still runs — provided the host's own in-process registrations return promptly, since they
    /// run on this task, and so do its receipt sinks: they run on Tokio's blocking pool, so their I/O never holds up
    /// a runtime worker, but the dispatch waits for them, so every receipt is recorded when it returns. Must be
    /// awaited inside a Tokio runtime with IO and time enabled.
    ///
    /// ```
    /// use hook_middleware::pipeline::Pipeline;
    /// use hook_middleware::EventInput;
    /// use hook_types::{Event, Verdict};
    /// let workspace = tempfile::tempdir().unwrap();
    /// let pipeline = Pipeline::builder().workspace(workspace.path()).build().unwrap();
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let result = rt.block_on(pipeline.dispatch(&EventInput::new(Event::TurnStart)));
    /// assert_eq!(result.verdict, Verdict::Pass);
    /// assert!(result.runs.is_empty());
    /// ```
    pub async fn dispatch(&self, input: &EventInput) -> DispatchResult {
        let inner = &*self.inner;
        let table = inner.current();
        let mut state = StateAccess::new(&inner.limits);
        if input.event == Event::TurnStart {
            inner.sessions.turn_started(input.session_id.as_deref(), input.prompt.as_deref(), &mut state);
        }
        let unknown_tool = super::unknown_tool::notice(&table, &inner.sessions, input, &mut state);
        let probe = Probe::of(input).within(&inner.workspace);
        let guards = &table.guards;
        let session_start_notice = input.event == Event::SessionStart && table.user.iter().any(|h| h.skip.is_some());
        if !guards.index.any_match(&guards.list, &probe)
            && !table.user_index.any_match(&table.user, &probe)
            && !session_start_notice
        {
            let mut nothing = DispatchResult::nothing(&input.event);
            nothing.generation = table.generation;
            nothing.notices.extend(unknown_tool);
            state.settle(&input.event, &mut nothing);
            return nothing;
        }
        let span = spans::dispatch_span(input);
        let started = std::time::Instant::now();
        let dispatch = Dispatch {
            inner,
            table: &table,
            input,
            deadline: Instant::now() + Duration::from_millis(inner.limits.dispatch_deadline_ms),
            diagnostics: Vec::new(),
            state,
            notices: unknown_tool.into_iter().collect(),
            started: (std::time::SystemTime::now(), started),
            background: Vec::new(),
        };
        // The dispatch's futures are boxed where they nest (here, the guards, the user hooks, each command run):
        // built in place on the stack, a state machine of tens of kilobytes makes each frame that polls or moves it
        // that large, and every page of such a frame is touched (faulted in) on entry; on the heap only what is
        // written is.
        let mut result = Box::pin(dispatch.run()).instrument(span.clone()).await;
        let elapsed = started.elapsed();
        spans::record_dispatch(&span, result.verdict, result.runs.len(), elapsed);
        if let Some(diagnostic) = inner.budgets.as_ref().and_then(|b| b.observe(&input.event, elapsed)) {
            result.diagnostics.push(diagnostic.to_string());
        }
        result
    }
}

struct Dispatch<'a> {
    inner: &'a Inner,
    table: &'a Table,
    input: &'a EventInput,
    deadline: Instant,
    diagnostics: Vec<String>,
    /// This dispatch's use of the session state: a gate whose state was locked by another process denies.
    state: StateAccess,
    notices: Vec<String>,
    /// When the dispatch started (wall clock, for an exporter; monotonic, for its duration).
    started: (std::time::SystemTime, std::time::Instant),
    /// The ids of the `async: true` hooks it started.
    background: Vec<String>,
}

/// What the dispatch answers so far: the folded verdict and its reason, which the re-check of a rewrite, the deadline
/// and the session state may still change.
struct Answer {
    verdict: Verdict,
    reason: Option<String>,
}

impl Answer {
    fn deny(&mut self, reason: Option<String>) {
        self.verdict = Verdict::Deny;
        self.reason = reason;
    }
}

impl Dispatch<'_> {
    /// One dispatch, steps 3 to 8 of the [module docs](super).
    ///
    /// # Order
    ///
    /// 1. the guards, one after another;
    /// 2. the user hooks, unless a guard's deny decides;
    /// 3. the fold of every run, in precedence order;
    /// 4. the winning rewrite of the tool input, back through the guards;
    /// 5. the deadline: the hooks it cancelled are named, and a gate fails closed;
    /// 6. the effects, turn_end continuations capped;
    /// 7. the records closed: spans, receipts, notices of the hooks that did not run;
    /// 8. a gate whose session state another process held denies;
    /// 9. the exporter, then the result.
    async fn run(mut self) -> DispatchResult {
        let event = &self.input.event;
        let mut guards = Box::pin(self.run_guards(self.input, None)).await;
        let (mut users, background, dropped) = Box::pin(self.run_users(&guards)).await;
        self.background = background;
        self.notices.extend(dropped);
        let guard_count = guards.len();
        let mut all: Vec<&mut Record> = guards.iter_mut().chain(users.iter_mut()).collect();
        let folded = fold::fold(event, &mut all);
        let mut answer = Answer { verdict: folded.verdict, reason: folded.reason };
        let writer = folded.rewrite_from.filter(|&w| w >= guard_count);
        let rechecks = Box::pin(self.recheck_rewrite(&mut all, writer, &mut answer)).await;
        self.fail_late_closed(&mut all, &rechecks, &mut answer);
        let (effects, halted) = self.effects(&mut all);
        drop(all);
        let mut records: Vec<Record> = guards.into_iter().chain(users).chain(rechecks).collect();
        self.close(&mut records).await;
        if let Some(denial) = self.state.gate_denial(event) {
            answer.deny(Some(denial));
        }
        self.export(&records, &answer);
        self.finish(records, answer, effects, halted)
    }

    /// The winning `rewrite_tool_input` of the user hook at `writer` goes back through the guards, unless the fold
    /// denied: a guard's deny of the rewritten input denies (and drops what widened the answer); on a gate the fold
    /// allowed or passed, a guard's ask asks. The re-checks' records.
    async fn recheck_rewrite(
        &self,
        all: &mut [&mut Record],
        writer: Option<usize>,
        answer: &mut Answer,
    ) -> Vec<Record> {
        let event = &self.input.event;
        let Some(writer) = writer.filter(|_| answer.verdict != Verdict::Deny) else { return Vec::new() };
        let rewrite = all[writer].effects.iter().find_map(|e| match e {
            Effect::RewriteToolInput { input } => Some(input.clone()),
            _ => None,
        });
        let Some(rewrite) = rewrite else { return Vec::new() };
        let mut rewritten = self.input.clone();
        rewritten.tool_input = Some(serde_json::Value::Object(rewrite));
        let writer_id = all[writer].meta.hook_id.clone();
        let rechecks = Box::pin(self.run_guards(&rewritten, Some(&writer_id))).await;
        if let Some(denial) = rechecks.iter().rev().find(|r| r.denies(event)) {
            answer.deny(match &denial.decision {
                Decision::Deny { reason } => Some(reason.clone()),
                _ => None,
            });
            fold::drop_widening(all);
        } else if event.class() == EventClass::Gate
            && matches!(answer.verdict, Verdict::Allow | Verdict::Pass)
            && let Some(ask) = rechecks.iter().rev().find_map(|r| match &r.decision {
                Decision::Ask { reason } => Some(reason.clone()),
                _ => None,
            })
        {
            answer.verdict = Verdict::Ask;
            answer.reason = ask;
        }
        rechecks
    }

    /// The hooks the dispatch deadline cancelled are named in a diagnostic; on a gate that did not deny already, the
    /// deadline denies (the closed side) and what widened the answer is dropped.
    fn fail_late_closed(&mut self, all: &mut [&mut Record], rechecks: &[Record], answer: &mut Answer) {
        let late: Vec<String> = all
            .iter()
            .map(|r| &**r)
            .chain(rechecks.iter())
            .filter(|r| r.cancelled == Some(Cancel::Deadline))
            .map(|r| format!("`{}`", r.meta.hook_id))
            .collect();
        if late.is_empty() {
            return;
        }
        let ms = self.inner.limits.dispatch_deadline_ms;
        let late = late.join(", ");
        self.diagnostics.push(format!("the dispatch deadline of {ms} ms passed; cancelled {late}"));
        if self.input.event.class() == EventClass::Gate && answer.verdict != Verdict::Deny {
            answer.deny(Some(format!("the dispatch deadline of {ms} ms passed before {late} finished")));
            fold::drop_widening(all);
        }
    }

    /// Every run's effects in precedence order, turn_end continuations capped; and whether one halts the agent.
    fn effects(&mut self, all: &mut [&mut Record]) -> (Vec<Effect>, bool) {
        let mut effects: Vec<Effect> = all.iter().flat_map(|r| r.effects.iter().cloned()).collect();
        if self.input.event == Event::TurnEnd {
            self.cap_continuations(all, &mut effects);
        }
        let halted = effects.iter().any(|e| matches!(e, Effect::Halt { .. }));
        (effects, halted)
    }

    /// Every status is final now (cancellation below a deny, the deadline): the spans say what the summaries and
    /// receipts say, whichever hook finished first. Taking the spans closes them here, before the receipts; then
    /// the receipts are recorded and the hooks that did not run are announced.
    async fn close(&mut self, records: &mut [Record]) {
        for record in records.iter_mut() {
            if let Some(span) = record.span.take() {
                spans::record_hook(&span, &record.summary);
            }
        }
        self.record_receipts(records).await;
        self.announce_skipped_guards(records);
        self.announce_no_evaluator(records);
    }

    /// Hands the dispatch to the host's exporter, if it has one.
    fn export(&self, records: &[Record], answer: &Answer) {
        let Some(exporter) = &self.inner.exporter else { return };
        let runs: Vec<ExportedRun<'_>> =
            records.iter().map(|r| ExportedRun { summary: &r.summary, kind: r.meta.kind, run_async: false }).collect();
        exporter.export(&ExportedDispatch {
            input: self.input,
            verdict: Some(answer.verdict),
            reason: answer.reason.as_deref(),
            started: self.started.0,
            duration: self.started.1.elapsed(),
            runs: &runs,
        });
    }

    /// The result, with the session state's changes settled into it.
    fn finish(self, records: Vec<Record>, answer: Answer, effects: Vec<Effect>, halted: bool) -> DispatchResult {
        let mut result = DispatchResult {
            verdict: answer.verdict,
            reason: answer.reason,
            effects,
            runs: records.into_iter().map(|r| r.summary).collect(),
            halted,
            diagnostics: self.diagnostics,
            notices: self.notices,
            generation: self.table.generation,
            background: self.background,
        };
        self.state.settle(&self.input.event, &mut result);
        result
    }

    /// A host without an evaluator says so to the session's user once per session, the first time a
    /// `kind: evaluated` hook matches: such hooks are skipped (or deny, by their `on_error`), never in silence.
    fn announce_no_evaluator(&mut self, records: &[Record]) {
        if self.inner.evaluator.is_some() {
            return;
        }
        let skipped: Vec<String> = records
            .iter()
            .filter(|r| r.meta.kind == HookKind::Evaluated && r.summary.status == RunStatus::Skipped)
            .filter(|r| r.summary.entries.iter().any(|e| e.text == evaluated::NO_EVALUATOR))
            .map(|r| format!("`{}`", r.meta.hook_id))
            .collect();
        if skipped.is_empty() {
            return;
        }
        let session = self.input.session_id.as_deref();
        let keys = vec![evaluated::NO_EVALUATOR_NOTICE.to_owned()];
        if self.inner.sessions.first_notices(session, keys, false, &mut self.state).is_empty() {
            return;
        }
        self.notices.push(format!(
            "this host has no model to evaluate prompt hooks (`type: \"prompt\"`/`\"agent\"`, `kind: evaluated`): {} \
             did not run, and will not in this session; a hook that fails closed denies instead",
            skipped.join(", ")
        ));
    }

    /// No guard is skipped in silence: a hook that matched and did not run because it is untrusted or was modified
    /// since it was trusted is announced to the session's user the first time the session meets it, and every one
    /// of the workspace's such hooks at session start.
    fn announce_skipped_guards(&mut self, records: &[Record]) {
        let at_start = self.input.event == Event::SessionStart;
        let skipped: Vec<(&str, SkipReason)> = if at_start {
            self.table.user.iter().filter_map(|h| Some((h.decl().id.as_str(), h.skip?))).collect()
        } else {
            let untrusted: Vec<&str> = records
                .iter()
                .filter(|r| r.summary.status == RunStatus::Untrusted)
                .map(|r| r.meta.hook_id.as_str())
                .collect();
            // Each id's skip reason at load, looked up by id (a scan of the table for each of thousands of skipped
            // hooks was most of a bridge call at 10 000 hooks); the first hook of an id, as a scan would find it.
            let mut at_load: HashMap<&str, Option<SkipReason>> = HashMap::new();
            if !untrusted.is_empty() {
                at_load.reserve(self.table.user.len());
                for hook in &self.table.user {
                    at_load.entry(hook.decl().id.as_str()).or_insert(hook.skip);
                }
            }
            untrusted
                .into_iter()
                // Untrusted at run time without a skip reason at load: its files changed since the load.
                .map(|id| (id, at_load.get(id).copied().flatten().unwrap_or(SkipReason::Modified)))
                .collect()
        };
        let skipped: Vec<(&str, SkipReason)> = skipped
            .into_iter()
            .filter(|(_, why)| matches!(why, SkipReason::Untrusted | SkipReason::Modified))
            .collect();
        let keys: Vec<String> = skipped.iter().map(|(id, why)| format!("{id}:{why:?}")).collect();
        let session = self.input.session_id.as_deref();
        let fresh = self.inner.sessions.first_notices(session, keys.clone(), at_start, &mut self.state);
        if fresh.is_empty() {
            return;
        }
        let fresh: HashSet<&str> = fresh.iter().map(String::as_str).collect();
        let named: Vec<String> = skipped
            .iter()
            .zip(&keys)
            .filter(|(_, key)| fresh.contains(key.as_str()))
            .map(|((id, why), _)| match why {
                SkipReason::Modified => format!("`{id}` (changed since it was trusted)"),
                _ => format!("`{id}` (not trusted in this workspace)"),
            })
            .collect();
        let which = if at_start { "this workspace has" } else { "matched this event but" };
        self.notices.push(format!(
            "{} hook{} {which} did not run: {}. Review with `hook inspect`, then run `hook trust` to let {} run.",
            named.len(),
            if named.len() == 1 { "" } else { "s" },
            named.join(", "),
            if named.len() == 1 { "it" } else { "them" }
        ));
    }

    /// The guards, one after another; on an event a deny decides, the first deny skips the rest. `rechecking`
    /// names the hook whose rewritten input this is.
    async fn run_guards(&self, input: &EventInput, rechecking: Option<&str>) -> Vec<Record> {
        let event = &input.event;
        let guards = &self.table.guards;
        let positions = guards.index.matching(&guards.list, &Probe::of(input).within(&self.inner.workspace));
        let payloads = Payloads::default();
        let cx = self.context(input, &payloads);
        let mut records: Vec<Record> = Vec::with_capacity(positions.len());
        let mut prior: Vec<Effect> = Vec::new();
        let mut denied_by: Option<String> = None;
        for position in positions {
            let guard = &guards.list[position];
            let meta = guard_meta(guard);
            let mut record = if let Some(by) = &denied_by {
                Record::not_run(meta, event, RunStatus::Skipped, format!("not run: guard `{by}` denied first"))
            } else if Instant::now() >= self.deadline {
                self.deadline_cancelled(meta, event)
            } else {
                let span = spans::hook_span(&guard.registration.id, event);
                let record = match &guard.registration.action {
                    Action::InProcess(evaluate) => {
                        let deny = guard.registration.on_error.unwrap_or_else(|| event.default_on_error())
                            == hook_types::OnError::Deny;
                        span.in_scope(|| inprocess::evaluate(meta, evaluate.as_ref(), deny, input, &prior))
                    }
                    Action::Command(action) => {
                        let prepared = command::prepare_guard(&cx, action, guard.registration.on_error);
                        let run = Box::pin(hook_exec::run_cancellable(
                            &prepared.invocation,
                            &prepared.options,
                            tokio::time::sleep_until(self.deadline),
                        ))
                        .instrument(span.clone())
                        .await;
                        if run.cancelled {
                            self.deadline_cancelled(meta, event)
                        } else {
                            let mut record = Record::bare(meta, event, RunStatus::Completed);
                            command::interpret(&mut record, &prepared, input, &run);
                            record
                        }
                    }
                };
                Record { span: Some(span), ..record }
            };
            if let Some(writer) = rechecking {
                let note = format!("re-checked the tool input as rewritten by `{writer}`");
                record.summary.entries.insert(0, hook_types::OutputEntry::new(EntryKind::Feedback, note));
                // Only the re-check's decision counts; its effects were already given on the original input.
                record.effects.clear();
            }
            prior.extend(record.effects.iter().cloned());
            if denied_by.is_none() && record.denies(event) {
                denied_by = Some(record.meta.hook_id.clone());
            }
            let silent = guard.registration.quiet_pass
                && record.summary.status == RunStatus::Completed
                && record.effects.is_empty()
                && record.summary.entries.is_empty()
                && matches!(record.decision, hook_types::Decision::Pass);
            if !silent {
                records.push(record);
            }
        }
        records
    }

    /// The user tier: the records of the hooks that stayed in the dispatch, and the ids of the `async: true` hooks it
    /// started.
    ///
    /// # Order
    ///
    /// 1. the hooks decided without running (a guard's deny that decides, a skip at load) get their records;
    /// 2. the in-process hooks run in precedence order, each seeing the effects before it;
    /// 3. the `async: true` observers start and leave the dispatch;
    /// 4. the scheduled hooks (command, http, evaluated) run concurrently;
    /// 5. an allow that does not cover the whole shell line is dropped, with a notice ([`drop_partial_allows`]);
    /// 6. every hook below the highest-precedence deny is cancelled and its results discarded.
    ///
    /// The records, the ids of the hooks started in the background, and the notices of the dropped allows.
    async fn run_users(&self, guards: &[Record]) -> (Vec<Record>, Vec<String>, Vec<String>) {
        let table = self.table;
        let probe = Probe::of(self.input).within(&self.inner.workspace);
        let positions = table.user_index.matching(&table.user, &probe);
        let hooks: Vec<&UserHook> = positions.iter().map(|&p| &table.user[p]).collect();
        let mut records = self.decided_without_running(&hooks, guards, &probe);
        // Decided without running: they keep their status whatever denies.
        let settled: Vec<bool> = records.iter().map(Option::is_some).collect();
        let denied = self.run_in_process(&hooks, &mut records, guards).await;
        let (background, started) = self.start_background(&hooks, &mut records);
        self.run_scheduled(&hooks, &mut records, &background, denied).await;
        let dropped = drop_partial_allows(&hooks, &mut records, &probe);
        let mut stayed: Vec<(Record, bool)> = records
            .into_iter()
            .zip(settled)
            .enumerate()
            .filter(|(k, _)| !background.contains(k))
            .map(|(_, (r, settled))| (r.expect("every hook has a record"), settled))
            .collect();
        cancel_below_deny(&self.input.event, &mut stayed);
        (stayed.into_iter().map(|(record, _)| record).collect(), started, dropped)
    }

    /// A record for each of `hooks` that does not run: all of them where a guard denied on an event a deny decides,
    /// else the ones loading skipped (disabled, untrusted, modified).
    fn decided_without_running(
        &self,
        hooks: &[&UserHook],
        guards: &[Record],
        probe: &Probe<'_>,
    ) -> Vec<Option<Record>> {
        let event = &self.input.event;
        let guard_denial = guards.iter().find(|r| r.denies(event)).map(|r| r.meta.hook_id.as_str());
        let decided = |hook: &UserHook| {
            let (status, why) = match (guard_denial, hook.skip) {
                (Some(guard), _) if deny_decides(event) => {
                    (RunStatus::Skipped, format!("not run: guard `{guard}` denied first"))
                }
                (_, Some(skip)) => (skip.status(), skip.describe().to_owned()),
                _ => return unread_command(hook, probe, self.input),
            };
            let mut record = Record::not_run(user_meta(hook), event, status, why);
            record.modified = status == RunStatus::Untrusted && hook.skip == Some(SkipReason::Modified);
            Some(record)
        };
        hooks.iter().map(|hook| decided(hook)).collect()
    }

    /// The in-process hooks without a record yet, in precedence order, each seeing the effects of the guards and of
    /// the hooks before it (command hooks get the input only). The position of the last one that denied.
    async fn run_in_process(
        &self,
        hooks: &[&UserHook],
        records: &mut [Option<Record>],
        guards: &[Record],
    ) -> Option<usize> {
        let event = &self.input.event;
        let mut prior: Vec<Effect> = guards.iter().flat_map(|r| r.effects.iter().cloned()).collect();
        let mut denied: Option<usize> = None;
        for (k, hook) in hooks.iter().enumerate() {
            if records[k].is_some() || !hook.in_process() {
                continue;
            }
            let record = if Instant::now() >= self.deadline {
                self.deadline_cancelled(user_meta(hook), event)
            } else {
                let span = spans::hook_span(&hook.decl().id, event);
                let record = match &hook.decl().spec {
                    HookSpec::Policy(spec) => {
                        let limits = &self.inner.limits;
                        super::policy::run(user_meta(hook), &hook.hook, spec, self.input, limits, self.deadline)
                            .instrument(span.clone())
                            .await
                    }
                    _ => span.in_scope(|| inprocess::declared(user_meta(hook), hook.decl(), self.input)),
                };
                Record { span: Some(span), ..record }
            };
            prior.extend(record.effects.iter().cloned());
            if record.denies(event) {
                denied = Some(k);
            }
            records[k] = Some(record);
        }
        denied
    }

    /// `async: true` observers without a record yet start now and are not waited for: they leave the dispatch here.
    /// Their positions, and their ids; one the checks refused keeps its record and stays.
    fn start_background(&self, hooks: &[&UserHook], records: &mut [Option<Record>]) -> (Vec<usize>, Vec<String>) {
        let background: Vec<usize> =
            (0..hooks.len()).filter(|&k| records[k].is_none() && hooks[k].decl().run_async).collect();
        let mut started = Vec::new();
        for &k in &background {
            match self.launch(hooks[k]) {
                None => started.push(hooks[k].decl().id.clone()),
                refused => records[k] = refused,
            }
        }
        let background = background.into_iter().filter(|&k| records[k].is_none()).collect();
        (background, started)
    }

    /// The hooks still without a record, and not in the background, run concurrently under one coordinator
    /// (precedence, permits, the deadline, `denied` as the deny so far); one still running at the backstop past the
    /// deadline is recorded as cancelled by it.
    async fn run_scheduled(
        &self,
        hooks: &[&UserHook],
        records: &mut [Option<Record>],
        background: &[usize],
        denied: Option<usize>,
    ) {
        let pending: Vec<usize> =
            (0..hooks.len()).filter(|&k| records[k].is_none() && !background.contains(&k)).collect();
        if pending.is_empty() {
            return;
        }
        let finished: Vec<bool> =
            records.iter().enumerate().map(|(k, r)| r.is_some() || background.contains(&k)).collect();
        let coordinator = Coordinator::new(finished, denied, self.inner.permits, self.deadline);
        let payloads = Payloads::default();
        let cx = self.context(self.input, &payloads);
        let futures: Vec<(usize, HookFuture<'_, Record>)> = pending
            .iter()
            .map(|&k| (k, Box::pin(run_command(&coordinator, &cx, k, hooks[k])) as HookFuture<'_, Record>))
            .collect();
        let mut done: Vec<Option<Record>> = hooks.iter().map(|_| None).collect();
        let backstop = self.deadline + Duration::from_millis(self.inner.limits.grace_ms) + BACKSTOP;
        let _ = tokio::time::timeout_at(backstop, join_into(futures, &mut done)).await;
        for k in pending {
            let event = &self.input.event;
            records[k] = Some(done[k].take().unwrap_or_else(|| self.deadline_cancelled(user_meta(hooks[k]), event)));
        }
    }

    fn context<'c>(&'c self, input: &'c EventInput, payloads: &'c Payloads) -> RunContext<'c> {
        RunContext {
            input,
            limits: &self.inner.limits,
            workspace: &self.inner.workspace,
            env_policy: &self.inner.env_policy,
            payloads,
            evaluator: self.inner.evaluator.as_ref(),
        }
    }

    /// Starts one `async: true` hook in the background, after the same checks as any run (cwd confinement, the
    /// fingerprint re-check); its record when those refuse it.
    fn launch(&self, hook: &UserHook) -> Option<Record> {
        let decl = hook.decl();
        let HookSpec::Command(spec) = &decl.spec else {
            unreachable!("only command hooks are async");
        };
        let payloads = Payloads::default();
        let cx = self.context(self.input, &payloads);
        let event = &self.input.event;
        let running = self.inner.background.running();
        if running >= MAX_BACKGROUND {
            let why = format!(
                "not run: {running} async hooks of this host are still running, the most it runs at once; this one \
                 was skipped rather than piling up"
            );
            return Some(Record::not_run(user_meta(hook), event, RunStatus::Skipped, why));
        }
        match command::prepare_user(&cx, &hook.hook, spec) {
            Ok(_) if self.inner.hand_off_background => None,
            Ok(prepared) => {
                self.inner.background.launch(Launch {
                    meta: user_meta(hook),
                    prepared,
                    input: self.input.clone(),
                    sinks: std::sync::Arc::clone(&self.inner.sinks),
                    exporter: self.inner.exporter.clone(),
                });
                None
            }
            Err(refusal) => {
                let mut record = Record::bare(user_meta(hook), event, RunStatus::Completed);
                command::refuse(&mut record, self.input, decl.on_error, refusal);
                Some(record)
            }
        }
    }

    fn deadline_cancelled(&self, meta: Meta, event: &Event) -> Record {
        let mut record = Record::bare(meta, event, RunStatus::Cancelled);
        record.cancel(Cancel::Deadline, deadline_text(self.inner.limits.dispatch_deadline_ms));
        record
    }

    /// Applies the continuation cap to a turn_end result.
    fn cap_continuations(&mut self, all: &mut [&mut Record], effects: &mut Vec<Effect>) {
        let messages: Vec<&str> = effects
            .iter()
            .filter_map(|e| match e {
                Effect::RequestContinuation { message } => Some(message.as_str()),
                _ => None,
            })
            .collect();
        let input = self.input;
        let cap = self.inner.limits.continuation_cap;
        let session = input.session_id.as_deref();
        let admission =
            self.inner.sessions.turn_ended(session, input.stop_hook_active, &messages, cap, &mut self.state);
        drop(messages);
        if let Some((entry, notice)) = admission.and_then(|a| a.refusal()) {
            effects.retain(|e| !matches!(e, Effect::RequestContinuation { .. }));
            for record in all.iter_mut() {
                if record.effects.iter().any(|e| matches!(e, Effect::RequestContinuation { .. })) {
                    record.effects.retain(|e| !matches!(e, Effect::RequestContinuation { .. }));
                    record.entry(EntryKind::Warning, entry.clone());
                }
            }
            self.notices.push(notice);
        }
    }

    /// Hands the receipts to the sinks on the blocking pool and waits for them: the log holds them when the
    /// dispatch returns, and no runtime worker sits in file I/O or a lock wait meanwhile.
    async fn record_receipts(&mut self, records: &[Record]) {
        let sinks = &self.inner.sinks;
        if sinks.is_empty() || records.is_empty() {
            return;
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let time = hook_types::format_rfc3339_millis(now);
        let tool = if self.input.event.is_tool_event() { self.input.tool_name.as_deref() } else { None };
        let session = self.input.session_id.as_deref();
        let receipts: Vec<_> = records.iter().map(|r| r.receipt(&time, tool, session)).collect();
        for diagnostic in sinks.record_all_off_task(receipts).await {
            self.diagnostics.push(diagnostic.to_string());
        }
    }
}

/// Every hook below the highest-precedence deny is cancelled and its results discarded, unless it was settled
/// (decided without running).
fn cancel_below_deny(event: &Event, records: &mut [(Record, bool)]) {
    let Some(highest) = records.iter().rposition(|(r, _)| r.denies(event)) else { return };
    let by = records[highest].0.meta.hook_id.clone();
    for (record, settled) in &mut records[..highest] {
        if !*settled {
            record.cancel(Cancel::Deny, format!("cancelled: `{by}` has higher precedence and denied"));
        }
    }
}

/// A scheduled hook's turn: a `sequential: true` hook first waits for every hook of lower precedence, then each
/// takes one of the dispatch's permits. The dispatch's cancellation (a deny above it, the deadline) ends the wait
/// instead, with its cause.
async fn admit(coordinator: &Coordinator, position: usize, sequential: bool) -> Result<SemaphorePermit<'_>, Cancel> {
    if sequential {
        tokio::select! {
            biased;
            cause = coordinator.cancelled(position) => return Err(cause),
            () = coordinator.lower_finished(position) => {}
        }
    }
    tokio::select! {
        biased;
        cause = coordinator.cancelled(position) => Err(cause),
        permit = coordinator.permit() => Ok(permit),
    }
}

/// One command hook's whole life in a dispatch: wait its turn, get a permit, pass the checks, run, interpret.
async fn run_command(coordinator: &Coordinator, cx: &RunContext<'_>, position: usize, hook: &UserHook) -> Record {
    let _finishing = coordinator.finishing(position);
    let input = cx.input;
    let event = &input.event;
    let decl = hook.decl();
    let mut record = Record::bare(user_meta(hook), event, RunStatus::Completed);
    if let HookSpec::Evaluated(spec) = &decl.spec {
        return run_evaluated(coordinator, cx, position, hook, spec, record).await;
    }
    let _permit = match admit(coordinator, position, decl.sequential).await {
        Ok(permit) => permit,
        Err(cause) => return cancelled(record, cause, cx),
    };
    let spec = match &decl.spec {
        HookSpec::Command(spec) => spec,
        HookSpec::Http(spec) => return run_http(coordinator, cx, position, record, decl, spec).await,
        _ => unreachable!("only command, evaluated and http hooks are scheduled"),
    };
    let prepared = match command::prepare_user(cx, &hook.hook, spec) {
        Ok(prepared) => prepared,
        Err(refusal) => {
            command::refuse(&mut record, input, decl.on_error, refusal);
            if record.denies(event) {
                coordinator.denied(position);
            }
            return record;
        }
    };
    let span = spans::hook_span(&decl.id, event);
    let run = Box::pin(hook_exec::run_cancellable(&prepared.invocation, &prepared.options, async {
        coordinator.cancelled(position).await;
    }))
    .instrument(span.clone())
    .await;
    record.span = Some(span);
    if run.cancelled {
        let mut record = cancelled(record, coordinator.cause_now(), cx);
        record.set_duration(run.duration);
        return record;
    }
    command::interpret(&mut record, &prepared, input, &run);
    if record.denies(event) {
        coordinator.denied(position);
    }
    record
}

/// One evaluated hook's life in a dispatch: wait its turn like a command hook, then ask the host's evaluator.
async fn run_evaluated(
    coordinator: &Coordinator,
    cx: &RunContext<'_>,
    position: usize,
    hook: &UserHook,
    spec: &hook_config::EvaluatedSpec,
    record: Record,
) -> Record {
    let decl = hook.decl();
    let event = &cx.input.event;
    let _permit = match admit(coordinator, position, decl.sequential).await {
        Ok(permit) => permit,
        Err(cause) => return cancelled(record, cause, cx),
    };
    let (timeout_ms, _) = cx.limits.clamp_timeout_ms(spec.timeout_ms);
    let payload = String::from_utf8_lossy(&cx.payloads.get(decl.protocol, cx.input)).into_owned();
    let span = spans::hook_span(&decl.id, event);
    let deny_on_error = decl.on_error == hook_types::OnError::Deny;
    let timeout = Duration::from_millis(timeout_ms);
    let ask = evaluated::Ask { input: cx.input, payload, timeout, answer_limit: cx.limits.capture_limit_bytes };
    let run = evaluated::run(record, cx.evaluator, spec, coordinator, position, ask, deny_on_error)
        .instrument(span.clone())
        .await;
    let mut record = match run {
        (record, None) => record,
        (record, Some(cause)) => cancelled(record, cause, cx),
    };
    record.span = Some(span);
    if record.denies(event) {
        coordinator.denied(position);
    }
    record
}

/// An http hook in a build without the `http` feature: the table drops every one and closes its gate, so none
/// gets here; one that did would deny its gate, whatever its `on_error`, rather than pass without its guard.
#[cfg(not(feature = "http"))]
async fn run_http(
    coordinator: &Coordinator,
    cx: &RunContext<'_>,
    position: usize,
    mut record: Record,
    _decl: &hook_config::HookDecl,
    _spec: &hook_config::HttpSpec,
) -> Record {
    let event = &cx.input.event;
    record.fail(event, true, &format!("was not run: {}", hook_config::unsupported_kind(hook_types::HookKind::Http)));
    if record.denies(event) {
        coordinator.denied(position);
    }
    record
}

/// One http hook's request, once it holds its permit: prepared, sent on a thread of its own, interpreted; given up
/// at its deadline, or at once when the dispatch cancels it (the request ends by its own deadline).
#[cfg(feature = "http")]
async fn run_http(
    coordinator: &Coordinator,
    cx: &RunContext<'_>,
    position: usize,
    mut record: Record,
    decl: &hook_config::HookDecl,
    spec: &hook_config::HttpSpec,
) -> Record {
    let input = cx.input;
    let event = &input.event;
    let (timeout_ms, notes) = command::clamp(cx.limits, decl.protocol, spec.timeout_ms);
    record.summary.entries = notes;
    let span = spans::hook_span(&decl.id, event);
    match super::http::prepare(spec, input, cx.limits, timeout_ms) {
        Err(why) => record.fail(event, decl.on_error == hook_types::OnError::Deny, &why),
        Ok(request) => {
            let started = Instant::now();
            let stop = async {
                coordinator.cancelled(position).await;
            };
            let exchange = super::http::exchange(request, stop).instrument(span.clone()).await;
            record.span = Some(span);
            match exchange {
                super::http::Exchange::Stopped => {
                    let mut record = cancelled(record, coordinator.cause_now(), cx);
                    record.set_duration(started.elapsed());
                    return record;
                }
                super::http::Exchange::Answered(answer) => {
                    super::http::interpret(&mut record, decl, spec, input, timeout_ms, answer);
                }
                super::http::Exchange::Lost(why) => {
                    record.fail(event, decl.on_error == hook_types::OnError::Deny, &why);
                }
            }
        }
    }
    if record.denies(event) {
        coordinator.denied(position);
    }
    record
}

fn cancelled(mut record: Record, cause: Cancel, cx: &RunContext<'_>) -> Record {
    let why = match cause {
        Cancel::Deadline => deadline_text(cx.limits.dispatch_deadline_ms),
        // Rewritten with the denying hook's id once every hook has finished.
        Cancel::Deny => "cancelled: a hook of higher precedence denied".to_owned(),
    };
    record.cancel(cause, why);
    record
}

pub(super) fn deadline_text(ms: u64) -> String {
    format!("cancelled: the dispatch deadline of {ms} ms passed")
}

/// An allow stands only when everything it covers is allowed: each run whose hook is scoped by `command:` or an
/// `if` shell rule, and which allows a shell call whose line runs a command that scope does not cover, loses its
/// allow (the agent's own approval flow goes on) with a Warning entry and a line in its receipt naming the
/// command. One notice per dropped allow, for the user.
fn drop_partial_allows(hooks: &[&UserHook], records: &mut [Option<Record>], probe: &Probe<'_>) -> Vec<String> {
    let mut notices = Vec::new();
    for (hook, record) in hooks.iter().zip(records.iter_mut()) {
        // Only a run that allows costs the reading of the line.
        let Some(record) = record.as_mut().filter(|r| r.allows()) else { continue };
        if let Some(why) = probe.allow_breaker(hook.filter())
            && record.drop_allow(&why)
        {
            notices.push(format!("hook `{}` approved this call, and its approval was dropped: {why}", hook.decl().id));
        }
    }
    notices
}

/// The answer of a hook whose `command:` matcher could not read the shell call and says `on_unknown: deny` or
/// `ask`: that, with what could not be read, without running the hook (whose own answer assumes it knows what runs).
fn unread_command(hook: &UserHook, probe: &Probe<'_>, input: &EventInput) -> Option<Record> {
    let command = hook.filter().command.as_ref()?;
    let Some(hook_shell::Match::Unknown(unknown)) = probe.command_match(command) else { return None };
    let answer = command.on_unknown_for(unknown.reason);
    let own = unknown.reason == hook_shell::UnknownReason::Interpreter && command.on_interpreter().is_some();
    let key = if own { "on_interpreter" } else { "on_unknown" };
    let reason = format!(
        "hook `{}` cannot tell what this shell command runs ({}: `{}`); its `{key}: {}` answers for it",
        hook.decl().id,
        unknown.reason.describe(),
        unknown.text,
        answer.as_str()
    );
    let effect = match answer {
        hook_config::OnUnknown::Ask if input.event == Event::PreTool => Effect::AskUser { reason: Some(reason) },
        hook_config::OnUnknown::Pass => return None,
        _ => Effect::BlockTool { reason, severity: hook_types::HardBlock::HardBlock },
    };
    let mut record = Record::bare(user_meta(hook), &input.event, RunStatus::Completed);
    super::inprocess::apply(&mut record, input, true, vec![effect], None);
    Some(record)
}

fn guard_meta(guard: &Guard) -> Meta {
    let registration = &guard.registration;
    let (protocol, kind) = match &registration.action {
        Action::InProcess(_) => (hook_types::Protocol::Native, HookKind::InProcess),
        Action::Command(command) => (command.protocol, HookKind::Command),
    };
    Meta {
        hook_id: registration.id.clone(),
        origin: None,
        source: registration.source.clone().unwrap_or_else(|| guard.tier.as_str().to_owned()),
        hash: String::new(),
        protocol,
        kind,
    }
}

fn user_meta(hook: &UserHook) -> Meta {
    let decl = hook.decl();
    Meta {
        hook_id: decl.id.clone(),
        origin: Some(decl.origin),
        source: decl.source.display().to_string(),
        hash: decl.hash.clone(),
        protocol: decl.protocol,
        kind: decl.kind(),
    }
}
