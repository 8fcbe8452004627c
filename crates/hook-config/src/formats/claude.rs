//! Claude Code's settings files (`~/.claude/settings.json`, `.claude/settings.json`, `.claude/settings.local.json`;
//! docs/declarations.md#foreign-formats), and the matcher-group shape that Codex shares with them ([`read_groups`]).
//!
//! ```json
//! { "hooks": { "PreToolUse": [ { "matcher": "Bash",
//!     "hooks": [ { "type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh", "timeout": 30 } ] } ] } }
//! ```
//!
//! Every other key of a settings file is Claude Code's business and is passed over. What the reader keeps:
//!
//! - **Events.** PreToolUse, PostToolUse, PostToolUseFailure (post_tool with `only_errors`), UserPromptSubmit, Stop,
//!   SubagentStop (turn_end with `scope: subagent`), PreCompact, SessionStart, SessionEnd, Notification and
//!   PermissionRequest map to their canonical events (docs/events.md). Claude Code's other events (SubagentStart,
//!   PostToolBatch, WorktreeCreate, …) load as observers of that foreign event, which fire only through the bridge.
//!   A name Claude Code does not document loads the same way, with a warning: in Claude Code it never fires.
//! - **Matchers** follow the Claude/Codex rule (docs/declarations.md) on the tool events, on SessionStart (`source`) and
//!   PreCompact (`trigger`); `mcp__server__tool` names work as exact names and in regexes (`mcp__memory__.*`). On
//!   UserPromptSubmit and Stop Claude Code ignores a matcher, and so does this reader (with a warning, since the
//!   author may believe it filters). Notification and SessionEnd are filtered by fields this engine does not route
//!   on: the matcher is dropped with a warning and the group's hooks run on every such event. A SubagentStop matcher
//!   picks agent types; dropping it would let a Stop-style blocker fire for every subagent, so such a group is
//!   reported and not loaded. Claude Code's regexes are JavaScript's: the few constructs Rust's `regex` lacks
//!   (look-around, back-references) are reported as invalid and the group is not loaded.
//! - **Handlers.** `type: "command"` runs its `command` with `sh -c`, in the workspace, with `CLAUDE_PROJECT_DIR`
//!   set. `timeout` is in seconds (fractions kept to the millisecond); without one the protocol's 600 s applies,
//!   which the host's limits may clamp (a warning says so). `prompt` and `agent` handlers, which a model evaluates,
//!   load as `kind: evaluated` hooks (30 s and 60 s by default): a host with an evaluator answers them, one without
//!   reports them `skipped` (docs/evaluated-hooks.md). `type: "http"` loads as a `kind: http` hook with
//!   `format: claude` (`url`, `headers`, `allowedEnvVars`, `timeout`; docs/policy.md). The exec form (`command`
//!   with `args`) runs as argv, without a shell. An `if` condition (Claude Code's permission-rule syntax) is handed
//!   to the normalizer, which parses it into the hook's condition (docs/declarations.md#if). A `shell: "powershell"`
//!   command loads as a `powershell` hook, run by `pwsh` (on Windows `powershell` when `PATH` has no `pwsh`); on a
//!   machine without either, each run fails to start, which denies on a gate. `mcp_tool` handlers cannot run here:
//!   on a gate each loads as the gate it closes (an effect hook with its matcher and `if` that denies), with a
//!   warning; elsewhere a warning says it does not run (`closed_gate` below). `async: true` command hooks on observer events run in the background as in Claude Code
//!   (docs/observability.md); on a gate or a decision event they run to
//!   completion, with a warning: here their answer counts, in Claude Code it comes too late to.
//!   `statusMessage` is display only.
//! - **Failure policy**: `protocol: claude`, which fails open (exit 2 blocks, other exits are non-blocking errors;
//!   docs/output-protocol.md).
//! - **`disableAllHooks: true`** loads the file's hooks disabled: shown, hashed, never run. Claude Code applies the
//!   merged setting to every settings file; here it covers the file that says it.
//! - **Run once.** Claude Code runs identical handlers (same event, matcher and command; `args`, `shell` and `if` where
//!   given) once, however many of its files declare them. A Claude hook's id is therefore `claude.command.<16 hex>`
//!   of the sha256 of exactly that triple (with those keys where given), the same in all three files: within a file the later copy is kept (with a warning), and across files
//!   the precedence merge keeps the highest-precedence copy and lists the others as `overridden` — except that a
//!   project copy displaces the user's trusted copy only once it is trusted itself (docs/trust.md#origins), so until then the
//!   user's copy, the same command, runs. The id survives an edit of the timeout (the trust store then reports the
//!   hook `modified`) and a reordering of the file.
//!
//! Issues this reader reports name the handler the way the file spells it (`hooks.PreToolUse[0].hooks[1].timeout`);
//! the shared normalizer's rarer ones (a timeout the host clamps) say `hooks[N]`, N counting handlers in file order.

use std::collections::{HashMap, HashSet};

use hook_types::MatcherUse;
use serde_json::{Map, Value, json};

use super::WireFile;
use super::agent::{AgentEvents, HookBuilder, seconds_to_ms, unknown_key};
use crate::issues::{Place, Reporter, describe, hint};
use crate::model::{Matcher, MatcherRule};
use crate::parse::{NodePath, Target};

/// Claude Code's events: those with an equivalent here, then the rest it documents.
const EVENTS: AgentEvents = AgentEvents::spelled(hook_types::Protocol::Claude);

