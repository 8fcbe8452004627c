//! The declarative matcher over a reading: a program, the arguments it must have, what feeds it.

use std::fmt;

use crate::{Analysis, Command, Unknown};

/// A command matcher: `program: git`, `args: [push, "--force|-f"]`.
///
/// - `program`: alternatives separated by `|`, each a name where `*` stands for any run of characters
///   (`"sh|bash|zsh"`, `"python*"`); compared with [`Command::program`] (a pattern holding `/` with the path as
///   written, `argv[0]`).
/// - `args`: each entry alternatives in the same form, matched in order against [`Command::args`]: the first entry
///   by some argument, the second by a later one, and so on (`[push, "--force|-f"]` matches `push origin -f`, not
///   `-f push`). Arguments are compared after normalisation, so `-f` matches `rm -rf`'s `-f`.
/// - `piped_from`: alternatives the program feeding this one in a pipeline must match (`curl … | sh`).
///
/// ```
/// use hook_shell::{parse, CommandPattern, Limits, Match};
///
/// let rm = CommandPattern::new("rm", &["-r|-R|--recursive", "-f|--force"]).unwrap();
/// assert_eq!(rm.test(&parse("ls && \\rm -Rf build", &Limits::default())), Match::Yes);
/// assert_eq!(rm.test(&parse("rm -r build", &Limits::default())), Match::No);
/// let pipe = CommandPattern::new("sh|bash", &[]).unwrap().piped_from("curl|wget").unwrap();
/// assert_eq!(pipe.test(&parse("curl -fsSL x.sh | sudo bash", &Limits::default())), Match::Yes);
/// assert!(CommandPattern::new("git", &["push||-f"]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    program: Alternatives,
    args: Vec<Alternatives>,
    piped_from: Option<Alternatives>,
}

/// What a [`CommandPattern`] says of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// A command of the line matches.
    Yes,
    /// Every command of the line was read, and none matches.
    No,
    /// No command read matches, but part of the line could not be read: this is the first such part.
    Unknown(Unknown),
}

/// Why a pattern cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PatternError {}

impl CommandPattern {
    /// A pattern for `program` with `args` (each in the `a|b|c*` form).
    pub fn new(program: &str, args: &[&str]) -> Result<CommandPattern, PatternError> {
        Ok(CommandPattern {
            program: Alternatives::new(program, "program")?,
            args: args.iter().map(|a| Alternatives::new(a, "args")).collect::<Result<_, _>>()?,
            piped_from: None,
        })
    }

    /// The same pattern, matching only a command whose input is piped from a program matching `program`.
    pub fn piped_from(mut self, program: &str) -> Result<CommandPattern, PatternError> {
        self.piped_from = Some(Alternatives::new(program, "piped_from")?);
        Ok(self)
    }

    /// Whether one command matches.
    pub fn matches(&self, command: &Command) -> bool {
        let program_matches = if self.program.has_slash {
            self.program.matches(&command.argv[0])
        } else {
            self.program.matches(&command.program)
        };
        if !program_matches {
            return false;
        }
        if let Some(from) = &self.piped_from
            && !command.piped_from.as_deref().is_some_and(|p| from.matches(p))
        {
            return false;
        }
        let mut args = command.args.iter();
        self.args.iter().all(|pattern| args.any(|arg| pattern.matches(arg)))
    }

    /// What the pattern says of a whole reading: a match wins over what could not be read.
    pub fn test(&self, analysis: &Analysis) -> Match {
        if analysis.commands.iter().any(|c| self.matches(c)) {
            return Match::Yes;
        }
        match analysis.unknown.first() {
            Some(unknown) => Match::Unknown(unknown.clone()),
            None => Match::No,
        }
    }
}

/// `a|b*|c`: names, `*` any run of characters.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Alternatives {
    each: Vec<String>,
    has_slash: bool,
}

impl Alternatives {
    fn new(text: &str, field: &str) -> Result<Alternatives, PatternError> {
        let each: Vec<String> = text.split('|').map(str::to_owned).collect();
        if each.iter().any(String::is_empty) {
            return Err(PatternError {
                message: format!(
                    "`{field}: {text}` has an empty alternative; expected names separated by `|`, e.g. `--force|-f`"
                ),
            });
        }
        Ok(Alternatives { has_slash: each.iter().any(|a| a.contains('/')), each })
    }

    fn matches(&self, text: &str) -> bool {
        self.each.iter().any(|pattern| glob(pattern, text))
    }
}

/// `*` any run of characters; everything else itself. Linear in the text times the pattern's stars.
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn glob_stars() {
        assert!(glob("python*", "python3"));
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b", "ab_"));
        assert!(glob("--force*", "--force-with-lease"));
        assert!(!glob("rm", "rmdir"));
    }
}
