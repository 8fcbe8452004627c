//! This binary's global allocator: the system's, reporting to the pipeline and counting.
//!
//! - It reports every allocation and free to `hook_middleware::allocation`, as the `hook` binary's allocator does,
//!   so that a `policy` hook's evaluation is held to its memory limit here too (`policy_hooks`).
//! - It counts the allocations each thread makes, for the tests of a dispatch that allocates nothing
//!   (`pipeline_alloc`); the count is per thread, so tests running beside them on other threads do not touch it.
// A global allocator has to implement the unsafe `GlobalAlloc` trait; the unsafe blocks only forward to the system
// allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use hook_middleware::allocation;

thread_local! {
    /// Allocations made by this thread. Const-initialized and without a destructor, so reading it never allocates.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// The allocations the calling thread has made so far.
pub fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn count() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

struct ReportingCounting;

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds `GlobalAlloc`'s contract; the
// reports touch only a thread-local account and never allocate, the counting only a thread-local `Cell`.
unsafe impl GlobalAlloc for ReportingCounting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        allocation::charge(layout.size());
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        allocation::charge(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        allocation::charge(new_size.saturating_sub(layout.size()));
        // SAFETY: as above; `ptr` came from this allocator, which is `System`.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        allocation::release(layout.size().saturating_sub(new_size));
        moved
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) };
        allocation::release(layout.size());
    }
}

#[global_allocator]
static GLOBAL: ReportingCounting = ReportingCounting;
