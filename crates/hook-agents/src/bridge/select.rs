//! Which of the workspace's hooks the bridge runs for an agent.
//!
//! A handler that runs the bridge itself is never among the hooks: [`hook_config::load`] lists it in
//! [`Config::excluded`](hook_config::Config::excluded) for every host, so the bridge cannot start a bridge. What is
//! left here is the bridge's own rule.

use crate::install::Agent;
use hook_config::LoadedHook;

/// Whether `hook` sits in the live configuration of `agent`, which runs it itself: the bridge for that agent must not
/// run it too, or it would run twice. Every file of the agent's own format that discovery reads is one the agent reads
/// too (its project, local and user settings), so "in the agent's live configuration" is "of the agent's format".
/// Hooks of every other format run under the bridge: a `.codex/hooks.json` hook under the Claude Code bridge, a
/// native hook `hook install` moved out of the agent's file.
///
/// ```
/// use hook_agents::install::Agent;
/// use hook_config::{parse_str, FileContext, Format, LoadedHook, TrustStatus};
/// use hook_agents::bridge::agent_runs_it;
/// use hook_types::Origin;
/// use std::path::Path;
/// let cx = FileContext { origin: Origin::Project, workspace: Path::new("/"), root: Path::new("/"), source_id: None };
/// let claude = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./guard.sh"}]}]}}"#;
/// let native = "- {on: pre_tool, kind: command, shell: exit 0}";
/// let loaded = |text: &str, path: &str, format| LoadedHook {
///     decl: parse_str(text, Path::new(path), format, &cx).hooks.remove(0),
///     trust: TrustStatus::Trusted, fingerprint: None, allowed_by_policy: true, origin_trusted: false,
/// };
/// assert!(agent_runs_it(Agent::Claude, &loaded(claude, "/.claude/settings.json", Format::Claude)));
/// assert!(!agent_runs_it(Agent::Claude, &loaded(native, "/.hooks/hooks.yaml", Format::Native)));
/// assert!(!agent_runs_it(Agent::Codex, &loaded(claude, "/.claude/settings.json", Format::Claude)));
/// ```
pub fn agent_runs_it(agent: Agent, hook: &LoadedHook) -> bool {
    hook.decl.format == agent
}

/// Splits `hooks` (in precedence order) into those the bridge for `agent` runs and those the agent runs itself, each
/// in order.
pub fn bridge_hooks(agent: Agent, hooks: Vec<LoadedHook>) -> (Vec<LoadedHook>, Vec<LoadedHook>) {
    hooks.into_iter().partition(|hook| !agent_runs_it(agent, hook))
}
