//! Trust over real files (docs/trust.md#fingerprints): fingerprints cover the files a command names, statuses follow the store,
//! reordering keeps trust, changing what runs loses it, and a copy at another path is another workspace.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use hook_config::{Config, Layout, LoadOptions, TrustStatus, TrustStore, fingerprint, load, recheck};

/// A workspace and a config home in a temp dir; the managed file does not exist.
struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    workspace: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let workspace = root.join("ws");
        fs::create_dir_all(workspace.join(".hooks")).unwrap();
        Env { _dir: dir, root, workspace }
    }

    fn config_home(&self) -> PathBuf {
        self.root.join("config/hooks")
    }

    /// Writes a file relative to the workspace (`~/…` for the config home).
    fn write(&self, relative: &str, text: &str) -> &Env {
        let path = match relative.strip_prefix("~/") {
            Some(rest) => self.config_home().join(rest),
            None => self.workspace.join(relative),
        };
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        if relative.ends_with(".sh") {
            // A script a hook runs needs its run bit, or the hook does not load.
            fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        }
        self
    }

    fn layout_for(&self, workspace: &Path) -> Layout {
        Layout::new(workspace)
            .with_home(None)
            .with_config_home(self.config_home())
            .with_managed_file(self.root.join("no-policy/hooks.yaml"))
    }

    fn load_at(&self, workspace: &Path) -> Config {
        load(&self.layout_for(workspace), &LoadOptions::default()).unwrap()
    }

    fn load(&self) -> Config {
        self.load_at(&self.workspace)
    }

    /// Trusts, as `hook trust` does, exactly what was loaded for `id` (the hook in force or the one that attempted
    /// to shadow), and saves the store.
    fn trust(&self, config: &Config, id: &str) {
        let hook = config
            .shadowed
            .iter()
            .map(|s| &s.attempted)
            .chain(config.hooks.iter())
            .find(|h| h.decl.id == id)
            .unwrap_or_else(|| panic!("no hook `{id}`"));
        let (mut store, issue) = TrustStore::open(self.config_home().join("trusted.json"));
        assert!(issue.is_none(), "{issue:?}");
        store.trust_hook(&config.workspace, &hook.decl, hook.fingerprint.as_ref());
        store.save().unwrap();
    }
}

/// The status of the hook in force with `id`.
fn status(config: &Config, id: &str) -> TrustStatus {
    config.get(id).unwrap_or_else(|| panic!("no hook `{id}` in force")).trust
}

const GUARD_HOOK: &str = "
- id: guard
  on: pre_tool
  tools: [shell]
  kind: command
  argv: [./scripts/guard.sh, --strict]
  timeout_ms: 1500
";

#[test]
fn a_project_hook_with_a_user_hooks_id_waits_for_trust_and_then_wins() {
    let env = Env::new();
    env.write("~/hooks.yaml", "- {id: guard, on: pre_tool, kind: command, argv: [./user-guard.sh]}\n")
        .write("~/user-guard.sh", "#!/bin/sh\nexit 0\n")
        .write(".hooks/hooks.yaml", GUARD_HOOK)
        .write("scripts/guard.sh", "#!/bin/sh\nexit 2\n");

    let before = env.load();
    let hook = before.get("guard").unwrap();
    assert_eq!(hook.decl.origin, hook_types::Origin::User, "the user hook stays in force");
    assert!(hook.runnable());
    assert!(before.overridden.is_empty());
    let attempt = &before.shadowed[..];
    assert_eq!(attempt.len(), 1);
    assert_eq!(attempt[0].attempted.decl.source, env.workspace.join(".hooks/hooks.yaml"));
    assert_eq!(attempt[0].attempted.trust, TrustStatus::Untrusted);
    assert!(attempt[0].message().contains("the user hook stays in force until the project hook is trusted"));

    env.trust(&before, "guard");
    let after = env.load();
    let hook = after.get("guard").unwrap();
    assert_eq!(hook.decl.origin, hook_types::Origin::Project, "the trusted project hook wins");
    assert_eq!(hook.trust, TrustStatus::Trusted);
    assert!(after.shadowed.is_empty());
    assert_eq!(after.overridden.len(), 1);
    assert_eq!(after.overridden[0].hook.decl.origin, hook_types::Origin::User);
    assert_eq!(after.overridden[0].winner_source, env.workspace.join(".hooks/hooks.yaml"));
}

