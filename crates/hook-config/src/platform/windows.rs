//! The Windows half of [`crate::platform`]: reparse points instead of `O_NOFOLLOW`, `LockFileEx` instead of
//! `flock`, the volume serial number and file index (`GetFileInformationByHandle`) instead of the inode, and the
//! change time of `FILE_BASIC_INFO` instead of `ctime`. No file of Windows blocks an open the way a FIFO does, so
//! the plain open is the non-blocking one.
//!
//! Files and directories are created with the ACL they inherit: under `%APPDATA%` and `%LOCALAPPDATA%` that is the
//! user's own (Windows gives no one else access to a profile), which is what the Unix modes 0600 and 0700 ask for.
#![allow(unsafe_code)]

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::path::Path;

use windows_sys::Win32::Foundation::{ERROR_LOCK_VIOLATION, HANDLE};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_BASIC_INFO, FILE_FLAG_OPEN_REPARSE_POINT, FileBasicInfo,
    GetFileInformationByHandle, GetFileInformationByHandleEx, LOCKFILE_EXCLUSIVE_LOCK, LOCKFILE_FAIL_IMMEDIATELY,
    LockFileEx, UnlockFileEx,
};
use windows_sys::Win32::System::IO::OVERLAPPED;

use super::{Lock, Stat};

/// The variable naming the user's home directory (`C:\Users\<name>`), where the agents keep `.claude`, `.codex`.
pub const HOME_VAR: &str = "USERPROFILE";
/// The variable naming the base of the config home (`%APPDATA%\hooks`): the roaming application data.
pub const CONFIG_HOME_VAR: &str = "APPDATA";
/// The variable naming the state directory (receipts, session state, the load cache): the local application data,
/// `%LOCALAPPDATA%\hooks`.
pub const STATE_HOME_VAR: &str = "LOCALAPPDATA";
/// The managed policy file, under `%ProgramData%` on the system drive, which only administrators can write. The
/// path is fixed, not read from `%ProgramData%`: a repository can set environment variables for its agent.
pub const MANAGED_FILE: &str = "C:\\ProgramData\\hooks\\hooks.yaml";

/// Opens `path` for reading (nothing on Windows blocks an open the way a FIFO without a writer does).
pub(crate) fn open_read_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Opens `path` for reading without following a symlink or junction at its place: such a reparse point is an error
/// saying so.
pub(crate) fn open_read_no_follow(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new().read(true).custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path)?;
    if file.metadata()?.file_type().is_symlink() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "it is a symlink, which is not followed"));
    }
    Ok(file)
}

/// Opens (creating) the lock file at `path` for reading and writing, never through a symlink.
pub(crate) fn open_lock_file(path: &Path) -> io::Result<File> {
    let file =
        OpenOptions::new().read(true).write(true).create(true).custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path)?;
    if file.metadata()?.file_type().is_symlink() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "the lock file is a symlink, which is not followed"));
    }
    Ok(file)
}

