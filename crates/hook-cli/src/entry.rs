//! Where the process starts on Linux with glibc when the `fast-start` feature is on (the default): a C `main`,
//! without Rust's runtime start.
//!
//! `hook` is started once per agent event, so its start is paid on every tool call (docs/performance.md). The parts
//! of Rust's runtime start it relies on are done here ([`hook_start::process`], which says why the rest is left
//! out): descriptors 0 to 2 are open, and SIGPIPE is ignored. The exit goes through [`std::process::exit`], which
//! flushes stdout as a return from Rust's `main` does. What is given up: the line printed before a stack overflow
//! (the process still dies of the same signal) and the name `main` of the main thread. The arguments are
//! unaffected: glibc hands them to the standard library's initializer before any `main` runs.

use std::ffi::{c_char, c_int};

/// The program's entry, called by glibc once it is initialized.
#[allow(unsafe_code)] // `no_mangle` is what makes this function the program's `main`; its body is safe code.
#[unsafe(no_mangle)]
extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    if !hook_start::process::standard_descriptors_open() {
        // As Rust's own start does when it cannot: nothing can be said, and nothing must run.
        std::process::abort();
    }
    hook_start::process::ignore_sigpipe();
    // `hook` catches its own panics; this one is for a bug before it does, which must not unwind into C.
    let code = std::panic::catch_unwind(crate::hook).unwrap_or(crate::exit::ERROR);
    std::process::exit(i32::from(code))
}
