//! The `hook` binary's integration tests, one binary: a module per subject (`cargo test -p hook-cli --test it`).
//! Every test runs the real `hook` (`common::Env`), so none of them changes this process: they share it.
//!
//! Built for Windows (CI runs it under Wine), the binary holds `windows.rs` and `windows_async.rs` only: the other
//! suites run `sh` scripts.

#[cfg(unix)]
mod claude_support;
mod common;
#[cfg(unix)]
mod import_support;

#[cfg(unix)]
mod agent_answers;
#[cfg(unix)]
mod async_evaluated;
#[cfg(unix)]
mod async_runner;
#[cfg(unix)]
mod auggie;
#[cfg(unix)]
mod backtrace_env;
#[cfg(unix)]
mod bridge_entries;
#[cfg(unix)]
mod bridge_failures;
#[cfg(unix)]
mod bridge_integrity;
#[cfg(unix)]
mod bridge_passthrough;
#[cfg(unix)]
mod bridge_selection;
#[cfg(unix)]
mod claude;
#[cfg(unix)]
mod cline;
#[cfg(unix)]
mod codex;
#[cfg(unix)]
mod codex_trust;
#[cfg(unix)]
mod copilot;
#[cfg(unix)]
mod crush;
#[cfg(unix)]
mod cursor;
#[cfg(unix)]
mod doctor;
#[cfg(unix)]
mod errors;
#[cfg(unix)]
mod escapes;
#[cfg(unix)]
mod explain;
#[cfg(unix)]
mod fail_closed;
#[cfg(unix)]
mod faults;
#[cfg(unix)]
mod gemini;
#[cfg(unix)]
mod headless_notices;
#[cfg(unix)]
mod help;
#[cfg(unix)]
mod hooks_guide;
#[cfg(unix)]
mod if_conditions;
#[cfg(unix)]
mod import;
#[cfg(unix)]
mod inspect_validate;
#[cfg(unix)]
mod install_agents;
#[cfg(unix)]
mod install_integrity;
#[cfg(unix)]
mod install_scopes;
#[cfg(unix)]
mod mecha;
#[cfg(unix)]
mod more_agents;
#[cfg(unix)]
mod opencode;
#[cfg(unix)]
mod otel;
#[cfg(unix)]
mod policy;
#[cfg(unix)]
mod powershell;
#[cfg(unix)]
mod process_start;
#[cfg(unix)]
mod readme;
#[cfg(unix)]
mod readme_agents;
#[cfg(unix)]
mod receipts;
#[cfg(unix)]
mod receipts_reasons;
#[cfg(unix)]
mod run;
#[cfg(unix)]
mod schema;
#[cfg(unix)]
mod self_protection;
#[cfg(unix)]
mod session_state;
#[cfg(unix)]
mod shell_guards;
#[cfg(unix)]
mod signals;
#[cfg(unix)]
mod test_cases;
#[cfg(unix)]
mod test_skipped;
#[cfg(unix)]
mod tool_vocabulary;
#[cfg(unix)]
mod trust;
#[cfg(unix)]
mod trust_displaces;
#[cfg(unix)]
mod unreadable_gates;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
mod windows_async;
