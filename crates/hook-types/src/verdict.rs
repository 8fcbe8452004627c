//! Verdicts and the pure folds of docs/effects.md#verdicts.
//!
//! Every fold reads per-hook decisions **in precedence order, lowest first**, so its outcome never depends on which
//! hook finished first. "Highest precedence" is the last entry.

use serde::{Deserialize, Serialize};

/// The outcome of one dispatch for the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The call or prompt is refused.
    Deny,
    /// The human approver must be asked.
    Ask,
    /// Explicitly allowed: skip the human approver.
    Allow,
    /// No objection; the host proceeds as it would without hooks.
    Pass,
    /// No decision (permission_request with no deciding hook).
    None,
}

impl Verdict {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Deny => "deny",
            Verdict::Ask => "ask",
            Verdict::Allow => "allow",
            Verdict::Pass => "pass",
            Verdict::None => "none",
        }
    }
}

/// What one hook decided about a gate or a permission request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Deny (a deny, a block, a `halt`, or a failure that `on_error: deny` turned into a deny).
    Deny {
        /// Why, as the hook said it.
        reason: String,
    },
    /// Ask the human.
    Ask {
        /// Why, if given.
        reason: Option<String>,
    },
    /// Explicitly allow.
    Allow {
        /// Why, if given.
        reason: Option<String>,
    },
    /// No opinion.
    Pass,
}

/// A fold's result: the verdict, the reason shown, and the reasons of the other denies (which become Feedback
/// entries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldOutcome {
    /// The verdict.
    pub verdict: Verdict,
    /// The reason shown: the highest-precedence deny's (or ask's, or allow's) reason.
    pub reason: Option<String>,
    /// Index (into the folded slice) of the decision whose reason is shown.
    pub deciding: Option<usize>,
    /// `(index, reason)` of every other deny, lowest precedence first.
    pub other_denials: Vec<(usize, String)>,
}

/// The gate fold (turn_start, pre_tool): any deny (a `halt` arrives here as a deny) → **deny**; else any ask →
/// **ask**; else any allow → **allow**; else **pass**. The reason shown is the highest-precedence deny's; the other
/// deny reasons are returned for Feedback entries.
///
/// ```
/// use hook_types::{gate_fold, Decision, Verdict};
/// let folded = gate_fold(&[
///     Decision::Allow { reason: None },
///     Decision::Deny { reason: "low".into() },
///     Decision::Deny { reason: "high".into() },
/// ]);
/// assert_eq!(folded.verdict, Verdict::Deny);
/// assert_eq!(folded.reason.as_deref(), Some("high"));
/// assert_eq!(folded.other_denials, vec![(1, "low".to_string())]);
/// ```
pub fn gate_fold(decisions: &[Decision]) -> FoldOutcome {
    if let Some(outcome) = fold_denials(decisions) {
        return outcome;
    }
    for (verdict, wanted) in [(Verdict::Ask, true), (Verdict::Allow, false)] {
        let found = decisions.iter().enumerate().rev().find_map(|(i, d)| match d {
            Decision::Ask { reason } if wanted => Some((i, reason)),
            Decision::Allow { reason } if !wanted => Some((i, reason)),
            _ => None,
        });
        if let Some((i, reason)) = found {
            return FoldOutcome { verdict, reason: reason.clone(), deciding: Some(i), other_denials: Vec::new() };
        }
    }
    FoldOutcome { verdict: Verdict::Pass, reason: None, deciding: None, other_denials: Vec::new() }
}

/// The permission fold (permission_request, Codex's rule): any deny → **deny**; else any allow → **allow**; else
/// **none**. An ask is no decision here: the host asks the human anyway.
///
/// ```
/// use hook_types::{permission_fold, Decision, Verdict};
/// assert_eq!(permission_fold(&[]).verdict, Verdict::None);
/// let two_allows = [Decision::Allow { reason: None }, Decision::Allow { reason: None }];
/// assert_eq!(permission_fold(&two_allows).verdict, Verdict::Allow);
/// ```
pub fn permission_fold(decisions: &[Decision]) -> FoldOutcome {
    if let Some(outcome) = fold_denials(decisions) {
        return outcome;
    }
    let allow = decisions.iter().enumerate().rev().find_map(|(i, d)| match d {
        Decision::Allow { reason } => Some((i, reason.clone())),
        _ => None,
    });
    match allow {
        Some((i, reason)) => {
            FoldOutcome { verdict: Verdict::Allow, reason, deciding: Some(i), other_denials: Vec::new() }
        }
        None => FoldOutcome { verdict: Verdict::None, reason: None, deciding: None, other_denials: Vec::new() },
    }
}

fn fold_denials(decisions: &[Decision]) -> Option<FoldOutcome> {
    let mut denials: Vec<(usize, String)> = decisions
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match d {
            Decision::Deny { reason } => Some((i, reason.clone())),
            _ => None,
        })
        .collect();
    let (deciding, reason) = denials.pop()?;
    Some(FoldOutcome { verdict: Verdict::Deny, reason: Some(reason), deciding: Some(deciding), other_denials: denials })
}
