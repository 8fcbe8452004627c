//! `command:`: a hook that fires on what a shell command runs, not on how it is spelled (docs/shell-commands.md).
//!
//! The shell tool's command line is read by `hook-shell` into the simple commands it would run (wrappers,
//! quoting, nested `sh -c` scripts resolved); the matcher's patterns are tested against those. Where part of the
//! line cannot be known statically (`eval`, a program named by a variable, `source`) and no command read matches,
//! `on_unknown` decides: `deny` and `ask` answer the call without running the hook, `pass` lets it go by.
//!
//! An approval is held to the whole line: under `command: {all: [...]}` a hook's allow stands only when every
//! command of the line is in the list ([`CommandMatcher::allow_breaker`]), and under the plain form only when the
//! line is one command.

use std::borrow::Cow;

use hook_shell::{Allowed, Analysis, CommandPattern, Coverage, Limits, Match, UnknownReason};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// What a gate answers when a [`CommandMatcher`] cannot tell whether a command line matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnUnknown {
    /// Deny the call, saying what could not be read.
    Deny,
    /// Ask the user (pre_tool only; elsewhere it denies).
    Ask,
    /// The hook does not fire.
    Pass,
}

impl OnUnknown {
    /// Its name in a declaration.
    pub fn as_str(self) -> &'static str {
        match self {
            OnUnknown::Deny => "deny",
            OnUnknown::Ask => "ask",
            OnUnknown::Pass => "pass",
        }
    }
}

/// A hook's `command:` matcher: patterns over the commands a shell call runs, and what an unreadable line means.
///
/// ```
/// use hook_config::{CommandMatcher, OnUnknown};
/// use hook_shell::Match;
/// use serde_json::json;
///
/// let matcher = CommandMatcher::from_value(&json!({"program": "git", "args": ["push", "--force|-f"]}), OnUnknown::Deny)
///     .unwrap();
/// let call = json!({"command": "cd repo && git -C . push -f"});
/// assert_eq!(matcher.test(&hook_config::shell_analysis(Some(&call)).unwrap()), Match::Yes);
/// assert!(CommandMatcher::from_value(&json!({"args": ["push"]}), OnUnknown::Deny).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandMatcher {
    /// The patterns, each with whether the commands it matches may write files (only the allow-list form says so).
    patterns: Vec<Allowed>,
    /// The allow-list form (`{all: [...]}`): an allow stands only when the patterns cover every command.
    all: bool,
    on_unknown: OnUnknown,
    /// What an interpreter one-liner (`python -c`, `perl -e`) means when it is all that could not be read; `None`:
    /// as `on_unknown`.
    on_interpreter: Option<OnUnknown>,
    /// The patterns in their canonical form (a list of `{args?, piped_from?, program, via?}`, or `{all: [...]}` of
    /// them with `writes?`): what is hashed, cached and shown.
    canonical: Value,
}

/// How strict an answer is: deny over ask over pass.
fn strictness(answer: OnUnknown) -> u8 {
    match answer {
        OnUnknown::Deny => 2,
        OnUnknown::Ask => 1,
        OnUnknown::Pass => 0,
    }
}

/// Why a plain `command:` cannot approve a line: it is not one command read whole.
fn one_command_breaker(analysis: &Analysis) -> Option<String> {
    let fix = "a plain `command:` approves only a line that is one command; list every command an approval may \
               cover in `command: {all: [...]}`";
    if let Some(unknown) = analysis.unknown.first() {
        return Some(format!("{}; {fix}", unread(unknown)));
    }
    match analysis.commands.as_slice() {
        [] => Some(format!("the line runs no command this reader found; {fix}")),
        [one] if one.dynamic => {
            Some(format!("`{}` has words known only at run time; {fix}", shown(&one.argv.join(" "))))
        }
        [_] => None,
        many => {
            let listed: Vec<String> = many.iter().take(4).map(|c| format!("`{}`", shown(&c.argv.join(" ")))).collect();
            let more = if many.len() > 4 { ", ..." } else { "" };
            Some(format!("the line runs {} commands ({}{more}); {fix}", many.len(), listed.join(", ")))
        }
    }
}

