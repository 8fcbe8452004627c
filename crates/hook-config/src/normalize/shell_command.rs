//! `command:` and `on_unknown:`: a matcher over the commands a shell call runs (docs/shell-commands.md), read once
//! at load.
//!
//! A `command:` that cannot be read, one on an event without a tool call, or an `on_unknown:` without a `command:`,
//! is an error: a guard whose matcher is not understood is no guard, so its gate closes.

use hook_types::{Event, OnError};

use super::fields::HookReader;
use crate::parse::Target;
use crate::{CommandMatcher, OnUnknown};

/// Reads `command` and `on_unknown`; `on_error` is the hook's resolved failure policy, which `on_unknown` defaults
/// to (a hook that denies when it fails denies a line it cannot read).
pub(super) fn read(hook: &mut HookReader<'_, '_>, event: Option<&Event>, on_error: OnError) -> Option<CommandMatcher> {
    let on_unknown = hook.choice("on_unknown", &["deny", "ask", "pass"]);
    let Some(field) = hook.take("command") else {
        if let Some((_, field)) = on_unknown {
            hook.error(
                Some(&field),
                "`on_unknown` says what a `command:` matcher does with a line it cannot read; this hook has no \
                 `command:` (add one, or remove `on_unknown`)",
            );
        }
        return None;
    };
    if let Some(event) = event.filter(|e| !e.is_tool_event()) {
        hook.error(
            Some(&field),
            format!("`command` applies to tool events (pre_tool, permission_request, post_tool), not {event}"),
        );
        return None;
    }
    let on_unknown = match on_unknown.map(|(choice, _)| choice) {
        Some("deny") => OnUnknown::Deny,
        Some("ask") => OnUnknown::Ask,
        Some(_) => OnUnknown::Pass,
        None if on_error == OnError::Deny => OnUnknown::Deny,
        None => OnUnknown::Pass,
    };
    if on_unknown == OnUnknown::Ask && event.is_some_and(|e| *e != Event::PreTool) {
        hook.error(
            Some(&field),
            "`on_unknown: ask` asks the user before a tool runs, so it applies on pre_tool only; use `deny` or `pass`",
        );
        return None;
    }
    match CommandMatcher::from_value(&field.value, on_unknown) {
        Ok(matcher) => Some(matcher),
        Err(err) => {
            let place = hook.place_within(&field, &err.at, field.node.clone(), Target::Node);
            hook.error_at(place, err.message);
            None
        }
    }
}
