//! Planning an install (everything read, checked and computed; nothing written) and applying the plan.

use std::path::{Path, PathBuf};

use hook_types::{Event, Limits, Origin};
use serde_json::{Map, Value};

use super::InstallError;
use super::agent_trust::{self, AgentTrustChange};
use hook_types::HandlerShape;

use super::agent::{Agent, AgentInstall, InstallScope};
use super::edit::{Place, add_bridge, drop_empty_lists, remove_handlers};
use super::files::{Confine, JsonLayout, parse_json_object, replace, scope_confines, sha256};
use super::handlers::{Found, classify, handlers, is_bridge};
use super::native::{insertion, native_form, yaml_block};
use super::record::{
    FileChange, InstallRecord, LockedInstalls, MovedRecord, NativeChange, TrustedRecord, installs_path,
};
use hook_config::BridgeProgram;
use hook_config::Layout;
use hook_config::fingerprint;
use hook_config::{FileContext, parse_str};
use hook_config::{Fingerprint, Format, HookDecl, HookSpec, IssueSeverity, Program};
use hook_config::{TrustStore, trust_value};

/// What to install.
#[derive(Debug, Clone)]
pub struct InstallRequest<'a> {
    /// The agent whose configuration to edit.
    pub agent: Agent,
    /// Which of its files (and which native file the moved hooks go into).
    pub scope: InstallScope,
    /// Where the workspace, the config home and the home directory are.
    pub layout: &'a Layout,
    /// The bridge command to write ([`super::bridge_command`]).
    pub command: String,
    /// The host's limits: the agent-side timeout is set above their dispatch deadline.
    pub limits: Limits,
    /// What counts as a bridge entry already there.
    pub program: BridgeProgram,
    /// The agent's own hook-trust file, where it has one ([`super::agent_state_file`]): install records the
    /// bridge entries it writes as trusted there.
    pub agent_state: Option<PathBuf>,
}

impl<'a> InstallRequest<'a> {
    /// A request with the default limits and program names.
    pub fn new(agent: Agent, scope: InstallScope, layout: &'a Layout, command: impl Into<String>) -> Self {
        InstallRequest {
            agent,
            scope,
            layout,
            command: command.into(),
            limits: Limits::default(),
            program: BridgeProgram::default(),
            agent_state: None,
        }
    }
}

/// A hook that moves from the agent's file into the native file.
#[derive(Debug, Clone)]
pub struct MovedHook {
    /// The declaration, as it loads from the native file.
    pub decl: HookDecl,
    /// Its fingerprint there (command hooks).
    pub fingerprint: Option<Fingerprint>,
    /// Whether install records its trust (it comes from a non-trusted origin, can widen, and is not trusted yet).
    pub needs_trust: bool,
    /// Whether the native file already holds it (same id and hash): it leaves the agent's file and is not added
    /// twice.
    pub already_there: bool,
    /// The event key it was under, as the agent spells it.
    pub event: String,
    place: (Option<usize>, usize),
    group_keys: Map<String, Value>,
    handler: Value,
}

/// A handler that stays in the agent's file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptHandler {
    /// The event key it is under.
    pub event: String,
    /// Its command, if it has one.
    pub command: Option<String>,
    /// Why it stays.
    pub reason: String,
}

/// Everything an install would do, computed without writing anything. [`InstallPlan::apply`] writes it.
#[derive(Debug, Clone)]
pub struct InstallPlan {
    /// The agent.
    pub agent: Agent,
    /// The scope.
    pub scope: InstallScope,
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The agent's file.
    pub agent_file: PathBuf,
    /// The events the bridge entry is added under.
    pub added_events: Vec<String>,
    /// The hooks that move, in file order.
    pub moved: Vec<MovedHook>,
    /// The handlers that stay with the agent.
    pub kept: Vec<KeptHandler>,
    /// The native file the hooks move into.
    pub native_file: PathBuf,
    /// Events that get no bridge here because the agent's file of a broader scope already has it there.
    pub bridged_elsewhere: Vec<(String, PathBuf)>,
    /// Events a narrower scope's file also bridges: in that workspace the agent has the bridge twice (Claude Code
    /// runs identical handlers once; the other agents run both).
    pub bridged_narrower: Vec<(String, PathBuf)>,
    command: String,
    agent_original: Option<String>,
    agent_new: String,
    native_original: Option<String>,
    native_new: Option<(String, String)>,
    installs: PathBuf,
    trust_store: Option<PathBuf>,
    /// What install changes in the agent's own hook trust (Codex's `trusted_hash` of the bridge entries).
    pub agent_trust: Option<AgentTrustChange>,
    /// Where the agent's file and the native file must stay.
    confines: (Confine, Confine),
    /// For an agent of one executable per event: the files install writes and moves in its directory, in place of
    /// a rewrite of `agent_file`.
    executables: Option<super::executables::ExecutablesPlan>,
}

