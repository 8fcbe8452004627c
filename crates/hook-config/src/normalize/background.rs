//! `async: true`: an observer command hook the dispatch does not wait for (see `docs/observability.md`).
//!
//! Allowed on command hooks of observer events only (post_tool, session_start, session_end, notification,
//! compaction, and another agent's observer events): on a gate or a decision event the dispatch must have the
//! hook's answer, so there `async: true` is an error in this engine's own files. An agent's own file loads what
//! that agent loads: Claude Code runs an `async` hook on any event in the background, where its answer comes too
//! late to count; here such a hook on a gate runs to completion instead, with a warning.

use hook_types::{Event, EventClass, HookKind, Protocol};

use super::fields::HookReader;
use crate::model::Format;

/// Reads `async`; `true` only where the hook may run in the background.
pub(super) fn read_async(
    hook: &mut HookReader<'_, '_>,
    event: Option<&Event>,
    kind: Option<HookKind>,
    format: Format,
) -> bool {
    let Some((true, field)) = hook.bool("async") else { return false };
    let own_file = matches!(format, Protocol::Native | Protocol::Clio);
    if kind.is_some_and(|k| k != HookKind::Command) {
        let kind = kind.map(HookKind::as_str).unwrap_or_default();
        hook.error(
            Some(&field),
            format!("`async: true` applies to command hooks only, not {kind} hooks: remove `async`"),
        );
        return false;
    }
    let Some(event) = event else { return false };
    if event.class() == EventClass::Observer {
        return true;
    }
    let why = format!(
        "`async: true` is for observers (post_tool, session_start, session_end, notification, compaction); {event} \
         is a {} event, whose answer the dispatch must wait for",
        match event.class() {
            EventClass::Gate => "gate",
            _ => "decision",
        }
    );
    if own_file {
        hook.error(Some(&field), format!("{why}: remove `async` or move the hook to an observer event"));
    } else {
        hook.warn(Some(&field), format!("{why}; this engine runs it to completion, so an answer it gives counts"));
    }
    false
}