/// What a reading could not read, for a message: `part of the line cannot be read (<reason>: `<text>`)`.
pub(crate) fn unread(unknown: &hook_shell::Unknown) -> String {
    format!("part of the line cannot be read ({}: `{}`)", unknown.reason.describe(), shown(&unknown.text))
}

/// A command or a piece of a line for a message: at most 120 characters.
pub(crate) fn shown(text: &str) -> String {
    let mut out: String = text.chars().take(120).collect();
    if out.len() < text.len() {
        out.push_str("...");
    }
    out
}

/// The patterns of a list or of one pattern, each with where it sits below `command` (`at` leads).
fn items<'v>(value: &'v Value, at: &str) -> Result<Vec<(String, &'v Value)>, CommandMatcherError> {
    match value {
        Value::Array(items) if !items.is_empty() => {
            Ok(items.iter().enumerate().map(|(i, item)| (format!("{at}[{i}]"), item)).collect())
        }
        Value::Object(_) => Ok(vec![(at.to_owned(), value)]),
        _ => Err(CommandMatcherError {
            message: "expected a pattern `{program: git, args: [push, \"--force|-f\"]}` or a non-empty list of them"
                .to_owned(),
            at: at.to_owned(),
        }),
    }
}

/// A `command:` value that cannot be read: the message, and the field below `command` it is about (`[1].args[0]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandMatcherError {
    /// What is wrong and how to fix it.
    pub message: String,
    /// Where below `command` (empty for the value itself).
    pub at: String,
}

impl CommandMatcher {
    /// Reads a `command:` value: one pattern (`{program, args?, piped_from?, via?}`), a list of them, or the
    /// allow-list form `{all: [pattern, ...]}`, whose patterns may also say `writes: true`.
    ///
    /// ```
    /// use hook_config::{CommandMatcher, OnUnknown, shell_analysis};
    /// use serde_json::json;
    ///
    /// let read_only = json!({"all": [{"program": "ls|cat"}, {"program": "git", "args": ["status|log"]}]});
    /// let approver = CommandMatcher::from_value(&read_only, OnUnknown::Pass).unwrap();
    /// let line = |l: &str| shell_analysis(Some(&json!({"command": l}))).unwrap();
    /// assert_eq!(approver.allow_breaker(&line("ls -la && git status")), None);
    /// assert_eq!(
    ///     approver.allow_breaker(&line("ls && rm -rf ~")).as_deref(),
    ///     Some("`rm -rf ~` is not in its `command: {all: ...}` list")
    /// );
    /// ```
    pub fn from_value(value: &Value, on_unknown: OnUnknown) -> Result<CommandMatcher, CommandMatcherError> {
        let list = match value {
            Value::Object(map) if map.contains_key("all") => {
                if let Some(key) = map.keys().find(|k| *k != "all") {
                    return Err(CommandMatcherError {
                        message: format!(
                            "unknown key `{key}` beside `all`; the allow-list form is `{{all: [{{program: ls}}, ...]}}` \
                             alone"
                        ),
                        at: format!(".{key}"),
                    });
                }
                Some(&map["all"])
            }
            _ => None,
        };
        let all = list.is_some();
        let items = match list {
            Some(list) => items(list, ".all")?,
            None => items(value, "")?,
        };
        let mut patterns = Vec::with_capacity(items.len());
        let mut canonical = Vec::with_capacity(items.len());
        for (at, item) in items {
            let (pattern, form) = read_pattern(item, all)
                .map_err(|(message, below)| CommandMatcherError { message, at: format!("{at}{below}") })?;
            patterns.push(pattern);
            canonical.push(form);
        }
        let canonical = if all { json!({"all": canonical}) } else { Value::Array(canonical) };
        Ok(CommandMatcher { patterns, all, on_unknown, on_interpreter: None, canonical })
    }

