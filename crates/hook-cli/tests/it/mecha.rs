//! mecha's hooks end to end: a project with `[[hook]]` tables in `.mecha/config.toml` and a suite of hook scripts,
//! through the real `hook` binary, reaching mecha's decisions (docs/declarations.md#foreign-formats).

use crate::common;
use crate::import_support;

use import_support::{agent_env, cases, run_cases};

#[test]
fn mecha_script_suite_reaches_mechas_decisions() {
    let env = agent_env("mecha");
    let decisions = run_cases(&env, &cases("mecha"));
    assert_eq!(decisions.len(), cases("mecha").len());
}

#[test]
fn mecha_inspect_shows_the_pre_tool_hooks_failing_closed() {
    let env = agent_env("mecha");
    let json = env.inspect_json();
    let policies: Vec<(&str, &str)> = json["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["event"].as_str().unwrap(), h["on_error"].as_str().unwrap()))
        .collect();
    assert_eq!(
        policies,
        [("pre_tool", "deny"), ("pre_tool", "deny"), ("post_tool", "ignore"), ("turn_start", "ignore")]
    );
    insta::assert_yaml_snapshot!("mecha_inspect", json);
}

#[test]
fn mecha_validate_refuses_a_bad_config_with_positions() {
    let env = common::Env::new("tests/fixtures/mecha/bad");
    let out = env.hook(&["validate"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(
        out.stdout.contains(".mecha/config.toml:6:1: error: hooks[0].tool: unknown key `tool` (did you mean `tools`?)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(".mecha/config.toml:9:9: error: hooks[1].event: unknown event `pre_tol`"),
        "{}",
        out.stdout
    );
}
