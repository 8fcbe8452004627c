//! The output protocol, one row per case: a hand-built run result → the status, effects and decision (with its
//! reason) that `interpret` must give. Each row cites where its rule comes from: docs/output-protocol.md for the native rules, the
//! agent's hook reference for Claude Code, Gemini CLI and Cursor, the Codex test (codex-rs/hooks) for Codex — and,
//! where the real agent at its pinned version does otherwise than its documents say, the case of the real-agent
//! suite (`cargo xtask agents --conformance`) that showed it.

use std::panic::Location;
use std::time::Duration;

use hook_config::AsMode;
use hook_exec::{Exit, RunResult, SpawnError};
use hook_middleware::EventInput;
use hook_middleware::protocol::{HookRules, interpret};
use hook_types::{AnnotationSeverity, Decision, Effect, EntryKind, Event, OnError, Protocol, RunStatus, Severity};
use serde_json::json;

use Event::{
    Compaction, Notification, PermissionRequest, PostTool, PreTool, SessionEnd, SessionStart, TurnEnd, TurnStart,
};
use Protocol::{Claude, Clio, Codex, Cursor, Gemini, Mecha, Native};
use RunStatus::{Blocked, Cancelled, Completed, Failed, TimedOut};

// ---- run results ----------------------------------------------------------------------------------------------

fn exit(code: i32, stdout: &str, stderr: &str) -> RunResult {
    RunResult {
        exit: Some(Exit::Code(code)),
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
        duration: Duration::from_millis(12),
        ..RunResult::default()
    }
}

fn ok(stdout: &str) -> RunResult {
    exit(0, stdout, "")
}

fn signal(signal: i32) -> RunResult {
    RunResult { exit: Some(Exit::Signal(signal)), ..RunResult::default() }
}

fn timed_out() -> RunResult {
    RunResult {
        exit: Some(Exit::Signal(9)),
        timed_out: true,
        duration: Duration::from_millis(1503),
        ..RunResult::default()
    }
}

fn spawn_failed() -> RunResult {
    RunResult { spawn_error: Some(SpawnError::NotFound { program: "/nope/guard".into() }), ..RunResult::default() }
}

fn cancelled() -> RunResult {
    RunResult {
        exit: Some(Exit::Signal(9)),
        cancelled: true,
        stdout: b"{\"decision\":\"deny\"}".to_vec(),
        ..RunResult::default()
    }
}

// ---- expectations -------------------------------------------------------------------------------------------------

fn deny(reason: &str) -> Decision {
    Decision::Deny { reason: reason.into() }
}
fn ask(reason: Option<&str>) -> Decision {
    Decision::Ask { reason: reason.map(Into::into) }
}
fn allow(reason: Option<&str>) -> Decision {
    Decision::Allow { reason: reason.map(Into::into) }
}
const PASS: Decision = Decision::Pass;

fn block_tool(reason: &str) -> Effect {
    Effect::BlockTool { reason: reason.into(), severity: Default::default() }
}
fn block_turn(reason: &str) -> Effect {
    Effect::BlockTurn { reason: reason.into() }
}
fn halt(reason: &str) -> Effect {
    Effect::Halt { reason: reason.into() }
}
fn reminder(message: &str) -> Effect {
    Effect::InjectReminder { message: message.into(), severity: Severity::Info }
}
fn annotate(message: &str) -> Effect {
    Effect::AnnotateToolResult { message: message.into(), severity: AnnotationSeverity::Info }
}
fn annotate_warn(message: &str) -> Effect {
    Effect::AnnotateToolResult { message: message.into(), severity: AnnotationSeverity::Warn }
}
fn allow_tool(reason: Option<&str>) -> Effect {
    Effect::AllowTool { reason: reason.map(Into::into) }
}
fn ask_user(reason: Option<&str>) -> Effect {
    Effect::AskUser { reason: reason.map(Into::into) }
}
fn rewrite(input: serde_json::Value) -> Effect {
    Effect::RewriteToolInput { input: input.as_object().cloned().unwrap_or_default() }
}
fn continuation(message: &str) -> Effect {
    Effect::RequestContinuation { message: message.into() }
}
/// The key is checked separately (`notify_keys_are_stable_per_hook_and_message`); rows compare messages only.
fn notify(message: &str) -> Effect {
    Effect::NotifyOperator { message: message.into(), key: String::new() }
}

// ---- rows ---------------------------------------------------------------------------------------------------------

struct Case {
    protocol: Protocol,
    event: Event,
    run: RunResult,
    on_error: Option<OnError>,
    is_error: bool,
    subagent: bool,
}

struct Row {
    line: u32,
    case: Case,
    status: RunStatus,
    decision: Decision,
    effects: Vec<Effect>,
}

fn case(protocol: Protocol, event: Event, run: RunResult) -> Case {
    Case { protocol, event, run, on_error: None, is_error: false, subagent: false }
}

impl Case {
    fn on_error(mut self, on_error: OnError) -> Self {
        self.on_error = Some(on_error);
        self
    }
    fn subagent(mut self) -> Self {
        self.subagent = true;
        self
    }
    #[track_caller]
    fn expect(self, status: RunStatus, decision: Decision, effects: Vec<Effect>) -> Row {
        Row { line: Location::caller().line(), case: self, status, decision, effects }
    }
}

