//! The nesting bound, checked in one linear pass before any parser sees the text.
//!
//! A YAML parser scans flow collections (`[[[…]]]`, `{a: {a: …}}`) level by level before its own recursion limit
//! stops it, and that scan grew quadratically: 40 000 levels took seconds. Counting brackets first costs one pass
//! over the bytes and refuses such a file at once, whatever the syntax.

/// Where the nesting first goes deeper than `limit`: 1-based line and column of the bracket that does.
pub(crate) fn too_deep(text: &str, limit: usize) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut comment = false;
    // Whether a quote may open here: at the start of a scalar (after whitespace or an indicator), so an apostrophe
    // inside a plain scalar (`message: don't`) does not hide the brackets after it.
    let mut scalar_start = true;
    for c in text.chars() {
        if c == '\n' {
            line += 1;
            column = 0;
            comment = false;
            scalar_start = true;
            // A quoted YAML scalar may span lines; JSON and TOML strings may not, and a stray quote must not hide
            // the rest of the file: a double-quoted string is closed by a newline only where the format says so,
            // which for the purpose of counting brackets errs on the side of counting them.
            if quote == Some('\'') {
                continue;
            }
            quote = None;
            escaped = false;
            continue;
        }
        column += 1;
        if comment {
            continue;
        }
        match quote {
            Some('"') => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    quote = None;
                }
                continue;
            }
            Some(_) => {
                if c == '\'' {
                    quote = None;
                }
                continue;
            }
            None => {}
        }
        match c {
            '"' | '\'' if scalar_start => quote = Some(c),
            '#' if scalar_start => comment = true,
            '[' | '{' => {
                depth += 1;
                if depth > limit {
                    return Some((line, column));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        scalar_start = c.is_whitespace() || matches!(c, '[' | '{' | ',' | ':' | '-' | '=');
    }
    None
}

#[cfg(test)]
mod tests {
    use super::too_deep;

    #[test]
    fn brackets_count_outside_strings_and_comments_only() {
        assert_eq!(too_deep("[[[]]]", 3), None);
        assert_eq!(too_deep("[[[[]]]]", 3), Some((1, 4)));
        assert_eq!(too_deep("a: \"[[[[[\"\nb: '{{{{{'\nc: 1 # [[[[[\n", 1), None);
        assert_eq!(too_deep("message: don't [[[[", 2), Some((1, 18)));
        assert_eq!(too_deep("{\"a\": \"\\\"[[[[\"}", 1), None);
        assert_eq!(too_deep("- {a: {b: [1]}}\n", 3), None);
        assert_eq!(too_deep(&format!("{}{}", "[".repeat(40_000), "]".repeat(40_000)), 100), Some((1, 101)));
    }
}
