//! The normalized declaration model every format loads into (docs/declarations.md).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use hook_types::{Effect, Event, EventFilters, HookKind, OnError, Origin, Protocol, Severity};
use serde::{Deserialize, Serialize};

/// The file format a declaration was read from: the agent whose file it is. One id serves as the agent, its hook
/// protocol and its file format (the agent table, [`hook_types::Agent`]); within one origin, formats are read in
/// the table's order.
pub type Format = Protocol;

/// What plain stdout of a command hook that exits 0 becomes (docs/declarations.md#kind-command).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AsMode {
    /// An `annotate_tool_result` (the default on post_tool).
    Annotate,
    /// An `inject_reminder` (the default elsewhere).
    Reminder,
}

impl AsMode {
    /// The default for an event: `annotate` on post_tool, `reminder` elsewhere.
    pub fn default_for(event: &Event) -> AsMode {
        if *event == Event::PostTool { AsMode::Annotate } else { AsMode::Reminder }
    }
}

/// How a command hook's program is given.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Program {
    /// Run directly, no shell: nothing to inject into. Never empty.
    Argv(Vec<String>),
    /// Run by `sh -c`.
    Shell(String),
    /// Run by PowerShell: `pwsh -NoLogo -NoProfile -NonInteractive -Command <line>`, on Windows `powershell` when
    /// `PATH` has no `pwsh`. Where neither is found the run fails to start, which denies on a gate.
    #[serde(rename = "powershell")]
    PowerShell(String),
}

/// A command hook's specification: the values **as declared** (defaults filled from the protocol) plus what loading
/// resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    /// argv or shell, as declared.
    pub program: Program,
    /// The working directory as written, workspace-relative; `"."` by default.
    pub cwd: String,
    /// `cwd` resolved against the workspace root, symlinks included, confined to the workspace at load time. The
    /// pipeline re-checks confinement before each run.
    pub resolved_cwd: PathBuf,
    /// For `Argv` whose program is a relative path (`./scripts/guard.sh`): that path resolved against the origin root
    /// (workspace for project origins, the declaring file's directory otherwise). `None` for bare names looked up on
    /// `PATH` and for shell commands.
    pub resolved_program: Option<PathBuf>,
    /// The timeout as declared (or the protocol's default), before the host's `Limits` clamp.
    pub timeout_ms: u64,
    /// What plain stdout becomes.
    pub as_mode: AsMode,
    /// Extra environment variables, sorted by name.
    pub env: BTreeMap<String, String>,
}

/// What a hook does.
#[derive(Debug, Clone, PartialEq)]
pub enum HookSpec {
    /// Run a subprocess.
    Command(CommandSpec),
    /// Add a fixed message (≤ 2 000 chars) to the model's context.
    Prompt {
        /// The message.
        message: String,
        /// Its severity.
        severity: Severity,
    },
    /// Emit one declared effect, valid for the event.
    Effect(Effect),
    /// POST the payload to a URL and read the answer (docs/policy.md).
    Http(crate::remote::HttpSpec),
    /// Evaluate Rego in-process, the payload as `input` (docs/policy.md).
    Policy(crate::policy::PolicySpec),
    /// A prompt the host evaluates (see [`EvaluatedSpec`]).
    Evaluated(EvaluatedSpec),
}

/// A host-evaluated hook (`kind: evaluated`; Claude Code's `type: "prompt"` and `type: "agent"`): the host's
/// evaluator — a model, where the host has one — reads the prompt and the event's payload and answers a decision
/// and a reason within the timeout. A host without an evaluator reports the hook `skipped`, and its `on_error`
/// applies (see `docs/evaluated-hooks.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvaluatedSpec {
    /// The prompt, as declared (Claude Code's `$ARGUMENTS` placeholder is kept for the evaluator to fill).
    pub prompt: String,
    /// How long the evaluator may take, in milliseconds (the protocol's default when none is declared).
    pub timeout_ms: u64,
    /// The model the author asked for, if any; a hint for the host.
    pub model: Option<String>,
    /// Claude Code's `type: "agent"`: the evaluator may use tools to look before it answers.
    pub agent: bool,
}

