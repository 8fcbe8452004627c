//! The behaviours the source systems pin, through real dispatches of real hook scripts.

use crate::pipeline_support;

use std::time::{Duration, Instant};

use hook_config::{Layout, LoadOptions, load};
use hook_types::{Event, RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

#[test]
fn unknown_event_is_refused_at_load_in_strict_mode() {
    let fx = Fixture::new();
    fx.project_hooks("- {id: typo, on: pre_tol, kind: effect, effect: {kind: block_tool, reason: no}}\n");
    let layout: Layout = fx.layout();
    let err = load(&layout, &LoadOptions { strict: true, ..LoadOptions::default() }).unwrap_err();
    let message = err.to_string();
    assert!(message.contains("unknown event `pre_tol` (did you mean `pre_tool`?)"), "{message}");
    // Lenient: the typo is an issue and the hook is not in force.
    let config = load(&layout, &LoadOptions::default()).unwrap();
    assert!(config.hooks.is_empty() && config.has_errors());
}

#[test]
fn exit_0_passes_and_exit_2_denies_with_the_hooks_reason() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"
- {id: ok, on: pre_tool, kind: command, shell: "exit 0"}
- {id: guard, on: pre_tool, kind: command, tools: [shell], shell: "echo 'no rm -rf here' >&2; exit 2"}
"#,
    );
    let pipeline = fx.pipeline();
    let result = dispatch(&pipeline, &pre_tool("read", json!({"path": "a"})));
    check(&result, "verdict: pass\nrun: ok: completed (exit 0)");
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "rm -rf /"})));
    check(
        &result,
        r#"verdict: deny
         reason: no rm -rf here
         effect: {"kind":"block_tool","reason":"no rm -rf here","severity":"hard-block"}
         run: ok: cancelled | Feedback: cancelled: `guard` has higher precedence and denied
         run: guard: blocked (exit 2) | Feedback: no rm -rf here"#,
    );
}

#[test]
fn undefined_exit_spawn_failure_timeout_and_invalid_json_each_deny_a_pre_tool_naming_the_failure() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"
- {id: seven, on: pre_tool, kind: command, tools: [a], shell: "exit 7"}
- {id: missing, on: pre_tool, kind: command, tools: [b], argv: [no-such-program-on-path]}
- {id: slow, on: pre_tool, kind: command, tools: [c], shell: "sleep 5", timeout_ms: 200}
- {id: garbled, on: pre_tool, kind: command, tools: [d], shell: "echo '{not json'"}
"#,
    );
    let pipeline = fx.pipeline();
    let cases = [
        ("a", "seven", RunStatus::Failed, "hook `seven` exited with undefined code 7"),
        ("b", "missing", RunStatus::Failed, "hook `missing` could not start"),
        ("c", "slow", RunStatus::TimedOut, "hook `slow` timed out after 200 ms"),
        ("d", "garbled", RunStatus::Failed, "hook `garbled` wrote invalid JSON"),
    ];
    for (tool, id, status, reason) in cases {
        let started = Instant::now();
        let result = dispatch(&pipeline, &pre_tool(tool, json!({})));
        assert!(started.elapsed() < Duration::from_secs(4), "{id} took {:?}", started.elapsed());
        assert_eq!(result.verdict, Verdict::Deny, "{id}: {result:#?}");
        let shown = result.reason.clone().unwrap();
        assert!(shown.starts_with(reason), "{id}: reason {shown:?} should start with {reason:?}");
        assert_eq!(statuses(&result), vec![(id.to_owned(), status)]);
        assert!(entries_of(&result, id).contains("Error: "), "{id}: {}", entries_of(&result, id));
    }
}

