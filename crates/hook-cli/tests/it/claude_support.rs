//! What the Claude Code and Codex end-to-end suites share: the agent's fixture project with the hook script suite
//! (`tests/fixtures/scripts`) as its `hooks/` directory, and the user's own `~/.claude` or `~/.codex` as `$HOME`.
//! Their cases (`tests/fixtures/<agent>/cases.json`) are [`Case`]s, run by the harness the other agents' suites use.

use crate::common::{Env, copy_dir, repo_root};
use crate::import_support::Case;

/// A workspace holding `tests/fixtures/<agent>/project` with the script suite in `hooks/`, and a home holding
/// `tests/fixtures/<agent>/home`.
pub fn suite_env(agent: &str) -> Env {
    let env = Env::new(&format!("tests/fixtures/{agent}/project"));
    copy_dir(&repo_root().join("tests/fixtures/scripts"), &env.ws.join("hooks"));
    copy_dir(&repo_root().join("tests/fixtures").join(agent).join("home"), &env.home);
    env
}

/// The cases of `tests/fixtures/<agent>/cases.json`: each event with the decision the agent documents.
pub fn suite_cases(agent: &str) -> Vec<Case> {
    let path = repo_root().join("tests/fixtures").join(agent).join("cases.json");
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `hook run <event> [--tool T] --input <input> --json --no-receipts` (with `--trust-workspace` when `trust`), and
/// its exit code and JSON.
pub fn run(
    env: &Env,
    event: &str,
    tool: Option<&str>,
    input: &serde_json::Value,
    trust: bool,
) -> (i32, serde_json::Value) {
    let input = input.to_string();
    let mut args = vec!["run", event];
    if let Some(tool) = tool {
        args.extend(["--tool", tool]);
    }
    args.extend(["--input", &input, "--json", "--no-receipts"]);
    if trust {
        args.push("--trust-workspace");
    }
    let out = env.hook(&args);
    let json = out.json();
    (out.code, json)
}

/// Each run of a dispatch as (origin, status).
pub fn statuses(json: &serde_json::Value) -> Vec<(String, String)> {
    json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["origin"].as_str().unwrap().to_owned(), r["status"].as_str().unwrap().to_owned()))
        .collect()
}
