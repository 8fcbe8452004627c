//! `http` hooks against the real test server (`tests/support/hook_server.rs`, 127.0.0.1 only): every way a request
//! can fail denies on a gate and is logged on an observer, nothing waits past the hook's deadline, receipts record
//! the status and the duration and never a header value; and each format's answers are read.

use crate::pipeline_support;
use hook_testkit::hook_server;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hook_middleware::receipts::RingSink;
use hook_server::{HookServer, refused_url};
use hook_types::{EntryKind, Outcome, RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

/// A bound no healthy run comes near, and a hung one passes: the hooks below time out after 300 ms.
const NEVER_HANGS: Duration = Duration::from_secs(15);

fn gate_hook(url: &str, extra: &str) -> String {
    format!("- {{id: remote, on: pre_tool, kind: http, url: \"{url}\", timeout_ms: 300{extra}}}\n")
}

fn observer_hook(url: &str) -> String {
    format!("- {{id: remote, on: post_tool, kind: http, url: \"{url}\", timeout_ms: 300}}\n")
}

/// Each failure, with what its reason must say.
fn failures(server: &HookServer) -> Vec<(&'static str, String, &'static str)> {
    vec![
        ("refused connection", refused_url("/native/deny"), "connection was refused"),
        ("timeout", server.url("/slow/3000"), "timed out after 300 ms"),
        ("500", server.url("/status/500"), "got HTTP 500"),
        ("oversized body", server.url("/oversized"), "past the limit of 1048576 bytes"),
        ("invalid JSON", server.url("/invalid"), "invalid"),
        ("redirect", server.url("/redirect"), "redirects are refused"),
    ]
}

#[test]
fn every_http_failure_denies_a_gate_with_its_reason_within_the_deadline() {
    let server = HookServer::start(&[]);
    for (what, url, says) in failures(&server) {
        let fixture = Fixture::new();
        fixture.user_hooks(&gate_hook(&url, ""));
        let ring = Arc::new(RingSink::new(8));
        let pipeline = fixture.builder().receipt_sink(ring.clone()).build().unwrap();
        let started = Instant::now();
        let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
        assert!(started.elapsed() < NEVER_HANGS, "{what}: took {:?}", started.elapsed());
        assert_eq!(result.verdict, Verdict::Deny, "{what}: {}", render(&result));
        let reason = result.reason.clone().unwrap_or_default();
        assert!(reason.contains("hook `remote`") && reason.contains(says), "{what}: {reason}");
        let expected = if what == "timeout" { RunStatus::TimedOut } else { RunStatus::Failed };
        assert_eq!(status_of(&result, "remote"), expected, "{what}");
        let receipts = ring.snapshot();
        assert_eq!(receipts.len(), 1, "{what}");
        let outcome = if what == "timeout" { Outcome::CommandTimeout } else { Outcome::CommandFailed };
        assert_eq!(receipts[0].outcome, outcome, "{what}");
        let bound = (what == "timeout").then_some(hook_types::Bound::Time);
        assert_eq!(receipts[0].bound, bound, "{what}");
        assert_eq!(receipts[0].kind, hook_types::HookKind::Http);
        let status = match what {
            "500" => Some(500),
            "redirect" => Some(302),
            "oversized body" | "invalid JSON" => Some(200),
            _ => None,
        };
        assert_eq!(receipts[0].http_status, status, "{what}");
    }
}

#[test]
fn every_http_failure_on_an_observer_is_an_error_entry_and_no_deny() {
    let server = HookServer::start(&[]);
    for (what, url, says) in failures(&server) {
        let fixture = Fixture::new();
        fixture.user_hooks(&observer_hook(&url));
        let started = Instant::now();
        let result = dispatch(&fixture.pipeline(), &post_tool("shell"));
        assert!(started.elapsed() < NEVER_HANGS, "{what}: took {:?}", started.elapsed());
        assert_ne!(result.verdict, Verdict::Deny, "{what}");
        let run = &result.runs[0];
        let error = run.entries.iter().find(|e| e.kind == EntryKind::Error);
        assert!(error.is_some_and(|e| e.text.contains(says)), "{what}: {}", entries_of(&result, "remote"));
    }
}

#[test]
fn a_dispatch_deadline_cancels_a_slow_request_at_once() {
    let server = HookServer::start(&[]);
    let fixture = Fixture::new();
    fixture.user_hooks(&format!(
        "- {{id: remote, on: pre_tool, kind: http, url: \"{}\", timeout_ms: 8000}}\n",
        server.url("/slow/8000")
    ));
    let limits = hook_types::Limits { dispatch_deadline_ms: 300, ..Default::default() };
    let pipeline = fixture.builder().limits(limits).build().unwrap();
    let started = Instant::now();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    assert!(started.elapsed() < Duration::from_secs(6), "took {:?}", started.elapsed());
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    assert_eq!(status_of(&result, "remote"), RunStatus::Cancelled);
}

#[test]
fn answers_in_every_format_are_read() {
    let server = HookServer::start(&[]);
    let cases = [
        ("/native/deny", "", Verdict::Deny),
        ("/native/allow", "", Verdict::Allow),
        ("/native/pass", "", Verdict::Pass),
        ("/claude/deny", ", format: claude", Verdict::Deny),
        ("/opa/deny", ", format: opa", Verdict::Deny),
    ];
    for (path, extra, verdict) in cases {
        let fixture = Fixture::new();
        fixture.user_hooks(&gate_hook(&server.url(path), extra));
        let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
        assert_eq!(result.verdict, verdict, "{path}: {}", render(&result));
        if verdict == Verdict::Deny {
            assert_eq!(result.reason.as_deref(), Some("denied by the test server"), "{path}");
        }
    }
    let bodies: Vec<serde_json::Value> =
        server.seen().iter().map(|s| serde_json::from_slice(&s.body).unwrap()).collect();
    assert_eq!(bodies[0]["tool"], "shell", "the native payload: {}", bodies[0]);
    assert_eq!(bodies[3]["tool_name"], "Bash", "Claude Code's payload: {}", bodies[3]);
    assert_eq!(bodies[4]["input"]["tool"], "shell", "OPA's `{{\"input\": …}}`: {}", bodies[4]);
}

#[test]
fn header_values_read_the_environment_and_are_never_recorded() {
    let server = HookServer::start(&[]);
    let home = std::env::var("HOME").expect("HOME is set");
    let fixture = Fixture::new();
    fixture.user_hooks(&gate_hook(&server.url("/status/503"), ", headers: {X-Home: \"at ${HOME}\"}"));
    let ring = Arc::new(RingSink::new(8));
    let pipeline = fixture.builder().receipt_sink(ring.clone()).build().unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Deny);
    let seen = server.seen();
    assert_eq!(seen[0].headers.iter().find(|(n, _)| n == "x-home").map(|(_, v)| v.clone()), Some(format!("at {home}")));
    let receipt = serde_json::to_string(&ring.snapshot()).unwrap();
    let summary = serde_json::to_string(&result.runs).unwrap();
    assert!(receipt.contains("\"http_status\":503"), "{receipt}");
    for text in [receipt, summary, format!("{result:?}")] {
        assert!(!text.contains(&format!("at {home}")), "a header value leaked: {text}");
    }
}