#[test]
fn a_hook_that_never_reads_a_large_payload_still_times_out() {
    let fx = Fixture::new();
    fx.user_hooks(r#"- {id: deaf, on: pre_tool, kind: command, shell: "sleep 10", timeout_ms: 300}"#);
    let pipeline = fx.pipeline();
    // Far more than a pipe buffer: the write blocks until the deadline kills the hook.
    let big = "x".repeat(4 << 20);
    let started = Instant::now();
    let result = dispatch(&pipeline, &pre_tool("write", json!({"content": big})));
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(status_of(&result, "deaf"), RunStatus::TimedOut);
    assert_eq!(result.verdict, Verdict::Deny);
    assert_eq!(result.reason.as_deref(), Some("hook `deaf` timed out after 300 ms"));
}

#[test]
fn the_tool_filter_scopes_a_hook_and_the_payload_reaches_stdin() {
    let fx = Fixture::new();
    fx.user_hooks(r#"- {id: spy, on: pre_tool, kind: command, tools: [shell], shell: "cat > $OUT/payload.json"}"#);
    let pipeline = fx.pipeline();
    let result = dispatch(&pipeline, &pre_tool("write", json!({"path": "x"})));
    assert!(result.runs.is_empty() && fx.read_out("payload.json").is_none(), "{result:#?}");
    let mut input = pre_tool("shell", json!({"command": "ls -la"}));
    input.session_id = Some("sess-7".into());
    let result = dispatch(&pipeline, &input);
    check(&result, "verdict: pass\nrun: spy: completed (exit 0)");
    let payload = fx.read_out("payload.json").unwrap();
    assert!(payload.ends_with('\n'));
    let payload: serde_json::Value = serde_json::from_str(&payload).unwrap();
    assert_eq!(payload["tool_name"], "shell");
    assert_eq!(payload["tool_input"], json!({"command": "ls -la"}));
    assert_eq!(payload["session_id"], "sess-7");
    assert_eq!(payload["hook_event_name"], "pre_tool");
}

#[test]
fn post_tool_failures_are_swallowed() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"
- {id: crash, on: post_tool, kind: command, shell: "echo boom >&2; exit 1"}
- {id: hang, on: post_tool, kind: command, shell: "sleep 5", timeout_ms: 200}
- {id: note, on: post_tool, kind: command, shell: "echo formatted"}
"#,
    );
    let result = dispatch(&fx.pipeline(), &post_tool("write"));
    assert_eq!(result.verdict, Verdict::Pass);
    assert_eq!(result.reason, None);
    assert_eq!(
        statuses(&result),
        vec![
            ("crash".into(), RunStatus::Failed),
            ("hang".into(), RunStatus::TimedOut),
            ("note".into(), RunStatus::Completed)
        ]
    );
    assert!(entries_of(&result, "crash").contains("Error"));
    assert_eq!(
        result.effects,
        vec![hook_types::Effect::AnnotateToolResult {
            message: "formatted".into(),
            severity: hook_types::AnnotationSeverity::Info
        }]
    );
}

const ALLOW: &str =
    r#"echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'"#;
const DENY: &str = r#"echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}'"#;

fn permission(fx: &Fixture, shells: &[(&str, &str)]) -> hook_middleware::DispatchResult {
    let yaml: String = shells
        .iter()
        .map(|(id, shell)| {
            format!(
                "- id: {id}\n  on: permission_request\n  kind: command\n  shell: {}\n",
                serde_json::to_string(shell).unwrap()
            )
        })
        .collect();
    fx.user_hooks(&yaml);
    let mut input = pre_tool("shell", json!({"command": "git push"}));
    input.event = Event::PermissionRequest;
    dispatch(&fx.pipeline(), &input)
}

#[test]
fn permission_request_deny_overrides_allow_two_allows_allow_no_decision_is_none() {
    let fx = Fixture::new();
    let result = permission(&fx, &[("a", ALLOW), ("b", DENY)]);
    assert_eq!((result.verdict, result.reason.as_deref()), (Verdict::Deny, Some("not on main")));
    // Any deny wins, also over an allow of higher precedence (which runs to its end).
    let result = permission(&fx, &[("b", DENY), ("a", ALLOW)]);
    assert_eq!((result.verdict, result.reason.as_deref()), (Verdict::Deny, Some("not on main")));
    assert_eq!(status_of(&result, "a"), RunStatus::Completed);
    assert!(!result.effects.iter().any(|e| matches!(e, hook_types::Effect::AllowTool { .. })));
    let result = permission(&fx, &[("a", ALLOW), ("c", ALLOW)]);
    assert_eq!(result.verdict, Verdict::Allow);
    let result = permission(&fx, &[("quiet", "exit 0"), ("crash", "exit 1")]);
    assert_eq!((result.verdict, result.reason.as_deref()), (Verdict::None, None));
}
