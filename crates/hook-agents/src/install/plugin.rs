//! Install into an agent whose hooks are in-process plugins (the agent table's
//! [`HandlerShape::Plugin`](hook_types::HandlerShape::Plugin): OpenCode's and Kilo Code CLI's JavaScript modules in a
//! config directory's `plugins/`).
//!
//! 1. **The plugin** ([`plugin_source`]) is written as the agent's file of the scope (`.opencode/plugins/hook-engine.js`):
//!    plain JavaScript, shipped in this crate (`plugin/opencode.js`, with its tests beside it), whose one line of
//!    settings names the bridge command, the agent and how long a gate waits for the bridge. It hands the agent's
//!    events to the bridge and applies its answer; a bridge that cannot answer blocks a gate.
//! 2. **The dependency marker**: at start-up the agent installs its plugin package (`@opencode-ai/plugin`) into each
//!    config directory with npm, and waits for it, unless the directory has `node_modules` and a `package-lock.json`
//!    listing every dependency. This plugin imports nothing, so where the directory has no package files of its own,
//!    install writes that lock (naming the package) and creates `node_modules`: the agent starts without going to the
//!    registry. A directory whose own package files do not list the package is refused with the command that fixes
//!    it, since install does not edit a user's lock file.
//! 3. **Uninstall** removes the plugin and the lock while each still holds what install wrote, and the directories
//!    install created once empty (see [`super::executables`], whose record it shares): the agent's directory is byte
//!    for byte what it was. The user's own plugins beside it are never touched.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::InstallError;
use super::agent::{Agent, AgentInstall, BRIDGE_TIMEOUT_MARGIN_MS};
use super::executables::{ExecutablesPlan, digest};
use super::plan::{InstallPlan, InstallRequest, NativePlan, Paths, plan_native};
use hook_types::{HandlerShape, Limits};

/// The plugin as shipped: `plugin/opencode.js`, whose `const CONFIG = …;` line install fills in.
const PLUGIN: &str = include_str!("../../plugin/opencode.js");

/// The start of the one line of the plugin that holds its settings.
const CONFIG_LINE: &str = "const CONFIG = ";

