//! Room for the parser: brush's parser recurses once per nesting level of the text, so a text that may nest deeply
//! is read on a thread with a stack sized for it, and a panic in the parser is a syntax answer, never a crash.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Texts that cannot nest deeper than this are read on the caller's stack.
const INLINE_LEVELS: usize = 12;
/// The stack one nesting level may take in the parser and the walk (a debug build measured about 32 KiB).
const STACK_PER_LEVEL: usize = 64 * 1024;
/// The stack a reading needs besides its levels.
const STACK_BASE: usize = 1024 * 1024;

/// An upper bound of how deeply `text` can nest: every character that can open a level (`(`, `{`, `[`, a
/// backquote) and every word that can (`if`, `while`, …) counted, quoted or not.
pub(crate) fn nesting_bound(text: &str) -> usize {
    let openers = text.bytes().filter(|b| matches!(b, b'(' | b'{' | b'[' | b'`')).count();
    let keywords = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| matches!(*w, "if" | "while" | "until" | "for" | "case" | "select" | "function" | "coproc"))
        .count();
    openers + keywords
}

/// Runs `read` (a reading of `text`) where it has the stack it may need; `false` if it panicked or no thread
/// could be had.
pub(crate) fn with_room(text: &str, read: impl FnOnce() + Send) -> bool {
    let levels = nesting_bound(text);
    if levels <= INLINE_LEVELS {
        return catch_unwind(AssertUnwindSafe(read)).is_ok();
    }
    let stack = STACK_BASE.saturating_add(levels.saturating_mul(STACK_PER_LEVEL));
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("hook-shell-parse".to_owned())
            .stack_size(stack)
            .spawn_scoped(scope, read)
            .is_ok_and(|handle| handle.join().is_ok())
    })
}
