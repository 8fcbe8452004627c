//! A size-class arena in front of the system allocator: the `hook` binary's allocator with its `fast-start`
//! feature (the default).
//!
//! Measured against the system allocator alone ([`Metered`](crate::Metered)) in an A/B of the dist binary: on it an
//! event that runs a `policy` hook (regorus parses and evaluates through thousands of small allocations) takes
//! 1.07-1.08× the CPU time and 1.19× the instructions; `hook --version` and a bridge call without a policy are the
//! same within the noise (BENCHMARKS.md#start-up-machinery). Its unit tests below run under Miri in CI.
//!
//! One `hook bridge` or `hook run` lives for one agent event: it makes about 1 300 allocations (nine in ten of
//! them under 128 bytes), frees 900, and is gone within milliseconds. glibc's malloc spent 7 % of such a process's
//! CPU time on them (`perf record` of 300 `hook run`s): its first calls find its bins empty and split the heap's
//! top, and its frees sort chunks into bins for a future the process does not have. Here a small allocation is
//! taken from the free list of its size class (powers of two, 16 bytes to 4 KiB) or, when that is empty, cut from
//! the arena's top; a free puts the block on its class's list, to be reused at once by the next of that size.
//!
//! The arena is bounded, so a long or large run (a load of 100 000 hooks) costs at most its `N` bytes (and the
//! rounding to a class) more than the system allocator alone: allocations larger than [`LARGEST`], and every
//! allocation once the arena is cut up, go to the system allocator, which frees and reuses as always. As a static
//! the arena sits in `.bss`: the kernel maps its pages only as they are first written, so the unused part costs
//! nothing, and a block cut from the top for the first time is known to be zero.
//!
//! It is safe for any number of threads (and for a clone sharing the process's memory): the top is one atomic, so
//! a block cut from it belongs to whoever's compare-and-swap claimed it, and the free lists are behind a spin lock
//! held for a push or a pop. Nothing may allocate in a signal handler or between a `fork` and an `exec` (the same
//! rule glibc's malloc sets), so the lock is never wanted by its own holder.
//!
//! Every allocation and free is reported to the arena's [`Meter`] before the block is cut or after it is given
//! back.
#![allow(unsafe_code)] // An allocator: raw memory by definition. Each block's claim is explained where it is made.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use std::marker::PhantomData;

use crate::Meter;

/// The smallest class, and the alignment of every block cut from the arena (a free block holds the next one's
/// address in its first bytes).
const SMALLEST: usize = 16;

/// How many classes: 16, 32, … bytes up to [`LARGEST`].
const CLASSES: usize = 9;

/// The largest allocation the arena takes; larger ones (buffers, whole files) go to the system allocator.
pub const LARGEST: usize = SMALLEST << (CLASSES - 1);

/// An arena of `N` bytes in front of [`System`], reporting to `M`.
///
/// # Example
///
/// ```
/// use hook_start::{Arena, Unmetered};
///
/// #[global_allocator]
/// static ALLOCATOR: Arena<{ 1 << 20 }, Unmetered> = Arena::new();
///
/// fn main() {
///     let words: Vec<String> = "small allocations come from the arena".split(' ').map(String::from).collect();
///     assert_eq!(words.len(), 6);
/// }
/// ```
#[repr(C, align(4096))]
pub struct Arena<const N: usize, M> {
    /// Zero until handed out (a static's all-zero bytes are in `.bss`, mapped only when written).
    memory: UnsafeCell<[u8; N]>,
    /// The offset of the first byte of `memory` never handed out; it only grows.
    top: AtomicUsize,
    /// Held while `free` is read or written.
    lock: AtomicBool,
    /// Per class, the first free block (null when none); each free block holds the next one's pointer.
    free: UnsafeCell<[*mut u8; CLASSES]>,
    /// Where allocations are reported (a type, not a value: the meter is the process's).
    meter: PhantomData<fn() -> M>,
}

// SAFETY: `memory` is handed out in disjoint blocks: one cut from the top is claimed by a compare-and-swap of `top`,
// and one on a free list is taken under `lock`, which also guards `free`.
unsafe impl<const N: usize, M> Sync for Arena<N, M> {}

/// The class of blocks that fit `layout`, when the arena takes it.
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size().max(layout.align()).max(SMALLEST);
    (size <= LARGEST).then(|| (size.next_power_of_two() / SMALLEST).trailing_zeros() as usize)
}

