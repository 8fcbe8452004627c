//! Where a host keeps its hook files (docs/trust.md#origins): the app directory name, the workspace, the config home, the
//! extension roots and the managed policy file.
//!
//! Only `XDG_CONFIG_HOME` moves anything, and only the default config home: a repository can set environment
//! variables for the agent it runs in, so an environment variable that moved the managed file or the trust store
//! would let the repository choose its own policy.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The app directory name a host uses unless it renames it.
pub const DEFAULT_APP_DIR: &str = "hooks";

/// The managed (policy) file unless the host points elsewhere: `/etc/hooks/hooks.yaml`; on Windows
/// `C:\ProgramData\hooks\hooks.yaml`.
pub const DEFAULT_MANAGED_FILE: &str = crate::platform::MANAGED_FILE;

/// The file name of the trust store inside the config home.
pub const TRUST_STORE_FILE: &str = "trusted.json";

/// Where a host keeps its hook files.
///
/// ```
/// use hook_config::Layout;
/// let layout = Layout::new("/work/repo")
///     .with_config_home("/tmp/cfg/hooks")
///     .with_managed_file("/tmp/policy/hooks.yaml")
///     .with_extension_root("/opt/ext/lint");
/// assert_eq!(layout.trust_store_path(), std::path::Path::new("/tmp/cfg/hooks/trusted.json"));
/// assert_eq!(layout.project_dir(), std::path::Path::new("/work/repo/.hooks"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The app directory name: the config home's last component by default and, with a leading dot, the project
    /// directory (`.hooks`). A host may rename it (`"myagent"` gives `.myagent/hooks.yaml`).
    pub app_dir: String,
    /// The workspace root as given; [`crate::load`] canonicalizes it.
    pub workspace: PathBuf,
    /// The config home: `<config home>/hooks.yaml` and `<config home>/trusted.json`. `None` when no
    /// `XDG_CONFIG_HOME` and no home directory is known; then there is no user origin and no trust store.
    pub config_home: Option<PathBuf>,
    /// The user's home directory, where the other agents keep their user-level files (`~/.claude/settings.json`).
    /// `None` reads none of them.
    pub home: Option<PathBuf>,
    /// Extension roots, in dependency order: `<root>/hooks.yaml` each.
    pub extension_roots: Vec<PathBuf>,
    /// The managed policy file. Never taken from the environment.
    pub managed_file: PathBuf,
}

impl Layout {
    /// A layout with the defaults of docs/trust.md#origins: app dir `hooks`; config home `$XDG_CONFIG_HOME/hooks` when that
    /// variable is an absolute path (on Windows `%APPDATA%\hooks`), else `~/.config/hooks`; home from the platform's home directory; no extension
    /// roots; managed file `/etc/hooks/hooks.yaml`.
    ///
    /// The environment is read here, once, so a `Layout` means the same thing for as long as it lives.
    pub fn new(workspace: impl Into<PathBuf>) -> Layout {
        Layout::from_env(workspace.into(), std::env::var_os(crate::platform::CONFIG_HOME_VAR), std::env::home_dir())
    }

    /// [`Layout::new`] with the two environment inputs given: the only ones that move anything.
    fn from_env(workspace: PathBuf, xdg_config_home: Option<OsString>, home: Option<PathBuf>) -> Layout {
        let home = home.filter(|h| h.is_absolute());
        // The XDG spec says a relative value is invalid and must be ignored; an empty one means unset.
        let xdg = xdg_config_home.map(PathBuf::from).filter(|p| p.is_absolute());
        let config_base = xdg.or_else(|| home.as_ref().map(|h| h.join(".config")));
        Layout {
            app_dir: DEFAULT_APP_DIR.to_owned(),
            workspace,
            config_home: config_base.map(|base| base.join(DEFAULT_APP_DIR)),
            home,
            extension_roots: Vec::new(),
            managed_file: PathBuf::from(DEFAULT_MANAGED_FILE),
        }
    }

