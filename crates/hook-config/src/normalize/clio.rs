//! clio-coder's acceptance rules, where they are wider than this engine's (docs/declarations.md#foreign-formats: an agent's own file loads
//! what that agent loads).
//!
//! clio-coder's loader (`normalizeUserHook` and `loadUserHooks` in its `src/domains/middleware/hooks.ts`, effects
//! checked by `validateMiddlewareEffect`) checks each field on its own and never relates one to another: `tools` on
//! any of its events, any of its seven effect kinds on any event, any non-empty string as an id (and the default id
//! when `id` is something else). Its runtime then gives those hooks nothing to do: a registration with `toolNames`
//! never matches an input without a tool name (turn_start, turn_end and on_compaction have none), and each event's
//! consumer reads only the effects it knows (turn_end: `inject_reminder`, `request_continuation`). So such a hook
//! loads here too — it is shown, hashed, trusted and imported like any other — but disabled, as it never runs in
//! clio-coder either, and a warning says why and what would make it run. Nothing of it is an error, so nothing of it
//! closes a gate.

use hook_types::{Effect, Event};
use serde_json::Value;

use super::fields::HookReader;
use super::is_valid_id;
use crate::formats::WireField;

/// The effect kinds clio-coder knows (its `MIDDLEWARE_EFFECT_KINDS`); any of them passes its loader on any event.
const EFFECT_KINDS: [&str; 7] = [
    "inject_reminder",
    "annotate_tool_result",
    "block_tool",
    "protect_path",
    "request_continuation",
    "require_tool",
    "lock_tools",
];

/// Whether clio-coder's loader accepts `effect`, whatever the event: it checks the effect alone. (Its events are
/// the agent table's, and an event it does not fire is not its concern here.)
pub(super) fn accepts_effect(effect: &Effect) -> bool {
    EFFECT_KINDS.contains(&effect.kind())
}

/// `tools` on an event that names no tool: clio-coder loads the hook and never runs it.
pub(super) fn inert_tools(hook: &mut HookReader<'_, '_>, field: &WireField, event: &Event, rule: String) {
    hook.inert = true;
    hook.warn(
        Some(field),
        format!(
            "{rule}; clio-coder loads this hook but never runs it ({event} names no tool for `tools` to match), and \
             neither does this engine: it is loaded disabled; remove `tools` to run it on every {event}"
        ),
    );
}

/// An effect clio-coder accepts on an event where it means nothing: its host ignores it there, so the hook never
/// does anything.
pub(super) fn inert_effect(hook: &mut HookReader<'_, '_>, field: &WireField, rule: String) {
    hook.inert = true;
    hook.warn(
        Some(field),
        format!(
            "{rule}; clio-coder loads this hook and ignores the effect there, so this engine loads it disabled: move \
             it to an event where the effect means something"
        ),
    );
}

/// `id` as clio-coder reads it: any non-empty string is the id as written; anything else means the default id.
pub(super) fn read_id(hook: &mut HookReader<'_, '_>) -> Option<String> {
    let field = hook.take("id")?;
    match &field.value {
        Value::String(id) if is_valid_id(id) => {
            hook.hook_id = Some(id.clone());
            Some(id.clone())
        }
        Value::String(id) if !id.is_empty() => {
            hook.warn(
                Some(&field),
                format!(
                    "`{id}` is kept as written, as clio-coder keeps it; this engine's own files take lowercase \
                     letters, digits, `.`, `_` and `-` only, so change it before `hook import`"
                ),
            );
            hook.hook_id = Some(id.clone());
            Some(id.clone())
        }
        other => {
            let found = if other.is_string() { "an empty string" } else { crate::issues::describe(other) };
            hook.warn(
                Some(&field),
                format!("expected a non-empty string, found {found}: the default id is used, as clio-coder does"),
            );
            None
        }
    }
}