impl HookSpec {
    /// The declaration's kind.
    pub fn kind(&self) -> HookKind {
        match self {
            HookSpec::Command(_) => HookKind::Command,
            HookSpec::Prompt { .. } => HookKind::Prompt,
            HookSpec::Effect(_) => HookKind::Effect,
            HookSpec::Evaluated(_) => HookKind::Evaluated,
            HookSpec::Http(_) => HookKind::Http,
            HookSpec::Policy(_) => HookKind::Policy,
        }
    }
}

/// A tool-name (or `source`/`trigger`) matcher by the Claude/Codex rule: `*` or empty matches all (and is stored as
/// no matcher at all); a pattern of only `[A-Za-z0-9_ ,|-]` is a list of exact names split on `|` or `,`; anything
/// else is an unanchored regex, compiled once at load.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// The pattern as written.
    pub pattern: String,
    /// How it matches.
    pub rule: MatcherRule,
}

/// How a [`Matcher`] matches.
#[derive(Debug, Clone)]
pub enum MatcherRule {
    /// One of these exact names.
    Exact(Vec<String>),
    /// An unanchored regex.
    Regex(regex::Regex),
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern
    }
}

impl Matcher {
    /// Whether the matcher accepts `value` (a tool name, a session_start `source`, a compaction `trigger`).
    pub fn matches(&self, value: &str) -> bool {
        match &self.rule {
            MatcherRule::Exact(names) => names.iter().any(|n| n == value),
            MatcherRule::Regex(regex) => regex.is_match(value),
        }
    }
}

/// One normalized, validated declaration (docs/declarations.md), ready to merge, inspect and run.
#[derive(Debug, Clone, PartialEq)]
pub struct HookDecl {
    /// The merge key across origins: as declared, or `<source_id or origin>.<kind>.<hash>`.
    pub id: String,
    /// Where it was found.
    pub origin: Origin,
    /// The declaring file.
    pub source: PathBuf,
    /// The format of that file.
    pub format: Format,
    /// Position in its file (the `N` of `hooks[N]`).
    pub index: usize,
    /// The origin's root: the workspace for project origins, the declaring file's directory for user, managed and
    /// extension origins (`HOOK_SOURCE_DIR`).
    pub root: PathBuf,
    /// The canonical event.
    pub event: Event,
    /// `only_errors` and `scope`.
    pub filters: EventFilters,
    /// Exact tool names, if restricted.
    pub tools: Option<Vec<String>>,
    /// The matcher, if any (`*` and empty are stored as `None`).
    pub matcher: Option<Matcher>,
    /// The `if` condition (Claude Code's permission-rule syntax), tested after the matcher against the call's tool
    /// and input (docs/declarations.md#if); a hook with one fires on tool events only.
    pub condition: Option<crate::PermissionRule>,
    /// `command:`: patterns over the commands a shell call runs, and what a line that cannot be read means
    /// (docs/shell-commands.md); a hook with one fires on shell calls only.
    pub command: Option<crate::CommandMatcher>,
    /// Starts only after every lower-precedence hook of the same dispatch has finished.
    pub sequential: bool,
    /// `async: true`: an observer command hook the dispatch does not wait for; it still runs under every bound of a
    /// run, and its receipt is written when it ends (see `docs/observability.md`).
    pub run_async: bool,
    /// A disabled hook is loaded, hashed, shown, never run.
    pub enabled: bool,
    /// Whose input/output rules it follows.
    pub protocol: Protocol,
    /// The resolved failure policy.
    pub on_error: OnError,
    /// What it does.
    pub spec: HookSpec,
    /// The content hash (docs/declarations.md#content-hash): 16 lowercase hex characters.
    pub hash: String,
}

impl HookDecl {
    /// The declaration's kind.
    pub fn kind(&self) -> HookKind {
        self.spec.kind()
    }

    /// Whether the hook can widen what the agent does, and so needs trust when it comes from a non-trusted origin:
    /// every command, http and policy hook (their answer may allow); a prompt hook (it injects a reminder); an
    /// effect hook whose effect widens.
    pub fn can_widen(&self) -> bool {
        match &self.spec {
            HookSpec::Command(_) | HookSpec::Http(_) | HookSpec::Policy(_) => true,
            HookSpec::Prompt { .. } => true,
            HookSpec::Effect(effect) => effect.widens(),
            HookSpec::Evaluated(_) => true,
        }
    }
}

