//! Where the process starts on Linux with glibc when the `fast-start` feature is on (the default): a C `main`,
//! without Rust's runtime start.
//!
//! `hook` is started once per agent event, so its start is paid on every tool call (docs/performance.md). Rust's
//! runtime start costs about 70 µs on the machine measured, an eighth of a whole `/bin/true`: most of it finds the
//! main thread's stack (glibc reads `/proc/self/maps` for it) and sets up an alternate signal stack, both only to
//! print "has overflowed its stack" before a stack overflow's SIGSEGV. `hook` keeps the two parts of that start it
//! relies on, done here: descriptors 0 to 2 are open (on `/dev/null` if they were closed), so no file the engine
//! opens can take the place of its stdout; and SIGPIPE is ignored, so a hook that closes its stdin early costs a
//! write error, never the process. The exit goes through [`std::process::exit`], which flushes stdout as a return
//! from Rust's `main` does. What is given up: that one line before a stack overflow (the process still dies of
//! the same signal) and the name `main` of the main thread. The arguments are unaffected: glibc hands them to the
//! standard library's initializer before any `main` runs.
//!
//! Its `unsafe`: the `no_mangle` that makes [`main`] the program's entry, and the `signal(2)` call. Miri cannot
//! run a foreign call, so under Miri the unit tests below run the descriptor check only.

#[cfg(not(test))]
use std::ffi::{c_char, c_int};

/// The program's entry, called by glibc once it is initialized.
#[cfg(not(test))]
#[allow(unsafe_code)] // `no_mangle` is what makes this function the program's `main`; its body is safe code.
#[unsafe(no_mangle)]
extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    if !standard_descriptors_open() {
        // As Rust's own start does when it cannot: nothing can be said, and nothing must run.
        std::process::abort();
    }
    ignore_sigpipe();
    // `hook` catches its own panics; this one is for a bug before it does, which must not unwind into C.
    let code = std::panic::catch_unwind(crate::hook).unwrap_or(crate::exit::ERROR);
    std::process::exit(i32::from(code))
}

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed. `false` when one stays closed.
fn standard_descriptors_open() -> bool {
    use std::os::fd::{AsFd, AsRawFd, IntoRawFd};
    let closed = |fd: &dyn AsFd| rustix::io::fcntl_getfd(fd.as_fd()) == Err(rustix::io::Errno::BADF);
    let standard: [(i32, &dyn AsFd); 3] = [(0, &std::io::stdin()), (1, &std::io::stdout()), (2, &std::io::stderr())];
    for (number, fd) in standard {
        if !closed(fd) {
            continue;
        }
        // The lowest free descriptor is the one that is closed: those below it were open or just opened.
        match std::fs::OpenOptions::new().read(true).write(true).open("/dev/null") {
            Ok(null) if null.as_raw_fd() == number => {
                let _kept_open = null.into_raw_fd();
            }
            _ => return false,
        }
    }
    true
}

/// SIGPIPE's disposition set to ignore, as Rust's runtime start sets it. Programs the engine starts get the default
/// back (hook-exec's spawn and the standard library's both reset it in the child).
fn ignore_sigpipe() {
    #[allow(unsafe_code)] // signal(2) with a constant disposition: no handler runs, no memory is shared.
    // SAFETY: SIG_IGN is a valid disposition for SIGPIPE, and no other thread exists yet to race the change.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_descriptors_are_left_as_they_are() {
        use std::os::fd::AsRawFd;
        let before = std::fs::File::open("/dev/null").unwrap().as_raw_fd();
        assert!(standard_descriptors_open(), "the test harness has 0, 1 and 2 open");
        let after = std::fs::File::open("/dev/null").unwrap().as_raw_fd();
        assert_eq!(before, after, "nothing was opened and left open");
    }

    #[test]
    #[cfg_attr(miri, ignore = "signal(2) is a foreign call")]
    fn sigpipe_is_ignored_afterwards() {
        ignore_sigpipe();
        // A write to a pipe whose reader is gone is an error, not the end of the process.
        let (reader, writer) = rustix::pipe::pipe().unwrap();
        drop(reader);
        assert_eq!(rustix::io::write(&writer, b"x"), Err(rustix::io::Errno::PIPE));
    }
}
