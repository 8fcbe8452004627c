//! GitHub Copilot CLI end to end through the real `hook` binary (docs/agents.md#github-copilot-cli): its camelCase
//! inputs, as Copilot 1.0.102 sent them to a hook that saved its stdin in an offline run (the shapes of its hooks
//! reference, <https://docs.github.com/en/copilot/reference/hooks-reference>, "Hook event input payloads"), fed to
//! `hook bridge --protocol copilot --event <name>`; a native `tools: [shell]` gate
//! denies its `bash` tool; `hook install` writes a file of its own into `.github/hooks/` and leaves the user's hook
//! files where Copilot runs them; a guard migrated with `hook import` still denies through the bridge command install
//! wrote; the continuation cap and the skipped-guard notice; `hook uninstall` leaves every file as it was, byte for
//! byte.

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::{Env, Out};
use serde_json::{Value, json};

/// preToolUse, camelCase input: `sessionId`, `timestamp` (ms), `cwd`, `toolName`, `toolArgs`.
fn pre_tool(env: &Env, session: &str, command: &str) -> Value {
    json!({"sessionId": session, "timestamp": 1_704_614_600_000_u64, "cwd": env.ws, "toolName": "bash",
           "toolArgs": {"command": command, "description": "run it"}})
}

/// agentStop: `transcriptPath`, `stopReason`, `stop_hook_active`.
fn agent_stop(env: &Env, session: &str, active: bool) -> Value {
    json!({"sessionId": session, "timestamp": 1_704_614_700_000_u64, "cwd": env.ws, "transcriptPath": "/tmp/t.jsonl",
           "stopReason": "end_turn", "stop_hook_active": active})
}

/// sessionStart: `source`, `initialPrompt`.
fn session_start(env: &Env, session: &str) -> Value {
    json!({"sessionId": session, "timestamp": 1_704_614_500_000_u64, "cwd": env.ws, "source": "new",
           "initialPrompt": "fix the tests"})
}

/// `hook bridge --protocol copilot --event <event>` with `input` on stdin, as Copilot runs the handler install writes.
fn bridge(env: &Env, event: &str, input: &Value) -> Out {
    let mut command = env.command(&["bridge", "--protocol", "copilot", "--event", event]);
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    Out {
        code: output.status.code().unwrap_or(-1),
        stdout: env.redact(&String::from_utf8_lossy(&output.stdout)),
        stderr: env.redact(&String::from_utf8_lossy(&output.stderr)),
    }
}

const SHELL_GATE: &str = "\
- id: no-rm
  on: pre_tool
  tools: [shell]
  kind: command
  shell: \"grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\"
";

fn trusted_workspace(hooks: &str) -> Env {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", hooks);
    let trusted = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(trusted.code, 0, "{trusted:#?}");
    env
}

#[test]
fn a_native_shell_gate_denies_copilots_bash_tool_through_the_bridge() {
    let env = trusted_workspace(SHELL_GATE);
    let out = bridge(&env, "preToolUse", &pre_tool(&env, "s1", "rm -rf /"));
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(out.json(), json!({"permissionDecision": "deny", "permissionDecisionReason": "no rm -rf here"}));
    let out = bridge(&env, "preToolUse", &pre_tool(&env, "s1", "ls"));
    assert!(!out.denies("copilot"), "a harmless command: {out:#?}");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "no decision: Copilot's default flow");
}

#[test]
fn an_input_without_its_event_fails_closed_with_the_fix() {
    let env = trusted_workspace(SHELL_GATE);
    let out = env.bridge("copilot", &pre_tool(&env, "s1", "ls"));
    assert_eq!(out.code, 2, "exit 2 denies on Copilot's preToolUse: {out:#?}");
    assert!(out.stderr.contains("--event"), "{out:#?}");
}

