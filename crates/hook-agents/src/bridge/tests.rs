//! The bridge's answers read back through this engine's own model of each agent's output rules
//! ([`hook_middleware::protocol::interpret`], whose rule table cites each agent's documentation): an answer is right when the
//! agent, reading it as the output of one of its hooks, decides what the dispatch decided.

use crate::install::{Agent, AgentInstall};
use hook_exec::{Exit, RunResult};
use hook_types::{
    Decision, Effect, EntryKind, Event, Origin, OutputEntry, Protocol, Replay, RunStatus, RunSummary, Severity, Verdict,
};
use serde_json::{Value, json};

use super::{Answer, answer, failure, parse_input, parse_input_as};
use hook_middleware::DispatchResult;
use hook_middleware::protocol::{HookRules, Interpretation, interpret};

fn result(event: &Event, verdict: Verdict, reason: Option<&str>, effects: Vec<Effect>) -> DispatchResult {
    let mut result = DispatchResult::nothing(event);
    result.verdict = verdict;
    result.reason = reason.map(str::to_owned);
    result.effects = effects;
    result
}

fn run(status: RunStatus, entries: Vec<OutputEntry>) -> RunSummary {
    RunSummary {
        hook_id: "project.command.0123456789abcdef".into(),
        origin: Some(Origin::Project),
        source: ".hooks/hooks.yaml".into(),
        hash: "0123456789abcdef".into(),
        event: Event::PreTool,
        protocol: Protocol::Claude,
        status,
        exit_code: None,
        duration_ms: 0,
        entries,
        replay: None,
    }
}

/// The agent's input for `event_name` (a tool event gets the tool `Bash`, or Cursor's shell command), the bridge's
/// answer to `dispatched`, and that answer read back as the agent would read it.
fn check(agent: Agent, event_name: &str, dispatched: &DispatchResult) -> (Answer, Interpretation) {
    let mut stdin = json!({"hook_event_name": event_name, "session_id": "s1", "cwd": "/ws"});
    if agent == Agent::Cline {
        stdin = cline_stdin(event_name);
    } else if agent == Agent::Cursor {
        stdin["command"] = "rm -rf build".into();
        stdin["tool_name"] = "Shell".into();
        stdin["tool_input"] = json!({"command": "rm -rf build"});
    } else if agent == Agent::Copilot {
        // GitHub Copilot CLI's camelCase input, which names no event (the bridge's `--event` does).
        stdin = json!({"sessionId": "s1", "cwd": "/ws", "toolName": "bash", "toolArgs": {"command": "rm -rf build"}});
    } else {
        stdin["tool_name"] = "Bash".into();
        stdin["tool_input"] = json!({"command": "rm -rf build"});
    }
    let read = parse_input_as(agent, Some(event_name), stdin.to_string().as_bytes()).unwrap();
    let out = answer(&read, dispatched);
    let rules = HookRules::new("bridge", agent, &read.input.event);
    let as_run = RunResult {
        exit: Some(Exit::Code(i32::from(out.exit_code))),
        stdout: out.stdout.clone().into_bytes(),
        stderr: out.stderr.clone().into_bytes(),
        ..RunResult::default()
    };
    let read_back = interpret(&rules, &read.input, &as_run);
    (out, read_back)
}

/// Cline's input for its event file `event_name` (`hookName` is the event's wire name), with its shell tool
/// `run_commands` on the tool events (sdk/packages/core/src/hooks/hook-file-hooks.ts).
fn cline_stdin(event_name: &str) -> Value {
    let row = Agent::Cline.agent().event(event_name).expect("a Cline event");
    let mut stdin = json!({"hookName": row.wire_name.unwrap_or(event_name), "taskId": "s1", "workspaceRoots": ["/ws"]});
    let call = json!({"id": "c1", "name": "run_commands", "input": {"commands": ["rm -rf build"]}});
    let parameters = json!({"toolName": "run_commands", "parameters": {"commands": "[\"rm -rf build\"]"}});
    match row.event {
        Some(Event::PreTool) => {
            stdin["tool_call"] = call;
            stdin["preToolUse"] = parameters;
        }
        Some(Event::PostTool) => {
            stdin["tool_result"] = call;
            stdin["postToolUse"] = parameters;
        }
        _ => {}
    }
    stdin
}

