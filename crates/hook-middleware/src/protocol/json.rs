//! A hook's JSON answer → effects and a decision, per dialect. The field reading is in `wire`; what a block, a
//! halt or context means on each event is in `builder`; this file holds the reading every dialect shares, what differs
//! taken from the protocol's row (`rules.rs`), with the flat answers and Codex's extra rules in modules of their own.

use hook_types::{Effect, EffectError, Event};
use serde_json::Value;

use super::builder::{BlockFrom, Builder};
use super::classify::Failure;
use super::rules::{Rules, Verb};
use super::sanitize::{clean, sanitize_text};
use super::wire::{HookOutput, Specific};

/// A failure of the run: its answer is not one the dialect takes.
pub(super) fn invalid(message: impl Into<String>) -> Failure {
    Failure::InvalidOutput(message.into())
}

/// The words `decision` may take, per dialect and event: the protocol's row says (`Rules::decision_words`).
fn decision_verb(rules: &Rules, event: &Event, word: &str) -> Result<Verb, Failure> {
    let accepted = (rules.decision_words)(event);
    accepted.iter().find(|(w, _)| *w == word).map(|(_, verb)| *verb).ok_or_else(|| {
        let words: Vec<String> = accepted.iter().map(|(w, _)| format!("\"{w}\"")).collect();
        invalid(format!("field `decision` must be one of {}, got \"{}\"", words.join(", "), sanitize_text(word)))
    })
}

/// Applies a parsed JSON answer. On `Err` the caller turns the run into a failure, dropping whatever was applied.
///
/// # Order
///
/// 1. the answer is checked as strictly as the dialect checks it (unknown fields, unsupported combinations);
/// 2. `systemMessage`, for the user;
/// 3. native `effects`, each one valid on the event;
/// 4. context for the model (`additionalContext`);
/// 5. the decision: the hook-specific one (pre_tool, the permission request), then the top-level `decision`;
/// 6. Gemini CLI's `tool_input` on pre_tool, merged into the tool's input;
/// 7. the dialect's flat answer (GitHub Copilot CLI, Cursor), else the halt (`continue: false`);
/// 8. `suppressOutput`.
pub(crate) fn apply(b: &mut Builder<'_>, out: HookOutput) -> Result<(), Failure> {
    check(b, &out)?;
    let advisory = matches!(b.event, Event::SessionStart | Event::SessionEnd | Event::Notification | Event::Compaction);
    let flow_control = !(b.rules.advisory_ignores_flow_control && advisory);
    if let Some(message) = out.system_message.as_deref().and_then(clean) {
        b.notify(message);
    }
    if let Some(effects) = &out.effects {
        apply_effects(b, effects)?;
    }
    context(b, &out);
    decide(b, &out, flow_control)?;
    merge_tool_input(b, &out);
    flat_answer_or_halt(b, &out, flow_control)?;
    if out.suppress_output == Some(true) {
        b.suppress_output = true;
    }
    Ok(())
}

/// The answer as strictly as the dialect reads it: unknown fields (where it rejects them) and the combinations it
/// does not support fail the run.
fn check(b: &Builder<'_>, out: &HookOutput) -> Result<(), Failure> {
    if b.rules.reject_unknown
        && let Some(field) = out.unknown.first()
    {
        return Err(invalid(format!("unknown field `{}`", sanitize_text(field))));
    }
    match (b.rules.unsupported)(b.event, out) {
        Some(message) => Err(invalid(message)),
        None => Ok(()),
    }
}

/// Native `effects`: each parsed strictly and valid on the event, or the run fails.
fn apply_effects(b: &mut Builder<'_>, effects: &[Value]) -> Result<(), Failure> {
    for (i, value) in effects.iter().enumerate() {
        let effect = Effect::from_json(value).map_err(|e| {
            let mut message = format!("effects[{i}]: {e}");
            if matches!(e, EffectError::UnknownKind { .. } | EffectError::MissingKind) {
                let kinds: Vec<&str> = hook_types::effect_kinds().collect();
                message.push_str(&format!("; the effect kinds are {}", kinds.join(", ")));
            }
            invalid(message)
        })?;
        if !effect.valid_on(b.event) {
            return Err(invalid(format!("effects[{i}]: `{}` is not valid on {}", effect.kind(), b.event)));
        }
        b.effect(sanitize_effect(effect));
    }
    Ok(())
}

