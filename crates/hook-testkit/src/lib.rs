//! Test helpers shared by the hook engine's suites, so each reader suite states only what its agent does differently.
//!
//! - [`paths`]: the repository's root, its `tests/fixtures`, and copying a fixture tree into a temp dir.
//! - [`reader`]: reading a file of one format into the model, and views of the result (rows, one-line hooks, issue
//!   lines) that hold no machine-specific paths, for assertions and snapshots.
//! - [`source`]: Rust source as tokens (comments and test items left out), for the tidy checks.
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

pub mod paths;
pub mod reader;
pub mod source;
