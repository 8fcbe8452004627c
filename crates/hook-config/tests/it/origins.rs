//! Discovery and the precedence merge over real files (docs/trust.md#origins): five origins with id collisions, `only_managed`,
//! the managed file's integrity, a config home inside the workspace, strict mode, and every slot of the other
//! agents' files.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hook_config::{Config, Format, InspectReport, IssueSeverity, Layout, LoadError, LoadOptions, TrustStatus, load};
use hook_testkit::paths::copy_dir;
use hook_types::Origin;

/// A copy of `tests/fixtures/origins/<name>` in a temp dir, so trust stores and edits never touch the repository.
struct Fixture {
    _dir: tempfile::TempDir,
    /// The canonical temp dir: what snapshots redact.
    root: PathBuf,
}

impl Fixture {
    fn copy(name: &str) -> Fixture {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/origins").join(name);
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        copy_dir(&source, &root);
        let fixture = Fixture { _dir: dir, root };
        // A policy file as an operator installs it: read-only, in a read-only directory.
        fixture.chmod("managed/hooks.yaml", 0o444);
        fixture.chmod("managed", 0o555);
        fixture
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    fn chmod(&self, relative: &str, mode: u32) {
        fs::set_permissions(self.path(relative), fs::Permissions::from_mode(mode)).unwrap();
    }

    /// Rewrites a file of the copy, even in the read-only managed directory.
    fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        let dir = path.parent().unwrap().to_path_buf();
        let dir_mode = fs::metadata(&dir).unwrap().permissions().mode();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let _ = fs::remove_file(&path);
        fs::write(&path, text).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(dir_mode)).unwrap();
    }

    fn layout(&self) -> Layout {
        Layout::new(self.path("workspace"))
            .with_home(Some(self.path("home")))
            .with_config_home(self.path("config/hooks"))
            .with_managed_file(self.path("managed/hooks.yaml"))
            .with_extension_root(self.path("ext/lint"))
    }

    fn load(&self) -> Config {
        load(&self.layout(), &LoadOptions::default()).unwrap()
    }

    /// The report as JSON with the temp dir replaced by `[tmp]`.
    fn redacted_report(&self, config: &Config) -> serde_json::Value {
        let text = serde_json::to_string(&InspectReport::new(config)).unwrap();
        serde_json::from_str(&text.replace(&*self.root.to_string_lossy(), "[tmp]")).unwrap()
    }
}

/// (id, origin, file relative to the fixture root, trust) of every hook in force, in order.
fn winners(fixture: &Fixture, config: &Config) -> Vec<(String, Origin, String, TrustStatus)> {
    config
        .hooks
        .iter()
        .map(|h| {
            let source = h.decl.source.strip_prefix(&fixture.root).unwrap().display().to_string();
            (h.decl.id.clone(), h.decl.origin, source, h.trust)
        })
        .collect()
}

fn row(id: &str, origin: Origin, source: &str, trust: TrustStatus) -> (String, Origin, String, TrustStatus) {
    (id.to_owned(), origin, source.to_owned(), trust)
}

