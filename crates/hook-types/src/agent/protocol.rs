//! The agents' ids: [`Protocol`], whose rules a hook follows, one variant per entry of [`AGENTS`].

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{AGENTS, Agent, DefaultFailure};
use crate::{Event, OnError};

/// Whose input and output rules a command hook follows (docs/declarations.md#foreign-formats, docs/output-protocol.md).
///
/// ```
/// use hook_types::{Event, OnError, Protocol};
/// assert_eq!(Protocol::Native.default_on_error(&Event::PreTool), OnError::Deny);
/// assert_eq!(Protocol::Claude.default_on_error(&Event::PreTool), OnError::Ignore);
/// assert_eq!(Protocol::Mecha.default_on_error(&Event::PreTool), OnError::Deny);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// This engine's own rules.
    #[default]
    Native,
    /// Claude Code's hook rules.
    Claude,
    /// Codex's hook rules (stricter than Claude's where they differ).
    Codex,
    /// Gemini CLI's hook rules.
    Gemini,
    /// Cursor's hook rules.
    Cursor,
    /// mecha's hook rules.
    Mecha,
    /// clio-coder's hook rules.
    Clio,
    /// Qwen Code's hook rules.
    Qwen,
    /// Factory Droid's hook rules.
    Droid,
    /// Cline's hook rules.
    Cline,
    /// GitHub Copilot CLI's hook rules.
    Copilot,
    /// OpenCode, whose plugin (written by `hook install`) speaks to the bridge.
    Opencode,
    /// Kilo Code CLI, whose plugin (written by `hook install`) speaks to the bridge.
    Kilo,
    /// Crush's hook rules.
    Crush,
    /// Auggie's hook rules.
    Auggie,
}

impl Protocol {
    /// Every protocol, in the order foreign formats are read within an origin (native first).
    pub const ALL: [Protocol; 15] = [
        Protocol::Native,
        Protocol::Claude,
        Protocol::Codex,
        Protocol::Gemini,
        Protocol::Cursor,
        Protocol::Mecha,
        Protocol::Clio,
        Protocol::Qwen,
        Protocol::Droid,
        Protocol::Cline,
        Protocol::Copilot,
        Protocol::Opencode,
        Protocol::Kilo,
        Protocol::Crush,
        Protocol::Auggie,
    ];

    /// The wire name (`claude`), as `--protocol` and `--agent` take it.
    pub fn as_str(self) -> &'static str {
        self.agent().id
    }

    /// The failure policy a hook of this protocol has on `event` unless it says `on_error`
    /// (docs/declarations.md#foreign-formats, bold column): the agent entry's [`DefaultFailure`].
    pub fn default_on_error(self, event: &Event) -> OnError {
        match self.agent().failure {
            DefaultFailure::ByEvent => event.default_on_error(),
            DefaultFailure::ClosedOnPreTool if *event == Event::PreTool => OnError::Deny,
            DefaultFailure::ClosedOnPreTool | DefaultFailure::Open => OnError::Ignore,
        }
    }

    /// The timeout a command hook of this protocol gets when it declares none, in milliseconds
    /// (docs/declarations.md#foreign-formats).
    pub fn default_timeout_ms(self) -> u64 {
        self.agent().default_timeout_ms
    }

    /// The protocol's own timeout bounds in milliseconds, where it has any beyond the host's [`crate::Limits`]
    /// (clio-coder clamps to 100 … 5 000).
    pub fn timeout_bounds_ms(self) -> Option<(u64, u64)> {
        self.agent().timeout_bounds_ms
    }

    /// This protocol's agent entry.
    pub const fn agent(self) -> &'static Agent {
        // AGENTS is in the order of Protocol's variants; a test in this module checks it.
        &AGENTS[self as usize]
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
