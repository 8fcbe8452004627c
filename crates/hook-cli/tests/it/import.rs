//! `hook import` end to end, for all six foreign formats: import with `--write`, remove the agent's files, and the
//! native result shows the same hooks with the same hashes (`hook inspect --json`) and reaches the same decisions on
//! the format's script suite (`hook run --json`).

use crate::common;
use crate::import_support;

use std::path::PathBuf;

use common::{Env, assert_one_line_error};
use import_support::{FIXTURES, cases, fixture, fixture_env, run_cases};
use serde_json::{Value, json};

/// A native file the workspace already has: the import adds to it, keeping this comment and this hook. The hook
/// fires on no case (a tool no case calls).
const NATIVE: &str = "\
# Our own hooks: the import keeps this comment and this hook.
version: 1
hooks:
  - id: team.deploy-notice
    on: permission_request
    tools: [deploy_prod]
    kind: effect
    effect: {kind: notify_operator, message: Deploys need two approvals., key: deploy}
";

/// What a hook is, as inspect shows it, without where it is written: what must not change across an import.
fn meaning(hook: &Value) -> Value {
    let mut meaning = json!({
        "id": hook["id"], "hash": hook["hash"], "origin": hook["origin"], "event": hook["event"],
        "kind": hook["kind"], "protocol": hook["protocol"], "on_error": hook["on_error"],
        "fails_open": hook["fails_open"], "enabled": hook["enabled"], "trust": hook["trust"],
        "filters": hook["filters"], "runs": hook["runs"],
    });
    // A user hook's fingerprint covers the files under its origin root, which moves from the agent's directory to
    // the config home; the user origin is trusted as such, so nothing keys on it.
    if hook["origin"] != "user" {
        meaning["fingerprint"] = hook["fingerprint"].clone();
    }
    meaning
}

/// The hooks of `format` in the inspect report, by meaning.
fn hooks_of(report: &Value, format: &str) -> Vec<Value> {
    report["hooks"].as_array().unwrap().iter().filter(|h| h["format"] == format).map(meaning).collect()
}

/// A path as the CLI printed it (redacted, or relative to the workspace) on this machine.
fn real_path(env: &Env, shown: &str) -> PathBuf {
    let path = shown.replace("[WS]", env.ws.to_str().unwrap()).replace("[HOME]", env.home.to_str().unwrap());
    env.ws.join(path)
}