#[test]
fn five_origins_merge_in_precedence_order_and_collisions_resolve_by_origin_and_trust() {
    let fixture = Fixture::copy("five");
    let config = fixture.load();
    use Origin::{Extension, Managed, Project, ProjectLocal, User};
    use TrustStatus::{Trusted, Untrusted};
    assert_eq!(
        winners(&fixture, &config),
        [
            row("ext-notice", Extension, "ext/lint/hooks.yaml", Untrusted),
            // The user's guard beats the extension's, and stays in force against the untrusted project one.
            row("shared-guard", User, "config/hooks/hooks.yaml", Trusted),
            row("user-reminder", User, "config/hooks/hooks.yaml", Trusted),
            // Within an origin the agents' files follow the native one, Claude Code's first.
            row("claude.command.ddc1bab0aee2bb54", User, "home/.claude/settings.json", Trusted),
            row("project-block", Project, "workspace/.hooks/hooks.yaml", Trusted),
            row("claude.command.ac992bae68c3bd77", Project, "workspace/.claude/settings.json", Untrusted),
            // Within the project origin the clio-coder file comes after the native one.
            row("clio-shared", Project, "workspace/.clio-coder/hooks.yaml", Untrusted),
            row("fmt-note", ProjectLocal, "workspace/.hooks/hooks.local.yaml", Untrusted),
            row("local-only", ProjectLocal, "workspace/.hooks/hooks.local.yaml", Untrusted),
            row("policy-block", Managed, "managed/hooks.yaml", TrustStatus::Managed),
            row("audit", Managed, "managed/hooks.yaml", TrustStatus::Managed),
        ]
    );
    assert_eq!(config.get("clio-shared").unwrap().decl.format, Format::Clio);

    let overridden: Vec<_> = config
        .overridden
        .iter()
        .map(|o| {
            let rel = |p: &Path| p.strip_prefix(&fixture.root).unwrap().display().to_string();
            (
                o.hook.decl.id.as_str(),
                o.hook.decl.origin,
                rel(&o.hook.decl.source),
                o.winner_origin,
                rel(&o.winner_source),
            )
        })
        .collect();
    assert_eq!(
        overridden,
        [
            ("shared-guard", Extension, "ext/lint/hooks.yaml".into(), User, "config/hooks/hooks.yaml".into()),
            ("policy-block", User, "config/hooks/hooks.yaml".into(), Managed, "managed/hooks.yaml".into()),
            (
                "fmt-note",
                Project,
                "workspace/.hooks/hooks.yaml".into(),
                ProjectLocal,
                "workspace/.hooks/hooks.local.yaml".into()
            ),
            (
                "clio-shared",
                Project,
                "workspace/.hooks/hooks.yaml".into(),
                Project,
                "workspace/.clio-coder/hooks.yaml".into()
            ),
        ]
    );

    assert_eq!(config.shadowed.len(), 1);
    let attempt = &config.shadowed[0];
    assert_eq!(attempt.id, "shared-guard");
    assert_eq!(attempt.kept.decl.source, fixture.path("config/hooks/hooks.yaml"));
    assert_eq!(attempt.attempted.decl.source, fixture.path("workspace/.hooks/hooks.yaml"));
    assert_eq!(attempt.attempted.trust, Untrusted);

    // Every file found is read, the two Claude files included, and none has anything to report.
    assert_eq!(config.issues, []);
    assert!(!config.only_managed && config.user_trusted);

    insta::assert_json_snapshot!("five_origins_report", fixture.redacted_report(&config));
}

