//! The load cache (`LoadOptions::cache_dir`) over real files: a cached load is the cold load, whatever happened to
//! the files, the filesystem or the cache between two loads.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hook_config::{Config, HookSpec, Layout, LoadOptions, load};
use hook_testkit::paths::copy_dir;

/// The five-origin fixture (every origin, the native file and clio-coder's and Claude Code's in the workspace), plus
/// a file with a regex matcher, an `if` condition, a shell command and a broken gate hook, and a cache directory.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/origins/five");
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        copy_dir(&source, &root);
        fs::write(
            root.join("workspace/.hooks/hooks.local.yaml"),
            "- id: mcp-note\n  on: pre_tool\n  matcher: \"^mcp__.*\"\n  kind: prompt\n  message: careful with MCP\n\
             - id: fmt\n  on: post_tool\n  kind: command\n  shell: \"$HOOK_PROJECT_DIR/scripts/notify.sh --fmt\"\n\
             - id: no-push\n  on: pre_tool\n  if: \"shell(git push *)\"\n  kind: prompt\n  message: pushes are reviewed\n\
             - id: read-only\n  on: permission_request\n  command: {all: [{program: ls}, {program: sort, writes: true}]}\n  \
               on_interpreter: pass\n  kind: effect\n  effect: { kind: allow_tool }\n\
             - id: broken-gate\n  on: pre_tool\n  kind: effect\n  effect: { kind: block_tol, reason: typo }\n",
        )
        .unwrap();
        Fixture { _dir: dir, root }
    }

    fn cache(&self) -> PathBuf {
        self.root.join("state/hooks/load-cache")
    }

    fn layout(&self) -> Layout {
        Layout::new(self.root.join("workspace"))
            .with_home(Some(self.root.join("home")))
            .with_config_home(self.root.join("config/hooks"))
            .with_managed_file(self.root.join("managed/hooks.yaml"))
            .with_extension_root(self.root.join("ext/lint"))
    }

    fn cold(&self) -> Config {
        load(&self.layout(), &LoadOptions::default()).unwrap()
    }

    fn cached(&self) -> Config {
        load(&self.layout(), &LoadOptions { cache_dir: Some(self.cache()), ..LoadOptions::default() }).unwrap()
    }

    /// Every entry with its contents and modification time.
    fn entries(&self) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
        let mut entries: Vec<_> = fs::read_dir(self.cache())
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let meta = fs::metadata(&path).unwrap();
                (path.clone(), fs::read(&path).unwrap(), meta.modified().unwrap())
            })
            .collect();
        entries.sort();
        entries
    }
}

/// The whole `Config`, every field, as one comparable string.
fn all(config: &Config) -> String {
    format!("{config:#?}")
}

#[test]
fn a_cached_load_is_the_cold_load_and_a_second_load_reads_only_the_cache() {
    let fixture = Fixture::new();
    let cold = fixture.cold();
    assert!(cold.hooks.len() >= 8, "{:?}", cold.hooks);
    assert!(!cold.issues.is_empty() && !cold.closed_gates.is_empty(), "the fixture has a broken gate hook");
    assert!(cold.hooks.iter().any(|h| h.decl.matcher.is_some()));
    assert!(cold.hooks.iter().any(|h| h.decl.condition.is_some()));
    assert!(cold.hooks.iter().any(|h| h.decl.command.as_ref().is_some_and(|c| c.is_allow_list())));
    let first = fixture.cached();
    assert_eq!(all(&first), all(&cold));
    let written = fixture.entries();
    // One entry per file read, the managed file's excepted (it is never cached).
    let read = cold.sources.iter().filter(|s| s.read).count();
    assert_eq!(written.len(), read - 1, "{:?}", cold.sources);
    assert!(written.iter().all(|(_, bytes, _)| !String::from_utf8_lossy(bytes).contains("managed/hooks.yaml\"")));
    // The second load is served from the cache: the same Config, and no entry rewritten.
    let second = fixture.cached();
    assert_eq!(all(&second), all(&cold));
    assert_eq!(fixture.entries(), written);
}

