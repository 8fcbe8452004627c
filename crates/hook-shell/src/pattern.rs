//! The declarative matcher over a reading: a program, the arguments it must have, what feeds it.

use std::fmt;

use crate::{Analysis, Command, Unknown};

/// A command matcher: `program: git`, `args: [push, "--force|-f"]`.
///
/// - `program`: alternatives separated by `|`, each a name where `*` stands for any run of characters
///   (`"sh|bash|zsh"`, `"python*"`); compared with [`Command::program`] (a pattern holding `/` with the path as
///   written, `argv[0]`).
/// - `args`: each entry alternatives in the same form, each matched by an argument of its own, in any order
///   ([`Command::args`]: `[push, "--force|-f"]` matches `push origin -f` and `-f push`). Arguments are compared
///   after normalisation, so `-f` matches `rm -rf`'s `-f`. `\*` and `\|` are the characters themselves.
/// - `piped_from`: alternatives the program feeding this one in a pipeline must match (`curl … | sh`).
/// - `via`: alternatives one of the wrappers the command runs through must match (`xargs|find -exec`).
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
    via: Option<Alternatives>,
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
            via: None,
        })
    }

    /// The same pattern, matching only a command whose input is piped from a program matching `program`.
    pub fn piped_from(mut self, program: &str) -> Result<CommandPattern, PatternError> {
        self.piped_from = Some(Alternatives::new(program, "piped_from")?);
        Ok(self)
    }

    /// The same pattern, matching only a command run through a wrapper matching `wrapper` (one of
    /// [`Command::via`]: `xargs`, `find -exec`, `sudo`, `bash`, …).
    pub fn via(mut self, wrapper: &str) -> Result<CommandPattern, PatternError> {
        self.via = Some(Alternatives::new(wrapper, "via")?);
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
        if let Some(via) = &self.via
            && !command.via.iter().any(|w| via.matches(w))
        {
            return false;
        }
        all_matched(&self.args, &command.args)
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

/// `a|b*|c`: names, `*` any run of characters, `\*` and `\|` the characters themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Alternatives {
    each: Vec<Vec<Token>>,
    has_slash: bool,
}

/// One piece of a name pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Char(char),
    Star,
}

impl Alternatives {
    fn new(text: &str, field: &str) -> Result<Alternatives, PatternError> {
        let mut each = vec![Vec::new()];
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            let current = each.last_mut().expect("one alternative at least");
            match c {
                '\\' => current.push(Token::Char(chars.next().unwrap_or('\\'))),
                '*' => current.push(Token::Star),
                '|' => each.push(Vec::new()),
                c => current.push(Token::Char(c)),
            }
        }
        if each.iter().any(Vec::is_empty) {
            return Err(PatternError {
                message: format!(
                    "`{field}: {text}` has an empty alternative; expected names separated by `|`, e.g. `--force|-f`"
                ),
            });
        }
        Ok(Alternatives { has_slash: text.contains('/'), each })
    }

    fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        self.each.iter().any(|pattern| glob(pattern, &text))
    }
}

/// Wildcard matching with one step back to the last star: at most pattern × text steps.
fn glob(pattern: &[Token], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(Token::Char(c)) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            Some(Token::Star) => {
                star = Some((p, t));
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|token| *token == Token::Star)
}

/// Whether each pattern is matched by an argument of its own, in any order (a small bipartite matching: a pattern
/// may take an argument another pattern had, which then looks for another).
fn all_matched(patterns: &[Alternatives], args: &[String]) -> bool {
    let fits: Vec<Vec<usize>> =
        patterns.iter().map(|p| (0..args.len()).filter(|&i| p.matches(&args[i])).collect()).collect();
    let mut owner: Vec<Option<usize>> = vec![None; args.len()];
    (0..patterns.len()).all(|p| assign(p, &fits, &mut owner, &mut vec![false; args.len()]))
}

fn assign(p: usize, fits: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
    for &arg in &fits[p] {
        if seen[arg] {
            continue;
        }
        seen[arg] = true;
        if owner[arg].is_none_or(|other| assign(other, fits, owner, seen)) {
            owner[arg] = Some(p);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(pattern: &str, text: &str) -> bool {
        Alternatives::new(pattern, "args").unwrap().matches(text)
    }

    #[test]
    fn names_stars_and_escapes() {
        assert!(glob("python*", "python3"));
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b", "ab_"));
        assert!(glob("--force*", "--force-with-lease"));
        assert!(!glob("rm", "rmdir"));
        assert!(glob("\\*", "*") && !glob("\\*", "x"));
        assert!(glob("a\\|b", "a|b") && glob("x|y", "y"));
    }

    #[test]
    fn each_argument_pattern_takes_an_argument_of_its_own() {
        let args = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let pats = |list: &[&str]| list.iter().map(|p| Alternatives::new(p, "args").unwrap()).collect::<Vec<_>>();
        assert!(all_matched(&pats(&["-r|-f", "-f"]), &args("-f -r")));
        assert!(!all_matched(&pats(&["-f", "-f"]), &args("-f x")));
        assert!(all_matched(&pats(&["push", "-f"]), &args("-f push")));
    }
}
