//! Running the command hooks of one dispatch concurrently, and stopping them.
//!
//! Every command hook of the user tier is one future, polled on the dispatching task (no spawned task, so the
//! input is borrowed, never cloned). The [`Coordinator`] they share enforces, in this order:
//! - `sequential: true`: the hook waits until every lower-precedence hook of the dispatch has finished;
//! - the concurrency bound: a permit of a FIFO semaphore (one permit in sequential mode, so hooks then run one by
//!   one in precedence order, since the futures ask for permits in that order);
//! - cancellation: once a hook denies, the coordinator records its position, and every hook of lower precedence —
//!   waiting, queued or running — is cancelled (its process group killed by `hook-exec`); hooks of higher
//!   precedence are untouched. At the dispatch deadline everything still waiting or running is cancelled.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

use tokio::sync::{Semaphore, SemaphorePermit, watch};
use tokio::time::Instant;

use super::record::Cancel;

/// A boxed future of one hook's run.
pub(crate) type HookFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The state the command hooks of one dispatch share.
pub(crate) struct Coordinator {
    /// The highest position that denied so far.
    deny: watch::Sender<Option<usize>>,
    /// Per position: finished (or never going to run).
    finished: watch::Sender<Vec<bool>>,
    permits: Semaphore,
    deadline: Instant,
}

impl Coordinator {
    /// `finished[p]` is true for every position that is not a pending command hook; `denied` is the highest
    /// position that already denied (an in-process hook).
    pub(crate) fn new(finished: Vec<bool>, denied: Option<usize>, permits: usize, deadline: Instant) -> Self {
        Coordinator {
            deny: watch::Sender::new(denied),
            finished: watch::Sender::new(finished),
            permits: Semaphore::new(permits.max(1)),
            deadline,
        }
    }

    /// Completes when the hook at `position` must stop: a higher-precedence hook denied, or the deadline passed.
    pub(crate) async fn cancelled(&self, position: usize) -> Cancel {
        let mut denials = self.deny.subscribe();
        // `wait_for`'s guard must not live across an await (it is not `Send`): keep only whether it fired.
        let denied = async move { denials.wait_for(|d| d.is_some_and(|d| d > position)).await.is_ok() };
        tokio::select! {
            biased;
            fired = denied => {
                if !fired {
                    // The sender lives as long as `self`: unreachable, but never cancel on it.
                    std::future::pending::<()>().await;
                }
                Cancel::Deny
            }
            () = tokio::time::sleep_until(self.deadline) => Cancel::Deadline,
        }
    }

    /// Why a run that `hook-exec` reports as cancelled was cancelled.
    pub(crate) fn cause_now(&self) -> Cancel {
        if Instant::now() >= self.deadline { Cancel::Deadline } else { Cancel::Deny }
    }

    /// The hook at `position` denied.
    pub(crate) fn denied(&self, position: usize) {
        self.deny.send_if_modified(|d| {
            let higher = d.is_none_or(|d| d < position);
            if higher {
                *d = Some(position);
            }
            higher
        });
    }

    /// Completes when every hook below `position` has finished.
    pub(crate) async fn lower_finished(&self, position: usize) {
        let mut finished = self.finished.subscribe();
        // The sender lives as long as `self`, so this cannot fail.
        let _ = finished.wait_for(|f| f[..position].iter().all(|done| *done)).await;
    }

    /// A permit to run.
    pub(crate) async fn permit(&self) -> SemaphorePermit<'_> {
        // The semaphore is never closed.
        self.permits.acquire().await.expect("the semaphore is never closed")
    }

    /// Marks the hook at `position` finished when dropped (whatever way its future ends).
    pub(crate) fn finishing(&self, position: usize) -> Finishing<'_> {
        Finishing { coordinator: self, position }
    }
}

/// See [`Coordinator::finishing`].
pub(crate) struct Finishing<'c> {
    coordinator: &'c Coordinator,
    position: usize,
}

impl Drop for Finishing<'_> {
    fn drop(&mut self) {
        let position = self.position;
        self.coordinator.finished.send_modify(|f| f[position] = true);
    }
}

/// Polls every `(position, future)` to completion on the current task, storing each output at `out[position]` as
/// soon as it is ready, so that outputs already produced survive when this future is dropped early.
pub(crate) async fn join_into<'a, T>(futures: Vec<(usize, HookFuture<'a, T>)>, out: &mut [Option<T>]) {
    let mut futures: Vec<(usize, Option<HookFuture<'a, T>>)> = futures.into_iter().map(|(p, f)| (p, Some(f))).collect();
    poll_fn(|cx| {
        let mut pending = false;
        for (position, slot) in futures.iter_mut() {
            if let Some(future) = slot {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => {
                        out[*position] = Some(value);
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending { Poll::Pending } else { Poll::Ready(()) }
    })
    .await;
}
