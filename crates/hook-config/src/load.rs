//! Loading (docs/trust.md#origins, docs/declarations.md#errors-and-closed-gates, docs/trust.md): discover every origin's files, read them, fingerprint and classify trust,
//! merge by precedence, and apply the managed policy. Expected bad input becomes [`Issue`]s; only an unusable
//! workspace, or any error-level issue in strict mode, is an `Err`.

use std::io;
use std::path::{Component, Path, PathBuf};

use hook_types::{Limits, Origin};

use crate::bridge_program::BridgeProgram;
use crate::cache::LoadCache;
use crate::closed_gate::ClosedGate;
use crate::discover::{self, Slot, SourceFile};
use crate::excluded::{self, Excluded};
use crate::file::load_file_through;
use crate::fingerprint::{FingerprintCache, fingerprint_cached};
use crate::layout::Layout;
use crate::merge::{self, Overridden, ShadowAttempt};
use crate::model::{HookDecl, HookSpec, Issue, IssueSeverity, LoadedHook};
use crate::trust::{TrustStore, trust_status, trust_value};
use crate::workspace_trust;
use crate::{FileContext, FileLoad};

/// How to load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Refuse to start on any error-level issue (mecha's rule) instead of running what is valid.
    pub strict: bool,
    /// The host's limits; declared timeouts outside them are reported (they are clamped at run time).
    pub limits: Limits,
    /// What a command that runs this engine's bridge looks like: such a handler (what `hook install` writes into an
    /// agent's file) is listed in [`Config::excluded`], never run. By default `hook` and the running executable's
    /// name; a host that ships the CLI under another name says so with [`BridgeProgram::named`].
    pub bridge_program: BridgeProgram,
    /// Trust the workspace's own hooks (project and project.local origins) for this load only, in memory — what
    /// `hook run --trust-workspace` does for demos and CI: every such hook that would wait for trust runs, and
    /// displaces a trusted origin's hook of the same id as it would once trusted for real (docs/trust.md#origins). The trust
    /// store is neither changed nor written; [`Config::trusted_in_memory`] says how many hooks it took.
    pub trust_workspace: bool,
    /// Where to keep the load cache (see [`crate::default_load_cache_dir`]): each file's normalized declarations,
    /// served again only for the same bytes, engine and filesystem answers, so a load re-parses only what changed.
    /// `None` (the default) parses every file.
    pub cache_dir: Option<PathBuf>,
}

/// The error returned by [`load`].
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The workspace does not exist or cannot be resolved.
    #[error("workspace `{path}` cannot be used")]
    Workspace {
        /// The workspace as given.
        path: PathBuf,
        /// Why it cannot be resolved.
        #[source]
        source: io::Error,
    },
    /// The workspace is not a directory.
    #[error("workspace `{path}` is not a directory")]
    NotADirectory {
        /// The workspace as given.
        path: PathBuf,
    },
    /// Strict mode and at least one error-level issue.
    #[error("{} error-level issue(s) and strict mode refuses to start; first: {}", issues.len(), issues[0])]
    Strict {
        /// The error-level issues, in the order found.
        issues: Vec<Issue>,
        /// Everything that was loaded, for a caller that wants to show it.
        config: Box<Config>,
    },
}

/// The merged configuration of one workspace.
#[derive(Debug, Clone)]
pub struct Config {
    /// The workspace, canonical: the key of the trust store.
    pub workspace: PathBuf,
    /// The hooks in force, in precedence order (winners only).
    pub hooks: Vec<LoadedHook>,
    /// Hooks that lost an id collision, with the source of the hook in force.
    pub overridden: Vec<Overridden>,
    /// Non-trusted hooks that tried to displace a trusted origin's hook before being trusted.
    pub shadowed: Vec<ShadowAttempt>,
    /// Declarations that loaded but never run, in precedence order, with why: a handler that runs the bridge.
    pub excluded: Vec<Excluded>,
    /// Every problem found, in the order found.
    pub issues: Vec<Issue>,
    /// The gates that answer deny until a file is fixed, because a declaration for them (or one whose event cannot
    /// be told, or a whole file) could not be read; in precedence order. A pipeline built from this `Config` denies
    /// each of them first (see [`ClosedGate`]). With `only_managed`, only the managed file's count.
    pub closed_gates: Vec<ClosedGate>,
    /// The managed file says `only_managed: true`: every other hook is shown but not run.
    pub only_managed: bool,
    /// The managed file says `self_protection: false`: the host's built-in self-protection gate is off.
    pub self_protection_off: bool,
    /// Whether the user origin is trusted (not when the config home lies inside the workspace).
    pub user_trusted: bool,
    /// With [`LoadOptions::trust_workspace`]: how many hooks in force run, or are in force, only because of it (not
    /// in the trust store, and needing trust to run or to displace a trusted origin's hook). 0 otherwise.
    pub trusted_in_memory: usize,
    /// The trust store that was consulted, if any (none when no config home is known or it cannot be trusted).
    pub trust_store: Option<PathBuf>,
    /// Every file looked at, in precedence order, found or not.
    pub sources: Vec<SourceFile>,
}

