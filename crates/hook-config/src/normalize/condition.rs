//! `if`: a permission rule the call must match (docs/declarations.md#if), parsed once at load.
//!
//! In this engine's own files an `if` is written against the canonical tools (`shell(git push *)`) and applies to
//! tool events only (and another agent's events whose input names a tool); a rule that cannot be read, or one on
//! an event without a tool call, is an error (a guard whose condition is not understood is no guard). In an agent's own file (Claude Code's) the agent's acceptance rules hold: what Claude
//! Code reads as a rule that no call matches — a malformed rule, a specifier on a tool it tests none against, any
//! `if` on an event without a tool — loads as such, with a warning, so the hook never runs here either.

use hook_types::{Event, Protocol};

use super::fields::HookReader;
use crate::PermissionRule;
use crate::model::Format;

/// Reads `if`, reporting what is wrong.
pub(super) fn read(
    hook: &mut HookReader<'_, '_>,
    event: Option<&Event>,
    protocol: Protocol,
    format: Format,
) -> Option<PermissionRule> {
    let (text, field) = hook.string("if")?;
    let native = format == Format::Native;
    let rule = match PermissionRule::parse(&text, protocol) {
        Ok(rule) => rule,
        Err(err) if native => {
            hook.error(Some(&field), format!("{err}"));
            return None;
        }
        Err(err) => {
            hook.warn(
                Some(&field),
                format!("{err}; {} reads it as a tool name no call has, so this hook never runs", agent(protocol)),
            );
            return Some(PermissionRule::never(&text));
        }
    };
    // Another agent's event may be about a tool call (Claude Code's `PermissionDenied`): tested where its input names
    // a tool.
    if let Some(event) = event.filter(|e| !e.is_tool_event() && !e.is_foreign()) {
        let message = format!(
            "`if` applies to tool events (pre_tool, permission_request, post_tool), not {event}: there is no tool \
             call to test"
        );
        if native {
            hook.error(Some(&field), message);
            return None;
        }
        hook.warn(
            Some(&field),
            format!("{message}; {} never runs this hook, and neither does this engine", agent(protocol)),
        );
    } else if !rule.can_match() {
        let message = format!(
            "`{text}`: {} tests no specifier against this tool's calls, so this hook never runs (write the tool name \
             alone to run it on every call)",
            agent(protocol)
        );
        hook.warn(Some(&field), message);
    }
    Some(rule)
}

fn agent(protocol: Protocol) -> &'static str {
    protocol.agent().name
}
