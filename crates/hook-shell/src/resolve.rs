//! From a simple command's words to the program that runs: wrappers unwrapped, nested scripts read, what cannot be
//! known statically reported.

use brush_parser::{ParserOptions, Token};

use crate::options::{self, Syntax};
use crate::walk::Stdin;
use crate::word::Word;
use crate::{Analysis, Command, Limits, Redirection, Unknown, UnknownReason};

/// The most parenthesis operators (subshells, `((`, `$((`, `<(`) one script may hold; brush's parser takes time
/// exponential in their number (12 take a few milliseconds, 36 several seconds).
const MAX_PAREN_OPERATORS: usize = 12;

/// The longest text an [`Unknown`] keeps.
const UNKNOWN_TEXT_CHARS: usize = 200;

/// The state of one reading.
pub(crate) struct Reader<'l> {
    limits: &'l Limits,
    pub(crate) options: ParserOptions,
    out: Analysis,
    /// How deeply compound commands nest where the walk is now.
    nesting: usize,
    /// The text of the script being walked.
    source: String,
}

/// Where a command sits: how deep in nested scripts, through which wrappers, after which program in a pipeline.
#[derive(Debug, Clone, Default)]
pub(crate) struct Context {
    pub depth: usize,
    pub via: Vec<String>,
    pub piped_from: Option<String>,
    /// The files opened by the redirections around the command (its own, its compound commands').
    pub redirects: Vec<Redirection>,
}

/// What a wrapper's words come to.
enum Step {
    /// The program is the word at this index, run through the named wrapper.
    Unwrap(usize, &'static str),
    /// The words are the command itself.
    Command,
    /// Handled in full (a nested script read, an unknown reported).
    Done,
}

impl<'l> Reader<'l> {
    pub(crate) fn new(limits: &'l Limits) -> Self {
        Reader {
            limits,
            options: ParserOptions::default(),
            out: Analysis::default(),
            nesting: 0,
            source: String::new(),
        }
    }

    pub(crate) fn finish(self) -> Analysis {
        self.out
    }

    /// Reads one script (the line, or a script it runs) and walks it.
    pub(crate) fn script(&mut self, text: &str, cx: &Context) {
        if text.len() > self.limits.max_bytes {
            return self.unknown(UnknownReason::TooLong, text);
        }
        // A control character other than a tab or a line end: brush's tokenizer grows without bound on some (a
        // here-document whose delimiter starts with a form feed took 2.6 GB under the fuzzer), and no command line
        // an agent writes needs one.
        if text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || overflowing_descriptor(text)
            || empty_heredoc_delimiter(text)
        {
            return self.unknown(UnknownReason::Syntax, text);
        }
        let mut parsed = true;
        let outer = std::mem::replace(&mut self.source, text.to_owned());
        let mut too_many_parens = false;
        let read = crate::stack::with_room(text, || {
            let Ok(tokens) = brush_parser::tokenize_str_with_options(text, &self.options.tokenizer_options()) else {
                parsed = false;
                return;
            };
            // brush's parser backtracks on parentheses (a subshell or arithmetic?), in time exponential in their
            // number: more than a command line needs are refused before it sees them.
            let parens = tokens.iter().filter(|t| matches!(t, Token::Operator(op, _) if op.contains('('))).count();
            if parens > MAX_PAREN_OPERATORS {
                too_many_parens = true;
                return;
            }
            match brush_parser::parse_tokens(&tokens, &self.options) {
                Ok(program) => self.program(&program, cx),
                Err(_) => parsed = false,
            }
        });
        self.source = outer;
        if too_many_parens {
            self.unknown(UnknownReason::TooDeep, text);
        } else if !read || !parsed {
            self.unknown(UnknownReason::Syntax, text);
        }
    }

    /// The text of the script being walked at `span` (character positions).
    pub(crate) fn written(&self, span: &brush_parser::SourceSpan) -> String {
        self.source.chars().skip(span.start.index).take(span.end.index.saturating_sub(span.start.index)).collect()
    }

    /// A script run by the line (`bash -c`, a substitution, a here-document fed to a shell), one level deeper.
    pub(crate) fn nested(&mut self, text: &str, cx: &Context, wrapper: Option<&str>) {
        if cx.depth >= self.limits.max_depth {
            return self.unknown(UnknownReason::TooDeep, text);
        }
        let mut inner = Context { depth: cx.depth + 1, ..cx.clone() };
        inner.via.extend(wrapper.map(str::to_owned));
        self.script(text, &inner);
    }