/// The agent's name for a pre_tool of its shell tool, from the agent table.
fn gate(agent: Agent) -> &'static str {
    agent.agent().event_name(&Event::PreTool, false, false, Some("shell")).expect("every bridged agent has a gate")
}

#[test]
fn a_deny_reads_back_as_the_same_deny_in_every_agent() {
    for agent in Agent::bridged() {
        let dispatched = result(&Event::PreTool, Verdict::Deny, Some("no rm -rf"), vec![]);
        let (out, back) = check(agent, gate(agent), &dispatched);
        assert_eq!(back.decision, Decision::Deny { reason: "no rm -rf".into() }, "{agent}: {out:?}");
        assert_eq!(back.status, RunStatus::Blocked, "{agent}");
    }
}

#[test]
fn an_ask_is_an_ask_where_the_agent_can_ask_and_a_deny_saying_approval_is_required_elsewhere() {
    for agent in Agent::bridged() {
        let dispatched = result(&Event::PreTool, Verdict::Ask, Some("touches prod"), vec![]);
        let (out, back) = check(agent, gate(agent), &dispatched);
        match agent {
            Agent::Claude | Agent::Cursor | Agent::Qwen | Agent::Droid | Agent::Copilot => {
                assert_eq!(back.decision, Decision::Ask { reason: Some("touches prod".into()) }, "{agent}: {out:?}")
            }
            Agent::Codex
            | Agent::Gemini
            | Agent::Cline
            | Agent::Opencode
            | Agent::Kilo
            | Agent::Crush
            | Agent::Auggie => {
                let Decision::Deny { reason } = &back.decision else { panic!("{agent}: {out:?}") };
                assert!(reason.contains("approval is required") && reason.contains("touches prod"), "{reason}");
            }
            other => panic!("{other} is not an agent the bridge speaks to"),
        }
    }
}

#[test]
fn droid_in_an_automatic_permission_mode_gets_a_deny_for_an_ask() {
    let dispatched = result(&Event::PreTool, Verdict::Ask, Some("touches prod"), vec![]);
    for (mode, asks) in [
        (None, true),
        (Some("default"), true),
        (Some("auto-high"), false),
        (Some("auto-low"), false),
        (Some("skip"), false),
    ] {
        let mut stdin = json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/ws", "tool_name": "Execute",
            "tool_input": {"command": "rm -rf build"}});
        if let Some(mode) = mode {
            stdin["permission_mode"] = mode.into();
        }
        let read = parse_input_as(Agent::Droid, None, stdin.to_string().as_bytes()).unwrap();
        let out = answer(&read, &dispatched);
        let back = interpret(
            &HookRules::new("bridge", Agent::Droid, &Event::PreTool),
            &read.input,
            &RunResult {
                exit: Some(Exit::Code(i32::from(out.exit_code))),
                stdout: out.stdout.clone().into_bytes(),
                stderr: out.stderr.clone().into_bytes(),
                ..RunResult::default()
            },
        );
        if asks {
            assert_eq!(back.decision, Decision::Ask { reason: Some("touches prod".into()) }, "{mode:?}: {out:?}");
        } else {
            let Decision::Deny { reason } = &back.decision else { panic!("{mode:?}: {out:?}") };
            assert!(reason.contains("approval is required") && reason.contains("touches prod"), "{reason}");
        }
    }
}

