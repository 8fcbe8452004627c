//! Tidy: the repository never points outside itself. Code comments, schema descriptions, rustdoc and docs cite the
//! project's own `docs/*.md` pages; a citation of a design file that a clone does not have (a section of it, even a
//! bare section number, its name, or a path into a directory beside the repository) fails here, with the file and
//! line.

use std::path::{Path, PathBuf};

use hook_tests::paths::repo_root;

/// Every file under `dir`, but build output and version control.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" {
                files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// What a line must not say. Built at run time, so that this file does not say it.
fn forbidden() -> [String; 2] {
    [["DESIGN", ".md"].concat(), ["..", "/shared"].concat()]
}

/// A citation of a section of the design file: its name, then (across blanks, a line break and a comment marker)
/// a section sign.
fn cites_a_section(text: &str, at: usize) -> bool {
    let rest = &text[at + "DESIGN".len()..];
    let rest = rest.trim_start();
    let rest = ["//!", "///", "//", "#"].iter().find_map(|m| rest.strip_prefix(m)).unwrap_or(rest).trim_start();
    rest.starts_with('§')
}

#[test]
fn nothing_cites_a_file_outside_the_repository() {
    let root = repo_root();
    let mut all = Vec::new();
    files(&root, &mut all);
    assert!(all.len() > 100, "the walk found the repository: {} files", all.len());
    let mut offenders = Vec::new();
    for path in &all {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let relative = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        for (at, _) in text.match_indices("DESIGN").filter(|(at, _)| cites_a_section(&text, *at)) {
            let line = text[..at].matches('\n').count() + 1;
            offenders.push(format!("{relative}:{line}: cites a section of the design file"));
        }
        // A bare section number (a section sign, then a digit) points into the design file just the same.
        for (at, _) in text.match_indices('\u{a7}') {
            if text[at + '\u{a7}'.len_utf8()..].starts_with(|c: char| c.is_ascii_digit()) {
                let line = text[..at].matches('\n').count() + 1;
                offenders.push(format!("{relative}:{line}: cites a bare section number"));
            }
        }
        for needle in forbidden() {
            for (at, _) in text.match_indices(needle.as_str()) {
                let line = text[..at].matches('\n').count() + 1;
                offenders.push(format!("{relative}:{line}: names `{needle}`"));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "cite the matching page under docs/ instead (docs/README.md lists them):\n{}",
        offenders.join("\n")
    );
}

/// The anchor GitHub gives a heading: lowercase, blanks to `-`, punctuation but `-` and `_` dropped.
fn anchor_of(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim().chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.extend(c.to_lowercase());
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

fn anchors(markdown: &str) -> Vec<String> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.push(anchor_of(line.trim_start_matches('#')));
        }
    }
    out
}

/// Every `<page>.md#<anchor>` a file cites: the page as written and the anchor.
fn citations(text: &str) -> Vec<(usize, String, String)> {
    let path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    let anchor_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-');
    let mut out = Vec::new();
    for (at, _) in text.match_indices(".md#") {
        let start = text[..at].rfind(|c: char| !path_char(c)).map_or(0, |i| i + 1);
        if start == at {
            continue; // a placeholder (`docs/<file>.md#anchor`), not a citation
        }
        let page = format!("{}.md", &text[start..at]);
        let rest = &text[at + 4..];
        let anchor: String = rest.chars().take_while(|c| anchor_char(*c)).collect();
        let line = text[..at].matches('\n').count() + 1;
        out.push((line, page, anchor));
    }
    out
}

#[test]
fn every_cited_docs_anchor_is_a_heading() {
    let root = repo_root();
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut broken = Vec::new();
    for path in &all {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let relative = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        for (line, page, anchor) in citations(&text) {
            // Relative to the citing file (a link in a page), else from the repository root (`docs/…` in a comment).
            let beside = path.parent().unwrap().join(&page);
            let target = if beside.exists() { beside } else { root.join(&page) };
            let Ok(markdown) = std::fs::read_to_string(&target) else {
                broken.push(format!("{relative}:{line}: `{page}` does not exist"));
                continue;
            };
            if !anchors(&markdown).contains(&anchor) {
                broken.push(format!("{relative}:{line}: `{page}` has no heading `#{anchor}`"));
            }
        }
    }
    assert!(broken.is_empty(), "citations of a docs page whose anchor is gone:\n{}", broken.join("\n"));
}
