//! `kind: evaluated`: a prompt the host evaluates — with a model, where it has one — answering a decision and a
//! reason (Claude Code's `type: "prompt"` and `type: "agent"`; see `docs/evaluated-hooks.md`).

use hook_types::{Event, Protocol};

use super::command::read_timeout;
use super::fields::HookReader;
use super::{PROMPT_MAX_CHARS, read_message};
use crate::model::{EvaluatedSpec, HookSpec};

/// The longest prompt kept: a model's prompt may be long, but not unbounded.
const EVALUATED_MAX_CHARS: usize = 8 * PROMPT_MAX_CHARS;

pub(super) fn read(hook: &mut HookReader<'_, '_>, event: Option<&Event>, protocol: Protocol) -> Option<HookSpec> {
    let _ = event;
    let prompt = if hook.has("prompt") {
        hook.string("prompt").and_then(|(prompt, field)| read_message(hook, prompt, &field, EVALUATED_MAX_CHARS))
    } else {
        hook.missing("prompt", "an evaluated hook needs `prompt` (what the host's model is asked about the event)");
        None
    };
    let timeout_ms = read_timeout(hook, protocol);
    let model = hook.string("model").map(|(model, _)| model);
    let agent = hook.bool("agent").is_some_and(|(agent, _)| agent);
    Some(HookSpec::Evaluated(EvaluatedSpec { prompt: prompt?, timeout_ms: timeout_ms?, model, agent }))
}
