//! Discovery (docs/trust.md#origins): every file each origin may declare hooks in, in precedence order.
//!
//! The list is fixed by the [`Layout`] alone, so `hook inspect` can show every place it looked, found or not. Files
//! of a format without a reader yet are listed too: when one exists, loading says "not read yet" instead of
//! skipping it silently, and a new reader plugs in by adding one match arm in `load.rs`. The one exception is an
//! agent's directory of hook files (a `files.read` entry `<dir>/*.json`, [`hook_types::AgentFiles::json_dir`]):
//! its `.json` files are listed as they are on disk, in the byte order of their names; an empty or missing
//! directory is listed as the pattern itself, not found.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use hook_types::Origin;
use serde::{Deserialize, Serialize};

use crate::layout::Layout;
use crate::model::Format;

/// One file loading looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// The file.
    pub path: PathBuf,
    /// The origin it belongs to.
    pub origin: Origin,
    /// The format it is read as.
    pub format: Format,
    /// Whether it exists as what its format reads (a regular file; a directory for one-executable-per-event
    /// formats).
    pub found: bool,
    /// Whether anything exists at the path, of whatever kind: `present && !found` is a path that holds something
    /// the format cannot read (a directory where a file should be), which closes its origin's gates.
    #[serde(default)]
    pub present: bool,
    /// Whether its hooks were read (`false` when missing, or when its format has no reader yet).
    pub read: bool,
}

/// A place discovery looks: the file, its origin and format, the origin root relative paths resolve against, and
/// the id prefix default ids use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slot {
    pub path: PathBuf,
    pub origin: Origin,
    pub format: Format,
    /// The workspace for project origins; the declaring file's directory otherwise (docs/declarations.md).
    pub root: PathBuf,
    /// For extensions, the extension's directory name: default ids read `<name>.<kind>.<hash>`.
    pub source_id: Option<String>,
    /// Set on a native `.json` slot: the `.yaml` it sits beside, so a warning can say both exist.
    pub json_beside: Option<PathBuf>,
}

/// The other agents' files, relative to a base directory (the workspace for the project origins, the home directory
/// for the user origin), in the foreign-format order of the agent table ([`hook_types::AGENTS`]): each agent's
/// `files.read`.
fn agent_read_files() -> impl Iterator<Item = (&'static str, Format)> {
    hook_types::AGENTS.iter().flat_map(|agent| agent.files.read.iter().map(|file| (*file, agent.protocol)))
}

/// The other agents' files under the home directory at the user origin: each agent's `files.read_user`, where it
/// reads other files there than in a project (Cline), else its `files.read`.
fn agent_user_files() -> impl Iterator<Item = (&'static str, Format)> {
    hook_types::AGENTS
        .iter()
        .flat_map(|agent| agent.files.read_user.unwrap_or(agent.files.read).iter().map(|file| (*file, agent.protocol)))
}

/// The agents' git-ignored local files at the project.local origin: each agent's `files.local`.
fn agent_local_files() -> impl Iterator<Item = (&'static str, Format)> {
    hook_types::AGENTS.iter().filter_map(|agent| agent.files.local.map(|file| (file, agent.protocol)))
}

/// Every place to look, in precedence order. `workspace` is the canonical workspace; `config_home` is `None` when
/// the layout has none.
pub(crate) fn slots(layout: &Layout, workspace: &Path) -> Vec<Slot> {
    let mut slots = Vec::new();
    for root in &layout.extension_roots {
        let source_id = root.file_name().map(|n| n.to_string_lossy().into_owned());
        native_pair(&mut slots, root, "hooks", Origin::Extension, root.clone(), source_id);
    }
    if let Some(config_home) = layout.config_home_path() {
        native_pair(&mut slots, config_home, "hooks", Origin::User, config_home.to_path_buf(), None);
    }
    if let Some(home) = &layout.home {
        agent_files(&mut slots, home, agent_user_files(), Origin::User, None);
    }
    let project_dir = workspace.join(format!(".{}", layout.app_dir));
    native_pair(&mut slots, &project_dir, "hooks", Origin::Project, workspace.to_path_buf(), None);
    agent_files(&mut slots, workspace, agent_read_files(), Origin::Project, Some(workspace));
    native_pair(&mut slots, &project_dir, "hooks.local", Origin::ProjectLocal, workspace.to_path_buf(), None);
    agent_files(&mut slots, workspace, agent_local_files(), Origin::ProjectLocal, Some(workspace));
    let managed_root = layout.managed_file.parent().map(Path::to_path_buf).unwrap_or_default();
    slots.push(Slot {
        path: layout.managed_file.clone(),
        origin: Origin::Managed,
        format: Format::Native,
        root: managed_root,
        source_id: None,
        json_beside: None,
    });
    slots
}

