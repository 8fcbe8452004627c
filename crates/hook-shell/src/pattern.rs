//! The declarative matcher over a reading: a program, the arguments it must have, what feeds it.

use std::fmt;

use crate::{Analysis, Command, Unknown, UnknownReason};

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

    /// Whether one command matches ([`CommandPattern::test_command`] answers [`Match::Yes`]).
    pub fn matches(&self, command: &Command) -> bool {
        self.test_command(command) == Match::Yes
    }

    /// What the pattern says of one command: [`Match::Yes`] when it matches, a glob argument matching where it
    /// could expand to a name the pattern's argument matches; [`Match::Unknown`] when it matches only if some
    /// argument known only at run time ([`Command::unresolved`]) takes the right value; [`Match::No`] otherwise, a
    /// clear no about what could not be read only where no value of it could make the command match.
    ///
    /// ```
    /// use hook_shell::{parse, CommandPattern, Limits, Match};
    ///
    /// let rm = CommandPattern::new("rm", &["-r", "-f", "/|~"]).unwrap();
    /// let first = |line: &str| parse(line, &Limits::default()).commands.remove(0);
    /// assert_eq!(rm.test_command(&first("rm -rf /*")), Match::Yes);
    /// assert!(matches!(rm.test_command(&first("rm -rf \"$1\"")), Match::Unknown(_)));
    /// assert_eq!(rm.test_command(&first("rm -rf build/*")), Match::No);
    /// let push = CommandPattern::new("git", &["push"]).unwrap();
    /// assert_eq!(push.test_command(&first("rm -rf \"$1\"")), Match::No);
    /// ```
    pub fn test_command(&self, command: &Command) -> Match {
        let program_matches = if self.program.has_slash {
            self.program.matches(&command.argv[0])
        } else {
            self.program.matches(&command.program)
        };
        if !program_matches {
            return Match::No;
        }
        if let Some(from) = &self.piped_from
            && !command.piped_from.as_deref().is_some_and(|p| from.matches(p))
        {
            return Match::No;
        }
        if let Some(via) = &self.via
            && !command.via.iter().any(|w| via.matches(w))
        {
            return Match::No;
        }
        let glob: Vec<bool> = command.args.iter().map(|a| command.globs.contains(a)).collect();
        let fits =
            |p: &Alternatives, i: usize| p.matches(&command.args[i]) || (glob[i] && p.could_expand(&command.args[i]));
        if all_matched(&self.args, command.args.len(), fits) {
            return Match::Yes;
        }
        let unresolved: Vec<bool> = command.args.iter().map(|a| is_unresolved(a, &command.unresolved)).collect();
        if unresolved.contains(&true) && all_matched(&self.args, command.args.len(), |p, i| unresolved[i] || fits(p, i))
        {
            let text = command.argv.join(" ").chars().take(200).collect();
            return Match::Unknown(Unknown { reason: UnknownReason::DynamicArgument, text });
        }
        Match::No
    }

    /// What the pattern says of a whole reading: a match wins over what could not be read, and a command whose
    /// unresolved arguments could make it match ([`CommandPattern::test_command`]) is what could not be read.
    pub fn test(&self, analysis: &Analysis) -> Match {
        let mut unknown = analysis.unknown.first().cloned();
        for command in &analysis.commands {
            match self.test_command(command) {
                Match::Yes => return Match::Yes,
                Match::Unknown(u) if unknown.is_none() => unknown = Some(u),
                _ => {}
            }
        }
        match unknown {
            Some(unknown) => Match::Unknown(unknown),
            None => Match::No,
        }
    }
}

/// Whether a normalised argument comes from a word known only at run time: that word itself, or the part of it
/// normalisation split off (`--opt=$X` gives `$X`).
fn is_unresolved(arg: &str, unresolved: &[String]) -> bool {
    unresolved.iter().any(|u| u == arg || (u.contains(arg) && arg.contains(['$', '`', '<'])))
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

    /// Whether the shell glob `shell_glob` could expand to a name one alternative matches.
    fn could_expand(&self, shell_glob: &str) -> bool {
        let mut words = Vec::new();
        braces(shell_glob, &mut words);
        words.iter().any(|word| self.could_expand_one(word))
    }

    fn could_expand_one(&self, shell_glob: &str) -> bool {
        let shell = shell_tokens(shell_glob);
        self.each.iter().any(|pattern| {
            // A name starting with `.` is matched by a glob only where the glob writes the dot.
            let hidden = matches!(pattern.first(), Some(Token::Char('.')));
            (!hidden || matches!(shell.first(), Some(Shell::Char('.'))))
                && intersect(&shell, pattern, &mut vec![vec![None; pattern.len() + 1]; shell.len() + 1], 0, 0)
        })
    }
}

