//! What differs between the operating systems for the engine's own files: opening without blocking or following
//! a link, files and directories only their owner reads, `flock` against `LockFileEx`, a file's identity (the
//! inode on Unix, the volume serial number and file index on Windows), and reads and writes at an offset. Each
//! platform's half lives in its own file; the engine's crates call only these functions, so none of them names a
//! platform.
//!
//! ```
//! use std::fs::OpenOptions;
//! use hook_config::platform;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("state");
//! let file = platform::open_no_follow(OpenOptions::new().read(true).write(true).create(true), &path).unwrap();
//! platform::write_all_at(&file, b"hello", 0).unwrap();
//! let mut back = [0u8; 5];
//! platform::read_exact_at(&file, &mut back, 0).unwrap();
//! assert_eq!(&back, b"hello");
//! assert!(platform::same_file(&file, &path));
//! ```

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;

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
