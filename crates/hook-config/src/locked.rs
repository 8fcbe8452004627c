//! Read-modify-write of one small state file, safe between processes: an exclusive `flock` on a sidecar
//! `<file>.lock` (never renamed, so every process locks the same inode) held from the read to the rename, and an
//! atomic replace (a temp file created new beside it, synced, renamed over it).
//!
//! Without the lock two writers that each read, change and rename lose one of the changes: 2×20 concurrent
//! `hook trust --all --yes` sharing a config home kept 22 of 40 entries, every writer exiting 0. With it they
//! serialize and none is lost. Symlinks are never followed: a symlink planted at the file's place is an error,
//! not a way to make the engine read or write elsewhere.
//!
//! **Every lock wait is bounded.** Any process of the same user can take an `flock` on these files and keep it (the
//! agent's own shell tool can run `flock FILE sleep 1d`), so nothing here waits blindly: [`flock_within`], the one
//! place the engine takes an `flock` on a file another process can reach, polls a non-blocking `flock` until its
//! bound and then fails with an error [`held`] recognises, naming the file and how to find the holder. The session
//! state, the receipt log and the install records lock through it too.
//!
//! ```
//! use hook_config::locked;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("counter");
//! for _ in 0..3 {
//!     locked::update(&path, locked::DEFAULT_WAIT, |old| {
//!         let n: u32 = old.map_or(0, |b| String::from_utf8_lossy(b).trim().parse().unwrap_or(0));
//!         Ok::<_, std::convert::Infallible>(Some((n + 1).to_string().into_bytes()))
//!     })
//!     .unwrap();
//! }
//! assert_eq!(std::fs::read_to_string(&path).unwrap(), "3");
//! ```

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long a command (`hook trust`, `hook install`, `hook receipts verify`) waits by default for another
/// process's lock: long enough for any honest writer (they hold it for a read and a rename, milliseconds, even with
/// 40 of them queued), short enough that a stopped or hostile holder makes the command fail rather than hang.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(10);

/// Which `flock` [`flock_within`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    /// One holder at a time: a writer.
    Exclusive,
    /// Any number of readers, no writer.
    Shared,
}

/// Why a lock was not had: another process held it past the wait. The error inside the [`io::Error`] that
/// [`flock_within`] returns then; find it with [`held`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// The locked file.
    pub path: PathBuf,
    /// How long it was waited for.
    pub waited: Duration,
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        write!(
            f,
            "`{path}` is locked by another process, which kept it for more than {} ms; `fuser -v {path}` or `lsof \
             {path}` names that process: end it, or retry once it is done",
            self.waited.as_millis()
        )
    }
}

impl std::error::Error for Held {}

/// The [`Held`] inside `error`, when that is why a lock was not had.
///
/// ```
/// use std::time::Duration;
/// use hook_config::locked::{self, LockKind};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("state");
/// let holder = std::fs::File::create(&path).unwrap();
/// locked::flock_within(&holder, &path, LockKind::Exclusive, Duration::ZERO).unwrap();
/// // Another open file description of the same file: another holder, as another process would be.
/// let other = std::fs::File::open(&path).unwrap();
/// let err = locked::flock_within(&other, &path, LockKind::Shared, Duration::from_millis(20)).unwrap_err();
/// assert_eq!(locked::held(&err).unwrap().path, path);
/// assert!(err.to_string().contains("is locked by another process"));
/// ```
pub fn held(error: &io::Error) -> Option<&Held> {
    error.get_ref().and_then(|inner| inner.downcast_ref::<Held>())
}

