//! Showing text truthfully on a terminal: the one escaping every layer uses before a path, an id, a declaration or
//! a message is printed.

/// Text shown as it is, except that every character that could act on a terminal or reorder what a reader sees is
/// written out as an escape, so a path, an id or a declaration is shown truthfully rather than executed or tidied
/// away: C0 controls but the line break and the tab, DEL and the C1 controls as `\xHH` (`ESC [2J` shows as
/// `\x1b[2J`); the bidirectional marks, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029) as `\u{XXXX}`. Borrowed when nothing needs
/// escaping.
///
/// ```
/// use hook_types::terminal_escaped;
/// assert_eq!(terminal_escaped("ws/\x1b]0;pwned\x07/\u{202e}gpj.exe"), "ws/\\x1b]0;pwned\\x07/\\u{202e}gpj.exe");
/// assert_eq!(terminal_escaped("plain\ttext\n"), "plain\ttext\n");
/// ```
pub fn terminal_escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if !needs_escape(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether [`terminal_escaped`] writes `c` out as an escape.
pub fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_or_separator(c)
}

/// The bidirectional controls and the line and paragraph separators: invisible, yet they reorder or break what a
/// reader sees ("Trojan Source").
fn is_bidi_or_separator(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}'
    )
}
