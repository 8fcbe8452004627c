//! Claude Code's wildcard patterns: the `*` of `Bash(npm run *)` and of a file tool's fallback comparison.
//!
//! A pattern is compared with the whole text: `*` matches any run of characters (newlines included), `\*` is a
//! literal star and `\\` a literal backslash; a `/**/` between two path parts matches one or more directories or
//! none. When the pattern's only star is the last word (`git push *`), the space before it is optional, so the
//! rule also matches the bare command (`git push`). For shell commands, runs of blanks count as one space on both
//! sides.

use regex::Regex;

/// A compiled wildcard pattern.
#[derive(Debug, Clone)]
pub(crate) struct Wildcard {
    regex: Regex,
    /// Runs of spaces and tabs count as one space, in the pattern and in the text.
    collapse_blanks: bool,
}

/// A character of the pattern once its escapes are read.
#[derive(Clone, Copy, PartialEq)]
enum Piece {
    Char(char),
    Star,
}

impl Wildcard {
    /// Compiles `pattern` (already trimmed by the caller where the agent trims it).
    pub(crate) fn new(pattern: &str, collapse_blanks: bool) -> Wildcard {
        let pattern = pattern.trim();
        let pattern = if collapse_blanks { collapse(pattern) } else { pattern.to_owned() };
        let pieces = pieces(&pattern);
        let stars = pieces.iter().filter(|p| **p == Piece::Star).count();
        let mut regex = String::from("(?s)^");
        let mut i = 0;
        while i < pieces.len() {
            // `/**/` (and `/**/**/`): any directories, or none.
            if pieces[i] == Piece::Char('/') && globstar_at(&pieces, i + 1) {
                let mut j = i + 1;
                while globstar_at(&pieces, j) {
                    j += 3;
                }
                regex.push_str("/(?:.*/)?");
                i = j;
                continue;
            }
            let last_word = stars == 1 && i + 2 == pieces.len() && pieces[i] == Piece::Char(' ');
            match pieces[i] {
                _ if last_word && pieces[i + 1] == Piece::Star => {
                    regex.push_str("(?: .*)?");
                    i += 1;
                }
                Piece::Star => regex.push_str(".*"),
                Piece::Char(c) => regex.push_str(&regex::escape(&c.to_string())),
            }
            i += 1;
        }
        regex.push('$');
        let regex = Regex::new(&regex).expect("every character is escaped");
        Wildcard { regex, collapse_blanks }
    }

    /// Whether `text` matches.
    pub(crate) fn matches(&self, text: &str) -> bool {
        if self.collapse_blanks && text.contains(['\t', ' ']) {
            self.regex.is_match(&collapse(text))
        } else {
            self.regex.is_match(text)
        }
    }
}

/// Whether `**/` starts at `at`.
fn globstar_at(pieces: &[Piece], at: usize) -> bool {
    pieces.get(at..at + 3) == Some(&[Piece::Star, Piece::Star, Piece::Char('/')])
}

/// The pattern's characters, `\*` and `\\` read as the literal characters.
fn pieces(pattern: &str) -> Vec<Piece> {
    let mut out = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some('*' | '\\')) => out.push(Piece::Char(chars.next().unwrap_or('\\'))),
            '*' => out.push(Piece::Star),
            c => out.push(Piece::Char(c)),
        }
    }
    out
}

/// Runs of spaces and tabs as one space.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for c in text.chars() {
        if c == ' ' || c == '\t' {
            if !blank {
                out.push(' ');
            }
            blank = true;
        } else {
            out.push(c);
            blank = false;
        }
    }
    out
}

/// Whether `text` has a `*` that no backslash escapes.
pub(crate) fn has_unescaped_star(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'*' && bytes[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_escapes_globstars_and_the_optional_last_word() {
        let w = |p: &str, t: &str| Wildcard::new(p, true).matches(t);
        assert!(w("npm run *", "npm run test"));
        assert!(w("npm run *", "npm run"));
        assert!(!w("npm run *", "npm runx"));
        assert!(w("git * main", "git checkout main"));
        assert!(!w("git * main", "git main"));
        assert!(w("echo \\*", "echo *"));
        assert!(!w("echo \\*", "echo x"));
        assert!(w("a  b", "a \t b"));
        assert!(w("cat /a/**/b", "cat /a/b"));
        assert!(w("cat /a/**/b", "cat /a/x/y/b"));
        assert!(w("x *", "x a\nb"));
        assert!(has_unescaped_star("a*") && !has_unescaped_star("a\\*") && has_unescaped_star("a\\\\*"));
    }
}
