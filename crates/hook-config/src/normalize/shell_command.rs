//! `command:`, `on_unknown:` and `on_interpreter:`: a matcher over the commands a shell call runs (docs/shell-commands.md), read once
//! at load.
//!
//! A `command:` that cannot be read, one on an event without a tool call, or an `on_unknown:` without a `command:`,
//! is an error: a guard whose matcher is not understood is no guard, so its gate closes.

use hook_types::{Event, OnError};

use super::fields::HookReader;
use crate::parse::Target;
use crate::{CommandMatcher, OnUnknown};

/// Reads `command`, `on_unknown` and `on_interpreter`; `on_error` is the hook's resolved failure policy, which `on_unknown` defaults
/// to (a hook that denies when it fails denies a line it cannot read).
pub(super) fn read(hook: &mut HookReader<'_, '_>, event: Option<&Event>, on_error: OnError) -> Option<CommandMatcher> {
    let on_unknown = hook.choice("on_unknown", &["deny", "ask", "pass"]);
    let on_interpreter = hook.choice("on_interpreter", &["deny", "ask", "pass"]);
    let Some(field) = hook.take("command") else {
        for (key, choice) in [("on_unknown", on_unknown), ("on_interpreter", on_interpreter)] {
            if let Some((_, field)) = choice {
                hook.error(
                    Some(&field),
                    format!(
                        "`{key}` says what a `command:` matcher does with a line it cannot read; this hook has no \
                         `command:` (add one, or remove `{key}`)"
                    ),
                );
            }
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
    let on_unknown = match on_unknown.map(|(choice, _)| answer(choice)) {
        Some(answer) => answer,
        None if on_error == OnError::Deny => OnUnknown::Deny,
        None => OnUnknown::Pass,
    };
    let on_interpreter = on_interpreter.map(|(choice, _)| answer(choice));
    for (key, choice) in [("on_unknown", Some(on_unknown)), ("on_interpreter", on_interpreter)] {
        if choice == Some(OnUnknown::Ask) && event.is_some_and(|e| *e != Event::PreTool) {
            hook.error(
                Some(&field),
                format!(
                    "`{key}: ask` asks the user before a tool runs, so it applies on pre_tool only; use `deny` or \
                     `pass`"
                ),
            );
            return None;
        }
    }
    match CommandMatcher::from_value(&field.value, on_unknown) {
        Ok(matcher) => Some(match on_interpreter {
            Some(answer) => matcher.with_on_interpreter(answer),
            None => matcher,
        }),
        Err(err) => {
            let place = hook.place_within(&field, &err.at, field.node.clone(), Target::Node);
            hook.error_at(place, err.message);
            None
        }
    }
}

fn answer(choice: &str) -> OnUnknown {
    match choice {
        "deny" => OnUnknown::Deny,
        "ask" => OnUnknown::Ask,
        _ => OnUnknown::Pass,
    }
}
