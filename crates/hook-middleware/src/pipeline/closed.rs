//! Closed gates in the user tier: a gate whose declaration could not be read answers deny, in every host that builds
//! its pipeline from the loaded configuration.
//!
//! For each gate that [`hook_config::Config::closed_gates`] (or a hook the table itself drops) leaves without its
//! guard, the user tier gets one synthesized declaration, `config-error.<gate>`: an effect hook that blocks with the
//! reason `the hook configuration has errors: <file>:<line>:<col>: <message> (run hook validate)`. It sits at the
//! top of the user tier's precedence, so its deny is the one the verdict carries and every user hook below it is
//! cancelled: nothing a readable hook allows outweighs a guard that could not be read. The guards (fixed and host
//! tiers) still run first. It needs no trust (it only narrows) and it is never disabled: it goes away when the file
//! is fixed and the configuration loaded again.

use std::path::PathBuf;

use hook_config::{ClosedGate, GATES, HookDecl, HookSpec, LoadedHook, TrustStatus};
use hook_types::{Effect, Event, EventFilters, HardBlock, OnError, Protocol};

/// The id of the declaration that denies `gate`, reserved in the table: a declared hook that takes it is dropped.
pub(crate) fn id_for(gate: &Event) -> String {
    format!("config-error.{gate}")
}

/// One denying declaration per gate that `closed` closes, in the order of [`GATES`].
pub(crate) fn deny_hooks(closed: &[ClosedGate]) -> Vec<LoadedHook> {
    GATES
        .iter()
        .filter_map(|gate| {
            let mut closing = closed.iter().filter(|c| c.closes(gate));
            let first = closing.next()?;
            let more = closing.count();
            Some(deny_hook(gate, first, more))
        })
        .collect()
}

/// The reason a closed gate answers with: the first unreadable declaration's, and how many more there are.
fn reason(first: &ClosedGate, more: usize) -> String {
    if more == 0 {
        first.reason()
    } else {
        format!("the hook configuration has errors: {} (and {more} more; run hook validate)", first.location())
    }
}

fn deny_hook(gate: &Event, first: &ClosedGate, more: usize) -> LoadedHook {
    let reason = reason(first, more);
    let effect = match gate {
        Event::TurnStart => Effect::BlockTurn { reason },
        _ => Effect::BlockTool { reason, severity: HardBlock::HardBlock },
    };
    let source = first.issue.source.clone();
    let mut decl = HookDecl {
        id: id_for(gate),
        origin: first.origin,
        root: source.parent().map_or_else(PathBuf::new, ToOwned::to_owned),
        source,
        format: Protocol::Native,
        index: first.issue.index.unwrap_or(0),
        event: gate.clone(),
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
        spec: HookSpec::Effect(effect),
        hash: String::new(),
    };
    decl.hash = hook_config::content_hash(&decl);
    LoadedHook { decl, trust: TrustStatus::Trusted, fingerprint: None, allowed_by_policy: true, origin_trusted: true }
}
