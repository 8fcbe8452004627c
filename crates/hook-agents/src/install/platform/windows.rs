//! The Windows half of install's platform module: the rename that never overwrites is a hard link (the caller's
//! fallback); there is no atomic swap of two names, so the caller compares right before a plain rename; files get
//! the ACL of their directory and are runnable by their extension, not by a mode.

use std::fs;
use std::io;
use std::path::Path;

/// The standard library offers no rename that refuses to overwrite: always `Unsupported`, so the caller makes a
/// hard link instead, which never overwrites either (NTFS has them).
pub(crate) fn rename_no_replace(_from: &Path, _to: &Path) -> io::Result<()> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "no rename that refuses to overwrite"))
}

/// Windows cannot swap two names atomically: always `Unsupported`, so the caller compares, then renames.
pub(crate) fn exchange(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "Windows has no atomic exchange of two files"))
}

/// A file install creates where none was gets the ACL of its directory: no permissions to set.
pub(crate) fn new_file_permissions() -> Option<fs::Permissions> {
    None
}

/// Creates the bridge script at `path`, which must not exist (runnable by its `.cmd` extension).
pub(crate) fn create_script(path: &Path, _mode: u32) -> io::Result<fs::File> {
    fs::OpenOptions::new().write(true).create_new(true).open(path)
}

/// Nothing to do: Windows has no mode bits and runs a script by its extension.
pub(crate) fn make_runnable(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}
