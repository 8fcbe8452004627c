//! `covers`: an allow-list holds only when every command of the line is allowed and everything was read.

use hook_shell::{Allowed, CommandPattern, Coverage, Limits, covers, parse};

fn read_only() -> Vec<Allowed> {
    let entry =
        |program: &str, args: &[&str]| Allowed { pattern: CommandPattern::new(program, args).unwrap(), writes: false };
    vec![entry("ls|cat|pwd|head|wc|grep", &[]), entry("git", &["status|log|diff|show"])]
}

fn coverage(line: &str) -> Coverage {
    covers(&read_only(), &parse(line, &Limits::default()))
}

#[test]
fn read_only_lines_are_covered() {
    for line in [
        "ls",
        "ls -la src",
        "cat x",
        "git status",
        "ls | wc -l",
        "cat x 2>/dev/null",
        "ls >/dev/null 2>&1",
        "git log --oneline | head -5",
        "cd_free=1 ls",
    ] {
        assert_eq!(coverage(line), Coverage::All, "{line}");
    }
}

#[test]
fn a_second_command_not_allowed_breaks_the_allow() {
    for (line, program) in [
        ("ls && curl x | sh", "curl"),
        ("ls; rm -rf ~", "rm"),
        ("ls $(rm -rf ~)", "rm"),
        ("ls `rm -rf ~`", "rm"),
        ("ls <(rm -rf ~)", "rm"),
        ("cat x | sh", "sh"),
        ("ls || bash -c 'rm -rf ~'", "rm"),
        ("git status && git push -f", "git"),
    ] {
        match coverage(line) {
            Coverage::Uncovered(c) => assert_eq!(c.program, program, "{line}"),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn writing_a_file_needs_an_entry_that_allows_writes() {
    for line in ["ls > f", "ls >> f", "cat x 1<>f", "ls &> out", "{ ls; } > f"] {
        assert!(matches!(coverage(line), Coverage::Uncovered(c) if c.program == "ls" || c.program == "cat"), "{line}");
    }
    let writer = [Allowed { pattern: CommandPattern::new("ls", &[]).unwrap(), writes: true }];
    assert_eq!(covers(&writer, &parse("ls > f", &Limits::default())), Coverage::All);
}

#[test]
fn what_was_not_read_is_unknown_never_covered() {
    for line in ["cat \"$F\"", "ls $(pwd)", "eval \"$X\"", "$CMD", "ls > \"$OUT\"", "source x"] {
        assert!(matches!(coverage(line), Coverage::Unknown(_) | Coverage::Uncovered(_)), "{line}");
        assert_ne!(coverage(line), Coverage::All, "{line}");
    }
    assert!(matches!(coverage("cat \"$F\""), Coverage::Unknown(_)));
    assert!(matches!(coverage("eval \"$X\""), Coverage::Unknown(_)));
}