impl Config {
    /// The hook in force with this id.
    pub fn get(&self, id: &str) -> Option<&LoadedHook> {
        self.hooks.iter().find(|h| h.decl.id == id)
    }

    /// The hooks a pipeline may run, in precedence order.
    pub fn runnable(&self) -> impl Iterator<Item = &LoadedHook> {
        self.hooks.iter().filter(|h| h.runnable())
    }

    /// Whether any issue is error-level.
    pub fn has_errors(&self) -> bool {
        self.issues.iter().any(|i| i.severity == IssueSeverity::Error)
    }
}

/// Loads every origin of `layout` (docs/trust.md#origins): discovery, parsing, fingerprints and trust, the precedence merge
/// and the managed policy.
///
/// # Order
///
/// 1. the workspace, which must be an existing directory;
/// 2. the trust store, unless the config home lies inside the workspace (a repository never supplies its own trust);
/// 3. every origin's files, looked for and read in precedence order;
/// 4. the cap on the hooks of all files together;
/// 5. each declaration excluded (a bridge handler), or checked against the host's limits, fingerprinted and given its
///    trust status;
/// 6. the precedence merge;
/// 7. the managed policy: under `only_managed` only the managed origin's gates stay closed;
/// 8. in strict mode, any error-level issue is an `Err`.
///
/// ```
/// use hook_config::{load, Layout, LoadOptions, TrustStatus};
/// let ws = tempfile::tempdir().unwrap();
/// let cfg = tempfile::tempdir().unwrap();
/// std::fs::create_dir(ws.path().join(".hooks")).unwrap();
/// std::fs::write(
///     ws.path().join(".hooks/hooks.yaml"),
///     "- id: no-force-push\n  on: pre_tool\n  kind: effect\n  effect: { kind: block_tool, reason: no }\n",
/// ).unwrap();
/// let layout = Layout::new(ws.path())
///     .with_config_home(cfg.path())
///     .with_home(None)
///     .with_managed_file(cfg.path().join("managed.yaml"));
/// let config = load(&layout, &LoadOptions::default()).unwrap();
/// let hook = config.get("no-force-push").unwrap();
/// assert_eq!(hook.trust, TrustStatus::Trusted); // it only narrows: no trust needed
/// assert!(hook.runnable());
/// ```
pub fn load(layout: &Layout, options: &LoadOptions) -> Result<Config, LoadError> {
    let workspace = crate::canonicalize(&layout.workspace)
        .map_err(|source| LoadError::Workspace { path: layout.workspace.clone(), source })?;
    if !workspace.is_dir() {
        return Err(LoadError::NotADirectory { path: layout.workspace.clone() });
    }
    let layout = &absolute(layout);
    let mut issues = Vec::new();
    let trust = Trust::open(layout, &workspace, &mut issues);
    let mut found = read_files(layout, &workspace, options, &mut issues);
    let (capped, closed) = cap_total(&mut found.per_file, options.limits.max_hooks_total);
    issues.extend(capped);
    found.closed_gates.extend(closed);
    let per_file = std::mem::take(&mut found.per_file);
    let (hooks, excluded) = admit(per_file, &workspace, options, &trust, found.only_managed, &mut issues);
    let in_store = |hook: &LoadedHook| {
        trust.store().is_trusted(&workspace, &hook.decl.id, trust_value(&hook.decl, hook.fingerprint.as_ref()))
    };
    let origin_trusted = |origin| trust.origin_trusted(origin);
    let merged =
        merge::merge(hooks, origin_trusted, |hook| in_store(hook) || trusted_for_session(options, hook.decl.origin));
    let trusted_in_memory =
        if options.trust_workspace { workspace_trust::count(&merged, in_store, origin_trusted) } else { 0 };
    // Under `only_managed` no other origin runs, readable or not.
    let only_managed = found.only_managed;
    found.closed_gates.retain(|gate| !only_managed || gate.origin == Origin::Managed);
    let config = Config {
        trust_store: trust.store.map(|s| s.path().to_path_buf()),
        closed_gates: found.closed_gates,
        workspace,
        hooks: merged.hooks,
        overridden: merged.overridden,
        shadowed: merged.shadowed,
        excluded,
        issues,
        only_managed,
        self_protection_off: found.self_protection_off,
        user_trusted: trust.user_trusted,
        trusted_in_memory,
        sources: found.sources,
    };
    if options.strict && config.has_errors() {
        let issues = config.issues.iter().filter(|i| i.severity == IssueSeverity::Error).cloned().collect();
        return Err(LoadError::Strict { issues, config: Box::new(config) });
    }
    Ok(config)
}

