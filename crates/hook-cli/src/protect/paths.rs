//! What the self-protection gate protects, and how a path a tool call names is resolved before it is compared.
//!
//! The agents' files come from the agent table (every file of every agent in every scope: project, local, user, the
//! files each reads and the files whose settings switch its hooks off, managed ones among them); the engine's own
//! are the workspace's `.hooks/`, the config home (user hooks, trust store, install records), the state directory
//! (receipts and their gaps file, session state, the load cache), the managed policy file, and the `hook` program
//! itself, with any file named `hook` in a `PATH` directory.

use std::path::{Component, Path, PathBuf};

use hook_config::Layout;
use hook_types::{Agent, AgentFiles, AgentPath};

/// One protected place: a file, or a directory and everything under it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Whether everything under `path` is protected too.
    pub dir: bool,
    /// What it is, for the reason ("Claude Code's hook settings").
    pub what: String,
    /// The path, resolved as [`resolve`] resolves a tool call's, then case-folded ([`folded`]): how it is compared.
    key: PathBuf,
}

/// The protected set, built on first use: most tool calls write nothing (a read, `git status`), and they should
/// not pay for listing every agent's files (a few hundred path resolutions).
#[derive(Debug)]
pub struct LazyProtected {
    layout: Layout,
    workspace: PathBuf,
    home: Option<PathBuf>,
    built: std::sync::OnceLock<Protected>,
}

impl LazyProtected {
    /// The protected set of `workspace` under `layout`, to be built when first asked.
    pub fn new(layout: &Layout, workspace: &Path, home: Option<&Path>) -> LazyProtected {
        LazyProtected {
            layout: layout.clone(),
            workspace: workspace.to_path_buf(),
            home: home.map(Path::to_path_buf),
            built: std::sync::OnceLock::new(),
        }
    }
}

impl std::ops::Deref for LazyProtected {
    type Target = Protected;

    fn deref(&self) -> &Protected {
        self.built.get_or_init(|| Protected::new(&self.layout, &self.workspace, self.home.as_deref()))
    }
}

/// Everything the gate protects, for one workspace.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    entries: Vec<Entry>,
    /// The `PATH` directories: a new file named `hook` in one would shadow the program the entries run.
    path_dirs: Vec<PathBuf>,
    /// Names a line must mention before a write the engine cannot resolve there is held against it.
    needles: Vec<String>,
}

impl Protected {
    /// The protected set of `workspace` under `layout`, with `home` the user's home directory.
    pub fn new(layout: &Layout, workspace: &Path, home: Option<&Path>) -> Protected {
        let mut set = Protected::default();
        for agent in hook_types::Protocol::ALL.iter().map(|p| p.agent()) {
            set.agent(agent, workspace, home);
        }
        set.dir(&workspace.join(".hooks"), "the workspace's hook files (.hooks/)");
        if let Some(config_home) = layout.config_home_path() {
            set.dir(config_home, "the engine's config home (user hooks, trust store, install records)");
        }
        let state = hook_middleware::receipts::session_state_dir(workspace);
        if let Some(state) = state.as_deref().and_then(Path::parent).and_then(Path::parent) {
            set.dir(state, "the engine's state (receipts, session state)");
        }
        set.file(&layout.managed_file, "the managed hook policy");
        if let Ok(exe) = std::env::current_exe() {
            set.file(&exe, "the `hook` program the agents' entries run");
        }
        set.path_dirs = std::env::var_os("PATH")
            .map(|path| {
                std::env::split_paths(&path).filter(|d| d.is_absolute()).map(|d| resolve_existing(&d)).collect()
            })
            .unwrap_or_default();
        for path in std::env::var_os("PATH").iter().flat_map(std::env::split_paths) {
            let candidate = path.join("hook");
            if candidate.is_file() {
                set.file(&candidate, "the `hook` program on PATH");
            }
        }
        set.needles.sort();
        set.needles.dedup();
        set
    }

    fn agent(&mut self, agent: &'static Agent, workspace: &Path, home: Option<&Path>) {
        let what = format!("{}'s hook settings", agent.name);
        let AgentFiles { project, local, user, read, overrides, read_user } = agent.files;
        let in_workspace = project.iter().chain(local.iter()).chain(read.iter()).chain(overrides.iter());
        for relative in in_workspace {
            self.relative(workspace, relative, &what);
        }
        if let Some(home) = home {
            let user_read = read_user.unwrap_or(read);
            for relative in user.iter().chain(user_read.iter()).chain(overrides.iter()) {
                self.relative(home, relative, &what);
            }
        }
        for switch in agent.switches {
            for file in switch.files {
                let path = match file {
                    AgentPath::Workspace(p) => Some(workspace.join(p)),
                    AgentPath::Home(p) => home.map(|h| h.join(p)),
                    AgentPath::EnvDir { var, default, file } => std::env::var_os(var)
                        .map(PathBuf::from)
                        .filter(|d| d.is_absolute())
                        .or_else(|| home.map(|h| h.join(default)))
                        .map(|d| d.join(file)),
                    AgentPath::System(p) => Some(PathBuf::from(p)),
                };
                if let Some(path) = path {
                    match AgentFiles::json_dir(&path.to_string_lossy()) {
                        Some(dir) => self.dir(Path::new(dir), &what),
                        None => self.file(&path, &what),
                    }
                }
            }
        }
    }