/// Reads the agent's file of `request.scope` and plans the install (see the [module docs](super)). Nothing is
/// written.
///
/// # Errors
/// The agent has no file for the scope; a directory is unknown (no home, no config home); a file cannot be read or
/// is not something install can edit without losing content; the moved hooks would not load back unchanged.
pub fn plan_install(request: &InstallRequest<'_>) -> Result<InstallPlan, InstallError> {
    match request.agent.agent().handler {
        HandlerShape::EventExecutables => return super::executables::plan(request),
        HandlerShape::Plugin { .. } => return super::plugin::plan(request),
        _ => {}
    }
    let paths = Paths::of(request)?;
    check_overrides(request, &paths)?;
    let agent_original = paths.confines.0.read(&paths.agent_file)?;
    let mut root = parse_json_object(&paths.agent_file, agent_original.as_deref())?;
    let mut hooks = agent_hooks(&root, &paths.agent_file)?;
    super::handlers::check_shapes(request.agent, &paths.agent_file, &hooks)?;
    let hooks_before = hooks.clone();
    let found = sort_handlers(request, &paths, &root, &hooks);
    let mut kept = found.kept;
    kept.extend(kept_beside(request, &paths));
    let native = plan_native(request, &paths, found.movable)?;
    let mut moved = native.moved;
    settle_trust(&paths, &mut moved)?;

    let bridges = plan_bridges(request, &paths, &moved, found.bridged)?;
    let places: Vec<Place<'_>> = moved.iter().map(|m| (m.event.as_str(), m.place.0, m.place.1)).collect();
    remove_handlers(&mut hooks, &places);
    add_bridge(&mut hooks, &bridges.added, |event| {
        request.agent.bridge_entry_for(event, &request.command, &request.limits)
    });
    let touched: Vec<&str> = moved.iter().map(|m| m.event.as_str()).collect();
    drop_empty_lists(&mut hooks, &touched);
    if matches!(request.agent.agent().handler, HandlerShape::Flat { versioned: true } | HandlerShape::Shells)
        && !root.contains_key("version")
    {
        root.insert("version".into(), 1.into());
    }
    let agent_trust = match &request.agent_state {
        Some(state) => agent_trust::plan(
            request.agent,
            state,
            &canonical_file(&paths.agent_file),
            &hooks_before,
            &hooks,
            &request.program,
        )?,
        None => None,
    };
    root.insert("hooks".into(), Value::Object(hooks));
    let layout_of = agent_original.as_deref().map(JsonLayout::of).unwrap_or_default();
    let agent_new = layout_of.write(&Value::Object(root));

    Ok(InstallPlan {
        agent: request.agent,
        scope: request.scope,
        workspace: paths.workspace,
        agent_file: paths.agent_file,
        added_events: bridges.added,
        moved,
        kept,
        native_file: paths.native_file,
        bridged_elsewhere: bridges.elsewhere,
        bridged_narrower: bridges.narrower,
        command: request.command.clone(),
        agent_original,
        agent_new,
        native_original: native.original,
        native_new: native.new,
        installs: installs_path(request.layout).map(|p| absolute(&p)).unwrap_or_default(),
        trust_store: paths.trust_store,
        agent_trust,
        confines: paths.confines,
        executables: None,
    })
}

/// Events bridged in a broader scope's file, and in a narrower one's, each with that file.
pub(super) type BridgedElsewhere = (Vec<(String, PathBuf)>, Vec<(String, PathBuf)>);

