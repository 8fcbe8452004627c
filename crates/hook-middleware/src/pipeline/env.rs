//! The environment the pipeline adds to a command hook (DESIGN §5).
//!
//! The host's variables pass through the host's [`hook_exec::EnvPolicy`] first (hook-exec applies it); on top the
//! pipeline sets, in this order, so a later one wins:
//! 1. the hook's own `env`;
//! 2. `HOOK_EVENT` (the canonical event name, `foreign:<Name>` for a foreign event), `HOOK_PROJECT_DIR` (the
//!    workspace), `HOOK_SOURCE_DIR` (the directory of the declaring file; not set for host registrations);
//! 3. the variables the agent of the hook's protocol sets for its own hooks, from its entry in the agent table
//!    ([`hook_types::Agent`]): its session id and working directory where it sets them, then each variable naming the
//!    project directory (Gemini CLI sets `CLAUDE_PROJECT_DIR` as well as its own). Codex, mecha and clio-coder set
//!    none: Codex's hooks run in the session's working directory.
//!
//! The pipeline's variables come after the hook's `env` on purpose: the fingerprint (DESIGN §4.6) expands
//! `$CLAUDE_PROJECT_DIR`, `$HOOK_PROJECT_DIR` and `$GEMINI_PROJECT_DIR` to the workspace, so a hook must not be able
//! to point them elsewhere.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

use hook_types::Protocol;

use crate::EventInput;

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
    vars
}
