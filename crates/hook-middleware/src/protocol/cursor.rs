//! Cursor's flat JSON answer (`permission`, `user_message`, `agent_message`, `followup_message`): its row's
//! `flat_answer`.

use hook_types::{Effect, Event};

use super::builder::{BlockFrom, Builder};
use super::classify::Failure;
use super::json::invalid;
use super::sanitize::{clean, sanitize_text};
use super::wire::HookOutput;

/// Cursor hooks docs: `permission: allow | deny | ask` with `user_message` (shown to the user) and `agent_message`
/// (sent to the agent); `continue: false` stops (on beforeSubmitPrompt: the prompt is not sent);
/// `followup_message` on stop sends a follow-up.
pub(super) fn cursor(b: &mut Builder<'_>, out: &HookOutput) -> Result<(), Failure> {
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
