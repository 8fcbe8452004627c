//! Tiers, reload, isolation of in-process registrations, preview, the continuation cap and the environment.

use crate::pipeline_support;

use std::sync::Arc;
use std::time::Duration;

use hook_config::IssueSeverity;
use hook_middleware::pipeline::{BuildError, EvalError, Evaluation, Phase, Pipeline, Registration, SkipReason, Tier};
use hook_middleware::receipts::RingSink;
use hook_middleware::{Evaluate, EventInput};
use hook_types::{Effect, Event, Outcome, RunStatus, Severity, Verdict};
use pipeline_support::*;
use serde_json::json;

#[test]
fn a_reload_during_a_slow_dispatch_leaves_it_on_the_old_table_and_the_next_uses_the_new() {
    let fx = Fixture::new();
    fx.user_hooks(r#"- {id: old, on: pre_tool, kind: command, shell: "touch $OUT/started; sleep 0.5; echo from-old"}"#);
    let pipeline = fx.pipeline();
    assert_eq!(pipeline.generation(), 1);
    fx.user_hooks(r#"- {id: new, on: pre_tool, kind: command, shell: "echo from-new"}"#);
    let new_hooks = fx.load().hooks;

    let rt = runtime();
    let slow = {
        let pipeline = pipeline.clone();
        rt.spawn(async move { pipeline.dispatch(&pre_tool("shell", json!({}))).await })
    };
    assert!(eventually(Duration::from_secs(5), || fx.read_out("started").is_some()), "the old hook never started");
    let reload = pipeline.reload(new_hooks);
    assert_eq!((reload.generation, reload.hooks, pipeline.generation()), (2, 1, 2));

    let first = rt.block_on(slow).unwrap();
    let second = rt.block_on(pipeline.dispatch(&pre_tool("shell", json!({}))));
    assert_eq!(first.generation, 1);
    check(
        &first,
        r#"verdict: pass
                    effect: {"kind":"inject_reminder","message":"from-old","severity":"info"}
                    run: old: completed (exit 0) | Context: from-old"#,
    );
    assert_eq!(second.generation, 2);
    assert_eq!(statuses(&second), vec![("new".into(), RunStatus::Completed)]);
}

#[test]
fn a_panicking_in_process_registration_is_an_error_entry_and_the_others_still_run() {
    let fx = Fixture::new();
    fx.user_hooks(r#"- {id: user-note, on: post_tool, kind: prompt, message: "check the diff"}"#);
    let ring = Arc::new(RingSink::new(64));
    let pipeline = fx
        .builder()
        .fixed(Registration::in_process(
            "host.buggy",
            [Event::PostTool],
            |_: &EventInput, _: &[Effect]| -> Result<Evaluation, EvalError> { panic!("index out of bounds") },
        ))
        .host(Registration::in_process("host.failing", [Event::PostTool], |_: &EventInput, _: &[Effect]| {
            Err(EvalError::new("lint server is down"))
        }))
        .host(Registration::in_process("host.sees-prior", [Event::PostTool], |_: &EventInput, prior: &[Effect]| {
            Ok(Evaluation::effects(vec![Effect::NotifyOperator {
                message: format!("{} prior", prior.len()),
                key: "k".into(),
            }]))
        }))
        .receipt_sink(ring.clone())
        .build()
        .unwrap();
    let result = dispatch(&pipeline, &post_tool("shell"));
    check(
        &result,
        r#"verdict: pass
           effect: {"kind":"notify_operator","message":"0 prior","key":"k"}
           effect: {"kind":"inject_reminder","message":"check the diff","severity":"info"}
           run: host.buggy: failed | Error: hook `host.buggy` panicked: index out of bounds
           run: host.failing: failed | Error: hook `host.failing` failed: lint server is down
           run: host.sees-prior: completed
           run: user-note: completed"#,
    );
    let outcomes: Vec<(String, Outcome)> = ring.snapshot().into_iter().map(|r| (r.hook_id, r.outcome)).collect();
    assert_eq!(
        outcomes,
        vec![
            ("host.buggy".into(), Outcome::CommandFailed),
            ("host.failing".into(), Outcome::CommandFailed),
            ("host.sees-prior".into(), Outcome::Emitted),
            ("user-note".into(), Outcome::Emitted),
        ]
    );
    // On a gate the same panic fails closed (the event's failure policy), unless the host says `ignore`.
    let pipeline = Pipeline::builder()
        .workspace(&fx.ws)
        .host(Registration::in_process(
            "host.buggy",
            [Event::PreTool],
            |_: &EventInput, _: &[Effect]| -> Result<Evaluation, EvalError> { panic!("boom") },
        ))
        .build()
        .unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({})));
    assert_eq!((result.verdict, result.reason.as_deref()), (Verdict::Deny, Some("hook `host.buggy` panicked: boom")));
}

#[test]
fn in_process_hooks_each_see_the_effects_before_them() {
    struct Counter;
    impl Evaluate for Counter {
        fn evaluate(&self, _: &EventInput, prior: &[Effect]) -> Result<Evaluation, EvalError> {
            let kinds: Vec<&str> = prior.iter().map(Effect::kind).collect();
            Ok(Evaluation::effects(vec![Effect::NotifyOperator { message: kinds.join(","), key: "seen".into() }]))
        }
    }
    let fx = Fixture::new();
    let pipeline = Pipeline::builder()
        .workspace(&fx.ws)
        .fixed(Registration::in_process("first", [Event::TurnStart], |_: &EventInput, _: &[Effect]| {
            Ok(Evaluation::effects(vec![Effect::InjectReminder { message: "hi".into(), severity: Severity::Info }]))
        }))
        .host(Registration::in_process("second", [Event::TurnStart], Counter))
        .build()
        .unwrap();
    let result = dispatch(&pipeline, &EventInput::new(Event::TurnStart));
    assert_eq!(result.effects[1], Effect::NotifyOperator { message: "inject_reminder".into(), key: "seen".into() });
}

#[test]
fn a_user_hook_cannot_take_a_fixed_or_host_id() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"
- {id: host.sandbox, on: pre_tool, kind: effect, effect: {kind: allow_tool}}
- {id: mine, on: pre_tool, kind: prompt, message: "hello"}
"#,
    );
    let guard = Registration::in_process("host.sandbox", [Event::PreTool], |_: &EventInput, _: &[Effect]| {
        Ok(Evaluation::pass())
    });
    let pipeline = fx.builder().fixed(guard).build().unwrap();
    let issues = pipeline.issues();
    assert_eq!(issues.len(), 1, "{issues:#?}");
    assert_eq!((issues[0].severity, issues[0].hook_id.as_deref()), (IssueSeverity::Error, Some("host.sandbox")));
    assert_eq!(issues[0].field.as_deref(), Some("hooks[0].id"));
    assert!(issues[0].message.contains("already taken by a fixed registration"), "{}", issues[0].message);
    let ids: Vec<String> = pipeline.preview(&Event::PreTool, Some("shell")).into_iter().map(|e| e.id).collect();
    assert_eq!(ids, vec!["host.sandbox", "mine"]);
    // The same holds for a reload.
    let reload = pipeline.reload(fx.load().hooks);
    assert_eq!((reload.generation, reload.hooks, reload.issues.len()), (2, 1, 1));
}

