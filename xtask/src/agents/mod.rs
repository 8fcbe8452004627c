//! `cargo xtask agents`: the engine against the real agents — Claude Code, Codex, Gemini CLI, Qwen Code, Cline,
//! GitHub Copilot CLI, Factory Droid, OpenCode and Kilo Code CLI at pinned versions, installed with npm under
//! `target/agents/npm` — each run end to end, offline, against a scripted model server of our own on 127.0.0.1
//! ([`server`]).
//!
//! For each agent and scenario ([`scenarios`]) it prints `agent  scenario  ok|FAIL|skip  (why)`, then the bridge's
//! added wall time per tool call ([`measure`]), and last `N passed, N failed`; it exits non-zero on any failure.
//! Every scenario has its own sandbox under `target/agents/run/<agent>/<scenario>/` (workspace, `HOME`, config
//! and state homes, and the logs of each run: `run-N.requests.jsonl`, `run-N.stdout`, `run-N.stderr`), removed
//! after a pass unless `--keep`, kept after a failure.

mod adversary;
mod agent;
mod chat;
mod claude;
mod cline;
mod codex;
mod conformance;
mod copilot;
mod doctor;
mod drift;
mod droid;
mod gemini;
mod measure;
mod npm;
mod opencode;
mod parallel;
mod process;
mod qwen;
mod retries;
mod scenarios;
mod server;
mod session;
mod unanswered;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use agent::Agent;
use session::Ctx;

const USAGE: &str = "usage: cargo xtask agents [--agent claude|codex|gemini|qwen|cline|copilot|droid|opencode|kilo] \
                     [--scenario NAME] [--keep] [--jobs N] [--no-measure | --measure-only] \
                     [--conformance [--case PART]] [--latest] | --install-only";

/// How long one scenario may take, all its agent runs together.
const SCENARIO_BUDGET: Duration = Duration::from_secs(150);

/// The parsed flags.
#[derive(Debug, Default)]
struct Flags {
    agent: Option<String>,
    scenario: Option<String>,
    keep: bool,
    no_measure: bool,
    measure_only: bool,
    conformance: bool,
    case: Option<String>,
    /// How many agents run their scenarios at once (`--jobs`; [`parallel::default_jobs`] without it).
    jobs: Option<usize>,
    latest: bool,
    /// Only install the pinned agents (`--install-only`): what `.ci/run` starts in the background while it builds.
    install_only: bool,
}

fn parse(args: &[String]) -> Result<Flags> {
    let mut flags = Flags::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--agent" => flags.agent = Some(args.next().context(USAGE)?.clone()),
            "--scenario" => flags.scenario = Some(args.next().context(USAGE)?.clone()),
            "--keep" => flags.keep = true,
            "--no-measure" => flags.no_measure = true,
            "--measure-only" => flags.measure_only = true,
            "--conformance" => flags.conformance = true,
            "--case" => flags.case = Some(args.next().context(USAGE)?.clone()),
            "--jobs" => {
                let jobs = args.next().context(USAGE)?;
                flags.jobs = Some(jobs.parse().ok().filter(|&n| n > 0).with_context(|| {
                    format!("--jobs takes a number of agents at once, 1 or more, not `{jobs}`\n{USAGE}")
                })?);
            }
            "--latest" => flags.latest = true,
            "--install-only" => flags.install_only = true,
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    Ok(flags)
}

/// Every agent, in the order they run.
fn agents() -> [&'static dyn Agent; 9] {
    [
        &claude::Claude,
        &codex::Codex,
        &gemini::Gemini,
        &qwen::Qwen,
        &cline::Cline,
        &copilot::Copilot,
        &droid::Droid,
        &opencode::OPENCODE,
        &opencode::KILO,
    ]
}

/// Every scenario: the shared ones, then those of agents that have their own.
fn all_scenarios() -> impl Iterator<Item = &'static scenarios::Scenario> {
    scenarios::SCENARIOS.iter().chain(cline::SCENARIOS).chain(opencode::SCENARIOS)
}

/// The bridged agents of the agent table the suite does not run, each with exactly why; their behaviour is covered by
/// recorded payloads from their published packages and documents instead (`crates/hook-cli/tests/it/more_agents.rs`,
/// `crates/hook-agents/tests/it/import.rs`, `crates/hook-cli/tests/it/crush.rs`, `crates/hook-cli/tests/it/auggie.rs`).
/// A test checks this list and [`agents`] cover every bridged agent.
const NOT_RUN: [(&str, &str); 2] = [
    (
        "crush",
        "its npm package downloads its executable at install time, which cannot run here; \
         crates/hook-cli/tests/it/crush.rs feeds the bridge the payloads its source defines",
    ),
    (
        "auggie",
        "it runs only signed in (`auggie login`), its model behind Augment's own API, which cannot be reached \
         here; crates/hook-cli/tests/it/auggie.rs feeds the bridge the payloads its bundle builds",
    ),
];

/// `cargo xtask agents`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    crate::adopt_orphans();
    let result = run_suite(args, root);
    // What the measurements or the conformance runs left behind: this process's exit would hand it to init.
    process::kill_left_behind();
    result
}

