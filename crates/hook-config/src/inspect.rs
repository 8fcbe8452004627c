//! The inspect report (docs/declarations.md#errors-and-closed-gates): one type that `hook inspect --json` and `cargo xtask inspect --json` serialize,
//! and that renders for humans in 80 columns, grouped by origin.
//!
//! The JSON form is a stable, versioned contract (`"version": 1`): fields are added, never renamed or removed,
//! without a version bump.

use std::path::PathBuf;

use hook_types::{EventClass, HookKind, OnError, Origin, Protocol, Scope};
use serde::{Deserialize, Serialize};

use crate::discover::SourceFile;
use crate::excluded::ExclusionReason;
use crate::load::Config;
use crate::model::{Format, HookSpec, Issue, LoadedHook, Program, TrustStatus};

/// The version of the report's JSON form.
pub const INSPECT_VERSION: u32 = 1;

/// What an operator or reviewer needs to see about a merged configuration.
///
/// ```
/// use hook_config::{load, InspectReport, Layout, LoadOptions};
/// let ws = tempfile::tempdir().unwrap();
/// let cfg = tempfile::tempdir().unwrap();
/// let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None)
///     .with_managed_file(cfg.path().join("none.yaml"));
/// let report = InspectReport::new(&load(&layout, &LoadOptions::default()).unwrap());
/// assert_eq!(report.version, 1);
/// assert!(report.render_text().contains("no hooks"));
/// let json = serde_json::to_value(&report).unwrap();
/// assert_eq!(json["hooks"], serde_json::json!([]));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectReport {
    /// The version of this JSON form: 1.
    pub version: u32,
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The managed file says `only_managed: true`: no other hook runs.
    pub only_managed: bool,
    /// The managed file says `self_protection: false`: the built-in self-protection gate is off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub self_protection_off: bool,
    /// Whether the user origin is trusted (not when the config home lies inside the workspace).
    pub user_trusted: bool,
    /// The trust store consulted, if any.
    pub trust_store: Option<PathBuf>,
    /// The host's built-in hooks (the CLI's `hook.self-protection`), which run before every declared one; filled
    /// by the host, empty from [`InspectReport::new`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub built_in: Vec<InspectBuiltIn>,
    /// The hooks in force, in precedence order.
    pub hooks: Vec<InspectHook>,
    /// Hooks that lost an id collision.
    pub overridden: Vec<InspectOverridden>,
    /// Non-trusted hooks that tried to displace a trusted origin's hook.
    pub shadowed: Vec<InspectShadow>,
    /// Declarations that loaded but never run (a handler that runs the bridge), with why. Left out of the JSON when
    /// empty, and read as empty when absent, so reports written before it existed still read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<InspectExcluded>,
    /// Gates that deny until a file is fixed: a declaration for them (or one whose event cannot be told, or a
    /// whole file) could not be read. Left out of the JSON when empty, and read as empty when absent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closed_gates: Vec<InspectClosedGate>,
    /// Every problem found.
    pub issues: Vec<Issue>,
    /// Every file looked at, in precedence order.
    pub sources: Vec<SourceFile>,
}

/// A hook the host builds in rather than a file declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectBuiltIn {
    /// Its id (`hook.self-protection`).
    pub id: String,
    /// The events it listens to.
    pub events: Vec<hook_types::Event>,
    /// Whether it runs; only the managed policy turns one off.
    pub enabled: bool,
    /// What it does, or why it is off.
    pub about: String,
}

/// Gates closed by something that could not be read: they answer deny with `reason` until the file is fixed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectClosedGate {
    /// The gates closed (`pre_tool`, `turn_start`, `permission_request`).
    pub events: Vec<String>,
    /// The origin of the file.
    pub origin: Origin,
    /// The file.
    pub source: PathBuf,
    /// 1-based line of the error, where known.
    pub line: Option<usize>,
    /// 1-based column of the error, where known.
    pub column: Option<usize>,
    /// The deny reason those gates answer with.
    pub reason: String,
}