impl InstallPlan {
    /// The plan of an agent of one executable per event (`super::executables`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn of_executables(
        request: &InstallRequest<'_>,
        paths: Paths,
        added_events: Vec<String>,
        moved: Vec<MovedHook>,
        kept: Vec<KeptHandler>,
        native: NativePlan,
        bridged: BridgedElsewhere,
        executables: super::executables::ExecutablesPlan,
    ) -> InstallPlan {
        InstallPlan {
            agent: request.agent,
            scope: request.scope,
            workspace: paths.workspace,
            agent_file: paths.agent_file,
            added_events,
            moved,
            kept,
            native_file: paths.native_file,
            bridged_elsewhere: bridged.0,
            bridged_narrower: bridged.1,
            command: request.command.clone(),
            agent_original: None,
            agent_new: String::new(),
            native_original: native.original,
            native_new: native.new,
            installs: installs_path(request.layout).map(|p| absolute(&p)).unwrap_or_default(),
            trust_store: paths.trust_store,
            agent_trust: None,
            confines: paths.confines,
            executables: Some(executables),
        }
    }

    /// The agent's own hook files install moves aside, each with where it goes (an agent of one executable per
    /// event); empty for the others.
    ///
    /// ```
    /// use hook_agents::install::{plan_install, Agent, InstallRequest, InstallScope};
    /// use hook_config::Layout;
    /// let ws = tempfile::tempdir().unwrap();
    /// let cfg = tempfile::tempdir().unwrap();
    /// std::fs::create_dir_all(ws.path().join(".cline/hooks")).unwrap();
    /// std::fs::write(ws.path().join(".cline/hooks/PreToolUse.sh"), "echo '{}'\n").unwrap();
    /// let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None);
    /// let request = InstallRequest::new(Agent::Cline, InstallScope::Project, &layout, "hook bridge --protocol cline");
    /// let plan = plan_install(&request).unwrap();
    /// let (from, to) = &plan.moved_files()[0];
    /// assert!(from.ends_with(".cline/hooks/PreToolUse.sh") && to.ends_with(".cline/hooks/moved-by-hook/PreToolUse.sh"));
    /// ```
    pub fn moved_files(&self) -> Vec<(PathBuf, PathBuf)> {
        self.executables
            .as_ref()
            .map(|e| e.moves.iter().map(|m| (m.from.clone(), m.to.clone())).collect())
            .unwrap_or_default()
    }
}

/// `path` with its directory's symlinks resolved, as the agent names the file (its directory may not exist yet).
fn canonical_file(path: &Path) -> PathBuf {
    match (path.parent().and_then(|dir| std::fs::canonicalize(dir).ok()), path.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

pub(super) fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Where one install reads and writes.
pub(super) struct Paths {
    /// The canonical workspace.
    pub(super) workspace: PathBuf,
    /// The agent's file of the scope.
    pub(super) agent_file: PathBuf,
    /// The config home (install records and trust live there).
    pub(super) config_home: PathBuf,
    /// The native file of the same scope, where moved hooks go.
    pub(super) native_file: PathBuf,
    /// The origin of both files.
    pub(super) origin: Origin,
    /// The trust store; `None` when the config home lies inside the workspace (a repository never supplies its
    /// own trust).
    pub(super) trust_store: Option<PathBuf>,
    /// Where the agent's file and the native file must stay.
    pub(super) confines: (Confine, Confine),
}

impl Paths {
    pub(super) fn of(request: &InstallRequest<'_>) -> Result<Paths, InstallError> {
        let (agent, scope, layout) = (request.agent, request.scope, request.layout);
        let workspace = std::fs::canonicalize(&layout.workspace).map_err(|source| InstallError::Io {
            action: "cannot use the workspace",
            path: layout.workspace.clone(),
            source,
        })?;
        let agent_file = match agent.config_file(scope, layout) {
            Some(path) => absolute(&path),
            None if scope == InstallScope::User => {
                return Err(InstallError::Unknown { what: "the home directory", hint: "set $HOME" });
            }
            None => return Err(InstallError::NoFileForScope { agent: agent.display_name(), scope }),
        };
        let config_home = layout.config_home_path().map(absolute).ok_or(InstallError::Unknown {
            what: "the config home",
            hint: "pass --config-home DIR (install records what it changed there)",
        })?;
        let (native_file, origin) = match scope {
            InstallScope::Project => (layout.project_dir().join("hooks.yaml"), Origin::Project),
            InstallScope::Local => (layout.project_dir().join("hooks.local.yaml"), Origin::ProjectLocal),
            InstallScope::User => (config_home.join("hooks.yaml"), Origin::User),
        };
        let trust_store =
            (!config_home.starts_with(&workspace)).then(|| config_home.join(hook_config::TRUST_STORE_FILE));
        let confines = scope_confines(scope, &workspace, layout.home.as_deref(), &config_home)?;
        Ok(Paths {
            native_file: absolute(&native_file),
            workspace,
            agent_file,
            config_home,
            origin,
            trust_store,
            confines,
        })
    }

    /// The root relative paths of the agent's file resolve against.
    fn agent_root(&self) -> PathBuf {
        match self.origin {
            Origin::User => self.agent_file.parent().map(Path::to_path_buf).unwrap_or_default(),
            _ => self.workspace.clone(),
        }
    }

    /// The root relative paths of the native file resolve against.
    pub(super) fn native_root(&self) -> PathBuf {
        match self.origin {
            Origin::User => self.config_home.clone(),
            _ => self.workspace.clone(),
        }
    }
}

/// The agent file's `hooks` object (empty when it has none).
fn agent_hooks(root: &Map<String, Value>, agent_file: &Path) -> Result<Map<String, Value>, InstallError> {
    match root.get("hooks") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(hooks)) => Ok(hooks.clone()),
        Some(other) => Err(InstallError::Unsupported {
            path: agent_file.to_path_buf(),
            message: format!("`hooks` is {}, expected an object of events", super::files::json_kind(other)),
        }),
    }
}