/// `additionalContext`, in `hookSpecificOutput` or at the top level (Cursor's `additional_context`).
fn context(b: &mut Builder<'_>, out: &HookOutput) {
    if let Some(context) = out.specific.as_ref().and_then(|s| s.additional_context.as_deref()).and_then(clean) {
        b.context(context);
    }
    if let Some(context) = out.additional_context.as_deref().and_then(clean) {
        b.context(context);
    }
}

/// The decision: `hookSpecificOutput`'s on pre_tool and the permission request, then the top-level `decision` in
/// the words the dialect accepts — on pre_tool only where the hook-specific answer did not decide, and not on an
/// event whose flow-control fields the dialect ignores.
fn decide(b: &mut Builder<'_>, out: &HookOutput, flow_control: bool) -> Result<(), Failure> {
    let specific = out.specific.as_ref();
    let hook_specific_decides = specific.is_some_and(|s| {
        s.permission_decision.is_some() || s.permission_decision_reason.is_some() || s.updated_input.is_some()
    });
    match (b.event, specific) {
        (Event::PreTool, Some(s)) if hook_specific_decides => pre_tool_specific(b, s)?,
        (Event::PermissionRequest, Some(s)) => permission_request(b, s)?,
        _ => {}
    }
    let legacy_applies = !(*b.event == Event::PreTool && hook_specific_decides);
    let Some(word) = out.decision.as_deref().filter(|_| legacy_applies && flow_control) else { return Ok(()) };
    let reason = out.reason.as_deref().and_then(clean);
    match decision_verb(b.rules, b.event, word)? {
        Verb::Block => {
            let reason = reason.unwrap_or_else(|| b.default_reason());
            b.block(reason, BlockFrom::Json);
        }
        Verb::Allow => b.allow(reason),
        Verb::Ask => b.ask(reason),
        Verb::Proceed => {}
    }
    Ok(())
}

/// Gemini CLI reference, BeforeTool: `hookSpecificOutput.tool_input` "merges with and overrides" the model's
/// arguments.
fn merge_tool_input(b: &mut Builder<'_>, out: &HookOutput) {
    if let Some(tool_input) = out.specific.as_ref().and_then(|s| s.tool_input.as_ref())
        && *b.event == Event::PreTool
    {
        let mut merged = b.tool_input.cloned().unwrap_or_default();
        merged.extend(tool_input.iter().map(|(k, v)| (k.clone(), v.clone())));
        b.rewrite(merged);
    }
}

/// The dialect's flat answer where it has one (`Rules::flat_answer`); else `continue: false` halts the agent, and
/// on post_tool may also feed the model a reason (`Rules::post_tool_halt_feeds_model`).
fn flat_answer_or_halt(b: &mut Builder<'_>, out: &HookOutput, flow_control: bool) -> Result<(), Failure> {
    if let Some(flat) = b.rules.flat_answer {
        flat(b, out)?;
    } else if let Some(stopped) = b.rules.post_tool_halt_feeds_model
        && *b.event == Event::PostTool
        && out.continue_ == Some(false)
    {
        // codex-rs/hooks/src/events/post_tool_use.rs: the run stops with `stopReason` (else its own text), and the
        // model is told `reason`, else that same text.
        let stop = out.stop_reason.as_deref().and_then(clean).unwrap_or_else(|| stopped.into());
        let feedback = out.reason.as_deref().and_then(clean).unwrap_or_else(|| stop.clone());
        if out.decision.is_none() {
            b.block(feedback, BlockFrom::Json);
        }
        b.halt(Some(stop));
    } else if out.continue_ == Some(false) && flow_control {
        b.halt(out.stop_reason.as_deref().and_then(clean));
    }
    Ok(())
}