/// One hook in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectHook {
    /// The merge key.
    pub id: String,
    /// Where it was found.
    pub origin: Origin,
    /// The declaring file.
    pub source: PathBuf,
    /// Its position in that file (`hooks[N]`).
    pub index: usize,
    /// The file's format.
    pub format: Format,
    /// The canonical event (`foreign:<Name>` for foreign events).
    pub event: String,
    /// command, prompt or effect.
    pub kind: HookKind,
    /// Whose input/output rules it follows.
    pub protocol: Protocol,
    /// The content hash.
    pub hash: String,
    /// A disabled hook is shown but never run.
    pub enabled: bool,
    /// managed, trusted, untrusted or modified.
    pub trust: TrustStatus,
    /// `false` when `only_managed` keeps it from running.
    pub allowed_by_policy: bool,
    /// Whether the pipeline will run it: enabled, allowed by policy, trusted.
    pub runnable: bool,
    /// The resolved failure policy.
    pub on_error: OnError,
    /// A gate hook (turn_start, pre_tool) whose failure lets the action through.
    pub fails_open: bool,
    /// The declaration filters.
    pub filters: InspectFilters,
    /// What it runs: the argv or shell command, the prompt's message, or the effect's kind.
    pub runs: String,
    /// The fingerprint value the trust store keys on, for command hooks.
    pub fingerprint: Option<String>,
    /// The files the fingerprint covers, for command hooks.
    pub fingerprint_files: Vec<PathBuf>,
}

/// A hook's declaration filters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectFilters {
    /// Exact tool names, if restricted.
    pub tools: Option<Vec<String>>,
    /// The matcher as written, if any.
    pub matcher: Option<String>,
    /// The `if` condition as written (a permission rule), if any (omitted when absent).
    #[serde(default, rename = "if", skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// The `command:` matcher in canonical form (`{on_unknown, patterns}`), if any (omitted when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<serde_json::Value>,
    /// post_tool: only failed calls.
    pub only_errors: bool,
    /// turn_end: main agent, subagents or both.
    pub scope: Scope,
    /// Starts after every lower-precedence hook of the dispatch finished.
    pub sequential: bool,
    /// `async: true`: an observer the dispatch does not wait for (omitted when false).
    #[serde(default, rename = "async", skip_serializing_if = "std::ops::Not::not")]
    pub run_async: bool,
}

/// A hook that lost an id collision, and the hook in force instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectOverridden {
    /// The id.
    pub id: String,
    /// The losing hook's origin.
    pub origin: Origin,
    /// The losing hook's file.
    pub source: PathBuf,
    /// The losing hook's content hash.
    pub hash: String,
    /// The origin of the hook in force.
    pub winner_origin: Origin,
    /// The file of the hook in force.
    pub winner_source: PathBuf,
}

/// A declaration that loaded but never runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectExcluded {
    /// Its id.
    pub id: String,
    /// Where it was found.
    pub origin: Origin,
    /// The declaring file.
    pub source: PathBuf,
    /// Its position in that file.
    pub index: usize,
    /// The file's format.
    pub format: Format,
    /// The canonical event (`foreign:<Name>` for foreign events).
    pub event: String,
    /// What it would run.
    pub runs: String,
    /// Why it never runs.
    pub reason: ExclusionReason,
    /// The same, in words.
    pub message: String,
}

/// One side of a shadowing attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectHookRef {
    /// Its origin.
    pub origin: Origin,
    /// Its file.
    pub source: PathBuf,
    /// Its content hash.
    pub hash: String,
    /// Its trust status.
    pub trust: TrustStatus,
}

/// A non-trusted hook that tried to displace a trusted origin's hook; the trusted one stays in force.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectShadow {
    /// The id both declare.
    pub id: String,
    /// The trusted origin's hook, which stays in force.
    pub kept: InspectHookRef,
    /// The hook that tried to displace it and does not run.
    pub attempted: InspectHookRef,
    /// The same, in words.
    pub message: String,
}

