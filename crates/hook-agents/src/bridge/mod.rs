//! The bridge (README.md#use-it-in-your-agent): this engine inside an agent that has its own hooks, through one hook entry
//! in that agent's configuration. What a host that wants the same needs, without the CLI:
//!
//! 1. [`parse_input`]: the agent's hook input (the JSON on the hook's stdin) as an [`EventInput`](hook_middleware::EventInput)
//!    — the agent's event name read as the canonical event and the filters it implies (`PostToolUseFailure` is a
//!    failed post_tool, `SubagentStop` a subagent's turn_end, Cursor's `beforeShellExecution` a pre_tool of the tool
//!    `shell`), an event with no equivalent as a foreign one; and [`AgentInput::workspace`], the workspace it is
//!    about: the project root the agent names, or the one above the payload's `cwd` ([`project_root`]).
//! 2. [`bridge_hooks`]: the hooks to run — never one in the invoking agent's live configuration (the agent runs those
//!    itself), every other one. A handler that runs the bridge is never among them: `hook_config::load` lists it as
//!    excluded for every host (no recursion, whichever agent's file holds it); and a bridge a hook of an engine
//!    started with this very payload, whatever its program is called, dispatches nothing ([`Nesting`],
//!    [`nested_answer`]).
//! 3. A dispatch through the [`Pipeline`](hook_middleware::Pipeline), with trust and receipts as any host has them.
//! 4. [`answer`]: the result in the agent's output protocol, exit code, stdout JSON and stderr. For a foreign event,
//!    the hooks' own answers folded by the agent's rule: any blocking answer wins, its reason shown. [`failure`]:
//!    what the bridge answers when it could not do the above.
//!
//! ```
//! use hook_agents::install::Agent;
//! use hook_agents::bridge::{answer, parse_input};
//! use hook_middleware::{EventInput, Pipeline};
//! use hook_middleware::pipeline::{Evaluation, Registration};
//! use hook_types::Event;
//!
//! let workspace = tempfile::tempdir().unwrap();
//! let guard = Registration::in_process("host.no-rm", [Event::PreTool], |input: &EventInput, _: &[_]| {
//!     let command = input.tool_input.as_ref().and_then(|i| i["command"].as_str()).unwrap_or("");
//!     Ok(if command.starts_with("rm ") { Evaluation::deny("no rm here") } else { Evaluation::pass() })
//! });
//! let pipeline = Pipeline::builder().workspace(workspace.path()).host(guard).build().unwrap();
//!
//! let stdin = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}"#;
//! let read = parse_input(Agent::Claude, stdin).unwrap();
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let result = rt.block_on(pipeline.dispatch(&read.input));
//! let out = answer(&read, &result);
//! assert_eq!(out.exit_code, 0);
//! assert_eq!(
//!     out.stdout,
//!     "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\
//!      \"permissionDecisionReason\":\"no rm here\"}}\n"
//! );
//! ```

mod answer;
mod carried;
mod input;
mod nested;
mod reply;
mod select;

#[cfg(test)]
mod tests;

pub use answer::{Answer, BLOCKING_EXIT, BRIDGE_STATUSES, ERROR_EXIT, GATE_STATUSES, answer, failure};
pub use input::{AgentInput, InputError, parse_input, parse_input_as, project_root};
pub use nested::{BRIDGE_DEPTH_VAR, MAX_BRIDGE_DEPTH, Nesting, nested_answer, too_deep};
pub use reply::Reply;
pub use select::{agent_runs_it, bridge_hooks};
