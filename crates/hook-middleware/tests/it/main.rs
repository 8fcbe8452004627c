//! hook-middleware's integration tests, one binary: a module per subject (`cargo test -p hook-middleware --test it`).
//!
//! The binary's global allocator (`allocator`) reports to the pipeline, as the `hook` binary's does, and counts each
//! thread's allocations. The tests that change or measure the whole process (the soak, a policy's peak memory, a
//! runaway evaluation's thread) and those that capture `tracing` spans (a call site's interest is cached for the
//! whole process) run in a process of their own, this binary started again on that one test
//! (`hook_testkit::alone`); so do the appenders of `receipts_processes`.

mod allocator;
mod pipeline_support;
mod receipts_support;

mod async_and_evaluated;
mod budget;
mod faults;
mod http_hooks;
mod pipeline_alloc;
mod pipeline_closed_gates;
mod pipeline_concurrency;
mod pipeline_conflicts;
mod pipeline_followups;
mod pipeline_source_rules;
mod pipeline_tiers;
mod pipeline_trust;
mod policy_hooks;
mod protocol_entries;
mod protocol_payload;
mod protocol_properties;
mod protocol_replay;
mod protocol_schema;
mod protocol_table;
mod receipts_chain;
mod receipts_dispatch;
mod receipts_processes;
mod receipts_sinks;
mod shell_commands;
mod skipped_guards;
mod soak;
mod tracing_capture;
