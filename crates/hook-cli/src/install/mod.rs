//! `hook install --agent AGENT [--scope local|project|user] [--yes]` and `hook uninstall --agent AGENT [--scope …]`:
//! composition and rendering over `hook_config::install`.
//!
//! Install shows what it will do — the events that get the bridge, each hook that moves with what it runs and the
//! fingerprint that will be trusted, the handlers that stay with the agent — and asks before moving hooks, as
//! `hook trust` does: `--yes`, or a `y` on a terminal; without either (a stdin that is not a terminal) it refuses,
//! exits 1 and changes nothing. Writing only the bridge entry needs no confirmation: it runs nothing that is not
//! already trusted.
//!
//! The user scope writes under the home directory, so it takes only a home `$HOME` names, and says which: with
//! `$HOME` unset, the platform's fallback (the password database) could be another account's home than the one the
//! agent reads.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use clap::{Args, ValueEnum};
use hook_agents::install::{
    InstallPlan, InstallRecord, InstallRequest, InstallScope, UninstallReport, bridge_command, installs_path,
    plan_install, uninstall as undo,
};
use hook_config::{LoadedHook, TrustStatus, trust_value};
use serde::Serialize;

use crate::bridge::{bridged_agent, current_exe};
use crate::cli::GlobalArgs;
use crate::context::{Context, display_path};
use crate::exit;
use crate::render::{JSON_VERSION, Style, clean_line, emit, emit_json, wrap};
use crate::trust::{Confirmation, Shown, confirm};
use hook_agents::install::AgentInstall;
use hook_types::Protocol;

/// `hook install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The agent whose configuration gets the bridge.
    #[arg(long, value_parser = bridged_agent(), value_name = "AGENT")]
    pub agent: Protocol,
    /// Which of its files: local (.claude/settings.local.json), project (the committed one), or user (~/…).
    #[arg(long, value_enum, value_name = "SCOPE", default_value_t = ScopeArg::Project)]
    pub scope: ScopeArg,
    /// Do not ask: move and trust what is shown (needed when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `hook uninstall`.
#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// The agent whose configuration had the bridge.
    #[arg(long, value_parser = bridged_agent(), value_name = "AGENT")]
    pub agent: Protocol,
    /// The scope it was installed in.
    #[arg(long, value_enum, value_name = "SCOPE", default_value_t = ScopeArg::Project)]
    pub scope: ScopeArg,
}

/// `--scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    /// The workspace's git-ignored files.
    Local,
    /// The workspace's committed files.
    Project,
    /// The user's files, for every workspace.
    User,
}

impl ScopeArg {
    fn scope(self) -> InstallScope {
        match self {
            ScopeArg::Local => InstallScope::Local,
            ScopeArg::Project => InstallScope::Project,
            ScopeArg::User => InstallScope::User,
        }
    }
}

/// The `--json` form of `hook install`.
#[derive(Debug, Serialize)]
struct InstallJson<'a> {
    version: u32,
    agent: &'static str,
    scope: &'static str,
    agent_file: &'a Path,
    /// Whether anything was written (a second run writes nothing).
    changed: bool,
    added_events: &'a [String],
    native_file: &'a Path,
    moved: Vec<MovedJson<'a>>,
    kept: Vec<KeptJson<'a>>,
    trusted: Vec<&'a str>,
    installs: Option<PathBuf>,
    /// The home directory the user scope writes under.
    #[serde(skip_serializing_if = "Option::is_none")]
    home: Option<&'a Path>,
}

#[derive(Debug, Serialize)]
struct MovedJson<'a> {
    id: &'a str,
    hash: &'a str,
    event: &'a str,
    fingerprint: &'a str,
    needs_trust: bool,
}

#[derive(Debug, Serialize)]
struct KeptJson<'a> {
    event: &'a str,
    command: Option<&'a str>,
    reason: &'a str,
}