/// `<dir>/<stem>.yaml` then `<dir>/<stem>.json`: the JSON file of the same shape is read after the YAML one.
fn native_pair(slots: &mut Vec<Slot>, dir: &Path, stem: &str, origin: Origin, root: PathBuf, id: Option<String>) {
    let yaml = dir.join(format!("{stem}.yaml"));
    let json = dir.join(format!("{stem}.json"));
    slots.push(Slot {
        path: yaml.clone(),
        origin,
        format: Format::Native,
        root: root.clone(),
        source_id: id.clone(),
        json_beside: None,
    });
    slots.push(Slot { path: json, origin, format: Format::Native, root, source_id: id, json_beside: Some(yaml) });
}

/// The agents' files under `base`. The root is the workspace for project origins, else the file's directory.
fn agent_files<'a>(
    slots: &mut Vec<Slot>,
    base: &Path,
    files: impl Iterator<Item = (&'a str, Format)>,
    origin: Origin,
    root: Option<&Path>,
) {
    for (relative, format) in files {
        if let Some(dir) = hook_types::AgentFiles::json_dir(relative) {
            for path in json_files(&base.join(dir), &base.join(relative)) {
                let root =
                    root.map_or_else(|| path.parent().map(Path::to_path_buf).unwrap_or_default(), Path::to_path_buf);
                slots.push(Slot { path, origin, format, root, source_id: None, json_beside: None });
            }
            continue;
        }
        let path = base.join(relative);
        let root = match root {
            Some(root) => root.to_path_buf(),
            None => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        slots.push(Slot { path, origin, format, root, source_id: None, json_beside: None });
    }
}

/// The most `.json` files one directory of hook files (an agent table `files.read` entry `<dir>/*.json`) may hold: past it the directory itself is listed, which loading
/// reports as an error (and every gate of that origin closes) rather than reading a part of it.
pub const MAX_DIR_FILES: usize = 256;

/// The `.json` entries directly in `dir`, by the byte order of their names; `[pattern]` when there are none (or
/// `dir` is no directory), so the place looked at is still listed; `[dir]` when it holds more than
/// [`MAX_DIR_FILES`] of them.
fn json_files(dir: &Path, pattern: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![pattern.to_path_buf()] };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if Path::new(&name).extension().is_some_and(|ext| ext == "json") {
            if files.len() == MAX_DIR_FILES {
                return vec![dir.to_path_buf()];
            }
            files.push(dir.join(name));
        }
    }
    if files.is_empty() {
        return vec![pattern.to_path_buf()];
    }
    files.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    files
}

/// The names in the directories most slots lie under (the home and the workspace), each listed once, when first
/// asked about: a slot whose first name under one of them is not there does not exist, and costs no `statx` of its
/// own. A bridge call looks at ~30 slots, nearly all absent; two listings answer for them. A directory that cannot
/// be listed, or holds more than [`MAX_LISTED`] names, answers nothing and every slot under it is looked at.
///
/// Names are compared ignoring ASCII case, and a directory holding any name that is not ASCII answers nothing: on a
/// file system that folds case (vfat, a casefolded ext4 directory, a Windows drive under WSL) `.Claude` is found by
/// a look for `.claude`, and a listing must never call absent what a look would find.
pub(crate) struct Listings<'a> {
    /// Deepest first, so a slot of a workspace inside the home is answered by the workspace's listing; each with its
    /// listing once it was asked for.
    dirs: Vec<(&'a Path, Option<Listing>)>,
}

/// A directory's names in ASCII lower case, or `None` when it answers nothing ([`list`]).
type Listing = Option<HashSet<Vec<u8>>>;

/// The most names a directory may hold to be used by [`Listings`].
pub(crate) const MAX_LISTED: usize = 4096;

