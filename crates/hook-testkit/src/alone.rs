//! A test that needs a process of its own, in a test binary it shares with every other test of its crate.
//!
//! Each crate's integration tests are one binary (`tests/it/main.rs`), and libtest runs them on threads of one
//! process. A few tests change or measure the whole process: they make it a child subreaper, count its open
//! descriptors or its zombies, read its peak memory, or leave a thread running that only the process's exit ends.
//! Such a test starts with [`in_own_process`]: in the harness's process that starts the same binary again, running
//! only this test, and passes when that run passes; in the process it started, it returns `true` and the test's body
//! runs, alone.
//!
//! ```no_run
//! #[test]
//! fn peak_memory_stays_flat() {
//!     if !hook_testkit::alone::in_own_process(module_path!(), "peak_memory_stays_flat") {
//!         return; // passed in a process of its own
//!     }
//!     // Here this process runs this test and nothing else.
//!     let status = std::fs::read_to_string("/proc/self/status").unwrap();
//!     assert!(status.contains("VmHWM:"));
//! }
//! ```

use std::process::{Command, Stdio};

/// Set, to the test's name, in the process [`in_own_process`] starts.
pub const ENV: &str = "HOOK_TESTKIT_ALONE";

/// The name libtest knows a test by (what `--exact` matches): `module_path` is the caller's `module_path!()`, whose
/// first segment, the crate, libtest leaves out.
///
/// ```
/// assert_eq!(hook_testkit::alone::test_name("it::watchdog", "watchdog_host"), "watchdog::watchdog_host");
/// assert_eq!(hook_testkit::alone::test_name("soak", "soak"), "soak");
/// ```
pub fn test_name(module_path: &str, test: &str) -> String {
    match module_path.split_once("::") {
        Some((_, rest)) => format!("{rest}::{test}"),
        None => test.to_owned(),
    }
}

/// Whether this process is the test's own. In the process the harness runs the test in, starts this binary again
/// on this test alone (`--exact`, one thread, ignored or not), waits for it, passes its output on, asserts that it
/// ran the test and passed, and returns `false`: the caller returns. In the process it started, returns `true`: the
/// caller runs the test's body.
///
/// `module_path` is the caller's `module_path!()` and `test` its function's name (see [`test_name`]).
///
/// # Panics
///
/// When the test failed (or did not run) in its own process, with that process's output.
pub fn in_own_process(module_path: &str, test: &str) -> bool {
    in_own_process_with(module_path, test, &[])
}

/// [`in_own_process`], with `env` set in the process it starts: for what a process reads only at its start, such as
/// the allocator's tunables.
///
/// ```no_run
/// #[test]
/// fn resident_memory_stays_flat() {
///     // glibc returns a freed block of 128 KiB or more to the system at once, so resident memory follows the heap.
///     let env = [("MALLOC_MMAP_THRESHOLD_", "131072")];
///     if !hook_testkit::alone::in_own_process_with(module_path!(), "resident_memory_stays_flat", &env) {
///         return;
///     }
///     assert_eq!(std::env::var("MALLOC_MMAP_THRESHOLD_").as_deref(), Ok("131072"));
/// }
/// ```
///
/// # Panics
///
/// As [`in_own_process`].
pub fn in_own_process_with(module_path: &str, test: &str, env: &[(&str, &str)]) -> bool {
    let name = test_name(module_path, test);
    if std::env::var_os(ENV).is_some_and(|v| v == name.as_str()) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = Command::new(exe)
        .args([name.as_str(), "--exact", "--include-ignored", "--nocapture", "--test-threads", "1"])
        .env(ENV, &name)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("the test binary starts again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Into this test's captured output: shown on failure, or with --nocapture.
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(output.status.success(), "{name} failed in its own process ({}):\n{stdout}\n{stderr}", output.status);
    assert!(stdout.contains("test result: ok. 1 passed"), "{name} did not run in its own process:\n{stdout}");
    false
}
