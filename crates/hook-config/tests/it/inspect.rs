//! The inspect report for humans (docs/declarations.md#errors-and-closed-gates, README.md#check-inspect-and-trust): grouped by origin in precedence order, readable in 80 columns,
//! gate hooks that fail open flagged, nothing from a file able to drive the terminal; and the JSON form reads back.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hook_config::{InspectReport, Layout, LoadOptions, load};

/// A workspace, config home and extension root in a temp dir, from YAML texts.
struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Env {
    fn new(files: &[(&str, &str)]) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("ws")).unwrap();
        for (relative, text) in files {
            let path = root.join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            if relative.ends_with(".sh") {
                // A script a hook runs needs its run bit, or the hook does not load.
                fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        // A policy file as an operator installs it, so the report does not depend on who runs the test.
        let policy = root.join("policy");
        if policy.is_dir() {
            for entry in fs::read_dir(&policy).unwrap() {
                let path = entry.unwrap().path();
                let mode = if path.extension().is_some_and(|e| e == "sh") { 0o555 } else { 0o444 };
                fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
            }
            fs::set_permissions(&policy, fs::Permissions::from_mode(0o555)).unwrap();
        }
        Env { _dir: dir, root }
    }

    fn report(&self) -> InspectReport {
        let layout = Layout::new(self.root.join("ws"))
            .with_home(None)
            .with_config_home(self.root.join("cfg"))
            .with_managed_file(self.root.join("policy/hooks.yaml"))
            .with_extension_root(self.root.join("ext/lint"));
        InspectReport::new(&load(&layout, &LoadOptions::default()).unwrap())
    }

    /// The text report with the temp dir replaced by `[tmp]`.
    fn text(&self) -> String {
        self.report().render_text().replace(&*self.root.to_string_lossy(), "[tmp]")
    }
}

fn every_origin() -> Env {
    Env::new(&[
        ("ext/lint/hooks.yaml", "- {id: lint-note, on: session_start, kind: prompt, message: lint is on}\n"),
        (
            "cfg/hooks.yaml",
            "- {id: guard, on: pre_tool, tools: [shell], kind: command, argv: [./guard.sh], on_error: ignore}\n",
        ),
        ("cfg/guard.sh", "#!/bin/sh\nexit 0\n"),
        (
            "ws/.hooks/hooks.yaml",
            "- {id: guard, on: pre_tool, kind: command, shell: ./scripts/guard.sh}\n\
             - {id: no-push, on: pre_tool, matcher: \"Bash|Shell\", kind: effect, effect: {kind: block_tool, reason: no}}\n\
             - {id: subagents, on: SubagentStop, sequential: true, enabled: false, kind: prompt, message: wrap up}\n",
        ),
        ("ws/scripts/guard.sh", "#!/bin/sh\nexit 2\n"),
        ("ws/.hooks/hooks.local.yaml", "- {id: no-push, on: pre_tool, kind: effect, effect: {kind: ask_user}}\n"),
        (
            "policy/hooks.yaml",
            "version: 1\nhooks:\n  - {id: audit, on: post_tool, only_errors: true, kind: command, argv: [./audit.sh]}\n",
        ),
        ("policy/audit.sh", "#!/bin/sh\n"),
        ("ws/.hooks/hooks.json", "[]\n"),
    ])
}

#[test]
fn the_text_report_groups_hooks_by_origin_in_precedence_order() {
    let env = every_origin();
    let text = env.text();
    let headings: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("── ")).map(|l| l.split(" (").next().unwrap()).collect();
    assert_eq!(
        headings,
        [
            "extension",
            "user",
            "project",
            "project.local",
            "managed",
            "overridden",
            "shadowing attempts",
            "issues",
            "files"
        ]
    );
    insta::assert_snapshot!("every_origin_text", text);
}

#[test]
fn the_text_report_fits_80_columns_except_for_long_paths() {
    let env = every_origin();
    for line in env.report().render_text().lines() {
        let width = line.chars().count();
        // A path is one word: it may run past the edge, nothing else may.
        let has_path = line.split(' ').any(|word| word.starts_with('/') && word.chars().count() > 20);
        assert!(width <= 80 || has_path, "{width} columns: {line}");
    }
}

#[test]
fn gate_hooks_that_fail_open_are_flagged() {
    let env = every_origin();
    let report = env.report();
    let guard = report.hooks.iter().find(|h| h.id == "guard").unwrap();
    assert!(guard.fails_open, "a pre_tool hook with on_error: ignore lets the call through when it fails");
    let audit = report.hooks.iter().find(|h| h.id == "audit").unwrap();
    assert!(!audit.fails_open, "post_tool is no gate");
    assert!(env.text().contains("pre_tool · command · native · ") && env.text().contains(" · FAILS OPEN\n"));
}

#[test]
fn control_and_bidi_characters_from_a_file_reached_the_terminal_raw() {
    let env = Env::new(&[(
        "ws/.hooks/hooks.yaml",
        "- {id: sneaky, on: turn_start, kind: prompt, message: \"hi\\e]0;pwned\\a\\nsecond \\u202eline\\u2066\\r\"}\n",
    )]);
    let text = env.text();
    assert!(!text.chars().any(|c| (c.is_control() && c != '\n') || hook_types::needs_escape(c)), "{text:?}");
    assert!(text.contains("prompt hi\\x1b]0;pwned\\x07⏎second \\u{202e}line\\u{2066}\n"), "{text}");
}

#[test]
fn the_json_form_reads_back_into_the_same_report() {
    let report = every_origin().report();
    let json = serde_json::to_string_pretty(&report).unwrap();
    let back: InspectReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["version"], 1);
    let keys: Vec<&str> = value["hooks"][0].as_object().unwrap().keys().map(String::as_str).collect();
    for key in
        ["id", "origin", "source", "event", "kind", "protocol", "hash", "enabled", "trust", "fails_open", "filters"]
    {
        assert!(keys.contains(&key), "{key} in {keys:?}");
    }
}

#[test]
fn every_path_in_the_report_is_absolute() {
    let report = every_origin().report();
    let paths = report
        .hooks
        .iter()
        .map(|h| h.source.as_path())
        .chain(report.sources.iter().map(|s| s.path.as_path()))
        .chain(report.issues.iter().map(|i| i.source.as_path()));
    for path in paths {
        assert!(Path::is_absolute(path), "{}", path.display());
    }
}
