//! The canonical form of a path, in one walk of it.
//!
//! `std::fs::canonicalize` asks glibc's `realpath`, which calls `readlink` on every prefix of the path in turn: a
//! workspace six directories deep costs six system calls and 21 component lookups, and one `hook` call resolves its
//! workspace, the hook's working directory and its program several times over. On Linux the kernel already knows the
//! answer after one walk: the path is opened without being read (`O_PATH`) and the link `/proc/self/fd/N` names what
//! it reached. Where that cannot be trusted (no `/proc`, a name the kernel marks as deleted, anything but an
//! absolute path) the answer is `std::fs::canonicalize`'s, so the result is the same in every case. Cheaper ways
//! come first: a path spelled canonically that the kernel reaches without a link is its own answer, so is one whose
//! spelling only needs tidying (`.`, a repeated or trailing `/`, relative to the working directory), and a link met
//! on the way is replaced by what it names, by hand, while the result stays spelled canonically (a fresh process
//! has never looked into `/proc/self/fd`, which makes its first name there the dearest of the three).

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
        if let Some(real) = lexically(path) {
            return Ok(real);
        }
        match walk_without_links(path) {
            Some(Ok(())) => return Ok(path.to_path_buf()),
            // Only a link on the way is worth following by hand; any other failure is the other ways' to report.
            Some(Err(rustix::io::Errno::LOOP)) => {
                if let Some(real) = through_links(path) {
                    return Ok(real);
                }
            }
            _ => {}
        }
        if let Some(real) = through_proc(path)? {
            return Ok(real);
        }
    }
    std::fs::canonicalize(path).map(crate::platform::plain_path)
}

/// How many links [`through_links`] follows, and how many components it reads, before it leaves the path to the
/// other ways.
#[cfg(target_os = "linux")]
const MAX_LINKS: usize = 8;
#[cfg(target_os = "linux")]
const MAX_COMPONENTS: usize = 64;

