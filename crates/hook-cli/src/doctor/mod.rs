//! `hook doctor [--agent A] [--headless] [--json]`: proof on this machine that each guard is live, and why not where
//! it is not.
//!
//! For every agent the bridge speaks to that is installed here (`installs.json`) or present (one of its files
//! exists), one verdict per guard path — each gate event's bridge entry in each scope — from:
//! - the agent's own switches and folder trust, read from its files as its table entry describes them
//!   ([`hook_agents::doctor::agent_findings`]);
//! - the bridge entries: on every event install writes, with the fail-closed fallback, trusted by the agent where it
//!   keeps its own hook trust ([`hook_agents::doctor::bridge_entries`]);
//! - `hook` on `PATH` being this build, and a live probe of the installed shell gate ([`probe`]);
//! - the workspace's gates the bridge would run on the agent's shell and write tools ([`gates`]).
//!
//! Beside them the agent's installed version and the one its table entry was verified against. Exit 1 when any guard
//! is not live, 0 when all are.

mod gates;
mod probe;
mod render;

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use hook_agents::bridge::agent_runs_it;
use hook_agents::doctor::{
    BridgeEntry, Finding, Place, agent_findings, bridge_entries, changed_since_install, installed_scopes,
};
use hook_agents::install::{Agent, AgentInstall, InstallScope, Installs, agent_state_file_here, installs_path};
use hook_config::Config;
use serde::Serialize;

use crate::bridge::{bridged_agent, current_exe};
use crate::context::Context;
use crate::engine::{Engine, EngineOptions};
use crate::exit;
use crate::render::{JSON_VERSION, emit, emit_json};

pub use probe::{PROBE_SIGNATURE, PROBE_VAR, Probe};

/// `hook doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Only this agent [default: every agent installed here or whose files exist].
    #[arg(long, value_parser = bridged_agent(), value_name = "AGENT")]
    pub agent: Option<Agent>,
    /// Judge the agents as started headless (`claude -p`, `droid exec`), which ask for no folder trust.
    #[arg(long)]
    pub headless: bool,
}

/// The `--json` form.
#[derive(Debug, Serialize)]
pub struct Report {
    version: u32,
    /// Whether every guard of every agent shown is live.
    pub live: bool,
    /// Whether the installed handlers were probed (not at the end of `hook install`).
    pub probed: bool,
    /// The running `hook` and the one `PATH` finds.
    pub hook: HookOnPath,
    /// One entry per agent.
    pub agents: Vec<AgentReport>,
}

/// `hook` as the agents' bridge commands find it.
#[derive(Debug, Serialize)]
pub struct HookOnPath {
    /// This binary.
    pub running: PathBuf,
    /// What `PATH` finds as `hook`, if anything.
    pub on_path: Option<PathBuf>,
}

/// One agent's verdicts.
#[derive(Debug, Serialize)]
pub struct AgentReport {
    /// Its id.
    pub agent: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Whether every guard path is live.
    pub live: bool,
    /// The version its table entry was verified against, and the one installed here.
    pub version: Version,
    /// The scopes whose install is recorded.
    pub installed: Vec<InstallScope>,
    /// One verdict per guard path: each gate event's bridge entry in each scope.
    pub guards: Vec<Guard>,
    /// The live probes, one per scope with a shell gate entry.
    pub probes: Vec<ScopedProbe>,
    /// The workspace's gates on its shell and write tools.
    pub gates: gates::Gates,
    /// Everything found, blocking or not, with its fix.
    pub findings: Vec<Finding>,
}

