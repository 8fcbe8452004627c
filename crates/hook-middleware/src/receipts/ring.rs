//! The in-memory ring: the newest receipts of a long-lived host, for a status view or a test.

use std::collections::VecDeque;
use std::sync::Mutex;

use hook_types::Receipt;

use super::{ReceiptSink, SinkError};

/// A bounded in-memory sink keeping the newest `capacity` receipts; older ones are dropped first. Never fails.
///
/// ```
/// use hook_middleware::receipts::{ReceiptSink, RingSink};
/// # let receipt: hook_types::Receipt = serde_json::from_str(r#"{"time":"1970-01-01T00:00:00.000Z","hook_id":"h",
/// #   "origin":null,"source":"host","hash":"","event":"pre_tool","kind":"in_process","outcome":"emitted",
/// #   "effects":[],"exit_code":null,"output_bytes":0,"tool_name":null,"duration_ms":0,"session_id":null,"prev":null}"#).unwrap();
/// let ring = RingSink::new(2);
/// for _ in 0..3 {
///     ring.record(&receipt).unwrap();
/// }
/// assert_eq!(ring.snapshot().len(), 2);
/// assert_eq!(ring.dropped(), 1);
/// ```
#[derive(Debug)]
pub struct RingSink {
    capacity: usize,
    state: Mutex<RingState>,
}

#[derive(Debug, Default)]
struct RingState {
    receipts: VecDeque<Receipt>,
    dropped: u64,
}

impl RingSink {
    /// A ring holding at most `capacity` receipts (at least one).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        RingSink { capacity, state: Mutex::new(RingState { receipts: VecDeque::with_capacity(capacity), dropped: 0 }) }
    }

    /// The receipts held, oldest first.
    pub fn snapshot(&self) -> Vec<Receipt> {
        self.lock().receipts.iter().cloned().collect()
    }

    /// How many receipts it holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many receipts were pushed out by newer ones since the ring was made.
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RingState> {
        // A panic elsewhere while holding the lock leaves the deque consistent (push and pop are each atomic
        // with respect to panics), so a poisoned lock is safe to keep using.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl ReceiptSink for RingSink {
    /// An in-memory push: never blocks.
    fn may_block(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        "ring".to_owned()
    }

    fn record(&self, receipt: &Receipt) -> Result<(), SinkError> {
        let mut state = self.lock();
        if state.receipts.len() == self.capacity {
            state.receipts.pop_front();
            state.dropped += 1;
        }
        state.receipts.push_back(receipt.clone());
        Ok(())
    }
}
