//! A gate whose declaration cannot be read answers deny in the pipeline built from the loaded configuration: the
//! host's guards run first, then the readable user hooks below a declaration that denies with the configuration
//! error, which cancels them; a reload with the file fixed opens the gate again.

use crate::pipeline_support;

use hook_config::{Config, IssueSeverity, LoadOptions, load};
use hook_middleware::EventInput;
use hook_middleware::pipeline::{Evaluation, Pipeline, Registration, UserTier};
use hook_types::{Effect, Event, RunStatus, Verdict};
use pipeline_support::{Fixture, check, dispatch, pre_tool, statuses};
use serde_json::json;

/// Loads the fixture, errors and all.
fn load_lenient(fx: &Fixture) -> Config {
    load(&fx.layout(), &LoadOptions::default()).unwrap()
}

const READABLE: &str = "- {id: remind, on: pre_tool, kind: prompt, message: careful}\n";

#[test]
fn a_pre_tool_guard_that_cannot_be_read_denies_above_the_readable_hooks() {
    let fx = Fixture::new();
    fx.user_hooks(&format!(
        "{READABLE}- {{id: guard, on: pre_tool, kind: effect, effect: {{kind: block_tool, resn: no}}}}\n"
    ));
    let config = load_lenient(&fx);
    let host =
        Registration::in_process("host.audit", [Event::PreTool], |_: &EventInput, _: &[Effect]| Ok(Evaluation::pass()));
    let pipeline = Pipeline::builder().workspace(&fx.ws).host(host).user_hooks(&config).build().unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    let reason = result.reason.clone().unwrap();
    let source = config.closed_gates[0].issue.source.display().to_string();
    assert_eq!(
        reason,
        format!(
            "the hook configuration has errors: {source}:2:70: hooks[1].effect.resn: unknown field `resn` in effect \
             `block_tool` (did you mean `reason`?) (run hook validate)"
        )
    );
    check(
        &result,
        &format!(
            "verdict: deny
             reason: {reason}
             effect: {}
             run: host.audit: completed
             run: remind: cancelled | Feedback: cancelled: `config-error.pre_tool` has higher precedence and denied
             run: config-error.pre_tool: blocked | Feedback: {reason}",
            serde_json::to_string(&Effect::BlockTool { reason: reason.clone(), severity: Default::default() }).unwrap()
        ),
    );
    // Only the gate it was on: turn_start and permission_request are open.
    assert_eq!(dispatch(&pipeline, &EventInput::new(Event::TurnStart)).verdict, Verdict::Pass);
    let permission = EventInput::new(Event::PermissionRequest).with_tool("shell", json!({}));
    assert_eq!(dispatch(&pipeline, &permission).verdict, Verdict::None);

    // Fixed and reloaded, the gate opens; the reload reports the hooks, not the closed gates.
    fx.user_hooks(&format!(
        "{READABLE}- {{id: guard, on: pre_tool, kind: effect, effect: {{kind: block_tool, reason: no}}}}\n"
    ));
    let reload = pipeline.reload(load_lenient(&fx));
    assert_eq!(reload.hooks, 2);
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.reason.as_deref(), Some("no"));
}

#[test]
fn an_unknown_event_closes_every_gate_and_several_errors_are_counted() {
    let fx = Fixture::new();
    fx.user_hooks(
        "- {on: pre_tol, kind: prompt, message: a}\n- {on: turn_strat, kind: prompt, message: b}\n\
         - {on: pre_tool, kind: effect, effect: {kind: block_tool}}\n",
    );
    let pipeline = Pipeline::builder().workspace(&fx.ws).user_hooks(load_lenient(&fx)).build().unwrap();
    let pre = dispatch(&pipeline, &pre_tool("shell", json!({})));
    assert_eq!(pre.verdict, Verdict::Deny);
    assert!(pre.reason.as_deref().unwrap().ends_with("(and 2 more; run hook validate)"), "{pre:#?}");
    let turn = dispatch(&pipeline, &EventInput::new(Event::TurnStart));
    assert_eq!(turn.verdict, Verdict::Deny);
    assert_eq!(statuses(&turn), [("config-error.turn_start".to_owned(), RunStatus::Blocked)]);
    assert!(matches!(&turn.effects[..], [Effect::BlockTurn { .. }]), "{turn:#?}");
    assert!(turn.reason.as_deref().unwrap().ends_with("(and 1 more; run hook validate)"), "{turn:#?}");
    let permission = dispatch(&pipeline, &EventInput::new(Event::PermissionRequest).with_tool("shell", json!({})));
    assert_eq!(permission.verdict, Verdict::Deny);
    // An observer is no gate.
    let post = dispatch(&pipeline, &pipeline_support::post_tool("shell"));
    assert_eq!(post.verdict, Verdict::Pass);
    assert!(post.runs.is_empty());
}

#[test]
fn a_host_that_passes_the_hooks_alone_gets_no_closed_gate_and_a_guard_deny_still_comes_first() {
    let fx = Fixture::new();
    fx.user_hooks("- {on: pre_tol, kind: prompt, message: a}\n");
    let config = load_lenient(&fx);
    let bare = Pipeline::builder().workspace(&fx.ws).user_hooks(config.hooks.clone()).build().unwrap();
    assert_eq!(dispatch(&bare, &pre_tool("shell", json!({}))).verdict, Verdict::Pass, "why the docs say `&config`");
    assert_eq!(UserTier::from(&config).closed_gates.len(), 1);

    let guard = Registration::in_process("host.sandbox", [Event::PreTool], |_: &EventInput, _: &[Effect]| {
        Ok(Evaluation::deny("outside the sandbox"))
    });
    let pipeline = Pipeline::builder().workspace(&fx.ws).fixed(guard).user_hooks(&config).build().unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({})));
    assert_eq!(result.reason.as_deref(), Some("outside the sandbox"));
    assert_eq!(
        statuses(&result),
        [("host.sandbox".to_owned(), RunStatus::Blocked), ("config-error.pre_tool".to_owned(), RunStatus::Skipped)]
    );
}

#[test]
fn a_guard_the_table_drops_for_its_id_closes_its_gate_and_the_reserved_ids_stay_reserved() {
    let fx = Fixture::new();
    fx.user_hooks(
        "- {id: host.sandbox, on: pre_tool, kind: effect, effect: {kind: block_tool, reason: mine}}\n\
         - {id: config-error.turn_start, on: turn_start, kind: prompt, message: sneaky}\n",
    );
    let guard = Registration::in_process("host.sandbox", [Event::PreTool], |_: &EventInput, _: &[Effect]| {
        Ok(Evaluation::pass())
    });
    let config = load_lenient(&fx);
    assert!(!config.issues.iter().any(|i| i.severity == IssueSeverity::Error));
    let pipeline = Pipeline::builder().workspace(&fx.ws).fixed(guard).user_hooks(&config).build().unwrap();
    let issues = pipeline.issues();
    assert_eq!(issues.len(), 2, "{issues:#?}");
    assert!(issues[1].message.contains("or is reserved"), "{}", issues[1].message);
    let result = dispatch(&pipeline, &pre_tool("shell", json!({})));
    assert_eq!(result.verdict, Verdict::Deny);
    let reason = result.reason.unwrap();
    assert!(reason.contains("hook id `host.sandbox` is already taken by a fixed registration"), "{reason}");
    // A prompt dropped for its id guarded nothing: turn_start stays open.
    assert_eq!(dispatch(&pipeline, &EventInput::new(Event::TurnStart)).verdict, Verdict::Pass);
}
