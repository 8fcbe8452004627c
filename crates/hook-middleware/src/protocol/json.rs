//! A hook's JSON answer → effects and a decision, per dialect. The field reading is in `wire`; what a block, a
//! halt or context means on each event is in `builder`; this file holds which words each agent accepts and Codex's
//! extra rules.

use hook_types::{Effect, EffectError, Event, Protocol};
use serde_json::Value;

use super::builder::{BlockFrom, Builder};
use super::classify::Failure;
use super::rules::{Rules, Verb};
use super::sanitize::{clean, sanitize_text};
use super::wire::{HookOutput, Specific};

fn invalid(message: impl Into<String>) -> Failure {
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
    // Gemini CLI: SessionStart, SessionEnd, Notification and PreCompress are advisory, their flow-control fields
    // ignored; AfterTool reads them (a deny replaces the tool result, `continue: false` stops the agent).
    let advisory = matches!(b.event, Event::SessionStart | Event::SessionEnd | Event::Notification | Event::Compaction);
    let flow_control = !(b.hook.protocol == Protocol::Gemini && advisory);
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

/// The flat answers of GitHub Copilot CLI and Cursor; for the others `continue: false` halts the agent (Codex's
/// PostToolUse also feeds the model a reason).
fn flat_answer_or_halt(b: &mut Builder<'_>, out: &HookOutput, flow_control: bool) -> Result<(), Failure> {
    let protocol = b.hook.protocol;
    if protocol == Protocol::Copilot {
        copilot(b, out)?;
    } else if protocol == Protocol::Cursor {
        cursor(b, out)?;
    } else if protocol == Protocol::Codex && *b.event == Event::PostTool && out.continue_ == Some(false) {
        // codex-rs/hooks/src/events/post_tool_use.rs: the run stops with `stopReason` (else "PostToolUse hook
        // stopped execution"), and the model is told `reason`, else that same text.
        let stop =
            out.stop_reason.as_deref().and_then(clean).unwrap_or_else(|| "PostToolUse hook stopped execution".into());
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
        match (word, b.hook.protocol) {
            // Codex's PreToolUse has no approval to skip: `allow` only carries `updatedInput`
            // (events/pre_tool_use.rs `permission_decision_allow_can_update_input` records no allow).
            ("allow", Protocol::Codex) => {}
            ("allow", _) => b.allow(reason),
            ("deny", _) => {
                let reason = reason.unwrap_or_else(|| b.default_reason());
                b.block(reason, BlockFrom::Json);
            }
            ("ask", _) => b.ask(reason),
            // Claude Code: `defer` hands the call to the normal permission flow, as if the hook had not decided.
            ("defer", Protocol::Claude) => {}
            (other, protocol) => {
                let words = if protocol == Protocol::Claude {
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
            // Codex's default when the message is missing: "PermissionRequest hook denied approval"
            // (engine/output_parser.rs `permission_request_decision`).
            let reason = message.unwrap_or_else(|| match b.hook.protocol {
                Protocol::Codex => "PermissionRequest hook denied approval".into(),
                _ => b.default_reason(),
            });
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

/// Cursor hooks docs: `permission: allow | deny | ask` with `user_message` (shown to the user) and `agent_message`
/// (sent to the agent); `continue: false` stops (on beforeSubmitPrompt: the prompt is not sent);
/// `followup_message` on stop sends a follow-up.
fn cursor(b: &mut Builder<'_>, out: &HookOutput) -> Result<(), Failure> {
    let user = out.user_message.as_deref().and_then(clean);
    let agent = out.agent_message.as_deref().and_then(clean);
    let mut agent_used = false;
    let mut user_used = out.continue_ == Some(false) && *b.event == Event::TurnStart;
    if let Some(word) = out.permission.as_deref() {
        match word {
            "allow" => b.allow(agent.clone()),
            "ask" => b.ask(agent.clone().or_else(|| user.clone())),
            "deny" => {
                agent_used = agent.is_some();
                user_used |= agent.is_none();
                let reason = agent.clone().or_else(|| user.clone()).unwrap_or_else(|| b.default_reason());
                b.block(reason, BlockFrom::Json);
            }
            other => {
                return Err(invalid(format!(
                    "field `permission` must be one of \"allow\", \"deny\", \"ask\", got \"{}\"",
                    sanitize_text(other)
                )));
            }
        }
    }
    if let Some(user) = user.as_ref().filter(|_| !user_used) {
        b.entry(hook_types::EntryKind::Feedback, user.clone());
    }
    if let Some(agent) = agent.filter(|_| !agent_used) {
        b.context(agent);
    }
    if let Some(followup) = out.followup_message.as_deref().and_then(clean)
        && *b.event == Event::TurnEnd
    {
        b.effect(Effect::RequestContinuation { message: followup });
    }
    if out.continue_ == Some(false) {
        if *b.event == Event::TurnStart {
            // beforeSubmitPrompt: `continue: false` keeps the prompt from being sent; the agent itself goes on.
            let reason = user.unwrap_or_else(|| b.default_reason());
            b.block(reason, BlockFrom::Json);
        } else {
            b.halt(user);
        }
    }
    Ok(())
}

/// GitHub Copilot CLI's flat answer (hooks reference, "`preToolUse` decision control", "`permissionRequest`
/// decision control", "`postToolUse` output"): `permissionDecision` allow | deny | ask with
/// `permissionDecisionReason` and `modifiedArgs` on preToolUse; `behavior` allow | deny with `message` and
/// `interrupt` on permissionRequest; `additionalContext` wherever the event takes it. `decision` on agentStop and
/// subagentStop is read with the shared fields.
fn copilot(b: &mut Builder<'_>, out: &HookOutput) -> Result<(), Failure> {
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