const CLAUDE: Dialect = Dialect {
    events: EVENTS,
    group_keys: &["matcher", "hooks"],
    handler_keys: &[
        "type",
        "command",
        "args",
        "prompt",
        "model",
        "timeout",
        "async",
        "asyncRewake",
        "statusMessage",
        "once",
        "shell",
        "if",
        "onFailure",
    ],
    evaluated_types: &["prompt", "agent"],
    async_observers: true,
    other_types: &[
        ("prompt", "an LLM evaluates its prompt"),
        ("agent", "a subagent with tools evaluates its prompt"),
        // `http` is read (`http_handler`); it stays listed here for the agents sharing this shape that lack it.
        ("http", "its event is POSTed to a URL"),
        ("mcp_tool", "it calls a tool of an MCP server"),
    ],
    timeout_keys: &["timeout"],
    timeout: seconds_to_ms,
    exact_char: None,
    run_once: true,
    skipped_keys: &[],
    tool_matcher: None,
    ignored_timeout_ms: None,
    carried: &[],
    narrowing: &[],
};

/// Reads a Claude Code settings file.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    read_settings(root, &CLAUDE, reporter)
}

/// Reads a settings file whose `hooks` key holds the group shape and whose top-level `disableAllHooks` turns every
/// hook off (Claude Code, and the agents that took its settings shape).
pub(super) fn read_settings(root: &Value, dialect: &Dialect, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let Value::Object(settings) = root else {
        reporter.error(
            file_place(String::new(), NodePath::default(), Target::Node),
            format!("expected a settings object (`{{\"hooks\": {{...}}}}`), found {}", describe(root)),
        );
        return None;
    };
    let mut disabled = false;
    if let Some(value) = settings.get("disableAllHooks") {
        let node = NodePath::default().key("disableAllHooks");
        match value {
            Value::Bool(true) => {
                disabled = true;
                reporter.warn(
                    file_place("disableAllHooks".into(), node, Target::Node),
                    "`disableAllHooks` is true: this file's hooks are loaded and shown but never run",
                );
            }
            Value::Bool(false) => {}
            other => reporter.warn(
                file_place("disableAllHooks".into(), node, Target::Node),
                format!("expected `true` or `false`, found {}; ignored", describe(other)),
            ),
        }
    }
    read_groups(settings, dialect, disabled, reporter)
}

/// An agent's own reading of a tool matcher: the pattern to test instead, or the warning to give.
pub(super) type ToolMatcher = fn(&str) -> Result<String, String>;

/// What differs between the agents that write Claude Code's group shape (`{event: [{matcher, hooks: [...]}]}`).
pub(super) struct Dialect {
    /// The events.
    pub(super) events: AgentEvents,
    /// The keys of a group.
    pub(super) group_keys: &'static [&'static str],
    /// The keys of a handler.
    pub(super) handler_keys: &'static [&'static str],
    /// Handler types a model evaluates, loaded as `kind: evaluated` hooks for a host that has one.
    pub(super) evaluated_types: &'static [&'static str],
    /// The agent runs `async: true` command hooks in the background: loaded as `async` observers.
    pub(super) async_observers: bool,
    /// Handler types the agent runs and this engine cannot, with what they do.
    pub(super) other_types: &'static [(&'static str, &'static str)],
    /// The spellings of the timeout key, preferred first.
    pub(super) timeout_keys: &'static [&'static str],
    /// A timeout as the agent writes it, in milliseconds.
    pub(super) timeout: fn(&Value) -> Result<u64, String>,
    /// The agent's own exact-name characters, where they are fewer than this engine's: a pattern of this engine's
    /// exact-name characters with one the agent lacks is a regex in the agent, and is kept as one (`(?:…)`).
    pub(super) exact_char: Option<fn(char) -> bool>,
    /// Claude Code's run-once rule: ids from (event, matcher, command), identical handlers kept once.
    pub(super) run_once: bool,
    /// Keys of the events mapping that are not events (Codex's `state`): passed over here, the dialect's own
    /// reader says what needs saying about them.
    pub(super) skipped_keys: &'static [&'static str],
    /// The agent's own reading of a tool event's matcher, where it is not the Claude/Codex rule: the pattern this
    /// engine should test instead, or `Err` with a warning to give (the pattern is then kept as written).
    pub(super) tool_matcher: Option<ToolMatcher>,
    /// What a timeout the agent ignores (rather than refuses) becomes, in milliseconds: the hook loads with a
    /// warning and this timeout, as in the agent (Qwen Code's default for a `timeout` that is no positive number).
    pub(super) ignored_timeout_ms: Option<u64>,
    /// The group keys and handler keys this engine carries over (`sequential` of a group, `env` of a handler).
    pub(super) carried: &'static [&'static str],
    /// Group keys that narrow which calls the group's hooks run on, by something this engine cannot test, with what
    /// they test (Factory Droid's `commandRegex`): running the hooks without it would widen what they block, so such
    /// a group is reported and not loaded.
    pub(super) narrowing: &'static [(&'static str, &'static str)],
}

/// Reads the `hooks` mapping of `settings` in the group shape. `disabled` loads every hook disabled.
pub(super) fn read_groups(
    settings: &Map<String, Value>,
    dialect: &Dialect,
    disabled: bool,
    reporter: &mut Reporter<'_>,
) -> Option<WireFile> {
    let hooks_node = NodePath::default().key("hooks");
    match settings.get("hooks") {
        None | Some(Value::Null) => Some(WireFile::default()),
        Some(Value::Object(events)) => Some(read_event_map(events, "hooks.", hooks_node, dialect, disabled, reporter)),
        Some(other) => {
            reporter.error(
                file_place("hooks".into(), hooks_node, Target::Node),
                format!("expected a mapping of event names to matcher groups, found {}", describe(other)),
            );
            None
        }
    }
}

