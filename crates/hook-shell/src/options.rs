//! Option syntax: the wrappers' own options skipped, and the arguments of programs whose syntax is known
//! normalised (`-rf` → `-r -f`, `--opt=value` → `--opt value`, `--forc` → `--force`).

/// The option syntax of one program (getopt style: short clusters, long options with `=` or a separate value).
#[derive(Debug)]
pub(crate) struct Syntax {
    /// Short options that take no value.
    pub short_flags: &'static str,
    /// Short options that take a value (the rest of the cluster, or the next word).
    pub short_values: &'static str,
    /// Short options whose value is optional and only ever attached (`xargs -i{}`).
    pub short_optional: &'static str,
    /// Long options that take no value (without their `--`).
    pub long_flags: &'static [&'static str],
    /// Long options that take a value.
    pub long_values: &'static [&'static str],
    /// Whether options may follow operands (GNU `rm a -f`); else the first operand ends the options.
    pub permute: bool,
}

/// What [`Syntax::skip`] read: where the operands start, and the options met.
#[derive(Debug, Default)]
pub(crate) struct Options {
    /// The index of the first operand (the words' length when there is none).
    pub operand: usize,
    /// The options met, as `-x` or `--name`, each with its value if it took one.
    pub seen: Vec<(String, Option<String>)>,
}

impl Options {
    pub(crate) fn has(&self, option: &str) -> bool {
        self.seen.iter().any(|(o, _)| o == option)
    }
}

