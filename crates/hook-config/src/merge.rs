//! The precedence merge (docs/trust.md#origins).
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
    /// What became of each hook, by its position in precedence order.
    #[derive(Clone, Copy)]
    enum Fate {
        InForce,
        /// Displaced by a later hook of the same id.
        Overridden,
        /// Tried to displace the trusted hook at this position, which stays.
        Shadowing(usize),
    }
    let mut fates = vec![Fate::InForce; hooks.len()];
    // id → position of the hook currently in force for it; borrows the ids, so nothing is cloned or moved yet.
    let mut in_force: HashMap<&str, usize> = HashMap::with_capacity(hooks.len());
    for (at, hook) in hooks.iter().enumerate() {
        let Some(current) = in_force.get_mut(hook.decl.id.as_str()) else {
            in_force.insert(hook.decl.id.as_str(), at);
            continue;
        };
        let protected = origin_trusted(hooks[*current].decl.origin) && !origin_trusted(hook.decl.origin);
        if protected && !in_store(hook) {
            fates[at] = Fate::Shadowing(*current);
        } else {
            fates[*current] = Fate::Overridden;
            *current = at;
        }
    }
    // Every loser points at the hook finally in force for its id, not at whichever hook beat it first.
    let winner_of = |hook: &LoadedHook| {
        let winner = &hooks[in_force[hook.decl.id.as_str()]].decl;
        (winner.source.clone(), winner.origin)
    };
    // What the losers need from other hooks, taken before any hook is moved: one entry per loser, in precedence
    // order, consumed in the same order below (a slot per hook would be a large, mostly empty allocation).
    let mut winners: Vec<(PathBuf, Origin)> = Vec::new();
    let mut kept: Vec<LoadedHook> = Vec::new();
    for (at, fate) in fates.iter().enumerate() {
        match *fate {
            Fate::Overridden => winners.push(winner_of(&hooks[at])),
            Fate::Shadowing(trusted) => kept.push(hooks[trusted].clone()),
            Fate::InForce => {}
        }
    }
    drop(in_force);

    let (mut winners, mut kept) = (winners.into_iter(), kept.into_iter());
    // The hooks in force stay where they are, in order; only the others are taken out, in order (a second list of
    // every hook was ≈ 50 MB more at 100 000 hooks, all of it copied).
    let mut hooks = hooks;
    let mut position = 0;
    let losers: Vec<LoadedHook> = hooks
        .extract_if(.., |_| {
            let lost = !matches!(fates[position], Fate::InForce);
            position += 1;
            lost
        })
        .collect();
    let mut merged = Merged { hooks, ..Merged::default() };
    let lost_fates = fates.iter().filter(|fate| !matches!(fate, Fate::InForce));
    for (fate, hook) in lost_fates.zip(losers) {
        match *fate {
            // Never: only the hooks not in force were taken out.
            Fate::InForce => {}
            Fate::Overridden => {
                let (winner_source, winner_origin) = winners.next().expect("one per overridden hook");
                merged.overridden.push(Overridden { hook, winner_source, winner_origin });
            }
            Fate::Shadowing(_) => {
                let kept = kept.next().expect("one per shadowing hook");
                merged.shadowed.push(ShadowAttempt { id: hook.decl.id.clone(), kept, attempted: hook });
            }
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use hook_types::{Effect, Event, EventFilters, OnError, Protocol};

    use super::*;
    use crate::model::{Format, HookDecl, HookSpec, TrustStatus};

    fn hook(id: &str, origin: Origin, source: &str, trust: TrustStatus) -> LoadedHook {
        let decl = HookDecl {
            id: id.to_owned(),
            origin,
            source: PathBuf::from(source),
            format: Format::Native,
            index: 0,
            root: PathBuf::from("/ws"),
            event: Event::PreTool,
            filters: EventFilters::default(),
            tools: None,
            matcher: None,
            condition: None,
            command: None,
            sequential: false,
            run_async: false,
            enabled: true,
            protocol: Protocol::Native,
            on_error: OnError::Deny,
            spec: HookSpec::Effect(Effect::AllowTool { reason: None }),
            hash: format!("{source}-hash"),
        };
        let origin_trusted = origin.trusted_by_default();
        LoadedHook { decl, trust, fingerprint: None, allowed_by_policy: true, origin_trusted }
    }

    fn sources(hooks: &[LoadedHook]) -> Vec<&Path> {
        hooks.iter().map(|h| h.decl.source.as_path()).collect()
    }

    /// The trust-aware rule, over hand-built hooks: `trusted_sources` stands in for the trust store.
    fn check(hooks: Vec<LoadedHook>, trusted_sources: &[&str]) -> Merged {
        merge(
            hooks,
            |o| matches!(o, Origin::User | Origin::Managed),
            |h| trusted_sources.iter().any(|s| h.decl.source == Path::new(s)),
        )
    }

    #[test]
    fn an_untrusted_project_hook_cannot_displace_a_user_hook_until_trusted() {
        let input = || {
            vec![
                hook("a", Origin::User, "user", TrustStatus::Trusted),
                hook("b", Origin::User, "user-b", TrustStatus::Trusted),
                hook("a", Origin::Project, "project", TrustStatus::Untrusted),
            ]
        };
        let merged = check(input(), &[]);
        assert_eq!(sources(&merged.hooks), [Path::new("user"), Path::new("user-b")]);
        assert!(merged.overridden.is_empty());
        assert_eq!(merged.shadowed.len(), 1);
        assert_eq!(merged.shadowed[0].kept.decl.source, Path::new("user"));
        assert_eq!(merged.shadowed[0].attempted.decl.source, Path::new("project"));

        let merged = check(input(), &["project"]);
        assert_eq!(sources(&merged.hooks), [Path::new("user-b"), Path::new("project")]);
        assert!(merged.shadowed.is_empty());
        assert_eq!(merged.overridden[0].hook.decl.source, Path::new("user"));
        assert_eq!(merged.overridden[0].winner_source, Path::new("project"));
    }

    #[test]
    fn every_loser_points_at_the_hook_finally_in_force() {
        let merged = check(
            vec![
                hook("a", Origin::Extension, "ext", TrustStatus::Untrusted),
                hook("a", Origin::User, "user", TrustStatus::Trusted),
                hook("a", Origin::Managed, "managed", TrustStatus::Managed),
            ],
            &[],
        );
        assert_eq!(sources(&merged.hooks), [Path::new("managed")]);
        let losers: Vec<_> =
            merged.overridden.iter().map(|o| (o.hook.decl.source.as_path(), o.winner_origin)).collect();
        assert_eq!(losers, [(Path::new("ext"), Origin::Managed), (Path::new("user"), Origin::Managed)]);
        assert!(merged.overridden.iter().all(|o| o.winner_source == Path::new("managed")));
    }

    #[test]
    fn between_non_trusted_origins_the_higher_one_wins_without_trust() {
        let merged = check(
            vec![
                hook("a", Origin::Project, "project", TrustStatus::Trusted),
                hook("a", Origin::ProjectLocal, "local", TrustStatus::Untrusted),
            ],
            &[],
        );
        assert_eq!(sources(&merged.hooks), [Path::new("local")]);
        assert_eq!(merged.overridden[0].winner_origin, Origin::ProjectLocal);
    }
}
