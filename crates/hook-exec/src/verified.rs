//! Running exactly the bytes that were verified: the program is read once, through one open descriptor, into a
//! sealed in-memory file while it is hashed; the digest is compared with the one the caller expects; and the child
//! executes that sealed copy (`fexecve`), never the path again. No swap of the file between the check and the exec
//! — a rename over it, an edit in place, a same-size edit with its times put back — can make it run other bytes.
//!
//! Linux only (`memfd_create`, file seals). A script (`#!`) runs too: its interpreter reads the sealed copy through
//! `/dev/fd/N`, which is then what it sees as its own path (`$0`); a script should find its files through its
//! environment (the hook engine sets `HOOK_PROJECT_DIR`), not through `$0`. Elsewhere the program is hashed
//! through the descriptor and executed by path, which leaves the short window between the two.

#[cfg(target_os = "linux")]
use std::ffi::CString;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
#[cfg(target_os = "linux")]
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use sha2::{Digest, Sha256};

#[cfg(target_os = "linux")]
use crate::invocation::Invocation;
use crate::result::{OsError, SpawnError};

/// A program checked against its expected digest, as a sealed copy ready to be executed.
pub(crate) struct Frozen {
    /// Executed through `fexecve` on Linux; elsewhere only held until the exec by path.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fd: OwnedFd,
}

/// Reads `program` through one descriptor into a sealed memory file, hashing what it reads; the copy is returned
/// only when its sha256 (lowercase hex) is `expected`.
#[cfg(target_os = "linux")]
pub(crate) fn freeze(program: &OsString, expected: &str) -> Result<Frozen, SpawnError> {
    use rustix::fs::{MemfdFlags, SealFlags};
    let io_error = |e: io::Error| SpawnError::Io { program: program.clone(), source: OsError::from(&e) };
    let mut source = open_program(program)?;
    let memfd = rustix::fs::memfd_create("hook-exec-verified", MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)
        .map_err(|e| io_error(e.into()))?;
    let mut copy = std::fs::File::from(memfd);
    let found = copy_hashing(&mut source, &mut copy).map_err(io_error)?;
    if found != expected {
        return Err(SpawnError::Changed { program: program.clone(), expected: expected.to_owned(), found });
    }
    rustix::fs::fcntl_add_seals(&copy, SealFlags::SHRINK | SealFlags::GROW | SealFlags::WRITE | SealFlags::SEAL)
        .map_err(|e| io_error(e.into()))?;
    Ok(Frozen { fd: OwnedFd::from(copy) })
}

/// Elsewhere: hashes through the descriptor; the exec then goes by path.
#[cfg(not(target_os = "linux"))]
pub(crate) fn freeze(program: &OsString, expected: &str) -> Result<Frozen, SpawnError> {
    let io_error = |e: io::Error| SpawnError::Io { program: program.clone(), source: OsError::from(&e) };
    let mut source = open_program(program)?;
    let found = copy_hashing(&mut source, &mut io::sink()).map_err(io_error)?;
    if found != expected {
        return Err(SpawnError::Changed { program: program.clone(), expected: expected.to_owned(), found });
    }
    Ok(Frozen { fd: OwnedFd::from(source) })
}

/// Opens the program for reading and checks that it is a regular file someone may execute: the sealed copy is
/// executable whatever the original's mode was, so the mode is checked here.
fn open_program(program: &OsString) -> Result<std::fs::File, SpawnError> {
    let file = std::fs::File::open(Path::new(program)).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => SpawnError::NotFound { program: program.clone() },
        io::ErrorKind::PermissionDenied => SpawnError::NotExecutable { program: program.clone() },
        _ => SpawnError::Io { program: program.clone(), source: OsError::from(&e) },
    })?;
    let meta = file.metadata().map_err(|e| SpawnError::Io { program: program.clone(), source: OsError::from(&e) })?;
    if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
        return Err(SpawnError::NotExecutable { program: program.clone() });
    }
    Ok(file)
}

fn copy_hashing(from: &mut impl Read, to: &mut impl Write) -> io::Result<String> {
    let mut hasher = Sha256::new();
    // Zeroed before use, so kept small: every page of it is touched at each spawn of a verified program.
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        to.write_all(&buf[..n])?;
    }
    Ok(hex::encode(hasher.finalize()))
}

/// The environment the child gets, as `KEY=value` strings: what [`Invocation::apply_env`] gives a `Command`, built
/// here because the child's `fexecve` needs it ready before the fork.
#[cfg(target_os = "linux")]
pub(crate) fn final_env(inv: &Invocation) -> Vec<CString> {
    let mut vars: Vec<(OsString, OsString)> = std::env::vars_os().filter(|(key, _)| inv.env.passes(key)).collect();
    for (key, value) in &inv.env_add {
        vars.retain(|(k, _)| k != key);
        vars.push((key.clone(), value.clone()));
    }
    vars.into_iter()
        .filter_map(|(key, value)| {
            let mut pair = key.as_bytes().to_vec();
            pair.push(b'=');
            pair.extend_from_slice(value.as_bytes());
            CString::new(pair).ok()
        })
        .collect()
}

/// The argument vector as C strings; `None` when one holds a NUL byte (which no exec can pass).
#[cfg(target_os = "linux")]
pub(crate) fn c_args(args: &[OsString]) -> Option<Vec<CString>> {
    args.iter().map(|arg| CString::new(arg.as_bytes()).ok()).collect()
}
