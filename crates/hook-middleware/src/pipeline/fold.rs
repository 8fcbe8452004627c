//! The folds and the conflict rules (docs/effects.md#verdicts). This is where the policy is enforced:
//!
//! **Order.** Records are read guards first (fixed, then host), then user hooks in precedence order, lowest first;
//! "highest precedence" is the last. Nothing here depends on when a hook finished.
//!
//! **Cancellation** (applied before folding, in the dispatcher): once a user hook denies, every user hook of lower
//! precedence is `cancelled` and its results discarded, even if it had finished. So the surviving records are the
//! highest-precedence deny and everything above it, and the outcome never depends on timing.
//!
//! **Conflicts**, in this order:
//! 1. Several `rewrite_tool_input`: the highest-precedence one wins; every other is dropped with a Warning entry on
//!    its hook.
//! 2. An `allow_tool` (or an allow decision) from a hook other than the one whose rewrite won is downgraded to pass,
//!    with a Warning entry: no hook approved the input that will actually run. The winning rewriter's own allow
//!    stands.
//! 3. The verdict:
//!    - gates (turn_start, pre_tool), the **gate fold**: any deny (a `halt` arrives as a deny) → deny; else any ask
//!      → ask; else any allow → allow; else pass. turn_start knows only deny and pass.
//!    - permission_request, the **permission fold** (Codex's rule): any deny → deny; else any allow → allow; else
//!      none. An ask is no decision there: the host asks the human anyway.
//!    - every other event: pass (their effects accumulate).
//!
//!    The reason shown is the highest-precedence deny's; the other denials become Feedback entries on their hooks.
//! 4. A deny drops every `rewrite_tool_input` and `allow_tool` from the result.
//!
//! The guards' re-check of the winning rewrite and the dispatch deadline's fail-closed rule are applied by the
//! dispatcher on top of this fold.

use hook_types::{Decision, Effect, EntryKind, Event, EventClass, Verdict, gate_fold, permission_fold};

use super::record::Record;
use super::result::empty_verdict;

/// The folded outcome, before the guards' re-check.
#[derive(Debug)]
pub(crate) struct Folded {
    pub verdict: Verdict,
    pub reason: Option<String>,
    /// Where the winning rewrite came from (index into the folded records), if any survived.
    pub rewrite_from: Option<usize>,
}

/// Applies the conflict rules to `records` (in fold order) and folds their decisions.
pub(crate) fn fold(event: &Event, records: &mut [&mut Record]) -> Folded {
    let rewrites: Vec<usize> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.effects.iter().any(|e| matches!(e, Effect::RewriteToolInput { .. })))
        .map(|(i, _)| i)
        .collect();
    let winner = rewrites.last().copied();
    if let Some(winner) = winner {
        let winner_id = records[winner].meta.hook_id.clone();
        // Within the winning hook, its own last rewrite wins too.
        keep_last_rewrite(records[winner]);
        for &loser in &rewrites[..rewrites.len() - 1] {
            records[loser].effects.retain(|e| !matches!(e, Effect::RewriteToolInput { .. }));
            records[loser].entry(
                EntryKind::Warning,
                format!(
                    "its rewrite_tool_input was dropped: `{winner_id}` has higher precedence and also rewrote the input"
                ),
            );
        }
        for (i, record) in records.iter_mut().enumerate() {
            if i != winner {
                record.drop_allow(&format!("`{winner_id}` rewrote the input, so no hook approved what will run"));
            }
        }
    }

    let decisions: Vec<Decision> = records.iter().map(|r| r.decision.clone()).collect();
    let outcome = match event {
        Event::PermissionRequest => Some(permission_fold(&decisions)),
        e if e.class() == EventClass::Gate => Some(gate_fold(&decisions)),
        _ => None,
    };
    let Some(outcome) = outcome else {
        return Folded { verdict: empty_verdict(event), reason: None, rewrite_from: winner };
    };
    for (i, reason) in &outcome.other_denials {
        records[*i].entry(EntryKind::Feedback, format!("also denied (a higher-precedence deny is shown): {reason}"));
    }
    let (verdict, reason) = match (event, outcome.verdict) {
        // turn_start has no approver to ask or skip: only a block counts.
        (Event::TurnStart, Verdict::Ask | Verdict::Allow) => (Verdict::Pass, None),
        (_, verdict) => (verdict, outcome.reason),
    };
    if verdict == Verdict::Deny {
        drop_widening(records);
        return Folded { verdict, reason, rewrite_from: None };
    }
    Folded { verdict, reason, rewrite_from: winner }
}

/// A deny drops every rewrite and allow.
pub(crate) fn drop_widening(records: &mut [&mut Record]) {
    for record in records.iter_mut() {
        record.effects.retain(|e| !matches!(e, Effect::RewriteToolInput { .. } | Effect::AllowTool { .. }));
    }
}

fn keep_last_rewrite(record: &mut Record) {
    let count = record.effects.iter().filter(|e| matches!(e, Effect::RewriteToolInput { .. })).count();
    let mut seen = 0;
    record.effects.retain(|e| {
        if matches!(e, Effect::RewriteToolInput { .. }) {
            seen += 1;
            seen == count
        } else {
            true
        }
    });
}
