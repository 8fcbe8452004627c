//! The trust store file (docs/trust.md#the-trust-store): keyed by (canonical workspace, hook id, fingerprint), written atomically, and
//! a corrupt store trusts nothing, says so, and is kept aside rather than lost.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use hook_config::{IssueSeverity, TrustError, TrustStore};

const WS: &str = "/work/repo";

#[test]
fn a_corrupt_store_trusts_nothing_says_where_and_is_kept_aside_on_save() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trusted.json");
    fs::write(&path, "{\"version\": 1,\n \"workspaces\": {\"/work/repo\": {\"lint\": oops}}}").unwrap();

    let (mut store, issue) = TrustStore::open(&path);
    let issue = issue.expect("a corrupt store is reported");
    assert_eq!(issue.severity, IssueSeverity::Error);
    assert_eq!(issue.source, path);
    assert_eq!((issue.line, issue.column), (Some(2), Some(40)));
    assert!(issue.message.starts_with("the trust store is not a valid trust store"), "{}", issue.message);
    assert!(issue.message.contains("nothing is trusted"), "{}", issue.message);
    assert_eq!(store.entries(Path::new(WS)).count(), 0);

    store.trust(Path::new(WS), "lint", "f1");
    store.save().unwrap();
    let kept = fs::read_to_string(dir.path().join("trusted.json.corrupt")).unwrap();
    assert!(kept.contains("oops"), "the bad file is kept for the operator: {kept}");
    let (store, issue) = TrustStore::open(&path);
    assert!(issue.is_none());
    assert!(store.is_trusted(Path::new(WS), "lint", "f1"));
}

#[test]
fn a_store_of_another_version_or_shape_trusts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trusted.json");
    for (text, expected) in [
        (r#"{"version": 2, "workspaces": {}}"#, "has version 2, expected 1"),
        (r#"{"version": 1, "workspaces": {}, "extra": true}"#, "unknown field `extra`"),
        (r#"[]"#, "is not a valid trust store"),
    ] {
        fs::write(&path, text).unwrap();
        let (store, issue) = TrustStore::open(&path);
        let message = issue.expect(text).message;
        assert!(message.contains(expected), "{text}: {message}");
        assert_eq!(store.entries(Path::new(WS)).count(), 0);
    }
}

#[test]
fn a_directory_where_the_store_should_be_is_reported_then_moved_aside_by_save() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trusted.json");
    fs::create_dir(&path).unwrap();
    let (mut store, issue) = TrustStore::open(&path);
    assert!(issue.unwrap().message.contains("cannot be read"));
    store.trust(Path::new(WS), "lint", "f1");
    store.save().unwrap();
    assert!(path.is_file());
    assert!(dir.path().join("trusted.json.corrupt").is_dir());
}

#[test]
fn a_config_home_that_is_a_regular_file_is_a_save_error_naming_it_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("hooks");
    fs::write(&home, "not a directory").unwrap();
    let (mut store, issue) = TrustStore::open(home.join("trusted.json"));
    assert!(issue.is_some(), "reading through a regular file fails: reported, nothing trusted");
    store.trust(Path::new(WS), "lint", "f1");
    let err = store.save().unwrap_err();
    assert!(matches!(&err, TrustError::Write { path, .. } if *path == home), "{err}");
    assert_eq!(err.to_string(), format!("could not write the trust store `{}`", home.display()));
    assert!(std::error::Error::source(&err).is_some(), "the I/O error is the source");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["hooks"]);
}

#[test]
fn save_replaces_the_file_whole_leaves_no_temp_file_and_keeps_it_private() {
    let dir = tempfile::tempdir().unwrap();
    // The config home does not exist yet: save creates it.
    let path = dir.path().join("config/hooks/trusted.json");
    let (mut store, _) = TrustStore::open(&path);
    store.trust(Path::new(WS), "a", "fa");
    store.trust(Path::new(WS), "b", "fb");
    store.save().unwrap();
    store.trust(Path::new(WS), "a", "fa2");
    assert!(store.revoke(Path::new(WS), "b"));
    assert!(!store.revoke(Path::new(WS), "b"));
    store.save().unwrap();

    let mut names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    // The lock file stays: it is never renamed, so every writer locks the same one.
    assert_eq!(names, ["trusted.json", "trusted.json.lock"]);
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    let (store, issue) = TrustStore::open(&path);
    assert!(issue.is_none());
    let entries: Vec<_> = store.entries(Path::new(WS)).map(|(id, r)| (id, r.fingerprint.as_str())).collect();
    assert_eq!(entries, [("a", "fa2")]);
}

#[test]
fn trust_is_per_workspace_path_and_per_fingerprint() {
    let mut store = TrustStore::empty("");
    store.trust(Path::new(WS), "lint", "f1");
    assert!(store.is_trusted(Path::new(WS), "lint", "f1"));
    assert!(!store.is_trusted(Path::new(WS), "lint", "f2"));
    assert!(!store.is_trusted(Path::new("/work/copy-of-repo"), "lint", "f1"));
    assert_eq!(store.trusted_fingerprint(Path::new(WS), "lint"), Some("f1"));
    assert!(matches!(store.save(), Err(TrustError::NoPath)));
}

/// A trust store planted as a symlink (to a file that trusts everything someone wanted) is not followed: it
/// trusts nothing and says why.
#[test]
fn trust_store_symlink_was_followed() {
    let dir = tempfile::tempdir().unwrap();
    let planted = dir.path().join("planted.json");
    let mut store = TrustStore::empty(&planted);
    store.trust(Path::new(WS), "lint", "f1");
    store.save().unwrap();
    let path = dir.path().join("trusted.json");
    std::os::unix::fs::symlink(&planted, &path).unwrap();
    let (store, issue) = TrustStore::open(&path);
    assert!(!store.is_trusted(Path::new(WS), "lint", "f1"));
    let issue = issue.expect("a symlinked store is an issue");
    assert!(issue.message.contains("symlink"), "{issue}");
}

/// Concurrent read-modify-writes from threads, each through its own open of the store: none is lost.
#[test]
fn concurrent_updates_of_the_trust_store_lost_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trusted.json");
    std::thread::scope(|scope| {
        for i in 0..16 {
            let path = &path;
            scope.spawn(move || TrustStore::update(path, |store| store.trust(Path::new(WS), &format!("h{i}"), "f")));
        }
    });
    assert_eq!(TrustStore::open(&path).0.entries(Path::new(WS)).count(), 16);
}
