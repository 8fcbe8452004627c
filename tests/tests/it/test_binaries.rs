//! Tidy: one integration-test binary per package. Cargo makes a binary of every `tests/*.rs` and every
//! `tests/<dir>/main.rs`, and links each against the package and all its dependencies on its own: a suite split over
//! forty files links forty times. A package with more than one subject keeps them as modules of `tests/it/main.rs`;
//! a file there that `main.rs` does not declare would never compile or run, so that fails here too.

use std::path::Path;

use hook_tests::paths::repo_root;

/// The workspace's members, read from the root manifest's `members = [ … ]`.
fn members(root: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let start = manifest.find("members = [").expect("the root manifest lists its members") + "members = [".len();
    let list = &manifest[start..start + manifest[start..].find(']').unwrap()];
    list.split(',').map(|m| m.trim().trim_matches('"').to_owned()).filter(|m| !m.is_empty()).collect()
}

/// The test binaries Cargo finds in `tests`: its `*.rs` files and its directories holding a `main.rs`.
fn binaries(tests: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(tests) else { return Vec::new() };
    let mut found: Vec<String> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs") || p.join("main.rs").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    found.sort();
    found
}

/// The modules of `dir` (its `*.rs` files but `main.rs`) that `dir/main.rs` does not declare with `mod <name>;`.
fn undeclared(dir: &Path) -> Vec<String> {
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let declared: Vec<&str> =
        main.lines().filter_map(|l| l.trim().strip_prefix("mod ")?.strip_suffix(';')).map(str::trim).collect();
    let mut missing: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".rs").map(str::to_owned))
        .filter(|name| name != "main" && !declared.contains(&name.as_str()))
        .collect();
    missing.sort();
    missing
}

#[test]
fn every_package_links_at_most_one_integration_test_binary() {
    let root = repo_root();
    let members = members(&root);
    assert!(members.len() >= 8 && members.iter().any(|m| m == "crates/hook-cli"), "{members:?}");
    let mut problems = Vec::new();
    for member in &members {
        let found = binaries(&root.join(member).join("tests"));
        if found.len() > 1 {
            problems.push(format!(
                "{member}/tests holds {} test binaries {found:?}: make them modules of it/main.rs",
                found.len()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_file_of_a_tests_it_binary_is_one_of_its_modules() {
    let root = repo_root();
    let mut problems = Vec::new();
    for member in members(&root) {
        let it = root.join(&member).join("tests/it");
        if it.join("main.rs").is_file() {
            for name in undeclared(&it) {
                problems.push(format!("{member}/tests/it/{name}.rs is not declared in main.rs: `mod {name};`"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checks_see_a_second_binary_and_an_undeclared_module() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests");
    std::fs::create_dir_all(tests.join("it")).unwrap();
    std::fs::write(tests.join("it/main.rs"), "//! Suite.\n\nmod one;\n").unwrap();
    std::fs::write(tests.join("it/one.rs"), "").unwrap();
    assert_eq!(binaries(&tests), ["it"]);
    assert!(undeclared(&tests.join("it")).is_empty());
    std::fs::write(tests.join("it/two.rs"), "").unwrap();
    std::fs::write(tests.join("stray.rs"), "").unwrap();
    assert_eq!(binaries(&tests), ["it", "stray.rs"]);
    assert_eq!(undeclared(&tests.join("it")), ["two"]);
}