/// The agent file's handlers, sorted: bridges already there, hooks that move, handlers that stay.
struct Sorted {
    bridged: Vec<String>,
    movable: Vec<(super::handlers::Handler, HookDecl)>,
    kept: Vec<KeptHandler>,
}

fn sort_handlers(
    request: &InstallRequest<'_>,
    paths: &Paths,
    root: &Map<String, Value>,
    hooks: &Map<String, Value>,
) -> Sorted {
    let agent_root = paths.agent_root();
    let cx = FileContext { origin: paths.origin, workspace: &paths.workspace, root: &agent_root, source_id: None };
    let mut sorted = Sorted { bridged: Vec::new(), movable: Vec::new(), kept: Vec::new() };
    for handler in handlers(request.agent, hooks) {
        match classify(request.agent, root, &handler, &paths.agent_file, &cx, &request.program) {
            Found::Bridge => sorted.bridged.push(handler.event.clone()),
            Found::Movable(decl) => sorted.movable.push((handler, *decl)),
            Found::Kept(reason) => sorted.kept.push(KeptHandler {
                command: handler.value.get("command").and_then(Value::as_str).map(str::to_owned),
                event: handler.event,
                reason,
            }),
        }
    }
    sorted
}

/// The agent's other files of this scope (its table entry's `files.read`, beside the one install edits), each with
/// its path: at the project and user scopes only, where the loader reads them.
fn files_beside(request: &InstallRequest<'_>, paths: &Paths) -> Vec<PathBuf> {
    let files = &request.agent.agent().files;
    let relative = match request.scope {
        InstallScope::Project => files.project,
        InstallScope::User => files.user,
        InstallScope::Local => None,
    };
    let Some(relative) = relative else { return Vec::new() };
    let read = match request.scope {
        InstallScope::User => files.read_user.unwrap_or(files.read),
        _ => files.read,
    };
    // The scope's base directory: the agent file without its relative path.
    let mut base = paths.agent_file.clone();
    for _ in Path::new(relative).components() {
        base.pop();
    }
    let mut beside = Vec::new();
    for file in read {
        match hook_types::AgentFiles::json_dir(file) {
            // A directory of hook files (GitHub Copilot CLI's `.github/hooks/*.json`): each of its other files.
            Some(dir) => {
                let Ok(entries) = std::fs::read_dir(base.join(dir)) else { continue };
                let mut found: Vec<PathBuf> = entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
                    .collect();
                found.sort();
                beside.extend(found);
            }
            None => beside.push(base.join(file)),
        }
    }
    beside.retain(|p| *p != paths.agent_file);
    beside
}

/// Refuses while a file the agent reads in place of the install file, event by event, declares hooks (Factory
/// Droid's `hooks.json` over its `settings.json`): the bridge written into the install file would not run on those
/// events, so the hooks moved to the native file would run nowhere.
fn check_overrides(request: &InstallRequest<'_>, paths: &Paths) -> Result<(), InstallError> {
    let agent = request.agent.agent();
    let agent_root = paths.agent_root();
    let cx = FileContext { origin: paths.origin, workspace: &paths.workspace, root: &agent_root, source_id: None };
    for path in files_beside(request, paths) {
        let overrides = agent.files.overrides.iter().any(|f| path.ends_with(f));
        if !overrides || hook_config::load_file(&path, request.agent, &cx).hooks.is_empty() {
            continue;
        }
        return Err(InstallError::Unsupported {
            message: format!(
                "{} runs this file's hooks in place of those in `{}`, event by event, so the bridge hook install \
                 writes there would not run on their events; move its hooks into the `hooks` key of that file (or \
                 remove this one), then run hook install again",
                agent.name,
                paths.agent_file.display()
            ),
            path,
        });
    }
    Ok(())
}