/// A committed file's bridge command is `hook bridge --protocol <agent>`, `hook` found on `PATH`: never this
/// machine's path to the binary nor its config home, since every teammate's agent runs it. Says so when `hook` on
/// `PATH` is not the running binary, and when a config home or managed file given to this install is not the one
/// the bridge finds by itself.
fn warn_portable(exe: &Path, workspace: &Path, config_home: Option<&Path>, managed: Option<&Path>) {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path).map(|dir| dir.join("hook")).find(|candidate| candidate.is_file())
    });
    // A launcher that runs this binary (the npm package's shim) names itself in HOOK_LAUNCHER.
    let launcher = std::env::var_os("HOOK_LAUNCHER").map(|p| std::fs::canonicalize(&p).unwrap_or_else(|_| p.into()));
    match on_path.as_deref().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())) {
        Some(found) if found == exe || launcher.as_ref() == Some(&found) => {}
        Some(found) => eprintln!(
            "hook: warning: the committed file runs `hook` from PATH, which here is `{}`, not this `{}`",
            clean_line(&found.display().to_string()),
            clean_line(&exe.display().to_string())
        ),
        None => eprintln!(
            "hook: warning: the committed file runs `hook` from PATH, and there is none on PATH here: put `{}` (or \
             `cargo install --path crates/hook-cli`) on PATH",
            clean_line(&exe.display().to_string())
        ),
    }
    // The config home a bridge run without --config-home finds: the default layout's.
    let default = hook_config::Layout::new(workspace);
    if config_home.is_some_and(|given| Some(given) != default.config_home_path()) || managed.is_some() {
        eprintln!(
            "hook: warning: --config-home and --managed-file are not written into a committed file (they are this \
             machine's paths); each user's bridge finds its own"
        );
    }
}

/// Runs `hook install`.
pub fn run(ctx: &Context, global: &GlobalArgs, args: &InstallArgs) -> Result<u8> {
    let agent = args.agent;
    let scope = args.scope.scope();
    let exe = current_exe().context("cannot find the path of the running `hook` to write as the bridge command")?;
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let home = user_home(scope)?;
    let layout = &ctx.layout.clone().with_home(home.clone().or_else(|| ctx.layout.home.clone()));
    // The bridge must find the same config home (trust, user hooks) and policy file as this install; a default one
    // it finds by itself.
    let config_home = global.config_home.as_deref().map(absolute);
    let managed = global.managed_file.as_deref().map(absolute);
    let portable = scope == InstallScope::Project;
    let command = if portable {
        format!("hook bridge --protocol {agent}")
    } else {
        bridge_command(&exe, agent, config_home.as_deref(), managed.as_deref())
    };
    let mut request = InstallRequest::new(agent, scope, layout, command);
    request.limits = crate::engine::limits();
    request.agent_state = hook_agents::install::agent_state_file_here(agent, layout.home.as_deref());
    let plan = plan_install(&request)?;
    if portable {
        warn_portable(&exe, &layout.workspace, config_home.as_deref(), managed.as_deref());
    }

    if !ctx.json {
        if let Some(home) = &home {
            emit(&format!("user scope: the home directory is {} ($HOME)\n", home.display()))?;
        }
        emit(&describe(&plan, ctx))?;
    }
    if plan.is_empty() {
        if ctx.json {
            emit_json(&json_of(&plan, None, None, home.as_deref()))?;
        } else {
            emit("nothing to do: the bridge is on every event and no hook is left to move\n")?;
        }
        return Ok(exit::SUCCESS);
    }
    if !plan.moved.is_empty() || plan.agent_trust.is_some() {
        let question = match (&plan.agent_trust, plan.moved.len()) {
            (Some(change), 0) => format!(
                "Record the bridge as trusted in {}'s own store ({})?",
                agent.display_name(),
                display_path(&change.file)
            ),
            (_, moved) => {
                format!("Move {moved} hook(s) into {} and trust what is shown?", display_path(&plan.native_file))
            }
        };
        confirm(
            args.yes,
            Confirmation {
                question,
                no_terminal: "not installing without confirmation: stdin is not a terminal; review the hooks shown \
                              above, then re-run with --yes to move and trust exactly those",
                declined: "not confirmed: nothing was changed",
            },
        )?;
    }
    let record = plan.apply()?;
    if ctx.json {
        emit_json(&json_of(&plan, Some(&record), installs_path(layout), home.as_deref()))?;
    } else {
        let mut text = format!(
            "{} the bridge for {} in {}\n",
            ctx.painter.paint(Style::Green, "installed"),
            agent.display_name(),
            display_path(&plan.agent_file)
        );
        for trusted in &record.trusted {
            text.push_str(&format!("{} {}\n", ctx.painter.paint(Style::Green, "trusted"), trusted.id));
        }
        if let Some(change) = &record.agent_trust {
            text.push_str(&format!(
                "{} {} bridge entr{} in {}'s own store ({})\n",
                ctx.painter.paint(Style::Green, "trusted"),
                change.entries.len(),
                if change.entries.len() == 1 { "y" } else { "ies" },
                agent.display_name(),
                display_path(&change.file)
            ));
        }
        if let Some(path) = installs_path(layout) {
            text.push_str(&format!("recorded in {}; `hook uninstall --agent {agent}` undoes it\n", path.display()));
        }
        if let Some(note) = agent_trust_note(agent, scope) {
            text.extend(
                wrap(&format!("{} {note}", ctx.painter.paint(Style::Yellow, "note")), "", "     ")
                    .into_iter()
                    .map(|l| l + "\n"),
            );
        }
        emit(&text)?;
        emit_verdict(ctx, agent)?;
    }
    Ok(exit::SUCCESS)
}

