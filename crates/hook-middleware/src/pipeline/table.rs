//! The registration table: the guard tiers (fixed, then host), fixed for the pipeline's life, and the user tier,
//! replaced as one unit under an increasing generation.
//!
//! A dispatch takes the current table with one pointer load (an `Arc` clone under a read lock held for that clone
//! only) and keeps it to the end, so a reload during a dispatch never changes what that dispatch runs; the next
//! dispatch sees the new table. The three tiers share one id namespace: a user hook that takes a fixed or host id is
//! dropped with an error-level issue, and so is a second user hook with an id already taken.
//!
//! The user tier is built from a [`UserTier`]: the loaded hooks and the gates their configuration left closed. Each
//! closed gate — and each gate a hook dropped here was on — gets a declaration that denies it, above every user hook
//! (see the `closed` module).

use std::collections::HashSet;
use std::slice;
use std::sync::Arc;

use hook_config::{ClosedGate, Config, HookDecl, HookSpec, Issue, IssueSeverity, LoadedHook, TrustStatus};
use hook_types::{Effect, Event, HookKind, Origin};
use serde::Serialize;

use super::closed;
use super::registration::{Filter, Registration, Tier};
use super::routing::{Index, Routable};

/// What a pipeline's user tier is built from: the loaded hooks, in precedence order, and the gates whose
/// declarations could not be read ([`Config::closed_gates`]), each of which the pipeline answers with a deny.
///
/// Build it from the whole [`Config`] (`&config` or `config`), not from `config.hooks` alone: a host that passes
/// only the hooks runs without the guards its configuration failed to declare. A bare `Vec<LoadedHook>` converts too,
/// for hooks that were not loaded from files.
///
/// ```
/// use hook_config::{Layout, LoadOptions, load};
/// use hook_middleware::pipeline::{Pipeline, UserTier};
/// use hook_middleware::EventInput;
/// use hook_types::{Event, Verdict};
///
/// let ws = tempfile::tempdir().unwrap();
/// let cfg = tempfile::tempdir().unwrap();
/// std::fs::create_dir(ws.path().join(".hooks")).unwrap();
/// // `reason` misspelt: the guard cannot be read, so pre_tool denies until the file is fixed.
/// std::fs::write(
///     ws.path().join(".hooks/hooks.yaml"),
///     "- {on: pre_tool, kind: effect, effect: {kind: block_tool, reasn: no force pushes}}\n",
/// )
/// .unwrap();
/// let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None)
///     .with_managed_file(cfg.path().join("none.yaml"));
/// let config = load(&layout, &LoadOptions::default()).unwrap();
/// let tier = UserTier::from(&config);
/// assert_eq!((tier.hooks.len(), tier.closed_gates.len()), (0, 1));
///
/// let pipeline = Pipeline::builder().workspace(ws.path()).user_hooks(&config).build().unwrap();
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "ls"}));
/// let result = rt.block_on(pipeline.dispatch(&input));
/// assert_eq!(result.verdict, Verdict::Deny);
/// let reason = result.reason.unwrap();
/// assert!(reason.starts_with("the hook configuration has errors: ") && reason.ends_with(" (run hook validate)"));
/// // Other gates are open: the broken declaration was on pre_tool.
/// let result = rt.block_on(pipeline.dispatch(&EventInput::new(Event::TurnStart)));
/// assert_eq!(result.verdict, Verdict::Pass);
/// ```
#[derive(Debug, Clone, Default)]
pub struct UserTier {
    /// The loaded hooks, in precedence order.
    pub hooks: Vec<LoadedHook>,
    /// The gates to deny, in precedence order.
    pub closed_gates: Vec<ClosedGate>,
}

impl From<Vec<LoadedHook>> for UserTier {
    fn from(hooks: Vec<LoadedHook>) -> UserTier {
        UserTier { hooks, closed_gates: Vec::new() }
    }
}

impl From<&Config> for UserTier {
    fn from(config: &Config) -> UserTier {
        UserTier { hooks: config.hooks.clone(), closed_gates: config.closed_gates.clone() }
    }
}

impl From<Config> for UserTier {
    fn from(config: Config) -> UserTier {
        UserTier { hooks: config.hooks, closed_gates: config.closed_gates }
    }
}

