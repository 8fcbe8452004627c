//! The environment the pipeline adds to a command hook (docs/limits.md#running-a-command-hook).
//!
//! The host's variables pass through the host's [`hook_exec::EnvPolicy`] first (hook-exec applies it); on top the
//! pipeline sets, in this order, so a later one wins:
//! 1. the hook's own `env`;
//! 2. `HOOK_EVENT` (the canonical event name, `foreign:<Name>` for a foreign event), `HOOK_PROJECT_DIR` (the
//!    workspace), `HOOK_SOURCE_DIR` (the directory of the declaring file; not set for host registrations);
//! 3. the variables the agent of the hook's protocol sets for its own hooks, from its entry in the agent table
//!    ([`hook_types::Agent`]): its session id and working directory where it sets them, then each variable naming the
//!    project directory (Gemini CLI sets `CLAUDE_PROJECT_DIR` as well as its own). Codex, mecha and clio-coder set
//!    none: Codex's hooks run in the session's working directory;
//! 4. [`BRIDGE_DEPTH_VAR`]: `<depth>:<digest>` — how many engines' dispatches the hook runs under (this process's
//!    own depth plus one), and the first 128 bits of the sha256 of the exact stdin payload the hook is given. A
//!    bridge that finds it and reads exactly that payload on its stdin is a hook of an engine already dispatching
//!    this very event ([`Nesting::Dispatched`]): it answers at once instead of dispatching it again and perhaps
//!    starting another bridge, whatever its program is called. The variable alone proves nothing: an agent started
//!    by a hook (or by the agent's shell, with the variable set on purpose) inherits it, but its bridge reads that
//!    agent's own event, whose payload (a new session id, a new tool call) does not hash to the digest, and so it
//!    dispatches as any bridge does ([`Nesting::Inherited`]).
//!
//! The pipeline's variables come after the hook's `env` on purpose: the fingerprint (docs/trust.md) expands
//! `$CLAUDE_PROJECT_DIR`, `$HOOK_PROJECT_DIR` and `$GEMINI_PROJECT_DIR` to the workspace, so a hook must not be able
//! to point them elsewhere.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::OnceLock;

use hook_types::Protocol;

use crate::EventInput;

/// The variable set in every command hook's environment: `<depth>:<digest>`, the depth of engine dispatches it runs
/// under (`1` under a dispatch of a process that is not itself a hook of one) and the digest of its stdin payload.
pub const BRIDGE_DEPTH_VAR: &str = "HOOK_BRIDGE_DEPTH";

/// How deep hooks that start agents whose hooks start agents may go: past it a gate denies (docs/limits.md).
pub const MAX_BRIDGE_DEPTH: u32 = 8;

/// Where a process stands that finds `value` in [`BRIDGE_DEPTH_VAR`] and `stdin` on its standard input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    /// Not under any engine's dispatch.
    Outside,
    /// Started by an engine's dispatch with exactly this payload: a hook of an engine dispatching this very event.
    Dispatched {
        /// The depth the variable names.
        depth: u32,
    },
    /// Under an engine's dispatch (an agent a hook started, or a variable set by hand), but not with the payload
    /// that dispatch gave its hook: this is another event, to dispatch as usual.
    Inherited {
        /// The depth the variable names (a value that does not read as one counts as 1).
        depth: u32,
    },
}

impl Nesting {
    /// Reads the variable's `value` against the payload on `stdin`.
    ///
    /// ```
    /// use hook_middleware::pipeline::Nesting;
    /// let payload = br#"{"hook_event_name":"PreToolUse"}"#;
    /// let marked = hook_middleware::pipeline::bridge_marker(2, payload);
    /// assert_eq!(Nesting::read(Some(marked.as_ref()), payload), Nesting::Dispatched { depth: 2 });
    /// assert_eq!(Nesting::read(Some(marked.as_ref()), b"{}"), Nesting::Inherited { depth: 2 });
    /// assert_eq!(Nesting::read(Some("1".as_ref()), payload), Nesting::Inherited { depth: 1 });
    /// assert_eq!(Nesting::read(None, payload), Nesting::Outside);
    /// ```
    pub fn read(value: Option<&std::ffi::OsStr>, stdin: &[u8]) -> Nesting {
        let Some(value) = value.filter(|v| !v.is_empty()) else { return Nesting::Outside };
        let Some(value) = value.to_str() else { return Nesting::Inherited { depth: 1 } };
        let (depth, digest) = value.trim().split_once(':').unwrap_or((value.trim(), ""));
        let depth = depth.parse::<u32>().unwrap_or(1);
        if depth == 0 && digest.is_empty() {
            return Nesting::Outside;
        }
        if !digest.is_empty() && digest == payload_digest(stdin) {
            Nesting::Dispatched { depth }
        } else {
            Nesting::Inherited { depth }
        }
    }

