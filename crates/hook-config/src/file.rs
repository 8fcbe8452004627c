//! Loading one declaration file: read, parse, hand to its format's reader, normalize every hook, check ids.
//!
//! Expected bad input is data: [`load_file`] and [`parse_str`] never fail and never panic. A file that cannot be
//! read or parsed is one issue and no hooks; a malformed hook is dropped with its issues while its siblings load;
//! a file with nothing in it (or only comments) gives no issue and no hooks. What an error drops from a gate — or
//! from an event that cannot be told, or the whole file — closes that gate ([`FileLoad::closed_gates`]). A host
//! that wants mecha's rule — any error refuses to start — calls [`FileLoad::strict`].

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use hook_types::{Event, Limits, Origin};
use serde_json::Value;

use crate::cache::LoadCache;
use crate::closed_gate::ClosedGate;
use crate::formats::WireField;
use crate::formats::{self, WireHook, hook_field};
use crate::issues::{Place, Reporter, describe};
use crate::model::{Format, HookDecl, Issue, IssueSeverity};
use crate::normalize::{Dropped, NormalizeCx, Probe, id_prefix, normalize};
use crate::parse::{self, Syntax, Target};

/// What loading one file needs to know about where it sits.
#[derive(Debug, Clone, Copy)]
pub struct FileContext<'a> {
    /// The origin the file belongs to.
    pub origin: Origin,
    /// The canonical workspace root: every hook's `cwd` is resolved against it and must stay inside it.
    pub workspace: &'a Path,
    /// The origin root: the workspace for project and project.local origins, the declaring file's directory for
    /// user, managed and extension origins. Relative program paths (`./scripts/guard.sh`) resolve against it.
    pub root: &'a Path,
    /// The prefix of default ids (an extension's name); `None` uses the origin's name.
    pub source_id: Option<&'a str>,
}

/// One file's result. Never an error for bad content: what is wrong is in `issues`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileLoad {
    /// The valid declarations, in file order.
    pub hooks: Vec<HookDecl>,
    /// What was wrong, in file order.
    pub issues: Vec<Issue>,
    /// The managed file's `only_managed: true` (always `false` for other origins, which get a warning instead).
    pub only_managed: bool,
    /// The managed file's `self_protection: false`: the built-in self-protection gate is off (always `false` for
    /// other origins, which get a warning instead).
    pub self_protection_off: bool,
    /// The gates closed by what could not be read: a gate's declaration dropped for an error, a declaration whose
    /// event is unknown, a file that does not parse (see [`ClosedGate`]).
    pub closed_gates: Vec<ClosedGate>,
}

/// The error returned by [`FileLoad::strict`]: the load had error-level issues.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct StrictError {
    /// Every error-level issue, in file order.
    pub errors: Vec<Issue>,
}

impl fmt::Display for StrictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.errors.len();
        write!(f, "{count} error{} in hook declarations", if count == 1 { "" } else { "s" })?;
        for issue in &self.errors {
            write!(f, "\n  {issue}")?;
        }
        Ok(())
    }
}

impl FileLoad {
    /// The load itself if it has no error-level issue (warnings are fine), else every error.
    ///
    /// ```
    /// # use hook_config::{parse_str, FileContext, Format};
    /// # use hook_types::{Limits, Origin};
    /// # use std::path::Path;
    /// let cx = FileContext { origin: Origin::Project, workspace: Path::new("/ws"), root: Path::new("/ws"), source_id: None };
    /// let load = parse_str("- {on: pre_tol, kind: prompt, message: hi}", Path::new("hooks.yaml"), Format::Native, &cx);
    /// let err = load.strict().unwrap_err();
    /// assert!(err.to_string().contains("unknown event `pre_tol` (did you mean `pre_tool`?)"));
    /// ```
    pub fn strict(self) -> Result<FileLoad, StrictError> {
        let errors: Vec<Issue> = self.issues.iter().filter(|i| i.severity == IssueSeverity::Error).cloned().collect();
        if errors.is_empty() { Ok(self) } else { Err(StrictError { errors }) }
    }
}