/// The doctor's verdict for `agent` after an install, as `hook doctor --agent` shows it; install itself succeeded
/// whatever it says.
fn emit_verdict(ctx: &Context, agent: Protocol) -> Result<()> {
    let verdict = crate::doctor::verdict_text(ctx, agent)?;
    emit(&format!("\n{}\n", ctx.painter.paint(Style::Bold, "hook doctor:")))?;
    emit(&verdict)
}

/// What the agent itself requires before it runs the bridge from this scope's file, where install cannot do it:
/// without it the agent skips the bridge in silence, so install says so.
fn agent_trust_note(agent: Protocol, scope: InstallScope) -> Option<&'static str> {
    // The agent table carries each agent's note.
    (scope != InstallScope::User).then_some(agent.agent().trust_note).flatten()
}

/// For the user scope, the home directory `$HOME` names; `None` for the other scopes.
fn user_home(scope: InstallScope) -> Result<Option<PathBuf>> {
    if scope != InstallScope::User {
        return Ok(None);
    }
    match std::env::var_os(hook_config::platform::HOME_VAR).filter(|home| !home.is_empty()).map(PathBuf::from) {
        Some(home) if home.is_absolute() => Ok(Some(home)),
        Some(home) => {
            bail!("$HOME (`{}`) is not an absolute path; --scope user writes under the home directory", home.display())
        }
        None => bail!(
            "$HOME is not set; --scope user writes under the home directory and takes only the one $HOME names \
             (set it to the home of the account the agent runs as)"
        ),
    }
}

/// What the plan will do, for a reviewer.
fn describe(plan: &InstallPlan, ctx: &Context) -> String {
    let agent = plan.agent.display_name();
    let mut text = String::new();
    if !plan.added_events.is_empty() {
        let events = plan.added_events.join(", ");
        let line = format!(
            "bridge: {} gets `hook bridge --protocol {}` on {events}",
            display_path(&plan.agent_file),
            plan.agent
        );
        text.extend(wrap(&line, "", "  ").into_iter().map(|l| l + "\n"));
    }
    for (event, file) in &plan.bridged_elsewhere {
        let line = format!(
            "no bridge on {event} here: {} already has it, and {agent} runs the hooks of all its files",
            display_path(file)
        );
        text.extend(wrap(&line, "", "  ").into_iter().map(|l| l + "\n"));
    }
    for (event, file) in &plan.bridged_narrower {
        let line = format!(
            "hook: warning: {} also has the bridge on {event}: in that workspace {agent} would run the hooks twice \
             unless it runs identical handlers once; `hook uninstall` that scope if this one is to serve it",
            display_path(file)
        );
        text.extend(wrap(&line, "", "  ").into_iter().map(|l| l + "\n"));
    }
    if !plan.moved.is_empty() {
        text.push_str(&format!(
            "moving {} hook(s) out of {} into {} (they keep their protocol and hash; {agent} stops running them \
             itself and the bridge runs them):\n",
            plan.moved.len(),
            display_path(&plan.agent_file),
            display_path(&plan.native_file)
        ));
        for moved in &plan.moved {
            let hook = LoadedHook {
                decl: moved.decl.clone(),
                trust: if moved.needs_trust { TrustStatus::Untrusted } else { TrustStatus::Trusted },
                fingerprint: moved.fingerprint.clone(),
                allowed_by_policy: true,
                origin_trusted: moved.decl.origin.trusted_by_default(),
            };
            let shown = Shown::of(&hook, &[]);
            let status = if moved.needs_trust { "trusted on confirmation" } else { "needs no new trust" };
            let block = shown.render(&plan.workspace, &ctx.painter);
            // The first line is `hook trust`'s title; the status is install's own.
            let mut lines = block.lines();
            let title = format!("── {} ({}, {status})", clean_line(&moved.decl.id), clean_line(&moved.event));
            text.push_str(&ctx.painter.paint(Style::Bold, &title));
            text.push('\n');
            lines.next();
            for line in lines {
                text.push_str(line);
                text.push('\n');
            }
            if moved.already_there {
                text.push_str("  (already in the native file: only removed from the agent's)\n");
            }
        }
    }
    for (from, to) in plan.moved_files() {
        let line = format!(
            "moves {} to {} (renamed: its bytes and mode kept; {agent} reads no subdirectory)",
            display_path(&from),
            display_path(&to)
        );
        text.extend(wrap(&line, "", "  ").into_iter().map(|l| l + "\n"));
    }
    for kept in &plan.kept {
        let what = kept.command.as_deref().map(clean_line).unwrap_or_else(|| "a handler".into());
        let line = format!(
            "kept in {} ({}): {what}: {}",
            display_path(&plan.agent_file),
            kept.event,
            clean_line(&kept.reason)
        );
        text.extend(wrap(&line, "", "  ").into_iter().map(|l| l + "\n"));
    }
    if let Some(change) = &plan.agent_trust {
        let line = format!(
            "{agent}'s trust: {} records the current hash of {} bridge entr{} (its own store; uninstall puts back \
             what it held)",
            display_path(&change.file),
            change.entries.len(),
            if change.entries.len() == 1 { "y" } else { "ies" }
        );
        text.extend(wrap(&line, "", "  ").into_iter().map(|l| l + "\n"));
    }
    text
}