/// The plugin `hook install` writes for `agent`: the shipped module with its settings line naming `command` (the
/// bridge command line, run with `sh -c`), the agent, and how long a gate waits for the bridge (the dispatch
/// deadline, its grace and [`BRIDGE_TIMEOUT_MARGIN_MS`]).
///
/// ```
/// use hook_agents::install::{plugin_source, plugin_settings, Agent};
/// use hook_types::Limits;
/// let text = plugin_source(Agent::Opencode, "hook bridge --protocol opencode", &Limits::default());
/// assert!(text.contains("\"tool.execute.before\""));
/// let settings = plugin_settings(&text).unwrap();
/// assert_eq!(settings["command"], "hook bridge --protocol opencode");
/// assert_eq!(settings["agent"], "opencode");
/// ```
pub fn plugin_source(agent: Agent, command: &str, limits: &Limits) -> String {
    let timeout = limits.dispatch_deadline_ms.saturating_add(limits.grace_ms).saturating_add(BRIDGE_TIMEOUT_MARGIN_MS);
    let program = super::fallback::program_word(command);
    let settings = json!({"command": command, "program": program, "agent": agent.as_str(), "timeoutMs": timeout});
    let mut out = String::with_capacity(PLUGIN.len() + command.len());
    for line in PLUGIN.split_inclusive('\n') {
        if line.starts_with(CONFIG_LINE) {
            out.push_str(&format!("{CONFIG_LINE}{settings};\n"));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The settings line of a plugin `hook install` wrote (`command`, `agent`, `timeoutMs`), read back; `None` for a text
/// that is not such a plugin.
pub fn plugin_settings(text: &str) -> Option<Value> {
    let line = text.lines().find_map(|l| l.strip_prefix(CONFIG_LINE))?;
    let value: Value = serde_json::from_str(line.strip_suffix(';')?).ok()?;
    value.get("command")?.as_str()?;
    Some(value)
}

/// Whether `text` is the plugin this build ships, whatever its settings line says: a plugin edited since install, or
/// written by another version, is not known to load in the agent.
///
/// ```
/// use hook_agents::install::{is_shipped_plugin, plugin_source, Agent};
/// let text = plugin_source(Agent::Kilo, "/opt/hook bridge --protocol kilo", &hook_types::Limits::default());
/// assert!(is_shipped_plugin(&text));
/// assert!(!is_shipped_plugin(&text.replace("throw new Error(stop)", "return")));
/// ```
pub fn is_shipped_plugin(text: &str) -> bool {
    let mut shipped = PLUGIN.split_inclusive('\n');
    let mut found = text.split_inclusive('\n');
    loop {
        match (shipped.next(), found.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if a.starts_with(CONFIG_LINE) && b.starts_with(CONFIG_LINE) => {}
            (Some(a), Some(b)) if a == b => {}
            _ => return false,
        }
    }
}

/// The files that keep the agent from fetching its plugin package at start-up, in the config directory holding
/// `plugin_file` (`.opencode` for `.opencode/plugins/hook-engine.js`): `None` when they are there, else what is
/// missing.
pub fn dependency_missing(agent: Agent, plugin_file: &Path) -> Option<String> {
    let HandlerShape::Plugin { dependency } = agent.agent().handler else { return None };
    let config_dir = plugin_file.parent()?.parent()?;
    let lock = config_dir.join("package-lock.json");
    if config_dir.join("node_modules").is_dir() && lock_lists(&lock, dependency) {
        return None;
    }
    Some(format!(
        "`{}` has no node_modules and package-lock.json listing {dependency}: {} runs npm install there at start-up \
         and waits for it (a minute or more offline)",
        config_dir.display(),
        agent.display_name()
    ))
}

/// The lock file install writes where the agent's config directory has none, marking `dependency` present.
fn lock_text(dependency: &str) -> String {
    let lock = json!({
        "name": "hook-engine-plugin",
        "lockfileVersion": 3,
        "requires": true,
        "packages": {"": {"dependencies": {dependency: "*"}}},
    });
    serde_json::to_string_pretty(&lock).unwrap_or_default() + "\n"
}

/// Whether the lock file `lock` lists `dependency` among the root package's dependencies, as the agent checks it.
fn lock_lists(lock: &Path, dependency: &str) -> bool {
    let Ok(text) = fs::read_to_string(lock) else { return false };
    let Ok(value) = serde_json::from_str::<Value>(&text) else { return false };
    let root = &value["packages"][""];
    ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]
        .iter()
        .any(|kind| root[*kind].get(dependency).is_some())
}

/// What install writes into a config directory: files with their text, and directories.
type Marker = (Vec<(PathBuf, String)>, Vec<PathBuf>);

/// The files and directories that keep the agent from installing `dependency` into `config_dir` at start-up.
fn dependency_marker(agent: Agent, config_dir: &Path, dependency: &str) -> Result<Marker, InstallError> {
    let modules = config_dir.join("node_modules");
    let lock = config_dir.join("package-lock.json");
    let manifest = config_dir.join("package.json");
    if modules.is_dir() && lock_lists(&lock, dependency) {
        return Ok((Vec::new(), Vec::new()));
    }
    let own = [&lock, &manifest, &modules].into_iter().find(|p| fs::symlink_metadata(p).is_ok());
    if let Some(own) = own {
        return Err(InstallError::Unsupported {
            path: own.clone(),
            message: format!(
                "{name} installs {dependency} into `{dir}` with npm at start-up unless its package-lock.json lists it \
                 (which can take a minute, and fails offline); install leaves your package files alone: run `npm \
                 install {dependency}` in `{dir}`, then install again",
                name = agent.display_name(),
                dir = config_dir.display()
            ),
        });
    }
    Ok((vec![(lock, lock_text(dependency))], vec![modules]))
}

/// Plans an install of the plugin (see the module docs). Nothing is written.
pub(crate) fn plan(request: &InstallRequest<'_>) -> Result<InstallPlan, InstallError> {
    let HandlerShape::Plugin { dependency } = request.agent.agent().handler else {
        return Err(InstallError::Unsupported {
            path: PathBuf::new(),
            message: format!("{} takes no plugin", request.agent.display_name()),
        });
    };
    let paths = Paths::of(request)?;
    let file = paths.agent_file.clone();
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    paths.confines.0.resolve_dir(&dir)?;
    let text = plugin_source(request.agent, &request.command, &request.limits);
    let mut bridges = Vec::new();
    let mut dirs = Vec::new();
    let mut added = Vec::new();
    match fs::read(&file) {
        Ok(bytes) if digest(&bytes) == digest(text.as_bytes()) => {}
        Ok(bytes) if plugin_settings(&String::from_utf8_lossy(&bytes)).is_some() => {
            return Err(InstallError::Unsupported {
                path: file,
                message: "it holds the hook engine's plugin as another install wrote it; run `hook uninstall` for \
                          that install first"
                    .into(),
            });
        }
        Ok(_) => {
            return Err(InstallError::Unsupported {
                path: file,
                message: "install writes its plugin here, and something else is there; move it away first".into(),
            });
        }
        Err(_) if fs::symlink_metadata(&file).is_ok() => {
            return Err(InstallError::Unsupported {
                path: file,
                message: "install writes its plugin here, and something that is not a file is there".into(),
            });
        }
        Err(_) => {
            let config_dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
            let (files, made) = dependency_marker(request.agent, &config_dir, dependency)?;
            bridges.push((file.clone(), text));
            bridges.extend(files);
            dirs.extend(made);
            added = request.agent.install_events().into_iter().map(str::to_owned).collect();
        }
    }
    let plan = ExecutablesPlan { dir, bridges, moves: Vec::new(), dirs, mode: 0o644 };
    // Nothing moves into the native file; its plan is what the apply checks it against.
    let native = plan_native(request, &paths, Vec::new())?;
    let native = NativePlan { moved: Vec::new(), original: native.original, new: native.new };
    Ok(InstallPlan::of_executables(
        request,
        paths,
        added,
        Vec::new(),
        Vec::new(),
        native,
        (Vec::new(), Vec::new()),
        plan,
    ))
}