/// The suite, as the module docs describe it.
///
/// # Order
///
/// 1. the flags, and the agents and scenario they name;
/// 2. the `hook` binary and the pinned agents, installed; the runs of a whole suite start from clean directories;
/// 3. every scenario that applies to each agent (none with `--measure-only` or `--conformance`), several agents at
///    once in workers of their own ([`parallel`]) where `--jobs` allows;
/// 4. with `--conformance`, each agent against the engine case by case, and nothing after;
/// 5. the bridge's overhead, where measured;
/// 6. the bridged agents the suite does not run, then the tally;
/// 7. with `--latest` (which runs 3 to 5 on the releases the registry serves now), each agent's drift.
fn run_suite(args: &[String], root: &Path) -> Result<()> {
    let flags = parse(args)?;
    if flags.install_only {
        return npm::ensure(&root.join("target/agents/npm")).map(drop);
    }
    let agents = selected(&flags)?;
    let started = Instant::now();
    let hook = build_hook(root)?;
    let pinned = npm::ensure(&root.join("target/agents/npm"))?;
    let latest = match flags.latest {
        true => {
            let versions = drift::latest_versions()?;
            Some((drift::install_latest(root, &versions)?, versions))
        }
        false => None,
    };
    let installed = latest.as_ref().map_or_else(|| pinned.clone(), |(installed, _)| installed.clone());
    let suite = Suite { hook, installed, runs: root.join("target/agents/run"), flags: &flags };
    let drift = || match &latest {
        Some((installed, versions)) => report_drift(&agents, &pinned, installed, versions),
        None => Ok(()),
    };
    if flags.scenario.is_none() && flags.case.is_none() {
        for agent in &agents {
            let _ = std::fs::remove_dir_all(suite.runs.join(agent.name()));
        }
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    if !flags.measure_only && !flags.conformance {
        // `--latest` runs on the releases installed here for this run: one agent after the other.
        let jobs = if flags.latest { 1 } else { flags.jobs.unwrap_or_else(parallel::default_jobs).min(agents.len()) };
        (passed, failed) = match jobs {
            1 => suite.scenarios(&agents),
            _ => parallel::scenarios(&agents, &flags, jobs, &suite.hook)?,
        };
    }
    if flags.conformance {
        let conformance = suite.conformance(&agents, started);
        return drift().and(conformance);
    }
    if flags.measure_only || (!flags.no_measure && flags.scenario.is_none()) {
        suite.measure(&agents);
    }
    if flags.agent.is_none() && !flags.measure_only {
        for (agent, why) in NOT_RUN {
            println!("{agent:<7} not run: {why}");
        }
    }
    eprintln!("agents: {:.0}s in all", started.elapsed().as_secs_f64());
    println!("{passed} passed, {failed} failed");
    let drift = drift();
    if failed > 0 {
        bail!("{failed} scenario(s) failed");
    }
    drift
}

/// Prints each agent's drift (`--latest`); an error when any is undocumented.
fn report_drift(
    agents: &[&dyn Agent],
    pinned: &npm::Installed,
    latest: &npm::Installed,
    versions: &[drift::Served],
) -> Result<()> {
    let mut undocumented = 0;
    for agent in agents {
        match drift::drift(*agent, pinned, latest, versions) {
            Ok(found) => {
                for line in &found.lines {
                    println!("{:<7} drift: {line}", agent.name());
                }
                undocumented += found.undocumented;
            }
            Err(err) => {
                println!(
                    "{:<7} drift: UNDOCUMENTED: cannot scan: {}",
                    agent.name(),
                    process::one_line(&format!("{err:#}"))
                );
                undocumented += 1;
            }
        }
    }
    println!("drift: {undocumented} undocumented difference(s)");
    if undocumented > 0 {
        bail!("{undocumented} undocumented difference(s) between the agent table and the latest releases");
    }
    Ok(())
}

/// The agents `--agent` names (all without it), once `--scenario` is known to name a scenario.
fn selected(flags: &Flags) -> Result<Vec<&'static dyn Agent>> {
    let agents: Vec<&dyn Agent> =
        agents().into_iter().filter(|a| flags.agent.as_deref().is_none_or(|name| name == a.name())).collect();
    if agents.is_empty() {
        bail!("no agent `{}`\n{USAGE}", flags.agent.clone().unwrap_or_default());
    }
    if let Some(name) = &flags.scenario
        && !all_scenarios().any(|s| s.name == name)
    {
        bail!("no scenario `{name}`; there are: {}", all_scenarios().map(|s| s.name).collect::<Vec<_>>().join(", "));
    }
    Ok(agents)
}

/// What every run of the suite shares.
struct Suite<'f> {
    /// The `hook` binary.
    hook: PathBuf,
    /// The agents, installed with npm.
    installed: npm::Installed,
    /// Where each agent's runs go (`target/agents/run`).
    runs: PathBuf,
    flags: &'f Flags,
}

