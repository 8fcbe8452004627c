//! Per-event soft budgets: one slow call after warm-up gives no diagnostic, steady slowness does, warm-up calls do
//! not count, and budgets are the host's to set. Durations are passed in: nothing here sleeps.

use std::time::Duration;

use hook_middleware::{BudgetConfig, Budgets};
use hook_types::Event;

const BUDGET_MS: u64 = 100;
const FAST: u64 = 20;
const SLOW: u64 = 400;

fn config() -> BudgetConfig {
    BudgetConfig { budget: Duration::from_millis(BUDGET_MS), warmup: 3, window: 10, slow_fraction: 0.5 }
}

/// Feeds `durations` (milliseconds, one per dispatch of pre_tool) to budgets with `config` and checks which calls
/// (1-based) raised a diagnostic.
fn check(config: BudgetConfig, durations: &[u64], expected: &[usize]) -> Vec<String> {
    let budgets = Budgets::new().with(Event::PreTool, config);
    let mut fired = Vec::new();
    let mut messages = Vec::new();
    for (i, ms) in durations.iter().enumerate() {
        if let Some(diagnostic) = budgets.observe(&Event::PreTool, Duration::from_millis(*ms)) {
            fired.push(i + 1);
            messages.push(diagnostic.to_string());
        }
    }
    assert_eq!(fired, expected, "{messages:#?}");
    messages
}

/// `n` copies of `ms`.
fn calls(n: usize, ms: u64) -> Vec<u64> {
    vec![ms; n]
}

#[test]
fn one_slow_call_after_warm_up_gives_no_diagnostic() {
    let mut durations = calls(3 + 10, FAST);
    durations.push(SLOW * 10);
    durations.extend(calls(30, FAST));
    check(config(), &durations, &[]);
}

#[test]
fn steady_slowness_gives_a_diagnostic_once_per_window() {
    let mut durations = calls(3 + 10, FAST);
    durations.extend(calls(25, SLOW));
    // The window (10) holds 5 slow calls at call 18; then it starts over, so the next is at 28, then 38.
    let messages = check(config(), &durations, &[18, 28, 38]);
    assert_eq!(
        messages[0],
        "`pre_tool` dispatches are steadily over their 100 ms budget: 5 of the last 10 took longer (median 210 ms, \
         longest 400 ms)"
    );
}

#[test]
fn slow_warm_up_calls_do_not_count() {
    let mut durations = calls(3, SLOW * 10);
    durations.extend(calls(20, FAST));
    check(config(), &durations, &[]);
}

#[test]
fn alternating_slowness_reaches_the_fraction() {
    let durations: Vec<u64> = (0..3 + 10).map(|i| if i % 2 == 0 { SLOW } else { FAST }).collect();
    check(config(), &durations, &[13]);
    // A stricter host asks for 80% of the window: alternating no longer qualifies.
    check(BudgetConfig { slow_fraction: 0.8, ..config() }, &durations, &[]);
}

#[test]
fn host_sets_defaults_overrides_and_turns_budgets_off() {
    let budgets = Budgets::new().with(Event::PostTool, config()).without(Event::SessionEnd);
    assert_eq!(budgets.config(&Event::PreTool).unwrap().budget, Duration::from_millis(500));
    assert_eq!(budgets.config(&Event::PermissionRequest).unwrap().budget, Duration::from_millis(500));
    assert_eq!(budgets.config(&Event::Notification).unwrap().budget, Duration::from_millis(1_000));
    assert_eq!(budgets.config(&Event::Foreign("SubagentStart".into())).unwrap().budget, Duration::from_secs(2));
    assert_eq!(budgets.config(&Event::PostTool), Some(config()));
    assert_eq!(budgets.config(&Event::SessionEnd), None);
    for _ in 0..100 {
        assert!(budgets.observe(&Event::SessionEnd, Duration::from_secs(60)).is_none());
    }
}

#[test]
fn events_are_budgeted_apart() {
    let budgets = Budgets::new().with(Event::PreTool, config()).with(Event::PostTool, config());
    let mut fired = Vec::new();
    for _ in 0..13 {
        fired.extend(budgets.observe(&Event::PreTool, Duration::from_millis(SLOW)));
        fired.extend(budgets.observe(&Event::PostTool, Duration::from_millis(FAST)));
    }
    let events: Vec<Event> = fired.into_iter().map(|d| d.event).collect();
    assert_eq!(events, [Event::PreTool]);
}
