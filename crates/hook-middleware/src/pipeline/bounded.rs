//! In-process evaluations on a thread of their own, bounded in time and in memory (docs/policy.md#bounds).
//!
//! **Time.** The work runs on a thread of its own (its slot's worker, kept for the slot's next evaluation), and the
//! dispatch waits for its answer until the deadline and no longer: whatever the thread is doing then — a builtin that
//! never looks at a timer, a lock — the dispatch decides without it. The thread is left to end by itself; its answer
//! is dropped, and its slot is taken by no one else until then.
//!
//! **Memory.** Each evaluation thread has an account of the bytes it holds, kept by the process's global allocator:
//! it calls [`charge`] before each allocation and [`release`] after each free (the `hook` binary's allocator does;
//! a host that embeds the pipeline wires its own the same way). An allocation that would take the account past its
//! limit is never made, and it does not fail either: a failed allocation aborts a Rust process, which no
//! `catch_unwind` sees, and the agent would then run the tool. The thread tells its dispatch instead (the hook fails
//! at once) and parks for good, holding what it had, at most its limit. Any allocation counts — one builtin's
//! `Vec::with_capacity(10_000_000_000)` as much as a set that grows element by element — so no builtin can get past
//! it, wherever it allocates.
//!
//! A process keeps at most [`HELD`] parked threads: past that, every evaluation is refused (a gate denies) until the
//! process restarts, so what they hold stays bounded too. A `hook` process lives for one event; only a long-lived
//! host can get there. At most [`SLOTS`] evaluations are alive at once (running, given up on but not yet ended, or
//! parked); one more is refused the same way.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

use tokio::sync::oneshot;
use tokio::time::Instant;

/// Most evaluations alive at once in a process.
pub const SLOTS: usize = 64;

/// Most evaluation threads a process keeps parked after they ran past their memory limit.
pub const HELD: usize = 4;

/// How one bounded evaluation ended, as its dispatch saw it.
#[derive(Debug)]
pub(crate) enum Ended<T> {
    /// The work returned this.
    Answered(T),
    /// The work panicked, with this message.
    Panicked(String),
    /// The deadline passed first; the thread was given up on.
    TimedOut,
    /// It asked for an allocation past its limit (this many bytes, the last request), and was stopped.
    OverMemory { requested: usize },
    /// It was not started, for this reason.
    Refused(String),
}

/// Runs `work` on the worker thread of a slot of its own, with an account of `memory_limit` bytes; waits for it
/// until `until`.
pub(crate) async fn run<T: Send + 'static>(
    until: Instant,
    memory_limit: usize,
    work: impl FnOnce() -> T + Send + 'static,
) -> Ended<T> {
    let held = HELD_NOW.load(Ordering::Acquire);
    if held >= HELD {
        return Ended::Refused(format!(
            "was not evaluated: {held} evaluations in this process ran past their memory limit and are held; \
             restart the host"
        ));
    }
    let Some(slot) = claim() else {
        return Ended::Refused(format!(
            "was not evaluated: {SLOTS} evaluations in this process are still running, the most it runs at once"
        ));
    };
    let (alarm, over) = oneshot::channel();
    set_alarm(slot, Some(alarm));
    let (answer, answered) = oneshot::channel();
    let job: Job = Box::new(move || {
        ACCOUNT.with(|account| account.set(Account { slot, held: 0, limit: memory_limit }));
        let ended = catch_unwind(AssertUnwindSafe(work));
        ACCOUNT.with(|account| account.set(Account::NONE));
        drop(answer.send(ended));
        free(slot);
    });
    if let Err(e) = hand_over(slot, job) {
        free(slot);
        return Ended::Refused(format!("could not start its evaluation: {e}"));
    }
    tokio::select! {
        biased;
        ended = answered => match ended {
            Ok(Ok(value)) => Ended::Answered(value),
            Ok(Err(panic)) => Ended::Panicked(super::inprocess::panic_message(&*panic)),
            Err(_) => Ended::Panicked("its evaluation ended without an answer".to_owned()),
        },
        Ok(requested) = over => Ended::OverMemory { requested },
        () = tokio::time::sleep_until(until) => Ended::TimedOut,
    }
}

