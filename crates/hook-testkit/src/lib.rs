//! Test helpers shared by the hook engine's suites, so each reader suite states only what its agent does differently.
//!
//! - [`paths`]: the repository's root, its `tests/fixtures`, and copying a fixture tree into a temp dir.
//! - [`reader`]: reading a file of one format into the model, and views of the result (rows, one-line hooks, issue
//!   lines) that hold no machine-specific paths, for assertions and snapshots.
//! - [`source`]: Rust source as tokens (comments and test items left out), for the tidy checks.
//! - [`process`]: whether a process lives, the live members of a group, pids scripts wrote, waiting for a condition.
//! - [`alone`]: a test that needs a process of its own inside the one test binary of its crate.
//! - [`runaway_policies`]: Rego that runs away, for the bounds of a `policy` hook.
//! - `hook_server` (feature `hook-server`): a bounded HTTP server on 127.0.0.1 for `http` hooks, with an
//!   OPA-compatible data API.
//!
//! Each crate's integration tests are one binary, `tests/it/main.rs`, with one module per subject; what only one
//! crate's suites use stays a module of that binary, what two crates use lives here.
//!
//! hook-config's own integration tests use this crate as a dev-dependency. That is a cycle only on paper: an
//! integration test links the one `hook_config` library this crate links too, so the types are the same. (Unit tests
//! inside hook-config cannot use it: they build a second copy of the library.)
//!
//! ```
//! use hook_config::Format;
//! use hook_testkit::reader::{check_lines, parse_at};
//!
//! let load = parse_at(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
//!     ".claude/settings.json", Format::Claude);
//! check_lines(&load, &["turn_end 600000ms $ true"], &[]);
//! ```

pub mod alone;
#[cfg(feature = "hook-server")]
pub mod hook_server;
pub mod paths;
#[cfg(unix)]
pub mod process;
#[cfg(windows)]
#[path = "process_windows.rs"]
pub mod process;
pub mod reader;
pub mod runaway_policies;
pub mod source;