#[test]
fn every_agent_file_of_every_origin_is_looked_at_in_precedence_order() {
    let fixture = Fixture::copy("five");
    let config = fixture.load();
    let looked: Vec<_> = config
        .sources
        .iter()
        .map(|s| {
            let rel = s.path.strip_prefix(&fixture.root).unwrap().display().to_string();
            (s.origin.as_str(), s.format.as_str(), rel, s.found, s.read)
        })
        .collect();
    let t = |o: &'static str, f: &'static str, p: &str, found: bool, read: bool| (o, f, p.to_owned(), found, read);
    assert_eq!(
        looked,
        [
            t("extension", "native", "ext/lint/hooks.yaml", true, true),
            t("extension", "native", "ext/lint/hooks.json", false, false),
            t("user", "native", "config/hooks/hooks.yaml", true, true),
            t("user", "native", "config/hooks/hooks.json", false, false),
            t("user", "claude", "home/.claude/settings.json", true, true),
            t("user", "codex", "home/.codex/hooks.json", false, false),
            t("user", "codex", "home/.codex/config.toml", false, false),
            t("user", "gemini", "home/.gemini/settings.json", false, false),
            t("user", "cursor", "home/.cursor/hooks.json", false, false),
            t("user", "mecha", "home/.mecha/config.toml", false, false),
            t("user", "clio", "home/.clio-coder/hooks.yaml", false, false),
            t("user", "qwen", "home/.qwen/settings.json", false, false),
            t("user", "droid", "home/.factory/hooks.json", false, false),
            t("user", "droid", "home/.factory/hooks/hooks.json", false, false),
            t("user", "droid", "home/.factory/settings.json", false, false),
            t("user", "cline", "home/Documents/Cline/Hooks", false, false),
            t("user", "cline", "home/.cline/hooks", false, false),
            t("user", "copilot", "home/.copilot/hooks/*.json", false, false),
            t("user", "crush", "home/.config/crush/crush.json", false, false),
            t("user", "auggie", "home/.augment/settings.json", false, false),
            t("project", "native", "workspace/.hooks/hooks.yaml", true, true),
            t("project", "native", "workspace/.hooks/hooks.json", false, false),
            t("project", "claude", "workspace/.claude/settings.json", true, true),
            t("project", "codex", "workspace/.codex/hooks.json", false, false),
            t("project", "codex", "workspace/.codex/config.toml", false, false),
            t("project", "gemini", "workspace/.gemini/settings.json", false, false),
            t("project", "cursor", "workspace/.cursor/hooks.json", false, false),
            t("project", "mecha", "workspace/.mecha/config.toml", false, false),
            t("project", "clio", "workspace/.clio-coder/hooks.yaml", true, true),
            t("project", "qwen", "workspace/.qwen/settings.json", false, false),
            t("project", "droid", "workspace/.factory/hooks.json", false, false),
            t("project", "droid", "workspace/.factory/hooks/hooks.json", false, false),
            t("project", "droid", "workspace/.factory/settings.json", false, false),
            t("project", "cline", "workspace/.clinerules/hooks", false, false),
            t("project", "cline", "workspace/.cline/hooks", false, false),
            t("project", "copilot", "workspace/.github/hooks/*.json", false, false),
            t("project", "crush", "workspace/crush.json", false, false),
            t("project", "crush", "workspace/.crush.json", false, false),
            t("project", "auggie", "workspace/.augment/settings.json", false, false),
            t("project.local", "native", "workspace/.hooks/hooks.local.yaml", true, true),
            t("project.local", "native", "workspace/.hooks/hooks.local.json", false, false),
            t("project.local", "claude", "workspace/.claude/settings.local.json", false, false),
            t("project.local", "clio", "workspace/.clio-coder/hooks.local.yaml", false, false),
            t("project.local", "auggie", "workspace/.augment/settings.local.json", false, false),
            t("managed", "native", "managed/hooks.yaml", true, true),
        ]
    );
}

#[test]
fn a_native_json_file_beside_the_yaml_one_is_read_after_it_with_a_warning() {
    let fixture = Fixture::copy("five");
    fixture.write(
        "workspace/.hooks/hooks.json",
        r#"[{"id": "from-json", "on": "pre_tool", "kind": "effect", "effect": {"kind": "lock_tools"}}]"#,
    );
    let config = fixture.load();
    let ids: Vec<_> = config.hooks.iter().map(|h| h.decl.id.as_str()).collect();
    let at = |id: &str| ids.iter().position(|i| *i == id).unwrap();
    assert!(at("project-block") < at("from-json") && at("from-json") < at("clio-shared"), "{ids:?}");
    let issue = config.issues.iter().find(|i| i.source == fixture.path("workspace/.hooks/hooks.json")).unwrap();
    assert_eq!(issue.severity, IssueSeverity::Warning);
    assert!(issue.message.starts_with("both `"), "{}", issue.message);
    assert!(issue.message.ends_with(".hooks/hooks.yaml` and this file exist: this file is read after it"));
}

#[test]
fn a_directory_where_a_hook_file_should_be_is_an_error_not_a_silent_skip() {
    let fixture = Fixture::copy("five");
    fs::create_dir_all(fixture.path("workspace/.hooks/hooks.json")).unwrap();
    let config = fixture.load();
    let issue = config.issues.iter().find(|i| i.source == fixture.path("workspace/.hooks/hooks.json")).unwrap();
    assert_eq!(issue.severity, IssueSeverity::Error);
    assert_eq!(issue.message, "this path exists but is not a regular file; expected a file of hook declarations");
    assert_eq!(config.hooks.len(), 11, "everything else still loads");
}