/// Takes a `kind` `flock` on `file` (open at `path`, which the error names), polling a non-blocking `flock` until
/// `wait` has passed: never a blocking `flock`, which another process could make wait forever. The pause between
/// tries grows from 20 µs to 5 ms, so an honest holder (milliseconds) costs little and a stuck one at most `wait`
/// plus 5 ms. A lock not had in time is an [`io::ErrorKind::TimedOut`] error holding a [`Held`]; an `flock` that
/// fails otherwise (a file system without locks) is that error.
pub fn flock_within(file: &File, path: &Path, kind: LockKind, wait: Duration) -> io::Result<()> {
    let kind = match kind {
        LockKind::Exclusive => crate::platform::Lock::Exclusive,
        LockKind::Shared => crate::platform::Lock::Shared,
    };
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_micros(20);
    loop {
        if crate::platform::try_lock(file, kind)? {
            return Ok(());
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(io::Error::new(io::ErrorKind::TimedOut, Held { path: path.to_owned(), waited: wait }));
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// The error returned by [`update`] and [`lock`].
#[derive(Debug, thiserror::Error)]
pub enum LockedError<E: std::error::Error + 'static> {
    /// The lock, the file or its replacement could not be opened, read or written.
    #[error("{action} `{}`: {source}", .path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The change itself refused.
    #[error(transparent)]
    Change(E),
}

/// An exclusive lock on `<file>.lock`, released when dropped.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

/// The sidecar lock file of `path`: `<path>.lock`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Takes the exclusive lock of `path` (creating its directory and `<path>.lock` as needed), polling until `wait`
/// ([`flock_within`]): a lock another process keeps longer is an error [`held`] recognises.
pub fn lock(path: &Path, wait: Duration) -> io::Result<FileLock> {
    let lock_path = lock_path(path);
    let open = || crate::platform::open_lock_file(&lock_path);
    let file = match open() {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                fs::create_dir_all(dir)?;
            }
            open()?
        }
        Err(e) => return Err(e),
    };
    flock_within(&file, &lock_path, LockKind::Exclusive, wait)?;
    Ok(FileLock { _file: file })
}

/// Reads `path` without following a symlink at its place: `Ok(None)` when it does not exist.
pub fn read_no_follow(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let mut file = match crate::platform::open_read_no_follow(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "it is not a regular file"));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// Replaces `path` with `bytes` atomically: a temp file created new (never following or reusing what is at its
/// name) in the same directory with mode 0600, synced, then renamed over `path` (which replaces a symlink there
/// rather than writing through it); the directory is synced where the filesystem allows.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let temp = temp_path(path);
    let result = (|| {
        let mut file = crate::platform::create_new_private(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result?;
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Reads `path` (`None` when missing), hands it to `change`, and writes what `change` returns (`None`: leave the
/// file as it is), all under the exclusive lock of `path`, so concurrent updates from any number of processes
/// apply one after another and none is lost.
pub fn update<E: std::error::Error + 'static>(
    path: &Path,
    wait: Duration,
    change: impl FnOnce(Option<&[u8]>) -> Result<Option<Vec<u8>>, E>,
) -> Result<(), LockedError<E>> {
    fn io<E: std::error::Error>(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> LockedError<E> {
        let path = path.to_owned();
        move |source| LockedError::Io { action, path, source }
    }
    let _lock = lock(path, wait).map_err(io("locking", &lock_path(path)))?;
    let old = read_no_follow(path).map_err(io("reading", path))?;
    if let Some(new) = change(old.as_deref()).map_err(LockedError::Change)? {
        write_atomic(path, &new).map_err(io("writing", path))?;
    }
    Ok(())
}

/// A temp file name beside `path`, unique within this process and across processes.
fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_updates_from_threads_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list");
        std::thread::scope(|scope| {
            for i in 0..16 {
                let path = &path;
                scope.spawn(move || {
                    update(path, DEFAULT_WAIT, |old| {
                        let mut text = old.map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
                        text.push_str(&format!("{i}\n"));
                        Ok::<_, std::convert::Infallible>(Some(text.into_bytes()))
                    })
                    .unwrap();
                });
            }
        });
        assert_eq!(fs::read_to_string(&path).unwrap().lines().count(), 16);
    }

    #[test]
    fn an_update_facing_a_lock_another_holder_keeps_fails_within_its_wait_naming_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state");
        let holder = lock(&path, DEFAULT_WAIT).unwrap();
        let started = Instant::now();
        let err = update(&path, Duration::from_millis(50), |_| Ok::<_, std::convert::Infallible>(Some(b"x".to_vec())))
            .unwrap_err();
        assert!(started.elapsed() < DEFAULT_WAIT, "{:?}", started.elapsed());
        let LockedError::Io { source, .. } = &err else { panic!("{err}") };
        assert_eq!(held(source).unwrap().path, lock_path(&path));
        assert!(err.to_string().contains("is locked by another process"), "{err}");
        assert!(!path.exists(), "nothing was written");
        drop(holder);
        update(&path, DEFAULT_WAIT, |_| Ok::<_, std::convert::Infallible>(Some(b"x".to_vec()))).unwrap();
    }

    #[test]
    fn a_symlink_at_the_files_place_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("elsewhere"), "secret").unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), dir.path().join("state")).unwrap();
        let err = read_no_follow(&dir.path().join("state")).unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
    }
}