/// Accounts for an allocation of `bytes` by the calling thread, before it is made: a global allocator calls this
/// first thing in `alloc`, `alloc_zeroed` and a `realloc` that grows (with the growth).
///
/// On a thread that runs no bounded evaluation it returns at once (one thread-local read). On one whose account
/// this would take past its limit it does not return: the evaluation's dispatch is told, and the thread parks for
/// good, so the allocation is neither made nor failed. It allocates nothing itself, takes no lock an allocation
/// could be waiting for, and never panics.
///
/// A global allocator that reports to the pipeline (what the `hook` binary's does, around its own allocator):
///
/// ```
/// use std::alloc::{GlobalAlloc, Layout, System};
///
/// struct Reporting;
///
/// // SAFETY: every call is passed on unchanged to `System`; the accounting around it touches no memory it hands out.
/// unsafe impl GlobalAlloc for Reporting {
///     unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
///         hook_middleware::allocation::charge(layout.size());
///         unsafe { System.alloc(layout) }
///     }
///     unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
///         hook_middleware::allocation::charge(layout.size());
///         unsafe { System.alloc_zeroed(layout) }
///     }
///     unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
///         unsafe { System.dealloc(ptr, layout) };
///         hook_middleware::allocation::release(layout.size());
///     }
///     unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
///         hook_middleware::allocation::charge(new_size.saturating_sub(layout.size()));
///         let moved = unsafe { System.realloc(ptr, layout, new_size) };
///         hook_middleware::allocation::release(layout.size().saturating_sub(new_size));
///         moved
///     }
/// }
///
/// #[global_allocator]
/// static ALLOCATOR: Reporting = Reporting;
/// # fn main() { let v = vec![1u8; 1024]; assert_eq!(v.len(), 1024); }
/// ```
#[inline]
pub fn charge(bytes: usize) {
    // `try_with`: never a panic in an allocator, even while the thread's locals are torn down.
    let _ = ACCOUNT.try_with(|cell| {
        let mut account = cell.get();
        if account.slot == NO_SLOT {
            return;
        }
        account.held = account.held.saturating_add(bytes);
        if account.held <= account.limit {
            cell.set(account);
            return;
        }
        // Unaccounted from here on: telling the dispatch may allocate.
        cell.set(Account::NONE);
        stop(account.slot, bytes)
    });
}

/// Accounts for `bytes` freed by the calling thread (a global allocator calls this in `dealloc`, and in a `realloc`
/// that shrinks, with the difference). A free on a thread that runs no bounded evaluation costs one thread-local
/// read; memory freed by another thread than the one that allocated it is not given back to any account.
///
/// See [`charge`] for an allocator that reports both.
///
/// ```
/// // Outside an evaluation both are a no-op.
/// hook_middleware::allocation::charge(1 << 40);
/// hook_middleware::allocation::release(1 << 40);
/// ```
#[inline]
pub fn release(bytes: usize) {
    let _ = ACCOUNT.try_with(|cell| {
        let mut account = cell.get();
        if account.slot != NO_SLOT {
            account.held = account.held.saturating_sub(bytes);
            cell.set(account);
        }
    });
}

const NO_SLOT: usize = usize::MAX;

/// The account of the evaluation the current thread runs.
#[derive(Debug, Clone, Copy)]
struct Account {
    /// Its slot in [`SLOT_TABLE`], or [`NO_SLOT`].
    slot: usize,
    /// Bytes allocated and not freed by this thread since the evaluation began.
    held: usize,
    limit: usize,
}

impl Account {
    const NONE: Account = Account { slot: NO_SLOT, held: 0, limit: usize::MAX };
}

thread_local! {
    // `const` and without a destructor: reading it never allocates, which an allocator's hook must not.
    static ACCOUNT: Cell<Account> = const { Cell::new(Account::NONE) };
}

const FREE: u8 = 0;
const RUNNING: u8 = 1;
const PARKED: u8 = 2;

/// One evaluation's place in the process: how it is doing, how its dispatch is told that it ran out of memory, and
/// the thread that runs the slot's evaluations, one after another (started with the slot's first, kept for the next:
/// starting a thread costs more than evaluating a small policy).
struct Slot {
    state: AtomicU8,
    alarm: Mutex<Option<oneshot::Sender<usize>>>,
    worker: Mutex<Option<mpsc::Sender<Job>>>,
}

