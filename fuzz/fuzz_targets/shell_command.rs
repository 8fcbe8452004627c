//! Any text as a shell tool's command line: hook-shell must read it without panicking, within its bounds, and
//! give an answer for every part of it (a command or an Unknown); a `command:` matcher over it never panics and a
//! line with an Unknown never answers No.
#![no_main]

use hook_shell::{CommandPattern, Limits, Match, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else { return };
    let limits = Limits::default();
    let analysis = parse(line, &limits);
    assert!(analysis.commands.len() <= limits.max_commands);
    for command in &analysis.commands {
        assert!(!command.argv.is_empty());
        assert!(!command.program.contains('/') || command.program.ends_with('/'), "{command:?}");
    }
    let pattern = CommandPattern::new("rm|git", &["-r|push", "-f|--force"]).expect("a valid pattern");
    let answer = pattern.test(&analysis);
    if !analysis.unknown.is_empty() {
        assert_ne!(answer, Match::No, "a line not read in full never answers No");
    }
    // The payload form serializes.
    let _ = serde_json::to_string(&analysis).expect("an analysis serializes");
});
