//! `hook schema`: the committed config schema is what the binary prints; every fixture that loads cleanly
//! validates against it and the structurally broken ones do not; the payload and output schemas accept what real
//! hooks read and print and reject broken ones.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Env, HOOK, repo_root};
use hook_config::{FileContext, Format, IssueSeverity, load_file};
use hook_types::Origin;
use serde_json::{Value, json};

fn schema(flag: &str) -> Value {
    let out = Command::new(HOOK).args(["schema", flag]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).unwrap_or_else(|e| panic!("the schema itself is invalid: {e}"))
}

/// Every native hook file among the fixtures and the example: `hooks*.yaml|json` outside other agents'
/// directories, and the files of `tests/fixtures/config` except clio-coder's.
fn native_fixtures() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), ".clio-coder" | ".claude" | "clio") {
                    walk(&path, out);
                }
            } else if (name.ends_with(".yaml") || name.ends_with(".json"))
                && !name.ends_with(".cases.yaml")
                && (name.starts_with("hooks") || path.components().any(|c| c.as_os_str() == "config"))
            {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repo_root().join("tests/fixtures"), &mut files);
    walk(&repo_root().join("examples"), &mut files);
    files.sort();
    files
}

/// The file as JSON, or `None` when it is not a document (empty, comments only, not UTF-8, a syntax error).
fn document(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).ok()?
    } else {
        serde_norway::from_str(&text).ok()?
    };
    (!value.is_null()).then_some(value)
}

/// Whether hook-config loads the file without an error-level issue.
fn loads_cleanly(path: &Path) -> bool {
    let dir = path.parent().unwrap().canonicalize().unwrap();
    let workspace = if dir.ends_with(".hooks") { dir.parent().unwrap().to_path_buf() } else { dir.clone() };
    let cx = FileContext { origin: Origin::Project, workspace: &workspace, root: &workspace, source_id: None };
    let load = load_file(path, Format::Native, &cx);
    !load.issues.iter().any(|i| i.severity == IssueSeverity::Error)
}

#[test]
fn the_committed_config_schema_is_what_hook_schema_prints() {
    let out = Command::new(HOOK).args(["schema", "--config"]).output().unwrap();
    let committed = std::fs::read_to_string(repo_root().join("schema/hooks.schema.json")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        committed,
        "schema/hooks.schema.json is stale: regenerate it with `cargo run -q -p hook-cli -- schema --config > schema/hooks.schema.json`"
    );
    let default = Command::new(HOOK).arg("schema").output().unwrap();
    assert_eq!(default.stdout, out.stdout, "--config is the default");
}

#[test]
fn every_fixture_that_loads_cleanly_validates_against_the_config_schema() {
    let validator = validator(&schema("--config"));
    let mut checked = Vec::new();
    for path in native_fixtures() {
        let Some(document) = document(&path) else { continue };
        if loads_cleanly(&path) {
            let errors: Vec<String> =
                validator.iter_errors(&document).map(|e| format!("{e} at {}", e.instance_path())).collect();
            assert!(errors.is_empty(), "{} loads cleanly but fails the schema: {errors:#?}", path.display());
            checked.push(path);
        }
    }
    let names: Vec<String> =
        checked.iter().map(|p| p.strip_prefix(repo_root()).unwrap().display().to_string()).collect();
    for expected in [
        "examples/demo/.hooks/hooks.yaml",
        "tests/fixtures/config/golden/command-aliases.yaml",
        "tests/fixtures/cli/gates/.hooks/hooks.yaml",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} was not checked: {names:#?}");
    }
}

