//! `LoadedHook::origin_trusted` says whether a hook's origin was trusted in this load (docs/trust.md#origins, docs/trust.md): the
//! managed origin always, the user origin unless its config home lies inside the workspace, the workspace's own
//! origins never. A pipeline re-checks the fingerprint of every hook whose origin was not trusted, so this flag, not
//! the origin's default, is what keeps a repository-supplied "user" script from running after an edit.

use std::fs;
use std::path::{Path, PathBuf};

use hook_config::{Config, Layout, LoadOptions, load};
use hook_types::Origin;

/// A workspace with a project hook and a managed file beside it, and a user hook in `config_home`.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        write(&root.join("ws/.hooks/hooks.yaml"), "- {id: repo, on: pre_tool, kind: command, shell: 'exit 0'}\n");
        write(&root.join("managed.yaml"), "- {id: policy, on: pre_tool, kind: command, shell: 'exit 0'}\n");
        Fixture { _dir: dir, root }
    }

    /// Loads with the user origin's `hooks.yaml` in `config_home` (relative to the temp root).
    fn load_with_config_home(&self, config_home: &str) -> Config {
        let home = self.root.join(config_home);
        write(&home.join("hooks.yaml"), "- {id: mine, on: pre_tool, kind: command, shell: 'exit 0'}\n");
        let layout = Layout::new(self.root.join("ws"))
            .with_config_home(home)
            .with_home(None)
            .with_managed_file(self.root.join("managed.yaml"));
        load(&layout, &LoadOptions::default()).unwrap()
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// `(id, origin, origin_trusted)` of every hook in force, in precedence order.
fn flags(config: &Config) -> Vec<(&str, Origin, bool)> {
    config.hooks.iter().map(|h| (h.decl.id.as_str(), h.decl.origin, h.origin_trusted)).collect()
}

#[test]
fn a_user_origin_outside_the_workspace_is_trusted_and_the_workspace_origins_are_not() {
    let config = Fixture::new().load_with_config_home("config/hooks");
    assert!(config.user_trusted);
    assert_eq!(
        flags(&config),
        [("mine", Origin::User, true), ("repo", Origin::Project, false), ("policy", Origin::Managed, true)]
    );
}

#[test]
fn a_user_origin_whose_config_home_lies_inside_the_workspace_is_not_trusted() {
    let config = Fixture::new().load_with_config_home("ws/.config/hooks");
    assert!(!config.user_trusted);
    assert_eq!(
        flags(&config),
        [("mine", Origin::User, false), ("repo", Origin::Project, false), ("policy", Origin::Managed, true)]
    );
}
