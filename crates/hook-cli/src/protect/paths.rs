//! What the self-protection gate protects, and how a path a tool call names is resolved before it is compared.
//!
//! The agents' files come from the agent table (every file of every agent in every scope: project, local, user, the
//! files each reads and the files whose settings switch its hooks off, managed ones among them); the engine's own
//! are the workspace's `.hooks/`, the config home (user hooks, trust store, install records), the state directory
//! (receipts and their gaps file, session state, the load cache), the managed policy file, and the `hook` program
//! itself, with any file named `hook` in a `PATH` directory.

use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use hook_config::Layout;
use hook_types::{Agent, AgentFiles, AgentPath};

/// One protected place: a file, or a directory and everything under it.
///
/// Where it really is is asked of the file system only when a call's path could be it: a place whose name is
/// neither the path's own name (a file) nor one of its directories' (a directory) can be that path only if the
/// place is itself a symbolic link (links above it keep its name), which one `lstat` of it tells. So a write costs
/// one `lstat` per place, and a walk through the links only for the few places it could reach.
#[derive(Debug)]
struct Entry {
    /// Whether everything under it is protected too.
    dir: bool,
    /// What it is, for the reason ("Claude Code's hook settings").
    what: What,
    /// The path as the agent table and the layout name it, `.` and `..` folded.
    nominal: PathBuf,
    /// Its last component, case-folded.
    name: String,
    /// Whether the place itself is a symbolic link, once asked.
    link: OnceLock<bool>,
    /// The path, resolved as [`resolve`] resolves a tool call's, then case-folded ([`folded`]): how it is compared.
    key: OnceLock<PathBuf>,
}

impl Entry {
    fn new(nominal: PathBuf, dir: bool, what: What) -> Entry {
        let name = nominal.file_name().map(|n| folded_text(&n.to_string_lossy())).unwrap_or_default();
        Entry { dir, what, nominal, name, link: OnceLock::new(), key: OnceLock::new() }
    }

    /// The resolved, case-folded path.
    fn key(&self, resolver: &Mutex<Resolver>) -> &Path {
        self.key.get_or_init(|| {
            let mut resolver = resolver.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            folded(&resolver.resolve_existing(&self.nominal))
        })
    }

    fn is_link(&self) -> bool {
        *self.link.get_or_init(|| std::fs::symlink_metadata(&self.nominal).is_ok_and(|m| m.file_type().is_symlink()))
    }
}

/// What a protected place is, for a reason: an agent's hook settings, or one of the engine's own places. Kept as
/// static text and written only into a reason: the set is built on a call that writes, a few hundred places.
#[derive(Debug, Clone, Copy)]
pub enum What {
    /// The named agent's hook settings.
    Agent(&'static str),
    /// One of the engine's own places, described.
    Engine(&'static str),
}

impl std::fmt::Display for What {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Agent(name) => write!(f, "{name}'s hook settings"),
            What::Engine(what) => f.write_str(what),
        }
    }
}

/// The protected set, listed on first use: most tool calls write nothing (a read, `git status`), and they should
/// not pay for listing every agent's files in every scope.
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
#[derive(Debug, Default)]
pub struct Protected {
    entries: Vec<Entry>,
    /// The `PATH` directories as given: a new file named `hook` in one would shadow the program the entries run.
    path_dirs: Vec<PathBuf>,
    /// The same resolved and case-folded, once a path named `hook` asks.
    resolved_path_dirs: OnceLock<Vec<PathBuf>>,
    /// What the file system said of each path so far.
    resolver: Mutex<Resolver>,
}

