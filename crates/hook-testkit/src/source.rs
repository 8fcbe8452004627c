//! A Rust source file as tokens, for the tidy checks that ask what the code names (not its comments, not its tests).
//!
//! A line-by-line check is beaten by layout: a list written one name per line quotes one name per line. The
//! checks here read tokens instead: comments are skipped, string literals are read as their text, and the items
//! under `#[cfg(test)]` are left out, so a check sees what ships.
//!
//! ```
//! use hook_testkit::source::{Token, shipped_tokens};
//! let tokens = shipped_tokens("// PreToolUse\nconst A: &[&str] = &[\n    \"PreToolUse\",\n];\n#[cfg(test)]\nmod t { const B: &str = \"Stop\"; }\n");
//! let strings: Vec<&str> = tokens.iter().filter_map(|t| match t { Token::Str(s) => Some(s.as_str()), _ => None }).collect();
//! assert_eq!(strings, ["PreToolUse"]);
//! ```

use std::path::{Path, PathBuf};

/// One token of Rust source, as far as the tidy checks need to tell them apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// An identifier or keyword.
    Ident(String),
    /// A string literal's text (its escapes left as written); byte strings and raw strings included.
    Str(String),
    /// A character literal or a lifetime.
    Char,
    /// A number.
    Number,
    /// One punctuation character.
    Punct(char),
}

/// Every token of `text`, comments skipped.
pub fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = block_comment_end(&chars, i);
        } else if let Some((text, end)) = string_at(&chars, i) {
            out.push(Token::Str(text));
            i = end;
        } else if c == '\'' {
            out.push(Token::Char);
            i = char_or_lifetime_end(&chars, i);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.') {
                i += 1;
            }
            out.push(Token::Number);
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

/// The tokens of `text` that ship: [`tokens`] less every item under `#[cfg(test)]`.
pub fn shipped_tokens(text: &str) -> Vec<Token> {
    let all = tokens(text);
    let mut out = Vec::with_capacity(all.len());
    let mut i = 0;
    while i < all.len() {
        if is_cfg_test(&all[i..]) {
            i = item_end(&all, i + 7);
        } else {
            out.push(all[i].clone());
            i += 1;
        }
    }
    out
}

/// The words an identifier is made of, lower case: `QWEN_EVENTS` and `QwenEvents` are `qwen`, `events`.
///
/// ```
/// assert_eq!(hook_testkit::source::words("fail_closedKey"), ["fail", "closed", "key"]);
/// assert_eq!(hook_testkit::source::words("QWEN_TOOLS"), ["qwen", "tools"]);
/// ```
pub fn words(ident: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in ident.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<char> = part.chars().collect();
        let mut word = String::new();
        for (k, &c) in chars.iter().enumerate() {
            let lower_before = k > 0 && chars[k - 1].is_lowercase();
            let upper_run_ends =
                k > 0 && chars[k - 1].is_uppercase() && chars.get(k + 1).is_some_and(|n| n.is_lowercase());
            if c.is_uppercase() && (lower_before || upper_run_ends) && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            word.extend(c.to_lowercase());
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

/// Every `.rs` file under `dir`, recursively, skipping `target` directories and the integration-test, bench and
/// fuzz directories (`tests`, `benches`, `fuzz`) and unit-test modules in files of their own (`tests.rs`); `dir`
/// itself where it is one file.
pub fn shipped_rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if dir.is_file() {
        out.push(dir.to_path_buf());
    }
    collect(dir, &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if !matches!(name.to_str(), Some("target" | "tests" | "benches" | "fuzz")) {
                collect(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

fn block_comment_end(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                break;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// A string literal starting at `i` (`"…"`, `b"…"`, `r#"…"#`, `br"…"`): its text and the index after it.
fn string_at(chars: &[char], i: usize) -> Option<(String, usize)> {
    let mut j = i;
    if chars[j] == 'b' {
        j += 1;
    }
    if chars.get(j) == Some(&'r') {
        j += 1;
        let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
        j += hashes;
        if chars.get(j) != Some(&'"') {
            return None;
        }
        let start = j + 1;
        let mut k = start;
        while k < chars.len() {
            if chars[k] == '"' && chars[k + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes {
                return Some((chars[start..k].iter().collect(), k + 1 + hashes));
            }
            k += 1;
        }
        return Some((chars[start..].iter().collect(), chars.len()));
    }
    if chars.get(j) != Some(&'"') {
        return None;
    }
    let start = j + 1;
    let mut k = start;
    while k < chars.len() && chars[k] != '"' {
        k += if chars[k] == '\\' { 2 } else { 1 };
    }
    let end = k.min(chars.len());
    Some((chars[start..end].iter().collect(), (k + 1).min(chars.len())))
}

/// A character literal (`'a'`, `'\n'`, `'\''`) or a lifetime (`'a`) starting at `i`: the index after it.
fn char_or_lifetime_end(chars: &[char], i: usize) -> usize {
    if chars.get(i + 1) == Some(&'\\') {
        let mut k = i + 3;
        while k < chars.len() && chars[k] != '\'' {
            k += 1;
        }
        return k + 1;
    }
    if chars.get(i + 2) == Some(&'\'') {
        return i + 3;
    }
    let mut k = i + 1;
    while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_') {
        k += 1;
    }
    k
}

/// Whether `tokens` starts with `# [ cfg ( test ) ]`.
fn is_cfg_test(tokens: &[Token]) -> bool {
    use Token::{Ident, Punct};
    matches!(
        tokens,
        [Punct('#'), Punct('['), Ident(cfg), Punct('('), Ident(test), Punct(')'), Punct(']'), ..] if cfg == "cfg" && test == "test"
    )
}

/// The index after the item starting at `i`: through its first `;` or its first balanced `{ … }`.
fn item_end(tokens: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < tokens.len() {
        match tokens[i] {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            Token::Punct(';') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(text: &str) -> Vec<String> {
        shipped_tokens(text)
            .into_iter()
            .filter_map(|t| match t {
                Token::Str(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn comments_and_test_items_are_not_read() {
        let text = "/* \"A\" /* nested \"B\" */ */ const X: &str = \"C\"; // \"D\"\n#[cfg(test)]\nfn t() { \"E\"; }\n#[cfg(test)]\nuse x::y;\nconst Y: &str = r#\"F\"G\"#;";
        assert_eq!(strings(text), ["C", "F\"G"]);
    }

    #[test]
    fn lifetimes_and_chars_are_not_strings() {
        assert_eq!(strings("fn f<'a>(x: &'a str) -> char { '\"' } const Z: &str = \"Q\\\"R\";"), ["Q\\\"R"]);
    }
}