#[test]
fn build_refuses_duplicate_ids_missing_events_and_unusable_limits() {
    let fx = Fixture::new();
    let pass = |_: &EventInput, _: &[Effect]| Ok(Evaluation::pass());
    let err = Pipeline::builder()
        .workspace(&fx.ws)
        .fixed(Registration::in_process("guard", [Event::PreTool], pass))
        .host(Registration::in_process("guard", [Event::PostTool], pass))
        .build()
        .unwrap_err();
    assert!(matches!(err, BuildError::DuplicateId { first: Tier::Fixed, second: Tier::Host, .. }), "{err}");
    let err =
        Pipeline::builder().workspace(&fx.ws).host(Registration::in_process("idle", [], pass)).build().unwrap_err();
    assert_eq!(err.to_string(), "host registration `idle` lists no event, so it would never run");
    let err = Pipeline::builder()
        .workspace(&fx.ws)
        .host(Registration::in_process("Bad Id", [Event::PreTool], pass))
        .build()
        .unwrap_err();
    assert!(matches!(err, BuildError::InvalidId { .. }), "{err}");
    let err = Pipeline::builder().build().unwrap_err();
    assert!(matches!(err, BuildError::NoWorkspace));
    let file = fx.write("file.txt", "");
    assert!(matches!(Pipeline::builder().workspace(file).build().unwrap_err(), BuildError::NotADirectory { .. }));
    let limits = hook_types::Limits { max_concurrency: 0, ..Default::default() };
    let err = Pipeline::builder().workspace(&fx.ws).limits(limits).build().unwrap_err();
    assert_eq!(err.to_string(), "limits: `max_concurrency` is 0: no command hook could run; expected at least 1");
}