impl InspectReport {
    /// The report of a loaded configuration.
    pub fn new(config: &Config) -> InspectReport {
        InspectReport {
            version: INSPECT_VERSION,
            workspace: config.workspace.clone(),
            only_managed: config.only_managed,
            self_protection_off: config.self_protection_off,
            user_trusted: config.user_trusted,
            trust_store: config.trust_store.clone(),
            built_in: Vec::new(),
            hooks: config.hooks.iter().map(inspect_hook).collect(),
            overridden: config
                .overridden
                .iter()
                .map(|o| InspectOverridden {
                    id: o.hook.decl.id.clone(),
                    origin: o.hook.decl.origin,
                    source: o.hook.decl.source.clone(),
                    hash: o.hook.decl.hash.clone(),
                    winner_origin: o.winner_origin,
                    winner_source: o.winner_source.clone(),
                })
                .collect(),
            shadowed: config
                .shadowed
                .iter()
                .map(|s| InspectShadow {
                    id: s.id.clone(),
                    kept: hook_ref(&s.kept),
                    attempted: hook_ref(&s.attempted),
                    message: s.message(),
                })
                .collect(),
            excluded: config
                .excluded
                .iter()
                .map(|e| InspectExcluded {
                    id: e.decl.id.clone(),
                    origin: e.decl.origin,
                    source: e.decl.source.clone(),
                    index: e.decl.index,
                    format: e.decl.format,
                    event: e.decl.event.to_string(),
                    runs: runs(&e.decl.spec),
                    reason: e.reason,
                    message: e.reason.describe().to_owned(),
                })
                .collect(),
            closed_gates: config
                .closed_gates
                .iter()
                .map(|gate| InspectClosedGate {
                    events: gate.events.iter().map(ToString::to_string).collect(),
                    origin: gate.origin,
                    source: gate.issue.source.clone(),
                    line: gate.issue.line,
                    column: gate.issue.column,
                    reason: gate.reason(),
                })
                .collect(),
            issues: config.issues.clone(),
            sources: config.sources.clone(),
        }
    }

