//! `hook run` and `hook preview` end to end: the built binary against fixture workspaces, real hook processes.

use crate::common;

use common::{Env, Out};
use serde_json::Value;

const RM_RF: &str = r#"{"command":"rm -rf /"}"#;

/// Runs `hook run pre_tool --tool shell --input {"command": <command>} --json --trust-workspace` in the `gates`
/// fixture and checks the verdict and the exit code; returns the JSON.
fn check_gate(command: &str, verdict: &str, code: i32) -> Value {
    let env = Env::new("gates");
    let input = serde_json::json!({ "command": command }).to_string();
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", &input, "--json", "--trust-workspace"]);
    assert_eq!(out.code, code, "{out:#?}");
    let json = out.json();
    assert_eq!(json["version"], 1);
    assert_eq!(json["verdict"], verdict, "{out:#?}");
    assert_eq!(json["event"], "pre_tool");
    assert_eq!(json["tool"], "shell");
    assert!(out.stderr.contains("--trust-workspace: trusting"), "{out:#?}");
    json
}

#[test]
fn run_json_deny_exits_2_with_the_hooks_reason() {
    let json = check_gate("rm -rf /", "deny", 2);
    assert_eq!(json["reason"], "rm -rf is refused by gates.decide");
    let runs = json["runs"].as_array().unwrap();
    let decide = runs.iter().find(|r| r["hook_id"] == "gates.decide").unwrap();
    assert_eq!((decide["status"].as_str(), decide["exit_code"].as_i64()), (Some("blocked"), Some(2)));
    insta::assert_yaml_snapshot!("run_json_deny", json, { ".receipts" => "[receipts]" });
}

#[test]
fn run_json_ask_exits_3() {
    let json = check_gate("git push origin main", "ask", 3);
    assert_eq!(json["reason"], "a push leaves this machine");
    insta::assert_yaml_snapshot!("run_json_ask", json, { ".receipts" => "[receipts]" });
}

#[test]
fn run_json_allow_exits_0() {
    let json = check_gate("ls -la", "allow", 0);
    let kinds: Vec<&str> = json["effects"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["allow_tool", "protect_path"], "precedence order: the file's order");
    insta::assert_yaml_snapshot!("run_json_allow", json, { ".receipts" => "[receipts]" });
}

#[test]
fn run_json_pass_exits_0() {
    let json = check_gate("echo hello", "pass", 0);
    assert_eq!(json["reason"], Value::Null);
    let statuses: Vec<&str> = json["runs"].as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["completed", "completed"]);
    insta::assert_yaml_snapshot!("run_json_pass", json, { ".receipts" => "[receipts]" });
}

#[test]
fn run_text_trace_shows_each_hook_then_the_verdict() {
    let env = Env::new("gates");
    let out = env.hook(&[
        "run",
        "pre_tool",
        "--tool",
        "shell",
        "--input",
        r#"{"command":"rm -rf /"}"#,
        "--no-receipts",
        "--trust-workspace",
    ]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stdout.contains("  blocked    gates.decide\n"), "{}", out.stdout);
    assert!(out.stdout.contains("verdict  deny\n"), "{}", out.stdout);
    assert!(out.stdout.contains("reason   rm -rf is refused by gates.decide\n"), "{}", out.stdout);
    assert!(out.stdout.lines().all(|l| l.chars().count() <= 80), "{}", out.stdout);
    insta::assert_snapshot!("run_text_deny", out.stdout);
}

#[test]
fn run_without_trust_skips_project_commands_as_untrusted() {
    let env = Env::new("gates");
    let out = env.hook(&[
        "run",
        "pre_tool",
        "--tool",
        "shell",
        "--input",
        r#"{"command":"rm -rf /"}"#,
        "--json",
        "--no-receipts",
    ]);
    assert_eq!(out.code, 0, "{out:#?}");
    let json = out.json();
    assert_eq!(json["verdict"], "pass");
    let decide = json["runs"].as_array().unwrap().iter().find(|r| r["hook_id"] == "gates.decide").unwrap().clone();
    assert_eq!(decide["status"], "untrusted");
    assert!(!env.trust_store().exists(), "a run never writes the trust store");
}

