//! A shell rule (`Bash(git push *)`, `shell(git push *)`) against a command line.
//!
//! Claude Code tests a shell rule against each simple command of the line, its words unquoted and joined by one
//! space: `ls && FOO=1 git push origin` holds the simple commands `ls` and `git push origin`, and the hook runs
//! when any one of them matches. A command it cannot read statically (a variable or command substitution, a
//! subshell, a here-document, control characters) matches every rule, so the hook runs and decides itself: a
//! guard is never skipped for a spelling this reading does not follow.
//!
//! [`command_matches`] is the one entry point: whatever reads shell commands more deeply later plugs in here.

use super::wildcard::Wildcard;

/// The longest command line read; a longer one matches every rule (Claude Code's own bound is the same).
const MAX_COMMAND_BYTES: usize = 10_000;

/// How a shell rule compares a simple command.
#[derive(Debug, Clone)]
pub(crate) enum ShellPattern {
    /// The legacy `prefix:*` form: the command is the prefix, or starts with it and a space.
    Prefix(String),
    /// A wildcard pattern (an exact command where it has no `*`).
    Wildcard(Wildcard, Wildcard),
}

impl ShellPattern {
    /// Reads a rule's specifier.
    pub(crate) fn new(specifier: &str) -> ShellPattern {
        match specifier.strip_suffix(":*").filter(|p| !p.is_empty()) {
            Some(prefix) => ShellPattern::Prefix(prefix.to_owned()),
            None => ShellPattern::Wildcard(
                Wildcard::new(specifier, true),
                Wildcard::new(&format!("xargs {specifier}"), true),
            ),
        }
    }

    /// Whether one simple command (its words joined by one space) matches.
    fn matches_simple(&self, simple: &str) -> bool {
        match self {
            ShellPattern::Prefix(prefix) => {
                let starts = |p: &str| simple == p || simple.strip_prefix(p).is_some_and(|rest| rest.starts_with(' '));
                starts(prefix) || starts(&format!("xargs {prefix}"))
            }
            ShellPattern::Wildcard(plain, xargs) => plain.matches(simple) || xargs.matches(simple),
        }
    }
}

/// Whether a shell rule's pattern matches the command line `command`: any of its simple commands matches, or the
/// line cannot be read statically.
pub(crate) fn command_matches(pattern: &ShellPattern, command: &str) -> bool {
    match simple_commands(command) {
        Some(commands) => commands.iter().any(|simple| pattern.matches_simple(&simple.join(" "))),
        None => true,
    }
}