impl Syntax {
    /// Reads the options of a wrapper from `words[start..]` up to its first operand; `None` for an option it does
    /// not have or a missing value.
    pub(crate) fn skip(&self, words: &[String], start: usize) -> Option<Options> {
        let mut options = Options { operand: words.len(), seen: Vec::new() };
        let mut at = start;
        while let Some(word) = words.get(at) {
            if word == "--" {
                options.operand = at + 1;
                return Some(options);
            }
            if let Some(long) = word.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value.to_owned())),
                    None => (long, None),
                };
                let (name, takes_value) = self.long(name)?;
                let value = match (takes_value, inline) {
                    (true, Some(value)) => Some(value),
                    (true, None) => {
                        at += 1;
                        Some(words.get(at)?.clone())
                    }
                    (false, _) => None,
                };
                options.seen.push((format!("--{name}"), value));
            } else if word.len() > 1 && word.starts_with('-') {
                at = self.cluster(words, at, &mut options)?;
            } else {
                options.operand = at;
                return Some(options);
            }
            at += 1;
        }
        Some(options)
    }

    /// One short cluster (`-xvf file`); answers the index of its last word.
    fn cluster(&self, words: &[String], mut at: usize, options: &mut Options) -> Option<usize> {
        let cluster = &words[at][1..];
        for (i, c) in cluster.char_indices() {
            if self.short_optional.contains(c) {
                let rest = &cluster[i + c.len_utf8()..];
                options.seen.push((format!("-{c}"), (!rest.is_empty()).then(|| rest.to_owned())));
                return Some(at);
            }
            if self.short_values.contains(c) {
                let rest = &cluster[i + c.len_utf8()..];
                let value = if rest.is_empty() {
                    at += 1;
                    words.get(at)?.clone()
                } else {
                    rest.to_owned()
                };
                options.seen.push((format!("-{c}"), Some(value)));
                return Some(at);
            }
            if !self.short_flags.contains(c) {
                return None;
            }
            options.seen.push((format!("-{c}"), None));
        }
        Some(at)
    }

    /// The long option `name` stands for (itself, or the one option it is an abbreviation of), and whether it
    /// takes a value.
    fn long(&self, name: &str) -> Option<(&'static str, bool)> {
        let all = self.long_flags.iter().map(|o| (*o, false)).chain(self.long_values.iter().map(|o| (*o, true)));
        if let Some(exact) = all.clone().find(|(o, _)| *o == name) {
            return Some(exact);
        }
        let mut candidates = all.filter(|(o, _)| !name.is_empty() && o.starts_with(name));
        let first = candidates.next()?;
        candidates.next().is_none().then_some(first)
    }

    /// The arguments normalised: short clusters split, `--opt=value` split, abbreviations spelled out; an option
    /// this syntax does not know is kept as written.
    pub(crate) fn normalise(&self, args: &[String]) -> Vec<String> {
        let mut out = Vec::with_capacity(args.len());
        let mut at = 0;
        let mut options_end = false;
        while let Some(word) = args.get(at) {
            at += 1;
            if options_end || word == "-" || !word.starts_with('-') {
                if !self.permute && !options_end {
                    options_end = true;
                }
                out.push(word.clone());
                continue;
            }
            if word == "--" {
                options_end = true;
                out.push(word.clone());
                continue;
            }
            if let Some(long) = word.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (long, None),
                };
                match self.long(name) {
                    Some((full, takes_value)) => {
                        out.push(format!("--{full}"));
                        if let Some(value) = inline {
                            out.push(value.to_owned());
                        } else if takes_value && let Some(value) = args.get(at) {
                            out.push(value.clone());
                            at += 1;
                        }
                    }
                    None => out.push(word.clone()),
                }
                continue;
            }
            at = self.split_cluster(args, at, &mut out);
        }
        out
    }

    /// Splits the short cluster just before `at` into `out`; answers where the next word is.
    fn split_cluster(&self, args: &[String], mut at: usize, out: &mut Vec<String>) -> usize {
        let word = &args[at - 1];
        let cluster = &word[1..];
        if !cluster.chars().all(|c| self.short_flags.contains(c) || self.short_values.contains(c)) {
            // A cluster with a letter this syntax does not know (or a number, `-5`): kept as written, so a pattern
            // written against the raw spelling still matches.
            if let Some(first) = cluster.chars().next().filter(|c| self.short_values.contains(*c)) {
                out.push(format!("-{first}"));
                out.push(cluster[first.len_utf8()..].to_owned());
            } else {
                out.push(word.clone());
            }
            return at;
        }
        for (i, c) in cluster.char_indices() {
            out.push(format!("-{c}"));
            if self.short_values.contains(c) {
                let rest = &cluster[i + c.len_utf8()..];
                if !rest.is_empty() {
                    out.push(rest.to_owned());
                } else if let Some(value) = args.get(at) {
                    out.push(value.clone());
                    at += 1;
                }
                break;
            }
        }
        at
    }
}

/// `rm` (GNU coreutils and BSD: every option a flag).
const RM: Syntax = Syntax {
    short_flags: "fiIrRdvPWx",
    short_values: "",
    short_optional: "",
    long_flags: &[
        "force",
        "interactive",
        "one-file-system",
        "no-preserve-root",
        "preserve-root",
        "recursive",
        "dir",
        "verbose",
        "help",
        "version",
    ],
    long_values: &[],
    permute: true,
};

/// `shred`.
const SHRED: Syntax = Syntax {
    short_flags: "fuvxz",
    short_values: "ns",
    short_optional: "",
    long_flags: &["force", "remove", "verbose", "exact", "zero", "help", "version"],
    long_values: &["iterations", "random-source", "size"],
    permute: true,
};

/// `chmod` and `chown` (their mode or owner is an operand).
const CHMOD: Syntax = Syntax {
    short_flags: "cfvRHLP",
    short_values: "",
    short_optional: "",
    long_flags: &[
        "changes",
        "silent",
        "quiet",
        "verbose",
        "no-preserve-root",
        "preserve-root",
        "recursive",
        "dereference",
        "no-dereference",
        "help",
        "version",
    ],
    long_values: &["reference", "from"],
    permute: true,
};

