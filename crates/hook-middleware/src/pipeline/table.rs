//! The registration table: the guard tiers (fixed, then host), fixed for the pipeline's life, and the user tier,
//! replaced as one unit under an increasing generation.
//!
//! A dispatch takes the current table with one pointer load (an `Arc` clone under a read lock held for that clone
//! only) and keeps it to the end, so a reload during a dispatch never changes what that dispatch runs; the next
//! dispatch sees the new table. The three tiers share one id namespace: a user hook that takes a fixed or host id is
//! dropped with an error-level issue, and so is a second user hook with an id already taken.

use std::collections::HashSet;
use std::slice;
use std::sync::Arc;

use hook_config::{HookDecl, HookSpec, Issue, IssueSeverity, LoadedHook, TrustStatus};
use hook_types::Event;
use serde::Serialize;

use super::registration::{Filter, Registration, Tier};
use super::routing::{Index, Routable};

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

    /// Prompt and effect declarations run in process, before every command hook.
    pub(crate) fn in_process(&self) -> bool {
        !matches!(self.hook.decl.spec, HookSpec::Command(_))
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
}

impl Table {
    /// Builds a generation: drops user hooks whose id a guard or an earlier user hook already took.
    pub(crate) fn new(generation: u64, guards: Arc<Guards>, hooks: Vec<LoadedHook>) -> Table {
        let mut taken: HashSet<String> = HashSet::new();
        let mut issues = Vec::new();
        let mut user = Vec::with_capacity(hooks.len());
        for hook in hooks {
            let decl = &hook.decl;
            if let Some(guard) = guards.list.iter().find(|g| g.registration.id == decl.id) {
                issues.push(id_issue(
                    decl,
                    format!(
                        "hook id `{}` is already taken by a {} registration of the host; ids are one namespace \
                         across the fixed, host and user tiers, so this hook is dropped: give it another `id`",
                        decl.id, guard.tier
                    ),
                ));
                continue;
            }
            if !taken.insert(decl.id.clone()) {
                issues.push(id_issue(
                    decl,
                    format!("hook id `{}` appears twice in the user tier; this later copy is dropped", decl.id),
                ));
                continue;
            }
            let filter = Filter {
                tools: decl.tools.clone(),
                protocol: decl.protocol,
                matcher: decl.matcher.clone(),
                only_errors: decl.filters.only_errors,
                scope: decl.filters.scope,
            };
            let skip = SkipReason::of(&hook);
            user.push(UserHook { hook, skip, filter });
        }
        let user_index = Index::build(&user);
        Table { generation, guards, user, user_index, issues }
    }
}

fn id_issue(decl: &HookDecl, message: String) -> Issue {
    Issue {
        source: decl.source.clone(),
        index: Some(decl.index),
        hook_id: Some(decl.id.clone()),
        field: Some(format!("hooks[{}].id", decl.index)),
        line: None,
        column: None,
        severity: IssueSeverity::Error,
        message,
    }
}