    /// The matcher with its own answer for interpreter one-liners (`on_interpreter:`), which a guard on other
    /// programs may leave to a guard on interpreters.
    ///
    /// ```
    /// use hook_config::{CommandMatcher, OnUnknown, shell_analysis};
    /// use hook_shell::{Match, UnknownReason};
    /// use serde_json::json;
    ///
    /// let pipe = CommandMatcher::from_value(&json!({"program": "sh", "piped_from": "curl"}), OnUnknown::Deny)
    ///     .unwrap()
    ///     .with_on_interpreter(OnUnknown::Pass);
    /// let line = |l: &str| shell_analysis(Some(&json!({"command": l}))).unwrap();
    /// let Match::Unknown(unknown) = pipe.test(&line("python3 -c 'print(1)'")) else { panic!() };
    /// assert_eq!(pipe.on_unknown_for(unknown.reason), OnUnknown::Pass);
    /// // Anything else unread on the line still answers as `on_unknown`.
    /// let Match::Unknown(unknown) = pipe.test(&line("python3 -c 'print(1)'; eval \"$x\"")) else { panic!() };
    /// assert_eq!((unknown.reason, pipe.on_unknown_for(unknown.reason)), (UnknownReason::Eval, OnUnknown::Deny));
    /// ```
    pub fn with_on_interpreter(mut self, on_interpreter: OnUnknown) -> CommandMatcher {
        self.on_interpreter = Some(on_interpreter);
        self
    }

    /// What the matcher says of a reading: any pattern matching wins; else what could not be read, if anything —
    /// of several, the one whose answer ([`CommandMatcher::on_unknown_for`]) is strictest.
    pub fn test(&self, analysis: &Analysis) -> Match {
        let mut unknown: Option<hook_shell::Unknown> = None;
        let mut consider = |candidate: &hook_shell::Unknown| {
            let stricter = unknown.as_ref().is_none_or(|u| {
                strictness(self.on_unknown_for(candidate.reason)) > strictness(self.on_unknown_for(u.reason))
            });
            if stricter {
                unknown = Some(candidate.clone());
            }
        };
        analysis.unknown.iter().for_each(&mut consider);
        for Allowed { pattern, .. } in &self.patterns {
            for command in &analysis.commands {
                match pattern.test_command(command) {
                    Match::Yes => return Match::Yes,
                    Match::Unknown(u) => consider(&u),
                    Match::No => {}
                }
            }
        }
        unknown.map_or(Match::No, Match::Unknown)
    }

    /// Whether this is the allow-list form (`{all: [...]}`).
    pub fn is_allow_list(&self) -> bool {
        self.all
    }

    /// Why an allow of a hook this matcher scopes cannot stand on the line `analysis` reads, or `None` when it can.
    ///
    /// - The allow-list form: every simple command of the line (substitutions and nested scripts included) is
    ///   matched by one of its patterns, writes a file through a redirection only where that pattern says
    ///   `writes: true`, and was read whole; otherwise the first command that breaks it, or what was not read.
    /// - The plain form matches a line when any one command does, so it approves only a line that is one command,
    ///   read whole: on any other line its allow would cover commands it never looked at.
    ///
    /// ```
    /// use hook_config::{CommandMatcher, OnUnknown, shell_analysis};
    /// use serde_json::json;
    ///
    /// let ls = CommandMatcher::from_value(&json!({"program": "ls"}), OnUnknown::Pass).unwrap();
    /// let line = |l: &str| shell_analysis(Some(&json!({"command": l}))).unwrap();
    /// assert_eq!(ls.allow_breaker(&line("ls -la")), None);
    /// assert!(ls.allow_breaker(&line("ls; rm -rf x")).unwrap().starts_with("the line runs 2 commands (`ls`, `rm -rf x`)"));
    /// assert!(ls.allow_breaker(&line("ls \"$D\"")).unwrap().contains("known only at run time"));
    /// ```
    pub fn allow_breaker(&self, analysis: &Analysis) -> Option<String> {
        if !self.all {
            return one_command_breaker(analysis);
        }
        match hook_shell::covers(&self.patterns, analysis) {
            Coverage::All => None,
            Coverage::Uncovered(command) => {
                let text = shown(&command.argv.join(" "));
                let listed = self.patterns.iter().any(|a| a.pattern.test_command(&command) == Match::Yes);
                Some(if listed {
                    format!("`{text}` writes a file, and its entry in `command: {{all: ...}}` has no `writes: true`")
                } else {
                    format!("`{text}` is not in its `command: {{all: ...}}` list")
                })
            }
            Coverage::Unknown(unknown) => Some(format!("{}, so the list cannot be said to cover it", unread(&unknown))),
        }
    }

