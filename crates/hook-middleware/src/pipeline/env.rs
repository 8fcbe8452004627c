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
//! 4. [`BRIDGE_DEPTH_VAR`]: how many engines' dispatches the hook runs under (this process's own depth plus one). A
//!    bridge started with it set is a hook of an engine already, one that would dispatch the same event again and
//!    could start another bridge: it answers at once instead, whatever its program is called.
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

/// The variable set in every command hook's environment: the depth of engine dispatches it runs under, `1` under a
/// dispatch of a process that is not itself a hook of one.
pub const BRIDGE_DEPTH_VAR: &str = "HOOK_BRIDGE_DEPTH";

/// The depth this process's hooks run at: its own (from its environment; a value that does not read as a number
/// still means "under a dispatch") plus one.
fn hook_depth() -> &'static str {
    static DEPTH: OnceLock<String> = OnceLock::new();
    DEPTH.get_or_init(|| {
        let own = std::env::var(BRIDGE_DEPTH_VAR).ok().filter(|v| !v.is_empty());
        let own = own.map_or(0, |v| v.trim().parse::<u32>().unwrap_or(1));
        own.saturating_add(1).to_string()
    })
}

/// The variables to add, in the order they are set.
pub(crate) fn hook_env(
    input: &EventInput,
    protocol: Protocol,
    workspace: &Path,
    source_dir: Option<&Path>,
    own: &BTreeMap<String, String>,
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
    vars.push((BRIDGE_DEPTH_VAR.into(), hook_depth().into()));
    vars
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_types::Event;

    #[test]
    fn every_hook_is_marked_as_running_under_a_dispatch_and_cannot_unmark_itself() {
        let own = BTreeMap::from([(BRIDGE_DEPTH_VAR.to_owned(), "0".to_owned())]);
        let vars = hook_env(&EventInput::new(Event::PreTool), Protocol::Codex, Path::new("/ws"), None, &own);
        let (_, depth) = vars.iter().rev().find(|(name, _)| name == BRIDGE_DEPTH_VAR).unwrap();
        assert!(depth.to_str().unwrap().parse::<u32>().unwrap() >= 1, "{depth:?}");
    }
}
