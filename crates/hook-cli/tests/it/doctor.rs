//! `hook doctor`: after a clean install every guard of every agent is live and it exits 0; each of an agent's own off
//! switches (from its table entry), set one at a time, and its folder trust withdrawn, is found by name with a
//! non-zero exit; so are `hook` missing from the probe's PATH, a bridge entry without its fallback or missing from
//! an event, Codex's hook trust of a changed entry, an untrusted gate (and any other untrusted hook) and a tool
//! spelling no agent uses.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Env, HOOK, Out};
use hook_types::{Agent, AgentFiles, AgentPath, OffWhen, TrustShape};
use serde_json::{Value, json};

/// A workspace (a git repository, as Codex and Copilot want) with the bridge of `agent` installed at project scope,
/// and every agent's folder trust given to it.
fn installed(agent: &str) -> Env {
    let env = Env::new("tests/fixtures/install/claude");
    std::fs::remove_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::remove_dir_all(env.ws.join(".hooks")).unwrap();
    std::fs::create_dir_all(env.ws.join(".git")).unwrap();
    let out = env.hook(&["install", "--agent", agent, "--scope", "project", "--yes"]);
    assert_eq!(out.code, 0, "{agent}: {out:#?}");
    trust_folder(&env);
    env
}

/// Writes what each agent with folder trust records for a trusted workspace, from the table's shapes.
fn trust_folder(env: &Env) {
    for agent in Agent::bridged() {
        let Some(trust) = &agent.folder_trust else { continue };
        let file = home_file(env, &trust.store);
        let ws = env.ws.display().to_string();
        let entry = match trust.shape {
            TrustShape::PerDir { map, field, .. } => {
                let value = field.map_or(
                    json!({"trustedAt": "2026-01-01"}),
                    |(name, text)| json!({ name: serde_json::from_str::<Value>(text).unwrap() }),
                );
                nested(map, json!({ ws: value }))
            }
            TrustShape::Levels => json!({ ws: "TRUST_FOLDER" }),
            TrustShape::List { key } => nested(key, json!([ws])),
        };
        merge_into(&file, &entry);
    }
}

/// `value` under the dotted `key`.
fn nested(key: &str, value: Value) -> Value {
    key.rsplit('.').fold(value, |inner, part| json!({ part: inner }))
}

/// The file an agent path names in this test's home or workspace (a directory entry: a file `doctor-off.json` in it).
fn home_file(env: &Env, path: &AgentPath) -> PathBuf {
    let file = |base: &Path, p: &str| match AgentFiles::json_dir(p) {
        Some(dir) => base.join(dir).join("doctor-off.json"),
        None => base.join(p),
    };
    match path {
        AgentPath::Workspace(p) => file(&env.ws, p),
        AgentPath::Home(p) => file(&env.home, p),
        AgentPath::EnvDir { default, file: name, .. } => env.home.join(default).join(name),
        AgentPath::System(p) => panic!("a test never writes the machine's {p}"),
    }
}

/// Sets every key of `value` in the JSON or TOML file `path` (created if need be), keeping what else it holds.
fn merge_into(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let toml = path.extension().is_some_and(|e| e == "toml");
    let mut doc: Value = match (toml, text.trim().is_empty()) {
        (_, true) => json!({}),
        (true, false) => toml::from_str(&text).unwrap(),
        (false, false) => serde_json::from_str(&text).unwrap(),
    };
    merge(&mut doc, value);
    let text = if toml { toml::to_string(&doc).unwrap() } else { serde_json::to_string_pretty(&doc).unwrap() };
    std::fs::write(path, text).unwrap();
}

fn merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                merge(into.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (into, from) => *into = from.clone(),
    }
}

/// `hook doctor --agent <agent> --json`, with `path` as its PATH where given.
fn doctor(env: &Env, agent: &str, path: Option<&str>) -> (Out, Value) {
    let mut command = env.command(&["doctor", "--agent", agent, "--json"]);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let out = env.finish(command);
    let json = out.json();
    (out, json)
}

