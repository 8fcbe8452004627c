//! What the `hook` binary needs before its first line of work: its global allocators and the checks a process start
//! makes. A crate of its own so that its `unsafe` is reviewed alone and runs under Miri in CI without the engine
//! (`cargo +nightly miri test -p hook-start`).
//!
//! - [`Arena`]: small allocations from a size-class arena, everything else from the system allocator — the
//!   allocator of `hook` with its `fast-start` feature (the default), measured in BENCHMARKS.md.
//! - [`Metered`]: the system allocator alone — the allocator without `fast-start`.
//! - [`process`]: descriptors 0 to 2 open and SIGPIPE ignored, what `hook`'s own C entry does in place of Rust's
//!   runtime start.
//!
//! Both allocators report every allocation and free to a [`Meter`]: `hook` reports to its pipeline, which holds a
//! `policy` hook's in-process evaluation to its memory limit by stopping it before an allocation past the limit
//! (rather than failing one, which would abort the process with no answer for the agent).
#![deny(unsafe_op_in_unsafe_fn)]

mod arena;
mod metered;
#[cfg(unix)]
pub mod process;

pub use arena::{Arena, LARGEST};
pub use metered::Metered;

/// Where an allocator reports what it hands out and takes back: [`charge`](Meter::charge) before each allocation
/// (with the size asked for), [`release`](Meter::release) after each free. Called on every allocation of the
/// process, from any thread, so it must not allocate, and should cost a thread-local read where nothing is metered.
///
/// # Example
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// static ASKED: AtomicUsize = AtomicUsize::new(0);
///
/// /// Counts the bytes ever asked for.
/// struct Asked;
///
/// impl hook_start::Meter for Asked {
///     fn charge(bytes: usize) {
///         ASKED.fetch_add(bytes, Ordering::Relaxed);
///     }
///     fn release(_bytes: usize) {}
/// }
///
/// #[global_allocator]
/// static ALLOCATOR: hook_start::Metered<Asked> = hook_start::Metered::new();
///
/// fn main() {
///     let before = ASKED.load(Ordering::Relaxed);
///     let buffer = vec![0u8; 1000];
///     assert!(ASKED.load(Ordering::Relaxed) >= before + buffer.len());
/// }
/// ```
pub trait Meter {
    /// `bytes` are about to be handed out.
    fn charge(bytes: usize);
    /// `bytes` were given back.
    fn release(bytes: usize);
}

/// A meter that counts nothing.
#[derive(Debug)]
pub struct Unmetered;

impl Meter for Unmetered {
    fn charge(_bytes: usize) {}
    fn release(_bytes: usize) {}
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
    }

    /// Counts the bytes live on the calling thread, for tests that allocate from an arena of their own and check
    /// that what was charged was released.
    pub struct Counted;

    impl Counted {
        pub fn live() -> isize {
            LIVE.with(Cell::get)
        }
    }

    impl super::Meter for Counted {
        fn charge(bytes: usize) {
            LIVE.with(|live| live.set(live.get() + bytes as isize));
        }
        fn release(bytes: usize) {
            LIVE.with(|live| live.set(live.get() - bytes as isize));
        }
    }
}