#[test]
fn preview_lists_what_would_run_in_order_with_skip_reasons_and_runs_nothing() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"
- {id: cmd-first, on: post_tool, kind: command, tools: [shell], shell: "touch $OUT/ran"}
- {id: note, on: post_tool, kind: prompt, message: "hi"}
- {id: off, on: post_tool, kind: prompt, message: "off", enabled: false}
- {id: failures, on: post_tool, kind: command, only_errors: true, sequential: true, shell: "touch $OUT/ran"}
- {id: other-tool, on: post_tool, kind: command, matcher: "^wr", shell: "touch $OUT/ran"}
"#,
    );
    fx.project_hooks(r#"- {id: repo, on: post_tool, kind: command, shell: "touch $OUT/ran"}"#);
    let guard =
        Registration::in_process(
            "host.audit",
            [Event::PostTool],
            |_: &EventInput, _: &[Effect]| Ok(Evaluation::pass()),
        );
    let pipeline = fx.builder().host(guard).build().unwrap();
    let preview = pipeline.preview(&Event::PostTool, Some("shell"));
    type Row = (String, Phase, Option<SkipReason>, bool, Vec<String>);
    let rows: Vec<Row> = preview.into_iter().map(|e| (e.id, e.phase, e.skip, e.sequential, e.conditions)).collect();
    let only_errors = vec!["only when the tool call failed (`only_errors`)".to_owned()];
    assert_eq!(
        rows,
        vec![
            ("host.audit".into(), Phase::Guard, None, false, vec![]),
            ("note".into(), Phase::InProcess, None, false, vec![]),
            ("off".into(), Phase::InProcess, Some(SkipReason::Disabled), false, vec![]),
            ("cmd-first".into(), Phase::Command, None, false, vec![]),
            ("failures".into(), Phase::Command, None, true, only_errors),
            ("repo".into(), Phase::Command, Some(SkipReason::Untrusted), false, vec![]),
        ]
    );
    let writes: Vec<String> = pipeline.preview(&Event::PostTool, Some("write")).into_iter().map(|e| e.id).collect();
    assert!(writes.contains(&"other-tool".to_owned()) && !writes.contains(&"cmd-first".to_owned()), "{writes:?}");
    assert!(fx.read_out("ran").is_none(), "preview must run nothing");
}