/// What a worker runs: one evaluation, which gives its slot back when it is done.
type Job = Box<dyn FnOnce() + Send>;

#[allow(clippy::declare_interior_mutable_const)] // Each element of the table is its own slot.
const EMPTY: Slot = Slot { state: AtomicU8::new(FREE), alarm: Mutex::new(None), worker: Mutex::new(None) };

static SLOT_TABLE: [Slot; SLOTS] = [EMPTY; SLOTS];

/// How many threads are parked for good.
static HELD_NOW: AtomicUsize = AtomicUsize::new(0);

fn claim() -> Option<usize> {
    SLOT_TABLE
        .iter()
        .position(|slot| slot.state.compare_exchange(FREE, RUNNING, Ordering::AcqRel, Ordering::Relaxed).is_ok())
}

fn set_alarm(slot: usize, alarm: Option<oneshot::Sender<usize>>) {
    let mut held = SLOT_TABLE[slot].alarm.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    *held = alarm;
}

/// Hands `job` to the worker of `slot` (claimed by the caller), starting one if the slot has none yet.
fn hand_over(slot: usize, job: Job) -> std::io::Result<()> {
    let mut worker = SLOT_TABLE[slot].worker.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let job = match worker.as_ref() {
        Some(jobs) => match jobs.send(job) {
            Ok(()) => return Ok(()),
            // Its thread is gone (it could only have panicked outside the evaluation): a new one takes the job.
            Err(mpsc::SendError(job)) => job,
        },
        None => job,
    };
    let (jobs, next) = mpsc::channel::<Job>();
    std::thread::Builder::new().name(format!("hook-evaluation-{slot}")).spawn(move || {
        for job in next {
            job();
        }
    })?;
    jobs.send(job).map_err(|_| std::io::Error::other("the new worker ended at once"))?;
    *worker = Some(jobs);
    Ok(())
}

/// Gives a slot back once its thread is done with it.
fn free(slot: usize) {
    set_alarm(slot, None);
    SLOT_TABLE[slot].state.store(FREE, Ordering::Release);
}

/// The end of an evaluation that asked for more than its limit: its dispatch is told, and the thread never
/// continues (so the allocation that asked is never made).
fn stop(slot: usize, requested: usize) -> ! {
    let entry = &SLOT_TABLE[slot];
    entry.state.store(PARKED, Ordering::Release);
    HELD_NOW.fetch_add(1, Ordering::AcqRel);
    let alarm = entry.alarm.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    if let Some(alarm) = alarm {
        // Its dispatch may have stopped waiting already (its deadline passed): nothing to tell then.
        let _ = alarm.send(requested);
    }
    loop {
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// One test, in order: the threads it stops stay parked for the life of this test binary, and past [`HELD`]
    /// of them every run is refused.
    #[test]
    fn runs_answer_panic_time_out_stop_at_their_memory_and_are_refused_past_the_held_bound() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let far = || Instant::now() + Duration::from_secs(30);
        assert!(matches!(rt.block_on(run(far(), 1 << 20, || 6 * 7)), Ended::Answered(42)));
        let panicked = rt.block_on(run(far(), 1 << 20, || -> u8 { panic!("no such rule") }));
        assert!(matches!(&panicked, Ended::Panicked(m) if m == "no such rule"), "{panicked:?}");

        let started = std::time::Instant::now();
        let soon = Instant::now() + Duration::from_millis(50);
        let slow = rt.block_on(run(soon, 1 << 20, || std::thread::sleep(Duration::from_secs(5))));
        assert!(matches!(slow, Ended::TimedOut), "{slow:?}");
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());

        // Outside an evaluation a report counts for nothing; inside, one past the limit stops the thread there.
        charge(usize::MAX);
        release(usize::MAX);
        for _ in 0..HELD {
            let ended = rt.block_on(run(far(), 1024, || charge(4096)));
            assert!(matches!(ended, Ended::OverMemory { requested: 4096 }), "{ended:?}");
        }
        let parked = SLOT_TABLE.iter().filter(|s| s.state.load(Ordering::Acquire) == PARKED).count();
        assert_eq!(parked, HELD);
        let refused = rt.block_on(run(far(), 1 << 20, || 1));
        assert!(matches!(&refused, Ended::Refused(m) if m.contains("are held; restart the host")), "{refused:?}");
    }
}
