//! Where a hook comes from (origins), whose rules it follows (protocols), and what a failure means (`OnError`).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Event;

/// Where a declaration was found (docs/trust.md#origins). The derived order is the precedence order, lowest first.
///
/// ```
/// use hook_types::Origin;
/// assert!(Origin::Managed > Origin::ProjectLocal);
/// assert!(Origin::User.trusted_by_default() && !Origin::Project.trusted_by_default());
/// assert_eq!(serde_json::to_string(&Origin::ProjectLocal).unwrap(), r#""project.local""#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Origin {
    /// An extension's `hooks.yaml`, in dependency order.
    #[serde(rename = "extension")]
    Extension,
    /// The user's config home.
    #[serde(rename = "user")]
    User,
    /// The workspace's committed `.hooks/hooks.yaml` and the agents' project files.
    #[serde(rename = "project")]
    Project,
    /// The workspace's git-ignored `.hooks/hooks.local.yaml` and the agents' local files.
    #[serde(rename = "project.local")]
    ProjectLocal,
    /// The machine policy file.
    #[serde(rename = "managed")]
    Managed,
}

impl Origin {
    /// Every origin, lowest precedence first.
    pub const ALL: [Origin; 5] =
        [Origin::Extension, Origin::User, Origin::Project, Origin::ProjectLocal, Origin::Managed];

    /// Whether hooks from this origin run without an entry in the trust store (user and managed).
    ///
    /// A user origin whose config home lies inside the workspace is not trusted; that check needs paths and lives
    /// in `hook-config`.
    pub fn trusted_by_default(self) -> bool {
        matches!(self, Origin::User | Origin::Managed)
    }

    /// The wire name (`project.local`).
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Extension => "extension",
            Origin::User => "user",
            Origin::Project => "project",
            Origin::ProjectLocal => "project.local",
            Origin::Managed => "managed",
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a hook failure (spawn failure, timeout, signal, undefined exit code, invalid output) turns into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// Fail closed: the event's verdict is deny (where it can deny).
    Deny,
    /// Fail open: an Error entry, no effect.
    Ignore,
}

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
}

impl Protocol {
    /// Every protocol, in the order foreign formats are read within an origin (native first).
    pub const ALL: [Protocol; 11] = [
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
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Native => "native",
            Protocol::Claude => "claude",
            Protocol::Codex => "codex",
            Protocol::Gemini => "gemini",
            Protocol::Cursor => "cursor",
            Protocol::Mecha => "mecha",
            Protocol::Clio => "clio",
            Protocol::Qwen => "qwen",
            Protocol::Droid => "droid",
            Protocol::Cline => "cline",
            Protocol::Copilot => "copilot",
        }
    }

    /// The failure policy a hook of this protocol has on `event` unless it says `on_error` (docs/declarations.md#foreign-formats, bold column):
    /// native gates deny and everything else ignores; mecha denies a pre_tool on any failure; Claude Code, Codex,
    /// Gemini CLI, clio-coder and Cursor (without `failClosed`) fail open.
    pub fn default_on_error(self, event: &Event) -> OnError {
        match self {
            Protocol::Native => event.default_on_error(),
            Protocol::Mecha if *event == Event::PreTool => OnError::Deny,
            // GitHub Copilot CLI's preToolUse command hooks are fail-closed: a crash or a non-zero exit denies
            // (docs.github.com/en/copilot/reference/hooks-reference, "Exit codes for command hooks"). Its timeouts
            // fail open there; here a timeout denies too, the closed side.
            Protocol::Copilot if *event == Event::PreTool => OnError::Deny,
            _ => OnError::Ignore,
        }
    }

    /// The timeout a command hook of this protocol gets when it declares none, in milliseconds (docs/declarations.md#foreign-formats).
    pub fn default_timeout_ms(self) -> u64 {
        match self {
            Protocol::Native | Protocol::Mecha => 10_000,
            Protocol::Claude | Protocol::Codex => 600_000,
            // Qwen Code: "Timeout in seconds, default 60" for command hooks (docs/features/hooks.md in its package).
            // Factory Droid: its hooks manager's "default (60s)" (the `droid` 0.225.2 binary's bundled strings).
            Protocol::Gemini | Protocol::Qwen | Protocol::Droid => 60_000,
            // GitHub Copilot CLI: `timeoutSec`, "Default: 30" (its hooks reference).
            Protocol::Cursor | Protocol::Copilot => 30_000,
            Protocol::Clio => 2_000,
            // Cline 3.0.65 (@cline/core 0.0.86, hooks/hook-file-hooks.ts): `toolCallTimeoutMs ?? 120000` for the
            // PreToolUse and PostToolUse executables; the other events run detached, with no timeout.
            Protocol::Cline => 120_000,
        }
    }

    /// The protocol's own timeout bounds in milliseconds, where it has any beyond the host's [`crate::Limits`]
    /// (clio-coder clamps to 100 … 5 000).
    pub fn timeout_bounds_ms(self) -> Option<(u64, u64)> {
        match self {
            Protocol::Clio => Some((100, 5_000)),
            _ => None,
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a declaration runs (docs/declarations.md#keys-of-a-hook), plus in-process registrations coded by a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookKind {
    /// A subprocess (`argv` or `shell`).
    Command,
    /// A fixed message added to the model's context.
    Prompt,
    /// One declared effect.
    Effect,
    /// A registration coded by the host (`evaluate(input, prior_effects)`), never declared in a file.
    InProcess,
    /// A prompt the host evaluates (with a model), answering a decision and a reason: Claude Code's
    /// `type: "prompt"` and `type: "agent"` hooks. Distinct from [`HookKind::Prompt`], which adds a fixed message.
    Evaluated,
    /// The payload POSTed to a URL; the answer is read in the hook's `format` (docs/policy.md).
    Http,
    /// Rego files evaluated in-process, the payload as `input` (docs/policy.md).
    Policy,
}

impl HookKind {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            HookKind::Command => "command",
            HookKind::Prompt => "prompt",
            HookKind::Effect => "effect",
            HookKind::InProcess => "in_process",
            HookKind::Evaluated => "evaluated",
            HookKind::Http => "http",
            HookKind::Policy => "policy",
        }
    }
}
