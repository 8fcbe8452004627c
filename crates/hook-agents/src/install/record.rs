//! `<config home>/installs.json`: what each install changed, so uninstall can undo exactly that.
//!
//! Every change to it is a read-modify-write under the exclusive lock of `installs.json.lock`
//! ([`hook_config::locked`]), held by an install from reading the records to writing them and by an uninstall for its
//! whole run: two installs that finish at once both keep their record, and an uninstall never undoes a record twice.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::InstallError;
use super::agent::{Agent, InstallScope};
use super::files::write_atomic;
use hook_config::Layout;
use hook_config::locked::{self, FileLock};

/// The file name of the install records inside the config home.
pub const INSTALLS_FILE: &str = "installs.json";

/// `<config home>/installs.json`, when a config home is known.
pub fn installs_path(layout: &Layout) -> Option<PathBuf> {
    layout.config_home_path().map(|home| home.join(INSTALLS_FILE))
}

/// Every install not yet undone, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Installs {
    /// Always 1.
    pub version: u32,
    /// The records.
    pub installs: Vec<InstallRecord>,
}

/// One run of `hook install` that changed something.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstallRecord {
    /// The agent.
    pub agent: Agent,
    /// The scope.
    pub scope: InstallScope,
    /// The canonical workspace for the local and project scopes; `None` for the user scope, which serves every
    /// workspace.
    pub workspace: Option<PathBuf>,
    /// The bridge command written.
    pub command: String,
    /// The agent's file.
    pub agent_file: FileChange,
    /// The events the bridge entry was added under, in the agent's spelling.
    pub added_events: Vec<String>,
    /// The handlers moved out of the agent's file, in file order.
    pub moved: Vec<MovedRecord>,
    /// The native file, when hooks were moved into it.
    pub native_file: Option<NativeChange>,
    /// The fingerprints install trusted (not those that were trusted already).
    pub trusted: Vec<TrustedRecord>,
    /// Install created the trust store: uninstall removes it again if nothing is left in it.
    #[serde(default)]
    pub trust_store_created: bool,
    /// What install changed in the agent's own hook trust (Codex's `trusted_hash` of the bridge entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_trust: Option<super::AgentTrustChange>,
    /// For an agent of one executable per event (Cline): the bridge scripts written and the agent's own hook files
    /// moved aside in its directory (`agent_file` is that directory, and was not rewritten).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executables: Option<super::ExecutablesChange>,
}

/// One file install rewrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// Its text before install; `None` when install created it.
    pub original: Option<String>,
    /// sha256 (hex) of the text install wrote: while the file still has it, uninstall restores `original` exactly.
    pub written_sha256: String,
    /// Directories install created for it, outermost first.
    pub created_dirs: Vec<PathBuf>,
}

/// The native file the moved hooks went into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NativeChange {
    /// The file and its texts.
    pub file: FileChange,
    /// The block of moved hooks as written, so it can be taken out of a file that changed since.
    pub block: String,
}

/// One handler moved out of the agent's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MovedRecord {
    /// Its id in the native file.
    pub id: String,
    /// Its content hash (the same in both files).
    pub hash: String,
    /// The event key it was under, as the agent spells it.
    pub event: String,
    /// Its matcher group's position (`None` for Cursor).
    pub group: Option<usize>,
    /// Its position in the group (or in the event's list).
    pub index: usize,
    /// The group's other keys, as written (`matcher`).
    pub group_keys: Map<String, Value>,
    /// The handler as written.
    pub handler: Value,
}

/// A fingerprint install recorded in the trust store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustedRecord {
    /// The hook id.
    pub id: String,
    /// The value recorded.
    pub fingerprint: String,
}

impl InstallRecord {
    /// Whether this record is about `agent` in `scope` of `workspace` (ignored for the user scope).
    pub fn is_for(&self, agent: Agent, scope: InstallScope, workspace: Option<&Path>) -> bool {
        self.agent == agent
            && self.scope == scope
            && (scope == InstallScope::User || self.workspace.as_deref() == workspace)
    }
}

impl Installs {
    /// Reads the records; a missing file holds none.
    pub fn read(path: &Path) -> Result<Installs, InstallError> {
        let bytes = locked::read_no_follow(path).map_err(|source| InstallError::Io {
            action: "cannot read",
            path: path.to_path_buf(),
            source,
        })?;
        let Some(bytes) = bytes else { return Ok(Installs { version: 1, installs: Vec::new() }) };
        let bad = |message: String| InstallError::Record { path: path.to_path_buf(), message };
        let installs: Installs = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        if installs.version != 1 {
            return Err(bad(format!("version {} is not 1", installs.version)));
        }
        Ok(installs)
    }

    /// Writes the records atomically, under their lock; no records left removes the file.
    pub fn write(&self, path: &Path) -> Result<(), InstallError> {
        let _lock = LockedInstalls::lock(path)?;
        self.write_locked(path)
    }

    fn write_locked(&self, path: &Path) -> Result<(), InstallError> {
        if self.installs.is_empty() {
            return super::files::remove_file(path);
        }
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_atomic(path, &text).map(|_| ())
    }
}

/// The records, read under their lock, which is held until this is dropped.
pub(crate) struct LockedInstalls {
    _lock: FileLock,
    path: PathBuf,
    /// The records as read (and as changed since).
    pub(crate) installs: Installs,
}

impl LockedInstalls {
    /// Takes the lock of `path`, then reads the records.
    pub(crate) fn open(path: &Path) -> Result<LockedInstalls, InstallError> {
        let lock = LockedInstalls::lock(path)?;
        let installs = Installs::read(path)?;
        Ok(LockedInstalls { _lock: lock, path: path.to_path_buf(), installs })
    }

    /// Writes the records as they are now (the lock stays held).
    pub(crate) fn save(&mut self) -> Result<(), InstallError> {
        self.installs.version = 1;
        self.installs.write_locked(&self.path)
    }

    /// Takes the records' lock, waiting at most [`locked::DEFAULT_WAIT`]: one another process keeps longer (a stuck
    /// install, or any process of the user holding it) fails the command, naming the file, rather than hang it.
    fn lock(path: &Path) -> Result<FileLock, InstallError> {
        locked::lock(path, locked::DEFAULT_WAIT).map_err(|source| match locked::held(&source) {
            Some(_) => InstallError::Io {
                action: "another process is changing the install records",
                path: path.into(),
                source,
            },
            None => InstallError::Io { action: "cannot lock", path: locked::lock_path(path), source },
        })
    }
}