#[test]
fn an_allow_skips_the_approver_only_where_the_agent_has_such_an_answer() {
    for agent in Agent::bridged() {
        let dispatched = result(&Event::PreTool, Verdict::Allow, Some("read-only"), vec![]);
        let (out, back) = check(agent, gate(agent), &dispatched);
        let expected = match agent {
            // Crush pre-approves on `allow`; OpenCode's plugin and Auggie read it and leave the call to the agent's
            // own permission rules, which they cannot skip.
            Agent::Claude
            | Agent::Cursor
            | Agent::Qwen
            | Agent::Droid
            | Agent::Copilot
            | Agent::Crush
            | Agent::Opencode
            | Agent::Kilo
            | Agent::Auggie => Decision::Allow { reason: Some("read-only".into()) },
            // Codex has no approval to skip; Gemini CLI's `allow` is no decision in its reference; Cline has no allow.
            Agent::Codex | Agent::Gemini | Agent::Cline => Decision::Pass,
            other => panic!("{other} is not an agent the bridge speaks to"),
        };
        assert_eq!(back.decision, expected, "{agent}: {out:?}");
        assert_eq!(out.exit_code, 0);
    }
}

#[test]
fn context_reaches_the_model_where_the_agent_takes_it() {
    for (agent, event_name, event) in [
        (Agent::Claude, "UserPromptSubmit", Event::TurnStart),
        (Agent::Codex, "UserPromptSubmit", Event::TurnStart),
        (Agent::Gemini, "BeforeAgent", Event::TurnStart),
        (Agent::Cursor, "sessionStart", Event::SessionStart),
    ] {
        let reminder = Effect::InjectReminder { message: "the tests live in t/".into(), severity: Severity::Info };
        let dispatched = result(&event, Verdict::Pass, None, vec![reminder.clone()]);
        let (out, back) = check(agent, event_name, &dispatched);
        assert_eq!(back.effects, vec![reminder], "{agent}: {out:?}");
        assert_eq!(back.decision, Decision::Pass);
    }
}

#[test]
fn context_an_agent_cannot_take_is_told_to_the_operator() {
    let reminder = Effect::InjectReminder { message: "remember the changelog".into(), severity: Severity::Info };
    let dispatched = result(&Event::TurnStart, Verdict::Pass, None, vec![reminder]);
    let (out, _) = check(Agent::Cursor, "beforeSubmitPrompt", &dispatched);
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["continue"], true);
    assert!(json["user_message"].as_str().unwrap().contains("remember the changelog"), "{out:?}");
}

#[test]
fn a_stop_continuation_keeps_every_agent_running_with_the_message() {
    for (agent, event_name) in
        [(Agent::Claude, "Stop"), (Agent::Codex, "Stop"), (Agent::Gemini, "AfterAgent"), (Agent::Cursor, "stop")]
    {
        let more = Effect::RequestContinuation { message: "the tests fail; fix them".into() };
        let dispatched = result(&Event::TurnEnd, Verdict::Pass, None, vec![more.clone()]);
        let (out, back) = check(agent, event_name, &dispatched);
        assert_eq!(back.effects, vec![more], "{agent}: {out:?}");
    }
}

#[test]
fn a_crashed_hook_that_fails_open_is_a_notice_and_one_that_fails_closed_a_deny() {
    let crash =
        || vec![run(RunStatus::Failed, vec![OutputEntry::new(EntryKind::Error, "hook `g` was killed by signal 9")])];
    for agent in Agent::bridged() {
        let mut open = result(&Event::PreTool, Verdict::Pass, None, vec![]);
        open.runs = crash();
        let (out, back) = check(agent, gate(agent), &open);
        assert_eq!(back.decision, Decision::Pass, "{agent}: {out:?}");
        // GitHub Copilot CLI's answer has no field for the user: beside a pass on preToolUse the notice is on stderr.
        let told = if agent == Agent::Copilot { &out.stderr } else { &out.stdout };
        assert!(told.contains("killed by signal 9"), "{agent}: the operator is told: {out:?}");

        let mut closed = result(&Event::PreTool, Verdict::Deny, Some("hook `g` was killed by signal 9"), vec![]);
        closed.runs = crash();
        let (out, back) = check(agent, gate(agent), &closed);
        assert_eq!(back.decision, Decision::Deny { reason: "hook `g` was killed by signal 9".into() }, "{out:?}");
    }
}