#[test]
fn an_edited_file_is_never_served_stale_even_with_its_size_and_mtime_kept() {
    let fixture = Fixture::new();
    fixture.cached();
    let path = fixture.root.join("workspace/.hooks/hooks.yaml");
    let meta = fs::metadata(&path).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let edited = text.replace("Run the formatter.", "Run the formatter!");
    assert_ne!(text, edited);
    assert_eq!(text.len(), edited.len());
    fs::write(&path, &edited).unwrap();
    fs::File::options().write(true).open(&path).unwrap().set_modified(meta.modified().unwrap()).unwrap();
    let cached = fixture.cached();
    assert_eq!(all(&cached), all(&fixture.cold()));
    let messages: Vec<&str> = cached
        .hooks
        .iter()
        .chain(cached.overridden.iter().map(|o| &o.hook))
        .filter_map(|h| match &h.decl.spec {
            HookSpec::Prompt { message, .. } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert!(messages.contains(&"Run the formatter!"), "{messages:?}");
    assert!(!messages.contains(&"Run the formatter."), "{messages:?}");
}

#[test]
fn corrupt_truncated_and_foreign_entries_are_ignored_and_rebuilt() {
    let fixture = Fixture::new();
    let cold = fixture.cold();
    fixture.cached();
    let entries = fixture.entries();
    for (i, (path, bytes, _)) in entries.iter().enumerate() {
        match i % 3 {
            0 => fs::write(path, b"\x00\xffnot json").unwrap(),
            1 => fs::write(path, &bytes[..bytes.len() / 2]).unwrap(),
            // Valid JSON of the right shape, but another key: another file's entry, or an older version's.
            _ => fs::write(path, String::from_utf8_lossy(bytes).replacen("\"key\":\"", "\"key\":\"0", 1)).unwrap(),
        }
    }
    assert_eq!(all(&fixture.cached()), all(&cold));
    // Rewritten, and served from then on.
    let rebuilt = fixture.entries();
    assert_eq!(rebuilt.iter().map(|e| &e.1).collect::<Vec<_>>(), entries.iter().map(|e| &e.1).collect::<Vec<_>>());
    assert_eq!(all(&fixture.cached()), all(&cold));
}

#[test]
fn an_entry_whose_declaration_does_not_hash_to_its_hash_is_not_served() {
    let fixture = Fixture::new();
    let cold = fixture.cold();
    fixture.cached();
    // Another program under the hash of the one that was trusted: trust is checked against the hash, so the entry
    // must not be believed.
    let mut tampered = 0;
    for (path, bytes, _) in fixture.entries() {
        let text = String::from_utf8(bytes).unwrap();
        if text.contains("./scripts/guard.sh") {
            fs::write(&path, text.replace("./scripts/guard.sh", "./scripts/evil.sh")).unwrap();
            tampered += 1;
        }
    }
    assert!(tampered > 0);
    let cached = fixture.cached();
    assert_eq!(all(&cached), all(&cold));
    assert!(!all(&cached).contains("evil.sh"));
}

#[test]
fn a_changed_filesystem_answer_is_a_miss() {
    let fixture = Fixture::new();
    fixture.cached();
    // The project's guard loses its run bit: the cold load reports it (and drops the hook); so must the cached one.
    let guard = fixture.root.join("workspace/scripts/guard.sh");
    fs::set_permissions(&guard, fs::Permissions::from_mode(0o644)).unwrap();
    let cold = fixture.cold();
    assert!(cold.issues.iter().any(|i| i.message.contains("not executable")), "{:?}", cold.issues);
    assert_eq!(all(&fixture.cached()), all(&cold));
    // And back.
    fs::set_permissions(&guard, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(all(&fixture.cached()), all(&fixture.cold()));
}

#[test]
fn an_unwritable_cache_directory_only_means_cold_loads() {
    let fixture = Fixture::new();
    // A regular file where the cache directory goes (permissions prove nothing when tests run as root).
    fs::create_dir_all(fixture.cache().parent().unwrap()).unwrap();
    fs::write(fixture.cache(), "not a directory").unwrap();
    let cold = fixture.cold();
    assert_eq!(all(&fixture.cached()), all(&cold));
    assert_eq!(all(&fixture.cached()), all(&cold));
}

#[test]
fn a_fifo_or_an_oversized_file_in_place_of_an_entry_is_a_miss_that_never_hangs() {
    let fixture = Fixture::new();
    let cold = fixture.cold();
    fixture.cached();
    let entries = fixture.entries();
    let (fifo, big) = (&entries[0].0, &entries[1].0);
    fs::remove_file(fifo).unwrap();
    rustix::fs::mknodat(rustix::fs::CWD, fifo, rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o600), 0)
        .unwrap();
    // Larger than any entry of its file may be: not read (the load would otherwise hold all of it).
    fs::write(big, vec![b' '; 64 << 20]).unwrap();
    assert_eq!(all(&fixture.cached()), all(&cold));
}

/// Async observers are stored with their flag; a file holding an evaluated (or http, or policy) hook is never
/// stored, so its load is always the cold one, and the other files stay cached.
#[test]
fn async_flags_are_kept_and_files_with_uncached_kinds_load_cold_every_time() {
    let fixture = Fixture::new();
    fs::write(
        fixture.root.join("workspace/.hooks/hooks.local.yaml"),
        "- id: bg\n  on: post_tool\n  kind: command\n  shell: \"true\"\n  async: true\n",
    )
    .unwrap();
    fs::create_dir_all(fixture.root.join("workspace/.claude")).unwrap();
    fs::write(
        fixture.root.join("workspace/.claude/settings.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the task done?"}]}]}}"#,
    )
    .unwrap();
    let cold = fixture.cold();
    assert!(cold.hooks.iter().any(|h| h.decl.id == "bg" && h.decl.run_async), "{:#?}", cold.hooks);
    assert!(cold.hooks.iter().any(|h| matches!(h.decl.spec, HookSpec::Evaluated(_))), "{:#?}", cold.hooks);
    let first = fixture.cached();
    assert_eq!(all(&first), all(&cold));
    let stored = fixture.entries();
    assert!(stored.iter().any(|(_, bytes, _)| String::from_utf8_lossy(bytes).contains("\"run_async\":true")));
    let settings = fixture.root.join("workspace/.claude/settings.json");
    let settings = format!("\"source\":\"{}\"", settings.display());
    assert!(!stored.iter().any(|(_, bytes, _)| String::from_utf8_lossy(bytes).contains(&settings)));
    assert_eq!(all(&fixture.cached()), all(&cold));
    assert_eq!(fixture.entries(), stored);
}