/// The versions of an agent.
#[derive(Debug, Serialize)]
pub struct Version {
    /// What the table was verified against.
    pub verified: Option<&'static str>,
    /// What `<binary> --version` says here.
    pub installed: Option<String>,
    /// Why there is no installed version, or that the two differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One guard path's verdict.
#[derive(Debug, Serialize)]
pub struct Guard {
    /// The scope of the file.
    pub scope: InstallScope,
    /// The agent's file.
    pub file: PathBuf,
    /// The gate event, in the agent's spelling.
    pub event: &'static str,
    /// Whether it is live.
    pub live: bool,
    /// The checks that keep it from being live.
    pub why_not: Vec<&'static str>,
}

/// A probe of one scope's installed shell gate.
#[derive(Debug, Serialize)]
pub struct ScopedProbe {
    /// The scope.
    pub scope: InstallScope,
    /// What it saw.
    #[serde(flatten)]
    pub probe: Probe,
}

/// Runs `hook doctor`.
pub fn run(ctx: &Context, args: &DoctorArgs) -> Result<u8> {
    let report = diagnose(ctx, args.agent, !args.headless, true)?;
    if ctx.json {
        emit_json(&report)?;
    } else {
        emit(&render::text(&report, &ctx.layout.workspace, &ctx.painter))?;
    }
    Ok(if report.live { exit::SUCCESS } else { exit::ERROR })
}

/// The doctor's verdict on `agent` alone as text, for the end of `hook install`: every
/// check but the live probe, which runs the workspace's hooks and is left to `hook doctor` itself (a hook just moved
/// into the native file should not run as a side effect of installing it).
pub fn verdict_text(ctx: &Context, agent: Agent) -> Result<String> {
    let report = diagnose(ctx, Some(agent), true, false)?;
    Ok(render::text(&report, &ctx.layout.workspace, &ctx.painter))
}

/// The whole report.
fn diagnose(ctx: &Context, only: Option<Agent>, interactive: bool, probe: bool) -> Result<Report> {
    let running = current_exe()?;
    let on_path = find_on_path("hook");
    let installs = installs_path(&ctx.layout).map(|p| Installs::read(&p)).transpose()?.unwrap_or_default();
    let config = ctx.load_to_show()?;
    let env = |name: &str| std::env::var_os(name);
    let home = ctx.layout.home.clone();
    let place =
        Place { workspace: &ctx.layout.workspace, home: home.as_deref(), env: &env, interactive, system_root: None };
    let hook = HookOnPath { running, on_path };
    let mut agents = Vec::new();
    for agent in Agent::bridged() {
        let scopes = installed_scopes(&installs, agent, &ctx.layout.workspace);
        if only.is_some_and(|a| a != agent) || (only.is_none() && scopes.is_empty() && !present(agent, &place)) {
            continue;
        }
        let mut report = examine(ctx, agent, &scopes, &place, &hook, &config, probe)?;
        // A protected file changed behind the engine's back (docs/self-protection.md): said, with the entries' diff.
        report.findings.extend(changed_since_install(&installs, agent, &ctx.layout.workspace));
        agents.push(report);
    }
    let live = agents.iter().all(|a| a.live);
    Ok(Report { version: JSON_VERSION, live, probed: probe, hook, agents })
}

/// Whether one of the agent's files exists in the workspace or under the home directory.
fn present(agent: Agent, place: &Place<'_>) -> bool {
    let files = agent.agent().files;
    let in_ws = files.read.iter().map(|f| place.workspace.join(f.trim_end_matches("/*.json")));
    let user = files.read_user.unwrap_or(files.read);
    let in_home = place.home.into_iter().flat_map(|h| user.iter().map(move |f| h.join(f.trim_end_matches("/*.json"))));
    in_ws.chain(in_home).any(|p| p.exists())
}

/// One agent's report.
fn examine(
    ctx: &Context,
    agent: Agent,
    scopes: &[InstallScope],
    place: &Place<'_>,
    hook: &HookOnPath,
    config: &Config,
    probe: bool,
) -> Result<AgentReport> {
    let mut findings = agent_findings(agent.agent(), place, scopes);
    let entries = entries(agent, place, &mut findings);
    let blocked_agent: Vec<&'static str> = findings.iter().filter(|f| f.blocks).map(|f| f.check).collect();
    findings.extend(entry_findings(agent, &entries));
    findings.extend(path_findings(&entries, hook));
    if probe {
        findings.extend(plugin_findings(agent, &entries, place.workspace));
    }
    let probes = if probe { probes(agent, &entries, place.workspace) } else { Vec::new() };
    for probe in probes.iter().filter(|p| !p.probe.live) {
        findings.push(Finding::blocker(
            "probe",
            None,
            format!("the installed {} handler ({} scope): {}", probe.probe.event, probe.scope, probe.probe.outcome),
            format!(
                "run `hook install --agent {agent}` again, with `hook` on the PATH {} starts with",
                agent.display_name()
            ),
        ));
    }
    // The pipeline the bridge for this agent builds: without the hooks the agent runs itself.
    let engine = Engine::new_keeping(ctx, EngineOptions::default(), |hook| !agent_runs_it(agent, hook))?;
    let (gates, gate_findings) = gates::gates(agent, config, &engine.pipeline);
    findings.extend(gate_findings);
    let guards = guards(&entries, &blocked_agent, &probes);
    let live = !entries.is_empty() && findings.iter().all(|f| !f.blocks);
    Ok(AgentReport {
        agent: agent.as_str(),
        name: agent.display_name(),
        live,
        version: version(agent),
        installed: scopes.to_vec(),
        guards,
        probes,
        gates,
        findings,
    })
}

/// The bridge entries of every scope whose file holds one, or whose install is recorded.
fn entries(agent: Agent, place: &Place<'_>, findings: &mut Vec<Finding>) -> Vec<BridgeEntry> {
    let state = agent_state_file_here(agent, place.home);
    let mut out = Vec::new();
    for scope in [InstallScope::Local, InstallScope::Project, InstallScope::User] {
        let Some(file) = agent.agent().settings_file(scope, place.workspace, place.home) else { continue };
        match bridge_entries(agent, scope, &file, state.as_deref()) {
            Ok(found) if found.iter().any(|e| e.command.is_some()) => out.extend(found),
            Ok(_) => {}
            Err(message) => findings.push(Finding::warning("unreadable_settings", Some(file), message, String::new())),
        }
    }
    if out.is_empty() {
        findings.push(Finding::blocker(
            "bridge_missing",
            None,
            format!("no file of {} holds the bridge: no guard of this engine reaches it", agent.display_name()),
            format!("hook install --agent {agent}"),
        ));
    }
    out
}

/// Missing, unguarded and agent-untrusted bridge entries.
fn entry_findings(agent: Agent, entries: &[BridgeEntry]) -> Vec<Finding> {
    let reinstall = || format!("hook install --agent {agent} --scope <its scope>");
    let mut out = Vec::new();
    for entry in entries {
        let at = |what: &str| format!("{} ({} scope) {what}", entry.event, entry.scope);
        if entry.command.is_none() {
            let message = at("has no bridge entry: the agent calls no guard there");
            out.push(Finding::blocker("bridge_missing", Some(entry.file.clone()), message, reinstall()));
        } else if !entry.guarded {
            let message = at("runs the bridge with no fail-closed fallback: if it cannot answer, the call goes ahead");
            out.push(Finding::blocker("no_fallback", Some(entry.file.clone()), message, reinstall()));
        }
        if entry.untrusted_by_agent {
            let message = at("is not trusted at its current hash in the agent's own store: the agent skips it");
            out.push(Finding::blocker("hook_trust", Some(entry.file.clone()), message, reinstall()));
        }
    }
    out
}

/// `hook` on `PATH`: missing where a bridge entry runs it by name, or another build.
fn path_findings(entries: &[BridgeEntry], hook: &HookOnPath) -> Vec<Finding> {
    let by_name = entries.iter().filter_map(|e| e.command.as_deref()).any(runs_hook_by_name);
    match &hook.on_path {
        None if by_name => vec![Finding::blocker(
            "hook_on_path",
            None,
            "`hook` is not on PATH, and a bridge entry runs it by name".into(),
            format!("put `{}` on the PATH the agent starts with", hook.running.display()),
        )],
        Some(found) if by_name && *found != hook.running => vec![Finding::warning(
            "hook_on_path",
            Some(found.clone()),
            format!("`hook` on PATH is not this build ({})", hook.running.display()),
            "install this build on PATH, or check that the other one is current".into(),
        )],
        _ => Vec::new(),
    }
}

/// Whether a bridge entry's line runs `hook` by its bare name (found on `PATH`).
fn runs_hook_by_name(line: &str) -> bool {
    line.split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | '{' | '\''))
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0] == "hook" && w[1] == "bridge")
}

