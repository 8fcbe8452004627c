//! hook-exec's integration tests, one binary: a module per subject (`cargo test -p hook-exec --test it`).
//!
//! The tests that change or measure the whole process (supervision: the subreaper, the watchdog, cgroups; the
//! peak memory of a flood) run in a process of their own, this binary started again on that one test
//! (`hook_testkit::alone`); the watchdog's host is this binary too, started by its tests.
//!
//! On Windows (`windows.rs`, run under Wine in CI) the suite is the Job Object's: the same guarantees, through
//! helper processes that are this binary again.

#[cfg(unix)]
mod common;

#[cfg(unix)]
mod cgroup;
#[cfg(unix)]
mod cgroup_orphans;
#[cfg(unix)]
mod child_setup;
#[cfg(unix)]
mod deadline;
#[cfg(unix)]
mod drop;
#[cfg(unix)]
mod flood;
#[cfg(unix)]
mod grace;
#[cfg(unix)]
mod results;
#[cfg(unix)]
mod supervise;
#[cfg(unix)]
mod verified;
#[cfg(unix)]
mod watchdog;
#[cfg(windows)]
mod windows;
