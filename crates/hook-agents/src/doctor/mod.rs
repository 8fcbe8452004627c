//! `hook doctor` as a library: what in an agent's own files keeps the bridge from being called at all, and where the
//! bridge entries `hook install` wrote stand.
//!
//! Everything here is read from files and from the agent's table entry ([`hook_types::Agent::switches`],
//! [`hook_types::Agent::folder_trust`], its events and files); nothing names an agent. What needs a process (the
//! agent's `--version`, the live probe of an installed handler) is the `hook` CLI's.
//!
//! ```
//! use hook_agents::doctor::{Place, agent_findings};
//! use hook_types::Protocol;
//! let ws = tempfile::tempdir().unwrap();
//! let home = tempfile::tempdir().unwrap();
//! std::fs::create_dir(ws.path().join(".claude")).unwrap();
//! std::fs::write(ws.path().join(".claude/settings.json"), r#"{"disableAllHooks": true}"#).unwrap();
//! let env = |_: &str| None;
//! let place = Place { workspace: ws.path(), home: Some(home.path()), env: &env, interactive: false, system_root: None };
//! let findings = agent_findings(Protocol::Claude.agent(), &place, &[]);
//! assert_eq!(findings[0].check, "disableAllHooks");
//! assert!(findings[0].blocks);
//! ```

mod changed;
mod entries;
mod settings;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use changed::changed_since_install;
pub use entries::{BridgeEntry, bridge_entries, installed_scopes};
pub use settings::{agent_findings, agent_variables, resolve};

/// Where the doctor looks: the workspace, the home directory, the environment the agent would start with.
pub struct Place<'a> {
    /// The workspace (the agent's working directory).
    pub workspace: &'a Path,
    /// The home directory, where the user's files are.
    pub home: Option<&'a Path>,
    /// The environment variables the agent would see.
    pub env: &'a dyn Fn(&str) -> Option<OsString>,
    /// Whether the agent is to be judged as started interactively (trust prompts apply) rather than headless.
    pub interactive: bool,
    /// The directory a machine-wide path is read under: `None` for `/` itself (a test gives a directory of its own).
    pub system_root: Option<&'a Path>,
}

/// One thing the doctor found about an agent: a reason a guard is not live (`blocks`), or a warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// A stable name of what was checked: the setting's key (`disableAllHooks`), or `folder_trust`, `bridge_missing`,
    /// `no_fallback`, `hook_trust`, … .
    pub check: &'static str,
    /// Whether it keeps a guard from being live.
    pub blocks: bool,
    /// The file it was read from, where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// What was found and what it does.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

impl Finding {
    /// A finding that keeps a guard from being live.
    pub fn blocker(check: &'static str, file: Option<PathBuf>, message: String, fix: String) -> Finding {
        Finding { check, blocks: true, file, message, fix }
    }

    /// A finding that does not, by itself, keep a guard from being live.
    pub fn warning(check: &'static str, file: Option<PathBuf>, message: String, fix: String) -> Finding {
        Finding { check, blocks: false, file, message, fix }
    }
}
