//! The Unix half of install's platform module: `renameat2` and file modes.

use std::fs;
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use rustix::fs::{CWD, RenameFlags, renameat_with};
use rustix::io::Errno;

/// Moves `from` to `to` unless something is there (`AlreadyExists` then), atomically.
pub(crate) fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE).map_err(error)
}

/// Swaps the files at `a` and `b` atomically (`NotFound` when one is missing).
pub(crate) fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(error)
}

/// The kernel's answer as an I/O error, a flag the filesystem (or kernel) lacks as `Unsupported`.
fn error(errno: Errno) -> io::Error {
    if errno == Errno::INVAL || errno == Errno::NOSYS || errno == Errno::OPNOTSUPP {
        return io::Error::new(io::ErrorKind::Unsupported, io::Error::from(errno));
    }
    errno.into()
}

/// The permissions of a file install creates where none was: a new file's (0666, narrowed by the umask).
pub(crate) fn new_file_permissions() -> Option<fs::Permissions> {
    Some(fs::Permissions::from_mode(0o666))
}

/// Creates the file install writes at `path` (a bridge script, 0755, or a module the agent loads, 0644), which must
/// not exist.
pub(crate) fn create_script(path: &Path, mode: u32) -> io::Result<fs::File> {
    fs::OpenOptions::new().write(true).create_new(true).mode(mode).open(path)
}

/// Gives the file its mode back after the umask narrowed it at creation.
pub(crate) fn make_runnable(path: &Path, mode: u32) -> io::Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}
