//! The system allocator with every allocation and free reported to a [`Meter`]: the `hook` binary's allocator
//! without its `fast-start` feature (with it, [`Arena`](crate::Arena)).
//!
//! Its `unsafe` is the [`GlobalAlloc`] contract, passed on to [`System`] unchanged; the unit tests below, whose test
//! binary allocates through it, run under Miri in CI.
#![allow(unsafe_code)] // A global allocator's four entry points are `unsafe fn`s by definition.

use std::alloc::{GlobalAlloc, Layout, System};

use std::marker::PhantomData;

use crate::Meter;

/// [`System`], reporting to `M`. An example is on [`Meter`].
pub struct Metered<M>(PhantomData<fn() -> M>);

impl<M: Meter> Metered<M> {
    /// The system allocator, reporting to `M`.
    pub const fn new() -> Metered<M> {
        Metered(PhantomData)
    }
}

impl<M: Meter> Default for Metered<M> {
    fn default() -> Self {
        Metered::new()
    }
}

// SAFETY: every call is passed on unchanged to `System`, with the caller's contract; the reports around it touch no
// memory the allocator hands out.
unsafe impl<M: Meter> GlobalAlloc for Metered<M> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        M::charge(layout.size());
        // SAFETY: the caller's contract (a non-zero size) is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        M::charge(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was handed out by `System` through this allocator, with this layout.
        unsafe { System.dealloc(ptr, layout) };
        M::release(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        M::charge(new_size.saturating_sub(layout.size()));
        // SAFETY: as for `dealloc`, and the caller guarantees `new_size` is valid for `layout`'s alignment.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        M::release(layout.size().saturating_sub(new_size));
        moved
    }
}

#[cfg(test)]
mod tests {
    //! The test binary's own global allocator is a [`Metered`](super::Metered): every collection below allocates,
    //! grows, shrinks and frees through it, under Miri in CI.

    use crate::tests::Counted;

    #[global_allocator]
    static ALLOCATOR: super::Metered<Counted> = super::Metered::new();

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
    fn what_is_charged_is_released() {
        let before = Counted::live();
        {
            let numbers: Vec<u64> = (0..1000).collect();
            let mut text = String::new();
            for _ in 0..100 {
                text.push_str("grow");
            }
            assert!(Counted::live() >= before + 8000 + 400, "live: {}", Counted::live() - before);
            assert_eq!((numbers.len(), text.len()), (1000, 400));
        }
        assert_eq!(Counted::live(), before, "every byte charged was released");
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