#[test]
fn turn_end_continuations_are_capped_per_session() {
    let fx = Fixture::new();
    fx.user_hooks(r#"- {id: keep-going, on: turn_end, kind: effect, effect: {kind: request_continuation, message: "run the tests"}}"#);
    let pipeline = fx.pipeline();
    let rt = runtime();
    let stop = |session: &str, active: bool| {
        let mut input = EventInput::new(Event::TurnEnd).with_session(session);
        input.stop_hook_active = active;
        input
    };
    let continues =
        |r: &hook_middleware::DispatchResult| r.effects.iter().any(|e| matches!(e, Effect::RequestContinuation { .. }));
    // Limits::default().continuation_cap is 3: three in a row are granted, the fourth is refused.
    for i in 0..3 {
        let result = rt.block_on(pipeline.dispatch(&stop("s1", i > 0)));
        assert!(continues(&result) && result.diagnostics.is_empty(), "continuation {i}: {result:#?}");
    }
    let refused = rt.block_on(pipeline.dispatch(&stop("s1", true)));
    assert!(!continues(&refused));
    assert_eq!(
        refused.notices,
        vec!["a hook asked to keep going after 3 continuations in a row; the cap of 3 stopped it here"]
    );
    assert!(entries_of(&refused, "keep-going").contains("Warning: its request_continuation was refused"));
    // An agent that calls again in the same chain is refused again.
    assert!(!continues(&rt.block_on(pipeline.dispatch(&stop("s1", true)))));
    // Another session is counted apart; a new prompt starts the chain over.
    assert!(continues(&rt.block_on(pipeline.dispatch(&stop("s2", false)))));
    for _ in 0..2 {
        rt.block_on(pipeline.dispatch(&stop("s2", true)));
    }
    rt.block_on(pipeline.dispatch(&EventInput::new(Event::TurnStart).with_session("s2")));
    assert!(continues(&rt.block_on(pipeline.dispatch(&stop("s2", false)))));
}

#[test]
fn command_hooks_get_the_pipeline_variables_over_a_filtered_host_environment() {
    let fx = Fixture::new();
    let script = r#"printf 'event=%s\nproject=%s\nsource=%s\nclaude=%s\ngemini=%s\nmine=%s\npkg=%s\npwd=%s\n' "$HOOK_EVENT" "$HOOK_PROJECT_DIR" "$HOOK_SOURCE_DIR" "$CLAUDE_PROJECT_DIR" "$GEMINI_PROJECT_DIR" "$MINE" "${CARGO_PKG_NAME:-unset}" "$(pwd)" > $OUT/env-$HOOK_NAME"#;
    let yaml = |id: &str, protocol: &str| {
        format!(
            "- id: {id}\n  on: post_tool\n  kind: command\n  protocol: {protocol}\n  env: {{MINE: yes-{id}, HOOK_NAME: {id}, CLAUDE_PROJECT_DIR: /spoofed}}\n  shell: {}\n",
            serde_json::to_string(script).unwrap()
        )
    };
    fx.user_hooks(&format!("{}{}", yaml("native", "native"), yaml("claude", "claude")));
    let pipeline = fx.builder().env_policy(hook_exec::EnvPolicy::Deny(vec!["CARGO_*".into()])).build().unwrap();
    // cargo runs tests with CARGO_PKG_NAME set: the policy must keep it from the hooks.
    assert_eq!(std::env::var("CARGO_PKG_NAME").as_deref(), Ok("hook-middleware"));
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert!(result.runs.iter().all(|r| r.status == RunStatus::Completed), "{result:#?}");
    let ws = fx.ws.display().to_string();
    let config_home = fx.layout().config_home().canonicalize().unwrap().display().to_string();
    assert_eq!(
        fx.read_out("env-native").unwrap(),
        format!(
            "event=post_tool\nproject={ws}\nsource={config_home}\nclaude=/spoofed\ngemini=\nmine=yes-native\npkg=unset\npwd={ws}\n"
        )
    );
    // The protocol's own variable wins over the hook's env: the fingerprint relies on it naming the workspace.
    assert_eq!(
        fx.read_out("env-claude").unwrap(),
        format!(
            "event=post_tool\nproject={ws}\nsource={config_home}\nclaude={ws}\ngemini=\nmine=yes-claude\npkg=unset\npwd={ws}\n"
        )
    );
}

#[test]
fn a_command_guard_gets_the_payload_and_its_deny_ends_the_gate_before_user_hooks() {
    let fx = Fixture::new();
    fx.user_hooks(r#"- {id: writer, on: pre_tool, kind: command, shell: "touch $OUT/user-hook-ran"}"#);
    let script = format!(
        "cat > {}/guard-payload.json; echo \"$HOOK_EVENT\" > {}/guard-event; echo 'guard says no' >&2; exit 2",
        fx.out().display(),
        fx.out().display()
    );
    let guard = Registration::command(
        "host.policy",
        [Event::PreTool],
        hook_exec::Invocation::shell(script),
        Duration::from_secs(5),
        hook_types::Protocol::Native,
    )
    .tools(["shell"]);
    let pipeline = fx.builder().host(guard).build().unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "make"})));
    check(
        &result,
        r#"verdict: deny
           reason: guard says no
           effect: {"kind":"block_tool","reason":"guard says no","severity":"hard-block"}
           run: host.policy: blocked (exit 2) | Feedback: guard says no
           run: writer: skipped | Feedback: not run: guard `host.policy` denied first"#,
    );
    assert!(fx.read_out("user-hook-ran").is_none());
    assert_eq!(fx.read_out("guard-event").unwrap(), "pre_tool\n");
    let payload: serde_json::Value = serde_json::from_str(&fx.read_out("guard-payload.json").unwrap()).unwrap();
    assert_eq!(payload["tool_input"], json!({"command": "make"}));
    assert_eq!(result.runs[0].source, "host");
}

