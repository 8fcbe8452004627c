//! clio-coder's `hooks.yaml` (`.clio-coder/hooks.yaml`, `.clio-coder/hooks.local.yaml`, an extension's root
//! `hooks.yaml`; docs/declarations.md#foreign-formats).
//!
//! The shape is the native one — a list of hooks or `{ version: 1, hooks: [...] }` — with camelCase keys
//! (`timeoutMs`, `onError`, `onlyErrors`; snake_case is accepted too) and clio-coder's event names (`before_tool`,
//! `after_tool`, `on_compaction`, which [`hook_types::Event::parse`] reads as aliases). What makes a clio-coder hook
//! different is its protocol: the format implies `protocol: clio`, whose timeout defaults to 2 000 ms and is clamped
//! to 100 … 5 000 ms, and whose failed commands emit nothing (fail open). The normalizer applies all of that from the
//! protocol, so a clio-coder hook hashes differently from the same native hook by design.

use serde_json::Value;

use super::{Spelling, Unknown, WireFile, read_hook_list};
use crate::issues::Reporter;

/// The agent, as issues name it.
pub(super) const AGENT: &str = "clio-coder";

/// Reads a clio-coder file.
pub(super) fn read(root: Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    read_hook_list(root, Spelling::Camel, Unknown::IgnoredBy(AGENT), reporter)
}
