//! The cross-crate suites in `tests/tests/it/`. Their shared helpers live in `hook-testkit`, the one home for test
//! helpers of every crate's suites; this library re-exports it so a suite here can say `hook_tests::paths`.
//!
//! ```
//! assert!(hook_tests::paths::repo_root().join("tests").is_dir());
//! ```

pub use hook_testkit::*;
