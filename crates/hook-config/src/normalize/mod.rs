//! The one normalizer (docs/declarations.md): a hook in the intermediate form in, a validated [`HookDecl`] out.
//!
//! Every rule of docs/declarations.md is enforced here, for every format: a reader only says what the file holds. A hook with any
//! error-level issue is dropped — after all its issues are reported, so one pass over a file shows everything to
//! fix — and its siblings load. Warnings never drop a hook.
//!
//! Event filters: an alias can imply a filter (`PostToolUseFailure` is `post_tool` with `only_errors`,
//! `SubagentStop` is `turn_end` with `scope: subagent`); an explicit field may restate it but not contradict it.

mod background;
mod clio;
mod command;
mod condition;
mod evaluated;
mod fields;
mod http;
mod policy;
mod program;
mod shell_command;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hook_types::{Effect, Event, EventFilters, HookKind, OnError, Origin, Protocol, Scope, Severity};
use serde_json::Value;

use crate::formats::{WireField, WireHook};
use crate::issues::Reporter;
use crate::model::{Format, HookDecl, HookSpec, Matcher};
use fields::HookReader;

/// The longest prompt message kept (docs/declarations.md); longer ones are cut with a warning.
pub(crate) const PROMPT_MAX_CHARS: usize = 2_000;

/// What normalizing the hooks of one file needs.
pub(crate) struct NormalizeCx<'c> {
    pub(crate) origin: Origin,
    /// The workspace root, canonical (symlinks resolved) so confinement checks compare like with like.
    pub(crate) workspace: PathBuf,
    /// The origin root (relative program paths resolve against it).
    pub(crate) root: &'c Path,
    pub(crate) source: &'c Path,
    pub(crate) format: Format,
    /// Prefix of default ids.
    pub(crate) id_prefix: String,
    /// What the file's hooks share, worked out once per file.
    pub(crate) memo: Memo,
}

/// Work the hooks of one file share: a file often repeats one matcher, one script and one `cwd`, and compiling a
/// regex or asking the filesystem costs more than the rest of normalizing a hook. Files are taken to stay put for
/// the length of one file's load.
///
/// Every answer the filesystem (or this process's `PATH`) gave while normalizing is kept here, so the load cache can
/// store them beside the file's declarations and ask each question again before it serves them ([`Memo::probes`]).
#[derive(Default)]
pub(crate) struct Memo {
    /// Compiled matchers, by pattern.
    matchers: RefCell<HashMap<String, Option<Matcher>>>,
    /// What each resolved program path is.
    programs: RefCell<HashMap<PathBuf, program::ProgramState>>,
    /// Whether each bare program name is on this process's `PATH`.
    on_path: RefCell<HashMap<String, bool>>,
    /// Whether each bare program name is on a hook's own `env.PATH` (name, that `PATH`).
    on_hook_path: RefCell<HashMap<(String, String), bool>>,
    /// Each `cwd` as written: resolved and confined, or why not.
    cwds: RefCell<HashMap<String, Result<PathBuf, String>>>,
    /// Whether each path exists (a clio-coder `cwd` that is checked only lexically).
    exists: RefCell<HashMap<PathBuf, bool>>,
}

/// One question the normalizer asked the filesystem (or the environment), with the answer it got: what a cached
/// load depends on besides the file's bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Probe {
    /// [`program::state_of`] of a path.
    Program(PathBuf, program::ProgramState),
    /// A bare name looked up on this process's `PATH`.
    OnPath(String, bool),
    /// A bare name looked up on a hook's own `PATH`.
    OnHookPath(String, String, bool),
    /// A `cwd` resolved against the (canonical) workspace.
    Cwd(String, Result<PathBuf, String>),
    /// Whether a path exists.
    Exists(PathBuf, bool),
}

