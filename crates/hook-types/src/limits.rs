//! Host limits: plain data with defaults.

use serde::{Deserialize, Serialize};

/// Bounds the host puts on every hook and dispatch.
///
/// ```
/// use hook_types::Limits;
/// let limits = Limits::default();
/// assert_eq!(limits.clamp_timeout_ms(50), (100, true));
/// assert_eq!(limits.clamp_timeout_ms(1_500), (1_500, false));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Shortest timeout a command hook may run with, in milliseconds.
    pub timeout_min_ms: u64,
    /// Longest timeout a command hook may run with, in milliseconds.
    pub timeout_max_ms: u64,
    /// Bytes kept per output stream of a command hook; the rest is read and dropped.
    pub capture_limit_bytes: usize,
    /// How long a descendant that still holds a pipe after the hook exited is waited for, in milliseconds.
    pub grace_ms: u64,
    /// Total deadline of one dispatch, in milliseconds: what still runs then is cancelled and a gate fails closed.
    pub dispatch_deadline_ms: u64,
    /// How many command hooks of one dispatch run at once.
    pub max_concurrency: usize,
    /// How many turn_end continuations in a row a session may get before further ones are refused.
    pub continuation_cap: u32,
    /// Largest declaration file read, in bytes; a larger one is one error-level issue and none of its hooks load.
    pub max_file_bytes: u64,
    /// Deepest nesting of lists and maps in a declaration file; a deeper one is one error-level issue (checked in
    /// one linear pass before parsing, so no input makes the parser slow).
    pub max_nesting_depth: usize,
    /// Most hooks read from one file; the rest are dropped with one error-level issue.
    pub max_hooks_per_file: usize,
    /// Most hooks read from all files of one load together; the rest are dropped with one error-level issue.
    pub max_hooks_total: usize,
    /// Most bytes one in-process evaluation (a `policy` hook's Rego) may hold allocated at once. Enforced where the
    /// process's allocator reports its allocations (the `hook` binary's does; see docs/policy.md): past it the
    /// evaluation is given up and the hook fails.
    pub evaluation_memory_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout_min_ms: 100,
            timeout_max_ms: 600_000,
            capture_limit_bytes: 1024 * 1024,
            grace_ms: 100,
            dispatch_deadline_ms: 60_000,
            max_concurrency: 16,
            continuation_cap: 3,
            max_file_bytes: 4 * 1024 * 1024,
            max_nesting_depth: 100,
            max_hooks_per_file: 10_000,
            max_hooks_total: 50_000,
            evaluation_memory_bytes: 256 * 1024 * 1024,
        }
    }
}

impl Limits {
    /// Clamps a declared timeout into `timeout_min_ms ..= timeout_max_ms`; the flag says whether it changed (the
    /// clamp is reported as a warning).
    pub fn clamp_timeout_ms(&self, declared: u64) -> (u64, bool) {
        let clamped = declared.clamp(self.timeout_min_ms, self.timeout_max_ms.max(self.timeout_min_ms));
        (clamped, clamped != declared)
    }
}