fn json_of<'a>(
    plan: &'a InstallPlan,
    record: Option<&'a InstallRecord>,
    installs: Option<PathBuf>,
    home: Option<&'a Path>,
) -> InstallJson<'a> {
    InstallJson {
        version: JSON_VERSION,
        agent: plan.agent.as_str(),
        scope: plan.scope.as_str(),
        agent_file: &plan.agent_file,
        changed: record.is_some(),
        added_events: &plan.added_events,
        native_file: &plan.native_file,
        moved: plan
            .moved
            .iter()
            .map(|m| MovedJson {
                id: &m.decl.id,
                hash: &m.decl.hash,
                event: &m.event,
                fingerprint: trust_value(&m.decl, m.fingerprint.as_ref()),
                needs_trust: m.needs_trust,
            })
            .collect(),
        kept: plan
            .kept
            .iter()
            .map(|k| KeptJson { event: &k.event, command: k.command.as_deref(), reason: &k.reason })
            .collect(),
        trusted: record.map(|r| r.trusted.iter().map(|t| t.id.as_str()).collect()).unwrap_or_default(),
        installs: record.and(installs),
        home,
    }
}

/// The `--json` form of `hook uninstall`.
#[derive(Debug, Serialize)]
struct UninstallJson<'a> {
    version: u32,
    agent: &'static str,
    scope: &'static str,
    records: usize,
    restored: &'a [PathBuf],
    edited: &'a [PathBuf],
    revoked: &'a [String],
    warnings: &'a [String],
}

/// Runs `hook uninstall`.
pub fn uninstall(ctx: &Context, args: &UninstallArgs) -> Result<u8> {
    let agent = args.agent;
    let scope = args.scope.scope();
    let home = user_home(scope)?;
    let layout = ctx.layout.clone().with_home(home.or_else(|| ctx.layout.home.clone()));
    let report: UninstallReport = undo(agent, scope, &layout)?;
    if ctx.json {
        emit_json(&UninstallJson {
            version: JSON_VERSION,
            agent: agent.as_str(),
            scope: scope.as_str(),
            records: report.records,
            restored: &report.restored,
            edited: &report.edited,
            revoked: &report.revoked,
            warnings: &report.warnings,
        })?;
        return Ok(exit::SUCCESS);
    }
    if report.records == 0 {
        emit(&format!("nothing to uninstall: no install of the {agent} bridge at {scope} scope is recorded\n"))?;
        return Ok(exit::SUCCESS);
    }
    let mut text = String::new();
    for path in &report.restored {
        text.push_str(&format!("{} {}\n", ctx.painter.paint(Style::Green, "restored"), display_path(path)));
    }
    for path in &report.edited {
        text.push_str(&format!(
            "{} {} (it changed since install: the bridge taken out, the moved hooks put back)\n",
            ctx.painter.paint(Style::Yellow, "edited"),
            display_path(path)
        ));
    }
    for id in &report.revoked {
        text.push_str(&format!("{} {id}\n", ctx.painter.paint(Style::Yellow, "no longer trusted")));
    }
    for warning in &report.warnings {
        text.push_str(&format!("hook: warning: {}\n", clean_line(warning)));
    }
    emit(&text)?;
    Ok(exit::SUCCESS)
}