fn installed() -> (Env, String) {
    let env = Env::new("tests/fixtures/install/copilot");
    let out = env.hook(&["install", "--agent", "copilot", "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    assert!(
        report["moved"].as_array().unwrap().is_empty(),
        "the user's files stay where Copilot runs them: {report:#}"
    );
    let kept = report["kept"].as_array().unwrap();
    assert_eq!(kept.len(), 2, "guard.json's two hooks are listed as kept: {report:#}");
    let written = std::fs::read_to_string(env.ws.join(".github/hooks/hook-engine.json")).unwrap();
    let file: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(file["version"], 1, "{written}");
    let pre = &file["hooks"]["preToolUse"][0];
    assert_eq!(pre["type"], "command", "{written}");
    assert_eq!(pre["timeoutSec"].as_u64().map(|t| t > 30), Some(true), "above the dispatch deadline: {written}");
    // The gate's handler is the fail-closed wrapper around the bridge command; an observer's is the command itself.
    let guarded = pre["bash"].as_str().unwrap().to_owned();
    let stop = file["hooks"]["agentStop"][0]["bash"].as_str().unwrap().to_owned();
    assert!(stop.starts_with("hook bridge --protocol copilot") && stop.ends_with("--event agentStop"), "{stop}");
    let command = stop.replace("--event agentStop", "--event preToolUse");
    assert!(guarded.contains(&format!(" {command} <&3 3<&- &")), "{guarded}");
    (env, guarded)
}

#[test]
fn copilots_guard_migrated_by_import_still_denies_through_the_installed_bridge() {
    let (env, command) = installed();
    // Copilot runs its own files itself, so the bridge leaves guard.json's hook to it ...
    let rm = env.run_as_agent(&command, None, pre_tool(&env, "s1", "rm -rf /").to_string().as_bytes());
    assert!(!rm.denies("copilot"), "the bridge must not run Copilot's own hook a second time: {rm:#?}");
    // ... until it is migrated: imported into the native file (protocol: copilot, same hash) and taken out of
    // Copilot's directory.
    let imported = env.hook(&["import", "--from", "copilot", "--write"]);
    assert_eq!(imported.code, 0, "{imported:#?}");
    std::fs::remove_file(env.ws.join(".github/hooks/guard.json")).unwrap();
    let trusted = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(trusted.code, 0, "{trusted:#?}");
    let rm = env.run_as_agent(&command, None, pre_tool(&env, "s1", "rm -rf /").to_string().as_bytes());
    assert!(rm.denies("copilot"), "the migrated guard did not deny: {rm:#?}");
    assert!(rm.stdout.contains("rm -rf is not allowed in this project"), "{rm:#?}");
    let ls = env.run_as_agent(&command, None, pre_tool(&env, "s1", "ls -la").to_string().as_bytes());
    assert!(!ls.denies("copilot"), "{ls:#?}");
    let stop_command = std::fs::read_to_string(env.ws.join(".github/hooks/hook-engine.json")).unwrap();
    let stop_command: Value = serde_json::from_str(&stop_command).unwrap();
    let stop_command = stop_command["hooks"]["agentStop"][0]["bash"].as_str().unwrap().to_owned();
    let stop = env.run_as_agent(&stop_command, None, agent_stop(&env, "s1", false).to_string().as_bytes());
    assert_eq!(stop.json(), json!({"decision": "block", "reason": "run the tests before you stop"}), "{stop:#?}");
}

#[test]
fn uninstall_gives_every_file_back_byte_for_byte() {
    let fixture = common::repo_root().join("tests/fixtures/install/copilot");
    let (env, _) = installed();
    let again = env.hook(&["install", "--agent", "copilot", "--yes", "--json"]);
    assert_eq!(again.code, 0, "{again:#?}");
    let out = env.hook(&["uninstall", "--agent", "copilot"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(!env.ws.join(".github/hooks/hook-engine.json").exists(), "the file install wrote is gone");
    for file in [".github/hooks/guard.json", ".hooks/hooks.yaml", "scripts/guard.sh", "scripts/stop.sh"] {
        assert_eq!(std::fs::read(env.ws.join(file)).unwrap(), std::fs::read(fixture.join(file)).unwrap(), "{file}");
    }
    let entries: Vec<_> =
        std::fs::read_dir(env.ws.join(".github/hooks")).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(entries, ["guard.json"], "nothing else is left in .github/hooks");

    // Where install created the directories, uninstall removes them too.
    let env = trusted_workspace(SHELL_GATE);
    assert_eq!(env.hook(&["install", "--agent", "copilot", "--yes"]).code, 0);
    assert_eq!(env.hook(&["uninstall", "--agent", "copilot"]).code, 0);
    assert!(!env.ws.join(".github").exists(), "install created .github/hooks; uninstall took it away");
}

#[test]
fn an_always_continue_stop_hook_is_capped_for_copilot() {
    let env = trusted_workspace(
        "- id: keep-going\n  on: turn_end\n  kind: effect\n  effect: {kind: request_continuation, message: KEEP-GOING-1234}\n",
    );
    let mut continuations = 0;
    let mut refusals = Vec::new();
    for call in 0..6 {
        let out = bridge(&env, "agentStop", &agent_stop(&env, "cap", call > 0));
        if out.stdout.contains("KEEP-GOING-1234") {
            assert!(out.stdout.contains("\"decision\":\"block\""), "{out:#?}");
            continuations += 1;
        } else {
            refusals.push(out);
        }
    }
    assert_eq!(continuations, 3, "{refusals:#?}");
    // Copilot has no field for the user: the refusal is its warning, exit 2 with the text on stderr.
    assert!(refusals.iter().any(|o| o.code == 2 && o.stderr.contains("continuations in a row")), "{refusals:#?}");
}

#[test]
fn an_untrusted_guard_is_announced_to_copilots_user() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: team-guard\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  shell: \"exit 2\"\n",
    );
    let first = bridge(&env, "preToolUse", &pre_tool(&env, "notice", "ls"));
    assert_eq!((first.code, first.stdout.as_str()), (0, ""), "the skipped guard decides nothing: {first:#?}");
    assert!(first.stderr.contains("team-guard") && first.stderr.contains("hook trust"), "{first:#?}");
    // At session start the notice is Copilot's warning to the user: exit 2, the text on stderr.
    let start = bridge(&env, "sessionStart", &session_start(&env, "notice"));
    assert_eq!(start.code, 2, "{start:#?}");
    assert!(start.stderr.contains("team-guard"), "{start:#?}");
}

#[test]
fn a_prompt_deny_copilot_cannot_apply_is_said_not_passed_in_silence() {
    let env = trusted_workspace(
        "- id: no-secrets\n  on: turn_start\n  kind: effect\n  effect: {kind: block_turn, reason: no secrets in prompts}\n",
    );
    let input = json!({"sessionId": "s1", "timestamp": 1_704_614_600_000_u64, "cwd": env.ws, "prompt": "my key is x"});
    let out = bridge(&env, "userPromptSubmitted", &input);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr.contains("ignores a command hook's answer") && out.stderr.contains("no secrets in prompts"),
        "{out:#?}"
    );
}