impl Probe {
    /// Whether asking again gives the same answer now.
    pub(crate) fn holds(&self, workspace: &Path) -> bool {
        match self {
            Probe::Program(path, state) => program::state_of(path) == *state,
            Probe::OnPath(name, found) => {
                std::env::var_os("PATH").is_some_and(|path| program::search(name, &path) == *found)
            }
            Probe::OnHookPath(name, path, found) => program::search(name, std::ffi::OsStr::new(path)) == *found,
            Probe::Cwd(cwd, resolved) => command::resolve_cwd(cwd, workspace) == *resolved,
            Probe::Exists(path, exists) => path.exists() == *exists,
        }
    }
}

impl Memo {
    /// Every question asked and its answer (matchers are no question: a pattern compiles the same everywhere).
    pub(crate) fn probes(&self) -> Vec<Probe> {
        let mut probes: Vec<Probe> = Vec::new();
        probes.extend(self.programs.borrow().iter().map(|(p, s)| Probe::Program(p.clone(), s.clone())));
        probes.extend(self.on_path.borrow().iter().map(|(n, f)| Probe::OnPath(n.clone(), *f)));
        probes.extend(self.on_hook_path.borrow().iter().map(|((n, p), f)| Probe::OnHookPath(n.clone(), p.clone(), *f)));
        probes.extend(self.cwds.borrow().iter().map(|(c, r)| Probe::Cwd(c.clone(), r.clone())));
        probes.extend(self.exists.borrow().iter().map(|(p, e)| Probe::Exists(p.clone(), *e)));
        probes
    }

    /// Whether `path` exists, asked once per distinct path.
    fn exists(&self, path: &Path) -> bool {
        if let Some(&known) = self.exists.borrow().get(path) {
            return known;
        }
        let exists = path.exists();
        self.exists.borrow_mut().insert(path.to_path_buf(), exists);
        exists
    }
}

impl NormalizeCx<'_> {
    /// [`Matcher::parse`], once per distinct pattern.
    fn matcher(&self, pattern: &str) -> Result<Option<Matcher>, regex::Error> {
        if let Some(compiled) = self.memo.matchers.borrow().get(pattern) {
            return Ok(compiled.clone());
        }
        let compiled = Matcher::parse(pattern)?;
        self.memo.matchers.borrow_mut().insert(pattern.to_owned(), compiled.clone());
        Ok(compiled)
    }

    /// What `path` is as a program, asked once per distinct path.
    fn program_state(&self, path: &Path) -> program::ProgramState {
        if let Some(state) = self.memo.programs.borrow().get(path) {
            return state.clone();
        }
        let state = program::state_of(path);
        self.memo.programs.borrow_mut().insert(path.to_path_buf(), state.clone());
        state
    }

    /// `resolve(cwd)`, once per distinct `cwd`.
    fn cwd(&self, cwd: &str, resolve: impl FnOnce(&str) -> Result<PathBuf, String>) -> Result<PathBuf, String> {
        if let Some(known) = self.memo.cwds.borrow().get(cwd) {
            return known.clone();
        }
        let resolved = resolve(cwd);
        self.memo.cwds.borrow_mut().insert(cwd.to_owned(), resolved.clone());
        resolved
    }
}

/// What is known of a hook that was dropped for an error-level issue: enough to tell which gate it leaves without
/// its guard (see [`crate::closed_gate`]).
#[derive(Debug, Clone)]
pub(crate) struct Dropped {
    /// Its position in the file.
    pub(crate) index: usize,
    /// Its event, where `on` named one (even one this hook may not use, such as another agent's event in a native
    /// file); `None` when `on` is missing, unknown or not a string.
    pub(crate) event: Option<Event>,
    /// It says `enabled: false`: it would not have run even if it could be read.
    pub(crate) disabled: bool,
}

