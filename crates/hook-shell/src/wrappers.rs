//! Programs that run a command they are given and that the option tables of `resolve.rs` do not read: those that
//! take it as a shell line after `-c` (`su`, `runuser`, `script`, `flock`), those whose own options are not
//! followed here (`strace`, `chroot`, `watch`, …: Unknown, never the wrapper alone), and the interpreters whose
//! one-liners can run any program.

use crate::UnknownReason;
use crate::resolve::{Context, Reader};
use crate::word::Word;

/// Programs that run the rest of their words as a command after options this reader does not follow: the command
/// is Unknown (reason `wrapper`) whenever one is given.
pub(crate) const OPAQUE: &[&str] = &[
    "strace",
    "ltrace",
    "chroot",
    "unshare",
    "nsenter",
    "taskset",
    "chrt",
    "prlimit",
    "watch",
    "setpriv",
    "firejail",
    "bwrap",
    "torsocks",
    "proxychains",
    "proxychains4",
    "valgrind",
    "catchsegv",
    "cgexec",
    "numactl",
    "systemd-run",
    "faketime",
    "fakeroot",
    "unbuffer",
    "schroot",
    "pkexec",
    "toybox",
    "parallel",
    "sg",
    "newgrp",
    "ssh",
];

/// Programs that run a shell line given after `-c` (or `--command`).
pub(crate) const DASH_C: &[&str] = &["su", "runuser", "script", "flock"];

/// Interpreters and the options that give them a program on the command line.
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python*", &["-c"]),
    ("perl*", &["-e", "-E"]),
    ("ruby*", &["-e"]),
    ("node*", &["-e", "--eval", "-p", "--print"]),
    ("nodejs", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval"]),
    ("php*", &["-r"]),
    ("lua*", &["-e"]),
    ("tclsh", &[]),
    ("Rscript", &["-e"]),
];

impl Reader<'_> {
    /// `trap 'LINE' SIGNAL…` runs LINE when a signal (or `EXIT`) comes; `mapfile -C LINE`/`readarray -C LINE` runs
    /// LINE for each chunk it reads: each read as a script, or Unknown (`eval`) when only run time knows it.
    pub(crate) fn builtin_string(&mut self, name: &str, words: &[Word], texts: &[String], start: usize, cx: &Context) {
        let script = if name == "trap" {
            let at = start + 1 + usize::from(texts.get(start + 1).is_some_and(|w| w == "--"));
            words.get(at).filter(|w| !w.text.starts_with('-') && w.text != "-" && texts.len() > at + 1)
        } else {
            (start + 1..texts.len()).find(|&i| texts[i] == "-C").and_then(|i| words.get(i + 1))
        };
        match script {
            Some(word) if word.dynamic => self.unknown(UnknownReason::Eval, &texts[start..].join(" ")),
            Some(word) => self.nested(&word.text, cx, Some(if name == "trap" { "trap" } else { "mapfile -C" })),
            None => {}
        }
    }

    /// `su -c LINE`, `runuser -c LINE`, `script -c LINE`, `flock FILE -c LINE`: the line read as a script; `flock
    /// FILE CMD …` runs its words; without a command, the program itself.
    pub(crate) fn dash_c(&mut self, name: &str, words: &[Word], texts: &[String], start: usize, cx: &Context) -> bool {
        let mut at = start + 1;
        while let Some(text) = texts.get(at) {
            let inline = text.strip_prefix("--command=").or_else(|| text.strip_prefix("-c").filter(|v| !v.is_empty()));
            // `-q -c`, `-qc`: flags; a `-c` with text after it is the line itself (`-crm -rf /`).
            let script = if let Some(value) = inline {
                Some((value.to_owned(), words[at].dynamic))
            } else if text == "--command" || (text.starts_with('-') && !text.starts_with("--") && text.ends_with('c')) {
                // `-c LINE`, and `-qc LINE` with flags before it.
                words.get(at + 1).map(|w| (w.text.clone(), w.dynamic))
            } else {
                None
            };
            if let Some((script, dynamic)) = script {
                if dynamic {
                    self.unknown(UnknownReason::DynamicProgram, &texts[start..].join(" "));
                } else {
                    self.nested(&script, cx, Some(via_name(name)));
                }
                return true;
            }
            at += 1;
        }
        if name == "flock" && texts.len() > start + 2 {
            // `flock FILE CMD …` (options before the file are not followed).
            self.unknown(UnknownReason::Wrapper, &texts[start..].join(" "));
            return true;
        }
        false
    }

    /// A program [`OPAQUE`] lists: itself a command, and Unknown when it is given more words than its options.
    pub(crate) fn opaque(&mut self, texts: &[String], start: usize) -> bool {
        if texts[start + 1..].iter().any(|w| !w.starts_with('-')) {
            self.unknown(UnknownReason::Wrapper, &texts[start..].join(" "));
        }
        false
    }

    /// An interpreter given its program on the command line (`python -c`, `perl -e`, `awk '… system(…) …'`):
    /// Unknown to every pattern but one on the interpreter itself, which the command (still listed) answers.
    pub(crate) fn interpreter(&mut self, name: &str, texts: &[String], start: usize) {
        let rest = &texts[start + 1..];
        let one_liner = if matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox awk") {
            rest.iter().any(|w| w.contains("system") || w.contains('|') || w.contains("getline"))
        } else {
            INTERPRETERS.iter().any(|(pattern, flags)| {
                glob_name(pattern, name)
                    && rest.iter().any(|w| {
                        flags.iter().any(|f| w == f || (f.len() == 2 && !f.starts_with("--") && w.starts_with(f)))
                    })
            })
        };
        if one_liner {
            self.unknown(UnknownReason::Interpreter, &texts[start..].join(" "));
        }
    }
}

/// Whether `name` is an interpreter of the table or awk.
pub(crate) fn is_interpreter(name: &str) -> bool {
    matches!(name, "awk" | "gawk" | "mawk" | "nawk") || INTERPRETERS.iter().any(|(p, _)| glob_name(p, name))
}

fn glob_name(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

fn via_name(name: &str) -> &'static str {
    match name {
        "su" => "su -c",
        "runuser" => "runuser -c",
        "script" => "script -c",
        _ => "flock -c",
    }
}