    /// What an unreadable line means for this hook.
    pub fn on_unknown(&self) -> OnUnknown {
        self.on_unknown
    }

    /// What this hook answers when `reason` is what could not be read: `on_interpreter` for an interpreter
    /// one-liner where the hook set one, else `on_unknown`.
    pub fn on_unknown_for(&self, reason: UnknownReason) -> OnUnknown {
        match (reason, self.on_interpreter) {
            (UnknownReason::Interpreter, Some(answer)) => answer,
            _ => self.on_unknown,
        }
    }

    /// The hook's own `on_interpreter`, if it set one.
    pub fn on_interpreter(&self) -> Option<OnUnknown> {
        self.on_interpreter
    }

    /// The patterns in canonical form: a list of `{program, args?, piped_from?}` objects.
    pub fn canonical(&self) -> &Value {
        &self.canonical
    }
}

/// One pattern and its canonical form (`writes` read only in an allow list); on error the message and the field
/// below the pattern.
fn read_pattern(value: &Value, in_list: bool) -> Result<(Allowed, Value), (String, String)> {
    let Value::Object(map) = value else {
        return Err(("expected a mapping with `program` (and `args`, `piped_from`, `via`)".to_owned(), String::new()));
    };
    let keys: &[&str] = if in_list {
        &["program", "args", "piped_from", "via", "writes"]
    } else {
        &["program", "args", "piped_from", "via"]
    };
    if let Some(key) = map.keys().find(|k| !keys.contains(&k.as_str())) {
        if key == "writes" {
            return Err((
                "`writes` belongs to the allow-list form: `command: {all: [{program: sort, writes: true}]}`".to_owned(),
                ".writes".to_owned(),
            ));
        }
        let hint = hook_types::did_you_mean(key, keys.iter().copied());
        let expected: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
        return Err((
            format!("unknown key `{key}`{}; expected {}", crate::issues::hint(hint), expected.join(", ")),
            format!(".{key}"),
        ));
    }
    let program = match map.get("program") {
        Some(Value::String(program)) if !program.is_empty() => program.as_str(),
        Some(_) => return Err(("expected a program name, e.g. `git` or `sh|bash`".to_owned(), ".program".to_owned())),
        None => return Err(("`program` is missing; name the program, e.g. `program: git`".to_owned(), String::new())),
    };
    let args: Vec<&str> = match map.get("args") {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            let mut args = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(arg) => args.push(arg.as_str()),
                    _ => return Err(("expected a string (quote it)".to_owned(), format!(".args[{i}]"))),
                }
            }
            args
        }
        Some(_) => return Err(("expected a list of argument patterns".to_owned(), ".args".to_owned())),
    };
    let mut pattern = CommandPattern::new(program, &args).map_err(|e| (e.message, String::new()))?;
    // Keys in byte order (`args` < `piped_from` < `program` < `via` < `writes`), as the canonical JSON of the hash writes them.
    let mut form = Map::new();
    if !args.is_empty() {
        form.insert("args".into(), args.clone().into());
    }
    match map.get("piped_from") {
        None => {}
        Some(Value::String(from)) => {
            pattern = pattern.piped_from(from).map_err(|e| (e.message, ".piped_from".to_owned()))?;
            form.insert("piped_from".into(), from.as_str().into());
        }
        Some(_) => return Err(("expected a program name, e.g. `curl|wget`".to_owned(), ".piped_from".to_owned())),
    }
    form.insert("program".into(), program.into());
    match map.get("via") {
        None => {}
        Some(Value::String(via)) => {
            pattern = pattern.via(via).map_err(|e| (e.message, ".via".to_owned()))?;
            form.insert("via".into(), via.as_str().into());
        }
        Some(_) => return Err(("expected wrapper names, e.g. `xargs|find -exec`".to_owned(), ".via".to_owned())),
    }
    let writes = match map.get("writes") {
        None | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => {
            form.insert("writes".into(), true.into());
            true
        }
        Some(_) => return Err(("expected `true` or `false`".to_owned(), ".writes".to_owned())),
    };
    Ok((Allowed { pattern, writes }, Value::Object(form)))
}

