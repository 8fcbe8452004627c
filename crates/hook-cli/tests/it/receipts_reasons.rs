//! Receipts say why a hook blocked, and a hook whose files changed after it was trusted is logged as `modified`,
//! not `untrusted`.

use crate::common::Env;

fn workspace() -> Env {
    let env = Env::new("empty");
    env.write("guard.sh", "#!/bin/sh\necho 'destructive command: rm -rf' >&2\nexit 2\n");
    std::fs::set_permissions(env.ws.join("guard.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    env.write(".hooks/hooks.yaml", "- {id: no-rm, on: pre_tool, tools: [shell], kind: command, shell: ./guard.sh}\n");
    env
}

fn run_rm(env: &Env) {
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", r#"{"command":"rm -rf /"}"#]);
    assert!(matches!(out.code, 0 | 2), "{out:#?}");
}

#[test]
fn a_block_is_logged_and_shown_with_its_reason_and_rule() {
    let env = workspace();
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    run_rm(&env);
    let json = env.hook(&["receipts", "tail", "--json"]).json();
    let receipt = &json["receipts"][0];
    assert_eq!((receipt["outcome"].as_str(), receipt["hook_id"].as_str()), (Some("blocked"), Some("no-rm")));
    assert_eq!(receipt["reason"], "destructive command: rm -rf");
    let text = env.hook(&["receipts", "tail"]);
    assert!(text.stdout.lines().any(|l| l == "    why: destructive command: rm -rf (rule `no-rm`)"), "{}", text.stdout);
}

#[test]
fn untrusted_and_modified_are_told_apart() {
    let env = workspace();
    run_rm(&env);
    env.hook(&["trust", "--all", "--yes"]);
    env.write("guard.sh", "#!/bin/sh\nexit 0\n");
    run_rm(&env);
    let json = env.hook(&["receipts", "tail", "--json"]).json();
    let outcomes: Vec<&str> =
        json["receipts"].as_array().unwrap().iter().map(|r| r["outcome"].as_str().unwrap()).collect();
    assert_eq!(outcomes, ["untrusted", "modified"], "{json:#}");
    assert!(json["receipts"][1].get("reason").is_none(), "no reason where nothing was decided: {json:#}");
    let text = env.hook(&["receipts", "tail"]);
    assert!(text.stdout.contains(" modified        pre_tool shell no-rm\n"), "{}", text.stdout);
    assert_eq!(env.hook(&["receipts", "verify"]).code, 0);
}
