//! The limits of one run, the same on every platform.

use std::time::Duration;

/// Limits of one run.
///
/// ```
/// use std::time::Duration;
/// let opts = hook_exec::RunOptions { timeout: Duration::from_secs(2), ..Default::default() };
/// assert_eq!(opts.capture_limit, 1 << 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// The one deadline, from spawn to return, over the stdin write, the process and the reads. Default 10 s.
    ///
    /// When it fires the group is killed and the run returns about at once: it still takes what the killed processes
    /// left in the pipes, waiting at most [`grace`](Self::grace) for EOF, and reaps the leader.
    pub timeout: Duration,
    /// Bytes kept per output stream; the rest is read and dropped. Default 1 MiB.
    pub capture_limit: usize,
    /// How long a descendant may keep an output pipe open after the leader exited. Default 100 ms.
    pub grace: Duration,
    /// Linux: the leader gets SIGKILL when the thread that spawned it dies (`PR_SET_PDEATHSIG`). Default on. The
    /// kernel ties this to the spawning *thread*: turn it off in a host that spawns runs from threads that may end
    /// while the run goes on (a Tokio runtime's own worker threads live as long as the runtime, and a thread that
    /// calls `block_on` is busy until the run is over, so both are fine).
    pub kill_with_parent: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            timeout: Duration::from_secs(10),
            capture_limit: 1 << 20,
            grace: Duration::from_millis(100),
            kill_with_parent: true,
        }
    }
}
