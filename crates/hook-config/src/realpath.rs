//! The canonical form of a path, in one walk of it.
//!
//! `std::fs::canonicalize` asks glibc's `realpath`, which calls `readlink` on every prefix of the path in turn: a
//! workspace six directories deep costs six system calls and 21 component lookups, and one `hook` call resolves its
//! workspace, the hook's working directory and its program several times over. On Linux the kernel already knows the
//! answer after one walk: the path is opened without being read (`O_PATH`) and the link `/proc/self/fd/N` names what
//! it reached. Where that cannot be trusted (no `/proc`, a name the kernel marks as deleted, anything but an
//! absolute path) the answer is `std::fs::canonicalize`'s, so the result is the same in every case.

use std::io;
use std::path::{Path, PathBuf};

/// `path` with every symbolic link, `.` and `..` resolved, as an absolute path: what
/// [`std::fs::canonicalize`] returns, and its errors when the path does not exist or cannot be reached.
///
/// # Errors
///
/// The [`io::Error`] of the walk: `NotFound` for a missing component, `NotADirectory` for a path through a file,
/// and so on, as [`std::fs::canonicalize`] reports them.
///
/// # Examples
///
/// ```
/// let dir = std::env::temp_dir();
/// assert_eq!(hook_config::canonicalize(&dir).unwrap(), std::fs::canonicalize(&dir).unwrap());
/// assert!(hook_config::canonicalize(dir.join("no-such-name/x")).is_err());
/// ```
pub fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref();
    #[cfg(target_os = "linux")]
    {
        if already_canonical(path) {
            return Ok(path.to_path_buf());
        }
        if let Some(real) = through_proc(path)? {
            return Ok(real);
        }
    }
    std::fs::canonicalize(path)
}

/// Whether `path` is its own canonical form: it is spelled as one (absolute, no `.`, `..`, repeated or trailing
/// `/`) and the kernel reaches it without following a single symbolic link (`openat2` with `RESOLVE_NO_SYMLINKS`).
/// Any doubt (a link on the way, a missing name, a kernel without `openat2`) answers `false`, and the slower walk
/// gives the answer and the error.
#[cfg(target_os = "linux")]
fn already_canonical(path: &Path) -> bool {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use std::os::unix::ffi::OsStrExt;

    let bytes = path.as_os_str().as_bytes();
    let spelled_canonically = bytes == b"/"
        || (bytes.starts_with(b"/")
            && !bytes.ends_with(b"/")
            && bytes[1..].split(|&b| b == b'/').all(|part| !matches!(part, b"" | b"." | b"..")));
    spelled_canonically
        && rustix::fs::openat2(
            rustix::fs::CWD,
            path,
            OFlags::PATH | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS,
        )
        .is_ok()
}

/// The name `/proc/self/fd/N` gives for `path` opened with `O_PATH`; `Ok(None)` when that name cannot be used.
#[cfg(target_os = "linux")]
fn through_proc(path: &Path) -> io::Result<Option<PathBuf>> {
    use rustix::fs::{Mode, OFlags};
    use std::os::unix::ffi::OsStrExt;

    // `O_PATH` opens without reading: a FIFO does not block, a file without read permission still resolves.
    let fd = rustix::fs::open(path, OFlags::PATH | OFlags::CLOEXEC, Mode::empty()).map_err(io::Error::from)?;
    let name = format!("/proc/self/fd/{}", rustix::fd::AsRawFd::as_raw_fd(&fd));
    let Ok(real) = std::fs::read_link(&name) else { return Ok(None) };
    let bytes = real.as_os_str().as_bytes();
    // A name that is not absolute is not a path (`anon_inode:…`, or outside this process's root); one that ends
    // in " (deleted)" may be a file that really has that name, or one removed since the walk: either way ask again.
    if !bytes.starts_with(b"/") || bytes.ends_with(b" (deleted)") {
        return Ok(None);
    }
    Ok(Some(real))
}

#[cfg(test)]
mod tests {
    use super::{already_canonical, canonicalize};
    use rustix::io::Errno;
    use std::fs;

    /// Every answer is `std::fs::canonicalize`'s, on real files: links, `..`, relative paths, errors.
    #[test]
    fn agrees_with_std() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b/c")).unwrap();
        fs::write(root.join("a/file"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("a/b"), root.join("link")).unwrap();
        std::os::unix::fs::symlink("b/c", root.join("a/rel")).unwrap();
        std::os::unix::fs::symlink(root.join("missing"), root.join("dangling")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        fs::create_dir(root.join("name (deleted)")).unwrap();
        let fifo = root.join("fifo");
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, 0o600.into(), 0).unwrap();
        for case in [
            root.to_path_buf(),
            root.join("a/b/c"),
            root.join("a/./b/../b/c/"),
            root.join("link"),
            root.join("link/c/.."),
            root.join("link/c"),
            root.join("a/b/c/"),
            format!("{}//a/b", root.display()).into(),
            root.join("a/rel"),
            root.join("a/file"),
            root.join("fifo"),
            root.join("name (deleted)"),
            "/".into(),
            ".".into(),
        ] {
            assert_eq!(canonicalize(&case).unwrap(), fs::canonicalize(&case).unwrap(), "{}", case.display());
        }
        for (case, errno) in [
            (root.join("missing"), Errno::NOENT),
            (root.join("dangling"), Errno::NOENT),
            (root.join("a/file/x"), Errno::NOTDIR),
            (root.join("loop"), Errno::LOOP),
            ("".into(), Errno::NOENT),
        ] {
            let ours = canonicalize(&case).unwrap_err().raw_os_error();
            let std = fs::canonicalize(&case).unwrap_err().raw_os_error();
            let expected = Some(errno.raw_os_error());
            assert_eq!((ours, std), (expected, expected), "{}", case.display());
        }
    }

    /// The fast answer is given only for a path spelled canonically that reaches its target through no link.
    #[test]
    fn only_a_canonical_spelling_without_links_is_taken_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        assert!(already_canonical(&root.join("a/b")));
        assert!(already_canonical(std::path::Path::new("/")));
        for not in [
            root.join("link/b"),
            root.join("link"),
            root.join("a/./b"),
            root.join("a/b/.."),
            root.join("a/b/"),
            format!("{}//a", root.display()).into(),
            root.join("a/missing"),
            "a/b".into(),
        ] {
            assert!(!already_canonical(&not), "{}", not.display());
        }
    }
}