/// The checks of the blocking findings.
fn blockers(report: &Value) -> Vec<String> {
    let findings = report["agents"][0]["findings"].as_array().unwrap();
    findings.iter().filter(|f| f["blocks"] == true).map(|f| f["check"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_clean_install_is_live_for_every_agent_and_exits_0() {
    for agent in Agent::bridged() {
        let env = installed(agent.id);
        let (out, report) = doctor(&env, agent.id, None);
        assert_eq!(out.code, 0, "{}: {}", agent.id, out.stdout);
        assert_eq!(report["live"], true, "{}", agent.id);
        let guards = report["agents"][0]["guards"].as_array().unwrap();
        assert!(!guards.is_empty() && guards.iter().all(|g| g["live"] == true), "{}: {guards:#?}", agent.id);
        let probes = report["agents"][0]["probes"].as_array().unwrap();
        assert!(probes.len() == 1 && probes[0]["live"] == true, "{}: {probes:#?}", agent.id);
    }
}

#[test]
fn each_off_switch_of_each_agent_set_alone_is_found_by_name_with_a_non_zero_exit() {
    let mut seen = 0;
    for agent in Agent::bridged() {
        for switch in agent.switches {
            for path in switch.files.iter().filter(|p| !matches!(p, AgentPath::System(_))) {
                let env = installed(agent.id);
                let file = home_file(&env, path);
                let off = match switch.off_when {
                    OffWhen::True => json!(true),
                    OffWhen::False => json!(false),
                    OffWhen::ListsBridge => json!([hook_agents::install::BRIDGE_NAME]),
                };
                merge_into(&file, &nested(switch.key, off));
                let (out, report) = doctor(&env, agent.id, None);
                let label = format!("{} {} in {}", agent.id, switch.key, file.display());
                assert_eq!(out.code, 1, "{label}: {}", out.stdout);
                assert_eq!(blockers(&report), [switch.key], "{label}");
                let findings = report["agents"][0]["findings"].as_array().unwrap();
                let finding = findings.iter().find(|f| f["check"] == switch.key).unwrap();
                assert_eq!(finding["file"], env.redact(&file.display().to_string()), "{label}");
                assert!(report["agents"][0]["guards"].as_array().unwrap().iter().all(|g| g["live"] == false));
                seen += 1;
            }
        }
    }
    assert!(seen >= 15, "only {seen} switches");
}

#[test]
fn an_untrusted_folder_is_found_for_every_agent_that_keeps_folder_trust() {
    for agent in Agent::bridged().filter(|a| a.folder_trust.is_some()) {
        let env = installed(agent.id);
        let trust = agent.folder_trust.as_ref().unwrap();
        std::fs::remove_file(home_file(&env, &trust.store)).unwrap();
        // Where folder trust is off by default, the user turns it on.
        if let Some((key, false)) = trust.enabled_by {
            let settings = trust.setting_files.iter().find(|p| matches!(p, AgentPath::Home(_))).unwrap();
            merge_into(&home_file(&env, settings), &nested(key, json!(true)));
        }
        let (out, report) = doctor(&env, agent.id, None);
        assert_eq!(out.code, 1, "{}: {}", agent.id, out.stdout);
        assert!(blockers(&report).contains(&"folder_trust".to_owned()), "{}: {report:#}", agent.id);
    }
}

#[test]
fn hook_missing_from_the_probes_path_is_found() {
    let env = installed("claude");
    let (out, report) = doctor(&env, "claude", Some("/usr/bin:/bin"));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(blockers(&report), ["hook_on_path", "probe"]);
    let probe = &report["agents"][0]["probes"][0];
    assert!(probe["outcome"].as_str().unwrap().contains("was not found on the PATH"), "{probe:#}");
}

#[test]
fn a_bridge_entry_without_its_fallback_or_missing_from_an_event_is_found() {
    let env = installed("claude");
    let path = env.ws.join(".claude/settings.json");
    let mut settings = common::read_json(&path);
    settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = json!("hook bridge --protocol claude");
    settings["hooks"].as_object_mut().unwrap().remove("UserPromptSubmit");
    std::fs::write(&path, settings.to_string()).unwrap();
    let (out, report) = doctor(&env, "claude", None);
    assert_eq!(out.code, 1);
    assert_eq!(blockers(&report), ["bridge_missing", "no_fallback"]);
}

#[test]
fn a_codex_bridge_entry_changed_since_install_is_one_codex_no_longer_trusts() {
    let env = installed("codex");
    let path = env.ws.join(".codex/hooks.json");
    let mut hooks = common::read_json(&path);
    hooks["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = json!(99);
    std::fs::write(&path, hooks.to_string()).unwrap();
    let (out, report) = doctor(&env, "codex", None);
    assert_eq!(out.code, 1);
    assert_eq!(blockers(&report), ["hook_trust"]);
}

#[test]
fn an_untrusted_gate_blocks_and_a_tool_spelling_no_agent_uses_warns() {
    let env = installed("gemini");
    env.write(
        ".hooks/hooks.yaml",
        "hooks:\n  - id: no-rm\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    shell: \"exit 0\"\n  \
         - id: typo\n    on: pre_tool\n    tools: [Bassh]\n    kind: command\n    shell: \"exit 0\"\n  \
         - id: note\n    on: turn_end\n    kind: command\n    shell: \"true\"\n",
    );
    let (out, report) = doctor(&env, "gemini", None);
    assert_eq!(out.code, 1);
    assert_eq!(blockers(&report), ["gate_not_run"]);
    let warnings: Vec<&Value> =
        report["agents"][0]["findings"].as_array().unwrap().iter().filter(|f| f["blocks"] == false).collect();
    assert!(warnings.iter().any(|f| f["check"] == "tool_spelling"), "{warnings:#?}");
    let unrun: Vec<&Value> = warnings.iter().copied().filter(|f| f["check"] == "hook_not_run").collect();
    assert_eq!(unrun.len(), 2, "typo and note: {unrun:#?}");
    assert_eq!(report["agents"][0]["gates"]["shell"]["skipped"], json!([{"id": "no-rm", "why": "untrusted"}]));
    let out = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let (out, report) = doctor(&env, "gemini", None);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(report["agents"][0]["gates"]["shell"]["run"], json!(["hook.self-protection", "no-rm"]));
}

#[test]
fn install_ends_with_the_doctors_verdict() {
    let env = Env::new("tests/fixtures/install/claude");
    std::fs::remove_dir_all(env.ws.join(".hooks")).unwrap();
    let out = env.hook(&["install", "--agent", "claude", "--scope", "project", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let verdict = out.stdout.split("hook doctor:").nth(1).unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(verdict.contains("Claude Code (claude): NOT LIVE"), "{verdict}");
    assert!(verdict.contains("[folder_trust]"), "{verdict}");
    // Install runs no hook: the live probe is `hook doctor`'s.
    assert!(verdict.contains("probe: not run here; `hook doctor --agent claude`"), "{verdict}");
}

#[test]
fn the_json_report_is_versioned() {
    let env = installed("claude");
    let (out, mut report) = doctor(&env, "claude", None);
    assert_eq!(out.code, 0, "{}", out.stdout);
    // What depends on this machine: where this build is, and which agent executables its PATH holds.
    let dir = Path::new(HOOK).parent().unwrap().display().to_string();
    for key in ["running", "on_path"] {
        report["hook"][key] = json!(report["hook"][key].as_str().unwrap().replace(&dir, "[BIN]"));
    }
    report["agents"][0]["version"]["installed"] = json!("[here]");
    report["agents"][0]["version"]["note"] = json!("[here]");
    let probe = &mut report["agents"][0]["probes"][0]["outcome"];
    assert!(probe.as_str().unwrap().starts_with("the bridge answered (exit 0)"), "{probe}");
    insta::assert_yaml_snapshot!("doctor_json", report);
}

#[test]
fn a_settings_file_changed_behind_the_engine_is_reported_with_the_entries_diff() {
    let env = Env::new("gates");
    assert_eq!(env.hook(&["install", "--agent", "claude"]).code, 0);
    let changed = |report: &Value| -> Vec<String> {
        let findings = report["agents"][0]["findings"].as_array().unwrap();
        findings.iter().filter(|f| f["check"] == "changed_since_install").map(|f| f["message"].to_string()).collect()
    };
    let (_, report) = doctor(&env, "claude", None);
    assert!(changed(&report).is_empty(), "as installed: {report:#}");
    // A key added by hand: the file changed, its bridge entries did not.
    let path = env.ws.join(".claude/settings.json");
    let mut settings = common::read_json(&path);
    settings["model"] = json!("opus");
    std::fs::write(&path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    let (_, report) = doctor(&env, "claude", None);
    let found = changed(&report);
    assert_eq!(found.len(), 1, "{report:#}");
    assert!(found[0].contains("bridge entries are as installed"), "{found:?}");
    // The model's favourite: `{}` over the settings. The diff names each entry that went.
    std::fs::write(&path, "{}").unwrap();
    let (_, report) = doctor(&env, "claude", None);
    let found = changed(&report);
    assert!(found[0].contains("- PreToolUse: ") && found[0].contains("+ PreToolUse: (no bridge entry)"), "{found:?}");
}
