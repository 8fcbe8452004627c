//! The Windows half of [`crate::signals`]: the console's Ctrl-C (SIGINT, as the C runtime delivers it, on a thread of
//! its own) and SIGTERM (raised in-process only: Windows has no `kill`), each handler sending the signal into a
//! channel. A console that closes or a `taskkill /F` ends `hook` without a handler; its hooks' Job Objects die with
//! it all the same.

use std::sync::mpsc;
use std::time::Duration;

use hook_exec::GroupSignal;

/// The signals `hook` stops on, as the C runtime numbers them.
const STOP_SIGNALS: [(libc::c_int, GroupSignal); 2] =
    [(libc::SIGINT, GroupSignal::Interrupt), (libc::SIGTERM, GroupSignal::Terminate)];

/// The stop signals, listened to from the first dispatch on, as a channel the dispatch awaits.
pub struct Signals {
    arrived: tokio::sync::mpsc::UnboundedReceiver<GroupSignal>,
}

impl Signals {
    /// Installs the handlers.
    pub fn new() -> std::io::Result<Signals> {
        let (tx, arrived) = tokio::sync::mpsc::unbounded_channel();
        register(move |signal| {
            let _ = tx.send(signal);
        })?;
        Ok(Signals { arrived })
    }

    /// The next stop signal to arrive.
    pub(crate) async fn next(&mut self) -> GroupSignal {
        match self.arrived.recv().await {
            Some(signal) => signal,
            // The handlers hold the sender for as long as the process lives.
            None => std::future::pending().await,
        }
    }
}

/// What [`stop_signal_pipe`] returns: the receiving end of the handlers' channel.
pub type StopReceiver = mpsc::Receiver<GroupSignal>;

/// A new channel into which each stop signal sends itself, one message per arrival; each caller gets a channel and
/// handlers of its own.
pub fn stop_signal_pipe() -> std::io::Result<StopReceiver> {
    let (tx, rx) = mpsc::channel();
    register(move |signal| {
        let _ = tx.send(signal);
    })?;
    Ok(rx)
}

/// Waits up to `left` for a stop signal: the one that came, if one did.
pub fn wait_for_signal(signals: &StopReceiver, left: Duration) -> Option<GroupSignal> {
    signals.recv_timeout(left).ok()
}

/// Registers `action` for every stop signal.
fn register(action: impl Fn(GroupSignal) + Send + Sync + Clone + 'static) -> std::io::Result<()> {
    for (number, signal) in STOP_SIGNALS {
        let action = action.clone();
        #[allow(unsafe_code)]
        // SAFETY: on Windows the C runtime runs a SIGINT handler on the console's control thread, not inside an
        // interrupted one, so the action (a channel send: a lock and an allocation) cannot deadlock what it
        // interrupted.
        let registered = unsafe { signal_hook_registry::register(number, move || action(signal)) };
        registered?;
    }
    Ok(())
}
