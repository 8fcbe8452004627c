//! From the global flags to a loaded configuration: the [`Layout`] a host would build, the checks that turn a bad
//! path into one clear error, and [`load`].

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use hook_config::{Config, Layout, LoadOptions, load};

use crate::cli::GlobalArgs;
use crate::render::Painter;

/// What every subcommand starts from.
#[derive(Debug)]
pub struct Context {
    /// Where the hook files are.
    pub layout: Layout,
    /// `--json`.
    pub json: bool,
    /// Colors for text output.
    pub painter: Painter,
}

impl Context {
    /// Builds the layout from the global flags, refusing paths that cannot be what they are for.
    pub fn new(global: &GlobalArgs) -> Result<Context> {
        let workspace = match &global.workspace {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().context("cannot read the current directory (pass --workspace DIR)")?,
        };
        check_dir(&workspace, "workspace", "--workspace")?;
        let mut layout = Layout::new(&workspace);
        if let Some(home) = &global.config_home {
            if home.exists() {
                check_dir(home, "config home", "--config-home")?;
            }
            layout = layout.with_config_home(home);
        }
        if let Some(file) = &global.managed_file {
            if file.is_dir() {
                bail!(
                    "managed file `{}` (--managed-file) is a directory; expected a YAML file of hooks",
                    file.display()
                );
            }
            layout = layout.with_managed_file(file);
        }
        Ok(Context { layout, json: global.json, painter: Painter::new(global.color) })
    }

    /// Loads every origin, leniently (what is valid runs; issues are data), for a command that acts on what it
    /// loads. A hook file that exists but is not a regular file (a directory where `hooks.yaml` should be) is an
    /// error here: a policy file that does not load must not let a dispatch pass it by. `inspect` and `validate`
    /// use [`Context::load_to_show`], where it is one issue.
    pub fn load(&self) -> Result<Config> {
        self.load_with(&LoadOptions::default())
    }

    /// Loads every origin for a command that only shows what it found (`inspect`, `validate`): a hook file that
    /// is not a regular file (a directory, a FIFO, a device) is one error-level issue among the others, and the
    /// rest is shown.
    pub fn load_to_show(&self) -> Result<Config> {
        Ok(load(&self.layout, &LoadOptions::default())?)
    }

    /// [`Context::load`] with other options (`--trust-workspace`).
    pub fn load_with(&self, options: &LoadOptions) -> Result<Config> {
        let config = load(&self.layout, options)?;
        if let Some(source) = config.sources.iter().find(|s| !s.found && s.present) {
            bail!(
                "{} hook file `{}` is not a regular file (a directory?); expected a {} file of hooks",
                source.origin,
                source.path.display(),
                if source.path.extension().is_some_and(|e| e == "json") { "JSON" } else { "YAML" },
            );
        }
        Ok(config)
    }
}

fn check_dir(path: &Path, what: &str, flag: &str) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => bail!("{what} `{}` ({flag}) is not a directory", path.display()),
        Err(err) => bail!("{what} `{}` ({flag}) cannot be used: {err}", path.display()),
    }
}

/// `path` relative to the current directory when it lies under it, as compilers print file names; else as is.
pub fn display_path(path: &Path) -> String {
    display_path_from(path, std::env::current_dir().ok().as_deref())
}

/// [`display_path`] against a current directory read once by the caller (`None` when it cannot be read), for a
/// caller that names many files.
pub fn display_path_from(path: &Path, cwd: Option<&Path>) -> String {
    let relative = cwd.and_then(|cwd| path.strip_prefix(cwd).ok()).filter(|p| !p.as_os_str().is_empty());
    relative.unwrap_or(path).display().to_string()
}
