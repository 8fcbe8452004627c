//! Compiling a `matcher` by the Claude Code / Codex rule (docs/declarations.md).

use crate::model::{Matcher, MatcherRule};

/// Characters that make a matcher a list of exact names rather than a regex.
fn is_exact_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | ' ' | ',' | '|' | '-')
}

impl Matcher {
    /// Compiles a matcher as written, once, at load.
    ///
    /// `*` or an empty (or all-blank) pattern matches everything and gives `Ok(None)`: the declaration stores no
    /// matcher, so it hashes like one that never had any. A pattern of only `[A-Za-z0-9_ ,|-]` is a list of exact
    /// names split on `|` or `,` (blanks around a name are dropped). Anything else is an unanchored regex.
    ///
    /// ```
    /// use hook_config::Matcher;
    /// let exact = Matcher::parse("Edit|Write").unwrap().unwrap();
    /// assert!(exact.matches("Write") && !exact.matches("WriteFile"));
    /// let regex = Matcher::parse("mcp__.*").unwrap().unwrap();
    /// assert!(regex.matches("mcp__memory__read"));
    /// assert!(Matcher::parse("*").unwrap().is_none());
    /// assert!(Matcher::parse("(unclosed").is_err());
    /// ```
    pub fn parse(pattern: &str) -> Result<Option<Matcher>, regex::Error> {
        let trimmed = pattern.trim();
        if trimmed.is_empty() || trimmed == "*" {
            return Ok(None);
        }
        let rule = if pattern.chars().all(is_exact_char) {
            let names: Vec<String> =
                pattern.split(['|', ',']).map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned).collect();
            if names.is_empty() {
                // Only separators (`|`, `,,`): nothing to match by name. Treat like Claude Code would treat such a
                // pattern as a regex: the empty alternation matches everything.
                return Ok(None);
            }
            MatcherRule::Exact(names)
        } else {
            MatcherRule::Regex(regex::Regex::new(pattern)?)
        };
        Ok(Some(Matcher { pattern: pattern.to_owned(), rule }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, value: &str) -> bool {
        Matcher::parse(pattern).unwrap().is_none_or(|m| m.matches(value))
    }

    #[test]
    fn exact_lists_split_on_bar_and_comma_and_regexes_are_unanchored() {
        assert!(matches("Bash", "Bash"));
        assert!(!matches("Bash", "BashOutput"));
        assert!(matches("Edit, Write", "Write"));
        assert!(matches("startup|resume", "resume"));
        assert!(matches("Bash.*", "BashOutput"));
        assert!(matches("ash", "ash"));
        assert!(matches("^mcp__", "mcp__x"));
        assert!(matches("a.c", "xxabcxx"));
        assert!(matches("", "anything"));
        assert!(matches(" * ", "anything"));
    }
}
