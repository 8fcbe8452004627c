//! The two parts of Rust's runtime start that `hook` relies on, for a program that starts at a C `main` of its own
//! (the `hook` binary with `fast-start`, on Linux with glibc): descriptors 0 to 2 open, and SIGPIPE ignored.
//!
//! Rust's runtime start costs about 70 µs on the machine measured, an eighth of a whole `/bin/true`: most of it
//! finds the main thread's stack (glibc reads `/proc/self/maps` for it) and sets up an alternate signal stack, both
//! only to print "has overflowed its stack" before a stack overflow's SIGSEGV. What the engine needs of that start
//! is here: no file it opens can take the place of its stdout, and a hook that closes its stdin early costs a write
//! error, never the process.
//!
//! Its `unsafe`: the `signal(2)` call. Miri cannot run a foreign call, so under Miri the unit tests below run the
//! descriptor check only.

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed. `false` when one stays closed (nothing can
/// be said then, and nothing must run: Rust's own start aborts).
///
/// # Example
///
/// ```
/// assert!(hook_start::process::standard_descriptors_open());
/// ```
pub fn standard_descriptors_open() -> bool {
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

/// SIGPIPE's disposition set to ignore, as Rust's runtime start sets it. Call it before any other thread exists.
/// Programs started afterwards get the default back (the standard library's spawn and hook-exec's both reset it in
/// the child).
///
/// # Example
///
/// ```no_run
/// hook_start::process::ignore_sigpipe();
/// ```
pub fn ignore_sigpipe() {
    #[allow(unsafe_code)] // signal(2) with a constant disposition: no handler runs, no memory is shared.
    // SAFETY: SIG_IGN is a valid disposition for SIGPIPE; a change racing another thread's is still one of the two.
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
        // The lowest free descriptor, before and after many calls. The other tests of this process run on other
        // threads and hold a few descriptors now and then (a pipe), so the bound is loose; one descriptor left open
        // per call would pass it.
        const CALLS: i32 = 64;
        let before = std::fs::File::open("/dev/null").unwrap().as_raw_fd();
        for _ in 0..CALLS {
            assert!(standard_descriptors_open(), "the test harness has 0, 1 and 2 open");
        }
        let after = std::fs::File::open("/dev/null").unwrap().as_raw_fd();
        assert!(after < before + CALLS / 2, "descriptors were opened and left open: {before} then {after}");
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