#[test]
fn a_rewrite_runs_the_rewritten_input_or_nothing() {
    let input = json!({"command": "rm -rf build --dry-run"}).as_object().unwrap().clone();
    let rewrite = Effect::RewriteToolInput { input: input.clone() };
    for agent in Agent::bridged() {
        let dispatched = result(&Event::PreTool, Verdict::Pass, None, vec![rewrite.clone()]);
        let (out, back) = check(agent, gate(agent), &dispatched);
        if agent == Agent::Cursor {
            assert!(matches!(back.decision, Decision::Deny { .. }), "Cursor cannot apply it: {out:?}");
        } else {
            let rewritten = back.effects.iter().find_map(|e| match e {
                Effect::RewriteToolInput { input } => Some(input.clone()),
                _ => None,
            });
            assert_eq!(rewritten.as_ref(), Some(&input), "{agent}: {out:?}");
        }
    }
}

#[test]
fn a_foreign_event_some_hook_blocked_gets_the_agents_blocking_answer_with_its_reason() {
    // Cline runs its foreign events' hooks (TaskError, TaskCancel) detached and reads no answer: see
    // `cline_answers_only_its_tool_events`.
    for agent in Agent::bridged().into_iter().filter(|a| *a != Agent::Cline) {
        let mut dispatched = result(&Event::Foreign("SubagentStart".into()), Verdict::Pass, None, vec![]);
        dispatched.runs = vec![
            run(RunStatus::Blocked, vec![OutputEntry::new(EntryKind::Feedback, "lower")]),
            run(RunStatus::Completed, vec![]),
            run(RunStatus::Blocked, vec![OutputEntry::new(EntryKind::Feedback, "no subagents today")]),
        ];
        let stdin = json!({"hook_event_name": "SubagentStart"}).to_string();
        let read = parse_input_as(agent, Some("SubagentStart"), stdin.as_bytes()).unwrap();
        let out = answer(&read, &dispatched);
        assert_eq!((out.exit_code, out.stderr.as_str()), (2, "no subagents today\n"), "{agent}");
        let back = interpret(
            &HookRules::new("bridge", agent, &read.input.event),
            &read.input,
            &RunResult { exit: Some(Exit::Code(2)), stderr: out.stderr.into_bytes(), ..RunResult::default() },
        );
        if matches!(agent, Agent::Copilot | Agent::Auggie) {
            // Copilot's and Auggie's exit 2 outside their gates is a message, not a block.
            assert!(back.effects.iter().any(|e| matches!(e, Effect::NotifyOperator { .. })), "{agent}: {back:?}");
        } else {
            assert_eq!(back.status, RunStatus::Blocked, "{agent}");
        }

        dispatched.runs.retain(|r| r.status == RunStatus::Completed);
        let quiet = answer(&read, &dispatched);
        assert_eq!(quiet.exit_code, 0, "{agent}: nothing blocked");
    }
}

