//! Where a hook comes from (origins), what it is (`HookKind`), and what a failure means (`OnError`). Whose rules it
//! follows, its [`crate::Protocol`], is the agent table's.

use std::fmt;

use serde::{Deserialize, Serialize};

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