/// Reads a mapping of event names to matcher groups found at `hooks_node`, whose field paths start with `prefix`
/// (`hooks.` inside a settings file, nothing where the mapping is the whole file).
pub(super) fn read_event_map(
    events: &Map<String, Value>,
    prefix: &str,
    hooks_node: NodePath,
    dialect: &Dialect,
    disabled: bool,
    reporter: &mut Reporter<'_>,
) -> WireFile {
    let mut reader = GroupReader {
        dialect,
        disabled,
        prefix: prefix.to_owned(),
        file: WireFile::default(),
        handlers: 0,
        seen: HashMap::new(),
        replaced: HashSet::new(),
    };
    for (event, groups) in events.iter().filter(|(k, _)| !dialect.skipped_keys.contains(&k.as_str())) {
        reader.event(event, groups, &hooks_node, reporter);
    }
    reporter.in_event(None);
    let GroupReader { mut file, replaced, .. } = reader;
    // Run once: drop the copies a later identical handler replaced, keeping file order.
    let mut position = 0;
    file.hooks.retain(|_| {
        position += 1;
        !replaced.contains(&(position - 1))
    });
    file
}

struct GroupReader<'d> {
    dialect: &'d Dialect,
    disabled: bool,
    /// What field paths start with (`hooks.`).
    prefix: String,
    file: WireFile,
    /// Handlers seen so far, loaded or not: the `N` of `hooks[N]`.
    handlers: usize,
    /// Run once: id → (position in `file.hooks`, the handler's path).
    seen: HashMap<String, (usize, String)>,
    /// Run once: positions in `file.hooks` of copies a later identical handler replaced.
    replaced: HashSet<usize>,
}

