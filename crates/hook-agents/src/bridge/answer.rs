//! The bridge's answer in each agent's output protocol: exit code, stdout JSON, stderr.
//!
//! | verdict or effect | Claude Code | Codex | Gemini CLI | Cursor |
//! |---|---|---|---|---|
//! | deny (pre_tool) | `permissionDecision: deny` + reason | same | `decision: deny` + reason | `permission: deny` + messages |
//! | ask (pre_tool) | `permissionDecision: ask` | deny, "approval is required" | deny, "approval is required" | `permission: ask` |
//! | allow (pre_tool) | `permissionDecision: allow` | nothing (Codex skips no approval) | `decision: allow` | `permission: allow` |
//! | rewrite (pre_tool) | `updatedInput` | `permissionDecision: allow` + `updatedInput` | `hookSpecificOutput.tool_input` | deny: Cursor cannot apply it |
//! | deny (turn_start) | `decision: block` + reason | same | `decision: deny` + reason | `continue: false` + `user_message` |
//! | deny / allow (permission_request) | `hookSpecificOutput.decision.behavior` | same | — | — |
//! | context (turn_start, session_start, post_tool) | `hookSpecificOutput.additionalContext` | same | same | `additional_context` (session_start, post_tool) |
//! | context (pre_tool) | `hookSpecificOutput.additionalContext` | same | — | `agent_message` |
//! | continuation (turn_end) | `decision: block` + reason | same | `decision: deny` + reason | `followup_message` |
//! | a tool result's block (post_tool) | `decision: block` + reason | same | `decision: deny` + reason | `additional_context` |
//! | halt | `continue: false` + `stopReason` | same, where Codex takes it | same | `continue: false` |
//! | notices (hook failures, `notify_operator`) | `systemMessage` | same | same | `user_message` |
//! | a foreign event some hook blocked | exit 2, reason on stderr | same | same | exit 2 and `permission: deny` |
//!
//! GitHub Copilot CLI reads a flat answer ([`WireShape::Copilot`]): `permissionDecision` allow | deny | ask with
//! `permissionDecisionReason` and `modifiedArgs` on preToolUse; `behavior` allow | deny with `message` and `interrupt`
//! on permissionRequest; `decision: "block"` with `reason` on agentStop and subagentStop; `additionalContext` on
//! sessionStart, postToolUse, postToolUseFailure and notification. It has no field for the user: notices go to
//! stderr with exit 2 (its "warning shown to the user") where nothing else is said and the event is no gate, into
//! the reason of a deny, and otherwise to stderr beside an exit-0 answer, whose display Copilot does not promise. It drops a command
//! hook's answer on userPromptSubmitted: a deny or context there cannot reach it, and the bridge says so as a warning
//! (exit 2) instead of passing in silence.
//!
//! Qwen Code and Factory Droid print no `systemMessage` in a headless run (`qwen -p`, `droid exec`): for an agent whose
//! table entry lists `Answers::notices_to_model`, the notices also go to the model, marked `[hook notice for the
//! user]`, as `additionalContext` on the events listed there and after a deny's reason on pre_tool.
//! What the agent's own hooks answered beyond the engine's vocabulary (Claude Code's `defer`, `updatedToolOutput`,
//! `retry`, the `hookSpecificOutput` of its other events) is carried into a Claude-shaped answer as the agent would
//! fold it (see `carried.rs`).
//!
//! Text that has no place in the agent's output for that event (context on Claude Code's `Stop`) becomes a notice,
//! so the operator sees what the model did not. Every answer is exit 0 with compact JSON (or nothing) on stdout,
//! except the blocking forms.
//!
//! **Failures of the bridge itself** ([`failure`]): on a gate event, or when the event is not known (unreadable
//! input, a bad flag before the input was read), the agent's blocking form — exit 2 with the reason on stderr
//! (Claude Code, Codex, Gemini CLI), a deny JSON and exit 2 (Cursor), both at once when the agent is not known. On
//! any other event, the agent's non-blocking error (exit 1, the reason on stderr): blocking there means something
//! else — exit 2 on `Stop` keeps the agent running with the error as its next instruction — and a broken bridge
//! must not loop the agent.

