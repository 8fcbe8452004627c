//! Making hook text safe to show: every string a hook wrote passes through [`sanitize_text`] before it reaches an
//! entry, a reason or a message, because the CLI and hosts print these on terminals and feed them to models.

/// Removes whole escape sequences, other control characters (keeping `\n` and `\t`) and the Unicode bidirectional
/// overrides from `text`: [`hook_exec::terminal_safe_str`], the one sanitizer of the engine.
///
/// Control characters would let a hook move the cursor, recolour or clear the screen, or retitle the window of whoever
/// reads its output (`\x1b[2J`); a carriage return would let it overwrite a line already shown. The bidirectional
/// controls are not control characters, but they reorder what a reader sees relative to what the text says
/// ("Trojan Source"), which is the same attack on a reviewer.
///
/// ```
/// use hook_middleware::protocol::sanitize_text;
/// assert_eq!(sanitize_text("ok\x1b[2J\tdone\r\n"), "ok\tdone\n");
/// assert_eq!(sanitize_text("safe\u{202e}txt.exe"), "safetxt.exe");
/// ```
pub fn sanitize_text(text: &str) -> String {
    hook_exec::terminal_safe_str(text)
}

/// Sanitizes and trims `text`; `None` when nothing but whitespace is left (an empty reason is no reason).
pub(crate) fn clean(text: &str) -> Option<String> {
    let cleaned = sanitize_text(text);
    let trimmed = cleaned.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// Lossy UTF-8, sanitized and trimmed (captured stdout and stderr).
pub(crate) fn clean_bytes(bytes: &[u8]) -> Option<String> {
    clean(&String::from_utf8_lossy(bytes))
}
