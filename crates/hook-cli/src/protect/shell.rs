//! The files a shell line would change, read through hook-shell: the programs that write, move, remove or change
//! the mode of a file, by their arguments, and the line's output redirections.
//!
//! Unknown: a target the engine cannot read (a variable, a substitution, a glob), a part of the line hook-shell
//! cannot read (`eval`, a program named by a variable), and an interpreter given code on its command line
//! (`python3 -c`, `node -e`, `perl -e`, `ruby -e`) — each counts as a write of a protected file when the line names
//! one (its file name, or its directory's, appears in the line), and as nothing otherwise: `echo x > "$OUT"` in a
//! line that names no protected place passes.

use std::path::Path;

/// One thing a line would do to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A path as written, and whether the change reaches everything under it (`rm -r`, `mv`, `chmod`).
    Path { raw: String, tree: bool },
    /// A destination directory a copy writes into: the written files are `dir/<name>` for each source name.
    Into { dir: String, names: Vec<String> },
    /// Something that may write a file, where the engine cannot tell which.
    Unknown(String),
    /// `hook trust|uninstall|install|import --write`: the engine's own loosening commands.
    Loosening(String),
}

/// Programs whose every operand is a file they change.
const CHANGES_OPERANDS: &[(&str, bool)] = &[
    ("rm", true),
    ("rmdir", true),
    ("unlink", false),
    ("shred", false),
    ("truncate", false),
    ("touch", false),
    ("chmod", true),
    ("chown", true),
    ("chgrp", true),
    ("tee", false),
    ("mkdir", false),
];

/// Programs that copy or move their sources to their last operand.
const COPIES: &[(&str, bool)] = &[("cp", false), ("mv", true), ("ln", false), ("install", false), ("rsync", false)];

/// Interpreters that take a program on their command line.
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("python3", &["-c"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
];

/// What `line` would change.
pub fn targets(line: &str) -> Vec<Target> {
    let analysis = hook_shell::parse(line, &hook_shell::Limits::default());
    let mut out = Vec::new();
    for unknown in &analysis.unknown {
        out.push(Target::Unknown(format!("{} (`{}`)", unknown.reason.describe(), unknown.text)));
    }
    for command in &analysis.commands {
        command_targets(command, &mut out);
        for redirect in &command.redirects {
            if redirect.mode == hook_shell::RedirectionMode::Read {
                continue;
            }
            match redirect.known {
                true => out_path(&mut out, &redirect.target, false),
                false => out.push(Target::Unknown(format!("a write to `{}`, known only at run time", redirect.target))),
            }
        }
    }
    // A second reading of the raw line, for a redirection on no command (`> file` alone) or in a part the parser
    // did not attach to one: a file named twice is checked twice, never missed.
    redirections(line, &mut out);
    out
}

fn operands(args: &[String]) -> Vec<String> {
    let mut after_dashes = false;
    let mut out = Vec::new();
    for arg in args {
        if after_dashes || !arg.starts_with('-') || arg == "-" {
            out.push(arg.clone());
        } else if arg == "--" {
            after_dashes = true;
        }
    }
    out
}

fn command_targets(command: &hook_shell::Command, out: &mut Vec<Target>) {
    let program = command.program.as_str();
    let args = &command.args;
    let mut path = |raw: &str, tree: bool| out_path(out, raw, tree);
    if let Some((_, tree)) = CHANGES_OPERANDS.iter().find(|(p, _)| *p == program) {
        let operands = operands(args);
        // chmod's and chown's first operand is the mode or owner.
        let skip = usize::from(matches!(program, "chmod" | "chown" | "chgrp"));
        for operand in operands.iter().skip(skip) {
            path(operand, *tree);
        }
    } else if let Some((_, tree)) = COPIES.iter().find(|(p, _)| *p == program) {
        let operands = operands(args);
        if let Some((dest, sources)) = operands.split_last() {
            if *tree {
                for source in sources {
                    path(source, true);
                }
            }
            path(dest, false);
            let names =
                sources.iter().filter_map(|s| Path::new(s).file_name()).map(|n| n.to_string_lossy().into_owned());
            out.push(Target::Into { dir: dest.clone(), names: names.collect() });
        }
    } else if matches!(program, "sed" | "perl") && args.iter().any(|a| a.starts_with("-i") || a == "--in-place") {
        // The script is the first operand unless given by -e; every other operand is edited in place.
        let operands = operands(args);
        let scripted = args.iter().any(|a| a == "-e" || a == "--expression");
        for operand in operands.iter().skip(usize::from(!scripted && program == "sed")) {
            path(operand, false);
        }
    } else if program == "dd" {
        for arg in args {
            if let Some(file) = arg.strip_prefix("of=") {
                path(file, false);
            }
        }
    } else if program == "git"
        && matches!(
            args.first().map(String::as_str),
            Some("checkout" | "restore" | "rm" | "mv" | "clean" | "reset" | "stash")
        )
    {
        for operand in operands(&args[1..]) {
            path(&operand, true);
        }
        if args.first().is_some_and(|a| matches!(a.as_str(), "clean" | "reset" | "stash")) {
            out.push(Target::Unknown(format!("`git {}` may change any file of the work tree", args[0])));
        }
    } else if let Some((_, flags)) =
        INTERPRETERS.iter().find(|(p, _)| *p == program || program.starts_with(&format!("{p}3.")))
    {
        if args.iter().any(|a| flags.contains(&a.as_str())) {
            out.push(Target::Unknown(format!("`{program}` runs code given on its command line")));
        }
    } else if program == "hook" {
        let sub = args.first().map(String::as_str);
        let loosening = match sub {
            Some("trust" | "uninstall" | "install") => true,
            Some("import") => args.iter().any(|a| a == "--write"),
            _ => false,
        };
        if loosening {
            out.push(Target::Loosening(format!("hook {}", args.join(" "))));
        }
    }
    if command.dynamic && !out.is_empty() {
        out.push(Target::Unknown(format!("`{program}` has an argument known only at run time")));
    }
}

fn out_path(out: &mut Vec<Target>, raw: &str, tree: bool) {
    out.push(Target::Path { raw: raw.to_owned(), tree });
}

/// The line's output redirections (`>`, `>>`, `>|`, `&>`, `<>`, a descriptor before any), read from the raw line
/// outside quotes: the word after the operator is the target, quotes removed.
fn redirections(line: &str, out: &mut Vec<Target>) {
    let bytes = line.as_bytes();
    let (mut i, mut quote) = (0, None::<u8>);
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(b'"') if b == b'\\' => i += 1,
            Some(_) => {}
            None if b == b'\\' => i += 1,
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'>' => {
                i += 1;
                while i < bytes.len() && matches!(bytes[i], b'>' | b'|') {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'&') {
                    // `>&2`: a descriptor, not a file.
                    i += 1;
                    continue;
                }
                let word = next_word(&line[i..]);
                if !word.is_empty() {
                    out_path(out, &word, false);
                }
                continue;
            }
            None => {}
        }
        i += 1;
    }
}