/// `hookSpecificOutput.permissionDecision` on pre_tool (Claude Code "PreToolUse decision control").
fn pre_tool_specific(b: &mut Builder<'_>, s: &Specific) -> Result<(), Failure> {
    let reason = s.permission_decision_reason.as_deref().and_then(clean);
    if let Some(word) = s.permission_decision.as_deref() {
        match word {
            "allow" if b.rules.pre_tool_allow_decides => b.allow(reason),
            "allow" => {}
            "deny" => {
                let reason = reason.unwrap_or_else(|| b.default_reason());
                b.block(reason, BlockFrom::Json);
            }
            "ask" => b.ask(reason),
            "defer" if b.rules.pre_tool_defers => {}
            other => {
                let words = if b.rules.pre_tool_defers {
                    "\"allow\", \"deny\", \"ask\", \"defer\""
                } else {
                    "\"allow\", \"deny\", \"ask\""
                };
                return Err(invalid(format!(
                    "field `hookSpecificOutput.permissionDecision` must be one of {words}, got \"{}\"",
                    sanitize_text(other)
                )));
            }
        }
    }
    if let Some(input) = &s.updated_input {
        let Value::Object(input) = input else {
            return Err(invalid(format!(
                "field `hookSpecificOutput.updatedInput` must be an object, got {}",
                super::wire::json_type_name(input)
            )));
        };
        b.rewrite(input.clone());
    }
    Ok(())
}

/// `hookSpecificOutput.decision` on a permission request (Claude Code "PermissionRequest decision control").
fn permission_request(b: &mut Builder<'_>, s: &Specific) -> Result<(), Failure> {
    let Some(decision) = &s.decision else { return Ok(()) };
    let message = decision.message.as_deref().and_then(clean);
    match decision.behavior.as_str() {
        "allow" => {
            b.allow(message);
            if let Some(input) = &decision.updated_input {
                let Value::Object(input) = input else {
                    return Err(invalid("field `hookSpecificOutput.decision.updatedInput` must be an object"));
                };
                b.rewrite(input.clone());
            }
        }
        "deny" => {
            // The agent's own default where the message is missing (Codex: engine/output_parser.rs
            // `permission_request_decision`).
            let reason = message
                .or_else(|| b.rules.permission_deny_reason.map(str::to_owned))
                .unwrap_or_else(|| b.default_reason());
            b.block(reason.clone(), BlockFrom::Json);
            // Claude Code: `interrupt: true` with deny also stops Claude.
            if decision.interrupt {
                b.halt(Some(reason));
            }
        }
        other => {
            return Err(invalid(format!(
                "field `hookSpecificOutput.decision.behavior` must be \"allow\" or \"deny\", got \"{}\"",
                sanitize_text(other)
            )));
        }
    }
    if decision.updated_permissions {
        b.entry(hook_types::EntryKind::Warning, "`updatedPermissions` is not supported by this engine; ignored".into());
    }
    Ok(())
}

/// Strips control characters from the text fields of a hook-supplied effect. Tool input is left alone: it is data
/// for the tool, and the host's guards re-check it.
fn sanitize_effect(effect: Effect) -> Effect {
    let s = |text: String| sanitize_text(&text);
    match effect {
        Effect::InjectReminder { message, severity } => Effect::InjectReminder { message: s(message), severity },
        Effect::AnnotateToolResult { message, severity } => {
            Effect::AnnotateToolResult { message: s(message), severity }
        }
        Effect::BlockTool { reason, severity } => Effect::BlockTool { reason: s(reason), severity },
        Effect::AllowTool { reason } => Effect::AllowTool { reason: reason.map(s) },
        Effect::AskUser { reason } => Effect::AskUser { reason: reason.map(s) },
        Effect::ProtectPath { path, reason } => Effect::ProtectPath { path: s(path), reason: s(reason) },
        Effect::RequireTool { tool_name } => Effect::RequireTool { tool_name: s(tool_name) },
        Effect::RequestContinuation { message } => Effect::RequestContinuation { message: s(message) },
        Effect::BlockTurn { reason } => Effect::BlockTurn { reason: s(reason) },
        Effect::Halt { reason } => Effect::Halt { reason: s(reason) },
        Effect::NotifyOperator { message, key } => Effect::NotifyOperator { message: s(message), key: s(key) },
        other @ (Effect::RewriteToolInput { .. } | Effect::LockTools {}) => other,
    }
}
