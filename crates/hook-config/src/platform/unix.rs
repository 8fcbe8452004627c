//! The Unix half of [`crate::platform`]: open flags and modes through `OpenOptionsExt`, `flock`, inodes.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use rustix::fs::{FlockOperation, OFlags, flock};

use super::{Lock, Stat};

/// The variable naming the user's home directory.
pub const HOME_VAR: &str = "HOME";
/// The variable naming the base of the config home (`<it>/hooks`): `XDG_CONFIG_HOME`, else `~/.config`.
pub const CONFIG_HOME_VAR: &str = "XDG_CONFIG_HOME";
/// The variable naming the state directory (receipts, session state, the load cache): `XDG_STATE_HOME`, else
/// `~/.local/state`.
pub const STATE_HOME_VAR: &str = "XDG_STATE_HOME";
/// The managed policy file: never taken from the environment, which a repository can set for its agent.
pub const MANAGED_FILE: &str = "/etc/hooks/hooks.yaml";

/// Opens `path` for reading without blocking (a FIFO with no writer in its place must not hang the caller).
pub(crate) fn open_read_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).custom_flags(OFlags::NONBLOCK.bits() as i32).open(path)
}

/// Opens `path` for reading without blocking and without following a symlink at its place: a symlink is an error
/// saying so.
pub(crate) fn open_read_no_follow(path: &Path) -> io::Result<File> {
    let opened =
        OpenOptions::new().read(true).custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32).open(path);
    opened.map_err(|e| {
        if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            io::Error::new(e.kind(), "it is a symlink, which is not followed")
        } else {
            e
        }
    })
}

/// Opens (creating, mode 0600) the lock file at `path` for reading and writing, never through a symlink.
pub(crate) fn open_lock_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(0o600)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

/// Creates the file at `path`, which must not exist, for writing, readable by its owner only (0600).
pub(crate) fn create_new_private(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}

/// Creates `dir` and its parents, the new ones readable by their owner only (0700).
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Tries once to take a `kind` `flock` on `file`: `Ok(false)` when another open file holds a conflicting one.
pub(crate) fn try_lock(file: &File, kind: Lock) -> io::Result<bool> {
    let operation = match kind {
        Lock::Exclusive => FlockOperation::NonBlockingLockExclusive,
        Lock::Shared => FlockOperation::NonBlockingLockShared,
    };
    match flock(file, operation) {
        Ok(()) => Ok(true),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK || e == rustix::io::Errno::INTR => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Whether the running user owns the file.
pub(crate) fn owned_by_me(meta: &Metadata) -> bool {
    meta.uid() == rustix::process::geteuid().as_raw()
}

/// A stamp that changes whenever the file is rewritten: size and modification time.
pub(crate) fn change_stamp(meta: &Metadata) -> String {
    format!("{}:{}.{}", meta.len(), meta.mtime(), meta.mtime_nsec())
}

/// Size, mtime, ctime and inode of the file at `_path` whose metadata is `meta`.
pub(crate) fn stat(_path: &Path, meta: &Metadata) -> Stat {
    let ctime_ns = i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
    (meta.len(), super::mtime_ns(meta), ctime_ns, meta.ino())
}

/// Whether a regular file may be run as a program: any execute bit.
pub(crate) fn is_executable(_path: &Path, meta: &Metadata) -> bool {
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

/// A canonical path as it is: Unix has one form.
pub(crate) fn plain_path(path: std::path::PathBuf) -> std::path::PathBuf {
    path
}

/// The separator of the directories in `PATH`.
pub(crate) const PATH_LIST_SEPARATOR: char = ':';

/// The files a bare program name may run from `dir`: the name itself.
pub(crate) fn program_candidates(dir: &Path, name: &str) -> Vec<std::path::PathBuf> {
    vec![dir.join(name)]
}

/// What a file that is neither a regular file nor a directory is ("a FIFO", "a device", "a socket"), or `None`.
pub(crate) fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        None
    }
}

/// Opens `path` with `options`, never through a symlink at its last component (an error saying so), never waiting
/// on a FIFO there, and creating a file readable by its owner only (0600). Anything but a regular file is the
/// caller's to refuse.
pub fn open_no_follow(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    let opened = options.mode(0o600).custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32).open(path);
    opened.map_err(|e| {
        if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            io::Error::new(e.kind(), "it is a symlink, which is not followed")
        } else {
            e
        }
    })
}

/// Whether the open `file` is still the file at `path` (not removed or replaced meanwhile): same device and inode.
pub fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(open), Ok(there)) => open.dev() == there.dev() && open.ino() == there.ino(),
        _ => false,
    }
}

/// Reads at `offset` without moving the file's cursor (`pread`).
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

/// Fills `buf` from `offset` (`pread` until full); EOF first is an error.
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Writes all of `buf` at `offset` (`pwrite`).
pub fn write_all_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}
