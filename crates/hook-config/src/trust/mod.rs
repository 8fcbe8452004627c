//! The trust store and trust statuses (docs/trust.md).
//!
//! Policy, as enforced here: hooks from the managed origin are `managed`; hooks from a trusted origin (the user's
//! config home, unless it lies inside the workspace) are `trusted`. From a non-trusted origin (extension, project,
//! project.local) a hook that can widen what the agent does — every command hook, every prompt hook, an effect hook
//! whose effect widens — runs only if the store holds its fingerprint for this (canonical workspace, hook id):
//! `trusted`; the same id with another fingerprint is `modified`; no entry is `untrusted`. A prompt or effect hook
//! that only narrows needs no trust.
//!
//! The store ([`TrustStore`]) is `<config home>/trusted.json`; the managed file's own integrity is checked in
//! `policy`.

mod policy;
mod store;

use std::path::Path;

use crate::model::{Fingerprint, HookDecl, TrustStatus};

pub(crate) use policy::managed_file_issue;
pub use store::{TrustError, TrustRecord, TrustStore};

/// The value the store records for a hook: its fingerprint's value, or its content hash when it has no fingerprint
/// (prompt and effect hooks name no files).
pub fn trust_value<'a>(decl: &'a HookDecl, fingerprint: Option<&'a Fingerprint>) -> &'a str {
    fingerprint.map_or(decl.hash.as_str(), |fp| fp.value.as_str())
}

/// A hook's trust status (docs/trust.md; the policy is in this module's documentation).
///
/// `origin_trusted` says whether the hook's origin is trusted here: the managed origin always, the user origin
/// unless its config home lies inside the workspace. `fingerprint` is the hook's fingerprint (`None` for prompt and
/// effect hooks, which are keyed by their content hash); `workspace` is canonical.
pub fn trust_status(
    decl: &HookDecl,
    fingerprint: Option<&Fingerprint>,
    store: &TrustStore,
    workspace: &Path,
    origin_trusted: bool,
) -> TrustStatus {
    if decl.origin == hook_types::Origin::Managed {
        return TrustStatus::Managed;
    }
    if origin_trusted || !decl.can_widen() {
        return TrustStatus::Trusted;
    }
    match store.trusted_fingerprint(workspace, &decl.id) {
        Some(trusted) if trusted == trust_value(decl, fingerprint) => TrustStatus::Trusted,
        Some(_) => TrustStatus::Modified,
        None => TrustStatus::Untrusted,
    }
}