/// The commands a shell call runs: its input's `command` (a string, or an argv whose `bash -c` script is read)
/// read by `hook-shell` under its default bounds (a call whose command cannot be found is one unknown); `None`
/// without an input.
///
/// ```
/// let input = serde_json::json!({"command": ["bash", "-lc", "sudo rm -rf /tmp/x"]});
/// let analysis = hook_config::shell_analysis(Some(&input)).unwrap();
/// assert_eq!(analysis.commands[0].program, "rm");
/// ```
pub fn shell_analysis(input: Option<&Value>) -> Option<Analysis> {
    let input = input?;
    match command_line(Some(input)) {
        Some(line) => Some(hook_shell::parse(&line, &Limits::default())),
        // A shell call whose command this reader cannot find is not a call that runs nothing: what it runs is
        // unknown, and a gate decides by its `on_unknown`.
        None => Some(Analysis {
            commands: Vec::new(),
            unknown: vec![hook_shell::Unknown {
                reason: hook_shell::UnknownReason::Syntax,
                text: format!("the shell call's input has no command line this reader knows: {}", keys(input)),
            }],
        }),
    }
}

/// The keys of an input object, for a message (`{commands, timeout}`), or what it is instead.
fn keys(input: &Value) -> String {
    match input {
        Value::Object(map) => format!("{{{}}}", map.keys().map(String::as_str).collect::<Vec<_>>().join(", ")),
        other => format!("a JSON {}", if other.is_array() { "array" } else { "scalar" }),
    }
}

/// The shell command line of a shell call's input: `command` as a string, or as an argv (`["bash", "-lc",
/// "script"]` is the script; any other argv is one simple command, its words quoted for the reading); or
/// `commands`, a list of lines (Cline's `run_commands`, also as the JSON text of that list), read as one script.
pub(crate) fn command_line(input: Option<&Value>) -> Option<Cow<'_, str>> {
    let input = input?;
    if input.get("command").is_none()
        && let Some(commands) = input.get("commands")
    {
        return command_list(commands);
    }
    match input.get("command")? {
        Value::String(command) => Some(Cow::Borrowed(command)),
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().map(Value::as_str).collect::<Option<_>>()?;
            match words.as_slice() {
                [shell, flag, script] if is_shell(shell) && matches!(*flag, "-c" | "-lc" | "-ic") => {
                    Some(Cow::Borrowed(script))
                }
                _ => Some(Cow::Owned(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "))),
            }
        }
        _ => None,
    }
}

/// A list of command lines, one line each in one script; the JSON text of such a list too.
fn command_list(commands: &Value) -> Option<Cow<'_, str>> {
    let lines = |list: &[Value]| -> Option<String> {
        let lines: Vec<&str> = list.iter().map(Value::as_str).collect::<Option<_>>()?;
        Some(lines.join("\n"))
    };
    match commands {
        Value::Array(list) => lines(list).map(Cow::Owned),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(list)) => lines(&list).map(Cow::Owned),
            _ => Some(Cow::Borrowed(text)),
        },
        _ => None,
    }
}

fn is_shell(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(name, "sh" | "bash" | "zsh" | "dash")
}

/// A word single-quoted for the shell reading.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}