/// Hooks the agent reads from another file beside the one install edits (Codex's `[hooks]` in `config.toml`):
/// install edits one file only, so those stay, and the plan says so.
pub(super) fn kept_beside(request: &InstallRequest<'_>, paths: &Paths) -> Vec<KeptHandler> {
    let agent = request.agent.agent();
    let agent_root = paths.agent_root();
    let cx = FileContext { origin: paths.origin, workspace: &paths.workspace, root: &agent_root, source_id: None };
    let mut kept = Vec::new();
    for path in files_beside(request, paths) {
        let decls = hook_config::load_file(&path, request.agent, &cx).hooks;
        kept.extend(decls.into_iter().map(|decl| KeptHandler {
            event: decl.event.to_string(),
            command: match &decl.spec {
                HookSpec::Command(c) => match &c.program {
                    Program::Shell(line) | Program::PowerShell(line) => Some(line.clone()),
                    Program::Argv(argv) => Some(argv.join(" ")),
                },
                _ => None,
            },
            reason: format!(
                "it is in {}, which hook install does not edit: {} keeps running it itself",
                path.display(),
                agent.name
            ),
        }));
    }
    kept
}

/// The native file with the moved hooks added, loaded back and checked.
pub(super) struct NativePlan {
    pub(super) moved: Vec<MovedHook>,
    pub(super) original: Option<String>,
    pub(super) new: Option<(String, String)>,
}

pub(super) fn plan_native(
    request: &InstallRequest<'_>,
    paths: &Paths,
    movable: Vec<(super::handlers::Handler, HookDecl)>,
) -> Result<NativePlan, InstallError> {
    let native_root = paths.native_root();
    let cx = FileContext { origin: paths.origin, workspace: &paths.workspace, root: &native_root, source_id: None };
    let original = paths.confines.1.read(&paths.native_file)?;
    let before = parse_str(original.as_deref().unwrap_or(""), &paths.native_file, Format::Native, &cx);
    let mut moved = Vec::new();
    let mut forms = Vec::new();
    for (handler, decl) in movable {
        let already_there = before.hooks.iter().any(|h| h.id == decl.id && h.hash == decl.hash)
            || moved.iter().any(|m: &MovedHook| m.decl.id == decl.id);
        if !already_there {
            forms.push(native_form(&decl));
        }
        moved.push(MovedHook {
            decl,
            fingerprint: None,
            needs_trust: false,
            already_there,
            event: handler.event,
            place: (handler.group, handler.index),
            group_keys: handler.group_keys,
            handler: handler.value,
        });
    }
    if forms.is_empty() {
        return Ok(NativePlan { moved, original, new: None });
    }
    let text = original.clone().unwrap_or_default();
    let at =
        insertion(&text).map_err(|message| InstallError::Unsupported { path: paths.native_file.clone(), message })?;
    let agent = request.agent;
    let display = paths.agent_file.strip_prefix(&paths.workspace).unwrap_or(&paths.agent_file).display().to_string();
    let header = format!(
        "moved from {display} by `hook install --agent {agent}`; `hook uninstall --agent {agent}` moves them back"
    );
    let footer = format!("end of the hooks moved by `hook install --agent {agent}`");
    let block = yaml_block(&forms, &at.indent, &header, &footer);
    let new_text = format!("{}{}{block}{}", &text[..at.at], at.before, &text[at.at..]);
    let after = parse_str(&new_text, &paths.native_file, Format::Native, &cx);
    verify(&paths.native_file, &before, &after, &mut moved)?;
    Ok(NativePlan { moved, original, new: Some((new_text, block)) })
}

/// Each moved hook's fingerprint, and whether install must record its trust (it comes from a non-trusted origin,
/// can widen, and is not trusted yet): it was already running in the agent.
pub(super) fn settle_trust(paths: &Paths, moved: &mut [MovedHook]) -> Result<(), InstallError> {
    let store = paths.trust_store.as_ref().map(|path| TrustStore::open(path).0);
    for hook in moved.iter_mut() {
        if let HookSpec::Command(_) = hook.decl.spec {
            hook.fingerprint = Some(fingerprint(&hook.decl, &paths.workspace));
        }
        let value = trust_value(&hook.decl, hook.fingerprint.as_ref());
        hook.needs_trust = !paths.origin.trusted_by_default()
            && hook.decl.can_widen()
            && !store.as_ref().is_some_and(|s| s.is_trusted(&paths.workspace, &hook.decl.id, value));
    }
    if moved.iter().any(|h| h.needs_trust) && paths.trust_store.is_none() {
        return Err(InstallError::Unknown {
            what: "a trust store outside the workspace",
            hint: "pass --config-home DIR outside the workspace (a repository never supplies its own trust)",
        });
    }
    Ok(())
}