/// The trust this load may use.
struct Trust {
    /// Whether the user origin and the trust store are trusted: not when the config home lies inside the workspace.
    user_trusted: bool,
    /// The trust store, where a config home is known and trusted.
    store: Option<TrustStore>,
    /// The store consulted without one: it trusts nothing.
    empty: TrustStore,
}

impl Trust {
    /// A repository never supplies its own trust (docs/trust.md#origins): a config home inside the workspace is
    /// reported, and then neither the user origin nor the store is trusted.
    fn open(layout: &Layout, workspace: &Path, issues: &mut Vec<Issue>) -> Trust {
        let config_home = layout.config_home_path();
        let user_trusted = match config_home {
            Some(home) if resolve_lenient(home).starts_with(workspace) => {
                issues.push(config_home_issue(home, workspace));
                false
            }
            _ => true,
        };
        let store = match config_home {
            Some(_) if user_trusted => {
                let (store, issue) = TrustStore::open(layout.trust_store_path());
                issues.extend(issue);
                Some(store)
            }
            _ => None,
        };
        Trust { user_trusted, store, empty: TrustStore::empty(PathBuf::new()) }
    }

    fn store(&self) -> &TrustStore {
        self.store.as_ref().unwrap_or(&self.empty)
    }

    /// Whether hooks of `origin` run without the trust store: the managed origin's always, the user's when trusted.
    fn origin_trusted(&self, origin: Origin) -> bool {
        match origin {
            Origin::Managed => true,
            Origin::User => self.user_trusted,
            _ => false,
        }
    }
}

/// Whether `--trust-workspace` trusts hooks of `origin` for this load.
fn trusted_for_session(options: &LoadOptions, origin: Origin) -> bool {
    options.trust_workspace && workspace_trust::covers(origin)
}

/// What the files of every origin held.
#[derive(Default)]
struct Found {
    /// Every file looked at, in precedence order.
    sources: Vec<SourceFile>,
    /// Each read file's declarations, in precedence order.
    per_file: Vec<(PathBuf, Vec<HookDecl>)>,
    closed_gates: Vec<ClosedGate>,
    /// The managed file's `only_managed`.
    only_managed: bool,
    /// The managed file's `self_protection: false`.
    self_protection_off: bool,
}

/// Looks for every origin's files (discovery's slots, in precedence order) and reads those found.
fn read_files(layout: &Layout, workspace: &Path, options: &LoadOptions, issues: &mut Vec<Issue>) -> Found {
    let cache = options.cache_dir.as_deref().map(LoadCache::new);
    let mut found = Found::default();
    let mut listings = discover::Listings::new(layout.home.as_deref().into_iter().chain([workspace]));
    for slot in discover::slots(layout, workspace) {
        // At most one look per slot (most slots of a workspace name nothing, and a bridge call looks at all of
        // them): none when the listing of the home or the workspace already says it is not there.
        let kind = match listings.may_exist(&slot.path) {
            true => std::fs::metadata(&slot.path).ok().map(|meta| meta.file_type()),
            false => None,
        };
        // An agent whose hooks are one executable per event (Cline) names a directory.
        let directory = slot.format.agent().handler == hook_types::HandlerShape::EventExecutables;
        let is_dir = kind.is_some_and(|kind| kind.is_dir());
        let is_found = if directory { is_dir } else { kind.is_some_and(|kind| kind.is_file()) };
        let mut source = SourceFile {
            path: slot.path.clone(),
            origin: slot.origin,
            format: slot.format,
            found: is_found,
            present: kind.is_some(),
            read: false,
        };
        if is_found {
            found.read(&slot, workspace, options, cache.as_ref(), issues);
            source.read = true;
        } else if kind.is_some() {
            let issue = file_issue(&slot.path, IssueSeverity::Error, not_a_file(&slot, directory, is_dir));
            found.closed_gates.push(ClosedGate::all(slot.origin, &issue));
            issues.push(issue);
        }
        found.sources.push(source);
    }
    found
}

