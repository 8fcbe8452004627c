//! This engine's own `hooks.yaml` / `hooks.json` (docs/declarations.md).
//!
//! Keys are snake_case; clio-coder's camelCase spellings (`timeoutMs`, `onError`, `onlyErrors`) are read as aliases
//! (docs/effects.md#the-effect-kinds), so a hook copied from a clio-coder file keeps working and keeps its hash.

use serde_json::Value;

use super::{Spelling, Unknown, WireFile, read_hook_list};
use crate::issues::Reporter;

/// Reads a native file.
pub(super) fn read(root: Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    read_hook_list(root, Spelling::Snake, Unknown::Refuse, reporter)
}