    /// Renames the app directory. A config home whose last component is the old name (the default one) follows
    /// the new name; any other stays. Call it before [`Layout::with_config_home`] to keep an explicit one untouched.
    pub fn with_app_dir(mut self, app_dir: impl Into<String>) -> Layout {
        let app_dir = app_dir.into();
        if let Some(home) = &self.config_home
            && home.file_name().is_some_and(|name| name == self.app_dir.as_str())
        {
            self.config_home = home.parent().map(|base| base.join(&app_dir));
        }
        self.app_dir = app_dir;
        self
    }

    /// Sets the config home (`--config-home`).
    pub fn with_config_home(mut self, config_home: impl Into<PathBuf>) -> Layout {
        self.config_home = Some(config_home.into());
        self
    }

    /// Sets (or, with `None`, clears) the home directory the other agents' user-level files are read from.
    pub fn with_home(mut self, home: Option<PathBuf>) -> Layout {
        self.home = home;
        self
    }

    /// Sets the managed policy file (`--managed-file`).
    pub fn with_managed_file(mut self, managed_file: impl Into<PathBuf>) -> Layout {
        self.managed_file = managed_file.into();
        self
    }

    /// Appends an extension root; call in dependency order.
    pub fn with_extension_root(mut self, root: impl Into<PathBuf>) -> Layout {
        self.extension_roots.push(root.into());
        self
    }

    /// The config home, or an empty path when none is known (see [`Layout::config_home`](field@Layout::config_home)).
    pub fn config_home(&self) -> PathBuf {
        self.config_home.clone().unwrap_or_default()
    }

    /// `<config home>/trusted.json`, or an empty path when no config home is known.
    pub fn trust_store_path(&self) -> PathBuf {
        self.config_home.as_ref().map(|home| home.join(TRUST_STORE_FILE)).unwrap_or_default()
    }

    /// The workspace's native directory: `<workspace>/.<app dir>`.
    pub fn project_dir(&self) -> PathBuf {
        self.workspace.join(format!(".{}", self.app_dir))
    }

    /// The config home as a path, when one is known.
    pub fn config_home_path(&self) -> Option<&Path> {
        self.config_home.as_deref().filter(|p| !p.as_os_str().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(xdg: Option<&str>, home: Option<&str>) -> Layout {
        Layout::from_env(PathBuf::from("/ws"), xdg.map(OsString::from), home.map(PathBuf::from))
    }

    #[test]
    fn xdg_config_home_moves_the_default_config_home_and_nothing_else() {
        let with_xdg = layout(Some("/xdg"), Some("/home/me"));
        assert_eq!(with_xdg.config_home(), Path::new("/xdg/hooks"));
        assert_eq!(with_xdg.trust_store_path(), Path::new("/xdg/hooks/trusted.json"));
        assert_eq!(with_xdg.home.as_deref(), Some(Path::new("/home/me")));
        assert_eq!(with_xdg.managed_file, Path::new("/etc/hooks/hooks.yaml"));
        assert_eq!(with_xdg.project_dir(), Path::new("/ws/.hooks"));
    }

    #[test]
    fn without_a_usable_xdg_config_home_the_config_home_is_under_the_home_directory() {
        for xdg in [None, Some(""), Some("relative/dir")] {
            assert_eq!(layout(xdg, Some("/home/me")).config_home(), Path::new("/home/me/.config/hooks"), "{xdg:?}");
        }
        let nowhere = layout(None, None);
        assert_eq!(nowhere.config_home, None);
        assert_eq!(nowhere.trust_store_path(), Path::new(""));
    }

    #[test]
    fn renaming_the_app_dir_moves_a_default_config_home_but_not_an_explicit_one() {
        let renamed = layout(None, Some("/home/me")).with_app_dir("myagent");
        assert_eq!(renamed.config_home(), Path::new("/home/me/.config/myagent"));
        assert_eq!(renamed.project_dir(), Path::new("/ws/.myagent"));
        let explicit = layout(None, Some("/home/me")).with_config_home("/cfg").with_app_dir("myagent");
        assert_eq!(explicit.config_home(), Path::new("/cfg"));
    }
}
