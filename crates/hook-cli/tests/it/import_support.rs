//! What the agent suites (gemini, cursor, mecha) and the import round trips share: a fixture project of one agent
//! with its hook scripts, and its cases — each an event dispatched through `hook run --json --trust-workspace`
//! with the decision the agent documents.
//!
//! Each format's [`Fixture`] names its project, its scripts (copied into the workspace where its commands look for
//! them: `.<agent>/hooks/` for Gemini CLI, Cursor, mecha and clio-coder, `hooks/` for the Claude Code and Codex
//! projects), the user-level files that go into the home directory, and its cases.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::common::{Env, copy_dir, repo_root};

/// Where one format's fixture project, scripts and cases are.
#[derive(Debug, Clone, Copy)]
pub struct Fixture {
    /// The format, as `hook import --from` names it.
    pub format: &'static str,
    /// The project, under the repository root.
    pub project: &'static str,
    /// The hook scripts, under the repository root.
    pub scripts: &'static str,
    /// Where the scripts go in the workspace.
    pub scripts_to: &'static str,
    /// What goes into the home directory (the user's own agent files), if anything.
    pub home: Option<&'static str>,
    /// The cases, under the repository root.
    pub cases: &'static str,
}

/// The fixture of each of the six foreign formats.
pub const FIXTURES: [Fixture; 6] = [
    Fixture {
        format: "claude",
        project: "tests/fixtures/claude/project",
        scripts: "tests/fixtures/scripts",
        scripts_to: "hooks",
        home: Some("tests/fixtures/claude/home"),
        cases: "tests/fixtures/import/claude/cases.json",
    },
    Fixture {
        format: "codex",
        project: "tests/fixtures/codex/project",
        scripts: "tests/fixtures/scripts",
        scripts_to: "hooks",
        home: Some("tests/fixtures/codex/home"),
        cases: "tests/fixtures/import/codex/cases.json",
    },
    Fixture {
        format: "gemini",
        project: "tests/fixtures/gemini/project",
        scripts: "tests/fixtures/scripts2/gemini",
        scripts_to: ".gemini/hooks",
        home: None,
        cases: "tests/fixtures/gemini/cases.json",
    },
    Fixture {
        format: "cursor",
        project: "tests/fixtures/cursor/project",
        scripts: "tests/fixtures/scripts2/cursor",
        scripts_to: ".cursor/hooks",
        home: None,
        cases: "tests/fixtures/cursor/cases.json",
    },
    Fixture {
        format: "mecha",
        project: "tests/fixtures/mecha/project",
        scripts: "tests/fixtures/scripts2/mecha",
        scripts_to: ".mecha/hooks",
        home: None,
        cases: "tests/fixtures/mecha/cases.json",
    },
    Fixture {
        format: "clio",
        project: "tests/fixtures/import/clio/project",
        scripts: "tests/fixtures/scripts2/clio",
        scripts_to: ".clio-coder/hooks",
        home: None,
        cases: "tests/fixtures/import/clio/cases.json",
    },
];

/// The fixture of `format`.
pub fn fixture(format: &str) -> Fixture {
    *FIXTURES.iter().find(|f| f.format == format).unwrap_or_else(|| panic!("no fixture for {format}"))
}

/// A workspace holding the fixture's project and scripts, with its home files in the home directory.
pub fn fixture_env(fixture: &Fixture) -> Env {
    let env = Env::new(fixture.project);
    copy_dir(&repo_root().join(fixture.scripts), &env.ws.join(fixture.scripts_to));
    if let Some(home) = fixture.home {
        copy_dir(&repo_root().join(home), &env.home);
    }
    env
}

/// The workspace of an agent's fixture.
pub fn agent_env(agent: &str) -> Env {
    fixture_env(&fixture(agent))
}

/// One case: an event, what it carries, and what the agent documents for it. Fields left out are not checked.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// What it shows.
    pub name: String,
    /// The event, as `hook run` takes it.
    pub event: String,
    /// The tool of a tool event.
    #[serde(default)]
    pub tool: Option<String>,
    /// `--input`.
    #[serde(default)]
    pub input: Option<Value>,
    /// deny, ask, allow, pass or none.
    pub verdict: String,
    /// The exact reason (`null`: none).
    #[serde(default, deserialize_with = "present")]
    pub reason: Option<Option<String>>,
    /// The effect kinds, in order.
    #[serde(default)]
    pub effects: Option<Vec<String>>,
    /// The effects themselves, where their values matter.
    #[serde(default)]
    pub effect_values: Option<Vec<Value>>,
    /// Each run's status, in precedence order.
    #[serde(default)]
    pub statuses: Option<Vec<String>>,
    /// Texts that some transcript entry contains.
    #[serde(default)]
    pub entries: Vec<String>,
    /// Workspace files and their contents after the run (removed before it).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