/// The probe of each scope's shell gate entry.
fn probes(agent: Agent, entries: &[BridgeEntry], workspace: &Path) -> Vec<ScopedProbe> {
    let Some(event) = probe::shell_event(agent) else { return Vec::new() };
    let path = std::env::var("PATH").unwrap_or_default();
    entries
        .iter()
        .filter(|e| e.event == event)
        .filter_map(|e| Some((e.scope, e.command.as_deref()?)))
        .map(|(scope, command)| ScopedProbe { scope, probe: probe::probe(agent, event, command, workspace, &path) })
        .collect()
}

/// For an agent of plugins, each plugin file that holds the bridge: loaded as the agent loads it (a plugin it cannot
/// load it skips in silence), and its config directory checked for what keeps the agent from fetching its plugin
/// package at start-up.
fn plugin_findings(agent: Agent, entries: &[BridgeEntry], workspace: &Path) -> Vec<Finding> {
    let hook_types::HandlerShape::Plugin { dependency } = agent.agent().handler else { return Vec::new() };
    let path = std::env::var("PATH").unwrap_or_default();
    let mut files: Vec<&PathBuf> = entries.iter().filter(|e| e.command.is_some()).map(|e| &e.file).collect();
    files.dedup();
    let mut out = Vec::new();
    for file in files {
        if let Err(why) = probe::plugin_loads(file, workspace, &path) {
            out.push(Finding::blocker(
                "plugin_load",
                Some(file.clone()),
                format!(
                    "the plugin does not load ({why}): {} would skip it, and every gate in it",
                    agent.display_name()
                ),
                format!("hook uninstall --agent {agent}; hook install --agent {agent}"),
            ));
        }
        if let Some(missing) = hook_agents::install::dependency_missing(agent, file) {
            let dir = file.parent().and_then(Path::parent).unwrap_or(file);
            out.push(Finding::warning(
                "plugin_dependency",
                Some(file.clone()),
                missing,
                format!("npm install {dependency} in `{}`", dir.display()),
            ));
        }
    }
    out
}