impl Protected {
    /// The protected set of `workspace` under `layout`, with `home` the user's home directory.
    pub fn new(layout: &Layout, workspace: &Path, home: Option<&Path>) -> Protected {
        let mut set = Protected::default();
        for agent in hook_types::Protocol::ALL.iter().map(|p| p.agent()) {
            set.agent(agent, workspace, home);
        }
        set.dir(&workspace.join(".hooks"), What::Engine("the workspace's hook files (.hooks/)"));
        if let Some(config_home) = layout.config_home_path() {
            set.dir(config_home, What::Engine("the engine's config home (user hooks, trust store, install records)"));
        }
        let state = hook_middleware::receipts::session_state_dir(workspace);
        if let Some(state) = state.as_deref().and_then(Path::parent).and_then(Path::parent) {
            set.dir(state, What::Engine("the engine's state (receipts, session state)"));
        }
        set.file(&layout.managed_file, What::Engine("the managed hook policy"));
        if let Ok(exe) = std::env::current_exe() {
            set.file(&exe, What::Engine("the `hook` program the agents' entries run"));
        }
        let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|path| std::env::split_paths(&path).filter(|d| d.is_absolute()).collect())
            .unwrap_or_default();
        for dir in &path_dirs {
            let candidate = dir.join("hook");
            if candidate.is_file() {
                set.file(&candidate, What::Engine("the `hook` program on PATH"));
            }
        }
        set.path_dirs = path_dirs;
        set
    }

    fn agent(&mut self, agent: &'static Agent, workspace: &Path, home: Option<&Path>) {
        let what = What::Agent(agent.name);
        let AgentFiles { project, local, user, read, overrides, read_user } = agent.files;
        let in_workspace = project.iter().chain(local.iter()).chain(read.iter()).chain(overrides.iter());
        for relative in in_workspace {
            self.relative(workspace, relative, what);
        }
        if let Some(home) = home {
            let user_read = read_user.unwrap_or(read);
            for relative in user.iter().chain(user_read.iter()).chain(overrides.iter()) {
                self.relative(home, relative, what);
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
                        Some(dir) => self.dir(Path::new(dir), what),
                        None => self.file(&path, what),
                    }
                }
            }
        }
    }

    fn relative(&mut self, base: &Path, relative: &str, what: What) {
        match AgentFiles::json_dir(relative) {
            Some(dir) => self.dir(&base.join(dir), what),
            None => self.file(&base.join(relative), what),
        }
    }

    fn file(&mut self, path: &Path, what: What) {
        self.push(path, false, what);
    }

    fn dir(&mut self, path: &Path, what: What) {
        self.push(path, true, what);
    }

    fn push(&mut self, path: &Path, dir: bool, what: What) {
        self.entries.push(Entry::new(fold(path), dir, what));
    }

    /// What the protected place `path` (resolved) falls under is, if any: the file itself, a file under a protected
    /// directory, with `tree` (a removal, a move, a change of mode or owner, which reach what a directory holds) a
    /// directory that holds a protected place, or a new file named `hook` in a `PATH` directory.
    ///
    /// Paths are compared case-folded: where the file system folds case (macOS's and Windows' defaults, a
    /// `casefold` directory on Linux) `.Claude/Settings.json` is the settings file; where it does not, it is a
    /// file beside it, and asking before writing it costs nothing.
    pub fn covering(&self, path: &Path, tree: bool) -> Option<What> {
        let key = folded(path);
        let own_name = key.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let names: Vec<std::borrow::Cow<'_, str>> = key.components().map(|c| c.as_os_str().to_string_lossy()).collect();
        for entry in &self.entries {
            // Only a place that could be this path (or, for `tree`, hold it) is resolved; see [`Entry`]. A tree
            // operation (a removal, a move) reaches what a directory holds by any name, so it resolves all.
            let could = tree
                || if entry.dir { names.iter().any(|name| *name == entry.name) } else { own_name == entry.name }
                || entry.is_link();
            if !could {
                continue;
            }
            // Where it really is, and where it is named (a file system that folds case finds it there too).
            let nominal = folded(&entry.nominal);
            for entry_key in [entry.key(&self.resolver), nominal.as_path()] {
                // The root itself is left to the user's own guards (`rm -rf /` is every guard's first example,
                // and what it destroys is not the guards alone).
                let holds = tree && key.parent().is_some() && entry_key.starts_with(&key);
                if key == entry_key || (entry.dir && key.starts_with(entry_key)) || holds {
                    return Some(entry.what);
                }
            }
        }
        if own_name != "hook" {
            return None;
        }
        let dirs = self.resolved_path_dirs.get_or_init(|| {
            let mut resolver = self.resolver.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            self.path_dirs.iter().map(|d| folded(&resolver.resolve_existing(&fold(d)))).collect()
        });
        key.parent()
            .is_some_and(|d| dirs.iter().any(|p| p == d))
            .then_some(What::Engine("a `hook` program on PATH, which would shadow the one the agents' entries run"))
    }

    /// Whether `text` names a protected place: a write whose target the engine cannot read counts against a line
    /// only when it does.
    ///
    /// The names looked for: each place's own name where it is longer than four characters, and the first directory
    /// of a workspace- or home-relative file (`.claude`), a name a line may build a path from; compared case-folded.
    pub fn mentioned_in(&self, text: &str) -> bool {
        let text = text.to_lowercase();
        self.entries.iter().any(|entry| {
            let name = Some(entry.name.as_str()).filter(|n| n.len() > 4);
            let first = entry.nominal.parent().and_then(Path::file_name).map(|n| folded_text(&n.to_string_lossy()));
            let first = first.filter(|n| n.starts_with('.') && n.len() > 2);
            name.into_iter().any(|needle| text.contains(needle)) || first.is_some_and(|n| text.contains(n.as_str()))
        })
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
    Some(Resolver::default().resolve_existing(&fold(&absolute)))
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
    PathBuf::from(folded_text(&path.to_string_lossy()))
}