    pub(crate) fn unknown(&mut self, reason: UnknownReason, text: &str) {
        let text = text.chars().take(UNKNOWN_TEXT_CHARS).collect();
        self.out.unknown.push(Unknown { reason, text });
    }

    pub(crate) fn count(&self) -> usize {
        self.out.commands.len()
    }

    pub(crate) fn last_program_since(&self, first: usize) -> Option<String> {
        self.out.commands.get(first..)?.last().map(|c| c.program.clone())
    }

    /// One compound level deeper; false (and reported once) past the bound.
    pub(crate) fn enter(&mut self) -> bool {
        if self.nesting >= self.limits.max_nesting {
            if !self.out.unknown.iter().any(|u| u.reason == UnknownReason::TooDeep) {
                self.unknown(UnknownReason::TooDeep, "");
            }
            return false;
        }
        self.nesting += 1;
        true
    }

    pub(crate) fn leave(&mut self) {
        self.nesting -= 1;
    }

    /// A simple command's words: wrappers unwrapped until the program that runs.
    pub(crate) fn resolve(&mut self, words: Vec<Word>, cx: &Context, stdin: Option<Stdin>) {
        let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
        let mut cx = cx.clone();
        let mut start = 0;
        while let Some(program) = words.get(start) {
            if program.dynamic {
                return self.unknown(UnknownReason::DynamicProgram, &texts[start..].join(" "));
            }
            if program.pattern {
                return self.unknown(UnknownReason::PatternProgram, &texts[start..].join(" "));
            }
            match self.step(&words, &texts, start, &cx, stdin.as_ref()) {
                Step::Unwrap(next, wrapper) if next < words.len() => {
                    cx.via.push(wrapper.to_owned());
                    start = next;
                }
                Step::Unwrap(..) | Step::Command => return self.push(&words[start..], &cx),
                Step::Done => return,
            }
        }
    }

    fn push(&mut self, words: &[Word], cx: &Context) {
        if self.out.commands.len() >= self.limits.max_commands {
            if !self.out.unknown.iter().any(|u| u.reason == UnknownReason::TooMany) {
                self.unknown(UnknownReason::TooMany, &words[0].text);
            }
            return;
        }
        let argv: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
        let program = basename(&argv[0]).to_owned();
        let args = options::normalise(&program, &argv[1..]);
        let unresolved: Vec<String> = words[1..].iter().filter(|w| w.dynamic).map(|w| w.text.clone()).collect();
        let globs = words[1..].iter().filter(|w| w.pattern && !w.dynamic).map(|w| w.text.clone()).collect();
        self.out.commands.push(Command {
            program,
            args,
            dynamic: !unresolved.is_empty() || cx.redirects.iter().any(|r| !r.known),
            unresolved,
            globs,
            argv,
            via: cx.via.clone(),
            piped_from: cx.piped_from.clone(),
            redirects: cx.redirects.clone(),
        });
    }

