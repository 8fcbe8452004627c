//! Exit codes (docs/output-protocol.md#exit-codes-of-hook-itself) and how an error reaches the user: one line on stderr, `hook: error: …`, exit 1.

use std::io::{self, Write};

use hook_types::Verdict;

/// Success, and the verdicts allow, pass and none.
pub const SUCCESS: u8 = 0;
/// Any error: bad flags, an unusable workspace, unreadable input, a failed check.
pub const ERROR: u8 = 1;
/// The dispatch denied.
pub const DENY: u8 = 2;
/// The dispatch asks the human.
pub const ASK: u8 = 3;

/// The exit code a verdict maps to: deny 2, ask 3, everything else 0.
pub fn for_verdict(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Deny => DENY,
        Verdict::Ask => ASK,
        Verdict::Allow | Verdict::Pass | Verdict::None => SUCCESS,
    }
}

/// Prints `err` as one line, `hook: error: <what>: <why>: …`, with line breaks of any part (a file name, a parser
/// message) flattened so the line stays one line and control and bidirectional characters shown escaped
/// ([`crate::render::safe`]), and returns exit code 1.
pub fn report(err: &anyhow::Error) -> u8 {
    let text = one_line(&format!("{err:#}"));
    // Nothing useful is left to do if stderr itself is gone.
    let _ = writeln!(io::stderr().lock(), "hook: error: {text}");
    ERROR
}

/// What a panic says and where it happened (` at file:line`, or nothing), for a panic hook that turns a bug into a
/// message instead of a backtrace.
pub fn panic_parts(info: &std::panic::PanicHookInfo<'_>) -> (String, String) {
    let message = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
    (message, at)
}

/// `text` on one line: line breaks become `; `, escape sequences and other control characters are dropped.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for part in text.split(['\n', '\r']).map(str::trim).filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(&crate::render::safe(&part.replace('\t', " ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_line_messages_become_one_line_without_control_characters() {
        assert_eq!(one_line("bad\n  thing\x1b[31m\r\n"), "bad; thing\\x1b[31m");
        assert_eq!(one_line(""), "");
    }

    #[test]
    fn verdicts_map_to_the_documented_exit_codes() {
        let codes: Vec<u8> =
            [Verdict::Deny, Verdict::Ask, Verdict::Allow, Verdict::Pass, Verdict::None].map(for_verdict).to_vec();
        assert_eq!(codes, [2, 3, 0, 0, 0]);
    }
}
