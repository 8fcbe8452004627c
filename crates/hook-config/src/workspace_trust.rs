//! Trusting the workspace's own hooks for one load, in memory (docs/trust.md#what-needs-trust, for demos and CI; a
//! host's "trust this workspace for this session"): [`LoadOptions::trust_workspace`](crate::LoadOptions).
//!
//! It acts where trust acts on a real load, so the result is what trusting every such hook with `hook trust` would
//! give, without writing the trust store: each project and project.local hook that would wait for trust (untrusted,
//! or modified since it was trusted) is trusted, and the merge counts each as in the trust store, so one that tries
//! to displace a trusted origin's hook of the same id displaces it — in the merge's own precedence order, with the
//! merge's own bookkeeping of what was overridden by whom. Extension hooks are not the workspace's and stay as they
//! are.

use std::collections::HashSet;

use hook_types::Origin;

use crate::merge::Merged;
use crate::model::{LoadedHook, TrustStatus};

/// Whether the in-memory trust covers hooks of `origin`: the workspace's own origins.
pub(crate) fn covers(origin: Origin) -> bool {
    matches!(origin, Origin::Project | Origin::ProjectLocal)
}

/// The trust status of a covered hook under the in-memory trust: one that would wait for trust runs.
pub(crate) fn raise(trust: TrustStatus) -> TrustStatus {
    if trust.allows_run() { trust } else { TrustStatus::Trusted }
}

/// How many hooks in force owe being in force, or runnable, to the in-memory trust alone: covered, not in the trust
/// store, and either needing trust to run or having displaced a trusted origin's hook (which needs the store).
pub(crate) fn count(
    merged: &Merged,
    in_store: impl Fn(&LoadedHook) -> bool,
    origin_trusted: impl Fn(Origin) -> bool,
) -> usize {
    // Ids whose trusted-origin hook lost to a covered hook: a displacement only the store (or this) allows.
    let displaced: HashSet<&str> = merged
        .overridden
        .iter()
        .filter(|o| origin_trusted(o.hook.decl.origin) && covers(o.winner_origin))
        .map(|o| o.hook.decl.id.as_str())
        .collect();
    merged
        .hooks
        .iter()
        .filter(|hook| covers(hook.decl.origin) && !in_store(hook))
        .filter(|hook| hook.decl.can_widen() || displaced.contains(hook.decl.id.as_str()))
        .count()
}
