//! What differs between the operating systems for the configuration's files: opening without blocking or following
//! a link, files and directories only their owner reads, `flock` against `LockFileEx`, and a file's identity (the
//! inode on Unix, the volume serial and file index on Windows). Each platform's half lives in its own file; the rest
//! of the crate calls only these functions.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::*;

/// A file's size, modification time and status-change time (ns since the epoch), and identity on its volume: what
/// the trust fingerprint compares before it hashes again.
pub(crate) type Stat = (u64, u128, i128, u64);

/// Which lock [`try_lock`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lock {
    /// One holder at a time.
    Exclusive,
    /// Any number of readers, no writer.
    Shared,
}

/// The modification time in nanoseconds since the epoch, 0 when the file system has none.
pub(crate) fn mtime_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos())
}
