//! Reading a shell command line into the simple commands it would run: guards that match on what runs, not on how
//! it is spelled.
//!
//! A guard written as a regular expression over the command string (`git push --force`) lets `git push -f`,
//! `/usr/bin/git push origin main --force`, `sudo git -c x=y push -f` and `bash -c 'git push --force'` through.
//! [`parse`] reads the line with the brush shell's POSIX/bash parser and answers with each simple command it would
//! run ([`Command`]): the program resolved through the wrappers that run another program (`command`, `builtin`,
//! `exec`, `env`, `nice`, `nohup`, `timeout`, `sudo`, `doas`, `xargs`, `find -exec`, `sh -c`, a shell fed a
//! here-document), its name taken from an absolute path, quoting and escapes undone, and its arguments with the
//! program's flags normalised where its option syntax is known (`rm -rf` → `-r -f`, git's global options before the
//! subcommand left out). What cannot be known without running the line (`eval`, a program named by a variable or a
//! command substitution, `source`, an alias) is an [`Unknown`], never a silent non-match; so is a line past the
//! [`Limits`].
//!
//! [`CommandPattern`] is the declarative matcher over the answer (`program: git`, `args: [push, "--force|-f"]`).
//!
//! The crate depends on brush-parser and serde only; it does no I/O and never runs anything.
//!
//! ```
//! use hook_shell::{parse, CommandPattern, Limits, Match};
//!
//! let analysis = parse("cd repo && sudo /usr/bin/git -c core.x=y push -f origin", &Limits::default());
//! let git = &analysis.commands[1];
//! assert_eq!(git.program, "git");
//! assert_eq!(git.args, ["push", "-f", "origin"]);
//! assert_eq!(git.via, ["sudo"]);
//!
//! let force_push = CommandPattern::new("git", &["push", "--force|-f"]).unwrap();
//! assert_eq!(force_push.test(&analysis), Match::Yes);
//! assert_eq!(force_push.test(&parse("bash -c 'git push --force'", &Limits::default())), Match::Yes);
//! assert_eq!(force_push.test(&parse("git push", &Limits::default())), Match::No);
//! assert!(matches!(force_push.test(&parse("eval \"$CMD\"", &Limits::default())), Match::Unknown(_)));
//! ```

#![forbid(unsafe_code)]

mod options;
mod pattern;
mod resolve;
mod stack;
mod walk;
mod word;

use serde::Serialize;

pub use pattern::{CommandPattern, Match, PatternError};

/// One simple command the line would run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Command {
    /// The program's name: the last component of the path it was named by, quoting and escapes undone
    /// (`/bin/rm`, `\rm` and `r""m` are all `rm`).
    pub program: String,
    /// Its arguments, flags normalised where the program's option syntax is known: combined short flags split
    /// (`-rf` → `-r`, `-f`), `--opt=value` split into `--opt` and `value`, an abbreviated long option spelled out
    /// (`--forc` → `--force` where that is the only option it can abbreviate); git's global options (`-c k=v`,
    /// `-C dir`, …) left out so the subcommand comes first. Everything after `--` is kept as written.
    pub args: Vec<String>,
    /// The words the program receives, as written (unquoted, not normalised), the program's own name first.
    pub argv: Vec<String>,
    /// The wrappers the program is run through, outermost first: `sudo`, `env`, `xargs`, `find -exec`, `bash -c`, ….
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
    /// The program of the command whose output this one reads in a pipeline (`curl … | sh`: `curl` for `sh`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub piped_from: Option<String>,
    /// Whether some word or redirection target of the command is known only at run time (a variable, a command
    /// substitution, a glob as a redirection's target): such a word is kept as its source text (`$HOME`), and listed
    /// in [`unresolved`](Command::unresolved) when it is an argument.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dynamic: bool,
    /// The arguments known only at run time, as their source text (`"$1"` is `$1`): a pattern's argument could be
    /// any of them, so a command that needs one to match is [`Match::Unknown`] for that pattern.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<String>,
    /// The arguments that are globs the shell expands against the filesystem (`/*`, `~/.e*`, `.en?`): a pattern's
    /// argument matches one when the glob could expand to a name it matches (`/*` to `/`, `.en?` to `.env`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub globs: Vec<String>,
    /// The files its redirections open, its own and those of the compound commands around it
    /// (`{ a; b; } > f` lists `f` on `a` and on `b`), in the order written. Duplications of descriptors (`2>&1`,
    /// `>&-`), here-documents and here-strings open no file and are not listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<Redirection>,
}