/// Why a matching user hook does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// `enabled: false`: loaded, hashed, shown, never run.
    Disabled,
    /// `only_managed: true` in the managed file keeps every other origin from running.
    OnlyManaged,
    /// From a non-trusted origin and not in the trust store.
    Untrusted,
    /// Trusted once with another fingerprint: what it runs changed.
    Modified,
}

impl SkipReason {
    /// The run status a skip is reported with: `skipped` or `untrusted`.
    pub fn status(self) -> hook_types::RunStatus {
        match self {
            SkipReason::Disabled | SkipReason::OnlyManaged => hook_types::RunStatus::Skipped,
            SkipReason::Untrusted | SkipReason::Modified => hook_types::RunStatus::Untrusted,
        }
    }

    /// A sentence for the run summary's entry.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::Disabled => "not run: the hook is disabled (`enabled: false`)",
            SkipReason::OnlyManaged => "not run: `only_managed: true` in the managed file allows managed hooks only",
            SkipReason::Untrusted => "not run: the hook is not trusted in this workspace (see `hook trust`)",
            SkipReason::Modified => {
                "not run: what the hook runs changed since it was trusted (see `hook trust` to trust it again)"
            }
        }
    }

    fn of(hook: &LoadedHook) -> Option<SkipReason> {
        if !hook.decl.enabled {
            Some(SkipReason::Disabled)
        } else if !hook.allowed_by_policy {
            Some(SkipReason::OnlyManaged)
        } else {
            match hook.trust {
                TrustStatus::Managed | TrustStatus::Trusted => None,
                TrustStatus::Untrusted => Some(SkipReason::Untrusted),
                TrustStatus::Modified => Some(SkipReason::Modified),
            }
        }
    }
}

/// A registration of the fixed or host tier.
pub(crate) struct Guard {
    pub tier: Tier,
    pub registration: Registration,
}

impl Routable for Guard {
    fn events(&self) -> &[Event] {
        &self.registration.events
    }
    fn filter(&self) -> &Filter {
        &self.registration.filter
    }
}

/// The guard tiers, built once.
pub(crate) struct Guards {
    /// Fixed registrations, then host ones, each in registration order.
    pub list: Vec<Guard>,
    pub index: Index,
}

impl Guards {
    pub(crate) fn new(fixed: Vec<Registration>, host: Vec<Registration>) -> Guards {
        let list: Vec<Guard> = fixed
            .into_iter()
            .map(|registration| Guard { tier: Tier::Fixed, registration })
            .chain(host.into_iter().map(|registration| Guard { tier: Tier::Host, registration }))
            .collect();
        let index = Index::build(&list);
        Guards { list, index }
    }
}

/// One user hook, with what loading decided about it.
pub(crate) struct UserHook {
    pub hook: LoadedHook,
    /// `Some` when it matches but must not run.
    pub skip: Option<SkipReason>,
    filter: Filter,
}

impl UserHook {
    pub(crate) fn decl(&self) -> &HookDecl {
        &self.hook.decl
    }

    /// Prompt, effect and policy declarations run in process, before every command and http hook.
    pub(crate) fn in_process(&self) -> bool {
        matches!(self.hook.decl.spec, HookSpec::Prompt { .. } | HookSpec::Effect(_) | HookSpec::Policy(_))
    }
}

impl Routable for UserHook {
    fn events(&self) -> &[Event] {
        slice::from_ref(&self.hook.decl.event)
    }
    fn filter(&self) -> &Filter {
        &self.filter
    }
}

/// One generation of the table.
pub(crate) struct Table {
    pub generation: u64,
    pub guards: Arc<Guards>,
    /// In precedence order, lowest first.
    pub user: Vec<UserHook>,
    pub user_index: Index,
    /// What building this generation dropped or noticed.
    pub issues: Vec<Issue>,
    /// How many of `user` deny a closed gate (they come last).
    pub closed: usize,
}