impl<'a> Listings<'a> {
    pub(crate) fn new(dirs: impl IntoIterator<Item = &'a Path>) -> Listings<'a> {
        let mut dirs: Vec<_> = dirs.into_iter().map(|dir| (dir, None)).collect();
        dirs.sort_by_key(|(dir, _)| std::cmp::Reverse(dir.components().count()));
        Listings { dirs }
    }

    /// Whether `path` may exist: `false` only when the deepest of the directories it lies under was listed and does
    /// not hold its first name there. Compared as bytes: `Path::strip_prefix` parses both paths into components,
    /// which cost more per slot than the `statx` it saves.
    pub(crate) fn may_exist(&mut self, path: &Path) -> bool {
        let path = path.as_os_str().as_encoded_bytes();
        for (dir, listing) in &mut self.dirs {
            let under =
                path.strip_prefix(dir.as_os_str().as_encoded_bytes()).and_then(|rest| rest.strip_prefix(SEPARATOR));
            let Some(rest) = under else { continue };
            let first = rest.split(|b| SEPARATOR.contains(b)).next().unwrap_or_default();
            if matches!(first, b"" | b"." | b"..") {
                return true;
            }
            return match listing.get_or_insert_with(|| list(dir)) {
                Some(names) => !first.is_ascii() || names.contains(&first.to_ascii_lowercase()),
                None => true,
            };
        }
        true
    }
}

/// The separators of a path's components, as bytes.
#[cfg(not(windows))]
const SEPARATOR: &[u8] = b"/";
#[cfg(windows)]
const SEPARATOR: &[u8] = b"\\/";

/// The names in `dir`, in ASCII lower case, or `None` when it cannot be listed, holds a name that is not ASCII or
/// holds more than [`MAX_LISTED`].
fn list(dir: &Path) -> Listing {
    let mut names = HashSet::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let name = entry.ok()?.file_name();
        let name = name.as_encoded_bytes();
        if !name.is_ascii() || names.len() >= MAX_LISTED {
            return None;
        }
        names.insert(name.to_ascii_lowercase());
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::{Listings, MAX_LISTED};
    use std::fs;

    #[test]
    fn a_slot_whose_first_name_is_not_listed_is_absent_and_any_doubt_looks() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let ws = home.join("ws");
        fs::create_dir_all(ws.join(".claude")).unwrap();
        fs::create_dir_all(home.join(".codex")).unwrap();
        let file = tmp.path().join("file");
        fs::write(&file, "").unwrap();
        let mut listings = Listings::new([home.as_path(), ws.as_path(), file.as_path()]);
        assert!(listings.may_exist(&ws.join(".claude/settings.json")));
        assert!(!listings.may_exist(&ws.join(".codex/hooks.json")), "the workspace's own listing answers");
        assert!(listings.may_exist(&home.join(".codex/hooks.json")));
        assert!(!listings.may_exist(&home.join(".gemini/settings.json")));
        assert!(listings.may_exist(&home), "a listed directory itself");
        assert!(listings.may_exist(&tmp.path().join("elsewhere/x")), "under no listed directory");
        assert!(listings.may_exist(&file.join("x")), "a directory that cannot be listed answers nothing");
        assert!(listings.may_exist(&ws.join("./.codex/hooks.json")), "a first name that is not a name");
        let spelled_with_a_slash = format!("{}/", ws.display());
        let mut other = Listings::new([std::path::Path::new(&spelled_with_a_slash)]);
        assert!(other.may_exist(&ws.join(".codex/hooks.json")), "a directory spelled unlike its slots answers nothing");
    }

    #[test]
    fn a_name_in_another_case_may_be_the_slot_and_a_name_not_ascii_stops_the_listing() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        fs::create_dir_all(ws.join(".Claude")).unwrap();
        let mut listings = Listings::new([ws.as_path()]);
        assert!(listings.may_exist(&ws.join(".claude/settings.json")), "found by a look on a case-folding system");
        assert!(!listings.may_exist(&ws.join(".codex/hooks.json")));
        fs::create_dir(ws.join("Документы")).unwrap();
        let mut listings = Listings::new([ws.as_path()]);
        assert!(listings.may_exist(&ws.join(".codex/hooks.json")), "a name that is not ASCII could fold to any");
    }

    #[test]
    fn a_directory_with_more_names_than_the_bound_answers_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..=MAX_LISTED {
            fs::write(tmp.path().join(i.to_string()), "").unwrap();
        }
        let mut listings = Listings::new([tmp.path()]);
        assert!(listings.may_exist(&tmp.path().join(".claude/settings.json")));
    }
}