/// For a path spelled canonically whose walk meets a symbolic link (`/bin/true` on a merged-`/usr` system): the link
/// replaced by what it names, as the kernel's walk replaces it, one link at a time, for as long as the result is
/// spelled canonically; the answer once the kernel reaches it without a link. Cheaper than the name in
/// `/proc/self/fd`, whose directory a fresh process has never looked at. `None` at any doubt (a target with `.` or
/// `..`, a missing name, too many links): the other ways answer then, errors included.
#[cfg(target_os = "linux")]
fn through_links(path: &Path) -> Option<PathBuf> {
    use std::ffi::OsString;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};

    let mut current = path.as_os_str().as_bytes().to_vec();
    for _ in 0..MAX_LINKS {
        let (end, target) = first_link(&current)?;
        let mut next = match target.first() {
            Some(b'/') => target,
            _ => {
                // Relative to the directory holding the link (the root's is the empty prefix).
                let dir = current[..end].iter().rposition(|&b| b == b'/')?;
                [&current[..dir], b"/", &target].concat()
            }
        };
        next.extend_from_slice(&current[end..]);
        current = next;
        let candidate = PathBuf::from(OsString::from_vec(current.clone()));
        match walk_without_links(&candidate)? {
            Ok(()) => return Some(candidate),
            Err(rustix::io::Errno::LOOP) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Where the first symbolic link of a path spelled canonically ends (the length of its prefix), and what it names.
#[cfg(target_os = "linux")]
fn first_link(path: &[u8]) -> Option<(usize, Vec<u8>)> {
    if !spelled_canonically(path) || path.len() == 1 {
        return None;
    }
    let ends = (1..path.len()).filter(|&i| path[i] == b'/').chain([path.len()]);
    for end in ends.take(MAX_COMPONENTS) {
        match rustix::fs::readlink(&path[..end], Vec::new()) {
            Ok(target) => return Some((end, target.into_bytes())),
            // Not a link: the walk goes on. Anything else (a missing name, a file in the middle) is for the other
            // ways to report.
            Err(rustix::io::Errno::INVAL) => {}
            Err(_) => return None,
        }
    }
    None
}

/// For a path that only its spelling keeps from being canonical — relative, or with `.`, repeated or trailing `/`,
/// but no `..` — whose walk the kernel finishes without meeting a symbolic link: that spelling tidied, which is then
/// its canonical form. A relative path is taken from the working directory, whose name the kernel gives canonically
/// (`getcwd`). The walk is of the path as given, so `file/.` and `file/` still fail as a path through a file must;
/// `None` leaves everything else, errors included, to the other ways.
#[cfg(target_os = "linux")]
fn lexically(path: &Path) -> Option<PathBuf> {
    use std::ffi::OsString;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};

    let given = path.as_os_str().as_bytes();
    if given.is_empty() || spelled_canonically(given) {
        return None;
    }
    let absolute = match given.first() {
        Some(b'/') => given.to_vec(),
        _ => {
            // The kernel names a working directory outside this process's root `(unreachable)/…`: not a path.
            let cwd = rustix::process::getcwd(Vec::new()).ok().filter(|cwd| cwd.to_bytes().starts_with(b"/"))?;
            [cwd.to_bytes(), b"/", given].concat()
        }
    };
    let parts: Vec<&[u8]> = absolute.split(|&b| b == b'/').filter(|part| !matches!(*part, b"" | b".")).collect();
    if parts.iter().any(|part| *part == b"..".as_slice()) {
        return None;
    }
    let mut tidy = Vec::with_capacity(absolute.len());
    for part in &parts {
        tidy.push(b'/');
        tidy.extend_from_slice(part);
    }
    if tidy.is_empty() {
        tidy.push(b'/');
    }
    // The tidied form is canonical only when it names what the given walk reaches: every name on the way a
    // directory (a `.` or a trailing `/` after a file fails here) and none of them a link.
    let how = rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC;
    let walked = rustix::fs::openat2(
        rustix::fs::CWD,
        absolute.as_slice(),
        how,
        rustix::fs::Mode::empty(),
        rustix::fs::ResolveFlags::NO_SYMLINKS,
    );
    walked.ok().map(|_| PathBuf::from(OsString::from_vec(tidy)))
}

/// Absolute, and no `.`, `..`, repeated or trailing `/`.
#[cfg(target_os = "linux")]
fn spelled_canonically(bytes: &[u8]) -> bool {
    bytes == b"/"
        || (bytes.starts_with(b"/")
            && !bytes.ends_with(b"/")
            && bytes[1..].split(|&b| b == b'/').all(|part| !matches!(part, b"" | b"." | b"..")))
}

/// For a path spelled canonically (absolute, no `.`, `..`, repeated or trailing `/`): how the kernel's walk of it
/// ends when it may follow no symbolic link (`openat2` with `RESOLVE_NO_SYMLINKS`). `Ok` means the path is its own
/// canonical form; `ELOOP`, that a link is on the way; anything else (a missing name, a kernel without `openat2`)
/// leaves the answer and the error to the slower walk. `None` for a path spelled otherwise.
#[cfg(target_os = "linux")]
fn walk_without_links(path: &Path) -> Option<rustix::io::Result<()>> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use std::os::unix::ffi::OsStrExt;

    spelled_canonically(path.as_os_str().as_bytes()).then(|| {
        let how = OFlags::PATH | OFlags::CLOEXEC;
        rustix::fs::openat2(rustix::fs::CWD, path, how, Mode::empty(), ResolveFlags::NO_SYMLINKS).map(drop)
    })
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
    use super::{canonicalize, walk_without_links};
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
        // A link to a link, a relative link with `..` in its target, a link whose target is a file.
        std::os::unix::fs::symlink(root.join("link"), root.join("link2")).unwrap();
        std::os::unix::fs::symlink("../a/b", root.join("a/up")).unwrap();
        std::os::unix::fs::symlink("file", root.join("a/to-file")).unwrap();
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
            root.join("link2/c"),
            root.join("a/up/c"),
            root.join("a/rel/"),
            root.join("a/to-file"),
            root.join("a/b/c/"),
            format!("{}//a/b", root.display()).into(),
            root.join("a/rel"),
            root.join("a/file"),
            root.join("fifo"),
            root.join("name (deleted)"),
            "/".into(),
            ".".into(),
            "./".into(),
            root.join("a/b/./c"),
            root.join("a/b/c/."),
            root.join("a/b/c/./"),
            root.join("link/."),
            root.join("a/rel/."),
            root.join("."),
        ] {
            assert_eq!(canonicalize(&case).unwrap(), fs::canonicalize(&case).unwrap(), "{}", case.display());
        }
        for (case, errno) in [
            (root.join("missing"), Errno::NOENT),
            (root.join("dangling"), Errno::NOENT),
            (root.join("a/file/x"), Errno::NOTDIR),
            (root.join("loop"), Errno::LOOP),
            (root.join("loop/x"), Errno::LOOP),
            (root.join("a/to-file/x"), Errno::NOTDIR),
            (root.join("link2/missing"), Errno::NOENT),
            ("".into(), Errno::NOENT),
            (root.join("a/file/."), Errno::NOTDIR),
            (root.join("a/file/"), Errno::NOTDIR),
            (root.join("a/./missing"), Errno::NOENT),
            (root.join("a/to-file/."), Errno::NOTDIR),
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
        let already_canonical = |path: &std::path::Path| matches!(walk_without_links(path), Some(Ok(())));
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
        // Only a link on the way reads as one: that is when the path is followed by hand.
        assert!(matches!(walk_without_links(&root.join("link/b")), Some(Err(Errno::LOOP))));
        assert!(matches!(walk_without_links(&root.join("a/missing")), Some(Err(Errno::NOENT))));
        assert!(walk_without_links(std::path::Path::new("a/b")).is_none());
    }

    /// A spelling that only `.`, repeated or trailing `/` or being relative keeps from canonical is tidied by hand,
    /// and only when the walk as given reaches a directory without a link.
    #[test]
    fn only_a_tidied_spelling_without_links_is_answered_lexically() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/file"), "").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        assert_eq!(super::lexically(&root.join("a/./b/.")), Some(root.join("a/b")));
        assert_eq!(super::lexically(&root.join("a//b/")), Some(root.join("a/b")));
        assert_eq!(super::lexically(std::path::Path::new("/.")), Some("/".into()));
        assert_eq!(super::lexically(std::path::Path::new(".")), Some(std::env::current_dir().unwrap()));
        for not in [
            root.join("a/b"),
            root.join("link/."),
            root.join("a/b/../b"),
            root.join("a/file/."),
            root.join("a/missing/."),
            "".into(),
        ] {
            assert_eq!(super::lexically(&not), None, "{}", not.display());
        }
    }

    /// A link met on the way is followed by hand when what it names is spelled canonically; not otherwise.
    #[test]
    fn links_are_followed_by_hand_only_into_canonical_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("usr/bin")).unwrap();
        fs::write(root.join("usr/bin/tool"), "").unwrap();
        std::os::unix::fs::symlink("usr/bin", root.join("bin")).unwrap();
        std::os::unix::fs::symlink("./usr/bin", root.join("dotted")).unwrap();
        assert_eq!(super::through_links(&root.join("bin/tool")), Some(root.join("usr/bin/tool")));
        assert_eq!(super::through_links(&root.join("dotted/tool")), None);
        assert_eq!(canonicalize(root.join("dotted/tool")).unwrap(), root.join("usr/bin/tool"));
    }
}