#[test]
fn changing_one_byte_of_a_trusted_script_makes_the_hook_modified() {
    let env = Env::new();
    env.write(".hooks/hooks.yaml", GUARD_HOOK).write("scripts/guard.sh", "#!/bin/sh\nexit 0\n");
    let config = env.load();
    assert_eq!(status(&config, "guard"), TrustStatus::Untrusted);
    let files = &config.get("guard").unwrap().fingerprint.as_ref().unwrap().files;
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, env.workspace.join("scripts/guard.sh"));

    env.trust(&config, "guard");
    assert_eq!(status(&env.load(), "guard"), TrustStatus::Trusted);

    env.write("scripts/guard.sh", "#!/bin/sh\nexit 1\n");
    let config = env.load();
    assert_eq!(status(&config, "guard"), TrustStatus::Modified);
    assert!(!config.get("guard").unwrap().runnable());

    env.write("scripts/guard.sh", "#!/bin/sh\nexit 0\n");
    assert_eq!(status(&env.load(), "guard"), TrustStatus::Trusted, "the trusted bytes again");
}

#[test]
fn reordering_and_reformatting_the_yaml_keeps_trust_but_changing_what_runs_loses_it() {
    let env = Env::new();
    env.write(".hooks/hooks.yaml", GUARD_HOOK).write("scripts/guard.sh", "#!/bin/sh\nexit 0\n");
    env.trust(&env.load(), "guard");

    // Keys reordered, a comment, flow style, another hook before it: the same hook.
    env.write(
        ".hooks/hooks.yaml",
        "# reordered\n- {id: note, on: turn_start, kind: effect, effect: {kind: lock_tools}}\n\
         - kind: command   # same hook\n  timeout_ms: 1500\n  argv: [\"./scripts/guard.sh\", \"--strict\"]\n  \
         on: PreToolUse\n  tools: [shell]\n  id: guard\n",
    );
    let config = env.load();
    assert_eq!(config.get("guard").unwrap().decl.index, 1);
    assert_eq!(status(&config, "guard"), TrustStatus::Trusted);

    env.write(".hooks/hooks.yaml", &GUARD_HOOK.replace("--strict", "--lax"));
    assert_eq!(status(&env.load(), "guard"), TrustStatus::Modified);
}

#[test]
fn a_project_allow_tool_effect_needs_trust_and_a_block_tool_effect_does_not() {
    let env = Env::new();
    env.write(
        ".hooks/hooks.yaml",
        "- {id: allow-reads, on: pre_tool, tools: [read], kind: effect, effect: {kind: allow_tool, reason: reads are safe}}\n\
         - {id: no-rm, on: pre_tool, tools: [shell], kind: effect, effect: {kind: block_tool, reason: no rm}}\n",
    );
    let config = env.load();
    assert_eq!(status(&config, "allow-reads"), TrustStatus::Untrusted, "allow_tool widens");
    assert!(!config.get("allow-reads").unwrap().runnable());
    assert_eq!(status(&config, "no-rm"), TrustStatus::Trusted, "block_tool only narrows");
    assert!(config.get("no-rm").unwrap().runnable());
    assert!(config.get("allow-reads").unwrap().fingerprint.is_none(), "an effect names no files");

    env.trust(&config, "allow-reads");
    let config = env.load();
    assert_eq!(status(&config, "allow-reads"), TrustStatus::Trusted);
    assert!(config.get("allow-reads").unwrap().runnable());
}

#[test]
fn a_corrupt_trusted_json_trusts_nothing_and_gives_an_issue() {
    let env = Env::new();
    env.write(".hooks/hooks.yaml", GUARD_HOOK).write("scripts/guard.sh", "#!/bin/sh\nexit 0\n");
    env.trust(&env.load(), "guard");
    assert_eq!(status(&env.load(), "guard"), TrustStatus::Trusted);

    let store = env.config_home().join("trusted.json");
    let text = fs::read_to_string(&store).unwrap();
    fs::write(&store, &text[..text.len() / 2]).unwrap();
    let config = env.load();
    assert_eq!(status(&config, "guard"), TrustStatus::Untrusted);
    let issue = config.issues.iter().find(|i| i.source == store).expect("the corrupt store is reported");
    assert_eq!(issue.severity, hook_config::IssueSeverity::Error);
    assert!(issue.message.contains("nothing is trusted"), "{}", issue.message);
}