/// Normalizes one hook; `Err` when it has an error-level issue (reported), with what is known of it.
pub(crate) fn normalize(
    wire: WireHook,
    cx: &NormalizeCx<'_>,
    reporter: &mut Reporter<'_>,
) -> Result<HookDecl, Dropped> {
    let mut hook = HookReader::new(wire, reporter);

    let id = read_id(&mut hook, cx.format);
    let protocol = read_protocol(&mut hook, cx.format);
    let (parsed, named) = read_event(&mut hook, protocol);
    let kind = read_kind(&mut hook);
    let (event, alias_filters) = match parsed {
        Some((event, filters)) => (Some(event), filters),
        None => (None, EventFilters::default()),
    };
    let filters = read_filters(&mut hook, event.as_ref(), alias_filters);
    let (tools, matcher) = read_targets(&mut hook, event.as_ref(), protocol, cx);
    let condition = condition::read(&mut hook, event.as_ref(), protocol, cx.format);
    let sequential = hook.bool("sequential").is_some_and(|(b, _)| b);
    let enabled = hook.bool("enabled").is_none_or(|(b, _)| b);
    hook.disabled = !enabled;
    let dropped = |hook: &HookReader<'_, '_>| Dropped { index: hook.index, event: named.clone(), disabled: !enabled };
    let on_error = hook.choice("on_error", &["deny", "ignore"]).map(|(choice, _)| match choice {
        "deny" => OnError::Deny,
        _ => OnError::Ignore,
    });

    // The spec is read even when the event is unusable, so its own issues show in the same pass; checks that need
    // the event are skipped then.
    let spec = match kind {
        Some(HookKind::Command) => command::read(&mut hook, event.as_ref(), protocol, cx).map(HookSpec::Command),
        Some(HookKind::Prompt) => read_prompt(&mut hook, event.as_ref()),
        Some(HookKind::Effect) => read_effect(&mut hook, event.as_ref(), protocol),
        Some(HookKind::Evaluated) => evaluated::read(&mut hook, event.as_ref(), protocol),
        Some(HookKind::Http) => http::read(&mut hook, protocol).map(HookSpec::Http),
        Some(HookKind::Policy) => policy::read(&mut hook, protocol, cx).map(HookSpec::Policy),
        Some(HookKind::InProcess) | None => None,
    };
    let run_async = background::read_async(&mut hook, event.as_ref(), kind, cx.format);
    let resolved_on_error = match (on_error, event.as_ref()) {
        (Some(on_error), _) => on_error,
        (None, Some(event)) => protocol.default_on_error(event),
        (None, None) => OnError::Deny,
    };
    let command = shell_command::read(&mut hook, event.as_ref(), resolved_on_error);
    if let Some(kind) = kind {
        reject_fields_of_other_kinds(&mut hook, kind);
    }

    let (Some(event), Some(spec), false) = (event, spec, hook.failed) else {
        return Err(dropped(&hook));
    };
    let on_error = on_error.unwrap_or_else(|| protocol.default_on_error(&event));
    let mut decl = HookDecl {
        id: String::new(),
        origin: cx.origin,
        source: cx.source.to_path_buf(),
        format: cx.format,
        index: hook.index,
        root: cx.root.to_path_buf(),
        event,
        filters,
        tools,
        matcher,
        condition,
        command,
        sequential,
        run_async,
        enabled: enabled && !hook.inert,
        protocol,
        on_error,
        spec,
        hash: String::new(),
    };
    decl.hash = crate::hash::content_hash(&decl);
    decl.id = id.unwrap_or_else(|| format!("{}.{}.{}", cx.id_prefix, decl.kind().as_str(), decl.hash));
    Ok(decl)
}

/// Whether `id` is a valid hook id: non-empty, lowercase `[a-z0-9._-]`.
pub(crate) fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'))
}

/// `name` made into a valid id prefix: lowercased, other characters replaced by `-`.
pub fn id_prefix(name: &str) -> String {
    let prefix: String = name
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-') { c } else { '-' }
        })
        .collect();
    if prefix.is_empty() { "hook".to_owned() } else { prefix }
}