    /// What the program at `start` comes to.
    fn step(&mut self, words: &[Word], texts: &[String], start: usize, cx: &Context, stdin: Option<&Stdin>) -> Step {
        let name = basename(&texts[start]);
        let wrapper = |syntax: &Syntax, wrapper: &'static str, reader: &mut Self| match syntax.skip(texts, start + 1) {
            Some(options) => Step::Unwrap(options.operand, wrapper),
            None => reader.wrapper_error(texts, start),
        };
        match name {
            "builtin" | "nohup" | "busybox" => {
                Step::Unwrap(start + 1 + usize::from(texts.get(start + 1).is_some_and(|w| w == "--")), name_of(name))
            }
            "command" => match COMMAND.skip(texts, start + 1) {
                Some(o) if o.has("-v") || o.has("-V") => Step::Command,
                Some(o) => Step::Unwrap(o.operand, "command"),
                None => self.wrapper_error(texts, start),
            },
            "exec" => wrapper(&EXEC, "exec", self),
            "nice" => wrapper(&NICE, "nice", self),
            "setsid" => wrapper(&SETSID, "setsid", self),
            "stdbuf" => wrapper(&STDBUF, "stdbuf", self),
            "ionice" => wrapper(&IONICE, "ionice", self),
            "time" => wrapper(&TIME, "time", self),
            "timeout" => match TIMEOUT.skip(texts, start + 1) {
                Some(o) => Step::Unwrap(o.operand + 1, "timeout"),
                None => self.wrapper_error(texts, start),
            },
            "sudo" | "doas" => self.sudo(name, texts, start),
            "env" => self.env(words, texts, start, cx),
            "xargs" => wrapper(&XARGS, "xargs", self),
            "find" => self.find(words, texts, start, cx),
            "eval" => self.eval(words, texts, start, cx),
            "source" | "." => {
                self.unknown(UnknownReason::Source, &texts[start..].join(" "));
                Step::Done
            }
            "alias" if texts[start + 1..].iter().any(|w| w.contains('=')) => {
                self.unknown(UnknownReason::Alias, &texts[start..].join(" "));
                Step::Done
            }
            "git" => self.git(words, texts, start, cx),
            "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "posh" | "fish" => {
                self.shell(words, texts, start, cx, stdin)
            }
            _ => Step::Command,
        }
    }

    fn wrapper_error(&mut self, texts: &[String], start: usize) -> Step {
        self.unknown(UnknownReason::Wrapper, &texts[start..].join(" "));
        Step::Done
    }

    /// `sudo` and `doas`: their options, then `NAME=value` words, then the program; without one, a shell or a
    /// listing, which is the command itself.
    fn sudo(&mut self, name: &str, texts: &[String], start: usize) -> Step {
        let syntax = if name == "sudo" { &SUDO } else { &DOAS };
        let Some(options) = syntax.skip(texts, start + 1) else { return self.wrapper_error(texts, start) };
        if ["-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K", "-V"].iter().any(|o| options.has(o)) {
            return Step::Command;
        }
        let program = skip_assignments(texts, options.operand);
        Step::Unwrap(program, if name == "sudo" { "sudo" } else { "doas" })
    }

    /// `env`: options, `NAME=value` words, the program; `-S` splits its value into the program's words.
    fn env(&mut self, words: &[Word], texts: &[String], start: usize, cx: &Context) -> Step {
        let mut first = start + 1;
        if texts.get(first).is_some_and(|w| w == "-") {
            first += 1;
        }
        let Some(options) = ENV.skip(texts, first) else { return self.wrapper_error(texts, start) };
        let split = options.seen.iter().find(|(o, _)| o == "-S" || o == "--split-string");
        if let Some((_, Some(script))) = split {
            let rest: Vec<String> = texts[options.operand..].iter().map(|w| quote(w)).collect();
            if words[options.operand..].iter().any(|w| w.dynamic) {
                self.unknown(UnknownReason::DynamicProgram, &texts[start..].join(" "));
                return Step::Done;
            }
            self.nested(&format!("{script} {}", rest.join(" ")), cx, Some("env -S"));
            return Step::Done;
        }
        Step::Unwrap(skip_assignments(texts, options.operand), "env")
    }

    /// `find`: itself a command (`-delete` is one of its arguments), and each `-exec`/`-ok` a command of its own.
    fn find(&mut self, words: &[Word], texts: &[String], start: usize, cx: &Context) -> Step {
        self.push(&words[start..], cx);
        let mut at = start + 1;
        while at < texts.len() {
            if matches!(texts[at].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let end = (at + 1..texts.len()).find(|&i| texts[i] == ";" || texts[i] == "+").unwrap_or(texts.len());
                if end > at + 1 {
                    let inner = Context { via: [cx.via.clone(), vec!["find -exec".to_owned()]].concat(), ..cx.clone() };
                    self.resolve(words[at + 1..end].to_vec(), &inner, None);
                }
                at = end;
            }
            at += 1;
        }
        Step::Done
    }

    /// `eval`: its words joined are a script, read when every word is known.
    fn eval(&mut self, words: &[Word], texts: &[String], start: usize, cx: &Context) -> Step {
        if words[start + 1..].iter().any(|w| w.dynamic) {
            self.unknown(UnknownReason::Eval, &texts[start..].join(" "));
        } else {
            self.nested(&texts[start + 1..].join(" "), cx, Some("eval"));
        }
        Step::Done
    }

    /// git: an alias given on the line (`-c alias.p='!git push -f' p`) stands for what it names.
    fn git(&mut self, words: &[Word], texts: &[String], start: usize, cx: &Context) -> Step {
        let Some(options) = options::GIT_GLOBAL.skip(texts, start + 1) else { return Step::Command };
        let Some(subcommand) = texts.get(options.operand) else { return Step::Command };
        let key = format!("alias.{subcommand}=");
        let Some(alias) = options
            .seen
            .iter()
            .rev()
            .find_map(|(o, v)| (o == "-c").then_some(v.as_deref()).flatten().and_then(|v| v.strip_prefix(&key)))
        else {
            return Step::Command;
        };
        let rest: Vec<String> = texts[options.operand + 1..].iter().map(|w| quote(w)).collect();
        if words[options.operand + 1..].iter().any(|w| w.dynamic) {
            self.unknown(UnknownReason::DynamicProgram, &texts[start..].join(" "));
        } else if let Some(script) = alias.strip_prefix('!') {
            self.nested(&format!("{script} {}", rest.join(" ")), cx, Some("git alias"));
        } else {
            self.nested(&format!("git {alias} {}", rest.join(" ")), cx, Some("git alias"));
        }
        Step::Done
    }

    /// A shell: `-c` runs its script operand; without one it reads a file (a command like any other) or its
    /// standard input, whose here-document is read as its script.
    fn shell(&mut self, words: &[Word], texts: &[String], start: usize, cx: &Context, stdin: Option<&Stdin>) -> Step {
        let mut at = start + 1;
        let (mut command, mut from_stdin) = (false, false);
        while let Some(word) = texts.get(at) {
            if word == "--" || word == "-" {
                at += 1;
                break;
            }
            if let Some(long) = word.strip_prefix("--") {
                at += 1 + usize::from(matches!(long, "rcfile" | "init-file"));
                continue;
            }
            if word.len() < 2 || !(word.starts_with('-') || word.starts_with('+')) {
                break;
            }
            command |= word.contains('c');
            from_stdin |= word.contains('s');
            at += 1 + usize::from(word.contains(['o', 'O']));
        }
        if command {
            match words.get(at) {
                Some(script) if script.dynamic => {
                    self.unknown(UnknownReason::DynamicProgram, &texts[start..].join(" "))
                }
                Some(script) => self.nested(&script.text, cx, Some(shell_via(texts, start))),
                None => return Step::Command,
            }
            return Step::Done;
        }
        if at < texts.len() && !from_stdin {
            if words[at].dynamic {
                // `sh <(curl …)`, `bash "$SCRIPT"`: the script is only known at run time.
                self.unknown(UnknownReason::DynamicProgram, &texts[start..].join(" "));
                return Step::Done;
            }
            return Step::Command;
        }
        self.push(&words[start..], cx);
        match stdin {
            Some(Stdin::Script(script)) => self.nested(script, cx, Some(shell_via(texts, start))),
            // `… | sh`: the script arrives on a pipe, known only at run time.
            None if cx.piped_from.is_some() => self.unknown(UnknownReason::DynamicProgram, &texts[start..].join(" ")),
            None => {}
        }
        Step::Done
    }
}