impl GroupReader<'_> {
    fn event(&mut self, event: &str, groups: &Value, hooks_node: &NodePath, reporter: &mut Reporter<'_>) {
        let event_node = hooks_node.key(event);
        let event_path = format!("{}{event}", self.prefix);
        let (on, row) = self.dialect.events.resolve(
            event,
            file_place(event_path.clone(), event_node.clone(), Target::Key),
            reporter,
        );
        let mapped = row.map(|r| r.name);
        reporter.in_event(Some(&on));
        let Value::Array(groups) = groups else {
            let place = file_place(event_path, event_node, Target::Node);
            reporter.error(place, format!("expected a list of matcher groups, found {}", describe(groups)));
            return;
        };
        for (g, group) in groups.iter().enumerate() {
            let group_path = format!("{event_path}[{g}]");
            let group_node = event_node.index(g);
            let Value::Object(group) = group else {
                let place = file_place(group_path, group_node, Target::Node);
                let found = describe(group);
                reporter.error(place, format!("expected a matcher group (`{{matcher, hooks: [...]}}`), found {found}"));
                continue;
            };
            for key in group.keys().filter(|k| !self.dialect.group_keys.contains(&k.as_str())) {
                let place = file_place(format!("{group_path}.{key}"), group_node.key(key), Target::Key);
                unknown_key(reporter, place, key, self.dialect.group_keys, self.dialect.events.agent.agent().name);
            }
            let handlers = match group.get("hooks") {
                Some(Value::Array(handlers)) => handlers.as_slice(),
                None | Some(Value::Null) => {
                    let place = file_place(group_path.clone(), group_node.clone(), Target::Node);
                    reporter.warn(place, "this matcher group has no `hooks`: nothing runs for it");
                    &[]
                }
                Some(other) => {
                    let place = file_place(format!("{group_path}.hooks"), group_node.key("hooks"), Target::Node);
                    reporter.error(place, format!("expected a list of hook handlers, found {}", describe(other)));
                    continue;
                }
            };
            if let Some((key, what)) = self.dialect.narrowing.iter().find(|(key, _)| group.contains_key(*key)) {
                let place = file_place(format!("{group_path}.{key}"), group_node.key(key), Target::Key);
                reporter.warn(
                    place,
                    format!(
                        "`{key}` runs this group's hooks only for {what}, which this engine cannot test, and running \
                         them on every call would widen what they block; this group's {} hook(s) were not loaded",
                        handlers.len()
                    ),
                );
                self.handlers += handlers.len();
                continue;
            }
            let matcher = match group.get("matcher") {
                None | Some(Value::Null) => Ok(None),
                Some(value) => {
                    let at = (format!("{group_path}.matcher"), group_node.key("matcher"));
                    self.matcher(value, event, mapped, at, handlers.len(), reporter)
                }
            };
            let Ok(matcher) = matcher else {
                self.handlers += handlers.len();
                continue;
            };
            for (h, handler) in handlers.iter().enumerate() {
                let path = format!("{group_path}.hooks[{h}]");
                let node = group_node.key("hooks").index(h);
                let sequential = group
                    .get("sequential")
                    .filter(|_| self.dialect.carried.contains(&"sequential"))
                    .map(|value| (value, group_node.key("sequential")));
                let target = GroupTarget { on: &on, matcher: matcher.as_ref(), event_node: &event_node, sequential };
                self.handler(handler, &path, node, &target, reporter);
                self.handlers += 1;
            }
        }
    }

    /// The matcher this engine should test, `Ok(None)` for none, or `Err` when the group is not loaded (reported).
    fn matcher(
        &self,
        value: &Value,
        event: &str,
        mapped: Option<&str>,
        (field, node): (String, NodePath),
        handlers: usize,
        reporter: &mut Reporter<'_>,
    ) -> Result<Option<(String, NodePath)>, ()> {
        let not_loaded = format!("this group's {handlers} hook(s) were not loaded");
        let Value::String(pattern) = value else {
            let place = file_place(field, node, Target::Node);
            reporter.error(place, format!("expected a matcher string, found {}; {not_loaded}", describe(value)));
            return Err(());
        };
        let compiled = match Matcher::parse(pattern) {
            Ok(None) => return Ok(None),
            Ok(Some(compiled)) => compiled,
            Err(err) => {
                let message = err.to_string();
                let last = message.lines().rfind(|l| !l.trim().is_empty()).unwrap_or(&message).trim();
                let why = last.strip_prefix("error: ").unwrap_or(last);
                let place = file_place(field, node, Target::Node);
                reporter.error(place, format!("invalid regex `{pattern}`: {why}; {not_loaded}"));
                return Err(());
            }
        };
        let agent = self.dialect.events.agent.agent().name;
        let usage = mapped.and_then(|m| self.dialect.events.agent.agent().event(m)).and_then(|row| row.matcher);
        match usage {
            None => {}
            Some(MatcherUse::Ignored) => {
                let place = file_place(field, node, Target::Node);
                reporter.warn(
                    place,
                    format!(
                        "{agent} ignores a matcher on {event}, and so does this engine: the hooks run on every {event}"
                    ),
                );
                return Ok(None);
            }
            Some(MatcherUse::Unrouted(what)) => {
                let place = file_place(field, node, Target::Node);
                reporter.warn(
                    place,
                    format!(
                        "this engine cannot filter {event} by {what}; `{pattern}` is dropped and the group's hooks run \
                         on every {event}"
                    ),
                );
                return Ok(None);
            }
            Some(MatcherUse::Unsupported(what)) => {
                let place = file_place(field, node, Target::Node);
                reporter.warn(
                    place,
                    format!(
                        "this engine cannot filter {event} by {what} (`{pattern}`), and running these hooks for every \
                         {event} would change what they decide; {not_loaded}"
                    ),
                );
                return Err(());
            }
        }
        let tool_event = mapped
            .and_then(|m| self.dialect.events.agent.agent().event(m))
            .and_then(|row| row.event.as_ref())
            .is_some_and(hook_types::Event::is_tool_event);
        if let Some(rewrite) = self.dialect.tool_matcher.filter(|_| tool_event) {
            return match rewrite(pattern) {
                Ok(rewritten) => Ok(Some((rewritten, node))),
                Err(warning) => {
                    reporter.warn(file_place(field, node.clone(), Target::Node), warning);
                    Ok(Some((pattern.clone(), node)))
                }
            };
        }
        // A pattern this engine reads as exact names but the agent reads as a regex stays a regex.
        if let (Some(exact_char), MatcherRule::Exact(_)) = (self.dialect.exact_char, &compiled.rule)
            && !pattern.chars().all(exact_char)
        {
            return Ok(Some((format!("(?:{pattern})"), node)));
        }
        Ok(Some((pattern.clone(), node)))
    }

    /// One handler of a group: a command hook, read here; an evaluated or http one, read by its own reader; any other
    /// type is reported and not loaded.
    ///
    /// # Order
    ///
    /// 1. the handler's `type` picks its reader;
    /// 2. keys the dialect does not know are reported;
    /// 3. `command`, the timeout and the `async` / `asyncRewake` / `once` flags are read, each reported where wrong;
    /// 4. a `shell` Claude Code does not take leaves the hook unloaded;
    /// 5. the hook is built: event, command, the group's matcher and what the dialect carries, its run-once id.
    fn handler(
        &mut self,
        handler: &Value,
        path: &str,
        node: NodePath,
        target: &GroupTarget<'_>,
        reporter: &mut Reporter<'_>,
    ) {
        let at = HandlerAt { index: self.handlers, path, node };
        let Some(handler) = self.command_handler(handler, &at, target, reporter) else { return };
        let agent = self.dialect.events.agent.agent().name;
        for key in handler.keys().filter(|k| !self.dialect.handler_keys.contains(&k.as_str())) {
            unknown_key(reporter, at.at(key, Target::Key), key, self.dialect.handler_keys, agent);
        }
        let mut builder = HookBuilder::new(at.index, at.node.clone());
        let command = command(handler, &at, reporter);
        let args = args(handler, &at, reporter);
        let timeout_read = self.timeout(handler, &at, &mut builder, reporter);
        let flags_read =
            self.flags(handler, &at, &mut builder, reporter) && on_failure(handler, &at, &mut builder, reporter);
        let interpreter = shell(handler, &at, reporter);
        let (Some(command), Some(args), Some(interpreter)) =
            (command.filter(|_| timeout_read && flags_read), args, interpreter)
        else {
            return;
        };
        self.push_command(builder, Line { command, args, interpreter }, handler, &at, target, reporter);
    }

    /// The handler when it is a command handler; an evaluated or http handler goes to its own reader, and anything
    /// else is reported. `None` where the handler is done with.
    fn command_handler<'h>(
        &mut self,
        handler: &'h Value,
        at: &HandlerAt<'_>,
        target: &GroupTarget<'_>,
        reporter: &mut Reporter<'_>,
    ) -> Option<&'h Map<String, Value>> {
        let Value::Object(handler) = handler else {
            let found = describe(handler);
            reporter.error(
                at.at("", Target::Node),
                format!("expected a hook handler (`{{type, command}}`), found {found}"),
            );
            return None;
        };
        let kind = match handler.get("type") {
            Some(Value::String(kind)) if kind == "command" => return Some(handler),
            Some(Value::String(kind)) => kind,
            Some(other) => {
                reporter
                    .error(at.at("type", Target::Node), format!("expected `\"command\"`, found {}", describe(other)));
                return None;
            }
            None => {
                let agent = self.dialect.events.agent.agent().name;
                reporter.error(
                    at.at("", Target::Node),
                    format!("missing `type` ({agent} requires `\"type\": \"command\"`)"),
                );
                return None;
            }
        };
        if self.dialect.evaluated_types.contains(&kind.as_str()) {
            self.evaluated(handler, kind, at, target, reporter);
        } else if kind == "http" && self.dialect.events.agent == hook_types::Protocol::Claude {
            self.http_handler(handler, at, target, reporter);
        } else if kind == "mcp_tool" && self.dialect.other_types.iter().any(|(t, _)| *t == "mcp_tool") {
            let agent = self.dialect.events.agent.agent().name;
            let why = format!(
                "an `mcp_tool` hook calls a tool of one of {agent}'s MCP servers, which this engine cannot reach"
            );
            self.closed_gate(handler, at, target, &why, reporter);
        } else if let Some((_, what)) = self.dialect.other_types.iter().find(|(t, _)| t == kind) {
            reporter.warn(
                at.at("type", Target::Node),
                format!(
                    "a `{kind}` hook ({what}) has no counterpart in this engine, which runs commands; this hook is not \
                     loaded"
                ),
            );
        } else {
            let kinds = || std::iter::once("command").chain(self.dialect.other_types.iter().map(|(t, _)| *t));
            let suggestion = hook_types::did_you_mean(kind, kinds());
            let expected = kinds().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            reporter.error(
                at.at("type", Target::Node),
                format!("unknown hook type `{kind}`{}; expected one of {expected}", hint(suggestion)),
            );
        }
        None
    }

    /// The handler's timeout, under the first of the dialect's spellings that is there, set on `builder`; a timeout
    /// the agent ignores becomes its default, with a warning. Whether it was read (false: an error was reported).
    fn timeout(
        &self,
        handler: &Map<String, Value>,
        at: &HandlerAt<'_>,
        builder: &mut HookBuilder,
        reporter: &mut Reporter<'_>,
    ) -> bool {
        // `null` is no timeout, as serde reads an `Option` in both agents.
        let timeout_keys: Vec<&str> = self
            .dialect
            .timeout_keys
            .iter()
            .copied()
            .filter(|k| handler.get(*k).is_some_and(|v| !v.is_null()))
            .collect();
        let [first, rest @ ..] = timeout_keys.as_slice() else { return true };
        for other in rest {
            reporter.warn(at.at(other, Target::Key), format!("`{other}` repeats `{first}`; `{first}` is used"));
        }
        match (self.dialect.timeout)(&handler[*first]) {
            Ok(ms) => builder.set("timeout_ms", first, Value::from(ms), at.node.key(first)),
            Err(message) if self.dialect.ignored_timeout_ms.is_some() => {
                let ms = self.dialect.ignored_timeout_ms.unwrap_or_default();
                let agent = self.dialect.events.agent.agent().name;
                reporter.warn(
                    at.at(first, Target::Node),
                    format!(
                        "{message}; {agent} ignores it and gives the hook its default of {} s, and so does this engine",
                        ms / 1_000
                    ),
                );
                builder.set("timeout_ms", first, Value::from(ms), at.node.key(first));
            }
            Err(message) => {
                reporter.error(at.at(first, Target::Node), message);
                return false;
            }
        }
        true
    }

    /// `async`, `asyncRewake` and `once`: an `async` observer where the dialect runs those in the background, a
    /// warning for what runs differently here. Whether they were read (false: one is no boolean).
    fn flags(
        &self,
        handler: &Map<String, Value>,
        at: &HandlerAt<'_>,
        builder: &mut HookBuilder,
        reporter: &mut Reporter<'_>,
    ) -> bool {
        let agent = self.dialect.events.agent.agent().name;
        let mut read = true;
        for key in ["async", "asyncRewake", "once"] {
            match handler.get(key) {
                None | Some(Value::Bool(false)) => {}
                Some(Value::Bool(true)) if key == "async" && self.dialect.async_observers => {
                    // An observer runs in the background as in the agent; the normalizer says what happens on a gate.
                    builder.set("async", key, Value::Bool(true), at.node.key(key));
                }
                Some(Value::Bool(true)) if key == "once" => reporter.warn(
                    at.at(key, Target::Node),
                    "`once` is honoured by Claude Code in skill and agent frontmatter only; this hook runs on every \
                     event",
                ),
                Some(Value::Bool(true)) => reporter.warn(
                    at.at(key, Target::Node),
                    format!(
                        "`{key}: true`: {agent} runs this hook in the background, where its answer comes too late to \
                         block; this engine runs it to completion, so a block it returns takes effect"
                    ),
                ),
                Some(other) => {
                    let found = describe(other);
                    reporter.error(at.at(key, Target::Node), format!("expected `true` or `false`, found {found}"));
                    read = false;
                }
            }
        }
        read
    }

    /// Builds the command hook and adds it to the file, under its run-once id where the dialect has the rule.
    fn push_command(
        &mut self,
        mut builder: HookBuilder,
        Line { command, args, interpreter }: Line,
        handler: &Map<String, Value>,
        at: &HandlerAt<'_>,
        target: &GroupTarget<'_>,
        reporter: &mut Reporter<'_>,
    ) {
        let node = &at.node;
        builder.set("on", "on", Value::String(target.on.to_owned()), target.event_node.clone());
        builder.set("kind", "type", Value::String("command".into()), node.key("type"));
        match &args {
            Some(args) => exec_form(&mut builder, &command, args, node),
            None => builder.set(interpreter.key(), "command", Value::String(command.clone()), node.key("command")),
        }
        self.group_fields(&mut builder, target);
        self.condition(handler, at, &mut builder);
        if let Some((value, node)) = &target.sequential {
            builder.set("sequential", "sequential", (*value).clone(), node.clone());
        }
        if let Some(env) = handler.get("env").filter(|_| self.dialect.carried.contains(&"env")) {
            builder.set("env", "env", env.clone(), node.key("env"));
        }
        if self.dialect.run_once {
            let matcher = target.matcher.map(|(p, _)| p.as_str());
            let mut key = json!({"command": command, "matcher": matcher, "on": target.on});
            run_once_extras(&mut key, handler, &["args", "shell", "if"]);
            let key = crate::hash::hash_canonical(&key);
            let id = format!("claude.command.{key}");
            self.keep_once(&mut builder, id, "command", "runs", at, reporter);
        }
        self.file.hooks.push(builder.finish());
    }

    /// What every hook of the group shares: the group's matcher, and the file's `disableAllHooks`.
    fn group_fields(&self, builder: &mut HookBuilder, target: &GroupTarget<'_>) {
        if let Some((pattern, matcher_node)) = target.matcher {
            builder.set("matcher", "matcher", Value::String(pattern.clone()), matcher_node.clone());
        }
        if self.disabled {
            builder.set("enabled", "enabled", Value::Bool(false), NodePath::default().key("disableAllHooks"));
        }
    }
}