/// The shell word at the start of `text` (after blanks), its quotes removed; `$` and backquotes are kept, so a
/// dynamic word stays unresolvable.
fn next_word(text: &str) -> String {
    let mut word = String::new();
    let mut quote = None;
    let mut chars = text.trim_start().chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '\\' => word.extend(chars.next()),
            None if c.is_whitespace() || ";&|<>()".contains(c) => break,
            None => word.push(c),
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(line: &str) -> Vec<String> {
        targets(line)
            .into_iter()
            .filter_map(|t| match t {
                Target::Path { raw, .. } => Some(raw),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_way_of_writing_a_file_names_it() {
        assert_eq!(paths("echo {} > .claude/settings.json"), [".claude/settings.json", ".claude/settings.json"]);
        assert_eq!(paths("> .hooks/h.yaml"), [".hooks/h.yaml"]);
        assert!(paths("echo {} >>'a b' 2>&1").iter().all(|p| p == "a b"));
        assert!(paths("cat x | tee -a .hooks/h.yaml >/dev/null").contains(&".hooks/h.yaml".to_owned()));
        assert_eq!(paths("sed -i s/a/b/ .claude/settings.json"), [".claude/settings.json"]);
        assert_eq!(paths("sudo rm -rf .hooks"), [".hooks"]);
        assert_eq!(paths("dd if=/dev/zero of=x"), ["x"]);
        assert_eq!(paths("chmod 000 ~/.claude/settings.json"), ["~/.claude/settings.json"]);
        assert_eq!(paths("git checkout -- .claude/settings.json"), [".claude/settings.json"]);
        assert_eq!(paths("cat .claude/settings.json; git diff"), Vec::<String>::new());
        assert!(targets("python3 -c 'open(1)'").iter().any(|t| matches!(t, Target::Unknown(_))));
        assert!(matches!(targets("bash -c 'hook trust --all --yes'")[..], [Target::Loosening(_)]));
        assert!(targets("hook inspect").is_empty());
    }
}
