//! A pattern never answers "no" about what it could not read: an argument known only at run time that could make a
//! command match makes it Unknown for that pattern, and a glob matches where it could expand to a matching name.
//! Each of these lines was a silent `Match::No` before.

use hook_shell::{CommandPattern, Limits, Match, UnknownReason, parse};

fn destructive_rm() -> CommandPattern {
    CommandPattern::new("rm", &["-r|-R|--recursive", "-f|--force", "/|~|~/|/*|~/*"]).unwrap()
}

#[test]
fn an_unread_argument_is_unknown_for_the_pattern_it_could_match() {
    let lines = [
        "rm -rf \"$1\"",
        "rm -rf \"$PWD\"",
        "rm -rf \"$(pwd)\"",
        "rm -rf \"${HOME%/}\"",
        "rm -rf `echo /`",
        "for d in / ~; do rm -rf \"$d\"; done",
        "f() { rm -rf \"$1\"; }; f /",
        "rm -rf --no-preserve-root \"$TARGET\"",
    ];
    for line in lines {
        match destructive_rm().test(&parse(line, &Limits::default())) {
            Match::Unknown(u) => assert_eq!(u.reason, UnknownReason::DynamicArgument, "{line}"),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn an_unread_argument_is_still_a_clear_no_where_no_value_could_match() {
    let push = CommandPattern::new("git", &["push"]).unwrap();
    assert_eq!(push.test(&parse("rm -rf \"$1\"", &Limits::default())), Match::No);
    // `-r` is missing whatever `$1` is: no value of one argument gives both flags and a root.
    assert_eq!(destructive_rm().test(&parse("rm \"$1\"", &Limits::default())), Match::No);
    assert_eq!(destructive_rm().test(&parse("rm -rf build", &Limits::default())), Match::No);
}

#[test]
fn a_glob_matches_what_it_could_expand_to() {
    for line in ["rm -rf /*", "rm -rf ~/*", "rm -rf /{tmp,}", "sudo rm -rf ~*"] {
        assert_eq!(destructive_rm().test(&parse(line, &Limits::default())), Match::Yes, "{line}");
    }
    let secrets = CommandPattern::new("cat|less|head|tail", &[".env|.env.*|*/.env"]).unwrap();
    for line in ["cat .en?", "cat .e*", "cat .[e]nv", "cat sub/.e*"] {
        assert_eq!(secrets.test(&parse(line, &Limits::default())), Match::Yes, "{line}");
    }
    for line in ["rm -rf build/*", "rm -rf *.o"] {
        assert_eq!(destructive_rm().test(&parse(line, &Limits::default())), Match::No, "{line}");
    }
    assert_eq!(secrets.test(&parse("cat *.txt", &Limits::default())), Match::No);
}

#[test]
fn a_command_is_dynamic_when_a_word_or_a_redirection_target_is_unread() {
    let first = |line: &str| parse(line, &Limits::default()).commands.remove(0);
    assert!(first("ls \"$D\"").dynamic);
    assert_eq!(first("ls \"$D\" x").unresolved, ["$D"]);
    assert!(first("ls > \"$OUT\"").dynamic);
    assert!(!first("ls /* > out").dynamic);
    assert_eq!(first("ls /*").globs, ["/*"]);
}