/// Where one handler is: its position among the file's handlers, the path the file spells and its node.
struct HandlerAt<'p> {
    index: usize,
    path: &'p str,
    node: NodePath,
}

impl HandlerAt<'_> {
    /// The place of the handler's `key`, or of the handler itself for `""`.
    fn at(&self, key: &str, target: Target) -> Place {
        let (field, node) = if key.is_empty() {
            (self.path.to_owned(), self.node.clone())
        } else {
            (format!("{}.{key}", self.path), self.node.key(key))
        };
        Place { index: Some(self.index), hook_id: None, field: Some(field), node: Some((node, target)) }
    }
}

/// A command handler's `command`, reported where it is missing, empty or no string.
fn command(handler: &Map<String, Value>, at: &HandlerAt<'_>, reporter: &mut Reporter<'_>) -> Option<String> {
    match handler.get("command") {
        Some(Value::String(command)) if !command.trim().is_empty() => Some(command.clone()),
        Some(Value::String(_)) => {
            reporter.error(at.at("command", Target::Node), "`command` is empty; expected a shell command to run");
            None
        }
        Some(other) => {
            let found = describe(other);
            reporter.error(at.at("command", Target::Node), format!("expected a shell command string, found {found}"));
            None
        }
        None => {
            reporter.error(at.at("", Target::Node), "a command hook needs `command` (the shell command to run)");
            None
        }
    }
}

