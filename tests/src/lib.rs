//! Shared helpers for the cross-crate suites in `tests/tests/`.
