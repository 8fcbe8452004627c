//! A bridge that a hook of this engine started: it answers at once and dispatches nothing.
//!
//! An agent's configuration that holds the bridge is itself a hook file every other bridge reads (Codex's
//! `~/.codex/hooks.json` is loaded under the Claude Code bridge). The loader leaves out a handler that runs this
//! program's bridge ([`hook_config::BridgeProgram`]), but it knows the program only by its name: two builds
//! installed under different names into two agents' files would each run the other, and each of those the first
//! again — hundreds of processes within a second, still spawning after the agent's own call returned. So the
//! pipeline marks every hook it runs with [`BRIDGE_DEPTH_VAR`]: the depth and a digest of the exact payload it
//! hands the hook. A bridge whose stdin is that payload is a hook of an engine that already dispatches this very
//! event ([`Nesting::Dispatched`]): it passes, with a notice in the agent's user-visible channel naming what to
//! remove, whatever the program is called.
//!
//! The variable alone switches nothing off. An agent that a hook starts (a reviewer at the end of a turn), or that
//! the agent's own shell starts with the variable set on purpose, inherits the variable, but its bridge reads that
//! agent's own event, which does not hash to the digest ([`Nesting::Inherited`]): it dispatches like any bridge,
//! managed gates and all. Only the depth is bounded: past [`MAX_BRIDGE_DEPTH`] agents started by hooks, a gate
//! denies ([`too_deep`]).

use hook_middleware::DispatchResult;
pub use hook_middleware::pipeline::{BRIDGE_DEPTH_VAR, MAX_BRIDGE_DEPTH, Nesting};

use super::{AgentInput, Answer, answer, failure};

/// The answer of a bridge `depth` engine dispatches deep, past [`MAX_BRIDGE_DEPTH`]: a failure, so the agent's
/// blocking form on a gate.
///
/// ```
/// use hook_agents::bridge::{too_deep, parse_input};
/// use hook_agents::install::Agent;
/// let read = parse_input(Agent::Claude, br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#);
/// assert_eq!(too_deep(&read.unwrap(), 9).exit_code, 2);
/// ```
pub fn too_deep(read: &AgentInput, depth: u32) -> Answer {
    let message = format!(
        "this bridge runs {depth} engine dispatches deep (agents started by hooks whose agents start agents), past \
         the bound of {MAX_BRIDGE_DEPTH}: a hook or an agent is starting itself over and over"
    );
    failure(Some(read.agent), Some(&read.event_name), &message)
}

/// The answer of a nested bridge to `read`: a pass, with a notice in the agent's user-visible channel.
///
/// ```
/// use hook_agents::bridge::{nested_answer, parse_input};
/// use hook_agents::install::Agent;
/// let read = parse_input(Agent::Codex, br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#);
/// let out = nested_answer(&read.unwrap());
/// assert_eq!(out.exit_code, 0);
/// assert!(out.stdout.starts_with(r#"{"systemMessage":"hook bridge was started by a hook of this engine"#));
/// ```
pub fn nested_answer(read: &AgentInput) -> Answer {
    let mut result = DispatchResult::nothing(&read.input.event);
    result.diagnostics.push(format!(
        "hook bridge was started by a hook of this engine ({BRIDGE_DEPTH_VAR} names this very payload) and \
         dispatched nothing: the engine that ran it already dispatches {}; an agent's file it reads holds a bridge \
         entry under another program name (two installed builds?), which `hook uninstall` of that build removes",
        read.event_name
    ));
    answer(read, &result)
}