/// Which events get the bridge, and which already have it in another scope's file.
struct Bridges {
    added: Vec<String>,
    elsewhere: Vec<(String, PathBuf)>,
    narrower: Vec<(String, PathBuf)>,
}

/// The agent merges its scopes. A bridge a broader scope's file already holds on an event serves this workspace
/// too: a second one here would run the engine's hooks twice. A narrower scope's bridge serves this workspace only,
/// so a broader install still adds its own, and says this workspace then has two.
fn plan_bridges(
    request: &InstallRequest<'_>,
    paths: &Paths,
    moved: &[MovedHook],
    mut bridged: Vec<String>,
) -> Result<Bridges, InstallError> {
    let (agent, scope) = (request.agent, request.scope);
    let mut events: Vec<String> = agent.install_events().into_iter().map(str::to_owned).collect();
    for hook in moved {
        if let Event::Foreign(name) = &hook.decl.event
            && !events.contains(name)
        {
            events.push(name.clone());
        }
    }
    let rank = |s: InstallScope| match s {
        InstallScope::Local => 0,
        InstallScope::Project => 1,
        InstallScope::User => 2,
    };
    let mut elsewhere = Vec::new();
    let mut narrower = Vec::new();
    for other in [InstallScope::Local, InstallScope::Project, InstallScope::User] {
        let Some(path) = agent.config_file(other, request.layout).filter(|_| other != scope) else { continue };
        let home = request.layout.home.as_deref();
        let Ok((confine, _)) = scope_confines(other, &paths.workspace, home, &paths.config_home) else { continue };
        let Ok(Some(text)) = confine.read(&path) else { continue };
        let Ok(other_root) = parse_json_object(&path, Some(&text)) else { continue };
        let Some(Value::Object(other_hooks)) = other_root.get("hooks") else { continue };
        for handler in handlers(agent, other_hooks) {
            if !is_bridge(&handler.value, &request.program) {
                continue;
            }
            if rank(other) < rank(scope) {
                narrower.push((handler.event, absolute(&path)));
            } else if !bridged.contains(&handler.event) {
                bridged.push(handler.event.clone());
                elsewhere.push((handler.event, absolute(&path)));
            }
        }
    }
    let added = events.into_iter().filter(|e| !bridged.contains(e)).collect();
    Ok(Bridges { added, elsewhere, narrower })
}

/// The native file after the insertion must hold what it held before, plus each moved hook with the same id, hash
/// and program, and no new error. On success the moved declarations are replaced by the ones loaded from there.
fn verify(
    path: &Path,
    before: &hook_config::FileLoad,
    after: &hook_config::FileLoad,
    moved: &mut [MovedHook],
) -> Result<(), InstallError> {
    let fail = |message: String| Err(InstallError::Verify { path: path.to_path_buf(), message });
    let errors = |load: &hook_config::FileLoad| -> Vec<String> {
        load.issues.iter().filter(|i| i.severity == IssueSeverity::Error).map(|i| i.message.clone()).collect()
    };
    if let Some(new) = errors(after).into_iter().find(|e| !errors(before).contains(e)) {
        return fail(new);
    }
    for old in &before.hooks {
        if !after.hooks.iter().any(|h| h.id == old.id && h.hash == old.hash) {
            return fail(format!("the hook `{}` already there would change", old.id));
        }
    }
    for hook in moved.iter_mut() {
        let Some(loaded) = after.hooks.iter().find(|h| h.id == hook.decl.id) else {
            return fail(format!("the moved hook `{}` is missing", hook.decl.id));
        };
        if loaded.hash != hook.decl.hash {
            return fail(format!(
                "the moved hook `{}` hashes {} instead of {}",
                hook.decl.id, loaded.hash, hook.decl.hash
            ));
        }
        let program = |decl: &HookDecl| match &decl.spec {
            HookSpec::Command(c) if matches!(c.program, Program::Argv(_)) => c.resolved_program.clone(),
            _ => None,
        };
        if program(loaded) != program(&hook.decl) {
            return fail(format!(
                "the moved hook `{}` would run another program: its relative path resolves against another directory",
                hook.decl.id
            ));
        }
        hook.decl = loaded.clone();
    }
    Ok(())
}

impl InstallPlan {
    /// Whether the install would change nothing (a second run).
    pub fn is_empty(&self) -> bool {
        self.added_events.is_empty() && self.moved.is_empty() && self.agent_trust.is_none()
    }

    /// The agent's file as the install writes it.
    pub fn agent_text(&self) -> &str {
        &self.agent_new
    }

