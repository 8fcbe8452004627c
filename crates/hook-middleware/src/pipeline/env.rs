//! The environment the pipeline adds to a command hook (DESIGN §5).
//!
//! The host's variables pass through the host's [`hook_exec::EnvPolicy`] first (hook-exec applies it); on top the
//! pipeline sets, in this order, so a later one wins:
//! 1. the hook's own `env`;
//! 2. `HOOK_EVENT` (the canonical event name, `foreign:<Name>` for a foreign event), `HOOK_PROJECT_DIR` (the
//!    workspace), `HOOK_SOURCE_DIR` (the directory of the declaring file; not set for host registrations);
//! 3. the variables the hook's protocol documents:
//!    - claude: `CLAUDE_PROJECT_DIR`;
//!    - gemini: `GEMINI_PROJECT_DIR`, `GEMINI_SESSION_ID` (when the dispatch has one), `GEMINI_CWD` (the agent's
//!      working directory, else the workspace) and `CLAUDE_PROJECT_DIR`, which Gemini CLI sets as a compatibility
//!      alias;
//!    - cursor: `CURSOR_PROJECT_DIR`;
//!    - codex sets no such variable: its hooks run in the session's working directory (the workspace here) and its
//!      documentation has them find the project with `git rev-parse --show-toplevel`; mecha and clio-coder document
//!      none either.
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
    match protocol {
        Protocol::Claude => vars.push(("CLAUDE_PROJECT_DIR".into(), dir())),
        Protocol::Gemini => {
            vars.push(("GEMINI_PROJECT_DIR".into(), dir()));
            if let Some(session) = &input.session_id {
                vars.push(("GEMINI_SESSION_ID".into(), session.into()));
            }
            let cwd = input.cwd.as_ref().map(OsString::from).unwrap_or_else(dir);
            vars.push(("GEMINI_CWD".into(), cwd));
            vars.push(("CLAUDE_PROJECT_DIR".into(), dir()));
        }
        Protocol::Cursor => vars.push(("CURSOR_PROJECT_DIR".into(), dir())),
        Protocol::Native | Protocol::Codex | Protocol::Mecha | Protocol::Clio => {}
    }
    vars
}
