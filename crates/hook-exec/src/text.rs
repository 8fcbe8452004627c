//! Making captured output safe to show: the one sanitizer every layer uses before hook text reaches a terminal, a
//! transcript or a model.

/// Output made safe to print on a terminal: lossy UTF-8, then [`terminal_safe_str`].
///
/// ```
/// assert_eq!(hook_exec::terminal_safe(b"ok\x1b[31mred\x1b[0m\tdone\n\xff"), "okred\tdone\n\u{fffd}");
/// ```
pub fn terminal_safe(bytes: &[u8]) -> String {
    terminal_safe_str(&String::from_utf8_lossy(bytes))
}

/// Removes what would let text act on whoever reads it, keeping line breaks and tabs:
/// - whole escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL` or `ESC \`, and two-character `ESC x`), so
///   `\x1b[31m` leaves nothing behind rather than a stray `[31m`;
/// - every other control character (a carriage return would let a hook overwrite a line already shown);
/// - the Unicode bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what a reader
///   sees relative to what the text says ("Trojan Source").
///
/// ```
/// use hook_exec::terminal_safe_str;
/// assert_eq!(terminal_safe_str("ok\x1b[2J\tdone\r\n"), "ok\tdone\n");
/// assert_eq!(terminal_safe_str("\x1b]0;pwned\x07title"), "title");
/// assert_eq!(terminal_safe_str("safe\u{202e}txt.exe"), "safetxt.exe");
/// ```
pub fn terminal_safe_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\x1b', Some('[')) => {
                chars.next();
                // Parameters and intermediates, then one final character in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            ('\x1b', Some(']')) => {
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            ('\x1b', Some(_)) => {
                chars.next();
            }
            (c, _) if keep(c) => out.push(c),
            _ => {}
        }
    }
    out
}

fn is_bidi_or_separator(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

fn keep(c: char) -> bool {
    if c == '\n' || c == '\t' {
        return true;
    }
    !c.is_control() && !is_bidi_or_separator(c)
}

#[cfg(test)]
mod tests {
    use super::terminal_safe_str;

    #[test]
    fn unterminated_sequences_do_not_swallow_past_the_end() {
        assert_eq!(terminal_safe_str("a\x1b"), "a");
        assert_eq!(terminal_safe_str("a\x1b[12"), "a");
        assert_eq!(terminal_safe_str("a\x1b]title"), "a");
        assert_eq!(terminal_safe_str("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
    }
}