/// `text` in lower case (ASCII the quick way).
fn folded_text(text: &str) -> String {
    if text.is_ascii() { text.to_ascii_lowercase() } else { text.to_lowercase() }
}

/// `.` and `..` folded without touching the file system.
fn fold(path: &Path) -> PathBuf {
    // Most paths (the protected set's, built by joins) hold no `.` or `..` and no doubled or trailing `/`.
    let bytes = path.as_os_str().as_encoded_bytes();
    let dotted = bytes.split(|b| *b == b'/').any(|part| part == b"." || part == b"..");
    if !dotted && !bytes.windows(2).any(|w| w == b"//") && !bytes.ends_with(b"/") {
        return path.to_owned();
    }
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

/// Resolves paths as the kernel would, remembering what it learnt of each path: the protected set's few hundred
/// entries share a few dozen directories, and `std::fs::canonicalize` on each entry and each of its missing
/// prefixes asked the kernel about every component again (about 850 `readlink` calls, a millisecond of a bridge
/// call that writes). Here each path is looked at once, walking down from the root: one `lstat`, and a `readlink`
/// for a link; a path already seen costs one lookup of its bytes.
#[derive(Debug, Clone, Default)]
struct Resolver {
    /// A path as written → where it really is (`None` where nothing is there).
    known: std::collections::HashMap<std::ffi::OsString, Option<PathBuf>>,
}

/// How many links one resolution follows before it gives up (the kernel's own bound).
const MAX_LINKS: u8 = 40;

impl Resolver {
    /// The longest prefix of the absolute `path` that exists, with its links followed, and the rest appended: a file
    /// not yet written resolves to where it will be written (through a dangling link too: a write creates its
    /// target).
    fn resolve_existing(&mut self, path: &Path) -> PathBuf {
        self.walk(path, 0)
    }

    fn walk(&mut self, path: &Path, links: u8) -> PathBuf {
        if let Some(real) = self.real(path, links) {
            return real;
        }
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => self.walk(parent, links).join(name),
            _ => path.to_owned(),
        }
    }

    /// Where `path` really is, if anything is there: its parent's answer (remembered) and one look at its last
    /// component.
    fn real(&mut self, path: &Path, links: u8) -> Option<PathBuf> {
        if let Some(known) = self.known.get(path.as_os_str()) {
            return known.clone();
        }
        let answer = match (path.parent(), path.components().next_back()) {
            (Some(parent), Some(component)) => match self.real(parent, links) {
                Some(parent) => self.look(&parent, component, links),
                None => None,
            },
            _ => Some(path.to_owned()),
        };
        self.known.insert(path.as_os_str().to_owned(), answer.clone());
        answer
    }

    /// Where `component` under the real directory `parent` is, if anything is there.
    fn look(&mut self, parent: &Path, component: Component<'_>, links: u8) -> Option<PathBuf> {
        let name = match component {
            Component::Normal(name) => name,
            Component::CurDir => return Some(parent.to_owned()),
            Component::ParentDir => return std::fs::canonicalize(parent.join("..")).ok(),
            Component::RootDir | Component::Prefix(_) => {
                return Some(PathBuf::from(component.as_os_str()));
            }
        };
        let candidate = parent.join(name);
        let meta = std::fs::symlink_metadata(&candidate).ok()?;
        if !meta.file_type().is_symlink() {
            return Some(candidate);
        }
        let target = std::fs::read_link(&candidate).ok()?;
        // A target that climbs (`..`) means what the kernel makes of it after the link, not lexically: ask it.
        if links >= MAX_LINKS || target.components().any(|c| c == Component::ParentDir) {
            return std::fs::canonicalize(&candidate).ok();
        }
        let target = if target.is_relative() { parent.join(target) } else { target };
        Some(self.walk(&fold(&target), links + 1))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A fresh directory and its real path.
    fn scratch() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        (dir, root)
    }

    /// A symbolic link at `at` (under `root`) to `target`.
    fn link(root: &Path, target: impl AsRef<Path>, at: &str) {
        std::os::unix::fs::symlink(target, root.join(at)).unwrap();
    }

    /// The remembering resolver answers what `canonicalize` answers, through absolute, relative and climbing links,
    /// a loop, and missing tails.
    #[test]
    fn the_resolver_agrees_with_canonicalize() {
        let (_dir, root) = scratch();
        let link = |target: &str, at: &str| link(&root, target, at);
        std::fs::create_dir_all(root.join("real/inner")).unwrap();
        std::fs::write(root.join("real/inner/settings.json"), "{}").unwrap();
        link(&root.join("real").display().to_string(), "absolute");
        link("real/inner", "relative");
        link("real/inner/../inner", "climbing");
        link("loop-b", "loop-a");
        link("loop-a", "loop-b");
        let mut resolver = Resolver::default();
        for path in ["absolute/inner/settings.json", "relative/settings.json", "climbing/settings.json", "real"] {
            let path = root.join(path);
            assert_eq!(resolver.resolve_existing(&path), std::fs::canonicalize(&path).unwrap(), "{}", path.display());
        }
        assert_eq!(
            resolver.resolve_existing(&root.join("relative/new/file.txt")),
            root.join("real/inner/new/file.txt"),
            "a missing tail is appended to the real prefix"
        );
        let looped = resolver.resolve_existing(&root.join("loop-a/x"));
        assert!(looped.starts_with(&root) && looped.ends_with("x"), "a loop ends: {}", looped.display());
        link("real/inner/new.json", "dangling");
        assert_eq!(
            resolver.resolve_existing(&root.join("dangling")),
            root.join("real/inner/new.json"),
            "a write creates it"
        );
        assert_eq!(resolver.resolve_existing(&root.join("missing/x")), root.join("missing/x"));
        // Asked again, through the directories it remembers: the same answers.
        assert_eq!(
            resolver.resolve_existing(&root.join("relative/settings.json")),
            root.join("real/inner/settings.json")
        );
        assert_eq!(resolver.resolve_existing(&root.join("relative/other.json")), root.join("real/inner/other.json"));
        assert_eq!(fold(Path::new("/a/./b/../c//d/")), Path::new("/a/c/d"));
        assert_eq!(fold(Path::new("/a/.agent/x")), Path::new("/a/.agent/x"));
    }

    /// A place reached through a link by another name: the place is itself a link (the managed policy kept with the
    /// user's dotfiles, the workspace's `.hooks` pointing elsewhere), and the call names the link's target.
    #[test]
    fn a_place_that_is_a_link_is_found_by_its_target() {
        let (_dir, root) = scratch();
        let (ws, home) = (root.join("ws"), root.join("home"));
        for d in [ws.join("elsewhere"), home.join("dotfiles")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join("dotfiles/policy.yaml"), "version: 1\n").unwrap();
        link(&root, "home/dotfiles/policy.yaml", "managed.yaml");
        link(&root, ws.join("elsewhere"), "ws/.hooks");
        let layout = Layout::new(&ws)
            .with_home(Some(home.clone()))
            .with_config_home(root.join("cfg"))
            .with_managed_file(root.join("managed.yaml"));
        let protected = Protected::new(&layout, &ws, Some(&home));
        assert!(protected.covering(&home.join("dotfiles/policy.yaml"), false).is_some(), "the managed file's target");
        assert!(protected.covering(&ws.join("elsewhere/hooks.yaml"), false).is_some(), ".hooks' target");
        assert!(protected.covering(&home.join("dotfiles/other.yaml"), false).is_none());
        assert!(protected.covering(&ws.join("src/main.rs"), false).is_none());
        assert!(protected.covering(&ws.join(".HOOKS/Hooks.yaml"), false).is_some(), "case-folded");
        assert!(protected.covering(&home.join("dotfiles"), true).is_some(), "a removal of the folder holding it");
    }
}
