//! The trust store file: which fingerprints were trusted, per (canonical workspace path, hook id).
//!
//! One JSON file, `<config home>/trusted.json`, written atomically (a temp file in the same directory, then a
//! rename), so a crash or a concurrent reader never sees half a file. A store that cannot be read trusts nothing and
//! says so with an [`Issue`]. A change goes through [`TrustStore::update`]: read, change and write under an
//! exclusive lock on `trusted.json.lock`, so concurrent `hook trust` runs never lose each other's entries. The
//! file is never read or written through a symlink.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::locked;
use crate::model::{Fingerprint, HookDecl, Issue, IssueSeverity};
use crate::trust::trust_value;

/// The version of the store's file format.
const STORE_VERSION: u32 = 1;

/// The error returned by [`TrustStore::save`] and [`TrustStore::update`].
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The store has no file to go to (the layout knows no config home).
    #[error("the trust store has no file: no config home is known (set one with --config-home)")]
    NoPath,
    /// Another process held the store's lock past [`locked::DEFAULT_WAIT`]: nothing was written (the source says
    /// which lock file and how to find the holder).
    #[error("the trust store is in use")]
    Locked {
        /// The store.
        path: PathBuf,
        /// The [`locked::Held`] error.
        #[source]
        source: io::Error,
    },
    /// Writing the file failed.
    #[error("could not write the trust store `{}`", .path.display())]
    Write {
        /// The file (or the temp file beside it) being written.
        path: PathBuf,
        /// What failed.
        #[source]
        source: io::Error,
    },
}

/// One trusted (workspace, hook id): the fingerprint that was shown and trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustRecord {
    /// The fingerprint value ([`Fingerprint::value`], or the content hash for a hook that names no files).
    pub fingerprint: String,
    /// When it was trusted, in milliseconds since the Unix epoch.
    pub trusted_at_ms: u64,
}

/// The store's file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    version: u32,
    /// canonical workspace path → hook id → record.
    workspaces: BTreeMap<String, BTreeMap<String, TrustRecord>>,
}

/// The trust store: which fingerprints were trusted, per (canonical workspace path, hook id).
///
/// Workspace paths are compared as given: pass the canonical path ([`crate::Config::workspace`]), so a clone of the
/// repository at another path is another workspace.
///
/// ```
/// use std::path::Path;
/// use hook_config::TrustStore;
/// let dir = tempfile::tempdir().unwrap();
/// let (mut store, issue) = TrustStore::open(dir.path().join("trusted.json"));
/// assert!(issue.is_none());
/// let ws = Path::new("/work/repo");
/// store.trust(ws, "lint", "f00d");
/// store.save().unwrap();
/// let (store, _) = TrustStore::open(dir.path().join("trusted.json"));
/// assert!(store.is_trusted(ws, "lint", "f00d"));
/// assert!(!store.is_trusted(Path::new("/elsewhere/repo"), "lint", "f00d"));
/// ```
#[derive(Debug, Default)]
pub struct TrustStore {
    path: PathBuf,
    file: StoreFile,
    /// The file on disk could not be read: kept aside by the next save instead of being overwritten silently.
    corrupt: bool,
    /// Changed in memory since it was opened.
    dirty: bool,
}

impl TrustStore {
    /// Opens the store at `path`. A missing file is an empty store. A file that cannot be read or parsed gives an
    /// empty store (it trusts nothing) and an error-level [`Issue`] saying so; the next [`TrustStore::save`] moves
    /// the bad file aside to `<path>.corrupt` rather than losing it.
    pub fn open(path: impl Into<PathBuf>) -> (TrustStore, Option<Issue>) {
        let path = path.into();
        let mut store = TrustStore::empty(path);
        let text = match locked::read_no_follow(&store.path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return (store, None),
            Err(err) => {
                store.corrupt = true;
                let issue = store.corrupt_issue(format!("cannot be read ({err})"), None);
                return (store, Some(issue));
            }
        };
        match serde_json::from_slice::<StoreFile>(&text) {
            Ok(file) if file.version == STORE_VERSION => {
                store.file = file;
                (store, None)
            }
            Ok(file) => {
                store.corrupt = true;
                let issue = store
                    .corrupt_issue(format!("has version {}, expected {STORE_VERSION}", file.version), Some((1, 1)));
                (store, Some(issue))
            }
            Err(err) => {
                store.corrupt = true;
                let issue = store.corrupt_issue(
                    format!("is not a valid trust store ({err}); expected {{\"version\": 1, \"workspaces\": {{…}}}}"),
                    Some((err.line(), err.column())),
                );
                (store, Some(issue))
            }
        }
    }

    /// An empty store that will save to `path`: what a host uses when the config home cannot be trusted, or for an
    /// in-memory trust that is never saved.
    pub fn empty(path: impl Into<PathBuf>) -> TrustStore {
        TrustStore {
            path: path.into(),
            file: StoreFile { version: STORE_VERSION, ..StoreFile::default() },
            corrupt: false,
            dirty: false,
        }
    }