impl Suite<'_> {
    /// Runs every scenario `--scenario` selects with each agent, one after the other; how many passed and failed.
    fn scenarios(&self, agents: &[&dyn Agent]) -> (usize, usize) {
        let (mut passed, mut failed) = (0, 0);
        for agent in agents {
            for scenario in all_scenarios().filter(|s| self.flags.scenario.as_deref().is_none_or(|name| name == s.name))
            {
                match self.scenario(*agent, scenario) {
                    Some(true) => passed += 1,
                    Some(false) => failed += 1,
                    None => {}
                }
            }
        }
        (passed, failed)
    }

    /// Runs one scenario with one agent in a sandbox of its own and prints its line; whether it passed, or `None`
    /// where it does not apply to the agent (a skip the agent gives a reason for is printed too).
    fn scenario(&self, agent: &dyn Agent, scenario: &scenarios::Scenario) -> Option<bool> {
        if let Some(why) = agent.skips(scenario.name) {
            // Once per name for an agent of its own scenarios: another agent's list of the same name (Cline's
            // `hook_missing`) skips in silence.
            let others = !scenario.agents.is_empty() && !scenario.agents.contains(&agent.name());
            if !(agent.own_scenarios_only() && others) {
                println!("{:<7} {:<20} skip  ({why})", agent.name(), scenario.name);
            }
            return None;
        }
        let named = scenario.agents.contains(&agent.name());
        if !(named || (scenario.agents.is_empty() && !agent.own_scenarios_only())) {
            return None;
        }
        let dir = self.runs.join(agent.name()).join(scenario.name);
        let began = Instant::now();
        let outcome = process::Sandbox::create(&dir, &self.hook)
            .and_then(|sandbox| Ctx::new(agent, &self.installed, sandbox, SCENARIO_BUDGET))
            .and_then(|ctx| (scenario.run)(&ctx));
        let seconds = began.elapsed().as_secs_f64();
        let left = process::kill_left_behind();
        if left > 0 {
            println!(
                "{:<7} {:<20} note  ({left} process(es) left running in a session of their own, killed)",
                agent.name(),
                scenario.name
            );
        }
        let (ok, detail) = match outcome {
            Ok(checks) if checks.passed() => (true, String::new()),
            Ok(checks) => (false, checks.detail()),
            Err(err) => (false, format!("harness error: {}", process::one_line(&format!("{err:#}")))),
        };
        if ok && !self.flags.keep {
            let _ = std::fs::remove_dir_all(&dir);
        }
        let verdict = if ok { "ok" } else { "FAIL" };
        let detail = if detail.is_empty() { format!("{seconds:.1} s") } else { format!("{detail}; {seconds:.1} s") };
        println!("{:<7} {:<20} {verdict:<4}  ({detail})", agent.name(), scenario.name);
        Some(ok)
    }

    /// `--conformance`: each agent against the engine, case by case; an error where a case differs without a
    /// documented fail-closed choice.
    fn conformance(&self, agents: &[&dyn Agent], started: Instant) -> Result<()> {
        let mut undocumented = 0;
        for agent in agents {
            let tally =
                conformance::compare(*agent, &self.installed, &self.hook, &self.runs, self.flags.case.as_deref())?;
            undocumented += tally.different - tally.documented;
        }
        eprintln!("agents: {:.0}s in all", started.elapsed().as_secs_f64());
        if undocumented > 0 {
            bail!("{undocumented} case(s) differ without a documented fail-closed choice");
        }
        Ok(())
    }

    /// The bridge's added wall time per tool call, for the agents measured (all of them with `--measure-only`).
    fn measure(&self, agents: &[&dyn Agent]) {
        for agent in agents.iter().filter(|a| self.flags.measure_only || a.measured_by_default()) {
            match measure::bridge_overhead(*agent, &self.installed, &self.hook, &self.runs) {
                Ok(line) => println!("{:<7} bridge overhead: {line}", agent.name()),
                Err(err) => println!(
                    "{:<7} bridge overhead: not measured: {}",
                    agent.name(),
                    process::one_line(&format!("{err:#}"))
                ),
            }
        }
    }
}

/// Builds the `hook` binary (debug: CI's test run has built that profile already, so this is a no-op there) and
/// returns its path.
fn build_hook(root: &Path) -> Result<PathBuf> {
    if let Some(built) = std::env::var_os(parallel::HOOK_VAR) {
        return Ok(PathBuf::from(built));
    }
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "-q", "-p", "hook-cli"])
        .current_dir(root)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("cargo build -p hook-cli failed ({status})");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let hook = target.join("debug/hook");
    if !hook.is_file() {
        bail!("{} is missing after the build", hook.display());
    }
    Ok(hook)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_agents::install::{Agent as Bridged, AgentInstall};

    #[test]
    fn every_bridged_agent_is_run_or_says_why_not() {
        let run: Vec<&str> = agents().iter().map(|a| a.name()).collect();
        for agent in Bridged::bridged() {
            let name = agent.as_str();
            let why = NOT_RUN.iter().find(|(n, _)| *n == name);
            // Cursor has no command-line agent to run; the table pins no release of it.
            if agent.agent().version.is_none() {
                continue;
            }
            assert!(run.contains(&name) != why.is_some(), "{name}: run by the suite or listed in NOT_RUN, not both");
        }
    }
}