impl<const N: usize, M: Meter> Arena<N, M> {
    /// An empty arena.
    pub const fn new() -> Arena<N, M> {
        Arena {
            memory: UnsafeCell::new([0; N]),
            top: AtomicUsize::new(0),
            lock: AtomicBool::new(false),
            free: UnsafeCell::new([std::ptr::null_mut(); CLASSES]),
            meter: PhantomData,
        }
    }

    fn base(&self) -> usize {
        self.memory.get() as usize
    }

    /// `ptr`, a pointer into this arena, as a pointer derived from the arena's own: a caller's pointer may carry the
    /// provenance of the block's old size only, and a block freed or grown in place is handed out again for more.
    fn rederive(&self, ptr: *mut u8) -> *mut u8 {
        self.memory.get().cast::<u8>().wrapping_add((ptr as usize).wrapping_sub(self.base()))
    }

    /// Whether `ptr` points into this arena (a block it handed out) rather than to the system allocator's memory.
    pub fn contains(&self, ptr: *const u8) -> bool {
        (ptr as usize).wrapping_sub(self.base()) < N
    }

    /// A block of `class` for a layout aligned to `align`, and whether it is fresh (never handed out, so zero);
    /// `None` when its free list is empty and the arena has no room left.
    fn take(&self, class: usize, align: usize) -> Option<(*mut u8, bool)> {
        // A free block is aligned to SMALLEST only: a layout that asks for more is cut afresh.
        if align <= SMALLEST
            && let Some(block) = self.pop(class)
        {
            return Some((block, false));
        }
        self.cut(SMALLEST << class, align.max(SMALLEST)).map(|block| (block, true))
    }

    /// `size` bytes aligned to `align` from the arena's top, or `None` when they do not fit.
    fn cut(&self, size: usize, align: usize) -> Option<*mut u8> {
        let base = self.base();
        let mut top = self.top.load(Ordering::Acquire);
        loop {
            // Aligned as an address, so any alignment is met whatever the arena's own.
            let start = base.checked_add(top)?.checked_next_multiple_of(align)? - base;
            let end = start.checked_add(size).filter(|&end| end <= N)?;
            match self.top.compare_exchange_weak(top, end, Ordering::AcqRel, Ordering::Acquire) {
                // Derived from the arena's own pointer, so the block keeps its provenance (Miri checks every use).
                Ok(_) => return Some(self.memory.get().cast::<u8>().wrapping_add(start)),
                Err(now) => top = now,
            }
        }
    }

