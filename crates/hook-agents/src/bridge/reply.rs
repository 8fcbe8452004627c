//! A dispatch's result sorted into what an agent can be told: the verdict, text for the model, a continuation, a
//! rewrite, a halt, notices for the operator — whatever the agent's output looks like.

use hook_types::{AnnotationSeverity, Effect, EntryKind, Event, RunStatus, Verdict};
use serde_json::{Map, Value};

use hook_middleware::DispatchResult;

/// What an agent is told about one dispatch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    /// The verdict of the dispatch (for a foreign event: pass).
    pub verdict: Option<Verdict>,
    /// The reason the verdict shows.
    pub reason: Option<String>,
    /// Text for the model: reminders, and notes on a tool result.
    pub context: Vec<String>,
    /// A block of a tool that already ran, to feed back to the model (post_tool).
    pub feedback: Vec<String>,
    /// turn_end: keep the run going with these messages.
    pub continuation: Vec<String>,
    /// The tool input as a hook rewrote it.
    pub rewrite: Option<Map<String, Value>>,
    /// Stop the agent's run after this event, with this reason.
    pub halt: Option<String>,
    /// For the operator, not the model: `notify_operator`, hooks that failed, effects the agent cannot carry out.
    pub notices: Vec<String>,
    /// Foreign event: the highest-precedence blocking answer of the hooks, which the agent's own rule (any block
    /// wins) makes the answer.
    pub foreign_block: Option<String>,
}

impl Reply {
    /// Sorts `result` (of a dispatch of `event`) into a reply.
    ///
    /// ```
    /// use hook_agents::bridge::Reply;
    /// use hook_middleware::pipeline::DispatchResult;
    /// use hook_types::{Effect, Event, Severity, Verdict};
    /// let mut result = DispatchResult::nothing(&Event::TurnStart);
    /// result.effects.push(Effect::InjectReminder { message: "run the tests".into(), severity: Severity::Info });
    /// let reply = Reply::of(&Event::TurnStart, &result);
    /// assert_eq!((reply.verdict, reply.context), (Some(Verdict::Pass), vec!["run the tests".to_string()]));
    /// ```
    pub fn of(event: &Event, result: &DispatchResult) -> Reply {
        let mut reply = Reply {
            verdict: Some(result.verdict),
            reason: result.reason.clone(),
            notices: result.notices.clone(),
            ..Reply::default()
        };
        for effect in &result.effects {
            match effect {
                Effect::InjectReminder { message, .. } => reply.context.push(message.clone()),
                Effect::AnnotateToolResult { message, severity: AnnotationSeverity::Info } => {
                    reply.context.push(message.clone())
                }
                Effect::AnnotateToolResult { message, severity: AnnotationSeverity::Warn } => {
                    reply.feedback.push(message.clone())
                }
                Effect::RequestContinuation { message } => reply.continuation.push(message.clone()),
                Effect::RewriteToolInput { input } => reply.rewrite = Some(input.clone()),
                Effect::Halt { reason } => {
                    reply.halt.get_or_insert_with(|| reason.clone());
                }
                Effect::NotifyOperator { message, .. } => reply.notices.push(message.clone()),
                Effect::ProtectPath { path, reason } => {
                    reply.notices.push(format!("a hook asks that `{path}` not be written ({reason})"))
                }
                Effect::RequireTool { tool_name } => {
                    reply.notices.push(format!("a hook asks that the model call the tool `{tool_name}`"))
                }
                Effect::LockTools {} => reply.notices.push("a hook asks that tools be locked for this turn".into()),
                // Carried by the verdict.
                Effect::BlockTool { .. }
                | Effect::BlockTurn { .. }
                | Effect::AllowTool { .. }
                | Effect::AskUser { .. } => {}
            }
        }
        for run in &result.runs {
            if matches!(run.status, RunStatus::Failed | RunStatus::TimedOut) {
                reply.notices.extend(run.entries.iter().filter(|e| e.kind == EntryKind::Error).map(|e| e.text.clone()));
            }
        }
        reply.notices.extend(result.diagnostics.iter().cloned());
        if event.is_foreign() {
            // Any blocking answer wins; the highest-precedence one's reason is shown (docs/events.md#other-agents-events).
            reply.verdict = None;
            reply.foreign_block = result.runs.iter().rev().find(|r| r.status == RunStatus::Blocked).map(|run| {
                run.entries
                    .iter()
                    .rev()
                    .find(|e| e.kind == EntryKind::Feedback)
                    .map(|e| e.text.clone())
                    .unwrap_or_else(|| format!("blocked by hook `{}`", run.hook_id))
            });
        }
        reply
    }

    /// The reason of a deny, or a default naming no hook.
    pub(crate) fn deny_reason(&self) -> String {
        self.reason.clone().unwrap_or_else(|| "denied by a hook".into())
    }
}
