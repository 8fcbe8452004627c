//! Declarations that load but are never hooks in force: listed, so a reader sees them and why, and never handed to a
//! pipeline.
//!
//! Today one kind: a handler whose command runs this engine's bridge (`hook bridge --protocol …`, what
//! [`hook install`](crate::install) writes into an agent's configuration). The agent's configuration is itself a hook
//! file this engine reads, so without this rule every host that loads the workspace — `hook run`, `hook test`, the
//! bridge itself, a Rust host building a `Pipeline` — would run the bridge entry as a command hook, and the bridge
//! would run the workspace's hooks a second time (or start a bridge inside the bridge). Recognising it once, at load,
//! keeps it out of every host without each caller filtering.

use serde::{Deserialize, Serialize};

use crate::bridge_program::BridgeProgram;
use crate::model::{HookDecl, HookSpec};

/// Why a declaration is listed but never runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionReason {
    /// Its command invokes this engine's bridge ([`BridgeProgram::invokes_bridge`]): the agent that holds it runs it
    /// to reach this engine, which then runs the workspace's hooks; run as a hook here it would run them twice, or
    /// start a bridge inside the bridge.
    Bridge,
}

impl ExclusionReason {
    /// Why, in words, for the inspect report.
    pub fn describe(self) -> &'static str {
        match self {
            ExclusionReason::Bridge => {
                "it runs `hook bridge`, which its agent calls to reach this engine; run as a hook here it would run \
                 the workspace's hooks twice"
            }
        }
    }
}

/// A declaration that loaded but is never one of the hooks in force, and why. It takes no part in the merge, needs no
/// trust and has no fingerprint.
#[derive(Debug, Clone, PartialEq)]
pub struct Excluded {
    /// The declaration as loaded.
    pub decl: HookDecl,
    /// Why it never runs.
    pub reason: ExclusionReason,
}

/// Why `decl` is excluded, if it is.
pub(crate) fn reason(decl: &HookDecl, program: &BridgeProgram) -> Option<ExclusionReason> {
    match &decl.spec {
        HookSpec::Command(command) if program.invokes_bridge(&command.program) => Some(ExclusionReason::Bridge),
        _ => None,
    }
}