    /// The report for humans: readable in 80 columns (paths aside): the workspace, trust store and policy, the
    /// closed gates, hooks grouped by origin in precedence order, then what was overridden, shadowing attempts, what
    /// never runs, issues, and the files found.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        self.render_header(&mut out);
        self.render_closed_gates(&mut out);
        self.render_hooks(&mut out);
        self.render_overridden(&mut out);
        self.render_shadowed(&mut out);
        self.render_excluded(&mut out);
        self.render_issues(&mut out);
        self.render_files(&mut out);
        out
    }

    /// The workspace, the trust store, and whether the user origin is trusted and only managed hooks run.
    fn render_header(&self, out: &mut String) {
        line(out, format!("workspace    {}", self.workspace.display()));
        let store = self.trust_store.as_ref().map_or("none".to_owned(), |p| p.display().to_string());
        line(out, format!("trust store  {store}"));
        if !self.user_trusted {
            line(out, "user origin  NOT TRUSTED: the config home lies inside the workspace".to_owned());
        }
        if self.only_managed {
            line(out, "policy       only_managed: only managed hooks run; the others are shown".to_owned());
        }
        if self.self_protection_off {
            line(out, "policy       self_protection: false: the built-in hook.self-protection gate is off".to_owned());
        }
        for hook in &self.built_in {
            let events: Vec<String> = hook.events.iter().map(ToString::to_string).collect();
            let state = if hook.enabled { "on" } else { "OFF" };
            line(out, format!("built in     {}  {} · {state}: {}", hook.id, events.join(", "), hook.about));
        }
    }

    /// The gates that deny until a broken file is fixed.
    fn render_closed_gates(&self, out: &mut String) {
        if !self.closed_gates.is_empty() {
            out.push('\n');
            section(out, &format!("closed gates ({}): deny until fixed", self.closed_gates.len()));
            for gate in &self.closed_gates {
                line(out, format!("  {}", gate.events.join(", ")));
                wrapped(out, &gate.reason, "    ", "      ");
            }
        }
    }

    /// The hooks in force, one section per origin in precedence order.
    fn render_hooks(&self, out: &mut String) {
        if self.hooks.is_empty() {
            out.push('\n');
            line(out, "no hooks".to_owned());
        }
        for origin in Origin::ALL {
            let hooks: Vec<&InspectHook> = self.hooks.iter().filter(|h| h.origin == origin).collect();
            if hooks.is_empty() {
                continue;
            }
            out.push('\n');
            section(out, &format!("{origin} ({})", hooks.len()));
            for hook in hooks {
                render_hook(out, hook);
            }
        }
    }

    /// The hooks a higher-precedence origin's hook of the same id replaced.
    fn render_overridden(&self, out: &mut String) {
        if !self.overridden.is_empty() {
            out.push('\n');
            section(out, &format!("overridden ({})", self.overridden.len()));
            for o in &self.overridden {
                line(out, format!("  {}  {} → {}", o.id, o.origin, o.winner_origin));
                line(out, format!("    was   {}", o.source.display()));
                line(out, format!("    by    {}", o.winner_source.display()));
            }
        }
    }

    /// The hooks that tried to replace a trusted origin's hook before being trusted themselves.
    fn render_shadowed(&self, out: &mut String) {
        if !self.shadowed.is_empty() {
            out.push('\n');
            section(out, &format!("shadowing attempts ({})", self.shadowed.len()));
            for s in &self.shadowed {
                line(out, format!("  {}  {} hook stays in force", s.id, s.kept.origin));
                line(out, format!("    kept       {}", s.kept.source.display()));
                line(
                    out,
                    format!("    attempted  {} ({})", s.attempted.source.display(), trust_word(s.attempted.trust)),
                );
            }
        }
    }

    /// The handlers that never run (the bridge's own): why, once per reason; then each file's entries, identical
    /// ones (what they run, why) on one line with the events they are on. An install writes the same bridge command
    /// on every event, so one line stands for most of a file.
    fn render_excluded(&self, out: &mut String) {
        if self.excluded.is_empty() {
            return;
        }
        out.push('\n');
        section(out, &format!("never run ({})", self.excluded.len()));
        let mut reasons: Vec<&InspectExcluded> = Vec::new();
        for e in &self.excluded {
            if !reasons.iter().any(|r| r.reason == e.reason) {
                reasons.push(e);
            }
        }
        for r in reasons {
            wrapped(out, &format!("why: {}", r.message), "  ", "    ");
        }
        let mut files: Vec<(&PathBuf, Format)> = Vec::new();
        for e in &self.excluded {
            if !files.iter().any(|(source, format)| *source == &e.source && *format == e.format) {
                files.push((&e.source, e.format));
            }
        }
        for (source, format) in files {
            line(out, format!("  {}{}", format_prefix(format), source.display()));
            let mut groups: Vec<Vec<&InspectExcluded>> = Vec::new();
            for e in self.excluded.iter().filter(|e| e.source == *source && e.format == format) {
                match groups.iter_mut().find(|g| g[0].runs == e.runs && g[0].reason == e.reason) {
                    Some(group) => group.push(e),
                    None => groups.push(vec![e]),
                }
            }
            for group in groups {
                let count = if group.len() > 1 { format!("{} × ", group.len()) } else { String::new() };
                let runs = fit(&group[0].runs, 76usize.saturating_sub(count.chars().count()));
                line(out, format!("    {count}{}", runs.trim_end()));
                wrapped(out, &format!("on {}", counted_events(&group)), "      ", "        ");
            }
        }
    }

    /// Every issue, its location on a line of its own.
    fn render_issues(&self, out: &mut String) {
        if !self.issues.is_empty() {
            out.push('\n');
            section(out, &format!("issues ({})", self.issues.len()));
            for issue in &self.issues {
                // `file:line:column:` on a line of its own, so the message wraps the same whatever the path.
                let mut location = issue.source.display().to_string();
                for n in [issue.line, issue.line.and(issue.column)].into_iter().flatten() {
                    location.push_str(&format!(":{n}"));
                }
                let full = issue.to_string();
                let rest = full.strip_prefix(&location).and_then(|r| r.strip_prefix(": ")).unwrap_or(&full);
                line(out, format!("  {location}:"));
                wrapped(out, rest, "      ", "      ");
            }
        }
    }

    /// The files found, read or not yet.
    fn render_files(&self, out: &mut String) {
        let found: Vec<&SourceFile> = self.sources.iter().filter(|s| s.found).collect();
        out.push('\n');
        section(out, &format!("files ({} found of {} looked at)", found.len(), self.sources.len()));
        for source in found {
            let state = if source.read { "read" } else { "not read yet" };
            line(
                out,
                format!(
                    "  {:<13} {:<7} {:<12} {}",
                    source.origin.as_str(),
                    source.format.as_str(),
                    state,
                    source.path.display()
                ),
            );
        }
    }
}

