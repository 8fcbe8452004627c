//! `LoadOptions::trust_workspace` over real files: the workspace's own hooks run for this load as if trusted with
//! `hook trust` — a project hook that was held back from displacing the user's hook of the same id displaces it, in
//! precedence order, and every loser names it as the winner — while extension hooks stay as they are and
//! `trusted.json` is not touched.

use std::fs;
use std::path::{Path, PathBuf};

use hook_config::{Config, Layout, LoadOptions, TrustStatus, TrustStore, load};
use hook_types::Origin;

/// An extension, a user origin, a project and its local file, all declaring hooks; `fmt` (project.local) was
/// trusted before its script changed.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let fixture = Fixture { _dir: dir, root };
        fixture.write(
            "ext/hooks.yaml",
            "- {id: guard, on: pre_tool, kind: effect, effect: {kind: ask_user, reason: the extension's}}\n\
             - {id: ext-cmd, on: pre_tool, kind: command, argv: [./ext.sh]}\n",
        );
        fixture.write("ext/ext.sh", "#!/bin/sh\n");
        fixture.write(
            "cfg/hooks.yaml",
            "- {id: guard, on: pre_tool, kind: effect, effect: {kind: ask_user, reason: mine}}\n",
        );
        fixture.write(
            "ws/.hooks/hooks.yaml",
            "- {id: guard, on: pre_tool, kind: command, argv: [./scripts/guard.sh]}\n\
             - {id: lint, on: post_tool, kind: command, shell: ./scripts/lint.sh}\n\
             - {id: notes, on: pre_tool, kind: effect, effect: {kind: protect_path, path: .env, reason: secrets}}\n",
        );
        fixture.write(
            "ws/.hooks/hooks.local.yaml",
            "- {id: fmt, on: post_tool, kind: command, argv: [./scripts/fmt.sh]}\n",
        );
        for script in ["guard", "lint", "fmt"] {
            fixture.write(&format!("ws/scripts/{script}.sh"), "#!/bin/sh\n");
        }
        let config = fixture.load(false);
        let fmt = config.get("fmt").unwrap();
        let (mut store, issue) = TrustStore::open(fixture.root.join("cfg/trusted.json"));
        assert!(issue.is_none(), "{issue:?}");
        store.trust_hook(&config.workspace, &fmt.decl, fmt.fingerprint.as_ref());
        store.save().unwrap();
        fixture.write("ws/scripts/fmt.sh", "#!/bin/sh\necho changed\n");
        fixture
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        if relative.ends_with(".sh") {
            // A script a hook runs needs its run bit, or the hook does not load.
            fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        }
    }

    fn load(&self, trust_workspace: bool) -> Config {
        let layout = Layout::new(self.root.join("ws"))
            .with_home(None)
            .with_config_home(self.root.join("cfg"))
            .with_managed_file(self.root.join("none.yaml"))
            .with_extension_root(self.root.join("ext"));
        load(&layout, &LoadOptions { trust_workspace, ..LoadOptions::default() }).unwrap()
    }
}

/// Each hook in force as (id, origin, trust), in order.
fn in_force(config: &Config) -> Vec<(&str, Origin, TrustStatus)> {
    config.hooks.iter().map(|h| (h.decl.id.as_str(), h.decl.origin, h.trust)).collect()
}

/// Each overridden hook as (id, its origin, the winner's origin, the winner's file name under the fixture).
fn overridden<'a>(config: &'a Config, root: &Path) -> Vec<(&'a str, Origin, Origin, PathBuf)> {
    config
        .overridden
        .iter()
        .map(|o| {
            (
                o.hook.decl.id.as_str(),
                o.hook.decl.origin,
                o.winner_origin,
                o.winner_source.strip_prefix(root).unwrap().into(),
            )
        })
        .collect()
}

#[test]
fn without_the_option_the_workspace_waits_for_trust_and_the_users_hook_stays() {
    let fixture = Fixture::new();
    let config = fixture.load(false);
    use {Origin::*, TrustStatus::*};
    assert_eq!(
        in_force(&config),
        [
            ("ext-cmd", Extension, Untrusted),
            ("guard", User, Trusted),
            ("lint", Project, Untrusted),
            ("notes", Project, Trusted),
            ("fmt", ProjectLocal, Modified),
        ]
    );
    assert_eq!(config.shadowed.len(), 1, "the project's guard tried: {:#?}", config.shadowed);
    assert_eq!(config.trusted_in_memory, 0);
}

#[test]
fn a_project_hook_shadowing_a_user_hook_wins_after_the_in_memory_trust_and_trusted_json_is_untouched() {
    let fixture = Fixture::new();
    let store = fixture.root.join("cfg/trusted.json");
    let (bytes, modified) = (fs::read(&store).unwrap(), fs::metadata(&store).unwrap().modified().unwrap());

    let config = fixture.load(true);
    use {Origin::*, TrustStatus::*};
    assert_eq!(
        in_force(&config),
        [
            ("ext-cmd", Extension, Untrusted),
            ("guard", Project, Trusted),
            ("lint", Project, Trusted),
            ("notes", Project, Trusted),
            ("fmt", ProjectLocal, Trusted),
        ],
        "in precedence order: the project's guard at its own place; extension hooks are not the workspace's"
    );
    assert!(config.shadowed.is_empty(), "{:#?}", config.shadowed);
    let winner = PathBuf::from("ws/.hooks/hooks.yaml");
    assert_eq!(
        overridden(&config, &fixture.root),
        [("guard", Extension, Project, winner.clone()), ("guard", User, Project, winner)],
        "every loser names the hook finally in force"
    );
    assert_eq!(config.trusted_in_memory, 3, "guard, lint and the modified fmt; `notes` needs no trust");
    assert!(config.runnable().any(|h| h.decl.id == "guard" && h.decl.origin == Project));

    assert_eq!(fs::read(&store).unwrap(), bytes, "trusted.json is byte for byte the same");
    assert_eq!(fs::metadata(&store).unwrap().modified().unwrap(), modified, "and not rewritten");
    assert_eq!(in_force(&fixture.load(false))[1], ("guard", User, Trusted), "the next load is as before");
}