#[test]
fn run_writes_receipts_to_the_state_dir_unless_no_receipts() {
    let env = Env::new("gates");
    let receipts = env.home.join("state/hooks/receipts");
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", "{}", "--no-receipts", "--trust-workspace"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(!receipts.exists(), "--no-receipts wrote {receipts:?}");
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", "{}", "--json", "--trust-workspace"]);
    let log = std::path::PathBuf::from(
        out.json()["receipts"].as_str().unwrap().replace("[HOME]", env.home.to_str().unwrap()),
    );
    assert!(log.starts_with(&receipts), "{log:?}");
    let lines = std::fs::read_to_string(&log).unwrap();
    assert_eq!(lines.lines().count(), 2, "one receipt per hook run: {lines}");
    assert!(lines.contains(r#""hook_id":"gates.decide""#), "{lines}");
}

#[test]
fn run_reads_input_from_a_file_and_takes_a_full_payload() {
    let env = Env::new("gates");
    env.write("payload.json", r#"{"tool_name":"shell","tool_input":{"command":"git push"},"session_id":"s-1"}"#);
    let out =
        env.hook(&["run", "PreToolUse", "--input", "@payload.json", "--json", "--no-receipts", "--trust-workspace"]);
    assert_eq!(out.code, 3, "{out:#?}");
    assert_eq!(out.json()["tool"], "shell");
}

#[test]
fn run_on_a_non_tool_event_takes_the_event_fields() {
    let env = Env::new("gates");
    let out = env.hook(&[
        "run",
        "turn_start",
        "--input",
        r#"{"prompt":"hi","promt":"typo"}"#,
        "--json",
        "--no-receipts",
        "--trust-workspace",
    ]);
    assert_eq!(out.code, 0, "{out:#?}");
    let json = out.json();
    assert_eq!(json["verdict"], "pass");
    assert_eq!(json["effects"][0]["kind"], "inject_reminder");
    assert!(out.stderr.contains("--input field `promt` is not an event field (did you mean `prompt`?)"), "{out:#?}");
}

#[test]
fn hook_output_reaches_the_terminal_trace_without_control_characters() {
    let env = Env::new("noisy");
    let out: Out =
        env.hook(&["--color", "never", "run", "pre_tool", "--tool", "shell", "--no-receipts", "--trust-workspace"]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stdout.contains("denied"), "{}", out.stdout);
    assert!(out.stdout.contains("title"), "the colors hook ran and its text is shown: {}", out.stdout);
    let bad: Vec<char> = out.stdout.chars().filter(|c| c.is_control() && *c != '\n').collect();
    assert!(bad.is_empty(), "control characters reached the trace: {bad:?}\n{}", out.stdout);
    // The same holds for the JSON form.
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--json", "--no-receipts", "--trust-workspace"]);
    assert!(!out.stdout.contains("\\u001b") && !out.stdout.contains("\\u0007"), "{}", out.stdout);
}

#[test]
fn color_always_styles_the_verdict_and_never_or_no_color_does_not() {
    let env = Env::new("gates");
    let args = [
        "run",
        "pre_tool",
        "--tool",
        "shell",
        "--input",
        r#"{"command":"rm -rf x"}"#,
        "--no-receipts",
        "--trust-workspace",
    ];
    let colored = env.hook(&[&["--color", "always"][..], &args].concat());
    assert!(colored.stdout.contains("\x1b[1;31mdeny\x1b[0m"), "{}", colored.stdout);
    let plain = env.hook(&[&["--color", "never"][..], &args].concat());
    assert!(!plain.stdout.contains('\x1b'));
    let auto = env.command(&args).env("NO_COLOR", "1").output().unwrap();
    assert!(!String::from_utf8_lossy(&auto.stdout).contains('\x1b'));
}

#[test]
fn preview_lists_what_would_run_in_order_without_running() {
    let env = Env::new("gates");
    let out = env.hook(&["preview", "pre_tool", "--tool", "shell", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let json = out.json();
    assert_eq!(json["version"], 1);
    let ids: Vec<&str> = json["hooks"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["hook.self-protection", "gates.protect-env", "gates.decide"],
        "the built-in gate, then in-process hooks, then commands"
    );
    assert_eq!(json["hooks"][2]["will_run"], false, "untrusted");
    insta::assert_yaml_snapshot!("preview_json", json);
    let text = env.hook(&["preview", "pre_tool", "--tool", "shell"]);
    assert!(!env.home.join("state").exists(), "preview runs nothing and writes no receipt");
    insta::assert_snapshot!("preview_text", text.stdout);
}

#[test]
fn trust_workspace_lets_a_project_hook_displace_the_user_hook_of_the_same_id() {
    let env = Env::new("gates");
    std::fs::create_dir_all(env.config_home()).unwrap();
    std::fs::write(
        env.config_home().join("hooks.yaml"),
        "- {id: gates.decide, on: pre_tool, kind: effect, effect: {kind: ask_user, reason: the user's hook}}\n",
    )
    .unwrap();
    let args = ["run", "pre_tool", "--tool", "shell", "--input", RM_RF, "--json", "--no-receipts"];
    let out = env.hook(&args);
    assert_eq!((out.code, out.json()["reason"].as_str()), (3, Some("the user's hook")), "{out:#?}");
    let out = env.hook(&[&args[..], &["--trust-workspace"]].concat());
    let json = out.json();
    assert_eq!((out.code, json["reason"].as_str()), (2, Some("rm -rf is refused by gates.decide")), "{out:#?}");
    let origins: Vec<(&str, &str)> = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["hook_id"].as_str().unwrap(), r["origin"].as_str().unwrap()))
        .collect();
    assert_eq!(origins, [("gates.decide", "project"), ("gates.protect-env", "project")]);
}

/// Runs `hook args…`, killing it if it has not ended after a generous bound (the old code never ended).
fn run_bounded(env: &Env, args: &[&str]) -> (Option<i32>, String) {
    let mut child =
        env.command(args).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            return (None, "killed after 60 s".to_owned());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn input_from_dev_zero_grew_until_the_oom_killer() {
    let env = Env::new("gates");
    let (code, stderr) = run_bounded(&env, &["run", "pre_tool", "--tool", "shell", "--input", "@/dev/zero"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is a device or a socket, which may never end"), "{stderr}");
}

#[test]
fn input_from_a_fifo_nobody_writes_to_blocked_forever() {
    let env = Env::new("gates");
    let fifo = env.home.join("fifo");
    rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o644), 0)
        .unwrap();
    let arg = format!("@{}", fifo.display());
    let (code, stderr) = run_bounded(&env, &["run", "pre_tool", "--tool", "shell", "--input", &arg]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is not valid JSON: EOF"), "{stderr}");
}

#[test]
fn input_larger_than_64_mib_was_read_whole() {
    let env = Env::new("gates");
    let big = env.home.join("big.json");
    std::fs::write(&big, vec![b' '; 64 * 1024 * 1024 + 1]).unwrap();
    let arg = format!("@{}", big.display());
    let (code, stderr) = run_bounded(&env, &["run", "pre_tool", "--tool", "shell", "--input", &arg]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is larger than 64 MiB"), "{stderr}");
}
