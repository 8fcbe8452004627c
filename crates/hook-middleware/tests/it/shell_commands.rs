//! `command:` matchers through a dispatch: a hook runs for what the shell call runs, a line that cannot be read is
//! answered by `on_unknown` without running the hook, and command and policy hooks get the reading as `commands`.

use crate::pipeline_support;

use hook_types::{RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

fn guards() -> Fixture {
    let fixture = Fixture::new();
    fixture.user_hooks(concat!(
        "- id: no-force-push\n  on: pre_tool\n  command: {program: git, args: [push, \"--force|-f\"]}\n",
        "  kind: effect\n  effect: {kind: block_tool, reason: no force pushes}\n",
        "- id: ask-publish\n  on: pre_tool\n  command: {program: npm, args: [publish]}\n  on_unknown: ask\n",
        "  kind: effect\n  effect: {kind: ask_user, reason: a person publishes}\n",
        "- id: rm-notes\n  on: pre_tool\n  command: [{program: rm}]\n  on_unknown: pass\n",
        "  kind: prompt\n  message: rm seen\n",
    ));
    fixture
}

#[test]
fn a_command_matcher_fires_on_what_runs_however_it_is_spelled() {
    let pipeline = guards().pipeline();
    for line in ["git push -f", "cd x && sudo git -c a=b push origin --force", "bash -c 'git push -f'"] {
        let result = dispatch(&pipeline, &pre_tool("Bash", json!({"command": line})));
        assert_eq!(result.verdict, Verdict::Deny, "{line}: {}", render(&result));
        assert_eq!(result.reason.as_deref(), Some("no force pushes"));
    }
    let plain = dispatch(&pipeline, &pre_tool("shell", json!({"command": "git push origin main"})));
    assert_eq!(plain.verdict, Verdict::Pass, "{}", render(&plain));
    assert!(plain.runs.is_empty(), "no hook matched, none ran: {}", render(&plain));
    // Not a shell call: the matcher does not match.
    let write = dispatch(&pipeline, &pre_tool("write", json!({"file_path": "x", "content": "git push -f"})));
    assert!(write.runs.is_empty(), "{}", render(&write));
}

#[test]
fn a_line_that_cannot_be_read_is_answered_by_on_unknown_without_running_the_hook() {
    let pipeline = guards().pipeline();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "eval \"$CMD\""})));
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    let reason = result.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("no-force-push") && reason.contains("eval") && reason.contains("on_unknown: deny"),
        "{reason}"
    );
    assert_eq!(status_of(&result, "no-force-push"), RunStatus::Blocked);
    // `on_unknown: pass`: the prompt hook did not fire.
    assert!(!result.runs.iter().any(|r| r.hook_id == "rm-notes"), "{}", render(&result));

    // Only the asking hook's on_unknown applies once the denying one passes on a readable, other line.
    let fixture = Fixture::new();
    fixture.user_hooks(concat!(
        "- id: ask-publish\n  on: pre_tool\n  command: {program: npm, args: [publish]}\n  on_unknown: ask\n",
        "  kind: effect\n  effect: {kind: ask_user, reason: a person publishes}\n",
    ));
    let asked = dispatch(&fixture.pipeline(), &pre_tool("shell", json!({"command": "source env.sh && make"})));
    assert_eq!(asked.verdict, Verdict::Ask, "{}", render(&asked));
}

#[test]
fn command_and_policy_hooks_get_the_commands_in_their_payload() {
    let fixture = Fixture::new();
    let out = fixture.out_file("payload.json");
    let script = fixture.script("save.sh", &format!("cat > '{}'\n", out.display()));
    let rego = concat!(
        "package p\nimport rego.v1\n",
        "force if {\n  some c in input.commands\n  c.program == \"git\"\n  c.args[0] == \"push\"\n",
        "  some a in c.args\n  a in {\"--force\", \"-f\"}\n}\n",
        "decision := {\"effects\": [{\"kind\": \"block_tool\", \"reason\": \"rego saw it\"}]} if force\n",
        "default decision := {}\n",
    );
    let policy = fixture.write("p.rego", rego);
    let line = json!({"command": "sudo git push -f; eval \"$X\""});
    fixture.user_hooks(&format!(
        "- {{id: policy, on: pre_tool, kind: policy, files: [\"{}\"], query: data.p.decision}}\n",
        policy.display()
    ));
    let result = dispatch(&fixture.pipeline(), &pre_tool("shell", line.clone()));
    assert_eq!(result.verdict, Verdict::Deny, "{}", render(&result));
    assert_eq!(result.reason.as_deref(), Some("rego saw it"));
    // The policy denied first, which cancels command hooks: the command hook is read on its own.
    fixture.user_hooks(&format!("- {{id: save, on: pre_tool, kind: command, argv: [\"{}\"]}}\n", script.display()));
    let saved = dispatch(&fixture.pipeline(), &pre_tool("shell", line));
    assert_eq!(status_of(&saved, "save"), RunStatus::Completed, "{}", render(&saved));
    let payload: serde_json::Value = serde_json::from_str(&fixture.read_out("payload.json").unwrap()).unwrap();
    assert_eq!(payload["commands"][0]["program"], "git");
    assert_eq!(payload["commands"][0]["args"], json!(["push", "-f"]));
    assert_eq!(payload["commands"][0]["via"], json!(["sudo"]));
    assert_eq!(payload["unknown_commands"][0]["reason"], "eval");
}