#[test]
fn the_structurally_broken_fixtures_fail_the_config_schema() {
    let validator = validator(&schema("--config"));
    let bad = repo_root().join("tests/fixtures/config/bad");
    for name in
        ["unknown-field.yaml", "unknown-event.yaml", "wrong-type.yaml", "argv-and-shell.yaml", "empty-argv.yaml"]
    {
        let document = document(&bad.join(name)).unwrap();
        assert!(!validator.is_valid(&document), "{name} passes the schema");
    }
    let broken = document(&repo_root().join("tests/fixtures/cli/broken/.hooks/hooks.yaml")).unwrap();
    assert!(!validator.is_valid(&broken));
    // A few more shapes the reader refuses.
    for document in [
        json!([{"on": "pre_tool", "kind": "prompt", "message": "hi", "argv": ["x"]}]),
        json!([{"on": "pre_tool", "kind": "command"}]),
        json!([{"on": "pre_tool", "kind": "effect", "effect": {"kind": "ask_usr"}}]),
        json!({"version": 2, "hooks": []}),
        json!([{"on": "foreign:SubagentStart", "kind": "prompt", "message": "hi"}]),
        json!([{"on": "pre_tool", "kind": "command", "shell": "x", "timeout_ms": 1, "timeoutMs": 2}]),
    ] {
        assert!(!validator.is_valid(&document), "{document} passes the schema");
    }
}

#[test]
fn the_payload_schema_accepts_real_payloads_and_rejects_a_broken_one() {
    let env = Env::new("capture");
    let capture = env.home.join("capture");
    std::fs::create_dir_all(&capture).unwrap();
    let runs: [&[&str]; 4] = [
        &["run", "pre_tool", "--tool", "shell", "--input", r#"{"command":"ls"}"#, "--session-id", "s-1"],
        &[
            "run",
            "PostToolUseFailure",
            "--tool",
            "shell",
            "--input",
            r#"{"tool_input":{"command":"false"},"tool_response":{"exit":1},"content":"failed"}"#,
        ],
        &["run", "turn_start", "--input", r#"{"prompt":"fix the build"}"#],
        &["run", "session_start", "--input", r#"{"source":"resume"}"#],
    ];
    for args in runs {
        let mut command = env.command(&[args, &["--trust-workspace", "--no-receipts"]].concat());
        command.env("CAPTURE_DIR", &capture);
        let out = env.finish(command);
        assert_eq!(out.code, 0, "{out:#?}");
    }
    let validator = validator(&schema("--payload"));
    for event in ["pre_tool", "post_tool", "turn_start", "session_start"] {
        let text = std::fs::read_to_string(capture.join(format!("{event}.json"))).unwrap();
        let payload: Value = serde_json::from_str(&text).unwrap();
        let errors: Vec<String> = validator.iter_errors(&payload).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "the real {event} payload fails the schema: {errors:#?}\n{text}");
        if event == "post_tool" {
            assert_eq!(payload["is_error"], true, "{text}");
        }
        let mut broken = payload.clone();
        broken.as_object_mut().unwrap().remove("event");
        assert!(!validator.is_valid(&broken), "a payload without `event` passes");
        broken = payload;
        broken["is_error"] = json!("yes");
        assert!(!validator.is_valid(&broken), "a string `is_error` passes");
    }
}

#[test]
fn the_output_schema_accepts_what_real_hooks_print_and_rejects_broken_output() {
    let validator = validator(&schema("--output"));
    let root = repo_root();
    // What the shipped scripts print, run as hooks run them: the payload on stdin.
    let cases = [
        ("tests/fixtures/cli/gates/scripts/decide.sh", r#"{"tool_input":{"command":"git push"}}"#),
        ("tests/fixtures/cli/gates/scripts/decide.sh", r#"{"tool_input":{"command":"ls -la"}}"#),
    ];
    for (script, stdin) in cases {
        let mut child = Command::new("sh")
            .arg(root.join(script))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let printed: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{script} printed no JSON for {stdin} ({e})"));
        let errors: Vec<String> = validator.iter_errors(&printed).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{script}'s output fails the schema: {errors:#?}\n{printed}");
    }
    for broken in [
        json!({"effects": [{"kind": "ask_usr", "reason": "typo"}]}),
        json!({"effects": [{"kind": "block_tool", "reasn": "typo"}]}),
        json!({"decision": "maybe"}),
        json!({"continue": "no"}),
    ] {
        assert!(!validator.is_valid(&broken), "{broken} passes the output schema");
    }
}
