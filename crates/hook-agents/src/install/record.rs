//! `<config home>/installs.json`: what each install changed, so uninstall can undo exactly that.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::InstallError;
use super::agent::{Agent, InstallScope};
use super::files::{read_text, write_atomic};
use hook_config::Layout;

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
        let Some(text) = read_text(path)? else { return Ok(Installs { version: 1, installs: Vec::new() }) };
        let bad = |message: String| InstallError::Record { path: path.to_path_buf(), message };
        let installs: Installs = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if installs.version != 1 {
            return Err(bad(format!("version {} is not 1", installs.version)));
        }
        Ok(installs)
    }

    /// Writes the records atomically; no records left removes the file.
    pub fn write(&self, path: &Path) -> Result<(), InstallError> {
        if self.installs.is_empty() {
            return super::files::remove_file(path);
        }
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_atomic(path, &text).map(|_| ())
    }
}