/// Runs every row and reports every mismatch at once, each with its line.
fn check(rows: Vec<Row>) {
    let mut failures = Vec::new();
    for row in &rows {
        let case = &row.case;
        let mut input = EventInput::new(case.event.clone());
        if case.event.is_tool_event() {
            input = input.with_tool("shell", json!({"command": "ls", "cwd": "/w"}));
        }
        input.is_error = case.is_error;
        input.subagent = case.subagent;
        let rules = HookRules {
            hook_id: "h",
            protocol: case.protocol,
            on_error: case.on_error.unwrap_or_else(|| case.protocol.default_on_error(&case.event)),
            as_mode: AsMode::default_for(&case.event),
            timeout_ms: Some(1500),
        };
        let got = interpret(&rules, &input, &case.run);
        let effects: Vec<Effect> = got
            .effects
            .iter()
            .cloned()
            .map(|e| match e {
                Effect::NotifyOperator { message, .. } => Effect::NotifyOperator { message, key: String::new() },
                other => other,
            })
            .collect();
        if (got.status, &got.decision, &effects) != (row.status, &row.decision, &row.effects) {
            failures.push(format!(
                "line {} ({} {}):\n  expected {:?} {:?} {:?}\n  got      {:?} {:?} {:?}\n  entries  {:?}",
                row.line,
                case.protocol,
                case.event,
                row.status,
                row.decision,
                row.effects,
                got.status,
                got.decision,
                effects,
                got.entries
            ));
        }
        // Invariants every row must also hold.
        for effect in &got.effects {
            assert!(effect.valid_on(&case.event), "line {}: {effect:?} is not valid on {}", row.line, case.event);
        }
        if matches!(got.status, Failed | TimedOut | Cancelled) {
            assert!(got.effects.is_empty(), "line {}: a failed or cancelled run has no effects", row.line);
        }
        if matches!(got.status, Failed | TimedOut) {
            assert!(
                got.entries.iter().any(|e| e.kind == EntryKind::Error),
                "line {}: a failure leaves an Error entry",
                row.line
            );
        }
        for entry in &got.entries {
            assert!(
                !entry.text.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
                "line {}: entry not sanitized: {:?}",
                row.line,
                entry.text
            );
        }
    }
    assert!(failures.is_empty(), "{} of {} rows differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
    assert!(rows.len() >= 60, "the table must keep at least 60 rows, has {}", rows.len());
}

#[test]
fn every_protocol_row_gives_its_status_effects_and_decision() {
    check(vec![
        // ---- native: docs/output-protocol.md, table row "exit 0, empty stdout" ----
        // docs/output-protocol.md: gate → pass.
        case(Native, PreTool, ok("")).expect(Completed, PASS, vec![]),
        // docs/output-protocol.md: other events → nothing.
        case(Native, PostTool, ok("  \n")).expect(Completed, PASS, vec![]),
        // ---- native: "exit 0, stdout whose first non-space character is `{`" ----
        // docs/output-protocol.md#json-output: `decision: "deny"` with `reason`.
        case(Native, PreTool, ok(r#" {"decision":"deny","reason":"no rm"}"#)).expect(Blocked, deny("no rm"), vec![block_tool("no rm")]),
        // docs/output-protocol.md#json-output: `decision: "block"` on turn_start is a deny carried by `block_turn` (docs/events.md, turn_start).
        case(Native, TurnStart, ok(r#"{"decision":"block","reason":"not today"}"#)).expect(Blocked, deny("not today"), vec![block_turn("not today")]),
        // docs/output-protocol.md#json-output: `decision: "approve"` is an explicit allow.
        case(Native, PreTool, ok(r#"{"decision":"approve","reason":"safe"}"#)).expect(Completed, allow(Some("safe")), vec![allow_tool(Some("safe"))]),
        // docs/output-protocol.md#json-output: `effects` (closed effects) give their decision: ask_user → ask.
        case(Native, PreTool, ok(r#"{"effects":[{"kind":"ask_user","reason":"prod"}]}"#)).expect(Completed, ask(Some("prod")), vec![ask_user(Some("prod"))]),
        // docs/effects.md: an effect not valid on the event is invalid output → on_error (deny on a gate).
        case(Native, PreTool, ok(r#"{"effects":[{"kind":"block_turn","reason":"x"}]}"#)).expect(Failed, deny("hook `h` wrote invalid output: effects[0]: `block_turn` is not valid on pre_tool"), vec![]),
        // docs/effects.md: an unknown effect kind is rejected with a did-you-mean.
        case(Native, PreTool, ok(r#"{"effects":[{"kind":"blok_tool","reason":"x"}]}"#)).expect(Failed, deny("hook `h` wrote invalid output: effects[0]: unknown effect kind `blok_tool` (did you mean `block_tool`?); the effect kinds are inject_reminder, annotate_tool_result, block_tool, allow_tool, ask_user, rewrite_tool_input, protect_path, require_tool, lock_tools, request_continuation, block_turn, halt, notify_operator"), vec![]),
        // docs/output-protocol.md: a `{`-first stdout that does not parse is invalid output; on a gate `on_error` denies.
        case(Native, PreTool, ok(r#"{"decision":"#)).expect(Failed, deny("hook `h` wrote invalid JSON: EOF while parsing a value at line 1 column 12"), vec![]),
        // docs/output-protocol.md: the same on an observer: Error entry, no effect.
        case(Native, PostTool, ok("{oops")).expect(Failed, PASS, vec![]),
        // docs/output-protocol.md: "known fields of the wrong type make the output invalid".
        case(Native, PreTool, ok(r#"{"continue":"no"}"#)).expect(Failed, deny("hook `h` wrote invalid output: field `continue` must be a boolean, got a string"), vec![]),
        // docs/output-protocol.md, "first non-space character": a byte-order mark before the `{` is not content either.
        case(Native, PreTool, ok("\u{feff}{\"decision\":\"deny\",\"reason\":\"bom\"}")).expect(Blocked, deny("bom"), vec![block_tool("bom")]),
        // docs/output-protocol.md: an empty object says nothing.
        case(Native, TurnStart, ok("{}\n")).expect(Completed, PASS, vec![]),
        // docs/output-protocol.md: "Unknown fields are accepted".
        case(Native, PreTool, ok(r#"{"note":"hi","hookSpecificOutput":{"extra":true}}"#)).expect(Completed, PASS, vec![]),
        // docs/output-protocol.md#json-output: `continue: false` with `stopReason` → halt; on a gate it also denies (docs/effects.md, halt).
        case(Native, PreTool, ok(r#"{"continue":false,"stopReason":"out of budget"}"#)).expect(Blocked, deny("out of budget"), vec![halt("out of budget")]),
        // docs/effects.md, halt on a non-gate: the effect only.
        case(Native, TurnEnd, ok(r#"{"continue":false}"#)).expect(Completed, PASS, vec![halt("stopped by hook `h`")]),
        // docs/output-protocol.md#json-output: `systemMessage` → notify_operator.
        case(Native, Notification, ok(r#"{"systemMessage":"disk is nearly full"}"#)).expect(Completed, PASS, vec![notify("disk is nearly full")]),
        // docs/output-protocol.md#json-output: `hookSpecificOutput.permissionDecision: ask` with its reason.
        case(Native, PreTool, ok(r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"touches prod"}}"#)).expect(Completed, ask(Some("touches prod")), vec![ask_user(Some("touches prod"))]),
        // docs/output-protocol.md#json-output: `additionalContext` → inject_reminder; `updatedInput` → rewrite_tool_input.
        case(Native, PreTool, ok(r#"{"hookSpecificOutput":{"additionalContext":"use --dry-run","updatedInput":{"command":"ls -a"}}}"#)).expect(Completed, PASS, vec![reminder("use --dry-run"), rewrite(json!({"command": "ls -a"}))]),
        // docs/effects.md#conflicts: a deny drops the same hook's rewrite.
        case(Native, PreTool, ok(r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no","updatedInput":{"command":"ls"}}}"#)).expect(Blocked, deny("no"), vec![block_tool("no")]),
        // docs/output-protocol.md#json-output: permission_request `decision.behavior: allow` with `updatedInput`.
        case(Native, PermissionRequest, ok(r#"{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"command":"ls"}}}}"#)).expect(Completed, allow(None), vec![allow_tool(None), rewrite(json!({"command": "ls"}))]),
        // ---- native: "exit 0, other stdout" ----
        // docs/output-protocol.md: gate → pass, stdout becomes the `as` effect (reminder by default off post_tool).
        case(Native, PreTool, ok("remember the staging DB\n")).expect(Completed, PASS, vec![reminder("remember the staging DB")]),
        // docs/output-protocol.md: on turn_start an inject_reminder.
        case(Native, TurnStart, ok("today is a freeze day")).expect(Completed, PASS, vec![reminder("today is a freeze day")]),
        // docs/declarations.md, `as`: annotate is the default on post_tool.
        case(Native, PostTool, ok("3 lint warnings")).expect(Completed, PASS, vec![annotate("3 lint warnings")]),
        // docs/output-protocol.md: on session_start an inject_reminder.
        case(Native, SessionStart, ok("branch: main")).expect(Completed, PASS, vec![reminder("branch: main")]),
        // docs/output-protocol.md: on session_end a Feedback entry (no effect is valid there).
        case(Native, SessionEnd, ok("bye")).expect(Completed, PASS, vec![]),
        // ---- native: "exit 2" ----
        // docs/output-protocol.md: deny; reason = stderr.
        case(Native, PreTool, exit(2, "ignored", "no rm -rf\n")).expect(Blocked, deny("no rm -rf"), vec![block_tool("no rm -rf")]),
        // docs/output-protocol.md: else stdout.
        case(Native, PreTool, exit(2, "from stdout\n", " \n")).expect(Blocked, deny("from stdout"), vec![block_tool("from stdout")]),
        // docs/output-protocol.md: else "blocked by hook `<id>`".
        case(Native, PreTool, exit(2, "", "")).expect(Blocked, deny("blocked by hook `h`"), vec![block_tool("blocked by hook `h`")]),
        // docs/output-protocol.md + docs/events.md: turn_start blocks with block_turn.
        case(Native, TurnStart, exit(2, "", "no secrets in prompts")).expect(Blocked, deny("no secrets in prompts"), vec![block_turn("no secrets in prompts")]),
        // docs/output-protocol.md, "block where the event can block": permission_request denies.
        case(Native, PermissionRequest, exit(2, "", "never")).expect(Blocked, deny("never"), vec![block_tool("never")]),
        // docs/output-protocol.md, "block where the event can block": turn_end continues with the reason.
        case(Native, TurnEnd, exit(2, "", "tests fail")).expect(Blocked, PASS, vec![continuation("tests fail")]),
        // docs/output-protocol.md: "else a Feedback entry" (post_tool cannot block).
        case(Native, PostTool, exit(2, "", "too late")).expect(Completed, PASS, vec![]),
        // docs/output-protocol.md: same on compaction.
        case(Native, Compaction, exit(2, "", "keep it")).expect(Completed, PASS, vec![]),
        // ---- native: "other exit, signal, timeout, spawn failure, invalid output" ----
        // docs/output-protocol.md: other exit → on_error (deny on gates) naming the failure.
        case(Native, PreTool, exit(7, "", "boom")).expect(Failed, deny("hook `h` exited with undefined code 7"), vec![]),
        // docs/output-protocol.md: a signal.
        case(Native, TurnStart, signal(11)).expect(Failed, deny("hook `h` was killed by signal 11"), vec![]),
        // docs/output-protocol.md: a timeout keeps status timed_out; the reason names the deadline.
        case(Native, PreTool, timed_out()).expect(TimedOut, deny("hook `h` timed out after 1500 ms"), vec![]),
        // docs/output-protocol.md: a spawn failure.
        case(Native, PreTool, spawn_failed()).expect(Failed, deny("hook `h` could not start: program not found: /nope/guard"), vec![]),
        // docs/declarations.md, `on_error: ignore` on a gate: Error entry, no effect, no deny.
        case(Native, PreTool, exit(7, "", "")).on_error(OnError::Ignore).expect(Failed, PASS, vec![]),
        // docs/output-protocol.md, other events: Error entry, no effect.
        case(Native, PostTool, exit(1, "3 lint warnings", "")).expect(Failed, PASS, vec![]),
        // docs/events.md: permission_request defaults to no decision on failure…
        case(Native, PermissionRequest, timed_out()).expect(TimedOut, PASS, vec![]),
        // …and `on_error: deny` makes it deny (it is an event that can deny).
        case(Native, PermissionRequest, timed_out()).on_error(OnError::Deny).expect(TimedOut, deny("hook `h` timed out after 1500 ms"), vec![]),
        // docs/output-protocol.md + docs/effects.md#conflicts: a cancelled run has no effects and no decision, whatever it printed.
        case(Native, PreTool, cancelled()).expect(Cancelled, PASS, vec![]),
        // ---- Claude Code (code.claude.com/docs/en/hooks) ----
        // "Exit code 2 behavior": PreToolUse blocks the call, stderr fed to Claude; empty stderr still blocks.
        case(Claude, PreTool, exit(2, "", "")).expect(Blocked, deny("blocked by hook `h`"), vec![block_tool("blocked by hook `h`")]),
        // "Exit code 2": stdout and JSON are ignored, only stderr counts.
        case(Claude, PreTool, exit(2, r#"{"decision":"approve"}"#, "dangerous")).expect(Blocked, deny("dangerous"), vec![block_tool("dangerous")]),
        // Claude Code 2.1.332 (real-agent suite `pre_exit1_deny_json`, `pre_exit3_block_json`): any code but 2 still
        // reads stdout JSON that is a valid answer, and it decides — a deny denies.
        case(Claude, PreTool, exit(1, r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"x"}}"#, "oops")).expect(Blocked, deny("x"), vec![block_tool("x")]),
        case(Claude, PreTool, exit(3, r#"{"decision":"block","reason":"x"}"#, "")).expect(Blocked, deny("x"), vec![block_tool("x")]),
        // …stdout that is no valid answer leaves the non-blocking error (`pre_exit1_stderr_warning`).
        case(Claude, PreTool, exit(1, "not json", "oops")).expect(Failed, PASS, vec![]),
        case(Claude, PreTool, exit(1, r#"{"decision":"maybe"}"#, "")).expect(Failed, PASS, vec![]),
        // `session_start_unclosed_json`, `pre_unclosed_json`: stdout that does not parse is plain text…
        case(Claude, SessionStart, ok(r#"{"hookSpecificOutput": broken"#)).expect(Completed, PASS, vec![reminder(r#"{"hookSpecificOutput": broken"#)]),
        case(Claude, PreTool, ok(r#"{"decision": broken"#)).expect(Completed, PASS, vec![]),
        // …while JSON that breaks the schema is a non-blocking error (`pre_invalid_decision`, `pre_wrong_type`).
        case(Claude, PreTool, ok(r#"{"continue":"no"}"#)).expect(Failed, PASS, vec![]),
        // `stop_additional_context`: a Stop hook's context runs another model turn with it.
        case(Claude, TurnEnd, ok(r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"check the logs"}}"#)).expect(Blocked, PASS, vec![continuation("check the logs")]),
        // `pre_continue_false`: Claude Code runs the tool, then stops; this engine denies it too (the closed side).
        case(Claude, PreTool, ok(r#"{"continue":false,"stopReason":"enough"}"#)).expect(Blocked, deny("enough"), vec![halt("enough")]),
        // `permission_exit2`: Claude Code ignores exit 2 here and asks the approver; this engine denies.
        case(Claude, PermissionRequest, exit(2, "", "not now")).expect(Blocked, deny("not now"), vec![block_tool("not now")]),
        // The same with `on_error: deny` (docs/declarations.md#failure-policies-and-on_error): the deny names the non-blocking error.
        case(Claude, PreTool, exit(1, "", "oops")).on_error(OnError::Deny).expect(Failed, deny("hook `h` exited with code 1 (a non-blocking error)"), vec![]),
        // "PreToolUse decision control": deny without a reason still denies.
        case(Claude, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#)).expect(Blocked, deny("blocked by hook `h`"), vec![block_tool("blocked by hook `h`")]),
        // "PreToolUse decision control": ask prompts the user with the reason.
        case(Claude, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"confirm"}}"#)).expect(Completed, ask(Some("confirm")), vec![ask_user(Some("confirm"))]),
        // "PreToolUse decision control": allow bypasses the permission system.
        case(Claude, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"read-only"}}"#)).expect(Completed, allow(Some("read-only")), vec![allow_tool(Some("read-only"))]),
        // "PreToolUse decision control": `defer` leaves the call to the normal flow.
        case(Claude, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}"#)).expect(Completed, PASS, vec![]),
        // Deprecated PreToolUse `decision: "approve"` still maps to allow.
        case(Claude, PreTool, ok(r#"{"decision":"approve","reason":"ok"}"#)).expect(Completed, allow(Some("ok")), vec![allow_tool(Some("ok"))]),
        // "Common JSON fields": `continue: false` stops Claude and takes precedence; on PreToolUse we halt and deny.
        case(Claude, PreTool, ok(r#"{"continue":false,"stopReason":"budget spent"}"#)).expect(Blocked, deny("budget spent"), vec![halt("budget spent")]),
        // Claude ignores fields it does not know.
        case(Claude, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","custom":1},"x-trace":"abc"}"#)).expect(Completed, ask(None), vec![ask_user(None)]),
        // "Decision control": only "block" (and PreToolUse's legacy "approve") are decisions; "deny" at the top level
        // is not, so the output is invalid and the default fail-open applies.
        case(Claude, TurnStart, ok(r#"{"decision":"deny","reason":"x"}"#)).expect(Failed, PASS, vec![]),
        // "PermissionRequest decision control": behavior deny with a message.
        case(Claude, PermissionRequest, ok(r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}"#)).expect(Blocked, deny("not on main"), vec![block_tool("not on main")]),
        // "PermissionRequest decision control": behavior allow with updatedInput.
        case(Claude, PermissionRequest, ok(r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls -l"}}}}"#)).expect(Completed, allow(None), vec![allow_tool(None), rewrite(json!({"command": "ls -l"}))]),
        // "PermissionRequest decision control": deny with `interrupt: true` also stops Claude.
        case(Claude, PermissionRequest, ok(r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"stop","interrupt":true}}}"#)).expect(Blocked, deny("stop"), vec![block_tool("stop"), halt("stop")]),
        // "Stop/SubagentStop decision control": `decision: "block"` prevents stopping; the reason tells Claude how
        // to go on → request_continuation.
        case(Claude, TurnEnd, ok(r#"{"decision":"block","reason":"run the tests"}"#)).expect(Blocked, PASS, vec![continuation("run the tests")]),
        // "Exit code 2 behavior": SubagentStop prevents the subagent from stopping, stderr is the instruction.
        case(Claude, TurnEnd, exit(2, "", "also update the docs")).subagent().expect(Blocked, PASS, vec![continuation("also update the docs")]),
        // "Exit code 2 behavior": PostToolUse shows stderr to Claude (the tool already ran).
        case(Claude, PostTool, exit(2, "", "the file has a syntax error")).expect(Completed, PASS, vec![annotate_warn("the file has a syntax error")]),
        // "PostToolUse decision control": `decision: "block"` prompts Claude with the reason.
        case(Claude, PostTool, ok(r#"{"decision":"block","reason":"format it"}"#)).expect(Blocked, PASS, vec![annotate_warn("format it")]),
        // "Exit code 2 behavior": UserPromptSubmit blocks the prompt and erases it.
        case(Claude, TurnStart, exit(2, "", "no secrets")).expect(Blocked, deny("no secrets"), vec![block_turn("no secrets")]),
        // "Exit code output": stdout of UserPromptSubmit is added as context…
        case(Claude, TurnStart, ok("current sprint: 42")).expect(Completed, PASS, vec![reminder("current sprint: 42")]),
        // …and elsewhere only shown in the transcript.
        case(Claude, PreTool, ok("checked")).expect(Completed, PASS, vec![]),
        // "SessionStart decision control": additionalContext is added to the context.
        case(Claude, SessionStart, ok(r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"open issues: 3"}}"#)).expect(Completed, PASS, vec![reminder("open issues: 3")]),
        // "Exit code 2 behavior": Notification shows stderr to the user only.
        case(Claude, Notification, exit(2, "", "fyi")).expect(Completed, PASS, vec![]),
        // docs/events.md#other-agents-events: verdict pass, but the hook's blocking answer is kept for the bridge
        // ("Exit code 2 behavior": WorktreeCreate fails the creation).
        case(Claude, Event::Foreign("WorktreeCreate".into()), exit(2, "", "no worktrees here")).expect(Blocked, PASS, vec![]),
        case(Claude, Event::Foreign("SubagentStart".into()), ok("hello")).expect(Completed, PASS, vec![]),
        // "Common JSON fields": systemMessage is a warning shown to the user → notify_operator.
        case(Claude, PostTool, ok(r#"{"systemMessage":"formatter changed 2 files"}"#)).expect(Completed, PASS, vec![notify("formatter changed 2 files")]),
        // ---- Codex (codex-rs/hooks/src/events/*.rs tests, engine/output_parser.rs) ----
        // pre_tool_use.rs `exit_code_two_blocks_processing`.
        case(Codex, PreTool, exit(2, "", "blocked by policy\n")).expect(Blocked, deny("blocked by policy"), vec![block_tool("blocked by policy")]),
        // pre_tool_use.rs: exit 2 without a reason on stderr fails (fail open), unlike Claude.
        case(Codex, PreTool, exit(2, "why", "")).expect(Failed, PASS, vec![]),
        // pre_tool_use.rs `permission_decision_deny_blocks_processing`.
        case(Codex, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"do not run that"}}"#)).expect(Blocked, deny("do not run that"), vec![block_tool("do not run that")]),
        // output_parser.rs `invalid_pre_tool_use_reason_message`: a deny without a reason fails, unlike Claude.
        case(Codex, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#)).expect(Failed, PASS, vec![]),
        // pre_tool_use.rs `unsupported_permission_decision_fails_open`: ask fails, unlike Claude.
        case(Codex, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"please confirm"}}"#)).expect(Failed, PASS, vec![]),
        // pre_tool_use.rs `deprecated_approve_decision_fails_open`: legacy approve fails, unlike Claude.
        case(Codex, PreTool, ok(r#"{"decision":"approve"}"#)).expect(Failed, PASS, vec![]),
        // pre_tool_use.rs `deprecated_block_decision_blocks_processing`.
        case(Codex, PreTool, ok(r#"{"decision":"block","reason":"do not run that"}"#)).expect(Blocked, deny("do not run that"), vec![block_tool("do not run that")]),
        // pre_tool_use.rs `permission_decision_allow_without_updated_input_fails_open`.
        case(Codex, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#)).expect(Failed, PASS, vec![]),
        // pre_tool_use.rs `permission_decision_allow_can_update_input`: a rewrite, no approval.
        case(Codex, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten"}}}"#)).expect(Completed, PASS, vec![rewrite(json!({"command": "echo rewritten"}))]),
        // output_parser.rs `unsupported_pre_tool_use_universal`: continue:false on PreToolUse fails, unlike Claude.
        case(Codex, PreTool, ok(r#"{"continue":false,"stopReason":"stop"}"#)).expect(Failed, PASS, vec![]),
        // schema.rs `deny_unknown_fields` (generated schemas: additionalProperties false): unknown fields fail.
        case(Codex, PreTool, ok(r#"{"decision":"block","reason":"x","extra":1}"#)).expect(Failed, PASS, vec![]),
        // pre_tool_use.rs `parse_completed`: exit 1 fails ("hook exited with code 1"), its JSON unread.
        case(Codex, PreTool, exit(1, r#"{"decision":"block","reason":"x"}"#, "")).expect(Failed, PASS, vec![]),
        // …and with `on_error: deny` the failure denies.
        case(Codex, PreTool, exit(1, "", "")).on_error(OnError::Deny).expect(Failed, deny("hook `h` exited with undefined code 1"), vec![]),
        // schema.rs `HookEventNameWire`: hookSpecificOutput needs a known hookEventName.
        case(Codex, SessionStart, ok(r#"{"hookSpecificOutput":{"additionalContext":"x"}}"#)).expect(Failed, PASS, vec![]),
        case(Codex, SessionStart, ok(r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch main"}}"#)).expect(Completed, PASS, vec![reminder("branch main")]),
        // pre_tool_use.rs `plain_stdout_is_ignored`.
        case(Codex, PreTool, ok("hook ran successfully\n")).expect(Completed, PASS, vec![]),
        // pre_tool_use.rs `invalid_json_like_stdout_fails_instead_of_becoming_noop`.
        case(Codex, PreTool, ok("{\"decision\":\n")).expect(Failed, PASS, vec![]),
        // output_parser.rs `looks_like_json`: `[` counts as JSON too, and an array is not an object.
        case(Codex, PreTool, ok("[1,2]")).expect(Failed, PASS, vec![]),
        // pre_tool_use.rs `additional_context_is_recorded`: context is kept alongside a deny.
        case(Codex, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"do not run that","additionalContext":"nope"}}"#)).expect(Blocked, deny("do not run that"), vec![reminder("nope"), block_tool("do not run that")]),
        // output_parser.rs `permission_request_decision`: a deny without a message gets Codex's default.
        case(Codex, PermissionRequest, ok(r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}"#)).expect(Blocked, deny("PermissionRequest hook denied approval"), vec![block_tool("PermissionRequest hook denied approval")]),
        // output_parser.rs `permission_request_rejects_reserved_updated_input_field`.
        case(Codex, PermissionRequest, ok(r#"{"continue":true,"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{}}}}"#)).expect(Failed, PASS, vec![]),
        // output_parser.rs `permission_request_rejects_reserved_interrupt_field`.
        case(Codex, PermissionRequest, ok(r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","interrupt":true}}}"#)).expect(Failed, PASS, vec![]),
        // permission_request.rs `parse_completed`: exit 2 with stderr denies.
        case(Codex, PermissionRequest, exit(2, "", "repo deny")).expect(Blocked, deny("repo deny"), vec![block_tool("repo deny")]),
        // post_tool_use.rs `block_decision_stops_normal_processing`: blocked, the reason fed to the model.
        case(Codex, PostTool, ok(r#"{"decision":"block","reason":"bash output looked sketchy"}"#)).expect(Blocked, PASS, vec![annotate_warn("bash output looked sketchy")]),
        // post_tool_use.rs `parse_completed`: exit 2 with stderr is feedback for the model, status completed.
        case(Codex, PostTool, exit(2, "", "lint failed")).expect(Completed, PASS, vec![annotate_warn("lint failed")]),
        // post_tool_use.rs: `continue: false` stops with `stopReason` and tells the model `reason` (suite
        // `post_continue_false`), else the stop text.
        case(Codex, PostTool, ok(r#"{"continue":false,"stopReason":"halted","reason":"see the log"}"#)).expect(Blocked, PASS, vec![annotate_warn("see the log"), halt("halted")]),
        case(Codex, PostTool, ok(r#"{"continue":false}"#)).expect(Blocked, PASS, vec![annotate_warn("PostToolUse hook stopped execution"), halt("PostToolUse hook stopped execution")]),
        // post_tool_use.rs `unsupported_updated_mcp_tool_output_fails_open`.
        case(Codex, PostTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"ok":true}}}"#)).expect(Failed, PASS, vec![]),
        // user_prompt_submit.rs `claude_block_decision_requires_reason`.
        case(Codex, TurnStart, ok(r#"{"decision":"block","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"do not inject"}}"#)).expect(Failed, PASS, vec![]),
        // user_prompt_submit.rs `claude_block_decision_blocks_processing`.
        case(Codex, TurnStart, ok(r#"{"decision":"block","reason":"slow down","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"do not inject"}}"#)).expect(Blocked, deny("slow down"), vec![reminder("do not inject"), block_turn("slow down")]),
        // user_prompt_submit.rs `continue_false_preserves_context_for_later_turns`.
        case(Codex, TurnStart, ok(r#"{"continue":false,"stopReason":"pause","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"do not inject"}}"#)).expect(Blocked, deny("pause"), vec![reminder("do not inject"), halt("pause")]),
        // user_prompt_submit.rs `parse_completed`: plain stdout becomes additional context.
        case(Codex, TurnStart, ok("sprint 42")).expect(Completed, PASS, vec![reminder("sprint 42")]),
        // stop.rs `parse_completed`: block with a reason continues the run with it.
        case(Codex, TurnEnd, ok(r#"{"decision":"block","reason":"keep going"}"#)).expect(Blocked, PASS, vec![continuation("keep going")]),
        // stop.rs: block without a reason fails.
        case(Codex, TurnEnd, ok(r#"{"decision":"block"}"#)).expect(Failed, PASS, vec![]),
        // stop.rs: stdout that is not Stop JSON fails.
        case(Codex, TurnEnd, ok("done")).expect(Failed, PASS, vec![]),
        // stop.rs: exit 2 without a continuation prompt on stderr fails.
        case(Codex, TurnEnd, exit(2, "", "")).subagent().expect(Failed, PASS, vec![]),
        // ---- Gemini CLI (geminicli.com/docs/hooks/reference) ----
        // "Exit codes": 2 is a system block with stderr as the reason.
        case(Gemini, PreTool, exit(2, "", "denied by scanner")).expect(Blocked, deny("denied by scanner"), vec![block_tool("denied by scanner")]),
        // hookRunner.ts 0.61.0 (suite `before_tool_exit1_deny_json`): stdout JSON is read whatever the exit code.
        case(Gemini, PreTool, exit(1, r#"{"decision":"deny","reason":"x"}"#, "warn")).expect(Blocked, deny("x"), vec![block_tool("x")]),
        // …with stdout empty, stderr is the text: a message on 0, a "Warning: " message and a failed hook on 1, a
        // deny from 2 up (`before_tool_stderr_exit0`, `before_tool_stderr_warning`, `before_tool_exit3_stderr`).
        case(Gemini, PreTool, exit(0, "", "scanned")).expect(Completed, PASS, vec![notify("scanned")]),
        case(Gemini, PreTool, exit(1, "", "careful")).expect(Failed, PASS, vec![]),
        case(Gemini, PreTool, exit(3, "", "refused")).expect(Blocked, deny("refused"), vec![block_tool("refused")]),
        // …exit 1 with no text at all is the failed hook.
        case(Gemini, PreTool, exit(1, "", "")).expect(Failed, PASS, vec![]),
        // `before_tool_exit2_allow_json`: Gemini CLI follows the JSON and runs the tool; this engine denies.
        case(Gemini, PreTool, exit(2, r#"{"decision":"allow"}"#, "refused")).expect(Blocked, deny("refused"), vec![block_tool("refused")]),
        // `before_tool_invalid_json`: text that does not parse is plain text, a message on exit 0.
        case(Gemini, PreTool, ok(r#"{"decision": broken"#)).expect(Completed, PASS, vec![notify(r#"{"decision": broken"#)]),
        // `before_tool_deny_wrong_type`: Gemini CLI checks no types, so a deny with a reason that is no string still
        // denies (this engine would otherwise have called it invalid and let the tool run).
        case(Gemini, PreTool, ok(r#"{"decision":"deny","reason":["no"]}"#)).expect(Blocked, deny(r#"["no"]"#), vec![block_tool(r#"["no"]"#)]),
        // `before_tool_ask`: BeforeTool takes `ask` since 0.36.0.
        case(Gemini, PreTool, ok(r#"{"decision":"ask","reason":"prod"}"#)).expect(Completed, ask(Some("prod")), vec![ask_user(Some("prod"))]),
        // `after_tool_deny`: AfterTool reads the decision; the model gets the reason instead of the result.
        case(Gemini, PostTool, ok(r#"{"decision":"deny","reason":"secret in output"}"#)).expect(Blocked, PASS, vec![annotate_warn("secret in output")]),
        // `after_tool_continue_false`: AfterTool's `continue: false` stops the agent.
        case(Gemini, PostTool, ok(r#"{"continue":false,"stopReason":"enough"}"#)).expect(Completed, PASS, vec![halt("enough")]),
        // "BeforeTool": `decision: "deny"` with `reason` blocks the tool.
        // "Common output fields": `allow` lets the action proceed; it carries no approval, so no decision.
        case(Gemini, PreTool, ok(r#"{"decision":"allow"}"#)).expect(Completed, PASS, vec![]),
        case(Gemini, PreTool, ok(r#"{"decision":"deny","reason":"not that file"}"#)).expect(Blocked, deny("not that file"), vec![block_tool("not that file")]),
        // "BeforeTool": `hookSpecificOutput.tool_input` merges with and overrides the model's arguments.
        case(Gemini, PreTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"ls -a"}}}"#)).expect(Completed, PASS, vec![rewrite(json!({"command": "ls -a", "cwd": "/w"}))]),
        // "AfterTool": additionalContext is appended to the tool result.
        case(Gemini, PostTool, ok(r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"2 files changed"}}"#)).expect(Completed, PASS, vec![annotate("2 files changed")]),
        // "AfterAgent": `decision: "deny"` rejects the response and retries with the reason as the new prompt.
        case(Gemini, TurnEnd, ok(r#"{"decision":"deny","reason":"cite sources"}"#)).expect(Blocked, PASS, vec![continuation("cite sources")]),
        // "SessionStart": advisory only, `decision` and `continue` are ignored.
        case(Gemini, SessionStart, ok(r#"{"decision":"deny","continue":false,"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"hi"}}"#)).expect(Completed, PASS, vec![reminder("hi")]),
        // hookRunner.ts `convertPlainTextToHookOutput`: plain stdout on exit 0 becomes a systemMessage.
        case(Gemini, PreTool, ok("scanned 3 files")).expect(Completed, PASS, vec![notify("scanned 3 files")]),
        // ---- Cursor (cursor.com/docs/agent/hooks) ----
        // beforeShellExecution: `permission: deny`; agent_message is what the agent reads.
        case(Cursor, PreTool, ok(r#"{"permission":"deny","user_message":"Blocked rm","agent_message":"rm is not allowed here"}"#)).expect(Blocked, deny("rm is not allowed here"), vec![block_tool("rm is not allowed here")]),
        // `permission: ask` asks the user.
        case(Cursor, PreTool, ok(r#"{"permission":"ask","user_message":"network call"}"#)).expect(Completed, ask(Some("network call")), vec![ask_user(Some("network call"))]),
        // `permission: allow`.
        case(Cursor, PreTool, ok(r#"{"permission":"allow"}"#)).expect(Completed, allow(None), vec![allow_tool(None)]),
        // "exit code 2 blocks the action" (as permission: deny).
        case(Cursor, PreTool, exit(2, "", "blocked")).expect(Blocked, deny("blocked"), vec![block_tool("blocked")]),
        // beforeSubmitPrompt: `continue: false` with user_message keeps the prompt from being sent.
        case(Cursor, TurnStart, ok(r#"{"continue":false,"user_message":"no secrets"}"#)).expect(Blocked, deny("no secrets"), vec![block_turn("no secrets")]),
        // stop: `followup_message` is submitted as the next message.
        case(Cursor, TurnEnd, ok(r#"{"followup_message":"now run the tests"}"#)).expect(Blocked, PASS, vec![continuation("now run the tests")]),
        // failClosed: true (loaded as on_error: deny): a failing hook blocks.
        case(Cursor, PreTool, exit(1, "", "crash")).on_error(OnError::Deny).expect(Failed, deny("hook `h` exited with undefined code 1"), vec![]),
        // Default (fail open): a failing hook lets the action proceed.
        case(Cursor, PreTool, exit(1, "", "crash")).expect(Failed, PASS, vec![]),
        // ---- mecha (docs/declarations.md#foreign-formats) ----
        // exit 0 allows (no opinion beyond the human approver); stdout is not read.
        case(Mecha, PreTool, ok("all good")).expect(Completed, PASS, vec![]),
        // exit 2 denies with stdout as the reason…
        case(Mecha, PreTool, exit(2, "touches /etc\n", "stderr text")).expect(Blocked, deny("touches /etc"), vec![block_tool("touches /etc")]),
        // …else stderr.
        case(Mecha, PreTool, exit(2, "", "from stderr")).expect(Blocked, deny("from stderr"), vec![block_tool("from stderr")]),
        // pre_tool denies on any failure.
        case(Mecha, PreTool, exit(1, "", "")).expect(Failed, deny("hook `h` exited with undefined code 1"), vec![]),
        // elsewhere a failure is ignored.
        case(Mecha, PostTool, timed_out()).expect(TimedOut, PASS, vec![]),
        // ---- clio-coder (docs/declarations.md#foreign-formats) ----
        // effects in clio's camelCase spellings.
        case(Clio, TurnStart, ok(r#"{"effects":[{"kind":"requireTool","toolName":"run_tests"}]}"#)).expect(Completed, PASS, vec![Effect::RequireTool { tool_name: "run_tests".into() }]),
        // a failed command emits nothing, exit 2 included.
        case(Clio, PreTool, exit(2, "", "no")).expect(Failed, PASS, vec![]),
        // plain stdout is the `as` effect.
        case(Clio, PreTool, ok("mind the lockfile")).expect(Completed, PASS, vec![reminder("mind the lockfile")]),
        // a timeout emits nothing either.
        case(Clio, PreTool, timed_out()).expect(TimedOut, PASS, vec![]),
    ]);
}
