//! Property tests: however a command's words are quoted, escaped and spaced, and whichever wrapper runs it, the
//! reading finds the same program with the same arguments.

use hook_shell::{Limits, parse};
use proptest::prelude::*;

/// How one piece of a word is written.
#[derive(Debug, Clone, Copy)]
enum Quoting {
    Single,
    Double,
    Backslash,
    AnsiC,
}

fn quoted(piece: &str, quoting: Quoting) -> String {
    match quoting {
        Quoting::Single if !piece.contains('\'') => format!("'{piece}'"),
        Quoting::Single | Quoting::Backslash => {
            piece.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_string() } else { format!("\\{c}") }).collect()
        }
        Quoting::Double => {
            let mut out = String::from("\"");
            for c in piece.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
            out
        }
        Quoting::AnsiC => format!("$'{}'", piece.chars().map(|c| format!("\\x{:02x}", c as u32)).collect::<String>()),
    }
}

/// A word written as pieces, each in its own quoting (`r""m`, `g'i't`).
fn written(word: &str, quotings: &[Quoting]) -> String {
    if word.is_empty() {
        return "''".to_owned();
    }
    let chars: Vec<char> = word.chars().collect();
    let size = chars.len().div_ceil(quotings.len().max(1)).max(1);
    chars
        .chunks(size)
        .zip(quotings.iter().cycle())
        .map(|(piece, q)| quoted(&piece.iter().collect::<String>(), *q))
        .collect()
}

fn quoting() -> impl Strategy<Value = Quoting> {
    prop_oneof![Just(Quoting::Single), Just(Quoting::Double), Just(Quoting::Backslash), Just(Quoting::AnsiC)]
}

fn word() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_./=:+,@%~ '\"$*;|&()<>#!{}-]{0,12}"
}

fn blank() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just(" "), Just("  "), Just("\t"), Just(" \\\n "), Just(" \t ")]
}

fn wrapper() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just(""),
        Just("command "),
        Just("env "),
        Just("env X=1 "),
        Just("sudo "),
        Just("sudo -u root -- "),
        Just("nice -n 5 "),
        Just("timeout 10 "),
        Just("exec "),
        Just("builtin "),
        Just("FOO=bar "),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn quoting_and_blanks_do_not_change_program_or_arguments(
        program in prop_oneof![Just("git"), Just("rm"), Just("ls"), Just("curl"), Just("my-tool")],
        path in prop_oneof![Just(""), Just("/usr/bin/"), Just("/bin/"), Just("./")],
        args in proptest::collection::vec(word(), 0..6),
        quotings in proptest::collection::vec(proptest::collection::vec(quoting(), 1..4), 7),
        blanks in proptest::collection::vec(blank(), 7),
        wrapper in wrapper(),
    ) {
        let plain: Vec<String> = std::iter::once(program.to_owned())
            .chain(args.iter().map(|a| format!("'{}'", a.replace('\'', "'\\''"))))
            .collect();
        let baseline = parse(&plain.join(" "), &Limits::default());
        prop_assert_eq!(baseline.commands.len(), 1, "{:?}", baseline);

        let mut line = format!("{wrapper}{}", written(&format!("{path}{program}"), &quotings[0]));
        for (i, arg) in args.iter().enumerate() {
            line.push_str(blanks[i]);
            line.push_str(&written(arg, &quotings[i + 1]));
        }
        line.push_str(blanks[6]);
        let analysis = parse(&line, &Limits::default());
        prop_assert!(analysis.unknown.is_empty(), "{line:?}: {analysis:?}");
        prop_assert_eq!(analysis.commands.len(), 1, "{:?}: {:?}", line, analysis);
        let command = &analysis.commands[0];
        prop_assert_eq!(&command.program, program, "{:?}", line);
        prop_assert_eq!(&command.argv[1..], &args[..], "{:?}", line);
        prop_assert_eq!(&command.args, &baseline.commands[0].args, "{:?}", line);
    }

    #[test]
    fn a_nested_script_reads_as_the_line_itself(
        args in proptest::collection::vec("[a-z0-9./-]{1,8}", 0..5),
        shell in prop_oneof![Just("sh -c"), Just("bash -c"), Just("bash -lc"), Just("zsh -c")],
    ) {
        let line = std::iter::once("rm").chain(args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
        let direct = parse(&line, &Limits::default());
        let nested = parse(&format!("{shell} '{line}'"), &Limits::default());
        prop_assert_eq!(&direct.commands[0].args, &nested.commands[0].args);
        prop_assert_eq!(&nested.commands[0].program, "rm");
    }
}