impl Table {
    /// Builds a generation: drops user hooks whose id a guard or an earlier user hook already took (a gate such a
    /// hook was on is closed like one whose declaration could not be read), then adds the declarations that deny
    /// the closed gates, above every user hook.
    pub(crate) fn new(generation: u64, guards: Arc<Guards>, tier: UserTier) -> Table {
        let UserTier { hooks, mut closed_gates } = tier;
        // The closed gates' ids are reserved: whatever the files hold, those declarations are this module's.
        let mut taken: HashSet<String> = hook_config::GATES.iter().map(closed::id_for).collect();
        let mut issues = Vec::new();
        let mut user = Vec::with_capacity(hooks.len() + hook_config::GATES.len());
        for hook in hooks {
            let decl = &hook.decl;
            let dropped = if let Some(guard) = guards.list.iter().find(|g| g.registration.id == decl.id) {
                format!(
                    "hook id `{}` is already taken by a {} registration of the host; ids are one namespace across \
                     the fixed, host and user tiers, so this hook is dropped: give it another `id`",
                    decl.id, guard.tier
                )
            } else if !taken.insert(decl.id.clone()) {
                format!("hook id `{}` appears twice in the user tier, or is reserved; this copy is dropped", decl.id)
            } else if let Some(kind) = unsupported(decl) {
                format!("{}, so this hook is dropped", hook_config::unsupported_kind(kind))
            } else {
                let filter = Filter {
                    tools: decl.tools.clone(),
                    protocol: decl.protocol,
                    matcher: decl.matcher.clone(),
                    condition: decl.condition.clone(),
                    command: decl.command.clone(),
                    only_errors: decl.filters.only_errors,
                    scope: decl.filters.scope,
                };
                let skip = SkipReason::of(&hook);
                user.push(UserHook { hook, skip, filter });
                continue;
            };
            let issue = table_issue(decl, dropped);
            if hook.runnable() && could_deny(decl) {
                closed_gates.extend(closed_gate(decl.origin, &decl.event, &issue));
            }
            issues.push(issue);
        }
        let deny = closed::deny_hooks(&closed_gates);
        let closed = deny.len();
        for hook in deny {
            let filter = Filter { protocol: hook.decl.protocol, ..Filter::default() };
            user.push(UserHook { hook, skip: None, filter });
        }
        let user_index = Index::build(&user);
        Table { generation, guards, user, user_index, issues, closed }
    }
}

/// Whether a declaration is a guard: a command (its answer may deny) or an effect that blocks, asks or narrows. A
/// prompt or a widening effect dropped here leaves no gate less guarded than it was.
fn could_deny(decl: &HookDecl) -> bool {
    match &decl.spec {
        HookSpec::Command(_) | HookSpec::Evaluated(_) | HookSpec::Http(_) | HookSpec::Policy(_) => true,
        HookSpec::Prompt { .. } => false,
        HookSpec::Effect(effect) => matches!(
            effect,
            Effect::BlockTool { .. }
                | Effect::BlockTurn { .. }
                | Effect::Halt { .. }
                | Effect::AskUser { .. }
                | Effect::ProtectPath { .. }
                | Effect::LockTools {}
        ),
    }
}

/// The gate a dropped runnable hook was on, closed by the issue that dropped it.
fn closed_gate(origin: Origin, event: &Event, issue: &Issue) -> Option<ClosedGate> {
    hook_config::is_gate(event).then(|| ClosedGate { events: vec![event.clone()], origin, issue: issue.clone() })
}

/// The kind of `decl` when this build of the pipeline cannot run it: an http hook without the `http` feature (the
/// loader rejects it too when hook-config lacks that feature; a host can turn on hook-config's alone).
fn unsupported(decl: &HookDecl) -> Option<HookKind> {
    let kind = decl.kind();
    (kind == HookKind::Http && !cfg!(feature = "http")).then_some(kind)
}

/// The issue that drops `decl` from the table: on its `kind` when the build cannot run that kind, else on its `id`.
fn table_issue(decl: &HookDecl, message: String) -> Issue {
    let field = if unsupported(decl).is_some() { "kind" } else { "id" };
    Issue {
        source: decl.source.clone(),
        index: Some(decl.index),
        hook_id: Some(decl.id.clone()),
        field: Some(format!("hooks[{}].{field}", decl.index)),
        line: None,
        column: None,
        severity: IssueSeverity::Error,
        message,
    }
}
