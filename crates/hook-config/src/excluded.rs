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

use hook_types::{EventClass, OnError, Protocol};

use crate::bridge_program::{BridgeProgram, lone_command};
use crate::model::{HookDecl, HookSpec, Issue, IssueSeverity, Program};

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

/// A warning for a bridge entry on a gate event that runs the bridge bare: no fallback answers when the bridge
/// cannot (`hook` not on the agent's `PATH`, killed, hung), and every agent then runs the tool. What `hook install`
/// writes has one (its fail-closed wrapper, or the agent's own switch such as Cursor's `failClosed`); a hand-written
/// or older entry may not.
pub(crate) fn unguarded_bridge(decl: &HookDecl) -> Option<Issue> {
    let HookSpec::Command(command) = &decl.spec else { return None };
    let (Program::Shell(line) | Program::PowerShell(line)) = &command.program else { return None };
    let gate = decl.event.class() == EventClass::Gate;
    if !gate || decl.protocol == Protocol::Native || decl.on_error == OnError::Deny || !lone_command(line) {
        return None;
    }
    let agent = decl.protocol.agent();
    Some(Issue {
        source: decl.source.clone(),
        index: Some(decl.index),
        hook_id: Some(decl.id.clone()),
        field: None,
        line: None,
        column: None,
        severity: IssueSeverity::Warning,
        message: format!(
            "this bridge entry on a {} gate runs the bridge with no fallback: if `hook` is not on {}'s PATH, dies or \
             hangs, {} runs the call unguarded; run `hook install --agent {}` again, which writes a handler that \
             blocks then",
            decl.event,
            agent.name,
            agent.name,
            agent.protocol.as_str()
        ),
    })
}
