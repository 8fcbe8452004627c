//! The conjunction an allow needs: every command of the line allowed, nothing left unread.

use crate::{Analysis, Command, CommandPattern, Match, RedirectionMode, Unknown, UnknownReason};

/// One entry of an allow-list: a pattern, and whether a command it matches may write files through its
/// redirections (`ls > listing`). Writing to `/dev/null`, `/dev/stdout` and `/dev/stderr` is never a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    /// The commands the entry allows.
    pub pattern: CommandPattern,
    /// Whether those commands may also write (or append to) a file named by a redirection.
    pub writes: bool,
}

/// What an allow-list says of a whole line ([`covers`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coverage {
    /// Every simple command of the line, substitutions and nested scripts included, is allowed, and every part of
    /// it was read.
    All,
    /// This command is not allowed: no entry matches it, or it writes a file and its entry does not allow writes.
    Uncovered(Command),
    /// Part of the line could not be read, or a command's words are known only at run time: an allow cannot stand
    /// on what was not read.
    Unknown(Unknown),
}

/// Whether `allowed` covers every command `analysis` holds.
///
/// [`Coverage::All`] only when the reading has no [`Unknown`], every simple command is matched by some entry
/// ([`CommandPattern::test_command`] answers [`Match::Yes`]), no command has a word known only at run time
/// ([`Command::dynamic`]), and no command writes a file through a redirection unless its entry allows writes.
/// Otherwise what breaks it: the first command (in the line's order) no entry matches, or that writes without
/// leave, is [`Coverage::Uncovered`]; when there is none, the first part that was not read (the reading's
/// unknowns, a command matched only depending on run-time values) is [`Coverage::Unknown`].
///
/// ```
/// use hook_shell::{covers, parse, Allowed, CommandPattern, Coverage, Limits};
///
/// let read_only = [
///     Allowed { pattern: CommandPattern::new("ls|cat|pwd", &[]).unwrap(), writes: false },
///     Allowed { pattern: CommandPattern::new("git", &["status|log|diff"]).unwrap(), writes: false },
/// ];
/// let check = |line: &str| covers(&read_only, &parse(line, &Limits::default()));
/// assert_eq!(check("ls -la && git status 2>/dev/null"), Coverage::All);
/// assert!(matches!(check("ls && rm -rf ~"), Coverage::Uncovered(c) if c.program == "rm"));
/// assert!(matches!(check("ls $(rm -rf ~)"), Coverage::Uncovered(c) if c.program == "rm"));
/// assert!(matches!(check("ls > listing"), Coverage::Uncovered(c) if c.program == "ls"));
/// assert!(matches!(check("cat \"$F\""), Coverage::Unknown(_)));
/// assert!(matches!(check("eval \"$X\""), Coverage::Unknown(_)));
/// ```
pub fn covers(allowed: &[Allowed], analysis: &Analysis) -> Coverage {
    let mut unread = analysis.unknown.first().cloned();
    for command in &analysis.commands {
        let mut unknown = None;
        let mut entry = None;
        for a in allowed {
            match a.pattern.test_command(command) {
                Match::Yes => {
                    entry = Some(a);
                    break;
                }
                Match::Unknown(u) => unknown = unknown.or(Some(u)),
                Match::No => {}
            }
        }
        match entry {
            None if unknown.is_none() => return Coverage::Uncovered(command.clone()),
            None => unread = unread.or(unknown),
            Some(entry) if !entry.writes && writes_a_file(command) => return Coverage::Uncovered(command.clone()),
            Some(_) if command.dynamic => {
                let text = command.argv.join(" ").chars().take(200).collect();
                unread = unread.or(Some(Unknown { reason: UnknownReason::DynamicArgument, text }));
            }
            Some(_) => {}
        }
    }
    match unread {
        Some(unknown) => Coverage::Unknown(unknown),
        None => Coverage::All,
    }
}

/// Whether a redirection of `command` writes a file other than the null device and the standard streams.
fn writes_a_file(command: &Command) -> bool {
    command.redirects.iter().any(|r| {
        matches!(r.mode, RedirectionMode::Write | RedirectionMode::Append | RedirectionMode::ReadWrite)
            && !(r.known && matches!(r.target.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr"))
    })
}
