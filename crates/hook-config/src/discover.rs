//! Discovery (docs/trust.md#origins): every file each origin may declare hooks in, in precedence order.
//!
//! The list is fixed by the [`Layout`] alone, so `hook inspect` can show every place it looked, found or not. Files
//! of a format without a reader yet are listed too: when one exists, loading says "not read yet" instead of
//! skipping it silently, and a new reader plugs in by adding one match arm in `load.rs`.

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
    /// Whether it exists.
    pub found: bool,
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
/// for the user origin), in the foreign-format order of docs/trust.md#origins: claude, codex, gemini, cursor, mecha, clio.
///
/// mecha and clio-coder document no user-level location of their own; `~/.mecha/config.toml` and
/// `~/.clio-coder/hooks.yaml` mirror their project files.
const AGENT_FILES: &[(&str, Format)] = &[
    (".claude/settings.json", Format::Claude),
    (".codex/hooks.json", Format::Codex),
    (".codex/config.toml", Format::Codex),
    (".gemini/settings.json", Format::Gemini),
    (".cursor/hooks.json", Format::Cursor),
    (".mecha/config.toml", Format::Mecha),
    (".clio-coder/hooks.yaml", Format::Clio),
];

/// The agents' git-ignored local files at the project.local origin.
const AGENT_LOCAL_FILES: &[(&str, Format)] =
    &[(".claude/settings.local.json", Format::Claude), (".clio-coder/hooks.local.yaml", Format::Clio)];

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
        agent_files(&mut slots, home, AGENT_FILES, Origin::User, None);
    }
    let project_dir = workspace.join(format!(".{}", layout.app_dir));
    native_pair(&mut slots, &project_dir, "hooks", Origin::Project, workspace.to_path_buf(), None);
    agent_files(&mut slots, workspace, AGENT_FILES, Origin::Project, Some(workspace));
    native_pair(&mut slots, &project_dir, "hooks.local", Origin::ProjectLocal, workspace.to_path_buf(), None);
    agent_files(&mut slots, workspace, AGENT_LOCAL_FILES, Origin::ProjectLocal, Some(workspace));
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
fn agent_files(slots: &mut Vec<Slot>, base: &Path, files: &[(&str, Format)], origin: Origin, root: Option<&Path>) {
    for (relative, format) in files {
        let path = base.join(relative);
        let root = match root {
            Some(root) => root.to_path_buf(),
            None => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        slots.push(Slot { path, origin, format: *format, root, source_id: None, json_beside: None });
    }
}