fn inspect_hook(hook: &LoadedHook) -> InspectHook {
    let decl = &hook.decl;
    InspectHook {
        id: decl.id.clone(),
        origin: decl.origin,
        source: decl.source.clone(),
        index: decl.index,
        format: decl.format,
        event: decl.event.to_string(),
        kind: decl.kind(),
        protocol: decl.protocol,
        hash: decl.hash.clone(),
        enabled: decl.enabled,
        trust: hook.trust,
        allowed_by_policy: hook.allowed_by_policy,
        runnable: hook.runnable(),
        on_error: decl.on_error,
        fails_open: decl.event.class() == EventClass::Gate && decl.on_error == OnError::Ignore,
        filters: InspectFilters {
            tools: decl.tools.clone(),
            matcher: decl.matcher.as_ref().map(|m| m.pattern.clone()),
            condition: decl.condition.as_ref().map(|c| c.as_str().to_owned()),
            command: decl.command.as_ref().map(crate::hash::command_value),
            only_errors: decl.filters.only_errors,
            scope: decl.filters.scope,
            sequential: decl.sequential,
            run_async: decl.run_async,
        },
        runs: runs(&decl.spec),
        fingerprint: hook.fingerprint.as_ref().map(|fp| fp.value.clone()),
        fingerprint_files: hook.fingerprint.iter().flat_map(|fp| fp.files.iter().map(|f| f.path.clone())).collect(),
    }
}

fn hook_ref(hook: &LoadedHook) -> InspectHookRef {
    InspectHookRef {
        origin: hook.decl.origin,
        source: hook.decl.source.clone(),
        hash: hook.decl.hash.clone(),
        trust: hook.trust,
    }
}

fn runs(spec: &HookSpec) -> String {
    match spec {
        HookSpec::Command(command) => match &command.program {
            Program::Argv(argv) => format!("argv {}", serde_json::to_string(argv).unwrap_or_default()),
            Program::Shell(shell) => format!("shell {shell}"),
            Program::PowerShell(line) => format!("powershell {line}"),
        },
        HookSpec::Prompt { message, .. } => format!("prompt {message}"),
        HookSpec::Effect(effect) => format!("effect {}", effect.kind()),
        HookSpec::Evaluated(evaluated) => {
            let by = if evaluated.agent { "an agent" } else { "a model" };
            format!("evaluated by {by}: {}", evaluated.prompt)
        }
        HookSpec::Http(http) => format!("http {} {} ({})", http.method, http.url, http.format.as_str()),
        HookSpec::Policy(policy) => format!("policy {} over {}", policy.query, policy.files.join(", ")),
    }
}

fn trust_word(trust: TrustStatus) -> &'static str {
    match trust {
        TrustStatus::Managed => "managed",
        TrustStatus::Trusted => "trusted",
        TrustStatus::Untrusted => "untrusted",
        TrustStatus::Modified => "MODIFIED",
    }
}

/// Appends one line with every control and bidirectional character shown escaped, so nothing a repository wrote
/// can drive the terminal, reorder what is read or break the layout: a line break inside a value (a multi-line
/// shell command) shows as `⏎`, a tab as a space, anything else (an escape sequence from a hostile file) as its
/// escape ([`hook_types::terminal_escaped`]: `\x1b[2J`, `\u{202e}`), visibly there rather than silently dropped.
fn line(out: &mut String, text: String) {
    // Most lines hold neither: they are escaped as they are, without two copies made first.
    if text.contains(['\n', '\t']) {
        out.push_str(&hook_types::terminal_escaped(&text.replace('\n', "⏎").replace('\t', " ")));
    } else {
        out.push_str(&hook_types::terminal_escaped(&text));
    }
    out.push('\n');
}