/// Claude Code's per-handler failure policy (`onFailure`, since 2.1.197): `"block"` makes a failure count as exit 2
/// on the events that guard something, which is `on_error: deny` here; `"continue"` is its default, the protocol's
/// own. Whether it was read (false: an error was reported, and the hook is not loaded, so its gate closes).
fn on_failure(
    handler: &Map<String, Value>,
    at: &HandlerAt<'_>,
    builder: &mut HookBuilder,
    reporter: &mut Reporter<'_>,
) -> bool {
    match handler.get("onFailure") {
        None => true,
        Some(Value::String(word)) if word == "continue" => true,
        Some(Value::String(word)) if word == "block" => {
            builder.set("on_error", "onFailure", Value::String("deny".into()), at.node.key("onFailure"));
            true
        }
        Some(other) => {
            let found = describe(other);
            reporter.error(
                at.at("onFailure", Target::Node),
                format!("expected `\"continue\"` or `\"block\"`, found {found}"),
            );
            false
        }
    }
}

impl GroupReader<'_> {
    /// The handler's `if` condition, where the dialect has one, handed to the normalizer, which parses it
    /// (docs/declarations.md#if).
    fn condition(&self, handler: &Map<String, Value>, at: &HandlerAt<'_>, builder: &mut HookBuilder) {
        if !self.dialect.handler_keys.contains(&"if") {
            return;
        }
        if let Some(rule) = handler.get("if").filter(|v| !v.is_null()) {
            builder.set("if", "if", rule.clone(), at.node.key("if"));
        }
    }
}

/// Adds to a run-once key what else makes two handlers differ for Claude Code (`args`, `shell`, `if`), each only
/// where the handler has it, so a handler without them keeps the id it always had.
fn run_once_extras(key: &mut Value, handler: &Map<String, Value>, keys: &[&str]) {
    for name in keys {
        if let (Some(value), Value::Object(key)) = (handler.get(*name).filter(|v| !v.is_null()), &mut *key) {
            key.insert((*name).to_owned(), value.clone());
        }
    }
}

/// The project variable Claude Code substitutes in each word of an exec-form handler.
const PROJECT_PLACEHOLDER: &str = "${CLAUDE_PROJECT_DIR}";

/// The exec form: `command` is the program, spawned with `args`, no shell. Claude Code replaces
/// `${CLAUDE_PROJECT_DIR}` in each word with the project directory; a handler that uses it runs as one `sh -c` line
/// whose words are all quoted but for that variable (set for every Claude hook), so the program gets the same words.
fn exec_form(builder: &mut HookBuilder, command: &str, args: &[Value], node: &NodePath) {
    let words: Vec<&str> = std::iter::once(command).chain(args.iter().filter_map(Value::as_str)).collect();
    if words.iter().any(|w| w.contains(PROJECT_PLACEHOLDER)) {
        let quote = |part: &str| format!("'{}'", part.replace('\'', "'\\''"));
        let word =
            |w: &str| w.split(PROJECT_PLACEHOLDER).map(quote).collect::<Vec<_>>().join("\"$CLAUDE_PROJECT_DIR\"");
        let line = words.iter().map(|w| word(w)).collect::<Vec<_>>().join(" ");
        builder.set("shell", "args", Value::String(line), node.key("args"));
    } else {
        let argv = words.into_iter().map(|w| Value::String(w.to_owned())).collect();
        builder.set("argv", "args", Value::Array(argv), node.key("args"));
    }
}

/// The exec form's `args`: `Some(None)` where there are none, `Some(Some(args))` for a list of strings, `None` (an
/// error, reported) for anything else.
fn args(handler: &Map<String, Value>, at: &HandlerAt<'_>, reporter: &mut Reporter<'_>) -> Option<Option<Vec<Value>>> {
    match handler.get("args") {
        None | Some(Value::Null) => Some(None),
        Some(Value::Array(args)) if args.iter().all(Value::is_string) => Some(Some(args.clone())),
        Some(other) => {
            let found = describe(other);
            reporter.error(
                at.at("args", Target::Node),
                format!("expected a list of argument strings (the exec form: `command` is the program), found {found}"),
            );
            None
        }
    }
}

/// A command handler's line, its exec-form arguments, and what runs the line.
struct Line {
    command: String,
    args: Option<Vec<Value>>,
    interpreter: Interpreter,
}

/// What runs a command handler's line: `shell` as Claude Code reads it.
#[derive(Clone, Copy)]
enum Interpreter {
    /// None, or `bash`: a POSIX shell.
    Sh,
    /// `powershell`.
    PowerShell,
}