    /// Opens the store at `path`, hands it to `change`, and saves it if `change` trusted or revoked anything, all
    /// under the store's exclusive lock (`<path>.lock`): the one way to change the store when other processes may
    /// change it too. Returns what `change` returned and the issue [`TrustStore::open`] found, if any (a corrupt
    /// store is moved aside to `<path>.corrupt` by the save).
    ///
    /// ```
    /// use std::path::Path;
    /// use hook_config::TrustStore;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("trusted.json");
    /// let ws = Path::new("/work/repo");
    /// TrustStore::update(&path, |store| store.trust(ws, "lint", "f00d")).unwrap();
    /// TrustStore::update(&path, |store| store.trust(ws, "fmt", "beef")).unwrap();
    /// assert_eq!(TrustStore::open(&path).0.entries(ws).count(), 2);
    /// ```
    pub fn update<R>(
        path: impl Into<PathBuf>,
        change: impl FnOnce(&mut TrustStore) -> R,
    ) -> Result<(R, Option<Issue>), TrustError> {
        let path = path.into();
        if path.as_os_str().is_empty() {
            return Err(TrustError::NoPath);
        }
        let _lock = TrustStore::empty(path.clone()).lock()?;
        let (mut store, issue) = TrustStore::open(path);
        let result = change(&mut store);
        if store.dirty {
            store.write()?;
        }
        Ok((result, issue))
    }

    fn corrupt_issue(&self, what: String, position: Option<(usize, usize)>) -> Issue {
        Issue {
            source: self.path.clone(),
            index: None,
            hook_id: None,
            field: None,
            line: position.map(|p| p.0).filter(|l| *l > 0),
            column: position.map(|p| p.1).filter(|c| *c > 0),
            severity: IssueSeverity::Error,
            message: format!(
                "the trust store {what}: nothing is trusted until it is fixed or rewritten by `hook trust` (which keeps \
                 the old file as `{}.corrupt`)",
                self.path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
            ),
        }
    }

    /// The file the store saves to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `fingerprint` is the one trusted for `id` in `workspace`.
    pub fn is_trusted(&self, workspace: &Path, id: &str, fingerprint: &str) -> bool {
        self.trusted_fingerprint(workspace, id) == Some(fingerprint)
    }

    /// The fingerprint trusted for `id` in `workspace`, if any.
    pub fn trusted_fingerprint(&self, workspace: &Path, id: &str) -> Option<&str> {
        self.workspace(workspace)?.get(id).map(|record| record.fingerprint.as_str())
    }

    /// Trusts `fingerprint` for `id` in `workspace`, replacing what was trusted for that id before. In memory until
    /// [`TrustStore::save`].
    pub fn trust(&mut self, workspace: &Path, id: &str, fingerprint: &str) {
        let record = TrustRecord { fingerprint: fingerprint.to_owned(), trusted_at_ms: now_ms() };
        self.dirty = true;
        self.file.workspaces.entry(workspace_key(workspace)).or_default().insert(id.to_owned(), record);
    }

    /// Trusts a loaded hook exactly as it was loaded: its fingerprint, or its content hash when it names no files.
    pub fn trust_hook(&mut self, workspace: &Path, decl: &HookDecl, fingerprint: Option<&Fingerprint>) {
        self.trust(workspace, &decl.id, trust_value(decl, fingerprint));
    }

    /// Forgets `id` in `workspace`; `false` if it was not trusted.
    pub fn revoke(&mut self, workspace: &Path, id: &str) -> bool {
        let key = workspace_key(workspace);
        let Some(hooks) = self.file.workspaces.get_mut(&key) else { return false };
        let removed = hooks.remove(id).is_some();
        self.dirty |= removed;
        if hooks.is_empty() {
            self.file.workspaces.remove(&key);
        }
        removed
    }

    /// What is trusted in `workspace`, by hook id.
    pub fn entries(&self, workspace: &Path) -> impl Iterator<Item = (&str, &TrustRecord)> {
        self.workspace(workspace).into_iter().flatten().map(|(id, record)| (id.as_str(), record))
    }

    /// Writes the store: a temp file in the same directory, synced, then renamed over the store, so readers see the
    /// old file or the new one, never a mix. Creates the config home if needed. A store that was opened corrupt
    /// moves the bad file to `<path>.corrupt` first.
    ///
    /// The write takes the store's lock, so it never interleaves with another writer; but a store opened, changed
    /// and saved this way can still overwrite what another process saved in between: use [`TrustStore::update`]
    /// for a read-modify-write.
    pub fn save(&self) -> Result<(), TrustError> {
        if self.path.as_os_str().is_empty() {
            return Err(TrustError::NoPath);
        }
        let _lock = self.lock()?;
        self.write()
    }

    /// The store's exclusive lock; creates the config home first, so a config home that cannot be made is named.
    fn lock(&self) -> Result<locked::FileLock, TrustError> {
        let dir = self.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(|source| TrustError::Write { path: dir.to_path_buf(), source })?;
        locked::lock(&self.path, locked::DEFAULT_WAIT).map_err(|source| match locked::held(&source) {
            Some(_) => TrustError::Locked { path: self.path.clone(), source },
            None => TrustError::Write { path: locked::lock_path(&self.path), source },
        })
    }

    /// [`TrustStore::save`] under a lock the caller holds.
    fn write(&self) -> Result<(), TrustError> {
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TrustError::Write { path, source }
        };
        let mut text = serde_json::to_string_pretty(&self.file).expect("the store serializes: strings and integers");
        text.push('\n');
        if self.corrupt && fs::symlink_metadata(&self.path).is_ok() {
            let mut aside = self.path.clone().into_os_string();
            aside.push(".corrupt");
            fs::rename(&self.path, aside).map_err(write_err(&self.path))?;
        }
        locked::write_atomic(&self.path, text.as_bytes()).map_err(write_err(&self.path))
    }

    fn workspace(&self, workspace: &Path) -> Option<&BTreeMap<String, TrustRecord>> {
        // Borrowed: a lookup per hook per load allocates nothing for a UTF-8 path.
        self.file.workspaces.get(workspace.to_string_lossy().as_ref())
    }
}

fn workspace_key(workspace: &Path) -> String {
    workspace.to_string_lossy().into_owned()
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
