//! The bridge answers before the agent gives up on it, whatever is stuck inside it.
//!
//! The agent waits for the bridge's process with a timeout of its own, and past it goes ahead. So a bridge that
//! does not answer in time — its dispatch held by an in-process evaluation, a lock, a read that never returns, a
//! hook that ignores signals, a bug — lets the call through. The watchdog is a thread of its own, started before
//! anything else the bridge does, with its own clock and nothing shared with the dispatch but what it needs to
//! answer (the agent and the event, once read):
//!
//! - at the answer deadline ([`answer_deadline`]: the dispatch deadline, the grace and
//!   [`BRIDGE_ANSWER_MARGIN_MS`] after the bridge started), or
//! - [`signals::GRACE`] plus [`SIGNAL_MARGIN`] after a SIGINT, SIGTERM or SIGHUP, when the bridge's own handling of
//!   the signal (stop the hooks, answer as a failure) has not answered by then,
//!
//! it writes the failure answer — the agent's blocking form on a gate — straight to the standard descriptors, kills
//! every hook group still running and ends the process. Exactly one answer is ever written: the bridge's own path
//! and the watchdog each claim the answer first ([`Watchdog::claim`]), and the loser writes nothing.
//!
//! Beyond this, `hook install` writes a timer into the agent's handler that kills a bridge that has not exited a
//! little later, and answers for it (`hook_agents::install::guarded_command`): that one holds even when this
//! process cannot run at all.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hook_agents::bridge::{Answer, failure};
use hook_agents::install::{Agent, BRIDGE_ANSWER_MARGIN_MS};
use hook_exec::GroupSignal;
use hook_types::Limits;

use crate::signals;

/// How long after a stop signal's grace the bridge's own handling of it has to answer before the watchdog does.
pub const SIGNAL_MARGIN: Duration = Duration::from_millis(1_000);

/// When the bridge answers at the latest, counted from its start, under `limits`.
pub fn answer_deadline(limits: &Limits) -> Duration {
    Duration::from_millis(
        limits.dispatch_deadline_ms.saturating_add(limits.grace_ms).saturating_add(BRIDGE_ANSWER_MARGIN_MS),
    )
}

/// What the watchdog knows of the call, for its answer.
#[derive(Debug, Default)]
struct Known {
    agent: Option<Agent>,
    event_name: Option<String>,
}

/// The state the bridge and its watchdog share.
#[derive(Debug, Default)]
struct Shared {
    /// Whether an answer was claimed, by either.
    answered: AtomicBool,
    known: Mutex<Known>,
}

/// The running watchdog of this bridge process.
#[derive(Debug, Clone)]
pub struct Watchdog {
    shared: Arc<Shared>,
}

impl Watchdog {
    /// Starts the watchdog: it answers `deadline` from now unless the bridge has by then. A watchdog that cannot be
    /// started (no thread, no pipe) is said on stderr, where the agent shows it, and the bridge goes on without it:
    /// the installed handler's timer still stands behind it.
    pub fn start(deadline: Duration, agent: Option<Agent>) -> Watchdog {
        let shared =
            Arc::new(Shared { answered: AtomicBool::new(false), known: Mutex::new(Known { agent, event_name: None }) });
        let watching = Arc::clone(&shared);
        let started = Instant::now();
        let signals = signals::stop_signal_pipe().ok();
        let spawned = std::thread::Builder::new()
            .name("hook-bridge-watchdog".into())
            .stack_size(256 * 1024)
            .spawn(move || watch(&watching, started + deadline, signals));
        if let Err(err) = spawned {
            eprintln!(
                "hook: warning: the bridge's watchdog could not start ({err}); its answer deadline is the installed handler's"
            );
        }
        Watchdog { shared }
    }

    /// Records the agent and the event once read: a later failure answer, the bridge's or the watchdog's, takes their
    /// form.
    pub fn knows(&self, agent: Option<Agent>, event_name: Option<&str>) {
        let mut known = self.shared.known.lock().unwrap_or_else(|e| e.into_inner());
        known.agent = agent.or(known.agent);
        if let Some(name) = event_name {
            known.event_name = Some(name.to_owned());
        }
    }

    /// The agent, once known.
    pub fn agent(&self) -> Option<Agent> {
        self.shared.known.lock().unwrap_or_else(|e| e.into_inner()).agent
    }

    /// The failure answer with `message`, in the form of the agent and the event known so far (the same answer the
    /// watchdog itself would give).
    pub fn failure(&self, message: &str) -> Answer {
        let known = self.shared.known.lock().unwrap_or_else(|e| e.into_inner());
        failure(known.agent, known.event_name.as_deref(), message)
    }

    /// Claims the one answer of this process: `true` for the first caller, who then writes it; `false` when the
    /// other side already has.
    pub fn claim(&self) -> bool {
        !self.shared.answered.swap(true, Ordering::AcqRel)
    }
}

/// The watchdog's loop: wait for the deadline, or for a stop signal and then its grace; answer if nobody has.
fn watch(shared: &Shared, deadline: Instant, signals: Option<signals::StopReceiver>) {
    let mut deadline = deadline;
    let mut stopped_by = None;
    loop {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        let left = deadline - now;
        match (&signals, stopped_by) {
            (Some(pipe), None) => {
                if let Some(signal) = signals::wait_for_signal(pipe, left) {
                    stopped_by = Some(signal);
                    deadline = deadline.min(Instant::now() + signals::GRACE + SIGNAL_MARGIN);
                }
            }
            _ => std::thread::sleep(left),
        }
    }
    let message = match stopped_by {
        Some(signal) => format!(
            "interrupted by {} and still not answered {} ms later: the running hooks were stopped",
            signals::name(signal),
            (signals::GRACE + SIGNAL_MARGIN).as_millis()
        ),
        None => "no answer within the bridge's answer deadline (the dispatch deadline and its margin): something in \
                 the dispatch is stuck; the running hooks were stopped"
            .to_owned(),
    };
    answer_and_exit(shared, &message);
}

/// Writes the failure answer if the bridge has not claimed it, stops the hooks and ends the process.
fn answer_and_exit(shared: &Shared, message: &str) {
    if shared.answered.swap(true, Ordering::AcqRel) {
        // The bridge answered, or is answering: it ends the process itself.
        return;
    }
    let answer = {
        let known = shared.known.try_lock();
        match known {
            Ok(known) => failure(known.agent, known.event_name.as_deref(), message),
            Err(_) => failure(None, None, message),
        }
    };
    write_raw(&answer);
    hook_exec::signal_live_groups(GroupSignal::Kill);
    std::process::exit(i32::from(answer.exit_code));
}

#[cfg(unix)]
#[path = "watchdog/unix.rs"]
mod platform;
#[cfg(windows)]
#[path = "watchdog/windows.rs"]
mod platform;
use platform::write_raw;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_is_past_the_dispatch_deadline_and_the_grace() {
        let limits = Limits::default();
        let deadline = answer_deadline(&limits);
        assert_eq!(
            deadline.as_millis(),
            u128::from(limits.dispatch_deadline_ms + limits.grace_ms + BRIDGE_ANSWER_MARGIN_MS)
        );
    }

    #[test]
    fn only_the_first_claim_answers() {
        let shared = Arc::new(Shared::default());
        let dog = Watchdog { shared };
        assert!(dog.claim());
        assert!(!dog.claim());
    }
}
