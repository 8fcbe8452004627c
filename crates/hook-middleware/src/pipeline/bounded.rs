//! In-process evaluations on a thread of their own, bounded in time and in memory (docs/policy.md#bounds).
//!
//! **Time.** The work runs on a thread of its own, and the dispatch waits for its answer until the deadline and no
//! longer: whatever the thread is doing then — a builtin that never looks at a timer, a lock — the dispatch decides
//! without it. The thread is left to end by itself; its answer is dropped.
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
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

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

/// Runs `work` on a thread named `name` with an account of `memory_limit` bytes; waits for it until `until`.
pub(crate) async fn run<T: Send + 'static>(
    name: &str,
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
    let spawned = std::thread::Builder::new().name(name.to_owned()).spawn(move || {
        ACCOUNT.with(|account| account.set(Account { slot, held: 0, limit: memory_limit }));
        let ended = catch_unwind(AssertUnwindSafe(work));
        ACCOUNT.with(|account| account.set(Account::NONE));
        drop(answer.send(ended));
        free(slot);
    });
    if let Err(e) = spawned {
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
    ACCOUNT.with(|cell| {
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
    ACCOUNT.with(|cell| {
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

/// One evaluation's place in the process: how it is doing, and how its dispatch is told that it ran out of memory.
struct Slot {
    state: AtomicU8,
    alarm: Mutex<Option<oneshot::Sender<usize>>>,
}

#[allow(clippy::declare_interior_mutable_const)] // Each element of the table is its own slot.
const EMPTY: Slot = Slot { state: AtomicU8::new(FREE), alarm: Mutex::new(None) };

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
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn an_answer_before_the_deadline_is_the_answer_and_the_slot_is_given_back() {
        let until = Instant::now() + std::time::Duration::from_secs(30);
        let ended = runtime().block_on(run("t", until, 1 << 20, || 6 * 7));
        assert!(matches!(ended, Ended::Answered(42)), "{ended:?}");
    }

    #[test]
    fn a_panic_is_an_ending_with_its_message() {
        let until = Instant::now() + std::time::Duration::from_secs(30);
        let ended = runtime().block_on(run("t", until, 1 << 20, || -> u8 { panic!("no such rule") }));
        assert!(matches!(&ended, Ended::Panicked(m) if m == "no such rule"), "{ended:?}");
    }

    #[test]
    fn work_past_its_deadline_is_given_up_on_at_the_deadline() {
        let started = std::time::Instant::now();
        let until = Instant::now() + std::time::Duration::from_millis(50);
        let ended =
            runtime().block_on(run("t", until, 1 << 20, || std::thread::sleep(std::time::Duration::from_secs(5))));
        assert!(matches!(ended, Ended::TimedOut), "{ended:?}");
        assert!(started.elapsed() < std::time::Duration::from_secs(3), "{:?}", started.elapsed());
    }

    #[test]
    fn accounts_are_per_thread_and_outside_an_evaluation_nothing_is_counted() {
        charge(usize::MAX);
        release(usize::MAX);
        ACCOUNT.with(|account| assert_eq!(account.get().slot, NO_SLOT));
    }
}