/// Reads and loads one declaration file of `format`. A missing file gives an empty load with no issue (most origins
/// have no file); an unreadable or non-UTF-8 file is one issue.
///
/// ```
/// # use hook_config::{load_file, FileContext, Format};
/// # use hook_types::{Limits, Origin};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("hooks.yaml");
/// std::fs::write(&path, "- {id: fmt, on: post_tool, kind: command, argv: [cargo, fmt]}\n").unwrap();
/// let cx = FileContext { origin: Origin::Project, workspace: dir.path(), root: dir.path(), source_id: None };
/// let load = load_file(&path, Format::Native, &cx);
/// assert!(load.issues.is_empty());
/// assert_eq!(load.hooks[0].id, "fmt");
/// assert!(load_file(&dir.path().join("absent.yaml"), Format::Native, &cx) == Default::default());
/// ```
pub fn load_file(path: &Path, format: Format, cx: &FileContext<'_>) -> FileLoad {
    load_file_with(path, format, cx, &Limits::default())
}

/// [`load_file`] within `limits`: a file larger than [`Limits::max_file_bytes`] is not read past the limit, and
/// anything but a regular file (a FIFO, a directory, a device such as `/dev/zero`) is one issue without being read,
/// so no file makes a load hang or grow without bound.
pub fn load_file_with(path: &Path, format: Format, cx: &FileContext<'_>, limits: &Limits) -> FileLoad {
    let workspace = canonical(cx.workspace);
    load_file_through(path, format, &FileContext { workspace: &workspace, ..*cx }, limits, None)
}

/// The workspace as every hook's `cwd` is resolved against it: canonical, or as given when it cannot be resolved.
fn canonical(workspace: &Path) -> PathBuf {
    crate::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf())
}

/// [`load_file_with`], through the load cache when one is given: the file is read (and so its bytes hashed) every
/// time; only parsing and normalizing are skipped on a hit. `cx.workspace` is canonical already ([`crate::load`]
/// resolved it once for every file; the public entry points resolve it before they get here).
pub(crate) fn load_file_through(
    path: &Path,
    format: Format,
    cx: &FileContext<'_>,
    limits: &Limits,
    cache: Option<&LoadCache>,
) -> FileLoad {
    if format.agent().handler == hook_types::HandlerShape::EventExecutables {
        return load_event_executables(path, format, cx, limits);
    }
    let bytes = match read_bounded(path, limits.max_file_bytes) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return FileLoad::default(),
        Err(err) => return unreadable(path, cx.origin, (None, None), format!("cannot read the file: {err}")),
    };
    match String::from_utf8(bytes) {
        Ok(text) => match cache {
            Some(cache) => {
                cache.load(path, format, cx, limits, &text, || parse_probed(&text, path, format, cx, limits))
            }
            None => parse_str_with(&text, path, format, cx, limits),
        },
        Err(err) => {
            let valid = &err.as_bytes()[..err.utf8_error().valid_up_to()];
            // Valid up to here, so this prefix is text: count lines and characters in it.
            let prefix = String::from_utf8_lossy(valid);
            let line = prefix.matches('\n').count() + 1;
            let column = prefix.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let message =
                format!("the file is not valid UTF-8 (byte offset {}); nothing in it was loaded", valid.len());
            unreadable(path, cx.origin, (Some(line), Some(column)), message)
        }
    }
}