fn round_trip(format: &str) {
    let fixture = fixture(format);
    let env = fixture_env(&fixture);
    env.write(".hooks/hooks.yaml", NATIVE);
    let cases = cases(format);

    // The cases first: files they leave (a log a hook's shell command names) are covered by fingerprints, so both
    // reports see the same workspace.
    let decided = run_cases(&env, &cases);
    let report = env.inspect_json();
    let before = hooks_of(&report, format);
    assert!(before.len() >= cases.len() / 3, "{format}: the fixture loads its hooks: {report:#}");

    // Printing changes nothing.
    let printed = env.hook(&["import", "--from", format]);
    assert_eq!(printed.code, 0, "{printed:#?}");
    assert!(printed.stdout.contains(&format!("protocol: {format}")), "{}", printed.stdout);
    assert_eq!(std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap(), NATIVE);

    let written = env.hook(&["import", "--from", format, "--write", "--json"]);
    assert_eq!(written.code, 0, "{written:#?}");
    let written = written.json();
    assert_eq!((written["version"].clone(), written["written"].clone()), (json!(1), json!(true)), "{written:#}");
    // Every hook in force is imported; so is a hook that lost an id collision (Claude's run-once copy), which goes
    // back to its own origin to lose again.
    let mut imported: Vec<&str> = written["targets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["hooks"].as_array().unwrap())
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    imported.sort_unstable();
    imported.dedup();
    let mut in_force: Vec<&str> = before.iter().map(|h| h["id"].as_str().unwrap()).collect();
    in_force.sort_unstable();
    assert_eq!(imported, in_force, "{format}: {written:#}");
    let native = std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap();
    assert!(
        native.starts_with(NATIVE.trim_end_matches('\n')),
        "{format}: the native file keeps what it had:\n{native}"
    );

    // Again: everything is there already, nothing changes.
    let again = env.hook(&["import", "--from", format, "--write"]);
    assert_eq!(again.code, 0, "{again:#?}");
    assert!(again.stdout.contains("wrote 0 hooks"), "{}", again.stdout);
    assert_eq!(std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap(), native);

    for source in written["sources"].as_array().unwrap() {
        std::fs::remove_file(real_path(&env, source.as_str().unwrap())).unwrap();
    }
    let report = env.inspect_json();
    assert!(hooks_of(&report, format).is_empty(), "{format}: the agent's files are gone");
    let after: Vec<Value> =
        hooks_of(&report, "native").into_iter().filter(|h| h["id"] != "team.deploy-notice").collect();
    assert_eq!(after, before, "{format}: the same hooks, ids and hashes, now native");
    assert!(report["hooks"].as_array().unwrap().iter().any(|h| h["id"] == "team.deploy-notice"));
    let errors: Vec<&Value> =
        report["issues"].as_array().unwrap().iter().filter(|i| i["severity"] == "error").collect();
    assert!(errors.is_empty(), "{format}: {errors:#?}");

    assert_eq!(run_cases(&env, &cases), decided, "{format}: the script suite decides the same");
}

#[test]
fn import_round_trip_keeps_claude_hooks_and_decisions() {
    round_trip("claude");
}

#[test]
fn import_round_trip_keeps_codex_hooks_and_decisions() {
    round_trip("codex");
}

#[test]
fn import_round_trip_keeps_gemini_hooks_and_decisions() {
    round_trip("gemini");
}

#[test]
fn import_round_trip_keeps_cursor_hooks_and_decisions() {
    round_trip("cursor");
}

#[test]
fn import_round_trip_keeps_mecha_hooks_and_decisions() {
    round_trip("mecha");
}

#[test]
fn import_round_trip_keeps_clio_hooks_and_decisions() {
    round_trip("clio");
}

#[test]
fn every_format_has_a_round_trip() {
    let formats: Vec<&str> = FIXTURES.iter().map(|f| f.format).collect();
    assert_eq!(formats, ["claude", "codex", "gemini", "cursor", "mecha", "clio"]);
}

#[test]
fn import_writes_each_origin_into_its_own_native_file() {
    let env = fixture_env(&fixture("claude"));
    let out = env.hook(&["import", "--from", "claude", "--write"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "wrote 3 hooks to [HOME]/xdg-config/hooks/hooks.yaml", "{}", out.stdout);
    assert_eq!(lines[1], "wrote 16 hooks to .hooks/hooks.yaml", "{}", out.stdout);
    assert_eq!(lines[2], "wrote 3 hooks to .hooks/hooks.local.yaml", "{}", out.stdout);
    let local = std::fs::read_to_string(env.ws.join(".hooks/hooks.local.yaml")).unwrap();
    insta::assert_snapshot!("import_claude_local", local);
}

#[test]
fn import_prints_the_native_form_under_the_file_it_would_go_to() {
    let env = fixture_env(&fixture("cursor"));
    let out = env.hook(&["import", "--from", "cursor"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.starts_with("# .hooks/hooks.yaml (project) gains 11 hooks:\n"), "{}", out.stdout);
    assert!(out.stdout.ends_with("run with --write to add them\n"), "{}", out.stdout);
    assert!(!env.ws.join(".hooks").exists(), "nothing is written without --write");
    insta::assert_snapshot!("import_cursor_printed", out.stdout);
}

#[test]
fn import_refuses_to_write_while_the_agents_file_has_errors() {
    let env = Env::new("tests/fixtures/cursor/bad");
    let out = env.hook(&["import", "--from", "cursor", "--write"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stderr.contains(".cursor/hooks.json:13:17: error: hooks[5].type:"), "{}", out.stderr);
    assert!(out.stderr.contains("error-level issues kept some cursor hooks from being read"), "{}", out.stderr);
    assert!(!env.ws.join(".hooks").exists(), "nothing is written");
}

#[test]
fn import_reports_a_native_hook_of_the_same_id_with_other_contents_and_writes_nothing() {
    let env = fixture_env(&fixture("mecha"));
    let taken = "- id: project.command.a9bb24e88779408a\n  on: pre_tool\n  kind: command\n  shell: exit 0\n";
    env.write(".hooks/hooks.yaml", taken);
    let out = env.hook(&["import", "--from", "mecha", "--write"]);
    assert_one_line_error(
        &out,
        "already has a hook `project.command.a9bb24e88779408a` that differs from the one imported",
    );
    assert_eq!(std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap(), taken);
}

#[test]
fn import_refuses_a_native_file_in_flow_style_and_writes_nothing() {
    let env = fixture_env(&fixture("gemini"));
    let flow = "[{on: turn_start, kind: prompt, message: hi}]\n";
    env.write(".hooks/hooks.yaml", flow);
    let out = env.hook(&["import", "--from", "gemini", "--write"]);
    assert_one_line_error(&out, ".hooks/hooks.yaml");
    assert_eq!(std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap(), flow);
}

#[test]
fn import_from_an_agent_without_files_says_so() {
    let env = fixture_env(&fixture("mecha"));
    let out = env.hook(&["import", "--from", "gemini"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "no gemini files found: nothing to import\n"), "{out:#?}");
    let out = env.hook(&["import", "--from", "native"]);
    assert_one_line_error(&out, "invalid value 'native' for '--from <AGENT>'");
}
