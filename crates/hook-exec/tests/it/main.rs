//! hook-exec's integration tests, one binary: a module per subject (`cargo test -p hook-exec --test it`).
//!
//! The tests that change or measure the whole process (supervision: the subreaper, the watchdog, cgroups; the
//! peak memory of a flood) run in a process of their own, this binary started again on that one test
//! (`hook_testkit::alone`); the watchdog's host is this binary too, started by its tests.

mod common;

mod cgroup;
mod cgroup_orphans;
mod child_setup;
mod deadline;
mod drop;
mod flood;
mod grace;
mod results;
mod supervise;
mod verified;
mod watchdog;