/// The most words a brace expansion is taken apart into; past it, a brace group stands for any text.
const MAX_BRACE_WORDS: usize = 64;

/// The words the brace expansions of `text` give (`a{b,c}` → `ab`, `ac`), at most [`MAX_BRACE_WORDS`]; a group it
/// does not take apart (nested, a sequence `{1..9}`, past the bound) is left for [`shell_tokens`] to read as `*`.
fn braces(text: &str, out: &mut Vec<String>) {
    let group = text.find('{').and_then(|open| text[open..].find('}').map(|close| (open, open + close)));
    match group {
        Some((open, close)) if out.len() < MAX_BRACE_WORDS && !text[open + 1..close].contains('{') => {
            let inner = &text[open + 1..close];
            if !inner.contains(',') {
                return out.push(text.to_owned());
            }
            for alternative in inner.split(',') {
                braces(&format!("{}{alternative}{}", &text[..open], &text[close + 1..]), out);
            }
        }
        _ => out.push(text.to_owned()),
    }
}

/// One piece of a shell glob: a character, `?` or a bracket class (any one character, taken widely), `*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shell {
    Char(char),
    One,
    Star,
}

fn shell_tokens(text: &str) -> Vec<Shell> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push(Shell::Star),
            '?' => out.push(Shell::One),
            '[' if text.contains(']') => {
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
                out.push(Shell::One);
            }
            '{' if text.contains('}') => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                out.push(Shell::Star);
            }
            c => out.push(Shell::Char(c)),
        }
    }
    out
}

/// Whether some text matches both the shell glob `g[i..]` and the pattern `p[j..]` (memoised: at most
/// `g.len() × p.len()` steps).
fn intersect(g: &[Shell], p: &[Token], memo: &mut Vec<Vec<Option<bool>>>, i: usize, j: usize) -> bool {
    if let Some(known) = memo[i][j] {
        return known;
    }
    let answer = match (g.get(i), p.get(j)) {
        (None, None) => true,
        // A glob's `*` and `?` never stand for a `/`.
        (Some(Shell::Star), next) => {
            intersect(g, p, memo, i + 1, j)
                || (next.is_some_and(|t| *t != Token::Char('/')) && intersect(g, p, memo, i, j + 1))
        }
        (_, Some(Token::Star)) => intersect(g, p, memo, i, j + 1) || (i < g.len() && intersect(g, p, memo, i + 1, j)),
        (Some(Shell::One), Some(Token::Char(c))) if *c != '/' => intersect(g, p, memo, i + 1, j + 1),
        (Some(Shell::Char(a)), Some(Token::Char(b))) => a == b && intersect(g, p, memo, i + 1, j + 1),
        _ => false,
    };
    memo[i][j] = Some(answer);
    answer
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

/// Whether each pattern is matched by an argument of its own (`fits(pattern, argument)`), in any order (a small
/// bipartite matching: a pattern may take an argument another pattern had, which then looks for another).
fn all_matched(patterns: &[Alternatives], args: usize, fits: impl Fn(&Alternatives, usize) -> bool) -> bool {
    let fits: Vec<Vec<usize>> = patterns.iter().map(|p| (0..args).filter(|&i| fits(p, i)).collect()).collect();
    let mut owner: Vec<Option<usize>> = vec![None; args];
    (0..patterns.len()).all(|p| assign(p, &fits, &mut owner, &mut vec![false; args]))
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
    fn a_glob_matches_where_it_could_expand_to_a_matching_name() {
        let could = |pattern: &str, g: &str| Alternatives::new(pattern, "args").unwrap().could_expand(g);
        assert!(could("/", "/*") && could("~", "~*") && could(".env", ".en?") && could("~/.env", "~/.e*"));
        assert!(could(".env*", ".e[n]v.local") && could("/", "/{,x}"));
        assert!(could("~/.ssh", "~/.{ssh,aws}") && !could("/", "{a,b}") && !could("/", "{1..3}"));
        assert!(!could("/", "build/*") && !could(".env", "*") && !could(".env", "*.txt"));
    }

    #[test]
    fn each_argument_pattern_takes_an_argument_of_its_own() {
        let args = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let pats = |list: &[&str]| list.iter().map(|p| Alternatives::new(p, "args").unwrap()).collect::<Vec<_>>();
        let all = |p: &[&str], line: &str| {
            let (p, a) = (pats(p), args(line));
            all_matched(&p, a.len(), |p, i| p.matches(&a[i]))
        };
        assert!(all(&["-r|-f", "-f"], "-f -r"));
        assert!(!all(&["-f", "-f"], "-f x"));
        assert!(all(&["push", "-f"], "-f push"));
    }
}