    /// Writes the plan: the native file first (so the moved hooks exist before they leave the agent), then the
    /// agent's file, then the trust of the moved hooks, then the record. A failure undoes the writes before it. A
    /// file or script that changed since the plan was made (and so since the hooks were shown) stops the install.
    pub fn apply(&self) -> Result<InstallRecord, InstallError> {
        if self.is_empty() {
            return Err(InstallError::Unsupported {
                path: self.agent_file.clone(),
                message: "the bridge is already installed and there is nothing to move".into(),
            });
        }
        if let Some(executables) = &self.executables {
            return self.apply_executables(executables);
        }
        self.check_unchanged()?;
        let native_change = self.write_native()?;
        let undo_native = |change: &Option<NativeChange>| self.undo_native(change);
        let written = self
            .confines
            .0
            .resolve(&self.agent_file)
            .and_then(|real| replace(&self.agent_file, &real, self.agent_original.as_deref(), &self.agent_new));
        let created_dirs = match written {
            Ok(created) => created,
            Err(err) => {
                undo_native(&native_change);
                return Err(err);
            }
        };
        let agent_change = FileChange {
            path: self.agent_file.clone(),
            original: self.agent_original.clone(),
            written_sha256: sha256(&self.agent_new),
            created_dirs,
        };
        let store_existed = self.trust_store.as_ref().is_some_and(|p| p.exists());
        let trusted = match self.trust() {
            Ok(trusted) => trusted,
            Err(err) => {
                let _ = super::undo::restore_exactly(&agent_change, &self.confines.0);
                undo_native(&native_change);
                return Err(err);
            }
        };
        if let Some(change) = &self.agent_trust
            && let Err(err) = replace(&change.file, &change.file, change.original.as_deref(), &change.written)
        {
            super::undo::revoke(self.trust_store.as_deref(), &self.workspace, &trusted, false);
            let _ = super::undo::restore_exactly(&agent_change, &self.confines.0);
            undo_native(&native_change);
            return Err(err);
        }
        let record = InstallRecord {
            agent: self.agent,
            scope: self.scope,
            workspace: (self.scope != InstallScope::User).then(|| self.workspace.clone()),
            command: self.command.clone(),
            agent_file: agent_change,
            added_events: self.added_events.clone(),
            moved: self
                .moved
                .iter()
                .map(|m| MovedRecord {
                    id: m.decl.id.clone(),
                    hash: m.decl.hash.clone(),
                    event: m.event.clone(),
                    group: m.place.0,
                    index: m.place.1,
                    group_keys: m.group_keys.clone(),
                    handler: m.handler.clone(),
                })
                .collect(),
            native_file: native_change,
            trust_store_created: !store_existed && !trusted.is_empty(),
            trusted,
            agent_trust: self.agent_trust.clone(),
            executables: None,
        };
        let saved = LockedInstalls::open(&self.installs).and_then(|mut locked| {
            locked.installs.installs.push(record.clone());
            locked.save()
        });
        if let Err(err) = saved {
            super::undo::revoke(
                self.trust_store.as_deref(),
                &self.workspace,
                &record.trusted,
                record.trust_store_created,
            );
            let _ = super::undo::restore_exactly(&record.agent_file, &self.confines.0);
            undo_native(&record.native_file);
            return Err(err);
        }
        Ok(record)
    }

    fn check_unchanged(&self) -> Result<(), InstallError> {
        let files = [(&self.agent_file, &self.agent_original), (&self.native_file, &self.native_original)];
        for ((path, original), confine) in files.into_iter().zip([&self.confines.0, &self.confines.1]) {
            if confine.read(path)? != *original {
                return Err(InstallError::Changed { path: path.clone() });
            }
        }
        for hook in &self.moved {
            if let Some(shown) = &hook.fingerprint
                && fingerprint(&hook.decl, &self.workspace).value != shown.value
            {
                let path = shown.files.first().map_or_else(|| self.native_file.clone(), |f| f.path.clone());
                return Err(InstallError::Changed { path });
            }
        }
        Ok(())
    }

    /// [`InstallPlan::apply`] for an agent of one executable per event: the native file first, then the agent's
    /// directory (its hook files moved aside, the bridge scripts written), then the trust of the moved hooks taken
    /// from the files where they now are, then the record; a failure undoes the steps before it.
    /// Writes the native file's new text, if install moves hooks into it: the change, for the record and for undo.
    fn write_native(&self) -> Result<Option<NativeChange>, InstallError> {
        let Some((text, block)) = &self.native_new else { return Ok(None) };
        let real = self.confines.1.resolve(&self.native_file)?;
        let created_dirs = replace(&self.native_file, &real, self.native_original.as_deref(), text)?;
        Ok(Some(NativeChange {
            file: FileChange {
                path: self.native_file.clone(),
                original: self.native_original.clone(),
                written_sha256: sha256(text),
                created_dirs,
            },
            block: block.clone(),
        }))
    }