impl Found {
    /// Reads the file found at `slot`.
    fn read(
        &mut self,
        slot: &Slot,
        workspace: &Path,
        options: &LoadOptions,
        cache: Option<&LoadCache>,
        issues: &mut Vec<Issue>,
    ) {
        if slot.origin == Origin::Managed {
            issues.extend(crate::trust::managed_file_issue(&slot.path));
        }
        if let Some(yaml) = &slot.json_beside
            && yaml.is_file()
        {
            issues.push(file_issue(
                &slot.path,
                IssueSeverity::Warning,
                format!("both `{}` and this file exist: this file is read after it", yaml.display()),
            ));
        }
        let file = read_slot(slot, workspace, &options.limits, cache);
        issues.extend(file.issues);
        self.closed_gates.extend(file.closed_gates);
        // The reader honours `only_managed` in the managed file only (and warns elsewhere).
        self.only_managed |= file.only_managed && slot.origin == Origin::Managed;
        self.self_protection_off |= file.self_protection_off && slot.origin == Origin::Managed;
        self.per_file.push((slot.path.clone(), file.hooks));
    }
}

/// Why something that is there at `slot` is not read: not a directory where the agent keeps one, a directory of
/// `.json` hook files that held more files than discovery reads, or not a regular file.
fn not_a_file(slot: &Slot, directory: bool, is_dir: bool) -> String {
    // An agent's directory of `.json` hook files listed itself: it held more files than discovery reads.
    let json_dir = is_dir
        && hook_types::AGENTS.iter().any(|agent| {
            agent.files.read.iter().filter_map(|f| hook_types::AgentFiles::json_dir(f)).any(|d| slot.path.ends_with(d))
        });
    if directory {
        "this path exists but is not a directory; expected a directory of hook files named after events".to_owned()
    } else if json_dir {
        format!(
            "this directory of hook files holds more than {} `.json` files, so none of them was read; this path exists \
             but is not a regular file",
            crate::discover::MAX_DIR_FILES
        )
    } else {
        "this path exists but is not a regular file; expected a file of hook declarations".to_owned()
    }
}

/// Straight from each file's list into one list of the final size, each declaration moved once: excluded, or
/// checked against the host's limits, fingerprinted and given its trust status. (Gathering, excluding and wrapping
/// in turn moved every declaration three times, each time into a new list of ≈ 50 MB at 100 000 hooks.) The issues
/// of an excluded bridge handler come in file order, those of clamped timeouts after them.
fn admit(
    per_file: Vec<(PathBuf, Vec<HookDecl>)>,
    workspace: &Path,
    options: &LoadOptions,
    trust: &Trust,
    only_managed: bool,
    issues: &mut Vec<Issue>,
) -> (Vec<LoadedHook>, Vec<Excluded>) {
    let mut cache = FingerprintCache::default();
    let mut hooks: Vec<LoadedHook> = Vec::with_capacity(per_file.iter().map(|(_, hooks)| hooks.len()).sum());
    let mut excluded = Vec::new();
    let mut timeouts = Vec::new();
    for decl in per_file.into_iter().flat_map(|(_, hooks)| hooks) {
        if let Some(reason) = excluded::reason(&decl, &options.bridge_program) {
            issues.extend(excluded::unguarded_bridge(&decl));
            excluded.push(Excluded { decl, reason });
            continue;
        }
        timeouts.extend(timeout_issue(&decl, &options.limits));
        let fingerprint = matches!(decl.spec, HookSpec::Command(_) | HookSpec::Http(_) | HookSpec::Policy(_))
            .then(|| fingerprint_cached(&decl, workspace, &mut cache));
        let trusted_origin = trust.origin_trusted(decl.origin);
        let mut status = trust_status(&decl, fingerprint.as_ref(), trust.store(), workspace, trusted_origin);
        if trusted_for_session(options, decl.origin) {
            status = workspace_trust::raise(status);
        }
        let allowed_by_policy = !only_managed || decl.origin == Origin::Managed;
        hooks.push(LoadedHook { decl, trust: status, fingerprint, allowed_by_policy, origin_trusted: trusted_origin });
    }
    issues.extend(timeouts);
    (hooks, excluded)
}