use crate::install::{Agent, AgentInstall};
use hook_types::{Event, EventClass, Verdict, WireShape};
use serde_json::{Map, Value, json};

use super::input::AgentInput;
use super::reply::Reply;
use hook_middleware::DispatchResult;

/// What the bridge prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The exit code.
    pub exit_code: u8,
    /// stdout: one line of compact JSON, or nothing.
    pub stdout: String,
    /// stderr: the reason of a blocking answer or a failure, or nothing.
    pub stderr: String,
}

/// The agent's blocking exit code (Claude Code, Codex, Gemini CLI; Cursor reads it as a deny too).
pub const BLOCKING_EXIT: u8 = 2;
/// The agent's non-blocking error exit code.
pub const ERROR_EXIT: u8 = 1;

/// Every exit status of `hook bridge`. The fail-closed wrapper `hook install` writes passes these through and reads
/// any other as the bridge failing to answer, so a hook's own status that the bridge hands back unchanged is made one
/// of them too: [`BLOCKING_EXIT`] where the engine, reading it by the agent's rules, denied, else [`ERROR_EXIT`].
pub const BRIDGE_STATUSES: [u8; 3] = [0, ERROR_EXIT, BLOCKING_EXIT];

/// The bridge's exit statuses on a gate event: it never exits [`ERROR_EXIT`] there, so the installed handler can
/// read a 1 (the npm launcher's status when its platform package is missing, a crash a runtime reports as 1) as the
/// bridge failing to answer, and deny. Claude Code and Codex read 1 as a non-blocking error and run the tool.
pub const GATE_STATUSES: [u8; 2] = [0, BLOCKING_EXIT];

/// The bridge's answer to `read` after the dispatch that gave `result`, in the agent's output protocol (see the
/// module docs).
///
/// ```
/// use hook_agents::install::Agent;
/// use hook_agents::bridge::{answer, parse_input};
/// use hook_middleware::pipeline::DispatchResult;
/// use hook_types::{Event, Verdict};
/// let read = parse_input(Agent::Codex, br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#).unwrap();
/// let mut result = DispatchResult::nothing(&Event::PreTool);
/// result.verdict = Verdict::Ask;
/// let out = answer(&read, &result);
/// assert_eq!(out.exit_code, 0);
/// assert!(out.stdout.contains(r#""permissionDecision":"deny""#) && out.stdout.contains("approval is required"));
/// ```
pub fn answer(read: &AgentInput, result: &DispatchResult) -> Answer {
    if let Some(replayed) = replay(read, result) {
        return replayed;
    }
    let event = &read.input.event;
    let mut reply = Reply::of(event, result);
    if let Some(reason) = reply.foreign_block.take() {
        return blocking(Some(read.agent), Some(&read.event_name), &reason);
    }
    // The agent table says which answer the agent reads (`Agent::wire`).
    let shape = read.agent.agent().wire;
    let out = match shape {
        WireShape::GeminiCli => gemini(read, &mut reply),
        WireShape::Cursor => cursor(read, &mut reply),
        // Crush reads Claude Code's `hookSpecificOutput` beside its own envelope.
        WireShape::ClaudeCode | WireShape::Crush => {
            let mut out = claude_or_codex(read, &mut reply);
            super::carried::merge(read, result, &mut out);
            out
        }
        WireShape::Copilot => return copilot(read, &mut reply),
        WireShape::Cline => cline(read, &mut reply),
        WireShape::Auggie => auggie(read, &mut reply),
    };
    let always_json = matches!(shape, WireShape::GeminiCli | WireShape::Cursor);
    let stdout = if out.is_empty() && !always_json { String::new() } else { Value::Object(out).to_string() + "\n" };
    Answer { exit_code: 0, stdout, stderr: String::new() }
}

