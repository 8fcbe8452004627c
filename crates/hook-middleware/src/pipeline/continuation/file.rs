//! A session's state file: opened without following a symlink or waiting on a FIFO, locked within a bound, read and
//! rewritten in place; and the sweep that removes the files of sessions a day old.

use hook_config::platform;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hook_config::locked::{self, LockKind};
use sha2::{Digest, Sha256};

use super::{EXPIRY_SECS, MAX_NOTIFIED, Missing, Session};

/// The most bytes of a session file read: a full one (1,024 notices) is under 100 KiB.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The file of session `key` under `dir`. The name is a digest of the session id, so any id makes a safe file name.
pub(super) fn session_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(hex::encode(&Sha256::digest(key.as_bytes())[..16]))
}

/// Whether `name` is a session file's: 32 lowercase hex digits.
fn is_session_name(name: &str) -> bool {
    name.len() == 32 && name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// One session's file, open and exclusively locked until dropped.
pub(super) struct SessionFile {
    pub(super) path: PathBuf,
    file: File,
}

impl SessionFile {
    /// Opens the file of session `key` under `dir` (creating it, or `None` when it is missing, as `missing` says)
    /// and takes its lock, waiting at most `wait`. Creating a file may [`sweep`] the directory first.
    pub(super) fn open(dir: &Path, key: &str, missing: Missing, wait: Duration) -> io::Result<Option<SessionFile>> {
        let path = session_path(dir, key);
        // A sweep may remove the file between this open and the lock: the lock is then on a file no other process
        // will open, so it is opened again. Twice more is plenty: a sweep removes only files a day old.
        for _ in 0..3 {
            let file = match open_regular(&path, missing == Missing::Create) {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::NotFound && missing == Missing::Skip => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::create_dir_all(dir)?;
                    open_regular(&path, true)?
                }
                Err(e) => return Err(e),
            };
            let created = file.metadata()?.len() == 0;
            if created {
                sweep(dir, SystemTime::now());
            }
            locked::flock_within(&file, &path, LockKind::Exclusive, wait)?;
            if still_at(&file, &path) {
                return Ok(Some(SessionFile { path, file }));
            }
        }
        Err(io::Error::other("it was removed three times while it was being opened"))
    }

    /// Reads the state (empty when new, expired or unreadable), applies `change` and writes it back; a write that
    /// failed comes back beside the value (the decision stands; only keeping it failed).
    pub(super) fn update<T, F: FnOnce(&mut Session) -> T>(
        &mut self,
        change: F,
    ) -> Result<(T, Option<io::Error>), (io::Error, F)> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let mut text = String::new();
        if let Err(err) = (&self.file).take(MAX_FILE_BYTES).read_to_string(&mut text) {
            return Err((err, change));
        }
        let mut state: Session = serde_json::from_str(&text).unwrap_or_default();
        if now.saturating_sub(state.updated) > EXPIRY_SECS {
            state = Session::default();
        }
        let value = change(&mut state);
        if state.notified.len() > MAX_NOTIFIED {
            state.notified.clear();
        }
        state.updated = now;
        let bytes = serde_json::to_vec(&state).unwrap_or_default();
        let written = self.file.rewind().and_then(|()| self.file.set_len(0)).and_then(|()| self.file.write_all(&bytes));
        Ok((value, written.err()))
    }
}

/// Opens `path` for reading and writing (creating it with mode 0600 when `create`), never through a symlink at its
/// place and never waiting on what is there: anything but a regular file (a FIFO) is an error.
fn open_regular(path: &Path, create: bool) -> io::Result<File> {
    let file =
        platform::open_no_follow(OpenOptions::new().read(true).write(true).create(create).truncate(false), path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "it is not a regular file"));
    }
    Ok(file)
}

/// Whether `file` is still the file at `path` (a sweep did not remove it meanwhile).
fn still_at(file: &File, path: &Path) -> bool {
    platform::same_file(file, path)
}

/// How often a state directory is swept at most: once an hour.
const SWEEP_EVERY: Duration = Duration::from_secs(60 * 60);

/// The most directory entries one sweep looks at: it stays a few milliseconds however many sessions there are.
const SWEEP_ENTRIES: usize = 10_000;

/// The file whose modification time says when the directory was last swept.
const SWEPT: &str = ".swept";