/// Creates the file at `path`, which must not exist, for writing (with the ACL its directory passes on).
pub(crate) fn create_new_private(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Creates `dir` and its parents (with the ACL their parent passes on).
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Tries once to take a `kind` lock over the whole of `file` with `LockFileEx`: `Ok(false)` when another handle
/// holds a conflicting one. The lock goes with the handle (closing the file releases it), as an `flock` goes with
/// the open file description.
pub(crate) fn try_lock(file: &File, kind: Lock) -> io::Result<bool> {
    try_lock_range(file, 0, u64::MAX, kind == Lock::Exclusive)
}

/// Tries once to take an exclusive `LockFileEx` lock on the one byte at `offset` of `file` (which may lie past its
/// end): `Ok(false)` when another handle holds a lock over that byte. Locks on different bytes of one file are
/// independent, so one file can carry several flags each held by a different process; Windows enforces them on
/// reads and writes of the locked bytes only. Closing the handle releases the lock.
///
/// ```
/// # #[cfg(windows)] {
/// use hook_config::platform;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("slot");
/// let mine = std::fs::File::create(&path).unwrap();
/// assert!(platform::try_lock_byte(&mine, 1 << 40).unwrap());
/// let other = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
/// assert!(!platform::try_lock_byte(&other, 1 << 40).unwrap(), "held by the first handle");
/// assert!(platform::try_lock_byte(&other, (1 << 40) + 1).unwrap(), "another byte is another lock");
/// platform::unlock_byte(&mine, 1 << 40).unwrap();
/// assert!(platform::try_lock_byte(&other, 1 << 40).unwrap());
/// # }
/// ```
pub fn try_lock_byte(file: &File, offset: u64) -> io::Result<bool> {
    try_lock_range(file, offset, 1, true)
}

/// Releases the lock [`try_lock_byte`] took on the byte at `offset` through this handle.
pub fn unlock_byte(file: &File, offset: u64) -> io::Result<()> {
    let mut overlapped = overlapped_at(offset);
    // SAFETY: the handle is open for the call's duration (borrowed from `file`) and `overlapped` outlives the call.
    let unlocked = unsafe { UnlockFileEx(file.as_raw_handle() as HANDLE, 0, 1, 0, &mut overlapped) };
    if unlocked != 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// An OVERLAPPED naming `offset`, no event: where `LockFileEx` and `UnlockFileEx` start.
fn overlapped_at(offset: u64) -> OVERLAPPED {
    // SAFETY: an all-zero OVERLAPPED is its documented initial state (offset 0, no event).
    let mut overlapped: OVERLAPPED = unsafe { std::mem::zeroed() };
    overlapped.Anonymous.Anonymous.Offset = offset as u32;
    overlapped.Anonymous.Anonymous.OffsetHigh = (offset >> 32) as u32;
    overlapped
}

/// Tries once to lock `len` bytes of `file` from `offset`, exclusive or shared: `Ok(false)` on a conflict.
fn try_lock_range(file: &File, offset: u64, len: u64, exclusive: bool) -> io::Result<bool> {
    let mut flags = LOCKFILE_FAIL_IMMEDIATELY;
    if exclusive {
        flags |= LOCKFILE_EXCLUSIVE_LOCK;
    }
    let mut overlapped = overlapped_at(offset);
    let (low, high) = (len as u32, (len >> 32) as u32);
    // SAFETY: the handle is open for the call's duration (borrowed from `file`) and `overlapped` outlives the call,
    // which completes synchronously on a handle opened without FILE_FLAG_OVERLAPPED.
    let locked = unsafe { LockFileEx(file.as_raw_handle() as HANDLE, flags, 0, low, high, &mut overlapped) };
    if locked != 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    if error.raw_os_error() == Some(ERROR_LOCK_VIOLATION as i32) {
        return Ok(false);
    }
    Err(error)
}

/// Whether the running user owns the file. The state directory is under `%LOCALAPPDATA%`, which Windows lets no
/// other user write, so every file in it is taken as the user's.
pub(crate) fn owned_by_me(_meta: &Metadata) -> bool {
    true
}

/// A stamp that changes whenever the file is rewritten: size and last write time (100 ns units).
pub(crate) fn change_stamp(meta: &Metadata) -> String {
    format!("{}:{}", meta.file_size(), meta.last_write_time())
}

/// Size, modification time, change time and identity (volume serial number and file index) of the file at `path`.
/// A file that cannot be opened for its identity gets 0 there, which no trusted stamp holds, so it is hashed again.
pub(crate) fn stat(path: &Path, meta: &Metadata) -> Stat {
    let (change, identity) = File::open(path).ok().and_then(|f| identity(&f)).unwrap_or((0, 0));
    (meta.len(), super::mtime_ns(meta), change, identity)
}

/// The change time (ns since the epoch) and the volume-and-index identity of an open file.
fn identity(file: &File) -> Option<(i128, u64)> {
    let handle = file.as_raw_handle() as HANDLE;
    // SAFETY: all-zero is a valid value of these plain C structures, filled by the calls below.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is open (borrowed from `file`) and `info` is a writable structure of the expected type.
    if unsafe { GetFileInformationByHandle(handle, &mut info) } == 0 {
        return None;
    }
    // SAFETY: as above.
    let mut basic: FILE_BASIC_INFO = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<FILE_BASIC_INFO>() as u32;
    // SAFETY: the buffer is a FILE_BASIC_INFO of `size` bytes, the class FileBasicInfo asks for.
    let ok = unsafe { GetFileInformationByHandleEx(handle, FileBasicInfo, (&raw mut basic).cast(), size) };
    // FILETIME counts 100 ns from 1601-01-01; the Unix epoch is 11 644 473 600 s later.
    let change = if ok != 0 { (i128::from(basic.ChangeTime) - 116_444_736_000_000_000) * 100 } else { 0 };
    let index = (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow);
    Some((change, index ^ u64::from(info.dwVolumeSerialNumber).rotate_left(32)))
}

/// Whether a regular file may be run as a program: its extension is one `PATHEXT` lists (`.exe`, `.cmd`, …).
pub(crate) fn is_executable(path: &Path, meta: &Metadata) -> bool {
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else { return false };
    meta.is_file() && executable_extensions().iter().any(|known| known.eq_ignore_ascii_case(ext))
}

/// The extensions Windows runs a bare program name with: `PATHEXT`, or its default.
pub(crate) fn executable_extensions() -> Vec<String> {
    let pathext = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".to_owned());
    pathext.split(';').filter_map(|e| e.strip_prefix('.')).filter(|e| !e.is_empty()).map(str::to_owned).collect()
}

/// A canonical path without the `\\?\` prefix Windows puts before it, when it names a drive (`C:\…`) and is short
/// enough to be used without it: the form users type, agents write in their settings and `cmd` accepts.
pub(crate) fn plain_path(path: std::path::PathBuf) -> std::path::PathBuf {
    let Some(text) = path.to_str() else { return path };
    match text.strip_prefix(r"\\?\") {
        Some(rest) if rest.len() < 260 && rest.as_bytes().get(1) == Some(&b':') && !rest.contains(['/', '?']) => {
            std::path::PathBuf::from(rest)
        }
        _ => path,
    }
}

/// The separator of the directories in `PATH`.
pub(crate) const PATH_LIST_SEPARATOR: char = ';';

/// The files a bare program name may run from `dir`: the name as given when it has an extension, else the name with
/// each of `PATHEXT`'s extensions, in its order (as `cmd` searches).
pub(crate) fn program_candidates(dir: &Path, name: &str) -> Vec<std::path::PathBuf> {
    if Path::new(name).extension().is_some() {
        return vec![dir.join(name)];
    }
    executable_extensions().iter().map(|ext| dir.join(format!("{name}.{ext}"))).collect()
}

/// Windows has no FIFOs, devices or sockets among a directory's files.
pub(crate) fn special_kind(_meta: &Metadata) -> Option<&'static str> {
    None
}

/// Opens `path` with `options`, never through a symlink or junction at its last component (an error saying so).
/// The file is created with the ACL its directory passes on (the user's own under `%LOCALAPPDATA%`).
pub fn open_no_follow(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    let file = options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path)?;
    if file.metadata()?.file_type().is_symlink() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "it is a symlink, which is not followed"));
    }
    Ok(file)
}

/// Whether the open `file` is still the file at `path` (not removed or replaced meanwhile): same volume serial
/// number and file index.
pub fn same_file(file: &File, path: &Path) -> bool {
    let there = OpenOptions::new().read(true).custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path);
    match (identity(file), there.ok().as_ref().and_then(identity)) {
        (Some((_, open)), Some((_, there))) => open == there,
        _ => false,
    }
}

/// Reads at `offset` (`seek_read`: the file's cursor moves, which no caller relies on).
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Fills `buf` from `offset`; EOF first is an error.
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, offset) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Writes all of `buf` at `offset`.
pub fn write_all_at(file: &File, mut buf: &[u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_write(file, buf, offset) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => {
                buf = &buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