/// `curl` (the options a guard looks at; any other keeps its spelling).
const CURL: Syntax = Syntax {
    short_flags: "fsSLkIOvigGjJlnqR#0123469BMNpZ",
    short_values: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
    short_optional: "",
    long_flags: &["fail", "silent", "show-error", "location", "insecure", "head", "remote-name", "verbose"],
    long_values: &[
        "data",
        "data-binary",
        "data-raw",
        "data-urlencode",
        "form",
        "header",
        "output",
        "request",
        "upload-file",
        "user",
        "url",
        "user-agent",
        "config",
    ],
    permute: true,
};

/// `wget`.
const WGET: Syntax = Syntax {
    short_flags: "qvnNcSrpkKmxEhV",
    short_values: "OoaPiUtTwlAReBD",
    short_optional: "",
    long_flags: &["quiet", "verbose", "no-verbose", "continue", "recursive", "mirror"],
    long_values: &["output-document", "output-file", "directory-prefix", "input-file", "user-agent", "header"],
    permute: true,
};

/// git's global options, before the subcommand.
pub(crate) const GIT_GLOBAL: Syntax = Syntax {
    short_flags: "pPhv",
    short_values: "cC",
    short_optional: "",
    long_flags: &[
        "paginate",
        "no-pager",
        "bare",
        "no-replace-objects",
        "no-lazy-fetch",
        "no-optional-locks",
        "no-advice",
        "literal-pathspecs",
        "glob-pathspecs",
        "noglob-pathspecs",
        "icase-pathspecs",
        "html-path",
        "man-path",
        "info-path",
        "version",
        "help",
    ],
    long_values: &[
        "git-dir",
        "work-tree",
        "namespace",
        "exec-path",
        "config-env",
        "super-prefix",
        "list-cmds",
        "attr-source",
    ],
    permute: false,
};

/// The subcommands of git whose options are known; others keep their spelling.
fn git_subcommand(name: &str) -> Option<&'static Syntax> {
    const PUSH: Syntax = Syntax {
        short_flags: "fnquvd46",
        short_values: "o",
        short_optional: "",
        long_flags: &[
            "all",
            "branches",
            "mirror",
            "delete",
            "tags",
            "follow-tags",
            "force",
            "force-if-includes",
            "no-force-if-includes",
            "set-upstream",
            "thin",
            "no-thin",
            "prune",
            "verbose",
            "quiet",
            "progress",
            "no-progress",
            "porcelain",
            "dry-run",
            "no-verify",
            "verify",
            "atomic",
            "no-atomic",
            "signed",
            "no-signed",
            "ipv4",
            "ipv6",
            "force-with-lease",
            "no-force-with-lease",
        ],
        long_values: &["repo", "push-option", "receive-pack", "exec", "recurse-submodules"],
        permute: true,
    };
    const RESET: Syntax = Syntax {
        short_flags: "qpN",
        short_values: "",
        short_optional: "",
        long_flags: &["hard", "soft", "mixed", "merge", "keep", "quiet", "patch", "recurse-submodules", "no-refresh"],
        long_values: &["pathspec-from-file"],
        permute: true,
    };
    const CLEAN: Syntax = Syntax {
        short_flags: "dfinqxX",
        short_values: "e",
        short_optional: "",
        long_flags: &["force", "interactive", "dry-run", "quiet"],
        long_values: &["exclude"],
        permute: true,
    };
    const BRANCH: Syntax = Syntax {
        short_flags: "dDfmMcCrailvqt",
        short_values: "u",
        short_optional: "",
        long_flags: &["delete", "force", "move", "copy", "remotes", "all", "list", "verbose", "quiet", "track"],
        long_values: &["set-upstream-to", "contains", "merged", "no-merged", "points-at", "sort", "format"],
        permute: true,
    };
    const CHECKOUT: Syntax = Syntax {
        short_flags: "qfmp",
        short_values: "bB",
        short_optional: "",
        long_flags: &["quiet", "force", "merge", "detach", "patch", "ours", "theirs", "orphan"],
        long_values: &["conflict", "pathspec-from-file"],
        permute: true,
    };
    const COMMIT: Syntax = Syntax {
        short_flags: "aspnqvzeiox",
        short_values: "mFcCtS",
        short_optional: "",
        long_flags: &["all", "amend", "no-verify", "no-edit", "signoff", "dry-run", "quiet", "verbose", "allow-empty"],
        long_values: &["message", "file", "reedit-message", "reuse-message", "template", "author", "date", "fixup"],
        permute: true,
    };
    const REBASE: Syntax = Syntax {
        short_flags: "ifkmnqv",
        short_values: "xsX",
        short_optional: "",
        long_flags: &["interactive", "force-rebase", "root", "continue", "abort", "skip", "quit", "autosquash"],
        long_values: &["onto", "exec", "strategy", "strategy-option"],
        permute: true,
    };
    match name {
        "push" => Some(&PUSH),
        "reset" => Some(&RESET),
        "clean" => Some(&CLEAN),
        "branch" => Some(&BRANCH),
        "checkout" => Some(&CHECKOUT),
        "commit" => Some(&COMMIT),
        "rebase" => Some(&REBASE),
        _ => None,
    }
}