fn read_id(hook: &mut HookReader<'_, '_>, format: Format) -> Option<String> {
    if format == Format::Clio {
        return clio::read_id(hook);
    }
    let (id, field) = hook.string("id")?;
    if !is_valid_id(&id) {
        hook.error(
            Some(&field),
            format!("invalid id `{id}`: expected lowercase letters, digits, `.`, `_` and `-` only"),
        );
        return None;
    }
    hook.hook_id = Some(id.clone());
    Some(id)
}

fn read_protocol(hook: &mut HookReader<'_, '_>, format: Format) -> Protocol {
    let names = Protocol::ALL.map(Protocol::as_str);
    match hook.choice("protocol", &names) {
        Some((name, _)) => Protocol::ALL.into_iter().find(|p| p.as_str() == name).unwrap_or(format),
        None => format,
    }
}

/// The event and the filters its alias implies, if the hook may use it; and the event `on` names, if it names one.
fn read_event(hook: &mut HookReader<'_, '_>, protocol: Protocol) -> (Option<(Event, EventFilters)>, Option<Event>) {
    let Some(field) = hook.take("on") else {
        hook.missing("on", "missing required field `on` (the event, e.g. `pre_tool`)");
        return (None, None);
    };
    let Value::String(name) = &field.value else {
        hook.wrong_type(&field, "an event name (e.g. `pre_tool`)");
        return (None, None);
    };
    match Event::parse(name) {
        Ok(parsed) if parsed.event.is_foreign() && protocol == Protocol::Native => {
            hook.error(
                Some(&field),
                format!(
                    "`{name}` is another agent's event; it is allowed only on a hook whose `protocol` is not native \
                     (set `protocol` to that agent's)"
                ),
            );
            (None, Some(parsed.event))
        }
        Ok(parsed) => {
            let event = parsed.event.clone();
            (Some((parsed.event, parsed.filters)), Some(event))
        }
        Err(err) => {
            hook.error(Some(&field), err.to_string());
            (None, None)
        }
    }
}

fn read_kind(hook: &mut HookReader<'_, '_>) -> Option<HookKind> {
    if !hook.has("kind") {
        hook.missing(
            "kind",
            "missing required field `kind` (`command`, `prompt`, `effect`, `evaluated`, `http` or `policy`)",
        );
        return None;
    }
    let (kind, field) = hook.choice("kind", &["command", "prompt", "effect", "evaluated", "http", "policy"])?;
    let kind = match kind {
        "command" => HookKind::Command,
        "prompt" => HookKind::Prompt,
        "evaluated" => HookKind::Evaluated,
        "http" => HookKind::Http,
        "policy" => HookKind::Policy,
        _ => HookKind::Effect,
    };
    // A kind this build cannot run is an error, so the hook is dropped and the gate it was on closes; its fields
    // are still read, so one pass shows everything else there is to fix.
    if !crate::supports_kind(kind) {
        hook.error(Some(&field), crate::unsupported_kind(kind));
    }
    Some(kind)
}

fn read_filters(hook: &mut HookReader<'_, '_>, event: Option<&Event>, implied: EventFilters) -> EventFilters {
    let mut filters = implied;
    if let Some((only_errors, field)) = hook.bool("only_errors") {
        if implied.only_errors && !only_errors {
            hook.error(Some(&field), "contradicts the event alias, which implies `only_errors: true`");
        } else if only_errors && event.is_some_and(|e| *e != Event::PostTool) {
            hook.error(
                Some(&field),
                format!(
                    "`only_errors` applies to post_tool only, not {}",
                    event.map(Event::to_string).unwrap_or_default()
                ),
            );
        }
        filters.only_errors |= only_errors;
    }
    if let Some((scope, field)) = hook.choice("scope", &["main", "subagent", "any"]) {
        let scope = match scope {
            "main" => Scope::Main,
            "subagent" => Scope::Subagent,
            _ => Scope::Any,
        };
        if implied.scope != Scope::Main && scope != implied.scope {
            hook.error(Some(&field), "contradicts the event alias, which implies `scope: subagent`");
        } else if scope != Scope::Main && event.is_some_and(|e| *e != Event::TurnEnd) {
            hook.error(
                Some(&field),
                format!("`scope` applies to turn_end only, not {}", event.map(Event::to_string).unwrap_or_default()),
            );
        }
        if implied.scope == Scope::Main {
            filters.scope = scope;
        }
    }
    filters
}

