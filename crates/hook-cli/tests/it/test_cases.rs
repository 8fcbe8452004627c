//! `hook test` end to end: cases dispatched through the workspace's real hooks.

use crate::common;

use common::{Env, assert_one_line_error};

#[test]
fn test_prints_a_line_per_case_then_the_summary_and_exits_1_on_a_failure() {
    let env = Env::new("gates");
    let out = env.hook(&["test", "mixed.cases.yaml", "--trust-workspace"]);
    assert_eq!(out.code, 1, "{out:#?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert_eq!(lines[0], "ok    echo passes");
    assert!(
        lines[1].starts_with("FAIL  echo is denied (wrong on purpose): expected verdict deny, got pass"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "1 passed, 1 failed", "the summary is the last line");
    insta::assert_snapshot!("test_mixed", out.stdout);
}

#[test]
fn test_passes_every_case_and_exits_0() {
    let env = Env::new("gates");
    let out = env.hook(&["test", "pass.cases.yaml", "--trust-workspace"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.ends_with("\n4 passed, 0 failed\n"), "{}", out.stdout);
    let json = env.hook(&["test", "pass.cases.yaml", "--trust-workspace", "--json"]).json();
    assert_eq!(
        (json["version"].as_u64(), json["passed"].as_u64(), json["failed"].as_u64()),
        (Some(1), Some(4), Some(0))
    );
    assert_eq!(json["cases"][0]["verdict"], "deny");
    assert!(!env.home.join("state").exists(), "test cases write no receipts");
}

#[test]
fn test_trust_workspace_runs_project_hooks_and_leaves_trusted_json_untouched() {
    let env = Env::new("gates");
    assert_eq!(env.hook(&["trust", "gates.tests-first", "--yes"]).code, 0);
    let before = std::fs::read(env.trust_store()).unwrap();
    let modified = std::fs::metadata(env.trust_store()).unwrap().modified().unwrap();

    let out = env.hook(&["test", "pass.cases.yaml"]);
    assert_eq!(out.code, 1, "without trust the command gate is skipped: {out:#?}");
    assert!(out.stdout.contains("FAIL  rm -rf is denied: expected verdict deny, got pass"), "{}", out.stdout);

    let out = env.hook(&["test", "pass.cases.yaml", "--trust-workspace"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("--trust-workspace: trusting 1 hook(s)"), "{}", out.stderr);
    assert!(out.stderr.contains("trusted.json is not written"), "{}", out.stderr);
    assert_eq!(std::fs::read(env.trust_store()).unwrap(), before, "trusted.json is byte for byte the same");
    assert_eq!(std::fs::metadata(env.trust_store()).unwrap().modified().unwrap(), modified);
}

#[test]
fn a_bad_cases_file_is_one_line_naming_the_file_case_and_field() {
    let env = Env::new("gates");
    env.write("typo.cases.yaml", "- name: x\n  event: pre_tool\n  tool: shell\n  expect: {verdic: deny}\n");
    assert_one_line_error(
        &env.hook(&["test", "typo.cases.yaml"]),
        "test file `typo.cases.yaml`: [0].expect: unknown field `verdic`",
    );
    env.write(
        "kind.cases.yaml",
        "- {name: x, event: pre_tool, tool: shell, expect: {verdict: deny, effects: [blok_tool]}}\n",
    );
    let out = env.hook(&["test", "kind.cases.yaml"]);
    assert_one_line_error(
        &out,
        "case 0 (`x`): expect.effects: unknown effect kind `blok_tool` (did you mean `block_tool`?)",
    );
    // And it names every kind there is.
    let kinds: Vec<&str> = hook_types::effect_kinds().collect();
    assert!(out.stderr.trim_end().ends_with(&format!("; the effect kinds are {}", kinds.join(", "))), "{out:#?}");
    env.write("event.cases.yaml", "- {name: x, event: pre_tol, expect: {verdict: pass}}\n");
    assert_one_line_error(&env.hook(&["test", "event.cases.yaml"]), "case 0 (`x`): event: unknown event `pre_tol`");
    assert_one_line_error(&env.hook(&["test", "missing.yaml"]), "test file `missing.yaml` cannot be read");
    assert_one_line_error(&env.hook(&["test", "scripts"]), "test file `scripts` is a directory");
}
