//! The workspace's own gates as one agent meets them through the bridge: those that would fire on its shell and
//! write tools, those that would not run (untrusted, modified, disabled), and those a tool spelling would miss.

use hook_agents::bridge::agent_runs_it;
use hook_agents::doctor::Finding;
use hook_agents::install::Agent;
use hook_config::{Config, TrustStatus};
use hook_middleware::pipeline::{Pipeline, SkipReason};
use hook_types::Event;
use serde::Serialize;

/// The gates of one canonical tool.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ToolGates {
    /// The ids of the pre-tool hooks that would run on it.
    pub run: Vec<String>,
    /// Those that match it but would not run, each with why.
    pub skipped: Vec<Skipped>,
}

/// A gate that matches a tool but would not run.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Skipped {
    /// Its id.
    pub id: String,
    /// Why: `untrusted`, `modified`, `disabled` or `only_managed`.
    pub why: &'static str,
}

/// What the bridge for one agent would do on its shell and write tools.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Gates {
    /// The `shell` tool.
    pub shell: ToolGates,
    /// The `write` tool.
    pub write: ToolGates,
}

/// The gates of `pipeline` (the bridge's for `agent`: without the hooks the agent runs itself), and the findings:
/// each matching gate that would not run, each `tools:` name of `config`'s gates the agent never calls a tool by.
pub fn gates(agent: Agent, config: &Config, pipeline: &Pipeline) -> (Gates, Vec<Finding>) {
    let mut findings = Vec::new();
    let of = |tool: &str| {
        let mut gates = ToolGates::default();
        for entry in pipeline.preview(&Event::PreTool, Some(tool)).iter() {
            match entry.skip {
                None => gates.run.push(entry.id.clone()),
                Some(skip) => {
                    if !gates.skipped.iter().any(|s| s.id == entry.id) {
                        gates.skipped.push(Skipped { id: entry.id.clone(), why: skip_word(skip) });
                    }
                }
            }
        }
        gates
    };
    let report = Gates { shell: of("shell"), write: of("write") };
    let mut skipped: Vec<&Skipped> = report.shell.skipped.iter().chain(&report.write.skipped).collect();
    skipped.sort();
    skipped.dedup();
    for Skipped { id, why } in skipped {
        let message =
            format!("the gate `{id}` matches {}'s shell or write tool but would not run: {why}", agent.agent().name);
        findings.push(match *why {
            "untrusted" | "modified" => {
                Finding::blocker("gate_not_run", None, message, format!("review it: hook trust {id}"))
            }
            // The managed policy's choice, or the file's own `enabled: false`: not a guard that failed.
            _ => {
                Finding::warning("gate_not_run", None, message, "enable it in its file if it is meant to guard".into())
            }
        });
    }
    let named: Vec<&str> = skipped_ids(&report);
    findings.extend(other_unrun(agent, config, &named));
    findings.extend(missed_spellings(agent, config));
    (report, findings)
}

fn skipped_ids(gates: &Gates) -> Vec<&str> {
    gates.shell.skipped.iter().chain(&gates.write.skipped).map(|s| s.id.as_str()).collect()
}

/// The other hooks the bridge would not run because they are untrusted or modified (on any event): each is a guard
/// or an observer that does nothing until it is trusted.
fn other_unrun(agent: Agent, config: &Config, named: &[&str]) -> Vec<Finding> {
    let unrun = config.hooks.iter().filter(|h| {
        matches!(h.trust, TrustStatus::Untrusted | TrustStatus::Modified)
            && !agent_runs_it(agent, h)
            && !named.contains(&h.decl.id.as_str())
    });
    unrun
        .map(|hook| {
            let why = if hook.trust == TrustStatus::Modified { "modified since it was trusted" } else { "untrusted" };
            Finding::warning(
                "hook_not_run",
                Some(hook.decl.source.clone()),
                format!("the hook `{}` ({}) would not run: {why}", hook.decl.id, hook.decl.event),
                format!("review it: hook trust {}", hook.decl.id),
            )
        })
        .collect()
}

/// A `tools:` entry of a gate that names no canonical tool and no tool of the agent: the agent never sends that
/// name, so the gate never meets its calls.
fn missed_spellings(agent: Agent, config: &Config) -> Vec<Finding> {
    let table = agent.agent();
    let mut out = Vec::new();
    for hook in config.hooks.iter().filter(|h| h.decl.event == Event::PreTool && !agent_runs_it(agent, h)) {
        for tool in hook.decl.tools.iter().flatten() {
            if hook_types::canonical_tool(tool).is_none() && !table.knows_tool(tool) {
                out.push(Finding::warning(
                    "tool_spelling",
                    Some(hook.decl.source.clone()),
                    format!(
                        "the gate `{}` lists the tool `{tool}`, the name of no tool {} calls: the gate never meets its calls",
                        hook.decl.id, table.name
                    ),
                    format!(
                        "name the canonical tool ({}) or {}'s own name for it",
                        hook_types::suggest_tool(tool).unwrap_or("shell, write, edit, …"),
                        table.name
                    ),
                ));
            }
        }
    }
    out
}

fn skip_word(skip: SkipReason) -> &'static str {
    match skip {
        SkipReason::Disabled => "disabled",
        SkipReason::OnlyManaged => "only_managed",
        SkipReason::Untrusted => "untrusted",
        SkipReason::Modified => "modified",
    }
}