/// `tools` and `matcher`: what the event's own match value (tool name, `source`, `trigger`) must be.
fn read_targets(
    hook: &mut HookReader<'_, '_>,
    event: Option<&Event>,
    protocol: Protocol,
    cx: &NormalizeCx<'_>,
) -> (Option<Vec<String>>, Option<Matcher>) {
    let tools = hook.string_list("tools", "a tool name").map(|(tools, field)| {
        let tools = canonical_tools(hook, tools, &field, protocol);
        (tools, field)
    });
    if let (Some((_, field)), Some(event)) = (&tools, event)
        && !event.is_tool_event()
    {
        let field = field.clone();
        let message = format!("`tools` applies to tool events (pre_tool, permission_request, post_tool), not {event}");
        if protocol == Protocol::Clio {
            clio::inert_tools(hook, &field, event, message);
        } else {
            hook.error(Some(&field), message);
        }
    }
    let mut matcher = None;
    if let Some((pattern, field)) = hook.string("matcher") {
        match cx.matcher(&pattern) {
            // `*` and empty match everything: the same as no matcher, so nothing below can conflict with it.
            Ok(None) => {}
            Ok(Some(compiled)) => {
                if tools.is_some() {
                    hook.error(Some(&field), "`tools` and `matcher` are both set; use one of them");
                } else if let Some(event) = event
                    && !(event.is_tool_event()
                        || event.is_foreign()
                        || matches!(event, Event::SessionStart | Event::Compaction))
                {
                    hook.error(
                        Some(&field),
                        format!(
                            "`matcher` applies to tool events, session_start (source) and compaction (trigger), not {event}"
                        ),
                    );
                } else if protocol == Protocol::Native && event.is_some_and(Event::is_tool_event) {
                    unknown_matcher_tools(hook, &compiled, &field);
                }
                matcher = Some(compiled);
            }
            Err(err) => hook.error(Some(&field), format!("invalid regex `{pattern}`: {}", one_line(&err.to_string()))),
        }
    }
    (tools.map(|(tools, _)| tools), matcher)
}

