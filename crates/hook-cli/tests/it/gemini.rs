//! Gemini CLI's hooks end to end: a project with `.gemini/settings.json` and a suite of hook scripts, through the
//! real `hook` binary, reaching the decisions Gemini CLI documents.

use crate::import_support;

use import_support::{agent_env, cases, run_cases};

#[test]
fn gemini_script_suite_reaches_the_decisions_gemini_cli_documents() {
    let env = agent_env("gemini");
    let decisions = run_cases(&env, &cases("gemini"));
    assert_eq!(decisions.len(), cases("gemini").len());
}

#[test]
fn gemini_inspect_lists_every_hook_with_its_format_protocol_and_failure_policy() {
    let env = agent_env("gemini");
    let json = env.inspect_json();
    let hooks = json["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 15);
    assert!(hooks.iter().all(|h| h["format"] == "gemini" && h["protocol"] == "gemini" && h["on_error"] == "ignore"));
    let gates_open = hooks.iter().filter(|h| h["fails_open"] == true).count();
    assert_eq!(gates_open, 7, "every BeforeTool and BeforeAgent hook fails open, as in Gemini CLI");
    assert!(json["issues"].as_array().unwrap().is_empty(), "{:#?}", json["issues"]);
    insta::assert_yaml_snapshot!("gemini_inspect", json);
}