fn shell_via(texts: &[String], start: usize) -> &'static str {
    match basename(&texts[start]) {
        "bash" => "bash",
        "zsh" => "zsh",
        _ => "sh",
    }
}

fn name_of(name: &str) -> &'static str {
    match name {
        "builtin" => "builtin",
        "nohup" => "nohup",
        _ => "busybox",
    }
}

/// Whether a redirection names a file descriptor past `i32` (`99999999999>x`), which brush's parser unwraps into a
/// panic (found by the fuzzer); the shell refuses such a descriptor too.
fn overflowing_descriptor(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut run = 0;
    for &b in bytes {
        if b.is_ascii_digit() {
            run += 1;
        } else {
            if run >= 10 && matches!(b, b'<' | b'>') {
                return true;
            }
            run = 0;
        }
    }
    false
}

/// Whether a here-document's delimiter is only quotes (`<<""`, `<<-''`): inside a group, brush's tokenizer asks for
/// gigabytes on one (found by the fuzzer), and no command line an agent writes has one.
fn empty_heredoc_delimiter(text: &str) -> bool {
    let quoted = quoted_bytes(text);
    text.match_indices("<<").filter(|(at, _)| !quoted[*at]).any(|(at, _)| {
        let rest = text[at + 2..].trim_start_matches('-').trim_start_matches([' ', '\t']);
        let word: String = rest.chars().take_while(|c| !c.is_whitespace() && !";&|()<>".contains(*c)).collect();
        !word.is_empty() && word.chars().all(|c| c == '"' || c == '\'')
    })
}