    /// The depth of engine dispatches this process runs under (0 outside any).
    pub fn depth(self) -> u32 {
        match self {
            Nesting::Outside => 0,
            Nesting::Dispatched { depth } | Nesting::Inherited { depth } => depth,
        }
    }
}

/// The value of [`BRIDGE_DEPTH_VAR`] for a hook at `depth` given `payload` on its stdin.
pub fn bridge_marker(depth: u32, payload: &[u8]) -> String {
    format!("{depth}:{}", payload_digest(payload))
}

/// The first 128 bits of the payload's sha256, in hex.
fn payload_digest(payload: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(&Sha256::digest(payload)[..16])
}

/// The depth this process's hooks run at: its own (from its environment) plus one.
fn hook_depth() -> u32 {
    static DEPTH: OnceLock<u32> = OnceLock::new();
    *DEPTH.get_or_init(|| {
        let own = std::env::var_os(BRIDGE_DEPTH_VAR);
        Nesting::read(own.as_deref(), b"").depth().saturating_add(1)
    })
}

/// The variables to add, in the order they are set.
pub(crate) fn hook_env(
    input: &EventInput,
    protocol: Protocol,
    workspace: &Path,
    source_dir: Option<&Path>,
    own: &BTreeMap<String, String>,
    payload: &[u8],
) -> Vec<(OsString, OsString)> {
    let mut vars: Vec<(OsString, OsString)> = own.iter().map(|(k, v)| (k.into(), v.into())).collect();
    let dir = || workspace.as_os_str().to_owned();
    vars.push(("HOOK_EVENT".into(), input.event.to_string().into()));
    vars.push(("HOOK_PROJECT_DIR".into(), dir()));
    if let Some(source_dir) = source_dir {
        vars.push(("HOOK_SOURCE_DIR".into(), source_dir.as_os_str().to_owned()));
    }
    let agent = protocol.agent();
    if let Some(name) = agent.session_env
        && let Some(session) = &input.session_id
    {
        vars.push((name.into(), session.into()));
    }
    if let Some(name) = agent.cwd_env {
        vars.push((name.into(), input.cwd.as_ref().map(OsString::from).unwrap_or_else(dir)));
    }
    for name in agent.project_env {
        vars.push(((*name).into(), dir()));
    }
    if let Some(tool_env) = &agent.tool_env {
        call_env(tool_env, input, protocol, &mut vars);
    }
    vars.push((BRIDGE_DEPTH_VAR.into(), bridge_marker(hook_depth(), payload).into()));
    vars
}

/// The agent's variables about the event and the call ([`hook_types::ToolEnv`]): the event and tool in its
/// spelling, the input fields it lifts (a string as it is, a number or a boolean as JSON writes it), its markers.
fn call_env(env: &hook_types::ToolEnv, input: &EventInput, protocol: Protocol, vars: &mut Vec<(OsString, OsString)>) {
    for (name, value) in env.markers {
        vars.push(((*name).into(), (*value).into()));
    }
    vars.push((env.event.into(), crate::protocol::event_name(protocol, input).as_ref().into()));
    if let Some(tool) = input.tool_name.as_deref().filter(|_| input.event.is_tool_event()) {
        // The tool in the agent's spelling, as the payload's `tool_name` has it.
        let canonical = hook_types::canonical_tool(tool);
        let spelled = canonical.as_deref().and_then(|c| hook_types::tool_name_for(protocol, c, tool));
        vars.push((env.tool_name.into(), spelled.as_deref().unwrap_or(tool).into()));
    }
    let fields = input.tool_input.as_ref().and_then(serde_json::Value::as_object);
    for (field, name) in env.input_fields {
        let value = match fields.and_then(|f| f.get(*field)) {
            Some(serde_json::Value::String(text)) => text.clone(),
            Some(value @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) => value.to_string(),
            _ => continue,
        };
        vars.push(((*name).into(), value.into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_types::Event;

    #[test]
    fn every_hook_is_marked_as_running_under_a_dispatch_and_cannot_unmark_itself() {
        let own = BTreeMap::from([(BRIDGE_DEPTH_VAR.to_owned(), "0".to_owned())]);
        let payload = b"{}";
        let vars = hook_env(&EventInput::new(Event::PreTool), Protocol::Codex, Path::new("/ws"), None, &own, payload);
        let (_, marker) = vars.iter().rev().find(|(name, _)| name == BRIDGE_DEPTH_VAR).unwrap();
        assert!(
            matches!(Nesting::read(Some(marker), payload), Nesting::Dispatched { depth } if depth >= 1),
            "{marker:?}"
        );
    }
}
