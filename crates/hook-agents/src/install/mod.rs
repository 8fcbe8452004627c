//! `hook install` and `hook uninstall` as a library (README.md#use-it-in-your-agent): putting this engine inside an agent people already
//! use, through one hook entry in that agent's own configuration.
//!
//! **Install** ([`plan_install`], then [`InstallPlan::apply`]) edits one agent file of one scope
//! ([`Agent::config_file`]):
//!
//! 1. It writes the bridge entry — a command that runs `hook bridge --protocol <agent>` — under every event of the
//!    agent that has an equivalent here ([`Agent::install_events`]), plus every foreign event one of the moved hooks
//!    listens to, with an agent-side timeout above the engine's dispatch deadline ([`Agent::bridge_timeout`]). An
//!    event that already has a bridge entry (any command that invokes the bridge,
//!    [`BridgeProgram`](hook_config::BridgeProgram)) gets none.
//! 2. It moves the agent's own hooks found in that file into the native file of the same scope
//!    (`.hooks/hooks.yaml`, `.hooks/hooks.local.yaml`, `<config home>/hooks.yaml`), in the native form that keeps
//!    their protocol and content hash ([`native_form`]); the result is loaded back and checked before anything is
//!    written. A handler the engine cannot read (another handler type, an error) stays where it is: the agent keeps
//!    running it, and the bridge never runs the agent's live configuration.
//! 3. It trusts exactly the moved hooks' fingerprints (they were already running in the agent) — the caller shows
//!    them and confirms first, as `hook trust` does.
//! 4. It keeps every other key of the agent's file and its order (serde_json with `preserve_order`), and its
//!    indentation; and it records the original texts and what changed in `<config home>/installs.json`
//!    ([`InstallRecord`]).
//!
//! A second run finds the bridge on every event and nothing left to move: its plan is empty and nothing is written.
//!
//! **Uninstall** ([`uninstall`]) undoes the records of one (agent, scope, workspace), newest first. A file whose
//! content is still what install wrote gets its original bytes back (or is removed, if install created it); a file
//! changed since gets a structural undo: the bridge entries removed, the moved handlers put back where they were,
//! the moved block taken out of the native file. Trust that install recorded is revoked, trust the user had given
//! before is kept.
//!
//! ```
//! use hook_config::Layout;
//! use hook_agents::install::{plan_install, uninstall, Agent, InstallRequest, InstallScope};
//! let ws = tempfile::tempdir().unwrap();
//! let cfg = tempfile::tempdir().unwrap();
//! std::fs::create_dir(ws.path().join(".claude")).unwrap();
//! let settings = "{\n  \"model\": \"opus\"\n}\n";
//! std::fs::write(ws.path().join(".claude/settings.json"), settings).unwrap();
//! let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None);
//! let request = InstallRequest::new(Agent::Claude, InstallScope::Project, &layout, "hook bridge --protocol claude");
//!
//! let plan = plan_install(&request).unwrap();
//! assert!(plan.moved.is_empty() && plan.added_events.contains(&"PreToolUse".to_string()));
//! plan.apply().unwrap();
//! let written = std::fs::read_to_string(ws.path().join(".claude/settings.json")).unwrap();
//! assert!(written.starts_with("{\n  \"model\": \"opus\",\n  \"hooks\": {"));
//! assert!(plan_install(&request).unwrap().is_empty()); // idempotent
//!
//! uninstall(Agent::Claude, InstallScope::Project, &layout).unwrap();
//! assert_eq!(std::fs::read_to_string(ws.path().join(".claude/settings.json")).unwrap(), settings);
//! ```

mod agent;
mod agent_trust;
mod command;
mod edit;
mod executables;
mod fallback;
mod files;
mod handlers;
mod native;
mod plan;
mod platform;
mod plugin;
mod record;
mod undo;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub use agent::{
    Agent, AgentEvent, AgentInstall, BRIDGE_ANSWER_MARGIN_MS, BRIDGE_NAME, BRIDGE_TIMEOUT_MARGIN_MS, InstallScope,
};
pub use agent_trust::{AgentTrustChange, AgentTrustEntry, agent_state_file, agent_state_file_here, codex_hook_hash};
pub(crate) use agent_trust::{trust_key, untrusted_bridges};
pub use command::{bridge_command, quote};
pub use executables::{ASIDE_DIR, ExecutablesChange, FileMove, WrittenFile, bridge_script};
pub use fallback::{FALLBACK_ANSWERED, guarded_command, guards_event, wrapper_timer_secs};
pub use files::json_kind;
pub(crate) use files::{Confine, replace, sha256};
pub(crate) use handlers::{handlers, is_bridge};
pub use native::native_form;
pub(crate) use native::{insertion, yaml_block};
pub use plan::{InstallPlan, InstallRequest, KeptHandler, MovedHook, plan_install};
pub use plugin::{dependency_missing, is_shipped_plugin, plugin_settings, plugin_source};
pub use record::{INSTALLS_FILE, InstallRecord, Installs, MovedRecord, TrustedRecord, installs_path};
pub use undo::{UninstallReport, uninstall};

/// The error returned by [`plan_install`], [`InstallPlan::apply`] and [`uninstall`].
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The agent has no file for this scope (Codex, Gemini CLI and Cursor have no local file).
    #[error("{agent} has no {scope} configuration file; use --scope project or --scope user")]
    NoFileForScope {
        /// The agent.
        agent: &'static str,
        /// The scope asked for.
        scope: InstallScope,
    },
    /// A file install needs lies under a directory that is not known (no home directory, no config home).
    #[error("{what} is not known: {hint}")]
    Unknown {
        /// What is missing ("the home directory").
        what: &'static str,
        /// How to give it.
        hint: &'static str,
    },
    /// A file could not be read, created or written (the cause is the error's source).
    #[error("{action} `{}`", path.display())]
    Io {
        /// What was being done ("cannot read").
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file holds something install cannot edit without losing content; nothing was changed.
    #[error("`{}`: {message}; nothing was changed", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What it holds and what was expected.
        message: String,
    },
    /// The edited native file did not load back as planned; nothing was changed.
    #[error("`{}` would not load back as planned: {message}; nothing was changed", path.display())]
    Verify {
        /// The native file.
        path: PathBuf,
        /// What differed.
        message: String,
    },
    /// A file changed between planning and writing; nothing (more) was changed.
    #[error("`{}` changed while hook install ran; nothing was changed", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
    /// The trust store could not be saved (the cause is the error's source).
    #[error("the moved hooks could not be trusted")]
    Trust(#[from] hook_config::TrustError),
    /// `installs.json` holds something unreadable.
    #[error("`{}` is not a valid install record ({message}); fix or remove it", path.display())]
    Record {
        /// The record file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}