/// Appends `text` wrapped at 80 columns on spaces, the first line after `first`, the others after `rest`. A word
/// longer than a line (a path) stays whole.
fn wrapped(out: &mut String, text: &str, first: &str, rest: &str) {
    let mut current = first.to_owned();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !empty && current.chars().count() + 1 + word.chars().count() > 80 {
            line(out, std::mem::replace(&mut current, rest.to_owned()));
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current.push_str(word);
        empty = false;
    }
    line(out, current);
}

/// A section heading padded with a rule to 80 columns.
fn section(out: &mut String, title: &str) {
    let used = title.chars().count() + 4;
    line(out, format!("── {title} {}", "─".repeat(80usize.saturating_sub(used))));
}

fn render_hook(out: &mut String, hook: &InspectHook) {
    let state = if hook.runnable {
        trust_word(hook.trust).to_owned()
    } else {
        let mut why = Vec::new();
        if !hook.enabled {
            why.push("disabled");
        }
        if !hook.allowed_by_policy {
            why.push("only_managed");
        }
        if !hook.trust.allows_run() {
            why.push(trust_word(hook.trust));
        }
        format!("not run: {}", why.join(", "))
    };
    line(out, format!("  {}{}", fit(&hook.id, 76usize.saturating_sub(state.chars().count())), state));
    let mut facts =
        vec![hook.event.clone(), hook.kind.as_str().to_owned(), hook.protocol.as_str().to_owned(), hook.hash.clone()];
    if hook.fails_open {
        facts.push("FAILS OPEN".to_owned());
    }
    line(out, format!("    {}", facts.join(" · ")));
    line(out, format!("    {}", fit(&hook.runs, 76).trim_end()));
    let mut filters = Vec::new();
    if let Some(tools) = &hook.filters.tools {
        filters.push(format!("tools {}", tools.join(",")));
    }
    if let Some(matcher) = &hook.filters.matcher {
        filters.push(format!("matcher {matcher}"));
    }
    if let Some(condition) = &hook.filters.condition {
        filters.push(format!("if {condition}"));
    }
    if let Some(command) = &hook.filters.command {
        filters.push(format!("command {}", command["patterns"]));
    }
    if hook.filters.only_errors {
        filters.push("only_errors".to_owned());
    }
    if hook.filters.scope != Scope::Main {
        filters.push(format!(
            "scope {}",
            serde_json::to_value(hook.filters.scope).unwrap_or_default().as_str().unwrap_or("")
        ));
    }
    if hook.filters.run_async {
        filters.push("async".to_owned());
    }
    if hook.filters.sequential {
        filters.push("sequential".to_owned());
    }
    if !filters.is_empty() {
        line(out, format!("    {}", fit(&filters.join("  "), 76).trim_end()));
    }
    line(out, format!("    {}{} [{}]", format_prefix(hook.format), hook.source.display(), hook.index));
}

/// A hook read from another agent's file names that file's format beside it (the protocol is on the facts line).
fn format_prefix(format: Format) -> String {
    match format {
        Format::Native => String::new(),
        format => format!("{format} format · "),
    }
}

/// The events of a group of entries in order, one mentioned twice or more as `event ×n`.
fn counted_events(group: &[&InspectExcluded]) -> String {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for e in group {
        match counted.iter_mut().find(|(event, _)| *event == e.event) {
            Some((_, n)) => *n += 1,
            None => counted.push((&e.event, 1)),
        }
    }
    let words: Vec<String> =
        counted.into_iter().map(|(event, n)| if n > 1 { format!("{event} ×{n}") } else { event.to_owned() }).collect();
    words.join(", ")
}

/// `text` cut or padded to exactly `width` characters (a cut ends in `…`), so columns line up in 80 columns.
fn fit(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count > width {
        let mut cut: String = text.chars().take(width.saturating_sub(2)).collect();
        cut.push_str("… ");
        cut
    } else {
        format!("{text}{}", " ".repeat(width - count))
    }
}