/// The layout with every path made absolute against the current directory, so sources and issues name files a
/// reader can find whatever directory they run in. Not canonical: symlinked config homes keep the name they were
/// given.
fn absolute(layout: &Layout) -> Layout {
    let abs = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    Layout {
        app_dir: layout.app_dir.clone(),
        workspace: layout.workspace.clone(),
        config_home: layout.config_home.as_deref().map(abs),
        home: layout.home.as_deref().map(abs),
        extension_roots: layout.extension_roots.iter().map(|root| abs(root)).collect(),
        managed_file: abs(&layout.managed_file),
    }
}

/// Reads one found file with its format's reader, within the host's load bounds.
fn read_slot(slot: &Slot, workspace: &Path, limits: &Limits, cache: Option<&LoadCache>) -> FileLoad {
    let cx = FileContext { origin: slot.origin, workspace, root: &slot.root, source_id: slot.source_id.as_deref() };
    load_file_through(&slot.path, slot.format, &cx, limits, cache)
}

/// Holds the hooks of all files together to `max`: the files of highest precedence (the managed file first) keep
/// theirs, the lowest lose theirs first, each cut one error-level issue; a gate a dropped hook was on is closed.
fn cap_total(per_file: &mut [(PathBuf, Vec<HookDecl>)], max: usize) -> (Vec<Issue>, Vec<ClosedGate>) {
    let mut left = max;
    let mut issues = Vec::new();
    let mut closed = Vec::new();
    for (path, hooks) in per_file.iter_mut().rev() {
        if hooks.len() > left {
            let issue = file_issue(
                path,
                IssueSeverity::Error,
                format!(
                    "the files of this load declare more than {max} hooks together (the limit): {} of this file's {} \
                     hooks were dropped",
                    hooks.len() - left,
                    hooks.len()
                ),
            );
            for gate in crate::closed_gate::GATES {
                if let Some(dropped) = hooks[left..].iter().find(|h| h.enabled && h.event == gate) {
                    closed.extend(ClosedGate::for_event(Some(&gate), dropped.origin, &issue));
                }
            }
            issues.push(issue);
            hooks.truncate(left);
        }
        left -= hooks.len();
    }
    (issues, closed)
}

/// A declared timeout that this host's limits clamp differently from the default limits, which the reader already
/// reported against: it runs clamped, which the author should know.
fn timeout_issue(decl: &HookDecl, limits: &Limits) -> Option<Issue> {
    let defaults = Limits::default();
    let HookSpec::Command(spec) = &decl.spec else { return None };
    let (clamped, changed) = limits.clamp_timeout_ms(spec.timeout_ms);
    (changed && clamped != defaults.clamp_timeout_ms(spec.timeout_ms).0).then(|| Issue {
        source: decl.source.clone(),
        index: Some(decl.index),
        hook_id: Some(decl.id.clone()),
        field: Some(format!("hooks[{}].timeout_ms", decl.index)),
        line: None,
        column: None,
        severity: IssueSeverity::Warning,
        message: format!(
            "timeout_ms {} is outside this host's limits ({} … {} ms): it runs with {clamped}",
            spec.timeout_ms, limits.timeout_min_ms, limits.timeout_max_ms
        ),
    })
}

fn file_issue(path: &Path, severity: IssueSeverity, message: String) -> Issue {
    Issue {
        source: path.to_path_buf(),
        index: None,
        hook_id: None,
        field: None,
        line: None,
        column: None,
        severity,
        message,
    }
}

fn config_home_issue(home: &Path, workspace: &Path) -> Issue {
    file_issue(
        home,
        IssueSeverity::Error,
        format!(
            "the config home lies inside the workspace `{}`: a repository cannot supply its own trust, so the user \
             origin and the trust store are not trusted (nothing from a non-trusted origin that needs trust will run); \
             set --config-home outside the workspace",
            workspace.display()
        ),
    )
}

/// The canonical form of `path`, or, when it does not exist yet, its deepest existing ancestor's canonical form with
/// the rest applied lexically: a config home that is still to be created must still not lie inside the workspace.
/// The part that does not exist holds no symlinks, so resolving its `..` lexically is exact.
fn resolve_lenient(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    let components: Vec<Component<'_>> = absolute.components().collect();
    for existing in (1..=components.len()).rev() {
        let prefix: PathBuf = components[..existing].iter().collect();
        if let Ok(mut resolved) = crate::canonicalize(&prefix) {
            for component in &components[existing..] {
                match component {
                    Component::ParentDir => {
                        resolved.pop();
                    }
                    Component::Normal(name) => resolved.push(name),
                    Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
                }
            }
            return resolved;
        }
    }
    absolute
}