/// Loads declarations from `text`, as if read from `path` (its extension picks JSON or YAML; issues name it).
///
/// ```
/// # use hook_config::{parse_str, FileContext, Format, IssueSeverity};
/// # use hook_types::{Limits, Origin};
/// # use std::path::Path;
/// let cx = FileContext { origin: Origin::User, workspace: Path::new("/ws"), root: Path::new("/home/me/.config/hooks"), source_id: None };
/// let yaml = "
/// - on: turn_start
///   kind: prompt
///   message: Run the tests before you commit.
/// - on: pre_tool
///   kind: effect
///   effect: {kind: block_tol, reason: nope}
/// ";
/// let load = parse_str(yaml, Path::new("hooks.yaml"), Format::Native, &cx);
/// assert_eq!(load.hooks.len(), 1);
/// assert_eq!(load.hooks[0].id, "user.prompt.3d272c794c1ca3aa");
/// let issue = &load.issues[0];
/// assert_eq!((issue.field.as_deref(), issue.line), (Some("hooks[1].effect.kind"), Some(7)));
/// assert!(issue.message.starts_with("unknown effect kind `block_tol` (did you mean `block_tool`?); the effect kinds are"));
/// // The effect hook was on a gate: until the file is fixed, that gate denies.
/// assert_eq!(load.closed_gates[0].events, [hook_types::Event::PreTool]);
/// ```
pub fn parse_str(text: &str, path: &Path, format: Format, cx: &FileContext<'_>) -> FileLoad {
    parse_str_with(text, path, format, cx, &Limits::default())
}

/// [`parse_str`] within `limits`: nesting deeper than [`Limits::max_nesting_depth`] is one issue, found in one
/// linear pass before parsing; past [`Limits::max_hooks_per_file`] hooks the rest are dropped with one issue.
pub fn parse_str_with(text: &str, path: &Path, format: Format, cx: &FileContext<'_>, limits: &Limits) -> FileLoad {
    let workspace = canonical(cx.workspace);
    parse_probed(text, path, format, &FileContext { workspace: &workspace, ..*cx }, limits).0
}