/// `tools` entries as canonical tools: an agent's spelling (`Bash`, `run_shell_command`, `mcp__github__search`)
/// means its canonical tool, so the hook fires for that tool under every agent (in a native file a warning names the
/// canonical spelling); a name no agent uses keeps its own name and matches only a tool of exactly that name, with a
/// warning in a native file, since a gate that names a tool that never comes is no gate (an agent's own file may
/// name that agent's own tools).
fn canonical_tools(
    hook: &mut HookReader<'_, '_>,
    tools: Vec<String>,
    field: &WireField,
    protocol: Protocol,
) -> Vec<String> {
    tools
        .into_iter()
        .map(|name| {
            if let Some(pattern) = name.find(['*', '?', '[', '(', '|', '^', '$', '{']) {
                let message = format!(
                    "`tools` entries are exact tool names, so `{name}` (with `{}`) would match no tool; to match by \
                     pattern write `matcher: \"{}\"` (a regex) instead",
                    &name[pattern..=pattern],
                    name.replace('*', ".*").replace('?', ".")
                );
                // A guard waiting for a tool name that never comes is no guard: refused in the engine's own files
                // (which closes the gate), a warning in an agent's (which loads what that agent loads).
                if protocol == Protocol::Native {
                    hook.error(Some(field), message);
                } else {
                    hook.warn(Some(field), message);
                }
                return name;
            }
            if hook_types::CANONICAL_TOOLS.contains(&name.as_str()) || name.starts_with("mcp:") {
                return name;
            }
            match hook_types::canonical_tool(&name) {
                Some(canonical) => {
                    let canonical = canonical.into_owned();
                    if protocol == Protocol::Native {
                        let agents: Vec<&str> = hook_types::AGENTS
                            .iter()
                            .filter(|a| a.canonical_tool(&name).is_some())
                            .map(|a| a.name)
                            .collect();
                        let whose = if agents.is_empty() { String::new() } else { format!(" ({})", agents.join(", ")) };
                        hook.warn(
                            Some(field),
                            format!(
                                "`{name}` is an agent's name{whose} for the tool `{canonical}`; it matches `{canonical}` \
                                 under every agent: write `{canonical}`"
                            ),
                        );
                    }
                    canonical
                }
                None if protocol != Protocol::Native => name,
                None => {
                    let hint = hook_types::suggest_tool(&name).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
                    hook.warn(
                        Some(field),
                        format!(
                            "`{name}` is no tool any known agent uses{hint}; it matches only a tool named exactly \
                             `{name}` (canonical tools: {})",
                            hook_types::CANONICAL_TOOLS.join(", ")
                        ),
                    );
                    name
                }
            }
        })
        .collect()
}

/// An exact-names matcher naming a tool no agent uses: a gate that waits for a tool that never comes is no gate, so
/// each such name is a warning with the nearest tool name (a regex is not guessed at).
fn unknown_matcher_tools(hook: &mut HookReader<'_, '_>, matcher: &Matcher, field: &WireField) {
    let crate::model::MatcherRule::Exact(names) = &matcher.rule else { return };
    for name in names {
        if hook_types::CANONICAL_TOOLS.contains(&name.as_str()) || hook_types::canonical_tool(name).is_some() {
            continue;
        }
        let hint = hook_types::suggest_tool(name).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
        hook.warn(
            Some(field),
            format!(
                "`{name}` is no tool any known agent uses{hint}; the matcher matches only a tool named exactly `{name}`"
            ),
        );
    }
}

fn read_prompt(hook: &mut HookReader<'_, '_>, event: Option<&Event>) -> Option<HookSpec> {
    let message = if hook.has("message") {
        hook.string("message").and_then(|(message, field)| read_message(hook, message, &field, PROMPT_MAX_CHARS))
    } else {
        hook.missing("message", "a prompt hook needs `message`");
        None
    };
    // Read even without a usable message, so a bad severity shows in the same pass.
    let severity = match hook.choice("severity", &["info", "advisory", "warn", "hard-block"]) {
        Some((name, _)) => serde_json::from_value::<Severity>(Value::String(name.into())).unwrap_or_default(),
        None => Severity::Info,
    };
    let reminder = Effect::InjectReminder { message: String::new(), severity };
    if let Some(event) = event
        && !reminder.valid_on(event)
    {
        hook.error(None, format!("a prompt hook adds an `inject_reminder`, which is not valid on {event}"));
    }
    Some(HookSpec::Prompt { message: message?, severity })
}

/// A prompt's message: non-empty, cut to `max` characters with a warning.
fn read_message(hook: &mut HookReader<'_, '_>, mut message: String, field: &WireField, max: usize) -> Option<String> {
    if message.trim().is_empty() {
        hook.error(Some(field), "expected a non-empty message");
        return None;
    }
    let count = message.chars().count();
    if count > max {
        let cut = message.char_indices().nth(max).map_or(message.len(), |(at, _)| at);
        message.truncate(cut);
        hook.warn(Some(field), format!("the message has {count} characters; it was cut to {max}"));
    }
    Some(message)
}