#[test]
fn a_failure_blocks_a_gate_or_an_unknown_event_and_never_loops_a_stop() {
    for agent in Agent::bridged() {
        let out = failure(Some(agent), Some(gate(agent)), "cannot load the configuration");
        assert_eq!(out.exit_code, 2, "{agent}");
        assert!(out.stderr.contains("cannot load the configuration"));
        let back = interpret(
            &HookRules::new("bridge", agent, &Event::PreTool),
            &parse_input_as(agent, Some(gate(agent)), stdin_of(agent, gate(agent)).to_string().as_bytes())
                .unwrap()
                .input,
            &RunResult {
                exit: Some(Exit::Code(2)),
                stdout: out.stdout.into_bytes(),
                stderr: out.stderr.into_bytes(),
                ..RunResult::default()
            },
        );
        assert!(matches!(back.decision, Decision::Deny { .. }), "{agent}");
        assert_eq!(failure(Some(agent), None, "stdin is not JSON").exit_code, 2, "{agent}");
    }
    let stop = failure(Some(Agent::Claude), Some("Stop"), "cannot load the configuration");
    assert_eq!(stop.exit_code, 1, "a non-blocking error, not a continuation");
    let unknown_agent = failure(None, None, "bad flag");
    assert_eq!(unknown_agent.exit_code, 2);
    assert!(unknown_agent.stdout.contains(r#""permission":"deny""#));
}

#[test]
fn codex_is_never_sent_a_field_its_event_does_not_define() {
    // Codex fails a hook whose JSON has a field it does not know: every answer must read back as not failed.
    let halt = Effect::Halt { reason: "stop everything".into() };
    let reminder = Effect::InjectReminder { message: "note".into(), severity: Severity::Info };
    for (event_name, event, verdict) in [
        ("PreToolUse", Event::PreTool, Verdict::Deny),
        ("PermissionRequest", Event::PermissionRequest, Verdict::Deny),
        ("PostToolUse", Event::PostTool, Verdict::Pass),
        ("UserPromptSubmit", Event::TurnStart, Verdict::Deny),
        ("SessionStart", Event::SessionStart, Verdict::Pass),
        ("Stop", Event::TurnEnd, Verdict::Pass),
    ] {
        let dispatched = result(&event, verdict, Some("no"), vec![halt.clone(), reminder.clone()]);
        let (out, back) = check(Agent::Codex, event_name, &dispatched);
        assert!(!matches!(back.status, RunStatus::Failed), "{event_name}: {out:?} read back as {back:?}");
    }
}

#[test]
fn an_input_field_of_the_wrong_type_is_named() {
    let err = parse_input(Agent::Claude, br#"{"hook_event_name":"PreToolUse","tool_name":7}"#).unwrap_err();
    assert_eq!(err.to_string(), "the Claude Code hook input's `tool_name` is a number; expected a string");
    let err = parse_input(Agent::Gemini, b"[]").unwrap_err();
    assert_eq!(err.to_string(), "the Gemini CLI hook input on stdin is a list; expected a JSON object");
    let err = parse_input(Agent::Cursor, br#"{"conversation_id":"c"}"#).unwrap_err();
    assert!(err.to_string().contains("`hook_event_name` is missing"));
}

#[test]
fn each_agent_input_becomes_the_engines_event_and_fields() {
    let cursor = parse_input(
        Agent::Cursor,
        br#"{"hook_event_name":"beforeMCPExecution","conversation_id":"c1","generation_id":"g1",
             "workspace_roots":["/ws"],"tool_name":"query","tool_input":"{\"sql\":\"select 1\"}"}"#,
    )
    .unwrap();
    let input = &cursor.input;
    assert_eq!(
        (input.event.clone(), input.session_id.as_deref(), input.turn_id.as_deref()),
        (Event::PreTool, Some("c1"), Some("g1"))
    );
    assert_eq!(input.tool_input, Some(json!({"sql": "select 1"})));
    assert_eq!(input.tool_aliases, vec!["mcp:query".to_string()]);
    assert_eq!(cursor.workspace(|_| None), Some("/ws".into()));
    assert_eq!(hook_middleware::protocol::event_name(Protocol::Cursor, input), "beforeMCPExecution");

    let stop = parse_input(Agent::Claude, br#"{"hook_event_name":"SubagentStop","stop_hook_active":true}"#).unwrap();
    assert!(stop.input.subagent && stop.input.stop_hook_active);
    let gemini = parse_input(
        Agent::Gemini,
        br#"{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{},
             "tool_response":{"llmContent":"","error":"exit status 1"}}"#,
    )
    .unwrap();
    assert!(gemini.input.is_error);
    assert_eq!(gemini.input.content.as_deref(), Some("exit status 1"));
}

#[test]
fn a_lone_hook_of_the_agents_protocol_is_answered_with_its_own_answer() {
    // Codex shows `Failed` for a hook that exits 1; off a gate the bridge exits 1 too, rather than answering
    // `completed` with a systemMessage `codex exec` never shows.
    let own = Replay { exit_code: 1, stdout: String::new(), stderr: "oops\n".into() };
    let failed = RunSummary {
        protocol: Protocol::Codex,
        replay: Some(own.clone()),
        ..run(RunStatus::Failed, vec![OutputEntry::new(EntryKind::Error, "hook `x` exited with undefined code 1")])
    };
    let mut observed = result(&Event::PostTool, Verdict::Pass, None, vec![]);
    observed.runs = vec![RunSummary { event: Event::PostTool, ..failed.clone() }];
    let (out, _) = check(Agent::Codex, "PostToolUse", &observed);
    assert_eq!(out, Answer { exit_code: 1, stdout: own.stdout.clone(), stderr: own.stderr.clone() });
    // On a gate the bridge never exits 1 (the installed handler denies a 1): the engine's reading is answered.
    let mut dispatched = result(&Event::PreTool, Verdict::Pass, None, vec![]);
    dispatched.runs = vec![failed.clone()];
    let (out, _) = check(Agent::Codex, gate(Agent::Codex), &dispatched);
    assert_eq!(out.exit_code, 0, "{out:?}");

    // Not into another agent, not beside a second run, not when the pipeline has something to say.
    let (out, _) = check(Agent::Claude, gate(Agent::Claude), &dispatched);
    assert_eq!(out.exit_code, 0, "a Codex hook's answer means nothing to Claude Code: {out:?}");
    let mut two = dispatched.clone();
    two.runs.push(RunSummary { hook_id: "project.other".into(), ..run(RunStatus::Completed, vec![]) });
    assert_eq!(check(Agent::Codex, gate(Agent::Codex), &two).0.exit_code, 0);
    let mut noted = dispatched.clone();
    noted.diagnostics.push("the dispatch deadline passed".into());
    assert_eq!(check(Agent::Codex, gate(Agent::Codex), &noted).0.exit_code, 0);
    // A notice for the user (a skipped guard, a refused continuation) is never dropped for the hook's own answer.
    let mut told = dispatched.clone();
    told.notices.push("1 hook matched this event but did not run: `guard` (not trusted in this workspace)".into());
    let (out, _) = check(Agent::Codex, gate(Agent::Codex), &told);
    assert!(out.stdout.contains("`guard` (not trusted"), "{out:?}");
}

/// The smallest input of `agent` for `event_name`.
fn stdin_of(agent: Agent, event_name: &str) -> Value {
    if agent == Agent::Cline { cline_stdin(event_name) } else { json!({"hook_event_name": event_name}) }
}

#[test]
fn cline_answers_only_its_tool_events_and_a_cancel_ends_its_run() {
    // PreToolUse: a deny is `cancel` with the reason, which Cline reads as the end of the run, the tool not run.
    let dispatched = result(&Event::PreTool, Verdict::Deny, Some("no rm -rf"), vec![]);
    let (out, back) = check(Agent::Cline, "PreToolUse", &dispatched);
    assert_eq!(out.stdout, "{\"cancel\":true,\"errorMessage\":\"no rm -rf\"}\n");
    assert!(back.effects.iter().any(|e| matches!(e, Effect::Halt { .. })), "{back:?}");
    // PostToolUse: context and a block of the result both reach the model as context; a halt cancels.
    let note = Effect::AnnotateToolResult { message: "3 tests failed".into(), severity: Default::default() };
    let (out, back) = check(Agent::Cline, "PostToolUse", &result(&Event::PostTool, Verdict::Pass, None, vec![note]));
    assert_eq!(out.stdout, "{\"contextModification\":\"3 tests failed\"}\n");
    assert!(back.effects.iter().any(|e| matches!(e, Effect::InjectReminder { .. })), "{back:?}");
    // A skipped guard is told: with the cancel's reason, or to the model as a notice for the user.
    let mut skipped = result(&Event::PreTool, Verdict::Pass, None, vec![]);
    skipped.notices.push("1 hook matched this event but did not run: `guard` (not trusted in this workspace)".into());
    let (out, _) = check(Agent::Cline, "PreToolUse", &skipped);
    assert!(out.stdout.contains("[hook notice for the user] 1 hook matched"), "{out:?}");
    // TaskError is foreign and detached: a block is written as a cancel for the record; Cline reads none of it.
    let mut foreign = result(&Event::Foreign("TaskError".into()), Verdict::Pass, None, vec![]);
    foreign.runs = vec![run(RunStatus::Blocked, vec![OutputEntry::new(EntryKind::Feedback, "no")])];
    let read = parse_input(Agent::Cline, br#"{"hookName":"agent_error","taskId":"t"}"#).unwrap();
    assert_eq!(read.event_name, "TaskError");
    assert!(answer(&read, &foreign).stdout.contains(r#""cancel":true"#));
}

#[test]
fn cline_input_becomes_the_engines_event_and_fields() {
    let read = parse_input(
        Agent::Cline,
        br#"{"clineVersion":"3.0.65","taskId":"t1","workspaceRoots":["/ws"],"hookName":"tool_result","iteration":2,
             "tool_result":{"id":"c9","name":"run_commands","input":{"commands":["make"]},"output":"boom",
                            "error":"exit 2"},
             "postToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"make\"]"},"result":"boom",
                            "success":false}}"#,
    )
    .unwrap();
    assert_eq!(read.event_name, "PostToolUse");
    let input = &read.input;
    assert_eq!((input.event.clone(), input.session_id.as_deref()), (Event::PostTool, Some("t1")));
    assert_eq!(input.tool_name.as_deref(), Some("run_commands"));
    assert_eq!(input.tool_input, Some(json!({"commands": ["make"]})));
    assert!(input.is_error);
    assert_eq!(input.content.as_deref(), Some("exit 2"));
    assert_eq!(read.workspace(|_| None), Some("/ws".into()));
    // What the engine has no name for (`iteration`, `clineVersion`) is kept for a Cline hook's payload.
    assert_eq!(input.extra.as_ref().unwrap().fields["iteration"], 2);
    let err = parse_input(Agent::Cline, br#"{"hook_event_name":"PreToolUse"}"#).unwrap_err();
    assert!(err.to_string().contains("`hookName` is missing"), "{err}");
}

#[test]
fn clines_extension_input_names_its_tool_and_parameters_in_pre_tool_use_alone() {
    let stdin = br#"{"clineVersion":"3.89.2","hookName":"PreToolUse","timestamp":"1764460800000","taskId":"t2",
                     "workspaceRoots":["/ws"],"userId":"u","model":{"provider":"p","slug":"m"},
                     "preToolUse":{"toolName":"execute_command",
                                   "parameters":{"command":"rm -rf /","requires_approval":"true"}}}"#;
    let read = parse_input(Agent::Cline, stdin).unwrap();
    assert_eq!(read.event_name, "PreToolUse");
    let input = &read.input;
    assert_eq!((input.event.clone(), input.session_id.as_deref()), (Event::PreTool, Some("t2")));
    assert_eq!(input.tool_name.as_deref(), Some("execute_command"));
    assert_eq!(input.tool_input, Some(json!({"command": "rm -rf /", "requires_approval": "true"})));
    assert_eq!(hook_types::canonical_tool("execute_command").as_deref(), Some("shell"));
    assert!(input.tool_aliases.is_empty());

    // `use_mcp_tool` is also the MCP tool its parameters name.
    let stdin = br#"{"hookName":"PreToolUse","taskId":"t2","workspaceRoots":["/ws"],
                     "preToolUse":{"toolName":"use_mcp_tool",
                                   "parameters":{"server_name":"github","tool_name":"create_issue","arguments":"{}"}}}"#;
    let read = parse_input(Agent::Cline, stdin).unwrap();
    assert_eq!(read.input.tool_aliases, ["mcp:github:create_issue"]);
    let stdin = br#"{"hookName":"PreToolUse","taskId":"t2",
                     "preToolUse":{"toolName":"use_mcp_tool","parameters":{"server_name":"github"}}}"#;
    assert!(parse_input(Agent::Cline, stdin).unwrap().input.tool_aliases.is_empty());
}