impl Interpreter {
    /// The engine's own key for a line this runs.
    fn key(self) -> &'static str {
        match self {
            Interpreter::Sh => "shell",
            Interpreter::PowerShell => "powershell",
        }
    }
}

/// The handler's `shell`: none or `bash` is a POSIX shell, `powershell` PowerShell, and any other value is an error
/// (`None`; the hook is not loaded).
fn shell(handler: &Map<String, Value>, at: &HandlerAt<'_>, reporter: &mut Reporter<'_>) -> Option<Interpreter> {
    match handler.get("shell") {
        None => Some(Interpreter::Sh),
        Some(Value::String(shell)) if shell == "bash" => Some(Interpreter::Sh),
        Some(Value::String(shell)) if shell == "powershell" => Some(Interpreter::PowerShell),
        Some(other) => {
            let found = match other {
                Value::String(s) => format!("`{s}`"),
                other => describe(other).to_owned(),
            };
            reporter
                .error(at.at("shell", Target::Node), format!("expected `\"bash\"` or `\"powershell\"`, found {found}"));
            None
        }
    }
}

impl GroupReader<'_> {
    /// Claude Code runs (or sends) identical handlers once: gives the hook its content `id` and, when an earlier
    /// handler of the file had the same one, drops that copy with a warning at `place` naming where it was. `same`
    /// is what makes two handlers identical besides event and matcher (`command`, `prompt`, `URL`); `at` is where the
    /// handler is.
    fn keep_once(
        &mut self,
        builder: &mut HookBuilder,
        id: String,
        same: &str,
        verb: &str,
        at: &HandlerAt<'_>,
        reporter: &mut Reporter<'_>,
    ) {
        builder.set("id", "id", Value::String(id.clone()), at.node.clone());
        let position = self.file.hooks.len();
        if let Some((earlier, earlier_path)) = self.seen.insert(id, (position, at.path.to_owned())) {
            reporter.warn(
                at.at("", Target::Node),
                format!(
                    "identical to the handler at `{earlier_path}` (same event, matcher and {same}): Claude Code \
                     {verb} it once, so that copy is dropped and this one is kept"
                ),
            );
            self.replaced.insert(earlier);
        }
    }

    /// A handler a model evaluates (`type: "prompt"` or `"agent"`): a `kind: evaluated` hook, answered by the host's
    /// evaluator, or reported `skipped` by a host without one.
    fn evaluated(
        &mut self,
        handler: &Map<String, Value>,
        kind: &str,
        at: &HandlerAt<'_>,
        target: &GroupTarget<'_>,
        reporter: &mut Reporter<'_>,
    ) {
        let agent = self.dialect.events.agent.agent().name;
        let (index, node) = (at.index, &at.node);
        for key in handler.keys().filter(|k| !self.dialect.handler_keys.contains(&k.as_str())) {
            unknown_key(reporter, at.at(key, Target::Key), key, self.dialect.handler_keys, agent);
        }
        let prompt = match handler.get("prompt") {
            Some(Value::String(prompt)) if !prompt.trim().is_empty() => prompt.clone(),
            Some(Value::String(_)) => {
                reporter.error(at.at("prompt", Target::Node), "`prompt` is empty; expected what the model is asked");
                return;
            }
            Some(other) => {
                let found = describe(other);
                reporter.error(at.at("prompt", Target::Node), format!("expected a prompt string, found {found}"));
                return;
            }
            None => {
                reporter.error(
                    at.at("", Target::Node),
                    format!("a `{kind}` hook needs `prompt` (what the model is asked)"),
                );
                return;
            }
        };
        // Claude Code's defaults: 30 s for a prompt hook, 60 s for an agent hook.
        let mut timeout_ms: u64 = if kind == "agent" { 60_000 } else { 30_000 };
        if let Some(value) = handler.get("timeout").filter(|v| !v.is_null()) {
            match (self.dialect.timeout)(value) {
                Ok(ms) => timeout_ms = ms,
                Err(message) => {
                    reporter.error(at.at("timeout", Target::Node), message);
                    return;
                }
            }
        }
        let model = match handler.get("model") {
            None | Some(Value::Null) => None,
            Some(Value::String(model)) => Some(model.clone()),
            Some(other) => {
                reporter
                    .error(at.at("model", Target::Node), format!("expected a model name, found {}", describe(other)));
                return;
            }
        };
        let mut builder = HookBuilder::new(index, node.clone());
        builder.set("on", "on", Value::String(target.on.to_owned()), target.event_node.clone());
        builder.set("kind", "type", Value::String("evaluated".into()), node.key("type"));
        builder.set("prompt", "prompt", Value::String(prompt.clone()), node.key("prompt"));
        builder.set("timeout_ms", "timeout", Value::from(timeout_ms), node.key("timeout"));
        if let Some(model) = model {
            builder.set("model", "model", Value::String(model), node.key("model"));
        }
        if kind == "agent" {
            builder.set("agent", "type", Value::Bool(true), node.key("type"));
        }
        self.group_fields(&mut builder, target);
        self.condition(handler, at, &mut builder);
        if self.dialect.run_once {
            let matcher = target.matcher.map(|(p, _)| p.as_str());
            let mut key = json!({"type": kind, "prompt": prompt, "matcher": matcher, "on": target.on});
            run_once_extras(&mut key, handler, &["if"]);
            let key = crate::hash::hash_canonical(&key);
            let id = format!("claude.evaluated.{key}");
            self.keep_once(&mut builder, id, "prompt", "runs", at, reporter);
        }
        self.file.hooks.push(builder.finish());
    }
}