/// [`parse_str_with`], and for a load that reached the normalizer, the canonical workspace it resolved against and
/// every question it asked the filesystem with the answer (what the load cache re-checks before it serves a load).
/// `cx.workspace` is canonical already.
pub(crate) fn parse_probed(
    text: &str,
    path: &Path,
    format: Format,
    cx: &FileContext<'_>,
    limits: &Limits,
) -> (FileLoad, Option<(PathBuf, Vec<Probe>)>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Gemini CLI and Qwen Code read their settings.json with comments allowed (the agent table's `json_comments`).
    let uncommented;
    let text = if format.agent().json_comments {
        uncommented = formats::strip_json_comments(text);
        uncommented.as_str()
    } else {
        text
    };
    let root = match parse::parse(text, Syntax::of(path), limits.max_nesting_depth) {
        Ok(Some(root)) => root,
        Ok(None) => return (FileLoad::default(), None),
        Err(err) => {
            let tab = if Syntax::of(path) == Syntax::Yaml { tab_hint(text, err.line) } else { String::new() };
            let message = format!("syntax error: {}{tab}; nothing in this file was loaded", err.message);
            return (unreadable(path, cx.origin, (err.line, err.column), message), None);
        }
    };
    load_tree(root, Some(text), path, format, cx, limits)
}

/// An agent's directory of one executable per event (Cline's `.cline/hooks`, the agent table's
/// [`HandlerShape::EventExecutables`](hook_types::HandlerShape::EventExecutables)), loaded as one file: each hook file
/// named after an event is one command hook (see `formats/cline.rs`). No directory gives an empty load; a path that
/// is not a directory, or a hook file that cannot be read, is an issue.
fn load_event_executables(path: &Path, format: Format, cx: &FileContext<'_>, limits: &Limits) -> FileLoad {
    let listed = match formats::event_executables(format, path) {
        Ok(None) => return FileLoad::default(),
        Ok(Some(listed)) => listed,
        Err(err) => {
            let message = format!(
                "cannot list the {} hooks directory: {err}; expected a directory of hook files named after events",
                format.agent().name
            );
            return unreadable(path, cx.origin, (None, None), message);
        }
    };
    let (found, more) = listed;
    let base = (cx.origin != Origin::User).then_some(cx.workspace);
    let (tree, unreadable_files) = formats::event_executables_tree(&found, base);
    let (mut load, _) = load_tree(tree, None, path, format, cx, limits);
    let mut reporter = Reporter::new(path, None);
    for (file, err) in unreadable_files {
        reporter.at_position(
            IssueSeverity::Error,
            (None, None),
            format!("cannot read the hook file `{file}`: {err}; it was not loaded (make it a readable regular file)"),
        );
    }
    if more {
        reporter.at_position(
            IssueSeverity::Error,
            (None, None),
            format!(
                "the directory holds more than {} entries: only the first {} were looked at",
                formats::MAX_DIR_ENTRIES,
                formats::MAX_DIR_ENTRIES
            ),
        );
    }
    let issues = reporter.into_issues();
    load.closed_gates.extend(issues.iter().map(|issue| ClosedGate::all(cx.origin, issue)));
    load.issues.extend(issues);
    load
}

/// Loads an already parsed tree (`text`, where there is one, places issues at line:column).
fn load_tree(
    root: Value,
    text: Option<&str>,
    path: &Path,
    format: Format,
    cx: &FileContext<'_>,
    limits: &Limits,
) -> (FileLoad, Option<(PathBuf, Vec<Probe>)>) {
    let mut reporter = Reporter::new(path, text);
    let cx = NormalizeCx {
        origin: cx.origin,
        workspace: cx.workspace.to_path_buf(),
        root: cx.root,
        source: path,
        format,
        id_prefix: id_prefix(cx.source_id.unwrap_or(cx.origin.as_str())),
        memo: Default::default(),
    };
    // Each hook is normalized as soon as its reader hands it over, so only one hook's intermediate form is alive at
    // a time (the whole file's was ≈ 1.2 kB a hook, 58 MB of a 50 000-hook file). Issues are put in file order at
    // the end, as before.
    let mut hooks = Hooks::with_capacity(listed_hooks(&root), limits.max_hooks_per_file);
    let Some(wire) = formats::read_each(format, root, &mut reporter, &mut |hook, reporter| {
        hooks.take(hook, &cx, reporter);
    }) else {
        // Nothing of the file loads: every error closes every gate.
        let issues = reporter.into_issues();
        let closed_gates = issues
            .iter()
            .filter(|issue| issue.severity == IssueSeverity::Error)
            .map(|issue| ClosedGate::all(cx.origin, issue))
            .collect();
        return (FileLoad { issues, closed_gates, ..FileLoad::default() }, None);
    };
    if hooks.declared > limits.max_hooks_per_file {
        reporter.at_position(
            IssueSeverity::Error,
            (None, None),
            format!(
                "the file declares {} hooks, more than the limit of {}: only the first {} were read",
                hooks.declared, limits.max_hooks_per_file, limits.max_hooks_per_file
            ),
        );
    }

    let only_managed = managed_flag(wire.only_managed, cx.origin, &mut reporter);
    let self_protection_off = !managed_flag(wire.self_protection, cx.origin, &mut reporter).unwrap_or(true);
    let only_managed = only_managed.unwrap_or(false);
    let Hooks { hooks, outcomes, .. } = hooks;
    let (issues, events) = reporter.into_parts();
    let mut issues: Vec<(Issue, Option<String>)> = issues.into_iter().zip(events).collect();
    // Readers report unknown keys before the normalizer reports the rest: put everything in file order — file-level
    // issues first, then hook by hook, each hook's by position (unplaced ones last).
    issues.sort_by_key(|(issue, _)| (issue.index.map_or(0, |i| i + 1), issue.line.is_none(), issue.line, issue.column));
    let closed_gates = closed_gates(&issues, &outcomes, cx.origin);
    let issues = issues.into_iter().map(|(issue, _)| issue).collect();
    let probes = cx.memo.probes();
    (FileLoad { hooks, issues, only_managed, self_protection_off, closed_gates }, Some((cx.workspace, probes)))
}

/// A boolean only the managed file may set (`only_managed`, `self_protection`): its value there, `None` where it is
/// absent, not a boolean (an error) or in another origin's file (a warning: it has no effect there).
fn managed_flag(field: Option<WireField>, origin: Origin, reporter: &mut Reporter<'_>) -> Option<bool> {
    let field = field?;
    let place =
        Place { field: Some(field.written.clone()), node: Some((field.node, Target::Node)), ..Place::default() };
    match field.value {
        Value::Bool(value) if origin == Origin::Managed => Some(value),
        Value::Bool(_) => {
            reporter.warn(place, format!("`{}` only has an effect in the managed file; ignored", field.written));
            None
        }
        ref other => {
            reporter.error(place, format!("expected `true` or `false`, found {}", describe(other)));
            None
        }
    }
}

/// How many hooks the root of a hook-list file lists (a capacity hint; 0 for other shapes).
fn listed_hooks(root: &Value) -> usize {
    match root {
        Value::Array(items) => items.len(),
        Value::Object(object) => object.get("hooks").and_then(Value::as_array).map_or(0, Vec::len),
        _ => 0,
    }
}

/// The declarations of one file as its hooks are normalized, one at a time, in file order.
struct Hooks {
    hooks: Vec<HookDecl>,
    /// Each id's hook: its index in the file, and its place in `hooks` (so a replacement finds it without a scan).
    ids: HashMap<String, (usize, usize)>,
    /// Every hook the normalizer saw, by index (a list: indices are positions in the file): `Some(None)` when it
    /// loaded, what is known of it when it was dropped.
    outcomes: Vec<Option<Option<Dropped>>>,
    /// How many hooks the reader handed over; past `max`, they are not normalized (the limit's issue says so).
    declared: usize,
    max: usize,
}

impl Hooks {
    fn with_capacity(capacity: usize, max: usize) -> Hooks {
        let capacity = capacity.min(max);
        Hooks {
            hooks: Vec::with_capacity(capacity),
            ids: HashMap::with_capacity(capacity),
            outcomes: Vec::with_capacity(capacity),
            declared: 0,
            max,
        }
    }

    fn outcome(&mut self, index: usize, what: Option<Dropped>) {
        if self.outcomes.len() <= index {
            self.outcomes.resize(index + 1, None);
        }
        self.outcomes[index] = Some(what);
    }

    /// Normalizes one hook and keeps it, unless it is dropped or a copy (reported).
    fn take(&mut self, hook: WireHook, cx: &NormalizeCx<'_>, reporter: &mut Reporter<'_>) {
        self.declared += 1;
        if self.declared > self.max {
            return;
        }
        let node = hook.node.clone();
        let decl = match normalize(hook, cx, reporter) {
            Ok(decl) => decl,
            Err(dropped) => {
                self.outcome(dropped.index, Some(dropped));
                return;
            }
        };
        let Some(&(first, place_in_hooks)) = self.ids.get(&decl.id) else {
            self.ids.insert(decl.id.clone(), (decl.index, self.hooks.len()));
            self.outcome(decl.index, None);
            self.hooks.push(decl);
            return;
        };
        // Two default ids collide only when prefix, kind and hash are equal: the same hook written twice.
        let explicit = decl.id != format!("{}.{}.{}", cx.id_prefix, decl.kind().as_str(), decl.hash);
        let place = Place {
            index: Some(decl.index),
            hook_id: Some(decl.id.clone()),
            field: Some(hook_field(decl.index, explicit.then_some("id"))),
            node: Some((if explicit { node.key("id") } else { node }, Target::Node)),
        };
        if explicit && cx.format == Format::Clio {
            // clio-coder keeps one hook per id, the last declared, in the place of the first.
            reporter.warn(
                place,
                format!(
                    "duplicate id `{}` (first used by hooks[{first}]); as clio-coder does, this hook replaces that one",
                    decl.id
                ),
            );
            self.ids.insert(decl.id.clone(), (decl.index, place_in_hooks));
            self.outcome(decl.index, None);
            if let Some(earlier) = self.hooks.get_mut(place_in_hooks) {
                *earlier = decl;
            }
            return;
        }
        if explicit {
            reporter.error(
                place,
                format!("duplicate id `{}` (first used by hooks[{first}]); this hook was dropped", decl.id),
            );
        } else {
            reporter.warn(place, format!("identical to hooks[{first}]; this copy was dropped"));
        }
        let dropped = Dropped { index: decl.index, event: Some(decl.event.clone()), disabled: !decl.enabled };
        self.outcome(decl.index, Some(dropped));
    }
}

/// The gates this file's error-level issues close (see [`crate::closed_gate`]), one per dropped declaration and
/// per error no declaration accounts for, in file order. Each issue comes with the event whose entries its reader
/// was reading, if any.
fn closed_gates(
    issues: &[(Issue, Option<String>)],
    outcomes: &[Option<Option<Dropped>>],
    origin: Origin,
) -> Vec<ClosedGate> {
    let mut seen: HashSet<usize> = HashSet::new();
    let mut closed = Vec::new();
    for (issue, event_name) in issues.iter().filter(|(issue, _)| issue.severity == IssueSeverity::Error) {
        // The first error of a hook is its root cause; the others add nothing to which gate it leaves open.
        if issue.index.is_some_and(|index| !seen.insert(index)) {
            continue;
        }
        let gate = match issue.index.and_then(|index| outcomes.get(index)).and_then(Option::as_ref) {
            // An error about a hook that loaded: nothing was dropped (no reader reports one, but none is lost).
            Some(None) => None,
            Some(Some(dropped)) if dropped.disabled => None,
            Some(Some(dropped)) => ClosedGate::for_event(dropped.event.as_ref(), origin, issue),
            // An entry the reader dropped before the normalizer saw it, or an error about the file outside any hook:
            // the event it was read under, if the reader said, else every gate.
            None => {
                let event = event_name.as_deref().and_then(|name| Event::parse(name).ok()).map(|p| p.event);
                ClosedGate::for_event(event.as_ref(), origin, issue)
            }
        };
        closed.extend(gate);
    }
    closed
}

/// What to do about a YAML syntax error that a tab causes: YAML indents with spaces only, and a tab in the
/// indentation of a line at or before the error is the usual cause. Empty when there is none.
fn tab_hint(text: &str, error_line: Option<usize>) -> String {
    let upto = error_line.unwrap_or(usize::MAX);
    let tabbed = text.lines().take(upto).position(|line| {
        let indent = &line[..line.len() - line.trim_start().len()];
        indent.contains('\t')
    });
    match tabbed {
        Some(at) => format!(
            " (line {} is indented with a tab: YAML indents with spaces only; replace the tab with spaces)",
            at + 1
        ),
        None => String::new(),
    }
}

/// A load that read nothing of the file: one error, and every gate closed by it.
fn unreadable(path: &Path, origin: Origin, position: (Option<usize>, Option<usize>), message: String) -> FileLoad {
    let mut reporter = Reporter::new(path, None);
    reporter.at_position(IssueSeverity::Error, position, message);
    let issues = reporter.into_issues();
    let closed_gates = issues.iter().map(|issue| ClosedGate::all(origin, issue)).collect();
    FileLoad { issues, closed_gates, ..FileLoad::default() }
}

/// Reads at most `max` bytes of a regular file; anything else is an error saying what it is. The open does not
/// block (a FIFO with no writer would), and a file larger than `max` is refused without reading the rest.
fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = crate::platform::open_read_nonblocking(path)?;
    let meta = file.metadata()?;
    let kind = meta.file_type();
    let what = if kind.is_dir() { "a directory" } else { crate::platform::special_kind(&meta).unwrap_or_default() };
    if !what.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {what}, not a regular file; expected a file of hook declarations"),
        ));
    }
    if meta.len() > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it is {} bytes, more than the limit of {max}; nothing in it was loaded", meta.len()),
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it grew past the limit of {max} bytes while it was read; nothing in it was loaded"),
        ));
    }
    Ok(bytes)
}
