//! Where the repository and its fixtures are, and copying a fixture tree.

use std::path::{Path, PathBuf};

/// The repository's root (the workspace directory).
///
/// ```
/// assert!(hook_testkit::paths::repo_root().join("Cargo.toml").is_file());
/// ```
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root exists")
}

/// `tests/fixtures/<rest>` of the repository, canonical; panics (a test failure) when it does not exist.
///
/// ```
/// assert!(hook_testkit::paths::fixture("claude").is_dir());
/// ```
pub fn fixture(rest: &str) -> PathBuf {
    let path = repo_root().join("tests/fixtures").join(rest);
    path.canonicalize().unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// Copies a directory tree (a fixture project, a home) into `to`, creating `to`.
///
/// ```
/// let to = tempfile::tempdir().unwrap();
/// hook_testkit::paths::copy_dir(&hook_testkit::paths::fixture("claude"), to.path());
/// assert!(std::fs::read_dir(to.path()).unwrap().next().is_some());
/// ```
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("creating {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("reading {}: {e}", from.display())) {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("copying {}: {e}", entry.path().display()));
        }
    }
}