#[test]
fn a_header_reading_an_unset_variable_fails_closed_without_sending() {
    let server = HookServer::start(&[]);
    let fixture = Fixture::new();
    fixture.user_hooks(&gate_hook(
        &server.url("/native/allow"),
        ", headers: {Authorization: \"Bearer ${HOOK_TEST_VARIABLE_NOBODY_SETS}\"}",
    ));
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Deny);
    assert!(result.reason.unwrap().contains("reads `$HOOK_TEST_VARIABLE_NOBODY_SETS`, which is not set"));
    assert!(server.seen().is_empty(), "nothing was sent");
}

#[test]
fn a_workspace_http_hook_needs_trust_and_its_url_is_pinned() {
    let server = HookServer::start(&[]);
    let fixture = Fixture::new();
    fixture.project_hooks(&gate_hook(&server.url("/native/allow"), ""));
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(status_of(&result, "remote"), RunStatus::Untrusted);
    assert!(server.seen().is_empty(), "an untrusted hook sends nothing");
    fixture.trust_all();
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Allow, "{}", render(&result));
    // Another URL is another hook: the trust does not carry over.
    fixture.project_hooks(&gate_hook(&server.url("/native/deny"), ""));
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(status_of(&result, "remote"), RunStatus::Untrusted);
}

#[test]
fn an_https_url_goes_through_tls_and_a_failed_handshake_denies() {
    // The test server speaks plain HTTP: the rustls handshake fails, and the gate denies with the reason.
    let server = HookServer::start(&[]);
    let url = server.url("/native/allow").replacen("http://", "https://", 1);
    let fixture = Fixture::new();
    fixture.user_hooks(&gate_hook(&url, ""));
    let started = Instant::now();
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "ls"})));
    assert!(started.elapsed() < NEVER_HANGS, "took {:?}", started.elapsed());
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    let reason = result.reason.unwrap_or_default();
    assert!(reason.contains(&url) && reason.contains("failed"), "{reason}");
}
