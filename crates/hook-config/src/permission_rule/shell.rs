//! A shell rule (`Bash(git push *)`, `shell(git push *)`) against a command line.
//!
//! Claude Code tests a shell rule against each simple command of the line, its words unquoted and joined by one
//! space: `ls && FOO=1 git push origin` holds the simple commands `ls` and `git push origin`, and the hook runs
//! when any one of them matches. This reading is stricter (docs/shell-commands.md#permission-rules): the line is
//! read by `hook-shell`, so a command run through `sudo`, `env`, `xargs`, `bash -c`, a command substitution or a
//! subshell, or named by an absolute path, is tested too. A line or an argument it cannot read statically (`eval`,
//! a variable) matches every rule, so the hook runs and decides itself: a guard is never skipped for a spelling
//! this reading does not follow.
//!
//! [`command_matches`] is the one entry point.

use super::wildcard::Wildcard;

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

/// Whether a shell rule's pattern matches the command line `command`: any of the simple commands it runs matches
/// (read by `hook-shell`: wrappers such as `sudo` and `env`, absolute paths, quoting, `bash -c` scripts and command
/// substitutions resolved), or part of the line cannot be read statically.
///
/// Each command is compared three ways, and any one matching is a match: its words as written (`argv`, Claude
/// Code's own comparison), the same with the program's bare name (`/usr/bin/git push` as `git push`), and the
/// program with its normalised arguments (`git -C repo push -f` as `git push -f`).
pub(crate) fn command_matches(pattern: &ShellPattern, command: &str) -> bool {
    let analysis = hook_shell::parse(command, &hook_shell::Limits::default());
    if !analysis.is_known() {
        return true;
    }
    analysis.commands.iter().any(|simple| {
        // An argument only run time knows could be anything the rule names.
        simple.dynamic || simple_matches(pattern, simple)
    })
}

/// Why an allow of a hook scoped by this rule cannot stand on the line `analysis` reads: the line holds a command
/// the rule does not match, or a part that cannot be read; `None` when every command it runs matches. Claude Code
/// holds its own permission rules to every command of a line the same way.
pub(crate) fn allow_breaker(pattern: &ShellPattern, analysis: &hook_shell::Analysis) -> Option<String> {
    use crate::shell_command::{shown, unread};
    if let Some(unknown) = analysis.unknown.first() {
        return Some(unread(unknown));
    }
    analysis.commands.iter().find_map(|simple| {
        let text = || shown(&simple.argv.join(" "));
        if simple.dynamic {
            Some(format!("`{}` has words known only at run time", text()))
        } else if !simple_matches(pattern, simple) {
            Some(format!("`{}` does not match the rule", text()))
        } else {
            None
        }
    })
}

/// Whether one simple command matches, compared three ways (see [`command_matches`]).
fn simple_matches(pattern: &ShellPattern, simple: &hook_shell::Command) -> bool {
    let written = simple.argv.join(" ");
    let named = std::iter::once(simple.program.as_str()).chain(simple.argv[1..].iter().map(String::as_str));
    let normalised = std::iter::once(simple.program.as_str()).chain(simple.args.iter().map(String::as_str));
    pattern.matches_simple(&written)
        || pattern.matches_simple(&named.collect::<Vec<_>>().join(" "))
        || pattern.matches_simple(&normalised.collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(rule: &str, command: &str) -> bool {
        command_matches(&ShellPattern::new(rule), command)
    }

    #[test]
    fn each_command_the_line_runs_is_tested() {
        assert!(matches("git push *", "ls && git push origin"));
        assert!(matches("git push *", "FOO=bar git push"));
        assert!(!matches("git push *", "git commit -m 'git push'"));
        assert!(matches("git push *", "sudo /usr/bin/git -C repo push -f"));
        assert!(matches("git push *", "bash -c 'git push --force'"));
        assert!(matches("git push *", "(cd x; git push)"));
        assert!(matches("git push:*", "echo origin | xargs git push"));
        assert!(!matches("git push *", "cat <<EOF\ngit push\nEOF"));
    }

    #[test]
    fn an_allow_stands_only_when_every_command_matches() {
        let breaker = |rule: &str, command: &str| {
            allow_breaker(&ShellPattern::new(rule), &hook_shell::parse(command, &hook_shell::Limits::default()))
        };
        assert_eq!(breaker("ls *", "ls -la"), None);
        assert_eq!(breaker("ls:*", "ls -la | ls"), None);
        assert_eq!(breaker("ls *", "ls && rm -rf ~").as_deref(), Some("`rm -rf ~` does not match the rule"));
        assert_eq!(breaker("ls *", "ls $(rm -rf ~)").as_deref(), Some("`rm -rf ~` does not match the rule"));
        assert!(breaker("ls *", "ls \"$D\"").unwrap().contains("known only at run time"));
        assert!(breaker("ls *", "ls; eval \"$X\"").unwrap().starts_with("part of the line cannot be read"));
    }

    #[test]
    fn what_cannot_be_read_statically_matches() {
        for command in ["$CMD push", "eval \"$X\"", "git $SUB", "source env.sh", "echo 'unterminated"] {
            assert!(matches("git push *", command), "{command}");
        }
    }
}