#[test]
fn only_managed_shows_every_other_hook_but_marks_it_not_to_run() {
    let fixture = Fixture::copy("five");
    let managed = fs::read_to_string(fixture.path("managed/hooks.yaml")).unwrap();
    fixture.write("managed/hooks.yaml", &managed.replace("version: 1\n", "version: 1\nonly_managed: true\n"));
    let config = fixture.load();
    assert!(config.only_managed);
    assert_eq!(config.hooks.len(), 11, "every origin is still loaded and shown");
    for hook in &config.hooks {
        let managed = hook.decl.origin == Origin::Managed;
        assert_eq!(hook.allowed_by_policy, managed, "{}", hook.decl.id);
        assert_eq!(hook.runnable(), managed, "{}", hook.decl.id);
    }
    let runnable: Vec<_> = config.runnable().map(|h| h.decl.id.as_str()).collect();
    assert_eq!(runnable, ["policy-block", "audit"]);
    let text = InspectReport::new(&config).render_text();
    assert!(text.contains("policy       only_managed: only managed hooks run; the others are shown"), "{text}");
    assert!(text.contains("user-reminder") && text.contains("not run: only_managed\n"), "{text}");
}

#[test]
fn only_managed_outside_the_managed_file_is_ignored_with_a_warning() {
    let fixture = Fixture::copy("five");
    let project = fs::read_to_string(fixture.path("workspace/.hooks/hooks.yaml")).unwrap();
    fixture.write("workspace/.hooks/hooks.yaml", &project.replace("version: 1\n", "version: 1\nonly_managed: true\n"));
    let config = fixture.load();
    assert!(!config.only_managed);
    assert!(config.hooks.iter().all(|h| h.allowed_by_policy));
    let issue = config.issues.iter().find(|i| i.source == fixture.path("workspace/.hooks/hooks.yaml")).unwrap();
    assert_eq!(issue.severity, IssueSeverity::Warning);
    assert!(issue.message.contains("only has an effect in the managed file"), "{}", issue.message);
}

/// We run as root, and root may write any file whatever its mode; the check reads the mode bits (owner write for
/// the running user's own file, any group/other write bit), not `access(2)`, so it still tells a locked-down policy
/// file from one left open — which is what these cases set up with chmod.
#[test]
fn a_managed_file_writable_by_the_running_user_is_loaded_with_a_warning() {
    let fixture = Fixture::copy("five");
    let managed = fixture.path("managed/hooks.yaml");
    let warning_for = |fixture: &Fixture| {
        let config = fixture.load();
        assert_eq!(config.get("audit").unwrap().trust, TrustStatus::Managed, "the policy still loads");
        config.issues.into_iter().find(|i| i.source == managed).map(|i| (i.severity, i.message))
    };
    assert_eq!(warning_for(&fixture), None, "0444 in a 0555 directory: locked down");

    fixture.chmod("managed/hooks.yaml", 0o644);
    let (severity, message) = warning_for(&fixture).expect("owner-writable, and we are the owner");
    assert_eq!(severity, IssueSeverity::Warning);
    assert!(message.starts_with("the managed file is writable by the running user (mode 644"), "{message}");

    fixture.chmod("managed/hooks.yaml", 0o446);
    assert!(warning_for(&fixture).is_some(), "world-writable");
    fixture.chmod("managed/hooks.yaml", 0o464);
    assert!(warning_for(&fixture).is_some(), "group-writable");

    fixture.chmod("managed/hooks.yaml", 0o444);
    fixture.chmod("managed", 0o755);
    let (_, message) = warning_for(&fixture).expect("the directory lets us replace the file");
    assert!(message.starts_with("the directory of the managed file is writable by the running user"), "{message}");
    fixture.chmod("managed", 0o555);
}

