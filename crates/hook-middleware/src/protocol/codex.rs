//! Codex's extra rules on a JSON answer: the combinations its parsers reject as unsupported (its row's
//! `unsupported`).

use hook_types::{Event, Protocol};

use super::sanitize::{clean, sanitize_text};
use super::wire::HookOutput;

/// Codex's extra rules (codex-rs/hooks/src/engine/output_parser.rs): combinations its parsers reject as
/// unsupported, each a failure of the run. The messages are Codex's own.
pub(super) fn codex_unsupported(event: &Event, out: &HookOutput) -> Option<String> {
    codex_event_name_field(out).or_else(|| match event {
        Event::PreTool => codex_universal("PreToolUse", out).or_else(|| codex_pre_tool(out)),
        Event::PermissionRequest => codex_universal("PermissionRequest", out).or_else(|| codex_permission_request(out)),
        Event::PostTool => codex_post_tool(out),
        Event::TurnStart => codex_block_without_reason("UserPromptSubmit", out),
        Event::TurnEnd => codex_block_without_reason("Stop", out),
        _ => None,
    })
}

/// schema.rs `HookEventNameWire`: `hookSpecificOutput.hookEventName` is required, and one of the events Codex
/// dispatches (install writes the bridge on exactly those: the agent table's rows).
fn codex_event_name_field(out: &HookOutput) -> Option<String> {
    let codex = Protocol::Codex.agent();
    match out.specific.as_ref()?.hook_event_name.as_deref() {
        None => Some("field `hookSpecificOutput.hookEventName` is required".into()),
        Some(name) if !codex.install_events().any(|n| n == name) => Some(format!(
            "field `hookSpecificOutput.hookEventName` must be one of {}, got \"{}\"",
            codex.install_events().collect::<Vec<_>>().join(", "),
            sanitize_text(name)
        )),
        Some(_) => None,
    }
}

/// The universal fields Codex's `name` event does not support: `continue: false`, `stopReason`,
/// `suppressOutput: true`.
fn codex_universal(name: &str, out: &HookOutput) -> Option<String> {
    if out.continue_ == Some(false) {
        Some(format!("{name} hook returned unsupported continue:false"))
    } else if out.stop_reason.is_some() {
        Some(format!("{name} hook returned unsupported stopReason"))
    } else if out.suppress_output == Some(true) {
        Some(format!("{name} hook returned unsupported suppressOutput"))
    } else {
        None
    }
}

/// `decision: "block"` without a non-empty `reason`.
fn codex_block_without_reason(name: &str, out: &HookOutput) -> Option<String> {
    let has_reason = out.reason.as_deref().and_then(clean).is_some();
    (out.decision.as_deref() == Some("block") && !has_reason)
        .then(|| format!("{name} hook returned decision:block without a non-empty reason"))
}

/// PreToolUse: a hook-specific answer allows only with `updatedInput`, never asks, denies only with a reason; the
/// legacy `decision` blocks only with a reason, never approves.
fn codex_pre_tool(out: &HookOutput) -> Option<String> {
    let specific = out.specific.as_ref().filter(|s| {
        s.permission_decision.is_some() || s.permission_decision_reason.is_some() || s.updated_input.is_some()
    });
    if let Some(s) = specific {
        let allow = s.permission_decision.as_deref() == Some("allow");
        if s.updated_input.is_some() && !allow {
            return Some("PreToolUse hook returned updatedInput without permissionDecision:allow".into());
        }
        return match s.permission_decision.as_deref() {
            Some("allow") if s.updated_input.is_none() => {
                Some("PreToolUse hook returned unsupported permissionDecision:allow".into())
            }
            Some("ask") => Some("PreToolUse hook returned unsupported permissionDecision:ask".into()),
            Some("deny") if s.permission_decision_reason.as_deref().and_then(clean).is_none() => Some(
                "PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason".into(),
            ),
            None => Some("PreToolUse hook returned permissionDecisionReason without permissionDecision".into()),
            _ => None,
        };
    }
    match out.decision.as_deref() {
        Some("approve") => Some("PreToolUse hook returned unsupported decision:approve".into()),
        Some("block") => codex_block_without_reason("PreToolUse", out),
        None if out.reason.is_some() => Some("PreToolUse hook returned reason without decision".into()),
        _ => None,
    }
}

/// PermissionRequest: the decision may not rewrite the input, change permissions or interrupt.
fn codex_permission_request(out: &HookOutput) -> Option<String> {
    let decision = out.specific.as_ref().and_then(|s| s.decision.as_ref())?;
    if decision.updated_input.is_some() {
        Some("PermissionRequest hook returned unsupported updatedInput".into())
    } else if decision.updated_permissions {
        Some("PermissionRequest hook returned unsupported updatedPermissions".into())
    } else if decision.interrupt {
        Some("PermissionRequest hook returned unsupported interrupt:true".into())
    } else {
        None
    }
}

/// PostToolUse: no `suppressOutput` or `updatedMCPToolOutput`, a block needs a reason, and a reason needs a decision
/// (or `continue: false`).
fn codex_post_tool(out: &HookOutput) -> Option<String> {
    if out.suppress_output == Some(true) {
        Some("PostToolUse hook returned unsupported suppressOutput".into())
    } else if out.specific.as_ref().is_some_and(|s| s.updated_mcp_tool_output) {
        Some("PostToolUse hook returned unsupported updatedMCPToolOutput".into())
    } else if let Some(message) = codex_block_without_reason("PostToolUse", out) {
        Some(message)
    } else if out.decision.is_none() && out.continue_ != Some(false) && out.reason.is_some() {
        Some("PostToolUse hook returned reason without decision".into())
    } else {
        None
    }
}
