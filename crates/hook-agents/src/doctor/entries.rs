//! The bridge entries of one agent file: on which of the agent's events the bridge sits, with what command line,
//! and whether a fallback answers for it when the bridge cannot.

use std::path::{Path, PathBuf};

use hook_config::BridgeProgram;
use hook_types::{HandlerShape, InstallScope};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::install::{Agent, Installs, guards_event, handlers, is_bridge, trust_key, untrusted_bridges};

/// The bridge on one of the agent's events in one of its files, or its absence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BridgeEntry {
    /// The scope of the file.
    pub scope: InstallScope,
    /// The agent's file (for an agent of one executable per event, its directory).
    pub file: PathBuf,
    /// The event, in the agent's spelling.
    pub event: &'static str,
    /// Whether the event is a gate whose answer the agent reads (the fail-closed wrapper belongs there).
    pub gate: bool,
    /// The shell line the agent runs (for an executable, the script's path); `None` when the bridge is not there.
    pub command: Option<String>,
    /// Whether something answers for the bridge when it cannot: the wrapper around it, or the agent's own switch
    /// (Cursor's `failClosed`). Always true off the gates, where no answer is read.
    pub guarded: bool,
    /// The agent's own store of trusted hooks does not hold this handler at its current hash (Codex), so the agent
    /// skips it.
    pub untrusted_by_agent: bool,
}

/// The scopes whose install of `agent` is recorded for `workspace` (the user scope for any workspace).
///
/// ```
/// use hook_agents::doctor::installed_scopes;
/// use hook_agents::install::Installs;
/// use hook_types::Protocol;
/// let none = Installs { version: 1, installs: vec![] };
/// assert!(installed_scopes(&none, Protocol::Claude, std::path::Path::new("/ws")).is_empty());
/// ```
pub fn installed_scopes(installs: &Installs, agent: Agent, workspace: &Path) -> Vec<InstallScope> {
    let canonical = hook_config::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let mut scopes: Vec<InstallScope> = installs
        .installs
        .iter()
        .filter(|r| r.agent == agent)
        .filter(|r| r.scope == InstallScope::User || r.workspace.as_deref() == Some(canonical.as_path()))
        .map(|r| r.scope)
        .collect();
    scopes.sort();
    scopes.dedup();
    scopes
}

/// The bridge on every event `hook install` writes for `agent`, in `file` of `scope`; `state_file` is the agent's
/// own store of trusted hooks, where it keeps one. `Err` names a file that cannot be read.
pub fn bridge_entries(
    agent: Agent,
    scope: InstallScope,
    file: &Path,
    state_file: Option<&Path>,
) -> Result<Vec<BridgeEntry>, String> {
    let program = BridgeProgram::default();
    let table = agent.agent();
    let entry = |event: &'static str, command: Option<String>, guarded: bool, untrusted: bool| BridgeEntry {
        scope,
        file: file.to_path_buf(),
        event,
        gate: guards_event(agent, event),
        guarded: guarded || !guards_event(agent, event),
        command,
        untrusted_by_agent: untrusted,
    };
    if table.handler == HandlerShape::EventExecutables {
        return Ok(table.install_events().map(|event| executable_entry(agent, file, event, &program, entry)).collect());
    }
    if let HandlerShape::Plugin { .. } = table.handler {
        let command = plugin_command(agent, file)?;
        // The plugin fails closed itself: a bridge that cannot answer makes a gate throw.
        return Ok(table.install_events().map(|event| entry(event, command.clone(), true, false)).collect());
    }
    let hooks = read_hooks(agent, file)?;
    let untrusted = state_file.map(|s| untrusted_bridges(agent, s, file, &hooks, &program)).unwrap_or_default();
    let found = handlers(agent, &hooks);
    let mut out = Vec::new();
    for event in table.install_events() {
        let bridge = found.iter().find(|h| h.event == event && is_bridge(&h.value, &program));
        let Some(handler) = bridge else {
            out.push(entry(event, None, false, false));
            continue;
        };
        let line = ["bash", "command"].iter().find_map(|k| handler.value.get(*k).and_then(Value::as_str));
        let switch = table.answers.fail_closed_key.is_some_and(|k| handler.value.get(k) == Some(&Value::Bool(true)));
        let guarded = switch || line.is_some_and(|l| !hook_config::lone_command(l));
        let untrusted = untrusted.contains(&trust_key(file, handler));
        out.push(entry(event, line.map(str::to_owned), guarded, untrusted));
    }
    Ok(out)
}

/// The bridge command of the plugin `file`, `None` when there is none; `Err` for a plugin that is not the one this
/// build ships (the agent may skip it, or run it with no guard).
fn plugin_command(agent: Agent, file: &Path) -> Result<Option<String>, String> {
    let Ok(text) = std::fs::read_to_string(file) else { return Ok(None) };
    let settings = crate::install::plugin_settings(&text).filter(|_| crate::install::is_shipped_plugin(&text));
    let Some(settings) = settings else {
        return Err(format!(
            "`{}` is not the plugin this hook ships (edited since install, or written by another version): {} may \
             skip it or run it with no guard; run `hook uninstall --agent {agent}` and install again",
            file.display(),
            agent.agent().name
        ));
    };
    Ok(settings["command"].as_str().map(str::to_owned))
}

/// The event's script in the agent's directory `dir`, if it runs the bridge.
fn executable_entry(
    agent: Agent,
    dir: &Path,
    event: &'static str,
    program: &BridgeProgram,
    entry: impl Fn(&'static str, Option<String>, bool, bool) -> BridgeEntry,
) -> BridgeEntry {
    let listed = hook_config::event_executables(agent, dir).ok().flatten().map(|(found, _)| found).unwrap_or_default();
    let script = listed.into_iter().find(|e| e.event == event).filter(|e| {
        let text = std::fs::read_to_string(&e.path).unwrap_or_default();
        hook_config::event_executable_bridge_line(&text).is_some_and(|line| program.invokes_bridge_line(&line))
    });
    match script {
        Some(script) => {
            let text = std::fs::read_to_string(&script.path).unwrap_or_default();
            let guarded =
                hook_config::event_executable_bridge_line(&text).is_some_and(|l| !hook_config::lone_command(&l));
            entry(event, Some(script.path.display().to_string()), guarded, false)
        }
        None => entry(event, None, false, false),
    }
}

/// The `hooks` object of the agent's file (empty when the file does not exist).
fn read_hooks(agent: Agent, file: &Path) -> Result<Map<String, Value>, String> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(err) => return Err(format!("cannot read `{}`: {err}", file.display())),
    };
    let text = if agent.agent().json_comments { hook_config::strip_json_comments(&text) } else { text };
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("`{}` is not valid JSON ({e})", file.display()))?;
    Ok(value.get("hooks").and_then(Value::as_object).cloned().unwrap_or_default())
}