fn read_effect(hook: &mut HookReader<'_, '_>, event: Option<&Event>, protocol: Protocol) -> Option<HookSpec> {
    let Some(field) = hook.take("effect") else {
        hook.missing("effect", "an effect hook needs `effect` (e.g. `effect: { kind: block_tool, reason: ... }`)");
        return None;
    };
    match Effect::from_json(&field.value) {
        Ok(effect) if event.is_none_or(|event| effect.valid_on(event)) => Some(HookSpec::Effect(effect)),
        Ok(effect) => {
            let event = event.expect("checked above");
            let valid: Vec<String> =
                hook_types::CANONICAL_EVENTS.iter().filter(|e| effect.valid_on(e)).map(Event::to_string).collect();
            let message =
                format!("effect `{}` is not valid on {event}; it is valid on {}", effect.kind(), valid.join(", "));
            if protocol == Protocol::Clio && clio::accepts_effect(&effect) {
                clio::inert_effect(hook, &field, message);
                return Some(HookSpec::Effect(effect));
            }
            hook.error(Some(&field), message);
            None
        }
        Err(err) => {
            let place = match &err {
                hook_types::EffectError::UnknownField { field: key, .. } => {
                    hook.place_within(&field, &format!(".{key}"), field.node.key(key), crate::parse::Target::Key)
                }
                hook_types::EffectError::UnknownKind { .. } => {
                    let node = field.node.key("kind");
                    hook.place_within(&field, ".kind", node, crate::parse::Target::Node)
                }
                _ => hook.place(Some(&field), crate::parse::Target::Node),
            };
            let mut message = err.to_string();
            if matches!(err, hook_types::EffectError::UnknownKind { .. } | hook_types::EffectError::MissingKind) {
                let kinds: Vec<&str> = hook_types::effect_kinds().collect();
                message.push_str(&format!("; the effect kinds are {}", kinds.join(", ")));
            }
            hook.error_at(place, message);
            None
        }
    }
}

/// Which kind each kind-specific field belongs to.
const KIND_FIELDS: &[(&str, HookKind)] = &[
    ("argv", HookKind::Command),
    ("shell", HookKind::Command),
    ("powershell", HookKind::Command),
    ("cwd", HookKind::Command),
    ("timeout_ms", HookKind::Command),
    ("as", HookKind::Command),
    ("env", HookKind::Command),
    ("message", HookKind::Prompt),
    ("severity", HookKind::Prompt),
    ("effect", HookKind::Effect),
    ("prompt", HookKind::Evaluated),
    ("model", HookKind::Evaluated),
    ("agent", HookKind::Evaluated),
    ("url", HookKind::Http),
    ("method", HookKind::Http),
    ("headers", HookKind::Http),
    ("format", HookKind::Http),
    ("allowed_env_vars", HookKind::Http),
    ("files", HookKind::Policy),
    ("query", HookKind::Policy),
];

fn reject_fields_of_other_kinds(hook: &mut HookReader<'_, '_>, kind: HookKind) {
    for field in hook.remaining() {
        // A field of the hook's own kind is left over only when its spec was not read (the event was invalid,
        // already reported): nothing more to say about it.
        let owner = KIND_FIELDS.iter().find(|(key, _)| *key == field.key).map(|(_, owner)| *owner);
        // An evaluated hook has a timeout too.
        let shared = field.key == "timeout_ms" && kind == HookKind::Evaluated;
        if let Some(owner) = owner.filter(|owner| *owner != kind && !shared) {
            let message =
                format!("`{}` belongs to {} hooks; this is a {} hook", field.written, owner.as_str(), kind.as_str());
            hook.error(Some(&field), message);
        }
    }
}

/// The first line of a multi-line message (regex errors draw a caret diagram).
fn one_line(message: &str) -> String {
    let last = message.lines().rfind(|l| !l.trim().is_empty()).unwrap_or(message).trim();
    last.strip_prefix("error: ").unwrap_or(last).to_owned()
}