/// `Some(None)` for an explicit `null`, so "no reason" can be asserted.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

/// What a case decided: everything a host acts on, and nothing that varies between runs (ids and hashes stay the
/// same across an import, so they are kept; durations are not).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub name: String,
    pub code: i32,
    pub verdict: Value,
    pub reason: Value,
    pub effects: Value,
    pub runs: Vec<(Value, Value, Value, Value)>,
    pub files: BTreeMap<String, String>,
}

/// The cases of an agent's fixture.
pub fn cases(agent: &str) -> Vec<Case> {
    let path = repo_root().join(fixture(agent).cases);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs every case in `env` and checks each against what it documents; returns what each decided.
pub fn run_cases(env: &Env, cases: &[Case]) -> Vec<Decision> {
    cases.iter().map(|case| run_case(env, case)).collect()
}

fn run_case(env: &Env, case: &Case) -> Decision {
    for file in case.files.keys() {
        let _ = std::fs::remove_file(env.ws.join(file));
    }
    let mut args: Vec<String> = vec!["run".into(), case.event.clone()];
    if let Some(tool) = &case.tool {
        args.extend(["--tool".into(), tool.clone()]);
    }
    if let Some(input) = &case.input {
        args.extend(["--input".into(), input.to_string()]);
    }
    args.extend(["--json".into(), "--trust-workspace".into(), "--no-receipts".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = env.hook(&args);
    let json = out.json();
    let name = &case.name;
    let expected_code = match case.verdict.as_str() {
        "deny" => 2,
        "ask" => 3,
        _ => 0,
    };
    assert_eq!(json["verdict"], case.verdict, "{name}: {out:#?}");
    assert_eq!(out.code, expected_code, "{name}: the exit code is the verdict's: {out:#?}");
    if let Some(reason) = &case.reason {
        assert_eq!(json["reason"], serde_json::json!(reason), "{name}: {out:#?}");
    }
    let effects = json["effects"].as_array().unwrap();
    if let Some(kinds) = &case.effects {
        let found: Vec<&str> = effects.iter().map(|e| e["kind"].as_str().unwrap()).collect();
        assert_eq!(found, *kinds, "{name}: {out:#?}");
    }
    if let Some(values) = &case.effect_values {
        assert_eq!(effects, values, "{name}: {out:#?}");
    }
    let runs = json["runs"].as_array().unwrap();
    if let Some(statuses) = &case.statuses {
        let found: Vec<&str> = runs.iter().map(|r| r["status"].as_str().unwrap()).collect();
        assert_eq!(found, *statuses, "{name}: {out:#?}");
    }
    let texts: Vec<&str> =
        runs.iter().flat_map(|r| r["entries"].as_array().unwrap()).filter_map(|e| e["text"].as_str()).collect();
    for needle in &case.entries {
        assert!(texts.iter().any(|t| t.contains(needle.as_str())), "{name}: no entry contains {needle:?}: {out:#?}");
    }
    let mut files = BTreeMap::new();
    for (file, expected) in &case.files {
        let found = std::fs::read_to_string(env.ws.join(file)).unwrap_or_else(|e| panic!("{name}: {file}: {e}"));
        assert_eq!(&found, expected, "{name}: {file}");
        files.insert(file.clone(), found);
    }
    Decision {
        name: name.clone(),
        code: out.code,
        verdict: json["verdict"].clone(),
        reason: json["reason"].clone(),
        effects: json["effects"].clone(),
        runs: runs
            .iter()
            .map(|r| (r["hook_id"].clone(), r["hash"].clone(), r["status"].clone(), stable_entries(&r["entries"])))
            .collect(),
        files,
    }
}

/// A run's entries without what depends on timing: whether a timed-out hook still had descendants outside its
/// group when it was killed, and how many, varies from run to run (dash forks for the last command too).
fn stable_entries(entries: &serde_json::Value) -> serde_json::Value {
    let mut entries = entries.clone();
    if let Some(list) = entries.as_array_mut() {
        list.retain(|entry| !entry["text"].as_str().is_some_and(|t| t.starts_with("killed ")));
    }
    entries
}
