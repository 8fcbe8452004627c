//! The `hook` binary's integration tests, one binary: a module per subject (`cargo test -p hook-cli --test it`).
//! Every test runs the real `hook` (`common::Env`), so none of them changes this process: they share it.

mod claude_support;
mod common;
mod import_support;

mod async_evaluated;
mod bridge_entries;
mod bridge_failures;
mod bridge_integrity;
mod bridge_passthrough;
mod bridge_selection;
mod claude;
mod cline;
mod codex;
mod codex_trust;
mod copilot;
mod cursor;
mod errors;
mod escapes;
mod fail_closed;
mod faults;
mod gemini;
mod help;
mod hooks_guide;
mod import;
mod inspect_validate;
mod install_agents;
mod install_integrity;
mod install_scopes;
mod mecha;
mod more_agents;
mod otel;
mod policy;
mod process_start;
mod readme;
mod readme_agents;
mod receipts;
mod run;
mod schema;
mod session_state;
mod signals;
mod test_cases;
mod tool_vocabulary;
mod trust;
mod trust_displaces;
mod unreadable_gates;