/// The hook's own answer, handed back unchanged, when the dispatch ran one hook and nothing else, that hook follows
/// the invoking agent's protocol, and the agent reads its answer exactly as the engine did (the run kept its
/// [`Replay`](hook_types::Replay)): the agent then shows what it shows for its own hook — its status (Codex's
/// `Failed`, Gemini CLI's "Hook(s) [...] failed", Claude Code's non-blocking error), its words ("PreToolUse:Bash hook
/// error: …", its default deny message) and plain text as plain text. Anything the pipeline itself has to say (a
/// refused continuation, a skipped hook, a configuration error) rules it out.
fn replay(read: &AgentInput, result: &DispatchResult) -> Option<Answer> {
    let [run] = result.runs.as_slice() else { return None };
    if run.protocol != read.agent || !result.diagnostics.is_empty() || !result.notices.is_empty() {
        return None;
    }
    let replay = run.replay.as_ref()?;
    let exit_code = u8::try_from(replay.exit_code).ok()?;
    let gate = read.agent.event(&read.event_name).event.class() == EventClass::Gate;
    // A status the installed handler would read as the bridge failing becomes the one of the bridge's statuses the
    // agent reads the same way: the blocking one where the engine, reading it by the agent's rules, denied (Gemini
    // CLI denies from exit 2 up), the non-blocking error elsewhere.
    // On a gate the bridge never exits 1 (GATE_STATUSES): a hook's non-blocking error there is answered as the
    // engine read it instead of replayed.
    let exit_code = match exit_code {
        code if gate && code == ERROR_EXIT && result.verdict != hook_types::Verdict::Deny => return None,
        code if BRIDGE_STATUSES.contains(&code) => code,
        _ if result.verdict == hook_types::Verdict::Deny => BLOCKING_EXIT,
        _ if gate => return None,
        _ => ERROR_EXIT,
    };
    Some(Answer { exit_code, stdout: replay.stdout.clone(), stderr: replay.stderr.clone() })
}

/// The answer when the bridge itself failed: the agent's blocking form on a gate event or an unknown one, its
/// non-blocking error elsewhere (see the module docs). `agent` is `None` when even the protocol is not known;
/// `event_name` is the agent's name for the event, when the input was read.
///
/// ```
/// use hook_agents::install::Agent;
/// use hook_agents::bridge::failure;
/// let out = failure(Some(Agent::Cursor), Some("beforeShellExecution"), "cannot load the configuration");
/// assert_eq!(out.exit_code, 2);
/// assert!(out.stdout.starts_with(r#"{"permission":"deny""#));
/// assert_eq!(failure(Some(Agent::Claude), Some("Stop"), "boom").exit_code, 1);
/// ```
pub fn failure(agent: Option<Agent>, event_name: Option<&str>, message: &str) -> Answer {
    let reason = format!("hook bridge failed: {message}");
    let gate = match (agent, event_name) {
        (Some(agent), Some(name)) => agent.event(name).event.class() == EventClass::Gate,
        _ => true,
    };
    if gate {
        return blocking(agent, event_name, &reason);
    }
    Answer { exit_code: ERROR_EXIT, stdout: String::new(), stderr: reason + "\n" }
}

/// The agent's blocking form: exit 2 with the reason on stderr; for Cursor (or an unknown agent) also the deny JSON
/// Cursor reads (`continue: false` on `beforeSubmitPrompt`), which the others ignore on exit 2.
fn blocking(agent: Option<Agent>, event_name: Option<&str>, reason: &str) -> Answer {
    let stdout = match agent.map(|a| a.agent().wire) {
        // Cline reads no exit code: only `cancel` stops it (and its whole run).
        Some(WireShape::Cline) => json!({"cancel": true, "errorMessage": reason}).to_string() + "\n",
        // GitHub Copilot CLI merges stdout JSON with the deny exit 2 means on preToolUse: the reason reaches it.
        Some(WireShape::Copilot) if event_name == Some("preToolUse") => {
            json!({"permissionDecision": "deny", "permissionDecisionReason": reason}).to_string() + "\n"
        }
        Some(WireShape::Copilot) if event_name == Some("permissionRequest") => {
            json!({"behavior": "deny", "message": reason}).to_string() + "\n"
        }
        Some(WireShape::Cursor) | None => {
            let json = if event_name == Some("beforeSubmitPrompt") {
                json!({"continue": false, "user_message": reason})
            } else {
                json!({"permission": "deny", "user_message": reason, "agent_message": reason})
            };
            json.to_string() + "\n"
        }
        Some(_) => String::new(),
    };
    Answer { exit_code: BLOCKING_EXIT, stdout, stderr: format!("{reason}\n") }
}