/// How serious an [`Issue`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueSeverity {
    /// Worth a look; nothing was dropped.
    Warning,
    /// Something was dropped or refused; a strict load fails.
    Error,
}

/// One problem found while loading (docs/declarations.md#errors-and-closed-gates): never a panic, never a lost sibling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issue {
    /// The file it is about.
    pub source: PathBuf,
    /// The hook's index in that file, if it is about one hook.
    pub index: Option<usize>,
    /// The hook's id, when known.
    pub hook_id: Option<String>,
    /// The field path (`hooks[3].timeout_ms`), if it is about one field.
    pub field: Option<String>,
    /// 1-based line, where the parser gives one.
    pub line: Option<usize>,
    /// 1-based column, where the parser gives one.
    pub column: Option<usize>,
    /// Error or warning.
    pub severity: IssueSeverity,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Issue {
    /// `file:line:column: severity: message`, or `file: severity: message` where no position is known; the field
    /// path prefixes the message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.source.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        let severity = match self.severity {
            IssueSeverity::Error => "error",
            IssueSeverity::Warning => "warning",
        };
        write!(f, ": {severity}: ")?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// A hook's trust status (docs/trust.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrustStatus {
    /// From the managed origin: policy, always runs.
    Managed,
    /// From a trusted origin (user), or its fingerprint is in the trust store, or it needs no trust (a prompt or
    /// effect hook that only narrows).
    Trusted,
    /// From a non-trusted origin and not in the trust store: skipped with an `untrusted` receipt.
    Untrusted,
    /// This id was trusted with another fingerprint (the script changed): skipped like `Untrusted`.
    Modified,
}

impl TrustStatus {
    /// Whether a hook with this status may run.
    pub fn allows_run(self) -> bool {
        matches!(self, TrustStatus::Managed | TrustStatus::Trusted)
    }
}

/// One file a command names, as it was when fingerprinted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FingerprintFile {
    /// The file, canonical.
    pub path: PathBuf,
    /// sha256 of its contents, hex.
    pub sha256: String,
    /// Its size in bytes when hashed.
    pub size: u64,
    /// Its modification time when hashed, in nanoseconds since the Unix epoch (0 where unknown).
    pub mtime_ns: u128,
    /// Its status-change time (ctime) when hashed, in nanoseconds since the Unix epoch: unlike the modification
    /// time, no user can set it back, so an edit that restores the modification time still changes it. Not
    /// serialized: it says nothing about what runs.
    #[serde(default, skip_serializing)]
    pub ctime_ns: i128,
    /// Its inode number when hashed: a file renamed over it (`mv prepared guard.sh`) is another inode. Not
    /// serialized.
    #[serde(default, skip_serializing)]
    pub inode: u64,
}

/// What runs, pinned (docs/trust.md): the content hash plus the sha256 of every file the command names that resolves
/// to a regular file under the workspace or the hook's origin root.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fingerprint {
    /// sha256 (hex) over the hash and every file's path and digest: the value the trust store keys on.
    pub value: String,
    /// The files covered, sorted by path.
    pub files: Vec<FingerprintFile>,
}

/// A declaration after merge and trust: what a pipeline's user tier is built from.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedHook {
    /// The declaration.
    pub decl: HookDecl,
    /// Its trust status.
    pub trust: TrustStatus,
    /// Its fingerprint at load time (`None` for prompt and effect hooks, which name no files).
    pub fingerprint: Option<Fingerprint>,
    /// `false` when `only_managed` keeps a non-managed hook from running (it is still shown).
    pub allowed_by_policy: bool,
    /// Whether its origin was trusted in this load (docs/trust.md#origins, docs/trust.md): the managed origin always; the user origin
    /// unless its config home lies inside the workspace ([`Config::user_trusted`](crate::Config::user_trusted));
    /// extension, project and project.local never. A hook from an origin that was not trusted runs only on a
    /// fingerprint someone trusted, which a later edit can make stale, so a pipeline re-checks its fingerprint
    /// before every run; a trusted origin's hooks run on the origin's trust and are not re-checked.
    pub origin_trusted: bool,
}

impl LoadedHook {
    /// Whether the pipeline may run it: enabled, allowed by policy, and trusted (or managed).
    pub fn runnable(&self) -> bool {
        self.decl.enabled && self.allowed_by_policy && self.trust.allows_run()
    }
}
