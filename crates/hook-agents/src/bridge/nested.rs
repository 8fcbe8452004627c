//! A bridge that a hook of this engine started: it answers at once and dispatches nothing.
//!
//! An agent's configuration that holds the bridge is itself a hook file every other bridge reads (Codex's
//! `~/.codex/hooks.json` is loaded under the Claude Code bridge). The loader leaves out a handler that runs this
//! program's bridge ([`hook_config::BridgeProgram`]), but it knows the program only by its name: two builds
//! installed under different names into two agents' files would each run the other, and each of those the first
//! again — hundreds of processes within a second, still spawning after the agent's own call returned. So the
//! pipeline marks every hook it runs with [`BRIDGE_DEPTH_VAR`], and a bridge that finds the mark is a hook of an
//! engine that already dispatches this event: it passes, with a notice in the agent's user-visible channel naming
//! what to remove, whatever the program is called.

use std::ffi::OsStr;

use hook_middleware::DispatchResult;
pub use hook_middleware::pipeline::BRIDGE_DEPTH_VAR;

use super::{AgentInput, Answer, answer};

/// Whether a bridge whose [`BRIDGE_DEPTH_VAR`] is `value` runs as a hook of an engine: any value but none, an empty
/// one and `0` (a value that does not read as a number still does).
///
/// ```
/// use hook_agents::bridge::is_nested;
/// assert!(!is_nested(None) && !is_nested(Some("".as_ref())) && !is_nested(Some("0".as_ref())));
/// assert!(is_nested(Some("1".as_ref())) && is_nested(Some("junk".as_ref())));
/// ```
pub fn is_nested(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v.to_str().is_none_or(|v| v.trim().parse::<u32>() != Ok(0)))
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
        "hook bridge was started by a hook of this engine ({BRIDGE_DEPTH_VAR} is set) and dispatched nothing: the \
         engine that ran it already dispatches {}; an agent's file it reads holds a bridge entry under another \
         program name (two installed builds?), which `hook uninstall` of that build removes",
        read.event_name
    ));
    answer(read, &result)
}
