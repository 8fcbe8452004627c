//! hook-config's integration tests, one binary: a module per subject (`cargo test -p hook-config --test it`). The
//! helpers they share with other crates' suites are hook-testkit's.

mod bounds;
mod bridge_entries;
mod claude;
mod cline;
mod clio_acceptance;
mod closed_gates;
mod codex;
mod conditions;
mod copilot;
mod cursor;
mod declarations;
mod declarations_issues;
mod differential;
mod duplicate_ids;
mod gemini;
mod hash;
mod inspect;
mod load_cache;
mod mecha;
mod origin_trusted;
mod origins;
mod permission_rules;
mod programs;
mod properties;
mod shell_command_matchers;
mod trust;
mod trust_store;
mod validation_hints;
mod workspace_trust;
