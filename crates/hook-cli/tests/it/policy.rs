//! `kind: policy` and `kind: http` end to end through the real `hook` binary: the example fleet policy's cases pass
//! in-process and against the OPA-compatible endpoint of the test server with identical verdicts, a gate whose
//! policy server is down denies with the reason, and `inspect` / `validate` show both kinds and Claude Code's own
//! http hooks. A policy that runs away — past its memory, past its timeout inside one builtin — makes the real
//! `hook` deny with a receipt that names the bound, within its timeout and under 1 GiB, never abort.

use crate::common;
use hook_testkit::hook_server;
use hook_testkit::runaway_policies;

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

/// A `hook` process run to its end and measured.
struct Measured {
    out: common::Out,
    /// Its peak resident memory (the kernel's `ru_maxrss`), in bytes.
    peak_rss: u64,
    took: std::time::Duration,
}

/// Runs `command` to its end, reaping it with `wait4` to read its own peak resident memory.
#[allow(clippy::zombie_processes)] // Reaped by `wait4`, which `Child::wait` cannot stand in for.
fn measured(env: &Env, mut command: std::process::Command) -> Measured {
    use std::io::Read;
    let started = std::time::Instant::now();
    command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).unwrap();
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let (status, peak_rss) = wait4(child.id());
    let took = started.elapsed();
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 128 + libc::WTERMSIG(status) };
    let out =
        common::Out { code, stdout: env.redact(&stdout.join().unwrap()), stderr: env.redact(&stderr.join().unwrap()) };
    Measured { out, peak_rss, took }
}

/// Waits for child `pid` and reaps it: its wait status and its peak resident memory in bytes.
#[allow(unsafe_code)]
fn wait4(pid: u32) -> (i32, u64) {
    let mut status = 0;
    // SAFETY: `rusage` is plain data that the kernel fills; zeroes are a valid value of it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals of the right types; `pid` is a child of this process not yet waited
    // for (the `Child` handle is never waited on).
    let reaped = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid as libc::pid_t, "wait4: {}", std::io::Error::last_os_error());
    (status, u64::try_from(usage.ru_maxrss).unwrap() * 1024)
}

const GIB: u64 = 1 << 30;

/// A user hook `runaway` on pre_tool running `rego` with `timeout_ms`.
fn runaway_hook(rego: &str, timeout_ms: u64) -> Env {
    let env = Env::new("empty");
    std::fs::create_dir_all(env.config_home()).unwrap();
    std::fs::write(env.config_home().join("p.rego"), rego).unwrap();
    std::fs::write(
        env.config_home().join("hooks.yaml"),
        format!("- {{id: runaway, on: pre_tool, kind: policy, files: [p.rego], query: data.p.d, timeout_ms: {timeout_ms}}}\n"),
    )
    .unwrap();
    env
}

/// `hook run pre_tool` on a shell call, measured; it must deny (exit 2, never an abort) with a reason holding
/// `says`, write the hook's receipt with `bound`, and stay under 1 GiB.
fn runs_and_denies(env: &Env, says: &str, bound: &str) -> Measured {
    let run = measured(
        env,
        env.command(&["--json", "run", "pre_tool", "--tool", "shell", "--input", r#"{"command": "ls"}"#]),
    );
    assert_eq!(run.out.code, 2, "a deny exits 2 (134 is an abort): {:#?}", run.out);
    let json = run.out.json();
    assert_eq!(json["verdict"], "deny", "{json:#}");
    assert!(json["reason"].as_str().is_some_and(|r| r.contains(says)), "{json:#}");
    let log = json["receipts"].as_str().unwrap().replace("[HOME]", env.home.to_str().unwrap());
    let receipts = std::fs::read_to_string(log).unwrap();
    let receipt: serde_json::Value = serde_json::from_str(receipts.lines().last().unwrap()).unwrap();
    assert_eq!((receipt["hook_id"].as_str(), receipt["bound"].as_str()), (Some("runaway"), Some(bound)), "{receipt:#}");
    assert!(run.peak_rss < GIB, "peak RSS {} MiB", run.peak_rss >> 20);
    run
}

#[test]
fn a_policy_that_asks_for_ten_billion_numbers_denies_with_a_receipt_instead_of_aborting() {
    let env = runaway_hook(runaway_policies::HUGE_RANGE, 5_000);
    let run = runs_and_denies(&env, "ran past its memory limit of 256 MiB", "memory");
    assert!(run.took < std::time::Duration::from_secs(5), "stopped at the allocation: {:?}", run.took);
    // And at the agent's edge: the bridge answers Claude Code with a deny.
    let input = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/", "tool_name": "Bash",
                                   "tool_input": {"command": "ls"}});
    let bridged = env.bridge("claude", &input);
    assert!(bridged.denies("claude") && bridged.code != 134, "{bridged:#?}");
    assert!(bridged.stderr.contains("memory limit") || bridged.stdout.contains("memory limit"), "{bridged:#?}");
}

#[test]
fn a_two_hundred_million_element_set_denies_within_its_100_ms_under_1_gib() {
    let env = runaway_hook(runaway_policies::HUGE_SET, 100);
    let run = runs_and_denies(&env, "hook `runaway`", "memory");
    assert!(run.took < std::time::Duration::from_secs(5), "took {:?}", run.took);
}

#[test]
fn a_builtin_that_loops_for_minutes_denies_at_its_timeout_with_a_receipt() {
    let env = runaway_hook(&runaway_policies::quadratic_search(20), 500);
    let run = runs_and_denies(&env, "timed out after [ms]; the evaluation was given up", "time");
    assert!(run.took < std::time::Duration::from_secs(10), "took {:?}", run.took);
}

#[test]
fn a_string_that_doubles_to_a_tebibyte_denies_at_its_memory_limit_under_1_gib() {
    let env = runaway_hook(&runaway_policies::doubling_string(), 30_000);
    runs_and_denies(&env, "ran past its memory limit of 256 MiB", "memory");
}
