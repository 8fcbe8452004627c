//! Soft time budgets per event (docs/limits.md#budgets): steady slowness becomes a diagnostic, one spike does not.
//!
//! The rule is documented on [`Budgets`].

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use hook_types::{Event, EventClass};

/// The budget of one event.
///
/// ```
/// use std::time::Duration;
/// use hook_middleware::BudgetConfig;
/// use hook_types::Event;
/// let pre_tool = BudgetConfig::default_for(&Event::PreTool);
/// assert_eq!(pre_tool.budget, Duration::from_millis(500));
/// assert_eq!((pre_tool.warmup, pre_tool.window), (3, 20));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetConfig {
    /// How long one dispatch of the event should take.
    pub budget: Duration,
    /// How many first dispatches are not counted.
    pub warmup: u32,
    /// How many latest dispatches are judged together (at least 1).
    pub window: usize,
    /// Which share of a full window must exceed the budget for a diagnostic (0.5 = the median is over it).
    pub slow_fraction: f64,
}

impl BudgetConfig {
    /// The defaults, by how directly the event holds up a person:
    /// - 500 ms for the gates and permission_request (turn_start, pre_tool, permission_request), which sit between
    ///   a prompt or a tool call and the user;
    /// - 1 s for post_tool and notification, which the model waits on;
    /// - 2 s for the rest (session_start, turn_end, compaction, session_end, foreign events).
    ///
    /// Every event: warm-up 3 calls, a window of 20, half of it slow for a diagnostic.
    pub fn default_for(event: &Event) -> BudgetConfig {
        let millis = match event {
            Event::PermissionRequest => 500,
            _ if event.class() == EventClass::Gate => 500,
            Event::PostTool | Event::Notification => 1_000,
            _ => 2_000,
        };
        BudgetConfig { budget: Duration::from_millis(millis), warmup: 3, window: 20, slow_fraction: 0.5 }
    }

    /// The number of slow dispatches in a full window that raises a diagnostic (at least 1).
    fn slow_needed(&self) -> usize {
        ((self.window as f64 * self.slow_fraction).ceil() as usize).clamp(1, self.window)
    }
}

/// Steady slowness of one event, as [`Budgets::observe`] reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetDiagnostic {
    /// The event.
    pub event: Event,
    /// Its budget.
    pub budget: Duration,
    /// How many of the window's dispatches ran over it.
    pub slow: usize,
    /// The window's size.
    pub window: usize,
    /// The window's median duration.
    pub median: Duration,
    /// The window's longest duration.
    pub max: Duration,
}

impl fmt::Display for BudgetDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` dispatches are steadily over their {} ms budget: {} of the last {} took longer (median {} ms, \
             longest {} ms)",
            self.event,
            self.budget.as_millis(),
            self.slow,
            self.window,
            self.median.as_millis(),
            self.max.as_millis()
        )
    }
}

/// The state of one event: calls seen and the latest durations.
#[derive(Debug, Default)]
struct Track {
    calls: u64,
    durations: VecDeque<Duration>,
}

/// Per-event soft budgets, shared by every dispatch of a pipeline (`&self`, internally locked).
///
/// Each event keeps a rolling window of its latest dispatch durations. The first calls of a process are not
/// counted at all (warm-up grace: cold caches, a first `npx` download, a JIT); after that, a diagnostic is raised
/// when the window is full and at least a fraction of it ([`BudgetConfig::slow_fraction`], half by default, so the
/// median) ran over the budget. After a diagnostic the window starts over, so steady slowness is reported once per
/// window, not on every call. A budget never stops or cancels anything: the hard limits are the hook timeouts and
/// the dispatch deadline of [`hook_types::Limits`].
///
/// Durations are passed in, so the logic is pure and tested without sleeping.
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use hook_middleware::{BudgetConfig, Budgets};
/// use hook_types::Event;
/// let budgets = Budgets::new().with(Event::PreTool, BudgetConfig {
///     budget: Duration::from_millis(100), warmup: 0, window: 4, slow_fraction: 0.5,
/// });
/// let slow = Duration::from_millis(300);
/// assert!(budgets.observe(&Event::PreTool, slow).is_none()); // one spike
/// assert!(budgets.observe(&Event::PreTool, Duration::from_millis(5)).is_none());
/// assert!(budgets.observe(&Event::PreTool, Duration::from_millis(5)).is_none());
/// let diagnostic = budgets.observe(&Event::PreTool, slow); // 2 of 4 slow: the median is over
/// assert_eq!(diagnostic.unwrap().slow, 2);
/// ```
#[derive(Debug, Default)]
pub struct Budgets {
    overrides: HashMap<Event, Option<BudgetConfig>>,
    tracks: Mutex<HashMap<Event, Track>>,
}

impl Budgets {
    /// Budgets with [`BudgetConfig::default_for`] on every event.
    pub fn new() -> Self {
        Budgets::default()
    }

    /// Sets the budget of `event`.
    pub fn with(mut self, event: Event, config: BudgetConfig) -> Self {
        self.overrides.insert(event, Some(config));
        self
    }

    /// Turns the budget of `event` off.
    pub fn without(mut self, event: Event) -> Self {
        self.overrides.insert(event, None);
        self
    }

    /// The budget in force for `event`, if any.
    pub fn config(&self, event: &Event) -> Option<BudgetConfig> {
        match self.overrides.get(event) {
            Some(config) => *config,
            None => Some(BudgetConfig::default_for(event)),
        }
    }

    /// Counts one dispatch of `event` that took `duration`; returns a diagnostic when the event's window shows
    /// steady slowness (see [`Budgets`]).
    pub fn observe(&self, event: &Event, duration: Duration) -> Option<BudgetDiagnostic> {
        let config = self.config(event)?;
        let window = config.window.max(1);
        // Like the ring sink: a panic elsewhere cannot leave a track half-updated, so poison is harmless.
        let mut tracks = self.tracks.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let track = tracks.entry(event.clone()).or_default();
        track.calls += 1;
        if track.calls <= u64::from(config.warmup) {
            return None;
        }
        if track.durations.len() == window {
            track.durations.pop_front();
        }
        track.durations.push_back(duration);
        if track.durations.len() < window {
            return None;
        }
        let slow = track.durations.iter().filter(|d| **d > config.budget).count();
        if slow < config.slow_needed() {
            return None;
        }
        let mut sorted: Vec<Duration> = track.durations.drain(..).collect();
        sorted.sort_unstable();
        Some(BudgetDiagnostic {
            event: event.clone(),
            budget: config.budget,
            slow,
            window,
            // The usual median: the mean of the two middle values of an even window.
            median: (sorted[(window - 1) / 2] + sorted[window / 2]) / 2,
            max: sorted[window - 1],
        })
    }
}
