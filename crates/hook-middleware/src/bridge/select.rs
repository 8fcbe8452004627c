//! Which of the workspace's hooks the bridge runs for an agent.

use hook_config::install::{Agent, BridgeProgram};
use hook_config::{HookSpec, LoadedHook};

/// Why the bridge does not run a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BridgeSkip {
    /// Its command invokes the bridge (the bridge's own entry, or another agent's): running it would start a bridge
    /// inside the bridge, and so on.
    Bridge,
    /// It sits in the invoking agent's live configuration: the agent runs it itself, and running it here too would
    /// run it twice.
    AgentRunsIt,
}

impl BridgeSkip {
    /// Why, in words.
    pub fn describe(self) -> &'static str {
        match self {
            BridgeSkip::Bridge => "it runs the bridge",
            BridgeSkip::AgentRunsIt => "the agent runs it itself",
        }
    }
}

/// Whether the bridge for `agent` runs `hook`, and if not, why. Every file of the agent's own format that discovery
/// reads is one the agent reads too (its project, local and user settings), so "in the agent's live configuration"
/// is "of the agent's format". Hooks of every other format run: a `.codex/hooks.json` hook under the Claude Code
/// bridge, a native hook `hook install` moved out of the agent's file.
///
/// ```
/// use hook_config::install::{Agent, BridgeProgram};
/// use hook_config::{parse_str, FileContext, Format, LoadedHook, TrustStatus};
/// use hook_middleware::bridge::{skip_reason, BridgeSkip};
/// use hook_types::Origin;
/// use std::path::Path;
/// let cx = FileContext { origin: Origin::Project, workspace: Path::new("/"), root: Path::new("/"), source_id: None };
/// let yaml = "- {on: pre_tool, kind: command, shell: 'hook bridge --protocol codex'}\n- {on: pre_tool, kind: command, shell: ./guard.sh}";
/// let hooks = parse_str(yaml, Path::new("/.hooks/hooks.yaml"), Format::Native, &cx).hooks;
/// let loaded = |decl| LoadedHook {
///     decl, trust: TrustStatus::Trusted, fingerprint: None, allowed_by_policy: true, origin_trusted: false,
/// };
/// let program = BridgeProgram::named(["hook"]);
/// assert_eq!(skip_reason(Agent::Claude, &loaded(hooks[0].clone()), &program), Some(BridgeSkip::Bridge));
/// assert_eq!(skip_reason(Agent::Claude, &loaded(hooks[1].clone()), &program), None);
/// ```
pub fn skip_reason(agent: Agent, hook: &LoadedHook, program: &BridgeProgram) -> Option<BridgeSkip> {
    if let HookSpec::Command(command) = &hook.decl.spec
        && program.invokes_bridge(&command.program)
    {
        return Some(BridgeSkip::Bridge);
    }
    (hook.decl.format == agent.format()).then_some(BridgeSkip::AgentRunsIt)
}

/// Splits `hooks` (in precedence order) into those the bridge for `agent` runs and those it skips, with why.
pub fn bridge_hooks(
    agent: Agent,
    hooks: Vec<LoadedHook>,
    program: &BridgeProgram,
) -> (Vec<LoadedHook>, Vec<(LoadedHook, BridgeSkip)>) {
    let mut run = Vec::with_capacity(hooks.len());
    let mut skipped = Vec::new();
    for hook in hooks {
        match skip_reason(agent, &hook, program) {
            Some(why) => skipped.push((hook, why)),
            None => run.push(hook),
        }
    }
    (run, skipped)
}