impl GroupReader<'_> {
    /// A handler that cannot run here (an `mcp_tool` call), never dropped in silence: on a
    /// gate its gate is closed for exactly the calls it would have seen — an effect hook with its matcher and its
    /// `if` that denies them, the reason naming the handler — and a warning says so; on any other event, where it
    /// could only have observed or added context, a warning says it does not run.
    fn closed_gate(
        &mut self,
        handler: &Map<String, Value>,
        at: &HandlerAt<'_>,
        target: &GroupTarget<'_>,
        why: &str,
        reporter: &mut Reporter<'_>,
    ) {
        let event = hook_types::Event::parse(target.on).ok().map(|parsed| parsed.event);
        let Some(gate) = event.filter(crate::is_gate) else {
            let on = target.on;
            reporter.warn(at.at("", Target::Node), format!("{why}; on {on}, not a gate, it is not loaded"));
            return;
        };
        let reason = crate::closed_gate::unrunnable_reason(reporter.source(), at.path, why);
        reporter.warn(
            at.at("", Target::Node),
            format!("{why}; its gate is closed instead: every call it would have run on is denied"),
        );
        let effect = match gate {
            hook_types::Event::TurnStart => json!({"kind": "block_turn", "reason": reason}),
            _ => json!({"kind": "block_tool", "reason": reason, "severity": "hard-block"}),
        };
        let node = &at.node;
        let mut builder = HookBuilder::new(at.index, node.clone());
        builder.set("on", "on", Value::String(target.on.to_owned()), target.event_node.clone());
        builder.set("kind", "type", Value::String("effect".into()), node.key("type"));
        builder.set("effect", "type", effect, node.key("type"));
        self.group_fields(&mut builder, target);
        self.condition(handler, at, &mut builder);
        if self.dialect.run_once {
            let matcher = target.matcher.map(|(p, _)| p.as_str());
            let mut key = json!({"closed": handler, "matcher": matcher, "on": target.on});
            run_once_extras(&mut key, handler, &["if"]);
            let id = format!("claude.closed.{}", crate::hash::hash_canonical(&key));
            self.keep_once(&mut builder, id, "handler", "runs", at, reporter);
        }
        self.file.hooks.push(builder.finish());
    }
}

/// The keys of Claude Code's `type: "http"` handler.
const HTTP_KEYS: &[&str] =
    &["type", "url", "headers", "allowedEnvVars", "timeout", "statusMessage", "once", "async", "if"];

impl GroupReader<'_> {
    /// Claude Code's `type: "http"` handler: its event POSTed to `url` with `headers` (values reading only the
    /// variables `allowedEnvVars` lists), `timeout` in seconds; read as a native `kind: http` hook with
    /// `format: claude`, whose failures follow the Claude protocol (a non-blocking error unless `on_error` says
    /// otherwise, as Claude Code does).
    fn http_handler(
        &mut self,
        handler: &Map<String, Value>,
        at: &HandlerAt<'_>,
        target: &GroupTarget<'_>,
        reporter: &mut Reporter<'_>,
    ) {
        let (index, node) = (at.index, &at.node);
        for key in handler.keys().filter(|k| !HTTP_KEYS.contains(&k.as_str())) {
            unknown_key(reporter, at.at(key, Target::Key), key, HTTP_KEYS, "Claude Code");
        }
        let Some(url) = handler.get("url") else {
            reporter.error(at.at("", Target::Node), "an http hook needs `url` (where its event is POSTed)");
            return;
        };
        let mut builder = HookBuilder::new(index, node.clone());
        let mut loadable = true;
        if let Some(timeout) = handler.get("timeout").filter(|v| !v.is_null()) {
            match seconds_to_ms(timeout) {
                Ok(ms) => builder.set("timeout_ms", "timeout", Value::from(ms), node.key("timeout")),
                Err(message) => {
                    reporter.error(at.at("timeout", Target::Node), message);
                    loadable = false;
                }
            }
        }
        if let Some(Value::Bool(true)) = handler.get("async") {
            reporter.warn(
                at.at("async", Target::Node),
                "`async: true`: Claude Code sends this request in the background, where its answer comes too late to \
                 block; this engine waits for it, so a block it returns takes effect",
            );
        }
        if !loadable {
            return;
        }
        builder.set("on", "on", Value::String(target.on.to_owned()), target.event_node.clone());
        builder.set("kind", "type", Value::String("http".into()), node.key("type"));
        builder.set("url", "url", url.clone(), node.key("url"));
        builder.set("format", "type", Value::String("claude".into()), node.key("type"));
        if let Some(headers) = handler.get("headers") {
            builder.set("headers", "headers", headers.clone(), node.key("headers"));
        }
        // Claude Code reads no variable unless it is listed: an absent list is an empty one.
        let allowed = handler.get("allowedEnvVars").cloned().unwrap_or_else(|| Value::Array(Vec::new()));
        builder.set("allowed_env_vars", "allowedEnvVars", allowed, node.key("allowedEnvVars"));
        self.group_fields(&mut builder, target);
        self.condition(handler, at, &mut builder);
        let matcher = target.matcher.map(|(p, _)| p.as_str());
        let mut key = json!({"url": url, "matcher": matcher, "on": target.on});
        run_once_extras(&mut key, handler, &["if"]);
        let key = crate::hash::hash_canonical(&key);
        let id = format!("claude.http.{key}");
        self.keep_once(&mut builder, id, "URL", "sends", at, reporter);
        self.file.hooks.push(builder.finish());
    }
}

/// Where the handlers of one group go: the event as the normalizer reads it, and the group's matcher.
struct GroupTarget<'a> {
    on: &'a str,
    matcher: Option<&'a (String, NodePath)>,
    event_node: &'a NodePath,
    /// The group's `sequential`, where the dialect carries it.
    sequential: Option<(&'a Value, NodePath)>,
}

/// A place outside any one hook, by the path the file spells (`hooks.PreToolUse[0].matcher`).
fn file_place(field: String, node: NodePath, target: crate::parse::Target) -> Place {
    Place { field: (!field.is_empty()).then_some(field), node: Some((node, target)), ..Place::default() }
}
