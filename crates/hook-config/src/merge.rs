//! The precedence merge (DESIGN §4.2).
//!
//! Hooks arrive in precedence order (ascending origin; within an origin the native file, then claude, codex, gemini,
//! cursor, mecha, clio; within a file declaration order), and the id is the merge key. On a collision the later
//! (higher-precedence) hook wins and the earlier one is `overridden` — except that a hook from a non-trusted origin
//! displaces a hook from a trusted origin only once the displacing hook is itself in the trust store. Until then the
//! trusted hook stays in force, at its own place in the order, and the attempt is reported as a [`ShadowAttempt`].
//!
//! "In the trust store" is deliberately stricter than "may run untrusted": a narrowing effect hook needs no trust to
//! run, but taking the id of a user's guard would *remove* that guard, which is a widening; so displacing needs the
//! user's explicit trust of the displacing hook.

use std::collections::HashMap;
use std::path::PathBuf;

use hook_types::Origin;

use crate::model::LoadedHook;

/// A hook that lost an id collision to a higher-precedence hook.
#[derive(Debug, Clone, PartialEq)]
pub struct Overridden {
    /// The hook that lost.
    pub hook: LoadedHook,
    /// The file of the hook now in force for this id.
    pub winner_source: PathBuf,
    /// The origin of the hook now in force for this id.
    pub winner_origin: Origin,
}

/// A hook from a non-trusted origin that tried to displace a trusted origin's hook with the same id before being
/// trusted itself. The trusted hook stays in force; trusting `attempted` (`hook trust <id>`) lets it win.
#[derive(Debug, Clone, PartialEq)]
pub struct ShadowAttempt {
    /// The id both hooks declare.
    pub id: String,
    /// The trusted origin's hook, which stays in force.
    pub kept: LoadedHook,
    /// The non-trusted origin's hook that tried to displace it; it does not run.
    pub attempted: LoadedHook,
}

impl ShadowAttempt {
    /// One line for humans: who tried to displace whom, and what stays in force.
    pub fn message(&self) -> String {
        format!(
            "{} hook `{}` in {} tries to replace the {} hook of the same id in {}; the {} hook stays in force until \
             the {} hook is trusted",
            self.attempted.decl.origin,
            self.id,
            self.attempted.decl.source.display(),
            self.kept.decl.origin,
            self.kept.decl.source.display(),
            self.kept.decl.origin,
            self.attempted.decl.origin,
        )
    }
}

/// What a merge produced.
#[derive(Debug, Default)]
pub(crate) struct Merged {
    pub hooks: Vec<LoadedHook>,
    pub overridden: Vec<Overridden>,
    pub shadowed: Vec<ShadowAttempt>,
}

/// Merges hooks given in precedence order. `origin_trusted` says which origins are trusted here; `in_store` says
/// whether a hook's exact fingerprint is in the trust store.
pub(crate) fn merge(
    hooks: Vec<LoadedHook>,
    origin_trusted: impl Fn(Origin) -> bool,
    in_store: impl Fn(&LoadedHook) -> bool,
) -> Merged {
    // Slots keep the precedence order; a displaced hook leaves a hole, and the winner takes its own later slot.
    let mut slots: Vec<Option<LoadedHook>> = Vec::with_capacity(hooks.len());
    let mut by_id: HashMap<String, usize> = HashMap::with_capacity(hooks.len());
    let mut losers: Vec<LoadedHook> = Vec::new();
    let mut shadowed = Vec::new();
    for hook in hooks {
        let Some(&at) = by_id.get(hook.decl.id.as_str()) else {
            by_id.insert(hook.decl.id.clone(), slots.len());
            slots.push(Some(hook));
            continue;
        };
        let current = slots[at].as_ref().expect("an indexed slot holds its hook");
        let protected = origin_trusted(current.decl.origin) && !origin_trusted(hook.decl.origin);
        if protected && !in_store(&hook) {
            shadowed.push(ShadowAttempt { id: hook.decl.id.clone(), kept: current.clone(), attempted: hook });
            continue;
        }
        losers.push(slots[at].take().expect("an indexed slot holds its hook"));
        by_id.insert(hook.decl.id.clone(), slots.len());
        slots.push(Some(hook));
    }
    let hooks: Vec<LoadedHook> = slots.into_iter().flatten().collect();
    // Point every loser at the hook finally in force for its id, not at whichever hook beat it first.
    let winners: HashMap<&str, &LoadedHook> = hooks.iter().map(|h| (h.decl.id.as_str(), h)).collect();
    let overridden = losers
        .into_iter()
        .map(|hook| {
            let winner = winners[hook.decl.id.as_str()];
            Overridden { winner_source: winner.decl.source.clone(), winner_origin: winner.decl.origin, hook }
        })
        .collect();
    Merged { hooks, overridden, shadowed }
}