/// The arguments of `program` normalised where its option syntax is known; as written where it is not.
pub(crate) fn normalise(program: &str, args: &[String]) -> Vec<String> {
    let syntax = match program {
        "rm" => &RM,
        "shred" => &SHRED,
        "chmod" | "chown" | "chgrp" => &CHMOD,
        "curl" => &CURL,
        "wget" => &WGET,
        "git" => return git(args),
        _ => return args.to_vec(),
    };
    syntax.normalise(args)
}

/// git's sub-programs that can be run on their own as `git-<name>` (from git's exec-path).
pub(crate) const GIT_SUBCOMMANDS: &[&str] = &[
    "push",
    "reset",
    "clean",
    "checkout",
    "restore",
    "rebase",
    "branch",
    "tag",
    "commit",
    "filter-branch",
    "filter-repo",
    "gc",
    "prune",
    "reflog",
    "update-ref",
    "send-pack",
    "stash",
    "switch",
    "merge",
    "pull",
    "fetch",
    "add",
    "rm",
    "mv",
    "show",
    "cat-file",
    "config",
    "remote",
    "worktree",
    "submodule",
    "am",
    "apply",
    "cherry-pick",
    "revert",
    "replace",
    "notes",
    "symbolic-ref",
    "read-tree",
    "checkout-index",
    "archive",
    "bundle",
    "clone",
];

/// git: the global options left out, the subcommand first, its options normalised where known.
fn git(args: &[String]) -> Vec<String> {
    let start = match GIT_GLOBAL.skip(args, 0) {
        Some(options) => options.operand,
        None => return args.to_vec(),
    };
    let Some(subcommand) = args.get(start) else { return Vec::new() };
    let mut out = vec![subcommand.clone()];
    match git_subcommand(subcommand) {
        Some(syntax) => out.extend(syntax.normalise(&args[start + 1..])),
        None => out.extend_from_slice(&args[start + 1..]),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn known_syntax_is_normalised() {
        assert_eq!(normalise("rm", &words("-rf /")), words("-r -f /"));
        assert_eq!(normalise("rm", &words("--recur --forc x -- -f")), words("--recursive --force x -- -f"));
        assert_eq!(normalise("git", &words("-c a=b -C dir push -fu origin")), words("push -f -u origin"));
        assert_eq!(
            normalise("git", &words("--git-dir=x push --force-with-lease=main")),
            words("push --force-with-lease main")
        );
        assert_eq!(normalise("git", &words("commit -am msg")), words("commit -a -m msg"));
        assert_eq!(normalise("git", &words("commit -mfix")), words("commit -m fix"));
        assert_eq!(normalise("ls", &words("-la")), words("-la"));
    }
}
