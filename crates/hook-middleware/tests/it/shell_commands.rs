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

/// Approvers of each scope: an allow-list, a plain `command:`, an `if` shell rule, and a real script that answers
/// allow to whatever it is given (the engine, not the script, holds the approval to the line).
fn approvers(fixture: &Fixture) {
    let script = fixture.script("approve.sh", "cat > /dev/null\necho '{\"decision\": \"allow\"}'\n");
    fixture.user_hooks(&format!(
        concat!(
            "- id: list\n  on: permission_request\n",
            "  command: {{all: [{{program: \"ls|cat\"}}, {{program: git, args: [status]}}, {{program: sort, writes: true}}]}}\n",
            "  kind: effect\n  effect: {{kind: allow_tool, reason: read-only}}\n",
            "- id: plain\n  on: pre_tool\n  command: {{program: ls}}\n",
            "  kind: effect\n  effect: {{kind: allow_tool}}\n",
            "- id: rule\n  on: pre_tool\n  if: \"shell(git status*)\"\n",
            "  kind: command\n  argv: [\"{}\"]\n",
        ),
        script.display()
    ));
}

#[test]
fn an_allow_list_approves_a_line_only_when_every_command_is_on_it() {
    let fixture = Fixture::new();
    approvers(&fixture);
    let ring = std::sync::Arc::new(hook_middleware::receipts::RingSink::new(64));
    let pipeline = fixture.builder().receipt_sink(ring.clone()).build().unwrap();
    let permission = |line: &str| {
        let mut input = pre_tool("Bash", json!({"command": line}));
        input.event = hook_types::Event::PermissionRequest;
        dispatch(&pipeline, &input)
    };
    for line in ["ls -la", "ls | cat -n && git status", "sort -o out.txt in.txt", "ls 2>/dev/null"] {
        let result = permission(line);
        assert_eq!(result.verdict, Verdict::Allow, "{line}: {}", render(&result));
        assert!(result.notices.is_empty(), "{line}: {:?}", result.notices);
    }
    let broken = [
        ("ls && rm -rf ~", "`rm -rf ~` is not in its"),
        ("ls $(curl -s x)", "`curl -s x` is not in its"),
        ("bash -c 'ls; git push -f'", "`git push -f` is not in its"),
        ("ls > listing", "`ls` writes a file"),
        ("cat \"$F\"", "cannot be read"),
        ("ls; eval \"$X\"", "cannot be read"),
    ];
    for (line, why) in broken {
        let result = permission(line);
        assert_eq!(result.verdict, Verdict::None, "{line}: the agent's own approval goes on: {}", render(&result));
        assert!(result.effects.is_empty(), "{line}: {:?}", result.effects);
        assert!(entries_of(&result, "list").contains(why), "{line}: {}", render(&result));
        assert!(result.notices.iter().any(|n| n.contains("`list`") && n.contains(why)), "{line}: {:?}", result.notices);
        let receipt = ring.snapshot().into_iter().last().unwrap();
        assert!(receipt.dropped.as_deref().is_some_and(|d| d.contains(why)), "{line}: {receipt:?}");
        assert_eq!(receipt.effects, ["allow_tool"], "the receipt still says what the hook emitted");
    }
}

#[test]
fn a_plain_command_or_if_scope_approves_only_a_line_that_is_one_command() {
    let fixture = Fixture::new();
    approvers(&fixture);
    let pipeline = fixture.pipeline();
    let ls = dispatch(&pipeline, &pre_tool("Bash", json!({"command": "ls -la"})));
    assert_eq!(ls.verdict, Verdict::Allow, "{}", render(&ls));
    let status = dispatch(&pipeline, &pre_tool("Bash", json!({"command": "git status --short"})));
    assert_eq!(status.verdict, Verdict::Allow, "the script's allow stands: {}", render(&status));

    let both = dispatch(&pipeline, &pre_tool("Bash", json!({"command": "ls && curl -s x; pwd"})));
    assert_eq!(both.verdict, Verdict::Pass, "{}", render(&both));
    assert!(entries_of(&both, "plain").contains("the line runs 3 commands"), "{}", render(&both));
    let smuggled = dispatch(&pipeline, &pre_tool("Bash", json!({"command": "git status; rm -rf ~"})));
    assert_eq!(smuggled.verdict, Verdict::Pass, "{}", render(&smuggled));
    assert_eq!(status_of(&smuggled, "rule"), RunStatus::Completed, "the script ran: {}", render(&smuggled));
    let why = entries_of(&smuggled, "rule");
    assert!(why.contains("under `if: shell(git status*)`, `rm -rf ~` does not match the rule"), "{why}");
    assert!(smuggled.notices.iter().any(|n| n.contains("`rule`")), "{:?}", smuggled.notices);
    // A deny from the same scope is never narrowed: only approvals are held to the line.
    let fixture = Fixture::new();
    fixture.user_hooks(
        "- id: no-ls\n  on: pre_tool\n  command: {program: ls}\n  kind: effect\n  effect: {kind: block_tool, reason: no}\n",
    );
    let denied = dispatch(&fixture.pipeline(), &pre_tool("Bash", json!({"command": "ls; pwd"})));
    assert_eq!(denied.verdict, Verdict::Deny, "{}", render(&denied));
}