#[test]
fn a_hook_trusted_in_one_workspace_is_untrusted_in_a_copy_at_another_path() {
    let env = Env::new();
    env.write(".hooks/hooks.yaml", GUARD_HOOK).write("scripts/guard.sh", "#!/bin/sh\nexit 0\n");
    env.trust(&env.load(), "guard");

    let copy = env.root.join("copy-of-ws");
    for relative in [".hooks/hooks.yaml", "scripts/guard.sh"] {
        fs::create_dir_all(copy.join(relative).parent().unwrap()).unwrap();
        fs::copy(env.workspace.join(relative), copy.join(relative)).unwrap();
    }
    let in_copy = env.load_at(&copy);
    assert_eq!(status(&in_copy, "guard"), TrustStatus::Untrusted);
    // Same hook, same files: only the workspace differs.
    let original = env.load();
    assert_eq!(status(&original, "guard"), TrustStatus::Trusted);
    assert_eq!(in_copy.get("guard").unwrap().fingerprint.as_ref().unwrap().value, {
        original.get("guard").unwrap().fingerprint.as_ref().unwrap().value.clone()
    });
}

#[test]
fn a_fingerprint_covers_every_file_the_command_names_inside_the_workspace_only() {
    let env = Env::new();
    env.write(
        ".hooks/hooks.yaml",
        "- id: lint
  on: post_tool
  kind: command
  shell: 'bash \"$CLAUDE_PROJECT_DIR/hooks/lint.sh\" --config=${HOOK_PROJECT_DIR}/lint.toml < ./input.txt | /bin/cat'
  env: { RULES: ./rules.txt, HOME_RULES: /etc/passwd }
- id: link
  on: post_tool
  kind: command
  argv: [./scripts/link.sh]
",
    )
    .write("hooks/lint.sh", "lint")
    .write("lint.toml", "toml")
    .write("input.txt", "input")
    .write("rules.txt", "rules");
    // A symlink to a file outside the workspace is not the repository's to pin.
    fs::create_dir_all(env.workspace.join("scripts")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", env.workspace.join("scripts/link.sh")).unwrap();
    let config = env.load();
    let files: Vec<PathBuf> =
        config.get("lint").unwrap().fingerprint.as_ref().unwrap().files.iter().map(|f| f.path.clone()).collect();
    let expected: Vec<PathBuf> =
        ["hooks/lint.sh", "input.txt", "lint.toml", "rules.txt"].iter().map(|p| env.workspace.join(p)).collect();
    assert_eq!(files, expected, "/bin/cat and /etc/passwd are the system's, not the repository's");
    assert!(config.get("link").unwrap().fingerprint.as_ref().unwrap().files.is_empty());

    // Each named file is part of what is trusted.
    env.trust(&config, "lint");
    env.write("rules.txt", "rules, changed");
    assert_eq!(status(&env.load(), "lint"), TrustStatus::Modified);
}

#[test]
fn recheck_rehashes_files_whose_size_times_or_inode_changed() {
    let env = Env::new();
    env.write(".hooks/hooks.yaml", GUARD_HOOK).write("scripts/guard.sh", "#!/bin/sh\nexit 0\n");
    let config = env.load();
    let hook = config.get("guard").unwrap();
    let at_load = hook.fingerprint.clone().unwrap();
    assert_eq!(recheck(&at_load, &hook.decl, &config.workspace), at_load, "nothing changed");

    // A `git pull` rewrites the script (another size, so even a coarse mtime clock cannot hide it): recheck sees it.
    let script = env.workspace.join("scripts/guard.sh");
    fs::write(&script, "#!/bin/sh\nexit 10\n").unwrap();
    let pulled = recheck(&at_load, &hook.decl, &config.workspace);
    assert_ne!(pulled.value, at_load.value);
    assert_eq!(pulled, fingerprint(&hook.decl, &config.workspace));

    // Same size and modification time as recorded: the status-change time, which nobody can set back, still
    // moved, so recheck reads the file again.
    fs::write(&script, "#!/bin/sh\nexit 20\n").unwrap();
    let recorded = SystemTime::UNIX_EPOCH + Duration::from_nanos(u64::try_from(pulled.files[0].mtime_ns).unwrap());
    fs::File::options().write(true).open(&script).unwrap().set_modified(recorded).unwrap();
    let edited = recheck(&pulled, &hook.decl, &config.workspace);
    assert_ne!(edited.value, pulled.value);
    assert_eq!(edited, fingerprint(&hook.decl, &config.workspace));
}
