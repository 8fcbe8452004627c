//! GitHub Copilot CLI's flat JSON answer (`permissionDecision`, `behavior`, `decision` at the top level): its
//! row's `flat_answer`.

use hook_types::Event;
use serde_json::Value;

use super::builder::{BlockFrom, Builder};
use super::classify::Failure;
use super::json::invalid;
use super::sanitize::{clean, sanitize_text};
use super::wire::HookOutput;

/// GitHub Copilot CLI's flat answer (hooks reference, "`preToolUse` decision control", "`permissionRequest`
/// decision control", "`postToolUse` output"): `permissionDecision` allow | deny | ask with
/// `permissionDecisionReason` and `modifiedArgs` on preToolUse; `behavior` allow | deny with `message` and
/// `interrupt` on permissionRequest; `additionalContext` wherever the event takes it. `decision` on agentStop and
/// subagentStop is read with the shared fields.
pub(super) fn copilot(b: &mut Builder<'_>, out: &HookOutput) -> Result<(), Failure> {
    let top = &out.copilot;
    if let Some(context) = top.additional_context.as_deref().and_then(clean) {
        b.context(context);
    }
    if *b.event == Event::PreTool {
        let reason = top.permission_decision_reason.as_deref().and_then(clean);
        match top.permission_decision.as_deref() {
            None => {}
            Some("allow") => b.allow(reason),
            Some("deny") => {
                let reason = reason.unwrap_or_else(|| b.default_reason());
                b.block(reason, BlockFrom::Json);
            }
            Some("ask") => b.ask(reason),
            Some(other) => {
                return Err(invalid(format!(
                    "field `permissionDecision` must be one of \"allow\", \"deny\", \"ask\", got \"{}\"",
                    sanitize_text(other)
                )));
            }
        }
        if let Some(args) = &top.modified_args {
            let Value::Object(args) = args else {
                return Err(invalid(format!(
                    "field `modifiedArgs` must be an object, got {}",
                    super::wire::json_type_name(args)
                )));
            };
            b.rewrite(args.clone());
        }
    }
    if *b.event == Event::PermissionRequest {
        let message = top.message.as_deref().and_then(clean);
        match top.behavior.as_deref() {
            None => {}
            Some("allow") => b.allow(message),
            Some("deny") => {
                let reason = message.unwrap_or_else(|| b.default_reason());
                b.block(reason.clone(), BlockFrom::Json);
                if top.interrupt {
                    b.halt(Some(reason));
                }
            }
            Some(other) => {
                return Err(invalid(format!(
                    "field `behavior` must be \"allow\" or \"deny\", got \"{}\"",
                    sanitize_text(other)
                )));
            }
        }
    }
    Ok(())
}