/// One verdict per gate entry: live unless the agent never calls it, or a check of its own failed.
fn guards(entries: &[BridgeEntry], agent_wide: &[&'static str], probes: &[ScopedProbe]) -> Vec<Guard> {
    entries
        .iter()
        .filter(|e| e.gate)
        .map(|e| {
            let mut why: Vec<&'static str> = agent_wide.to_vec();
            if e.command.is_none() {
                why.push("bridge_missing");
            } else if !e.guarded {
                why.push("no_fallback");
            }
            if e.untrusted_by_agent {
                why.push("hook_trust");
            }
            if probes.iter().any(|p| p.scope == e.scope && !p.probe.live) {
                why.push("probe");
            }
            why.dedup();
            Guard { scope: e.scope, file: e.file.clone(), event: e.event, live: why.is_empty(), why_not: why }
        })
        .collect()
}

/// The installed version beside the verified one.
fn version(agent: Agent) -> Version {
    let table = agent.agent();
    let verified = table.version;
    let Some(binary) = table.binary else {
        return Version { verified, installed: None, note: Some("no executable of its own to ask".into()) };
    };
    match probe::installed_version(binary) {
        Ok(found) => {
            let note = verified.filter(|v| *v != found).map(|v| {
                format!("installed {found}, verified against {v}: the agent's switches or wire may have changed")
            });
            Version { verified, installed: Some(found), note }
        }
        Err(why) => Version { verified, installed: None, note: Some(why) },
    }
}

/// The first `name` on `PATH`, canonical.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let found = std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| is_executable(p))?;
    Some(hook_config::canonicalize(&found).unwrap_or(found))
}

fn is_executable(path: &Path) -> bool {
    crate::platform::is_executable(path)
}