/// For each byte of `text`, whether it is inside quotes or escaped (a `<<` there is a word, not an operator).
fn quoted_bytes(text: &str) -> Vec<bool> {
    let bytes = text.as_bytes();
    let mut quoted = vec![false; bytes.len()];
    let (mut single, mut double, mut escaped) = (false, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        quoted[i] = single || double || escaped;
        if escaped {
            escaped = false;
        } else if single {
            single = b != b'\'';
        } else if b == b'\\' {
            escaped = true;
        } else if double {
            double = b != b'"';
        } else if b == b'\'' {
            single = true;
        } else if b == b'"' {
            double = true;
        }
    }
    quoted
}

/// The index of the first word at or after `at` that is not a `NAME=value` assignment.
fn skip_assignments(texts: &[String], mut at: usize) -> usize {
    while texts.get(at).is_some_and(|w| w.split_once('=').is_some_and(|(name, _)| is_name(name))) {
        at += 1;
    }
    at
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The last component of a path (`/usr/bin/git` → `git`).
pub(crate) fn basename(path: &str) -> &str {
    match path.trim_end_matches('/').rsplit('/').next() {
        Some(name) if !name.is_empty() => name,
        _ => path,
    }
}

/// A word quoted for a script that is read again (single quotes, `'` as `'\''`).
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

const COMMAND: Syntax = Syntax {
    short_flags: "pvV",
    short_values: "",
    short_optional: "",
    long_flags: &[],
    long_values: &[],
    permute: false,
};
const EXEC: Syntax = Syntax {
    short_flags: "cl",
    short_values: "a",
    short_optional: "",
    long_flags: &[],
    long_values: &[],
    permute: false,
};
const NICE: Syntax = Syntax {
    short_flags: "0123456789",
    short_values: "n",
    short_optional: "",
    long_flags: &[],
    long_values: &["adjustment"],
    permute: false,
};
const SETSID: Syntax = Syntax {
    short_flags: "cfw",
    short_values: "",
    short_optional: "",
    long_flags: &["ctty", "fork", "wait"],
    long_values: &[],
    permute: false,
};
const STDBUF: Syntax = Syntax {
    short_flags: "",
    short_values: "ioe",
    short_optional: "",
    long_flags: &[],
    long_values: &["input", "output", "error"],
    permute: false,
};
const IONICE: Syntax = Syntax {
    short_flags: "t",
    short_values: "cn",
    short_optional: "",
    long_flags: &["ignore"],
    long_values: &["class", "classdata"],
    permute: false,
};
const TIME: Syntax = Syntax {
    short_flags: "pvaq",
    short_values: "fo",
    short_optional: "",
    long_flags: &["portability", "verbose", "append", "quiet"],
    long_values: &["format", "output"],
    permute: false,
};
const TIMEOUT: Syntax = Syntax {
    short_flags: "v",
    short_values: "ks",
    short_optional: "",
    long_flags: &["foreground", "preserve-status", "verbose"],
    long_values: &["kill-after", "signal"],
    permute: false,
};
const SUDO: Syntax = Syntax {
    short_flags: "AbBEeHiKklnPSsVv",
    short_values: "ugCDhprtTUR",
    short_optional: "",
    long_flags: &[
        "askpass",
        "background",
        "bell",
        "preserve-env",
        "edit",
        "set-home",
        "login",
        "remove-timestamp",
        "reset-timestamp",
        "list",
        "non-interactive",
        "preserve-groups",
        "stdin",
        "shell",
        "version",
        "validate",
    ],
    long_values: &[
        "user",
        "group",
        "close-from",
        "chdir",
        "host",
        "prompt",
        "role",
        "type",
        "other-user",
        "command-timeout",
        "chroot",
    ],
    permute: false,
};
const DOAS: Syntax = Syntax {
    short_flags: "nSs",
    short_values: "Cu",
    short_optional: "",
    long_flags: &[],
    long_values: &[],
    permute: false,
};
const ENV: Syntax = Syntax {
    short_flags: "i0v",
    short_values: "uCS",
    short_optional: "",
    long_flags: &[
        "ignore-environment",
        "null",
        "debug",
        "block-signal",
        "default-signal",
        "ignore-signal",
        "list-signal-handling",
    ],
    long_values: &["unset", "chdir", "split-string", "argv0"],
    permute: false,
};
const XARGS: Syntax = Syntax {
    short_flags: "0oprtx",
    short_values: "adEILnPs",
    short_optional: "iel",
    long_flags: &[
        "null",
        "open-tty",
        "interactive",
        "no-run-if-empty",
        "verbose",
        "exit",
        "show-limits",
        "replace",
        "eof",
        "max-lines",
    ],
    long_values: &["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"],
    permute: false,
};