/// A file a command's redirection opens.
///
/// ```
/// use hook_shell::{parse, Limits, Redirection, RedirectionMode};
///
/// let analysis = parse("< .env cat 2>>log >&2", &Limits::default());
/// assert_eq!(
///     analysis.commands[0].redirects,
///     [
///         Redirection { fd: 0, mode: RedirectionMode::Read, target: ".env".into(), known: true },
///         Redirection { fd: 2, mode: RedirectionMode::Append, target: "log".into(), known: true },
///     ]
/// );
/// let analysis = parse("{ ls; pwd; } > \"$OUT\"", &Limits::default());
/// assert!(analysis.commands.iter().all(|c| c.redirects[0].target == "$OUT" && !c.redirects[0].known));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redirection {
    /// The descriptor redirected: 0 for `<`, 1 for `>`, `>>`, `>|` and `&>` (which also writes 2), 2 for `2>`, ….
    pub fd: u32,
    /// What is done with the file.
    pub mode: RedirectionMode,
    /// The path as bash opens it: quotes removed and the static expansions done; its source text when not
    /// [`known`](Redirection::known).
    pub target: String,
    /// Whether `target` was resolved statically.
    pub known: bool,
}

/// What a redirection does with its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RedirectionMode {
    /// `<`, `0<`.
    Read,
    /// `>`, `>|`, `&>`, `>&file`: created or truncated, then written.
    Write,
    /// `>>`, `&>>`.
    Append,
    /// `<>`.
    ReadWrite,
}

/// Why part of a line cannot be known without running it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownReason {
    /// `eval` runs a string the line builds at run time.
    Eval,
    /// The program is named by a variable, a command or process substitution, or arithmetic.
    DynamicProgram,
    /// The program's name is a glob or a brace expansion, which the shell expands against the filesystem.
    PatternProgram,
    /// An argument a pattern looks at is known only at run time (`rm -rf "$1"`, `rm -rf "$(pwd)"`).
    DynamicArgument,
    /// `source` or `.` runs a file's commands.
    Source,
    /// `alias` defines a name that later lines expand to another command.
    Alias,
    /// A wrapper's own options could not be read (an option it does not have, a missing value).
    Wrapper,
    /// The text is not a shell command line this parser reads (a syntax error, or a construct it does not know).
    Syntax,
    /// The line is longer than [`Limits::max_bytes`].
    TooLong,
    /// Scripts nest deeper than [`Limits::max_depth`] (`bash -c "bash -c '…'"`), or constructs deeper than
    /// [`Limits::max_nesting`].
    TooDeep,
    /// The line holds more simple commands than [`Limits::max_commands`].
    TooMany,
}

impl UnknownReason {
    /// What the reason means, in a sentence fit for a denial.
    pub fn describe(self) -> &'static str {
        match self {
            UnknownReason::Eval => "`eval` runs a string built at run time",
            UnknownReason::DynamicProgram => "the program is named by a variable or a substitution",
            UnknownReason::PatternProgram => "the program is named by a glob or brace pattern",
            UnknownReason::DynamicArgument => "an argument the guard looks at is known only at run time",
            UnknownReason::Source => "`source` or `.` runs the commands of a file",
            UnknownReason::Alias => "`alias` makes a name run another command",
            UnknownReason::Wrapper => "a wrapper's options could not be read",
            UnknownReason::Syntax => "the line is not shell syntax this reader follows",
            UnknownReason::TooLong => "the line is longer than the reader's bound",
            UnknownReason::TooDeep => "scripts or constructs nest deeper than the reader's bound",
            UnknownReason::TooMany => "the line holds more commands than the reader's bound",
        }
    }
}

/// A part of the line that cannot be known statically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unknown {
    /// Why.
    pub reason: UnknownReason,
    /// The text concerned (the command's words, or the start of the line), at most 200 characters.
    pub text: String,
}

/// What a command line would run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// Every simple command, in the order the line names them (nested scripts in place of their wrapper's words).
    pub commands: Vec<Command>,
    /// What could not be known statically; empty when every command is known.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<Unknown>,
}

impl Analysis {
    /// Whether every part of the line was read.
    pub fn is_known(&self) -> bool {
        self.unknown.is_empty()
    }
}

/// The bounds of one reading: past any of them the rest is an [`Unknown`], so a reading costs at most linear time
/// in `max_bytes` times `max_depth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest line read, in bytes (the bound agents put on a shell rule's line too).
    pub max_bytes: usize,
    /// How deep scripts run by scripts are followed (`bash -c`, a command substitution, `find -exec`).
    pub max_depth: usize,
    /// How deeply compound constructs (subshells, groups, `if`, loops) may nest in one script.
    pub max_nesting: usize,
    /// The most simple commands reported.
    pub max_commands: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_bytes: 10_000, max_depth: 4, max_nesting: 64, max_commands: 256 }
    }
}

/// Reads `line` into the simple commands it would run.
///
/// ```
/// use hook_shell::{parse, Limits, UnknownReason};
///
/// let analysis = parse("ls; r\"\"m -rf ~ | tee log", &Limits::default());
/// let programs: Vec<&str> = analysis.commands.iter().map(|c| c.program.as_str()).collect();
/// assert_eq!(programs, ["ls", "rm", "tee"]);
/// assert_eq!(analysis.commands[1].args, ["-r", "-f", "~"]);
/// assert_eq!(parse("$EDITOR x", &Limits::default()).unknown[0].reason, UnknownReason::DynamicProgram);
/// ```
pub fn parse(line: &str, limits: &Limits) -> Analysis {
    let mut reader = resolve::Reader::new(limits);
    reader.script(line, &resolve::Context::default());
    reader.finish()
}