/// The simple commands of `command`, each as its words (assignments before the program and redirections left
/// out); `None` where the line cannot be read statically.
pub(crate) fn simple_commands(command: &str) -> Option<Vec<Vec<String>>> {
    if command.len() > MAX_COMMAND_BYTES
        || command.chars().any(|c| (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || is_odd_blank(c))
    {
        return None;
    }
    let mut lexer = Lexer { chars: command.chars().collect(), at: 0, commands: Vec::new(), words: Vec::new() };
    lexer.run()?;
    Some(lexer.commands)
}

/// Blanks other than space, tab and newline, which the shell does not split on but a reader may take for a space.
fn is_odd_blank(c: char) -> bool {
    c.is_whitespace() && !matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Words a command cannot start with and still be a simple command.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "select", "function",
    "!", "[[", "]]", "{", "}", "time", "coproc",
];

struct Lexer {
    chars: Vec<char>,
    at: usize,
    commands: Vec<Vec<String>>,
    /// The current command's words: (unquoted text, whether it is a candidate assignment `NAME=…`).
    words: Vec<(String, bool)>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn run(&mut self) -> Option<()> {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => self.at += 1,
                '\n' | ';' | '&' | '|' => {
                    self.at += 1;
                    self.end_command()?;
                }
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                '<' | '>' => self.redirection()?,
                '(' | ')' => return None,
                _ => self.word()?,
            }
        }
        self.end_command()
    }

    /// Ends the current simple command: its leading assignments dropped, checked for a reserved word.
    fn end_command(&mut self) -> Option<()> {
        let words = std::mem::take(&mut self.words);
        let words: Vec<String> = words.into_iter().skip_while(|(_, assignment)| *assignment).map(|(w, _)| w).collect();
        if let Some(first) = words.first() {
            if RESERVED.contains(&first.as_str()) {
                return None;
            }
            self.commands.push(words);
        }
        Some(())
    }

    /// A redirection (`>`, `>>`, `<`, `&>`, `2>&1`, `<<<`): it and its target are no words of the command. A
    /// here-document (`<<`) or a process substitution cannot be read statically.
    fn redirection(&mut self) -> Option<()> {
        let first = self.peek(0)?;
        self.at += 1;
        match (first, self.peek(0)) {
            ('<', Some('<')) if self.peek(1) == Some('<') => self.at += 2,
            ('<', Some('<')) => return None,
            (_, Some('(')) => return None,
            ('>', Some('>' | '|')) | ('<', Some('>')) => self.at += 1,
            _ => {}
        }
        if self.peek(0) == Some('&') {
            self.at += 1;
        }
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.at += 1;
        }
        // The target: one word (a file, or a descriptor after `>&`), read and dropped.
        let before = self.words.len();
        if matches!(self.peek(0), Some(c) if !matches!(c, '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')')) {
            self.word()?;
            self.words.truncate(before);
        }
        Some(())
    }

    /// One word: unquoted, single- and double-quoted parts and backslash escapes, up to a blank or an operator.
    fn word(&mut self) -> Option<()> {
        let mut text = String::new();
        let mut raw_unquoted_name = true;
        let mut assignment = false;
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' if text.is_empty() || text.bytes().all(|b| b.is_ascii_digit()) => {
                    // `2>`: the digits are the descriptor, not a word.
                    return self.redirection();
                }
                '<' | '>' => break,
                '$' | '`' | '{' | '}' => return None,
                '\\' => {
                    self.at += 1;
                    match self.peek(0) {
                        Some('\n') => {}
                        Some(escaped) => text.push(escaped),
                        None => text.push('\\'),
                    }
                    self.at += 1;
                    raw_unquoted_name = false;
                }
                '\'' => {
                    self.at += 1;
                    loop {
                        let c = self.peek(0)?;
                        self.at += 1;
                        if c == '\'' {
                            break;
                        }
                        text.push(c);
                    }
                    raw_unquoted_name = false;
                }
                '"' => {
                    self.double_quoted(&mut text)?;
                    raw_unquoted_name = false;
                }
                '=' if raw_unquoted_name && !assignment && is_name(&text) => {
                    assignment = true;
                    text.push('=');
                    self.at += 1;
                }
                c => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
        // Only words before the program are assignments; `git commit -m a=b` keeps its `a=b`.
        let assignment = assignment && self.words.iter().all(|(_, a)| *a);
        self.words.push((text, assignment));
        Some(())
    }

    /// A double-quoted part: `\` escapes `"`, `\`, `$`, `` ` `` and a newline; an expansion cannot be read.
    fn double_quoted(&mut self, text: &mut String) -> Option<()> {
        self.at += 1;
        loop {
            let c = self.peek(0)?;
            self.at += 1;
            match c {
                '"' => return Some(()),
                '$' | '`' => return None,
                '\\' => match self.peek(0)? {
                    '\n' => self.at += 1,
                    escaped @ ('"' | '\\' | '$' | '`') => {
                        text.push(escaped);
                        self.at += 1;
                    }
                    _ => text.push('\\'),
                },
                c => text.push(c),
            }
        }
    }
}

/// Whether `text` is a shell variable name.
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simple(command: &str) -> Option<Vec<String>> {
        simple_commands(command).map(|cs| cs.into_iter().map(|c| c.join(" ")).collect())
    }

    #[test]
    fn splits_on_operators_and_unquotes_words() {
        assert_eq!(simple("ls && git push origin").unwrap(), ["ls", "git push origin"]);
        assert_eq!(simple("FOO=bar BAZ='a b' git push").unwrap(), ["git push"]);
        assert_eq!(simple("git commit -m a=b").unwrap(), ["git commit -m a=b"]);
        assert_eq!(simple("git 'push' \"--force\"").unwrap(), ["git push --force"]);
        assert_eq!(simple("a | b; c || d & e\nf").unwrap(), ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(simple("echo hi > out.txt 2>&1").unwrap(), ["echo hi"]);
        assert_eq!(simple("cat <<< word").unwrap(), ["cat"]);
        assert_eq!(simple("g\\it push # comment").unwrap(), ["git push"]);
        assert_eq!(simple("").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn what_cannot_be_read_statically_is_none() {
        for command in [
            "echo $(git push)",
            "echo `id`",
            "$CMD push",
            "echo \"$HOME\"",
            "(git push)",
            "cat <<EOF\nx\nEOF",
            "diff <(a) <(b)",
            "if true; then git push; fi",
            "{ git push; }",
            "echo \u{a0}x",
            "echo 'unterminated",
        ] {
            assert_eq!(simple(command), None, "{command}");
        }
    }
}
