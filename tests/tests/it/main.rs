//! The workspace's cross-crate suites, one binary: a module per subject (`cargo test -p hook-tests --test it`).
//! Their helpers are hook-testkit's, re-exported by this package's library as `hook_tests`.

mod agent_table;
mod docs_reference;
mod host_demo;
mod no_outside_references;
mod test_binaries;
