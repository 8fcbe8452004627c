//! `policy` hooks: Rego evaluated in-process on real files. What the example policy answers, and every way an
//! evaluation can fail (an error, an undefined or malformed answer, the time limit) denies a gate with the reason.

#[path = "../../../tests/support/hook_server.rs"]
mod hook_server;
mod pipeline_support;

use std::time::{Duration, Instant};

use hook_types::{EntryKind, RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

const EXAMPLE: &str = include_str!("../../../examples/policy/policy/hooks.rego");

fn policy_fixture(rego: &str, query: &str, event: &str) -> Fixture {
    let fixture = Fixture::new();
    fixture.write("policy/p.rego", rego);
    let path = fixture.ws.join("policy/p.rego");
    fixture.user_hooks(&format!(
        "- {{id: policy, on: {event}, kind: policy, files: [\"{}\"], query: {query}, timeout_ms: 300}}\n",
        path.display()
    ));
    fixture
}

#[test]
fn the_example_policy_denies_and_passes_in_process() {
    let fixture = policy_fixture(EXAMPLE, "data.hooks.pre_tool.decision", "pre_tool");
    let pipeline = fixture.pipeline();
    let mut input = pre_tool("shell", json!({"command": "git push --force"}));
    input.cwd = Some(fixture.ws.display().to_string());
    let result = dispatch(&pipeline, &input);
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    assert!(result.reason.unwrap().contains("force pushes rewrite shared history"));
    let mut input = pre_tool("write", json!({"file_path": "src/lib.rs", "content": ""}));
    input.cwd = Some(fixture.ws.display().to_string());
    let result = dispatch(&pipeline, &input);
    assert_eq!(result.verdict, Verdict::Pass, "{}", render(&result));
    assert_eq!(status_of(&result, "policy"), RunStatus::Completed);
}

#[test]
fn a_list_of_effects_is_an_answer() {
    let rego = "package p\nimport rego.v1\nanswer := [{\"kind\": \"block_tool\", \"reason\": \"listed\"}] if input.tool == \"shell\"\ndefault answer := []\n";
    let fixture = policy_fixture(rego, "data.p.answer", "pre_tool");
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    assert_eq!(result.reason.as_deref(), Some("listed"));
}

#[test]
fn every_evaluation_failure_denies_a_gate_with_the_reason() {
    let cases = [
        (
            "an undefined answer",
            "package p\nimport rego.v1\nd := {\"decision\": \"deny\"} if input.tool == \"nothing\"\n",
            "undefined",
        ),
        ("a malformed answer", "package p\nimport rego.v1\nd := 42\n", "a number"),
        (
            "an unknown decision",
            "package p\nimport rego.v1\nd := {\"decision\": \"maybe\"}\n",
            "unknown decision `maybe`",
        ),
        ("an unknown field", "package p\nimport rego.v1\nd := {\"verdict\": \"deny\"}\n", "unknown field `verdict`"),
        (
            "a builtin error",
            "package p\nimport rego.v1\nd := {\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [to_number(\"x\")])}\n",
            "failed to evaluate",
        ),
        (
            "the time limit",
            "package p\nimport rego.v1\nd := {\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [count([1 | some a in numbers.range(1, 20000); some b in numbers.range(1, 20000); a == b + 30000])])}\n",
            "failed to evaluate",
        ),
    ];
    for (what, rego, says) in cases {
        let fixture = policy_fixture(rego, "data.p.d", "pre_tool");
        let started = Instant::now();
        let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
        assert!(started.elapsed() < Duration::from_secs(20), "{what}: took {:?}", started.elapsed());
        assert_eq!(result.verdict, Verdict::Deny, "{what}: {}", render(&result));
        let reason = result.reason.clone().unwrap_or_default();
        assert!(reason.starts_with("hook `policy`") && reason.contains(says), "{what}: {reason}");
        assert!(matches!(status_of(&result, "policy"), RunStatus::Failed | RunStatus::TimedOut), "{what}");
    }
}

#[test]
fn an_evaluation_failure_on_an_observer_is_an_error_entry() {
    let fixture = policy_fixture("package p\nimport rego.v1\nd := 42\n", "data.p.d", "post_tool");
    let result = dispatch(&fixture.pipeline(), &post_tool("shell"));
    assert_ne!(result.verdict, Verdict::Deny);
    assert!(result.runs[0].entries.iter().any(|e| e.kind == EntryKind::Error && e.text.contains("a number")));
}

#[test]
fn a_workspace_policy_needs_trust_and_its_files_are_pinned() {
    let fixture = Fixture::new();
    fixture.write("policy/p.rego", "package p\nimport rego.v1\nd := {\"decision\": \"allow\"}\n");
    fixture.project_hooks("- {id: policy, on: pre_tool, kind: policy, files: [policy/p.rego], query: data.p.d}\n");
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(status_of(&result, "policy"), RunStatus::Untrusted);
    fixture.trust_all();
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Allow, "{}", render(&result));
    // An edit of the Rego is an edit of what runs: trusted no more.
    fixture
        .write("policy/p.rego", "package p\nimport rego.v1\nd := {\"decision\": \"allow\", \"reason\": \"edited\"}\n");
    let config = fixture.load();
    assert_eq!(config.hooks[0].trust, hook_config::TrustStatus::Modified);
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(status_of(&result, "policy"), RunStatus::Untrusted);
}

#[test]
fn the_opa_endpoint_answers_as_the_policy_does_in_process() {
    let server = hook_server::HookServer::start(&[("hooks.rego".into(), EXAMPLE.into())]);
    let local = policy_fixture(EXAMPLE, "data.hooks.pre_tool.decision", "pre_tool");
    let remote = Fixture::new();
    remote.user_hooks(&format!(
        "- {{id: policy, on: pre_tool, kind: http, format: opa, url: \"{}\", timeout_ms: 2000}}\n",
        server.url("/v1/data/hooks/pre_tool/decision")
    ));
    let commands = ["git push -f", "ls", "echo AKIAIOSFODNN7EXAMPLE", "git push origin +main", "password=abcdefghij"];
    for command in commands {
        let input = pre_tool("shell", json!({"command": command}));
        let (a, b) = (dispatch(&local.pipeline(), &input), dispatch(&remote.pipeline(), &input));
        assert_eq!((a.verdict, &a.reason), (b.verdict, &b.reason), "{command}");
    }
}