/// Removes the expired session files of `dir` (not written for [`EXPIRY_SECS`]), at most once per [`SWEEP_EVERY`]
/// (the time of the last sweep is the modification time of `dir/.swept`) and looking at no more than
/// [`SWEEP_ENTRIES`] entries. Called when a session file is created, so the directory holds about the sessions of
/// the last day. A file is removed only under its lock, taken without waiting: one another process holds is left
/// alone, and so is one written since its age was read. Failures are ignored: the next sweep tries again.
fn sweep(dir: &Path, now: SystemTime) {
    let marker = dir.join(SWEPT);
    let last = fs::symlink_metadata(&marker).and_then(|m| m.modified());
    if last.is_ok_and(|last| now.duration_since(last).is_ok_and(|age| age < SWEEP_EVERY)) {
        return;
    }
    // Claimed before the work, so concurrent creators do not all sweep.
    let claimed = open_regular(&marker, true).and_then(|mut file| {
        file.set_len(0)?;
        writeln!(file, "{}", now.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0))?;
        file.set_modified(now)
    });
    if claimed.is_err() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else { return };
    let expiry = Duration::from_secs(EXPIRY_SECS);
    for entry in entries.take(SWEEP_ENTRIES).flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_session_name) {
            continue;
        }
        let expired = |meta: &fs::Metadata| {
            meta.is_file() && meta.modified().is_ok_and(|m| now.duration_since(m).is_ok_and(|age| age > expiry))
        };
        if entry.metadata().is_ok_and(|meta| expired(&meta)) {
            remove_unless_held(&entry.path(), expired);
        }
    }
}

/// Removes `path` under its lock, taken without waiting, if it is still `expired` then.
fn remove_unless_held(path: &Path, expired: impl Fn(&fs::Metadata) -> bool) {
    let Ok(file) = open_regular(path, false) else { return };
    if locked::flock_within(&file, path, LockKind::Exclusive, Duration::ZERO).is_err() {
        return;
    }
    if file.metadata().is_ok_and(|meta| expired(&meta)) && still_at(&file, path) {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Sessions, StateAccess};
    use super::*;
    use hook_types::Limits;

    fn quick() -> StateAccess {
        StateAccess::new(&Limits { dispatch_deadline_ms: 400, ..Limits::default() })
    }

    #[test]
    fn creating_a_session_file_sweeps_expired_ones_but_not_a_held_or_a_fresh_one_and_at_most_once_an_hour() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::in_dir(dir.path().to_path_buf());
        let two_days_ago = SystemTime::now() - Duration::from_secs(2 * EXPIRY_SECS);
        let old = |key: &str| {
            let path = session_path(dir.path(), key);
            fs::write(&path, "{}").unwrap();
            File::options().write(true).open(&path).unwrap().set_modified(two_days_ago).unwrap();
            path
        };
        let expired = old("expired");
        let held_path = old("held");
        let held = File::open(&held_path).unwrap();
        locked::flock_within(&held, &held_path, LockKind::Exclusive, Duration::ZERO).unwrap();
        let fresh = session_path(dir.path(), "fresh");
        fs::write(&fresh, "{}").unwrap();
        let stranger = dir.path().join("not-a-session");
        fs::write(&stranger, "").unwrap();
        File::options().write(true).open(&stranger).unwrap().set_modified(two_days_ago).unwrap();

        let mut access = quick();
        sessions.first_notices(Some("new"), vec!["k".to_owned()], false, &mut access);
        assert!(access.problems.is_empty(), "{:?}", access.problems);
        assert!(!expired.exists(), "the expired file was removed");
        assert!(held_path.exists() && fresh.exists() && stranger.exists());
        assert!(session_path(dir.path(), "new").exists());

        // Within the hour, another new session sweeps nothing.
        drop(held);
        let again = old("expired-again");
        sessions.first_notices(Some("newer"), vec!["k".to_owned()], false, &mut access);
        assert!(again.exists() && held_path.exists());
        // An hour later it does.
        let marker = dir.path().join(SWEPT);
        File::options().write(true).open(&marker).unwrap().set_modified(two_days_ago).unwrap();
        sessions.first_notices(Some("newest"), vec!["k".to_owned()], false, &mut access);
        assert!(!again.exists() && !held_path.exists());
        assert!(session_path(dir.path(), "new").exists() && fresh.exists());
    }
}
