//! Rendering helpers shared by the subcommands: color, terminal-safe text, 80-column wrapping, and writing to
//! stdout (a closed pipe, as in `hook inspect | head`, ends the output quietly instead of panicking).

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::cli::ColorChoice;

/// The width human output is laid out for.
pub const WIDTH: usize = 80;

/// The version every `--json` form carries at its top.
pub const JSON_VERSION: u32 = 1;

/// A text style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Headings and verdict words.
    Bold,
    /// Deny, failures, untrusted.
    Red,
    /// Ask, warnings, skipped.
    Yellow,
    /// Allow, pass, completed.
    Green,
    /// Secondary facts: paths, hashes, durations.
    Dim,
}

/// Applies styles when color is on, and passes text through unchanged when it is off.
#[derive(Debug, Clone, Copy)]
pub struct Painter {
    color: bool,
}

impl Painter {
    /// Resolves `--color` for stdout: `always` and `never` are absolute; `auto` colors a terminal unless
    /// `NO_COLOR` is set to a non-empty value (no-color.org: an explicit flag wins over the variable) or `TERM` is
    /// `dumb`.
    pub fn new(choice: ColorChoice) -> Painter {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                let dumb = std::env::var_os("TERM").is_some_and(|v| v == "dumb");
                !no_color && !dumb && io::stdout().is_terminal()
            }
        };
        if color {
            COLOR.store(true, Ordering::Relaxed);
        }
        Painter { color }
    }

    /// `text` in `style`.
    pub fn paint(&self, style: Style, text: &str) -> String {
        if !self.color {
            return text.to_owned();
        }
        let code = match style {
            Style::Bold => "1",
            Style::Red => "1;31",
            Style::Yellow => "33",
            Style::Green => "32",
            Style::Dim => "2",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

/// Text from a hook or a file, made safe for a terminal and for one line: every control character (escape
/// sequences, carriage returns, bells) is removed, line breaks and tabs become spaces.
pub fn clean_line(text: &str) -> String {
    let safe = terminal_text(text);
    let mut out = String::with_capacity(safe.len());
    for word in safe.split([' ', '\n', '\t']).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Text from a hook or a file, made safe for a terminal but keeping its lines: control characters other than the
/// line break are removed.
pub fn clean_lines(text: &str) -> Vec<String> {
    terminal_text(text).replace('\t', "    ").lines().map(str::to_owned).collect()
}

/// Whole escape sequences, other control characters and bidirectional overrides removed
/// ([`hook_middleware::sanitize_text`]).
fn terminal_text(text: &str) -> String {
    hook_middleware::sanitize_text(text)
}

/// Wraps `text` (already clean) to `WIDTH` columns: the first line starts with `first`, the following ones with
/// `rest`. Words longer than a line (a path, a hash) stay whole rather than being cut.
pub fn wrap(text: &str, first: &str, rest: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = first.to_owned();
    let mut empty = true;
    for word in text.split_whitespace() {
        let fits = current.chars().count() + 1 + word.chars().count() <= WIDTH;
        if !empty && !fits {
            lines.push(std::mem::replace(&mut current, rest.to_owned()));
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current.push_str(word);
        empty = false;
    }
    if !empty || lines.is_empty() {
        lines.push(current);
    }
    lines
}

/// Whether a painter with color on exists: then [`emit`] lets the painter's own style sequences through.
static COLOR: AtomicBool = AtomicBool::new(false);

/// The escape sequences a [`Painter`] writes: the only ones [`emit`] lets through, and only while color is on.
const STYLE_SEQUENCES: [&str; 6] = ["\x1b[0m", "\x1b[1m", "\x1b[1;31m", "\x1b[33m", "\x1b[32m", "\x1b[2m"];

/// The one sanitizer for everything `hook` prints: every control character (but the line break and the tab) and
/// every bidirectional control is shown escaped ([`hook_types::terminal_escaped`]: `ESC [2J` shows as `\x1b[2J`,
/// U+202E as `\u{202e}`), so a workspace path, an id, a declaration or a message can neither act on the terminal
/// nor reorder what is read, and is still shown as it is. With color on, the painter's own style sequences pass.
pub fn safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !COLOR.load(Ordering::Relaxed) || !text.contains('\x1b') {
        return hook_types::terminal_escaped(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&hook_types::terminal_escaped(&rest[..at]));
        rest = &rest[at..];
        match STYLE_SEQUENCES.iter().find(|seq| rest.starts_with(**seq)) {
            Some(seq) => {
                out.push_str(seq);
                rest = &rest[seq.len()..];
            }
            None => {
                out.push_str("\\x1b");
                rest = &rest[1..];
            }
        }
    }
    out.push_str(&hook_types::terminal_escaped(rest));
    std::borrow::Cow::Owned(out)
}

/// JSON made safe for a terminal without changing what it says: serde_json already escapes the C0 controls; the
/// C1 controls, the bidirectional controls and the line and paragraph separators, which it writes raw, become
/// `\uXXXX` escapes too (they can only stand inside strings, where the escape means the same character).
pub fn safe_json(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.chars().any(hook_types::needs_escape) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hook_types::needs_escape(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Writes `text` to stdout through [`safe`]. A reader that went away (a closed pipe) is not an error: the output
/// simply ends.
pub fn emit(text: &str) -> Result<()> {
    write_stdout(&safe(text))
}

fn write_stdout(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}

/// Writes `value` as pretty JSON and a line break to stdout.
pub fn emit_json<T: Serialize + ?Sized>(value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).context("the JSON output could not be built")?;
    text.push('\n');
    write_stdout(&safe_json(&text))
}

/// A short, human duration: `12 ms`, `1.5 s`.
pub fn duration(ms: u64) -> String {
    if ms < 1000 { format!("{ms} ms") } else { format!("{:.1} s", ms as f64 / 1000.0) }
}

/// A tool as `hook run` and `hook preview` show it: its canonical name, with the name given when that was an agent's
/// spelling (`shell (run_shell_command)`).
pub fn tool_label(tool: &str) -> String {
    match hook_types::canonical_tool(tool) {
        Some(canonical) if canonical != tool => format!("{canonical} ({tool})"),
        _ => tool.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_line_drops_escape_sequences_and_flattens_lines() {
        assert_eq!(clean_line("\x1b[31mred\x1b[0m\nnext\tcol\x07"), "red next col");
        assert_eq!(clean_line("a\x1b]0;title\x07b\x1b]8;;x\x1b\\c\x1bMd\r"), "abcd");
        assert_eq!(clean_lines("one\x1b[2K\r\ntwo\x1b[1;31m"), ["one", "two"]);
        assert_eq!(clean_line("safe\u{202e}txt.exe"), "safetxt.exe");
    }

    #[test]
    fn safe_shows_controls_and_bidi_escaped_and_json_stays_json() {
        assert_eq!(safe("ws/\x1b]0;pwned\x07\x1b[2J\u{202e}x"), "ws/\\x1b]0;pwned\\x07\\x1b[2J\\u{202e}x");
        let json = serde_json::to_string(&serde_json::json!({"id": "a\u{2066}b\u{85}"})).unwrap();
        let safe = safe_json(&json);
        assert_eq!(safe, r#"{"id":"a\u2066b\u0085"}"#);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap()["id"], "a\u{2066}b\u{85}");
    }

    #[test]
    fn wrap_keeps_lines_within_the_width_and_indents_continuations() {
        let text = "word ".repeat(40);
        let lines = wrap(&text, "  reason ", "         ");
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH), "{lines:#?}");
        assert!(lines[0].starts_with("  reason word") && lines[1].starts_with("         word"));
    }

    #[test]
    fn painter_off_leaves_text_alone() {
        assert_eq!(Painter::new(ColorChoice::Never).paint(Style::Red, "deny"), "deny");
        assert_eq!(Painter::new(ColorChoice::Always).paint(Style::Red, "deny"), "\x1b[1;31mdeny\x1b[0m");
    }
}