/// "approval is required" for an agent that cannot ask: the ask becomes a deny that says so.
fn approval_required(reason: Option<&str>) -> String {
    match reason {
        Some(reason) => format!("approval is required and this agent cannot ask for it here: {reason}"),
        None => "approval is required and this agent cannot ask for it here".to_owned(),
    }
}

fn joined(texts: &[String]) -> Option<String> {
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// Whether the agent runs the tool on an `ask` in the permission mode its input names, asking no one (the table's
/// `ask_runs_in_modes`: Factory Droid's `auto-*` modes). There an ask is a deny saying approval is required.
fn approves_by_itself(read: &AgentInput) -> bool {
    let modes = read.agent.agent().answers.ask_runs_in_modes;
    read.input.permission_mode.as_deref().is_some_and(|mode| modes.iter().any(|word| mode.contains(word)))
}

/// Claude Code's output, and Codex's where it takes the same fields; Codex rejects fields its event does not define,
/// so each field is written only where Codex's schema has it.
fn claude_or_codex(read: &AgentInput, reply: &mut Reply) -> Map<String, Value> {
    let codex = read.agent == Agent::Codex;
    // The table says which agents cannot ask (Codex; Crush and OpenCode's plugin, which read no `ask`).
    let cannot_ask = !read.agent.agent().answers.ask || approves_by_itself(read);
    let input = &read.input;
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut context_taken = false;
    notices_for_model(read, reply);
    match &input.event {
        Event::PreTool => {
            let (decision, reason) = match reply.verdict {
                Some(Verdict::Deny) => (Some("deny"), Some(reply.deny_reason())),
                Some(Verdict::Ask) if cannot_ask => (Some("deny"), Some(approval_required(reply.reason.as_deref()))),
                Some(Verdict::Ask) => (Some("ask"), reply.reason.clone()),
                Some(Verdict::Allow) if !codex => (Some("allow"), reply.reason.clone()),
                _ => (None, None),
            };
            let rewrite = reply.rewrite.take().filter(|_| decision != Some("deny"));
            // Codex takes `updatedInput` only with `permissionDecision: allow` (which skips no approval there).
            let decision = if codex && rewrite.is_some() { Some("allow") } else { decision };
            if let Some(decision) = decision {
                specific.insert("permissionDecision".into(), decision.into());
            }
            if let Some(reason) = reason {
                specific.insert("permissionDecisionReason".into(), reason.into());
            }
            if let Some(rewrite) = rewrite {
                specific.insert("updatedInput".into(), Value::Object(rewrite));
            }
            context_taken = true;
        }
        Event::PermissionRequest => {
            let decision = match reply.verdict {
                Some(Verdict::Deny) => {
                    let mut d = json!({"behavior": "deny", "message": reply.deny_reason()});
                    if reply.halt.is_some() && !codex {
                        d["interrupt"] = true.into();
                    }
                    Some(d)
                }
                Some(Verdict::Allow) => match reply.rewrite.take() {
                    Some(_) if codex => {
                        reply.notices.push(
                            "a hook rewrote the tool input and approved it; Codex cannot apply a rewrite here, so \
                             the request goes to the approver unchanged"
                                .into(),
                        );
                        None
                    }
                    Some(input) => Some(json!({"behavior": "allow", "updatedInput": input})),
                    None => Some(json!({"behavior": "allow"})),
                },
                _ => None,
            };
            if let Some(decision) = decision {
                specific.insert("decision".into(), decision);
            }
        }
        Event::TurnStart => {
            if reply.verdict == Some(Verdict::Deny) {
                out.insert("decision".into(), "block".into());
                out.insert("reason".into(), reply.deny_reason().into());
            }
            context_taken = true;
        }
        Event::PostTool => {
            if let Some(feedback) = joined(&reply.feedback) {
                if input.is_error && !codex {
                    // PostToolUseFailure takes context only.
                    reply.context.push(feedback);
                } else {
                    out.insert("decision".into(), "block".into());
                    out.insert("reason".into(), feedback.into());
                }
            }
            context_taken = true;
        }
        Event::TurnEnd => {
            if let Some(message) = joined(&reply.continuation) {
                out.insert("decision".into(), "block".into());
                out.insert("reason".into(), message.into());
            }
        }
        Event::SessionStart => context_taken = true,
        _ => {}
    }
    // Codex rejects `continue: false` on PreToolUse and PermissionRequest; there a halt already denies.
    let halt_taken = !(codex && matches!(input.event, Event::PreTool | Event::PermissionRequest));
    common_fields(read, reply, &mut out, specific, context_taken, halt_taken);
    out
}

/// Where the agent may show its user no hook message ([`Answers::notices_to_model`](hook_types::Answers)), the
/// notices also go to the model, marked as for the user: as context on the events whose context it reads, and after
/// a deny's reason on pre_tool. They stay in the user's channel too.
fn notices_for_model(read: &AgentInput, reply: &mut Reply) {
    let events = read.agent.agent().answers.notices_to_model;
    let Some(notices) = reply_notices(reply).filter(|_| !events.is_empty()) else { return };
    let event = &read.input.event;
    if events.contains(event) {
        reply.context.push(format!("[hook notice for the user] {notices}"));
    } else if *event == Event::PreTool && reply.verdict == Some(Verdict::Deny) {
        // A notice the deny's reason already says (the failure that failed closed) is not said twice.
        let reason = reply.deny_reason();
        let untold: Vec<&str> = reply.notices.iter().map(String::as_str).filter(|n| !reason.contains(n)).collect();
        if !untold.is_empty() {
            reply.reason = Some(format!("{reason}\n\n[hook notice for the user] {}", untold.join("\n")));
        }
    }
}

/// Gemini CLI's output: `decision: allow | deny` with `reason`, `hookSpecificOutput`, `continue`, `systemMessage`.
fn gemini(read: &AgentInput, reply: &mut Reply) -> Map<String, Value> {
    let input = &read.input;
    let mut out = Map::new();
    let mut specific = Map::new();
    let decide = |out: &mut Map<String, Value>, word: &str, reason: Option<String>| {
        out.insert("decision".into(), word.into());
        if let Some(reason) = reason {
            out.insert("reason".into(), reason.into());
        }
    };
    let mut context_taken = true;
    match &input.event {
        Event::PreTool => {
            match reply.verdict {
                Some(Verdict::Deny) => decide(&mut out, "deny", Some(reply.deny_reason())),
                // BeforeTool takes `ask` since Gemini CLI 0.36.0, but in `-p` mode it then waits for a confirmation
                // nobody can give. A deny saying approval is required stays closed and lets the run go on; a Gemini
                // CLI hook's own `ask` still reaches it unchanged when the bridge hands that answer back.
                Some(Verdict::Ask) => decide(&mut out, "deny", Some(approval_required(reply.reason.as_deref()))),
                Some(Verdict::Allow) => decide(&mut out, "allow", reply.reason.clone()),
                _ => {}
            }
            if let Some(rewrite) = reply.rewrite.take().filter(|_| reply.verdict != Some(Verdict::Deny)) {
                specific.insert("tool_input".into(), Value::Object(rewrite));
            }
            // BeforeTool documents no `additionalContext`.
            context_taken = false;
        }
        Event::TurnStart if reply.verdict == Some(Verdict::Deny) => {
            decide(&mut out, "deny", Some(reply.deny_reason()));
        }
        Event::PostTool => {
            // A block of a tool that already ran replaces its result for the model (AfterTool `decision: deny`).
            if let Some(feedback) = joined(&reply.feedback) {
                decide(&mut out, "deny", Some(feedback));
            }
        }
        Event::TurnEnd => {
            // AfterAgent `decision: deny` rejects the response and sends the reason as the next prompt.
            if let Some(message) = joined(&reply.continuation) {
                decide(&mut out, "deny", Some(message));
            }
            context_taken = false;
        }
        Event::TurnStart | Event::SessionStart => {}
        _ => context_taken = false,
    }
    common_fields(read, reply, &mut out, specific, context_taken, true);
    out
}

/// The fields Claude Code, Codex and Gemini CLI answer alike, after the event's own: the context as
/// `hookSpecificOutput.additionalContext` where the event takes it (`context_taken`), else a notice;
/// `hookSpecificOutput`, named by the event, when it holds anything; a halt as `continue: false` with `stopReason`
/// where the agent takes it there (`halt_taken`; the halt is used up either way); the notices as `systemMessage`.
fn common_fields(
    read: &AgentInput,
    reply: &mut Reply,
    out: &mut Map<String, Value>,
    mut specific: Map<String, Value>,
    context_taken: bool,
    halt_taken: bool,
) {
    if context_taken {
        if let Some(context) = joined(&reply.context) {
            specific.insert("additionalContext".into(), context.into());
        }
    } else {
        untold_context(read, reply);
    }
    if !specific.is_empty() {
        let mut with_name = Map::new();
        with_name.insert("hookEventName".into(), read.event_name.clone().into());
        with_name.extend(specific);
        out.insert("hookSpecificOutput".into(), Value::Object(with_name));
    }
    if let Some(reason) = reply.halt.take().filter(|_| halt_taken) {
        out.insert("continue".into(), false.into());
        out.insert("stopReason".into(), reason.into());
    }
    if let Some(notices) = reply_notices(reply) {
        out.insert("systemMessage".into(), notices.into());
    }
}

/// Cursor's flat output: `permission` with `user_message` / `agent_message`, `continue`, `followup_message`,
/// `additional_context`.
fn cursor(read: &AgentInput, reply: &mut Reply) -> Map<String, Value> {
    let input = &read.input;
    let mut out = Map::new();
    let mut user_message = None;
    match &input.event {
        Event::PreTool => {
            let rewritten = reply.rewrite.take().is_some() && reply.verdict != Some(Verdict::Deny);
            let (permission, message) = match reply.verdict {
                Some(Verdict::Deny) => ("deny", Some(reply.deny_reason())),
                // Running the original input would run what no hook approved.
                _ if rewritten => (
                    "deny",
                    Some(
                        "a hook rewrote this tool input and Cursor cannot apply a rewrite; the original was not run"
                            .into(),
                    ),
                ),
                Some(Verdict::Ask) => ("ask", reply.reason.clone()),
                Some(Verdict::Allow) => ("allow", reply.reason.clone()),
                _ => ("", None),
            };
            if !permission.is_empty() {
                out.insert("permission".into(), permission.into());
            }
            if let Some(message) = &message {
                user_message = Some(message.clone());
            }
            let mut agent_message: Vec<String> = message.into_iter().collect();
            if permission != "deny" {
                agent_message.append(&mut reply.context);
            }
            if let Some(text) = joined(&agent_message) {
                out.insert("agent_message".into(), text.into());
            }
        }
        Event::TurnStart => {
            let denied = reply.verdict == Some(Verdict::Deny);
            out.insert("continue".into(), (!denied).into());
            if denied {
                user_message = Some(reply.deny_reason());
            }
            untold_context(read, reply);
        }
        Event::TurnEnd => {
            if let Some(message) = joined(&reply.continuation) {
                out.insert("followup_message".into(), message.into());
            }
            untold_context(read, reply);
        }
        Event::SessionStart | Event::PostTool => {
            let mut context = std::mem::take(&mut reply.feedback);
            context.append(&mut reply.context);
            if let Some(text) = joined(&context) {
                out.insert("additional_context".into(), text.into());
            }
        }
        _ => untold_context(read, reply),
    }
    if let Some(reason) = reply.halt.take() {
        out.insert("continue".into(), false.into());
        reply.notices.insert(0, reason);
    }
    let mut messages: Vec<String> = user_message.into_iter().collect();
    messages.extend(reply_notices(reply));
    if let Some(text) = joined(&messages) {
        out.insert("user_message".into(), text.into());
    }
    out
}

/// Cline's answer (`parseHookControl`, Cline 3.0.65), read on PreToolUse and PostToolUse only: `cancel: true` with
/// `errorMessage` stops the run (Cline has no deny of one call: the tool does not run and the task ends, with the
/// reason as its error), `contextModification` is added for the model, `overrideInput` replaces the tool input.
/// Cline has no `ask`, no allow that skips an approval, no continuation and no message for the user alone: an ask
/// becomes a cancel saying approval is required, notices go with the cancel's reason, or else to the model as
/// context marked for the user. On every other event Cline runs the bridge detached and reads nothing: the answer
/// is written for the record, and a deny there cannot stop Cline (docs/agents.md#cline).
fn cline(read: &AgentInput, reply: &mut Reply) -> Map<String, Value> {
    let input = &read.input;
    let mut out = Map::new();
    let mut cancel: Option<String> = None;
    let mut context = std::mem::take(&mut reply.context);
    match &input.event {
        Event::PreTool => {
            match reply.verdict {
                Some(Verdict::Deny) => cancel = Some(reply.deny_reason()),
                Some(Verdict::Ask) => cancel = Some(approval_required(reply.reason.as_deref())),
                _ => {}
            }
            if let Some(rewrite) = reply.rewrite.take().filter(|_| cancel.is_none()) {
                out.insert("overrideInput".into(), Value::Object(rewrite));
            }
        }
        Event::PostTool => context.append(&mut reply.feedback),
        Event::TurnStart if reply.verdict == Some(Verdict::Deny) => {
            // Detached: Cline never reads this. Written so the record shows what the engine answered.
            cancel = Some(reply.deny_reason());
        }
        Event::TurnEnd => {
            for message in reply.continuation.drain(..) {
                reply.notices.push(format!("a hook asked to keep the run going, which Cline cannot do: {message}"));
            }
        }
        _ => {}
    }
    if let Some(reason) = reply.halt.take() {
        cancel = Some(match cancel {
            Some(deny) if deny != reason => format!("{deny}\n\n{reason}"),
            Some(deny) => deny,
            None => reason,
        });
    }
    let notices = reply_notices(reply);
    match cancel {
        Some(reason) => {
            let reason = match notices.filter(|notices| !reason.contains(notices.as_str())) {
                Some(notices) => format!("{reason}\n\n{notices}"),
                None => reason,
            };
            out.insert("cancel".into(), true.into());
            out.insert("errorMessage".into(), reason.into());
        }
        None => {
            if let Some(notices) = notices {
                context.push(format!("[hook notice for the user] {notices}"));
            }
            if let Some(text) = joined(&context) {
                out.insert("contextModification".into(), text.into());
            }
        }
    }
    out
}

/// GitHub Copilot CLI's answer (see the module docs).
fn copilot(read: &AgentInput, reply: &mut Reply) -> Answer {
    let input = &read.input;
    let mut out = Map::new();
    let mut context_taken = false;
    match &input.event {
        Event::PreTool => {
            let rewrite = reply.rewrite.take().filter(|_| reply.verdict != Some(Verdict::Deny));
            let (decision, reason) = match reply.verdict {
                Some(Verdict::Deny) => {
                    // A deny's reason is what Copilot shows: the notices ride along.
                    let deny = reply.deny_reason();
                    let notices: Vec<String> = std::mem::take(&mut reply.notices);
                    let extra: Vec<String> = notices.into_iter().filter(|n| *n != deny).collect();
                    let reason = std::iter::once(deny).chain(extra).collect::<Vec<_>>().join("\n");
                    (Some("deny"), Some(reason))
                }
                Some(Verdict::Ask) => (Some("ask"), reply.reason.clone()),
                Some(Verdict::Allow) => (Some("allow"), reply.reason.clone()),
                _ => (None, None),
            };
            if let Some(decision) = decision {
                out.insert("permissionDecision".into(), decision.into());
            }
            if let Some(reason) = reason {
                out.insert("permissionDecisionReason".into(), reason.into());
            }
            if let Some(rewrite) = rewrite {
                out.insert("modifiedArgs".into(), Value::Object(rewrite));
            }
        }
        Event::PermissionRequest => match reply.verdict {
            Some(Verdict::Deny) => {
                out.insert("behavior".into(), "deny".into());
                out.insert("message".into(), reply.deny_reason().into());
                if reply.halt.take().is_some() {
                    out.insert("interrupt".into(), true.into());
                }
            }
            Some(Verdict::Allow) if reply.rewrite.is_some() => reply.notices.push(
                "a hook rewrote the tool input and approved it; GitHub Copilot CLI cannot apply a rewrite here, so \
                 the request goes to its permission flow unchanged"
                    .into(),
            ),
            Some(Verdict::Allow) => {
                out.insert("behavior".into(), "allow".into());
            }
            _ => {}
        },
        Event::TurnStart if reply.verdict == Some(Verdict::Deny) => {
            reply.notices.insert(
                0,
                format!(
                    "a hook denied this prompt, but GitHub Copilot CLI ignores a command hook's answer on \
                     userPromptSubmitted, so the prompt went on: {}",
                    reply.deny_reason()
                ),
            );
        }
        Event::PostTool => {
            reply.context.append(&mut reply.feedback);
            context_taken = true;
        }
        Event::TurnEnd => {
            if let Some(message) = joined(&reply.continuation) {
                out.insert("decision".into(), "block".into());
                out.insert("reason".into(), message.into());
            }
        }
        Event::SessionStart | Event::Notification => context_taken = true,
        _ => {}
    }
    if context_taken {
        if let Some(context) = joined(&reply.context) {
            out.insert("additionalContext".into(), context.into());
        }
        reply.context.clear();
    } else {
        untold_context(read, reply);
    }
    if let Some(reason) = reply.halt.take() {
        reply.notices.push(format!("a hook asked to stop the run, which GitHub Copilot CLI cannot do here: {reason}"));
    }
    let notices = reply_notices(reply).map(|n| n + "\n").unwrap_or_default();
    let gate = matches!(input.event, Event::PreTool | Event::PermissionRequest);
    if out.is_empty() && !notices.is_empty() && !gate {
        // Exit 2 outside preToolUse and permissionRequest is Copilot's warning shown to the user.
        return Answer { exit_code: BLOCKING_EXIT, stdout: String::new(), stderr: notices };
    }
    let stdout = if out.is_empty() { String::new() } else { Value::Object(out).to_string() + "\n" };
    Answer { exit_code: 0, stdout, stderr: notices }
}

/// Auggie's answer (`bao`, `zIt` and `_7n` of its 0.36.0 bundle): Claude Code's, where Auggie reads it. PreToolUse
/// takes `hookSpecificOutput` with `permissionDecision` (deny blocks and its reason reaches the model; an ask is a
/// deny saying approval is required, since Auggie reads `ask` as no decision) and `updatedInput`, but no context;
/// PostToolUse takes `decision: "block"`, `reason` and `additionalContext` inside `hookSpecificOutput`, appended to
/// the tool result the model reads. On the other events Auggie drops every answer but `systemMessage` (a `hookSpecificOutput` named
/// by `PromptSubmit` would even void the whole answer), so what the model was to get there is a notice for the user.
fn auggie(read: &AgentInput, reply: &mut Reply) -> Map<String, Value> {
    let event = read.input.event.clone();
    let mut out = Map::new();
    let mut specific = Map::new();
    match event {
        // PreToolUse's answer schema has no `additionalContext`: Auggie strips it, so the operator is told instead.
        Event::PreTool => {
            untold_context(read, reply);
            return claude_or_codex(read, reply);
        }
        Event::PostTool => {
            if let Some(feedback) = joined(&reply.feedback) {
                specific.insert("decision".into(), "block".into());
                specific.insert("reason".into(), feedback.into());
            }
        }
        _ => {
            let dropped = match event {
                Event::TurnStart if reply.verdict == Some(Verdict::Deny) => Some(reply.deny_reason()),
                Event::TurnEnd => joined(&reply.continuation),
                _ => None,
            };
            if let Some(text) = dropped {
                reply.notices.push(format!(
                    "{} does not read a hook's answer on {}, so this did not reach it: {text}",
                    read.agent.display_name(),
                    read.event_name
                ));
            }
        }
    }
    // Auggie stops a run from no hook's answer but a PreToolUse deny.
    if let Some(reason) = reply.halt.take() {
        let agent = read.agent.display_name();
        reply
            .notices
            .push(format!("a hook asked to stop the run, which {agent} cannot do from {}: {reason}", read.event_name));
    }
    let context_taken = event == Event::PostTool;
    common_fields(read, reply, &mut out, specific, context_taken, false);
    out
}

/// Context the agent's output has no place for on this event: the operator is told what the model was not.
fn untold_context(read: &AgentInput, reply: &mut Reply) {
    let context = std::mem::take(&mut reply.context);
    for text in context {
        reply.notices.push(format!(
            "context for the model not delivered ({} takes none on {}): {text}",
            read.agent.display_name(),
            read.event_name
        ));
    }
}

fn reply_notices(reply: &Reply) -> Option<String> {
    (!reply.notices.is_empty()).then(|| reply.notices.join("\n"))
}