    /// Puts the native file back as it was before [`Self::write_native`], when a later step failed.
    fn undo_native(&self, change: &Option<NativeChange>) {
        if let Some(change) = change {
            let _ = super::undo::restore_exactly(&change.file, &self.confines.1);
        }
    }

    fn apply_executables(
        &self,
        executables: &super::executables::ExecutablesPlan,
    ) -> Result<InstallRecord, InstallError> {
        if self.confines.1.read(&self.native_file)? != self.native_original {
            return Err(InstallError::Changed { path: self.native_file.clone() });
        }
        executables.check_unchanged()?;
        let native_change = self.write_native()?;
        let undo_native = |change: &Option<NativeChange>| self.undo_native(change);
        let change = match executables.apply() {
            Ok(change) => change,
            Err(err) => {
                undo_native(&native_change);
                return Err(err);
            }
        };
        let undo_dir = |change: &super::ExecutablesChange| {
            super::executables::undo(change, &mut Vec::new(), &mut Vec::new());
        };
        // The moved files are where their hooks name them now: their fingerprints are taken there.
        let moved: Vec<MovedHook> = self
            .moved
            .iter()
            .cloned()
            .map(|mut hook| {
                if let HookSpec::Command(_) = hook.decl.spec {
                    hook.fingerprint = Some(fingerprint(&hook.decl, &self.workspace));
                }
                hook
            })
            .collect();
        let store_existed = self.trust_store.as_ref().is_some_and(|p| p.exists());
        let trusted = match self.trust_hooks(&moved) {
            Ok(trusted) => trusted,
            Err(err) => {
                undo_dir(&change);
                undo_native(&native_change);
                return Err(err);
            }
        };
        let record = InstallRecord {
            agent: self.agent,
            scope: self.scope,
            workspace: (self.scope != InstallScope::User).then(|| self.workspace.clone()),
            command: self.command.clone(),
            agent_file: FileChange {
                path: self.agent_file.clone(),
                original: None,
                written_sha256: String::new(),
                created_dirs: Vec::new(),
            },
            added_events: self.added_events.clone(),
            moved: moved
                .iter()
                .map(|m| MovedRecord {
                    id: m.decl.id.clone(),
                    hash: m.decl.hash.clone(),
                    event: m.event.clone(),
                    group: m.place.0,
                    index: m.place.1,
                    group_keys: m.group_keys.clone(),
                    handler: m.handler.clone(),
                })
                .collect(),
            native_file: native_change,
            trust_store_created: !store_existed && !trusted.is_empty(),
            trusted,
            agent_trust: None,
            executables: Some(change),
        };
        let saved = LockedInstalls::open(&self.installs).and_then(|mut locked| {
            locked.installs.installs.push(record.clone());
            locked.save()
        });
        if let Err(err) = saved {
            super::undo::revoke(
                self.trust_store.as_deref(),
                &self.workspace,
                &record.trusted,
                record.trust_store_created,
            );
            if let Some(change) = &record.executables {
                undo_dir(change);
            }
            undo_native(&record.native_file);
            return Err(err);
        }
        Ok(record)
    }

    /// Records the trust of the moved hooks that need it; returns what it recorded.
    fn trust(&self) -> Result<Vec<TrustedRecord>, InstallError> {
        self.trust_hooks(&self.moved)
    }

    /// Records the trust of `moved` (this plan's hooks) where they need it; returns what it recorded.
    fn trust_hooks(&self, moved: &[MovedHook]) -> Result<Vec<TrustedRecord>, InstallError> {
        let wanted: Vec<&MovedHook> = moved.iter().filter(|m| m.needs_trust).collect();
        let Some(path) = self.trust_store.as_ref().filter(|_| !wanted.is_empty()) else { return Ok(Vec::new()) };
        // Under the store's lock: a concurrent `hook trust` or install loses no entry.
        let (trusted, _) = TrustStore::update(path, |store| {
            let mut trusted = Vec::new();
            for hook in wanted {
                let value = trust_value(&hook.decl, hook.fingerprint.as_ref());
                store.trust(&self.workspace, &hook.decl.id, value);
                trusted.push(TrustedRecord { id: hook.decl.id.clone(), fingerprint: value.to_owned() });
            }
            trusted
        })?;
        Ok(trusted)
    }
}