    /// Runs `f` on the free lists, under the lock.
    fn with_free<R>(&self, f: impl FnOnce(&mut [*mut u8; CLASSES]) -> R) -> R {
        let mut spins = 0u32;
        while self.lock.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            spins += 1;
            if spins.is_multiple_of(64) {
                // The holder was preempted: let it run.
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        // SAFETY: the lock is held, so no one else reads or writes the lists until it is released below.
        let result = f(unsafe { &mut *self.free.get() });
        self.lock.store(false, Ordering::Release);
        result
    }

    fn pop(&self, class: usize) -> Option<*mut u8> {
        self.with_free(|free| {
            let block = free[class];
            if block.is_null() {
                return None;
            }
            // SAFETY: a block on a free list is the arena's, at least SMALLEST long and aligned, and holds the next
            // block's pointer, written by `push`; the lock keeps anyone else from taking it meanwhile.
            free[class] = unsafe { block.cast::<*mut u8>().read() };
            Some(block)
        })
    }

    fn push(&self, block: *mut u8, class: usize) {
        // The link is written through the caller's pointer (whose owner may still hold the block while it frees
        // it), and the block kept as the arena's own pointer, for whoever takes it next.
        self.with_free(|free| {
            // SAFETY: the caller gave the block back: it is the arena's, `SMALLEST << class` long and aligned to
            // SMALLEST, and no one else uses it now.
            unsafe { block.cast::<*mut u8>().write(free[class]) };
            free[class] = self.rederive(block);
        });
    }
}

impl<const N: usize, M: Meter> Default for Arena<N, M> {
    fn default() -> Self {
        Arena::new()
    }
}

// The four entry points are called from every allocation site of the program: not inlined there (with the whole
// program optimized as one unit, they were, and the code grew by a third, each new page of it a fault at start).
//
// SAFETY: every block handed out is either the system allocator's (and given back to it) or a block of the arena
// that no other live block overlaps (`take`), at least as long as its layout (its class) and aligned as it asks.
unsafe impl<const N: usize, M: Meter> GlobalAlloc for Arena<N, M> {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        M::charge(layout.size());
        if let Some(class) = class_of(layout)
            && let Some((block, _)) = self.take(class, layout.align())
        {
            return block;
        }
        // SAFETY: the caller's contract (a non-zero size) is passed on.
        unsafe { System.alloc(layout) }
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        M::charge(layout.size());
        if let Some(class) = class_of(layout)
            && let Some((block, fresh)) = self.take(class, layout.align())
        {
            if !fresh {
                // SAFETY: the block is at least `layout.size()` bytes, taken by this call.
                unsafe { block.write_bytes(0, layout.size()) };
            }
            return block;
        }
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match class_of(layout) {
            Some(class) if self.contains(ptr) => self.push(ptr, class),
            // SAFETY: `ptr` is not the arena's, so the system allocator gave it, with this layout.
            _ => unsafe { System.dealloc(ptr, layout) },
        }
        M::release(layout.size());
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.contains(ptr) {
            M::charge(new_size.saturating_sub(layout.size()));
            // SAFETY: the system allocator's block, passed on with the caller's contract.
            let moved = unsafe { System.realloc(ptr, layout, new_size) };
            M::release(layout.size().saturating_sub(new_size));
            return moved;
        }
        // SAFETY: the caller guarantees that `new_size`, rounded up to the alignment, does not overflow `isize`.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if class_of(new_layout) == class_of(layout) {
            // Still fits its block.
            M::charge(new_size.saturating_sub(layout.size()));
            M::release(layout.size().saturating_sub(new_size));
            return self.rederive(ptr);
        }
        // SAFETY: a non-zero size (the caller's contract). `alloc` and `dealloc` report the move.
        let moved = unsafe { self.alloc(new_layout) };
        if !moved.is_null() {
            // SAFETY: both blocks are live, distinct, and at least the smaller size long.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Unmetered;
    use crate::tests::Counted;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    /// Allocates through `arena` and fills the block with `byte`, as its owner would.
    fn filled<const N: usize, M: Meter>(arena: &Arena<N, M>, layout: Layout, byte: u8) -> *mut u8 {
        // SAFETY: the layouts of these tests have non-zero sizes.
        let block = unsafe { arena.alloc(layout) };
        assert!(!block.is_null());
        // SAFETY: a live block of `layout.size()` bytes.
        unsafe { block.write_bytes(byte, layout.size()) };
        block
    }

    fn holds(block: *const u8, len: usize, byte: u8) -> bool {
        // SAFETY: the tests pass live blocks of at least `len` bytes.
        unsafe { std::slice::from_raw_parts(block, len) }.iter().all(|&b| b == byte)
    }

    /// Gives a block back (with the layout it was allocated with).
    fn free<const N: usize, M: Meter>(arena: &Arena<N, M>, block: *mut u8, layout: Layout) {
        // SAFETY: every caller frees a live block once, with its layout.
        unsafe { arena.dealloc(block, layout) }
    }

    #[test]
    fn sizes_fall_in_power_of_two_classes_up_to_the_largest() {
        assert_eq!(class_of(layout(1, 1)), Some(0));
        assert_eq!(class_of(layout(16, 8)), Some(0));
        assert_eq!(class_of(layout(17, 8)), Some(1));
        assert_eq!(class_of(layout(8, 64)), Some(2), "the alignment counts as size");
        assert_eq!(class_of(layout(LARGEST, 8)), Some(CLASSES - 1));
        assert_eq!(class_of(layout(LARGEST + 1, 8)), None);
    }

    #[test]
    fn blocks_are_aligned_disjoint_and_inside_the_arena() {
        let arena = Box::new(Arena::<8192, Counted>::new());
        let mut blocks = Vec::new();
        for (i, align) in [1, 2, 8, 16, 64, 256, 1024].into_iter().enumerate() {
            let layout = layout(3 + i * 5, align);
            let block = filled(&arena, layout, i as u8);
            assert!(arena.contains(block), "a small block comes from the arena");
            assert_eq!(block as usize % align, 0, "aligned to {align}");
            blocks.push((block, layout, i as u8));
        }
        for &(block, layout, byte) in &blocks {
            assert!(holds(block, layout.size(), byte), "no block overwrote another");
        }
    }

    #[test]
    fn a_freed_block_is_reused_by_the_next_allocation_of_its_class() {
        let arena = Box::new(Arena::<4096, Counted>::new());
        let first = filled(&arena, layout(100, 8), 1);
        let other = filled(&arena, layout(20, 8), 2);
        free(&arena, first, layout(100, 8));
        let same_class = filled(&arena, layout(120, 8), 3);
        assert_eq!(same_class, first, "100 and 120 bytes are both in the 128-byte class");
        let other_class = filled(&arena, layout(100, 8), 4);
        assert_ne!(other_class, first, "the block is taken");
        assert!(holds(other, 20, 2), "and nothing else was touched");
        // A layout that asks for more alignment than a free block has is cut afresh.
        free(&arena, same_class, layout(120, 8));
        let aligned = filled(&arena, layout(120, 128), 5);
        assert_eq!(aligned as usize % 128, 0);
    }

    #[test]
    fn realloc_keeps_a_block_that_still_fits_and_moves_one_that_does_not_with_its_bytes() {
        let arena = Box::new(Arena::<8192, Counted>::new());
        let block = filled(&arena, layout(40, 8), 7);
        // SAFETY: a live block with its layout; each result replaces it.
        let grown = unsafe { arena.realloc(block, layout(40, 8), 64) };
        assert_eq!(grown, block, "40 and 64 bytes share a class");
        let moved = unsafe { arena.realloc(grown, layout(64, 8), 1000) };
        assert_ne!(moved, block);
        assert!(arena.contains(moved));
        assert!(holds(moved, 40, 7), "the bytes move with it");
        let shrunk = unsafe { arena.realloc(moved, layout(1000, 8), 10) };
        assert!(holds(shrunk, 10, 7));
        let out = unsafe { arena.realloc(shrunk, layout(10, 8), LARGEST * 2) };
        assert!(!arena.contains(out), "past the largest class, the system allocator's");
        assert!(holds(out, 10, 7));
        free(&arena, out, layout(LARGEST * 2, 8));
    }

    #[test]
    fn large_blocks_and_blocks_past_the_end_come_from_the_system_allocator() {
        let arena = Box::new(Arena::<4096, Counted>::new());
        let before = Counted::live();
        let large = filled(&arena, layout(LARGEST + 1, 8), 1);
        assert!(!arena.contains(large), "larger than LARGEST");
        let most = filled(&arena, layout(4000, 8), 2);
        assert!(arena.contains(most));
        let past = filled(&arena, layout(200, 8), 3);
        assert!(!arena.contains(past), "what does not fit goes to the system allocator");
        assert!(holds(most, 4000, 2));
        free(&arena, large, layout(LARGEST + 1, 8));
        free(&arena, past, layout(200, 8));
        free(&arena, most, layout(4000, 8));
        assert_eq!(Counted::live(), before, "every byte charged was released, from the arena or the system");
    }

    #[test]
    fn zeroed_blocks_are_zero_whether_fresh_or_reused() {
        let arena = Box::new(Arena::<4096, Counted>::new());
        // SAFETY: non-zero sizes.
        let fresh = unsafe { arena.alloc_zeroed(layout(256, 8)) };
        assert!(holds(fresh, 256, 0));
        let dirty = filled(&arena, layout(256, 8), 0xAA);
        free(&arena, dirty, layout(256, 8));
        let zeroed = unsafe { arena.alloc_zeroed(layout(256, 8)) };
        assert_eq!(zeroed, dirty, "the same memory");
        assert!(holds(zeroed, 256, 0));
    }

    #[test]
    fn threads_never_get_the_same_memory() {
        static SHARED: Arena<{ 1 << 16 }, Unmetered> = Arena::new();
        // Fewer under Miri, which interprets every step (and still interleaves the threads at random).
        let (threads, rounds) = if cfg!(miri) { (4u8, 60usize) } else { (8, 400) };
        let threads: Vec<_> = (0..threads)
            .map(|id| {
                std::thread::spawn(move || {
                    let mut mine = Vec::new();
                    for round in 0..rounds {
                        let layout = layout(8 + round % 60, 8);
                        let block = filled(&SHARED, layout, id);
                        if round % 3 == 0 {
                            // Freed at once: the next allocation of its class, by any thread, takes it again.
                            free(&SHARED, block, layout);
                        } else {
                            mine.push((block, layout));
                        }
                    }
                    for &(block, layout) in &mine {
                        assert!(holds(block, layout.size(), id), "thread {id}'s block was overwritten");
                    }
                    for (block, layout) in mine {
                        free(&SHARED, block, layout);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
    }
}