#[test]
fn a_tool_the_agents_table_does_not_know_is_announced_once_a_session_while_a_guard_filters_by_tools() {
    let fx = Fixture::new();
    let shell_guard = |_: &EventInput, _: &[Effect]| -> Result<Evaluation, EvalError> { Ok(Evaluation::deny("no")) };
    let pipeline = fx
        .builder()
        .host(Registration::in_process("host.shell", [Event::PreTool], shell_guard).tools(["shell"]))
        .build()
        .unwrap();
    // What the bridge fills: whose input this is.
    let from = |agent: hook_types::Protocol, tool: &str, session: &str| {
        let mut input = pre_tool(tool, json!({})).with_session(session);
        input.extra = Some(hook_middleware::AgentFields {
            protocol: agent,
            fields: Default::default(),
            keys: Vec::new(),
            newline: false,
        });
        input
    };
    let claude = hook_types::Protocol::Claude;
    let first = dispatch(&pipeline, &from(claude, "Frobnicate", "s1"));
    assert_eq!(first.verdict, Verdict::Pass);
    assert_eq!(first.notices.len(), 1, "{first:?}");
    let told = &first.notices[0];
    assert!(told.starts_with("Claude Code called the tool `Frobnicate`"), "{told}");
    assert!(told.contains("`host.shell`: shell") && told.contains("add `Frobnicate`"), "{told}");
    assert!(dispatch(&pipeline, &from(claude, "Frobnicate", "s1")).notices.is_empty());
    assert_eq!(dispatch(&pipeline, &from(claude, "Frobnicate", "s2")).notices.len(), 1);
    // Known: its own spelling, and an MCP tool; Gemini CLI's name is one Claude Code's table lacks.
    assert_eq!(dispatch(&pipeline, &from(claude, "Bash", "s3")).verdict, Verdict::Deny);
    assert!(dispatch(&pipeline, &from(claude, "Bash", "s3")).notices.is_empty());
    assert!(dispatch(&pipeline, &from(claude, "mcp__github__search", "s3")).notices.is_empty());
    let foreign = dispatch(&pipeline, &from(claude, "run_shell_command", "s3"));
    assert!(foreign.notices[0].contains("read as `shell` only because another agent"), "{foreign:?}");
    // A host's own input (no agent): any agent's spelling is known; a name no table has is not.
    assert!(dispatch(&pipeline, &pre_tool("run_shell_command", json!({}))).notices.is_empty());
    let host = dispatch(&pipeline, &pre_tool("frobnicate", json!({})));
    assert!(host.notices[0].starts_with("The tool `frobnicate` is in no agent's table"), "{host:?}");
    // The name is the agent's input: shown cut short, without its control characters.
    let long = format!("evil\n{}", "x".repeat(10_000));
    let cut = &dispatch(&pipeline, &from(claude, &long, "s6")).notices[0];
    assert!(
        cut.contains("`evil\u{fffd}xxx") && cut.contains("x…`") && !cut.contains('\n') && cut.len() < 1_500,
        "{cut}"
    );
    // Observers decide nothing: no notice on post_tool.
    let mut after = from(claude, "Frobnicate", "s4");
    after.event = Event::PostTool;
    assert!(dispatch(&pipeline, &after).notices.is_empty());

    // No `tools:` filter on the event: nothing to tell.
    let unscoped = fx
        .builder()
        .host(Registration::in_process("host.all", [Event::PreTool], |_: &EventInput, _: &[Effect]| {
            Ok(Evaluation::pass())
        }))
        .build()
        .unwrap();
    assert!(dispatch(&unscoped, &from(claude, "Frobnicate", "s5")).notices.is_empty());
}