#[test]
fn copilot_answers_context_and_permission_requests_in_its_own_fields() {
    let env = trusted_workspace(
        "- id: note\n  on: post_tool\n  kind: effect\n  effect: {kind: annotate_tool_result, message: ran in CI}\n\
         - id: no-curl\n  on: permission_request\n  tools: [shell]\n  kind: effect\n  effect: {kind: block_tool, reason: no network}\n",
    );
    let post = json!({"sessionId": "s1", "timestamp": 1, "cwd": env.ws, "toolName": "bash", "toolArgs": {"command": "ls"},
                      "toolResult": {"resultType": "success",
                                     "textResultForLlm": "a b\n<shellId: 0 completed with exit code 0>"}});
    let out = bridge(&env, "postToolUse", &post);
    assert_eq!(out.json(), json!({"additionalContext": "ran in CI"}), "{out:#?}");
    // permissionRequest alone names itself (`hookName`) and calls the arguments `toolInput`.
    let request = json!({"hookName": "permissionRequest", "sessionId": "s1", "timestamp": 1, "cwd": env.ws,
                         "toolName": "bash", "toolInput": {"command": "curl example.com"}, "permissionSuggestions": []});
    let out = bridge(&env, "permissionRequest", &request);
    assert_eq!(out.json(), json!({"behavior": "deny", "message": "no network"}), "{out:#?}");
}
