//! `kind: policy` and `kind: http` end to end through the real `hook` binary: the example fleet policy's cases pass
//! in-process and against the OPA-compatible endpoint of the test server with identical verdicts, a gate whose
//! policy server is down denies with the reason, and `inspect` / `validate` show both kinds and Claude Code's own
//! http hooks.

mod common;
#[path = "../../../tests/support/hook_server.rs"]
mod hook_server;

use common::Env;
use hook_server::{HookServer, refused_url};

/// `(name, verdict, reason)` of every case of a `hook test --json` run, which must pass.
fn verdicts(env: &Env) -> Vec<(String, String, String)> {
    let out = env.hook(&["--json", "test", "cases.yaml", "--trust-workspace"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let json = out.json();
    assert_eq!(json["failed"], 0, "{json:#}");
    json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            let text = |key: &str| case[key].as_str().unwrap_or_default().to_owned();
            (text("name"), text("verdict"), text("reason"))
        })
        .collect()
}

fn opa_hook(url: &str) -> String {
    format!(
        "version: 1\nhooks:\n  - id: fleet.pre-tool-policy\n    on: pre_tool\n    kind: http\n    format: opa\n    url: \"{url}\"\n    timeout_ms: 5000\n"
    )
}

#[test]
fn the_example_policy_cases_pass_in_process_and_against_the_opa_endpoint_alike() {
    let local = Env::new("examples/policy");
    let in_process = verdicts(&local);
    assert!(in_process.len() >= 15, "{in_process:?}");
    assert!(in_process.iter().any(|(_, v, _)| v == "deny") && in_process.iter().any(|(_, v, _)| v == "pass"));

    let server = HookServer::with_rego_dir(&local.ws.join("policy"));
    let remote = Env::new("examples/policy");
    remote.write(".hooks/hooks.yaml", &opa_hook(&server.url("/v1/data/hooks/pre_tool/decision")));
    let over_http = verdicts(&remote);
    assert_eq!(in_process, over_http, "the same verdicts and reasons in-process and over OPA's API");
    assert_eq!(server.seen().len(), in_process.len(), "one request per case");
}

#[test]
fn a_gate_whose_policy_server_is_down_denies_with_the_reason() {
    let env = Env::new("examples/policy");
    env.write(".hooks/hooks.yaml", &opa_hook(&refused_url("/v1/data/hooks/pre_tool/decision")));
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", r#"{"command": "ls"}"#, "--trust-workspace"]);
    assert_eq!(out.code, 2, "a deny exits 2: {out:#?}");
    assert!(out.stdout.contains("verdict  deny"), "{}", out.stdout);
    assert!(out.stdout.contains("connection was refused"), "{}", out.stdout);
}

#[test]
fn inspect_and_validate_show_policy_and_http_hooks() {
    let env = Env::new("examples/policy");
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "https://opa.example/v1/data/hooks", "headers": {"Authorization": "Bearer $OPA_TOKEN"}, "allowedEnvVars": ["OPA_TOKEN"], "timeout": 5}]}]}}"#,
    );
    let validate = env.hook(&["validate"]);
    assert_eq!(validate.code, 0, "{validate:#?}");
    assert!(validate.stdout.contains("2 hooks in 2 files: 0 errors, 0 warnings"), "{}", validate.stdout);
    let text = env.hook(&["inspect"]);
    assert!(text.stdout.contains("pre_tool · policy · native"), "{}", text.stdout);
    assert!(text.stdout.contains("policy data.hooks.pre_tool.decision over policy/hooks.rego"), "{}", text.stdout);
    assert!(text.stdout.contains("http POST https://opa.example/v1/data/hooks (claude)"), "{}", text.stdout);
    let json = env.inspect_json();
    let kinds: Vec<&str> = json["hooks"].as_array().unwrap().iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["policy", "http"]);
    let claude = &json["hooks"][1];
    assert_eq!((claude["protocol"].as_str(), claude["filters"]["matcher"].as_str()), (Some("claude"), Some("Bash")));
    assert!(!text.stdout.contains("Bearer"), "no header value is shown");
}

#[test]
fn validate_names_the_file_field_and_fix_of_a_broken_policy() {
    let env = Env::new("examples/policy");
    env.write("policy/broken.rego", "package broken\nimport rego.v1\ndeny contains \"x\" if {\n  input.tool ==\n}\n");
    env.write(
        ".hooks/hooks.yaml",
        "- {id: a, on: pre_tool, kind: policy, files: [policy/broken.rego], query: data.broken.deny}\n\
         - {id: b, on: pre_tool, kind: policy, files: [policy/hooks.rego], query: data.hooks.decision}\n\
         - {id: c, on: pre_tool, kind: http, url: \"https://user:pw@opa.example/\"}\n",
    );
    let out = env.hook(&["validate"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.contains("hooks[0].files: the Rego does not compile"), "{}", out.stdout);
    assert!(out.stdout.contains("policy/broken.rego:5:1"), "{}", out.stdout);
    assert!(out.stdout.contains("hooks[1].query: `data.hooks.decision` is in no package"), "{}", out.stdout);
    assert!(out.stdout.contains("hooks[2].url: the URL holds credentials"), "{}", out.stdout);
    assert!(out.stdout.contains("fails closed: pre_tool deny"), "{}", out.stdout);
}

#[test]
fn a_claude_http_hook_imports_as_a_native_http_hook_with_the_same_hash() {
    let env = Env::new("examples/policy");
    std::fs::remove_file(env.ws.join(".hooks/hooks.yaml")).unwrap();
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "https://opa.example/v1/data/hooks", "headers": {"Authorization": "Bearer $OPA_TOKEN"}, "allowedEnvVars": ["OPA_TOKEN"], "timeout": 5}]}]}}"#,
    );
    let before = env.inspect_json()["hooks"][0].clone();
    assert_eq!(before["kind"], "http");
    let out = env.hook(&["import", "--from", "claude", "--write"]);
    assert_eq!(out.code, 0, "{out:#?}");
    std::fs::remove_file(env.ws.join(".claude/settings.json")).unwrap();
    let after = env.inspect_json()["hooks"][0].clone();
    assert_eq!(after["format"], "native", "{after:#}");
    for key in ["id", "hash", "kind", "protocol", "on_error", "runs"] {
        assert_eq!(before[key], after[key], "{key}");
    }
    let native = std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap();
    assert!(native.contains("allowed_env_vars") && native.contains("Bearer $OPA_TOKEN"), "{native}");
}
