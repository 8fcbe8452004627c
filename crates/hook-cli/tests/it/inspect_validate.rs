//! `hook inspect` and `hook validate` end to end against fixture workspaces.

use crate::common;

use common::Env;

#[test]
fn inspect_text_groups_hooks_by_origin_with_hash_and_trust() {
    let env = Env::new("gates");
    let out = env.hook(&["inspect"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("── project (3) "), "{}", out.stdout);
    assert!(out.stdout.contains("  gates.decide "), "{}", out.stdout);
    assert!(out.stdout.contains("not run: untrusted"), "{}", out.stdout);
    assert!(out.stdout.contains("d23d323a251c4baf"), "the content hash is shown: {}", out.stdout);
    insta::assert_snapshot!("inspect_text", out.stdout);
}

#[test]
fn inspect_json_is_the_versioned_report() {
    let env = Env::new("gates");
    let json = env.inspect_json();
    assert_eq!(json["version"], 1);
    assert_eq!(json["workspace"], "[WS]");
    let hooks = json["hooks"].as_array().unwrap();
    let trust: Vec<(&str, &str)> =
        hooks.iter().map(|h| (h["id"].as_str().unwrap(), h["trust"].as_str().unwrap())).collect();
    assert_eq!(
        trust,
        [("gates.decide", "untrusted"), ("gates.protect-env", "trusted"), ("gates.tests-first", "untrusted")]
    );
    insta::assert_yaml_snapshot!("inspect_json", json);
}

#[test]
fn validate_prints_file_line_column_severity_message_and_exits_1_on_errors() {
    let env = Env::new("broken");
    let out = env.hook(&["validate"]);
    assert_eq!(out.code, 1, "{out:#?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines.contains(
            &".hooks/hooks.yaml:7:5: error: hooks[0].timout_ms: unknown field `timout_ms` (did you mean `timeout_ms`?)"
        ),
        "{}",
        out.stdout
    );
    assert!(
        lines.contains(
            &".hooks/hooks.yaml:10:9: error: hooks[1].on: unknown event `pre_tol` (did you mean `pre_tool`?)"
        ),
        "{}",
        out.stdout
    );
    assert!(lines.iter().any(|l| l.starts_with(".hooks/hooks.yaml:18:12: error: hooks[2].shell: `argv` and `shell`")));
    // A hook whose event cannot be told leaves every gate closed, and validate says so before the summary.
    assert_eq!(
        lines[lines.len() - 2],
        "fails closed: turn_start, pre_tool, permission_request deny until the errors above are fixed"
    );
    assert!(lines.last().unwrap().ends_with(" 4 errors, 0 warnings"), "{}", out.stdout);
    insta::assert_snapshot!("validate_broken", out.stdout);
}

#[test]
fn validate_json_counts_issues_and_a_clean_config_exits_0() {
    let env = Env::new("broken");
    let out = env.hook(&["validate", "--json"]);
    assert_eq!(out.code, 1);
    let json = out.json();
    assert_eq!((json["version"].as_u64(), json["ok"].as_bool()), (Some(1), Some(false)));
    assert_eq!(json["errors"].as_u64().unwrap() as usize, json["issues"].as_array().unwrap().len());
    let env = Env::new("gates");
    let out = env.hook(&["validate"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(out.stdout, "3 hooks in 1 file: 0 errors, 0 warnings\n");
}

#[test]
fn validate_shows_a_position_free_issue_as_file_severity_message() {
    let env = Env::new("gates");
    // A warning with no position: both hooks.yaml and hooks.json exist.
    env.write(".hooks/hooks.json", "[]");
    let out = env.hook(&["validate"]);
    assert_eq!(out.code, 0, "warnings do not fail: {out:#?}");
    assert!(out.stdout.starts_with(".hooks/hooks.json: warning: both `"), "{}", out.stdout);
}
