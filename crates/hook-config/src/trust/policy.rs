//! The managed file's integrity (docs/trust.md#origins): a policy file the running user can rewrite is not much of a policy.
//! It is still loaded — refusing it would let anyone who can write it switch the policy off — with a warning.
//!
//! The check reads the mode bits instead of asking `access(2)`. For root, `access(2)` says "writable" to every file
//! (CAP_DAC_OVERRIDE), so it could not tell a policy file that is meant to be locked down from one left open. The
//! mode bits say what the file's owner allowed: writable when the owner is the running user and the owner write bit
//! is set, or when any group or other write bit is set (group membership is not checked: a group-writable policy is
//! suspicious whoever is in the group). A root agent can rewrite any file whatever its mode; no check changes that,
//! and the bits still tell the operator whether the policy was left open. The directory is checked the same way,
//! since whoever can write it can replace the file.

#[cfg(unix)]
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::model::Issue;
#[cfg(unix)]
use crate::model::IssueSeverity;

/// Windows: the managed file's ACL is not read (a gap RELIABILITY.md lists), so no warning is given; `%ProgramData%`
/// lets users create files but not change those an administrator made.
#[cfg(windows)]
pub(crate) fn managed_file_issue(_path: &Path) -> Option<Issue> {
    None
}

/// A warning when the managed file, or the directory holding it, is writable by the running user; `None` when the
/// file does not exist or is locked down.
#[cfg(unix)]
pub(crate) fn managed_file_issue(path: &Path) -> Option<Issue> {
    let file = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
    let uid = rustix::process::geteuid().as_raw();
    let dir_path = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let (what, meta) = if writable_by(&file, uid) {
        ("the managed file is writable by the running user", file)
    } else {
        let dir = std::fs::metadata(dir_path).ok()?;
        // In a sticky directory (/tmp) only a file's owner can rename or delete it.
        let sticky = dir.mode() & 0o1000 != 0;
        if !writable_by(&dir, uid) || (sticky && file.uid() != uid) {
            return None;
        }
        ("the directory of the managed file is writable by the running user, who could replace the file", dir)
    };
    Some(Issue {
        source: path.to_path_buf(),
        index: None,
        hook_id: None,
        field: None,
        line: None,
        column: None,
        severity: IssueSeverity::Warning,
        message: format!(
            "{what} (mode {:o}, owner uid {}, running as uid {uid}): a policy the agent can rewrite is not much of a \
             policy; make it owned by another user and not group- or world-writable",
            meta.mode() & 0o7777,
            meta.uid()
        ),
    })
}

/// Whether the mode bits let `uid` write: owner write for the owner, or any group/other write bit.
#[cfg(unix)]
fn writable_by(meta: &std::fs::Metadata, uid: u32) -> bool {
    let mode = meta.mode();
    (meta.uid() == uid && mode & 0o200 != 0) || mode & 0o022 != 0
}