#[test]
fn a_config_home_inside_the_workspace_trusts_nothing_and_is_an_error() {
    let fixture = Fixture::copy("five");
    let inside = fixture.path("workspace/.config/hooks");
    fs::create_dir_all(&inside).unwrap();
    fs::copy(fixture.path("config/hooks/hooks.yaml"), inside.join("hooks.yaml")).unwrap();
    fs::copy(fixture.path("config/hooks/guard.sh"), inside.join("guard.sh")).unwrap();
    // A trust store the repository ships for itself, trusting its own hooks: it must count for nothing.
    let honest = fixture.load();
    let mut store = hook_config::TrustStore::empty(inside.join("trusted.json"));
    for hook in &honest.hooks {
        store.trust_hook(&honest.workspace, &hook.decl, hook.fingerprint.as_ref());
    }
    store.trust_hook(
        &honest.workspace,
        &honest.shadowed[0].attempted.decl,
        honest.shadowed[0].attempted.fingerprint.as_ref(),
    );
    store.save().unwrap();

    let config = load(&fixture.layout().with_config_home(&inside), &LoadOptions::default()).unwrap();
    assert!(!config.user_trusted);
    assert_eq!(config.trust_store, None);
    let issue = config.issues.iter().find(|i| i.severity == IssueSeverity::Error).expect("an error-level issue");
    assert_eq!(issue.source, inside);
    assert!(issue.message.starts_with("the config home lies inside the workspace"), "{}", issue.message);
    for id in ["shared-guard", "user-reminder", "clio-shared", "fmt-note", "local-only", "ext-notice"] {
        let hook = config.get(id).unwrap();
        assert!(!hook.trust.allows_run(), "{id} must not run: {:?}", hook.trust);
    }
    // What needs no trust still runs; policy is policy.
    assert_eq!(config.get("project-block").unwrap().trust, TrustStatus::Trusted);
    assert_eq!(config.get("audit").unwrap().trust, TrustStatus::Managed);

    // A config home that does not exist yet, but would be created inside the workspace, is caught too.
    let later = fixture.path("workspace/not-yet/../.cfg/hooks");
    let config = load(&fixture.layout().with_config_home(later), &LoadOptions::default()).unwrap();
    assert!(!config.user_trusted);
}

#[test]
fn strict_mode_refuses_error_issues_and_still_hands_back_what_loaded() {
    let fixture = Fixture::copy("five");
    fixture.write(
        "workspace/.hooks/hooks.local.yaml",
        "- {id: bad, on: pre_tool, kind: effect, effect: {kind: block_tol, reason: x}}\n",
    );
    let lenient = fixture.load();
    assert!(lenient.has_errors());
    let strict = LoadOptions { strict: true, ..LoadOptions::default() };
    match load(&fixture.layout(), &strict) {
        Err(LoadError::Strict { issues, config }) => {
            assert_eq!(issues.len(), 1);
            assert_eq!(issues[0].field.as_deref(), Some("hooks[0].effect.kind"));
            assert_eq!(config.hooks.len(), lenient.hooks.len());
        }
        other => panic!("expected a strict-mode error, got {other:?}"),
    }
    // Warnings alone do not stop a strict load.
    let fixture = Fixture::copy("five");
    assert!(load(&fixture.layout(), &strict).is_ok());
}

#[test]
fn an_unusable_workspace_is_an_error_naming_it() {
    let fixture = Fixture::copy("five");
    let missing = fixture.path("nowhere");
    let err = load(&Layout { workspace: missing.clone(), ..fixture.layout() }, &LoadOptions::default()).unwrap_err();
    assert!(matches!(&err, LoadError::Workspace { path, .. } if *path == missing), "{err}");
    assert_eq!(err.to_string(), format!("workspace `{}` cannot be used", missing.display()));
    let cause = std::error::Error::source(&err).expect("the reason is the source").to_string();
    assert!(cause.starts_with("No such file or directory"), "{cause}");
    let file = fixture.path("workspace/scripts/guard.sh");
    let err = load(&Layout { workspace: file.clone(), ..fixture.layout() }, &LoadOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), format!("workspace `{}` is not a directory", file.display()));
}
