//! Where a workspace's receipt log lives by default (docs/receipts.md).

use hook_config::platform;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The workspace id: the first 16 hex characters of the sha256 of the canonical workspace path's bytes.
///
/// The path is canonicalized (symlinks resolved) so two spellings of one directory share a log; a path that cannot
/// be canonicalized (it does not exist) is hashed as given, made absolute against the current directory.
///
/// ```
/// let id = hook_middleware::receipts::workspace_id(std::path::Path::new("/"));
/// assert_eq!(id, "8a5edab282632443"); // sha256("/")
/// ```
pub fn workspace_id(workspace: &Path) -> String {
    let canonical =
        hook_config::canonicalize(workspace).unwrap_or_else(|_| std::path::absolute(workspace).unwrap_or_default());
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    hex::encode(&digest[..8])
}

/// `<state_home>/hooks/receipts/<workspace id>.jsonl`: the log of `workspace` under a given state directory.
///
/// ```
/// use std::path::Path;
/// let path = hook_middleware::receipts::receipt_path_in(Path::new("/var/state"), Path::new("/"));
/// assert_eq!(path, Path::new("/var/state/hooks/receipts/8a5edab282632443.jsonl"));
/// ```
pub fn receipt_path_in(state_home: &Path, workspace: &Path) -> PathBuf {
    state_home.join("hooks").join("receipts").join(format!("{}.jsonl", workspace_id(workspace)))
}

/// The default receipt log of `workspace`: under `$XDG_STATE_HOME` when it is set to an absolute path (the XDG base
/// directory rules ignore a relative one), else under `~/.local/state`. `None` when neither is known.
///
/// ```
/// let path = hook_middleware::receipts::default_receipt_path(std::path::Path::new("."));
/// if let Some(path) = path {
///     assert!(path.ends_with(format!("hooks/receipts/{}.jsonl", hook_middleware::receipts::workspace_id(".".as_ref()))));
/// }
/// ```
pub fn default_receipt_path(workspace: &Path) -> Option<PathBuf> {
    state_home(std::env::var_os(platform::STATE_HOME_VAR), std::env::var_os(platform::HOME_VAR))
        .map(|state_home| receipt_path_in(&state_home, workspace))
}

/// The default directory of `workspace`'s session state (the continuation count and which skipped guards each
/// session was told about; see [`crate::PipelineBuilder::session_state`]): `<state dir>/hooks/sessions/<workspace id>`,
/// the state dir chosen as for [`default_receipt_path`]. `None` when neither variable is known.
///
/// ```
/// if let Some(dir) = hook_middleware::receipts::session_state_dir(std::path::Path::new(".")) {
///     assert!(dir.ends_with(format!("hooks/sessions/{}", hook_middleware::receipts::workspace_id(".".as_ref()))));
/// }
/// ```
pub fn session_state_dir(workspace: &Path) -> Option<PathBuf> {
    state_home(std::env::var_os(platform::STATE_HOME_VAR), std::env::var_os(platform::HOME_VAR))
        .map(|state_home| state_home.join("hooks").join("sessions").join(workspace_id(workspace)))
}

/// The state directory from the two variables it depends on, apart from the environment so it can be tested.
fn state_home(xdg_state_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let absolute = |value: OsString| Some(PathBuf::from(value)).filter(|p| p.is_absolute());
    xdg_state_home.and_then(absolute).or_else(|| home.and_then(absolute).map(|home| home.join(".local").join("state")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_home_prefers_an_absolute_xdg_state_home_then_home() {
        let os = |s: &str| Some(OsString::from(s));
        assert_eq!(state_home(os("/x/state"), os("/home/u")), Some(PathBuf::from("/x/state")));
        assert_eq!(state_home(os("relative"), os("/home/u")), Some(PathBuf::from("/home/u/.local/state")));
        assert_eq!(state_home(None, os("/home/u")), Some(PathBuf::from("/home/u/.local/state")));
        assert_eq!(state_home(os(""), None), None);
        assert_eq!(state_home(None, os("rel")), None);
    }
}
