//! `cargo xtask commits`: every commit since the rule began has a subject of at most 72 characters, a blank line,
//! and a body that says why.
//!
//! Earlier history is left as it is (a third of its subjects are longer, many commits have no body); the check
//! starts at [`FIRST`]. Merge commits are not checked: their subject is git's own. A clone without that commit (a
//! shallow one) cannot be checked, and the task says so instead of passing in silence.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The first commit the rule holds for.
pub const FIRST: &str = "837eb56";

/// The longest subject line.
pub const MAX_SUBJECT: usize = 72;

/// What is wrong with one commit message, if anything.
pub fn problems(message: &str) -> Vec<String> {
    let mut lines = message.lines();
    let subject = lines.next().unwrap_or_default();
    let mut out = Vec::new();
    let chars = subject.chars().count();
    if chars > MAX_SUBJECT {
        out.push(format!("subject is {chars} characters (at most {MAX_SUBJECT})"));
    }
    if subject.trim().is_empty() {
        out.push("subject is empty".to_owned());
    }
    match lines.next() {
        None => out.push("no body: add a blank line, then why the change was made".to_owned()),
        Some(blank) if !blank.trim().is_empty() => out.push("the subject is not followed by a blank line".to_owned()),
        Some(_) => {
            if lines.all(|l| l.trim().is_empty()) {
                out.push("no body: say why the change was made".to_owned());
            }
        }
    }
    out
}

/// Checks the commits from [`FIRST`] to `HEAD` in the repository at `root`.
pub fn run(root: &Path) -> Result<()> {
    let known = Command::new("git")
        .args(["cat-file", "-e", &format!("{FIRST}^{{commit}}")])
        .current_dir(root)
        .status()
        .context("could not run git")?;
    if !known.success() {
        println!("xtask: commits: {FIRST} is not in this clone (shallow?): commit messages not checked");
        return Ok(());
    }
    let out = Command::new("git")
        .args(["log", "--no-merges", "--format=%h%x00%B%x01", &format!("{FIRST}~1..HEAD")])
        .current_dir(root)
        .output()
        .context("could not run git log")?;
    if !out.status.success() {
        bail!("git log failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut bad = Vec::new();
    let mut count = 0;
    for record in text.split('\u{1}').map(|r| r.trim_start_matches('\n')).filter(|r| !r.is_empty()) {
        let (hash, message) = record.split_once('\0').unwrap_or((record, ""));
        count += 1;
        for problem in problems(message.trim_end()) {
            bad.push(format!("{hash}: {problem}"));
        }
    }
    if !bad.is_empty() {
        bail!("commit messages since {FIRST}:\n  {}", bad.join("\n  "));
    }
    println!("xtask: commits: {count} commit messages since {FIRST} have a short subject and a body");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_subject_a_blank_line_and_a_body_pass() {
        assert!(problems("Fix the thing\n\nBecause it broke.").is_empty());
    }

    #[test]
    fn a_long_subject_or_a_missing_body_is_named() {
        let long = "x".repeat(73);
        assert_eq!(problems(&format!("{long}\n\nwhy")), ["subject is 73 characters (at most 72)"]);
        assert_eq!(problems("Fix"), ["no body: add a blank line, then why the change was made"]);
        assert_eq!(problems("Fix\nwhy"), ["the subject is not followed by a blank line"]);
        assert_eq!(problems("Fix\n\n  \n"), ["no body: say why the change was made"]);
    }
}