    fn relative(&mut self, base: &Path, relative: &str, what: &str) {
        match AgentFiles::json_dir(relative) {
            Some(dir) => self.dir(&base.join(dir), what),
            None => self.file(&base.join(relative), what),
        }
    }

    fn file(&mut self, path: &Path, what: &str) {
        self.push(path, false, what);
    }

    fn dir(&mut self, path: &Path, what: &str) {
        self.push(path, true, what);
    }

    fn push(&mut self, path: &Path, dir: bool, what: &str) {
        let path = resolve_existing(&fold(path));
        if let Some(name) = path.file_name().and_then(|n| n.to_str()).filter(|n| n.len() > 4) {
            self.needles.push(name.to_owned());
        }
        // The first directory of a workspace- or home-relative file (`.claude`) is a name a line may build a path from.
        if let Some(first) = path.parent().and_then(Path::file_name).and_then(|n| n.to_str())
            && first.starts_with('.')
            && first.len() > 2
        {
            self.needles.push(first.to_owned());
        }
        self.entries.push(Entry { dir, what: what.to_owned(), key: folded(&path) });
    }

    /// The protected entry `path` (resolved) falls under, if any: the file itself, a file under a protected
    /// directory, with `tree` (a removal, a move, a change of mode or owner, which reach what a directory holds) a
    /// directory that holds a protected place, or a new file named `hook` in a `PATH` directory.
    ///
    /// Paths are compared case-folded: where the file system folds case (macOS's and Windows' defaults, a
    /// `casefold` directory on Linux) `.Claude/Settings.json` is the settings file; where it does not, it is a
    /// file beside it, and asking before writing it costs nothing.
    pub fn covering(&self, path: &Path, tree: bool) -> Option<Entry> {
        let key = folded(path);
        for entry in &self.entries {
            // The root itself is left to the user's own guards (`rm -rf /` is every guard's first example, and
            // what it destroys is not the guards alone).
            let holds = tree && key.parent().is_some() && entry.key.starts_with(&key);
            if key == entry.key || (entry.dir && key.starts_with(&entry.key)) || holds {
                return Some(entry.clone());
            }
        }
        let hook_on_path = key.file_name().is_some_and(|n| n == "hook")
            && key.parent().is_some_and(|d| self.path_dirs.iter().any(|p| folded(p) == d));
        hook_on_path.then(|| Entry {
            dir: false,
            what: "a `hook` program on PATH, which would shadow the one the agents' entries run".to_owned(),
            key,
        })
    }

    /// Whether `text` names a protected place: a write whose target the engine cannot read counts against a line
    /// only when it does.
    pub fn mentioned_in(&self, text: &str) -> bool {
        self.needles.iter().any(|needle| text.contains(needle.as_str()))
    }
}

/// A tool call's path as the kernel would reach it: `~` and `$HOME` expanded, made absolute against `cwd`, `..`
/// folded, and the longest existing prefix's symbolic links followed. `None` when it cannot be known statically (a
/// variable other than `$HOME`, a substitution, a glob).
pub fn resolve(raw: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let expanded = expand_home(raw, home)?;
    if expanded.contains(['$', '`', '*', '?', '[', '{']) {
        return None;
    }
    let path = Path::new(&expanded);
    let absolute = if path.is_absolute() { path.to_owned() } else { cwd.join(path) };
    Some(resolve_existing(&fold(&absolute)))
}

fn expand_home(raw: &str, home: Option<&Path>) -> Option<String> {
    let home_text = || home.map(|h| h.to_string_lossy().into_owned());
    for prefix in ["~", "$HOME", "${HOME}"] {
        if let Some(rest) = raw.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(format!("{}{rest}", home_text()?));
        }
    }
    Some(raw.to_owned())
}

/// `path` in lower case, for a comparison that holds on a file system that folds case.
fn folded(path: &Path) -> PathBuf {
    PathBuf::from(path.to_string_lossy().to_lowercase())
}

/// `.` and `..` folded without touching the file system.
fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The longest prefix of `path` that exists, with its links followed, and the rest appended: a file not yet
/// written resolves to where it will be written. Links inside the rest are folded again.
fn resolve_existing(path: &Path) -> PathBuf {
    let mut prefix = path.to_owned();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&prefix) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (prefix.file_name().map(ToOwned::to_owned), prefix.parent().map(Path::to_path_buf)) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                prefix = parent;
            }
            _ => return path.to_owned(),
        }
    }
}
