//! The `hook` binary's allocator without the `fast-start` feature: the system allocator, with every allocation and
//! free reported to the pipeline ([`hook_middleware::allocation`]). (With it, src/arena.rs.)
//!
//! That report is how a `policy` hook's evaluation is held to its memory limit: the pipeline stops the evaluation
//! before an allocation past the limit rather than failing one (which would abort the process with no answer for
//! the agent). On a thread that runs no evaluation a report is one thread-local read.
//!
//! Its `unsafe` is the [`GlobalAlloc`] contract, passed on to [`System`] unchanged; the unit tests below run under
//! Miri in CI (`cargo +nightly miri test -p hook-cli --bin hook --no-default-features -- alloc::`).
#![allow(unsafe_code)] // A global allocator's four entry points are `unsafe fn`s by definition.

use std::alloc::{GlobalAlloc, Layout, System};

use hook_middleware::allocation;

/// [`System`], reporting to the pipeline: the process's allocator (`main.rs`).
pub struct Reporting;

// SAFETY: every call is passed on unchanged to `System`, with the caller's contract; the reports around it touch no
// memory the allocator hands out.
unsafe impl GlobalAlloc for Reporting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        allocation::charge(layout.size());
        // SAFETY: the caller's contract (a non-zero size) is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        allocation::charge(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was handed out by `System` through this allocator, with this layout.
        unsafe { System.dealloc(ptr, layout) };
        allocation::release(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        allocation::charge(new_size.saturating_sub(layout.size()));
        // SAFETY: as for `dealloc`, and the caller guarantees `new_size` is valid for `layout`'s alignment.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        allocation::release(layout.size().saturating_sub(new_size));
        moved
    }
}

#[cfg(test)]
mod tests {
    //! Built without `fast-start`, the test binary's own global allocator is [`Reporting`] (`main.rs`): every
    //! collection below allocates, grows, shrinks and frees through it, under Miri in CI.

    #[repr(C, align(4096))]
    struct Page([u8; 4096]);

    #[test]
    fn blocks_are_aligned_writable_and_kept_through_growth_and_shrinking() {
        let mut bytes: Vec<u8> = Vec::with_capacity(3);
        for i in 0..5000u32 {
            bytes.push(i as u8);
        }
        bytes.truncate(100);
        bytes.shrink_to_fit();
        assert!(bytes.iter().enumerate().all(|(i, &b)| b == i as u8), "the bytes move with each reallocation");
        let page = Box::new(Page([7; 4096]));
        assert_eq!(std::ptr::from_ref(&*page) as usize % 4096, 0, "aligned as the layout asks");
        assert!(page.0.iter().all(|&b| b == 7));
    }

    #[test]
    fn zeroed_blocks_are_zero() {
        let zeroed = vec![0u64; 1000];
        assert!(zeroed.iter().all(|&w| w == 0));
    }

    #[test]
    fn threads_allocate_and_free_at_once() {
        let threads: Vec<_> = (0..4u8)
            .map(|id| {
                std::thread::spawn(move || {
                    let blocks: Vec<Vec<u8>> = (1..40).map(|len| vec![id; len]).collect();
                    assert!(blocks.iter().all(|block| block.iter().all(|&b| b == id)));
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
    }
}
