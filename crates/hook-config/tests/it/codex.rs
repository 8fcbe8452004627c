//! The Codex reader (docs/declarations.md#foreign-formats): `.codex/hooks.json` and the `[hooks]` table of `.codex/config.toml`, through
//! `parse_str` for the rules where Codex differs from Claude Code, and through `load` for the fixture project.

use std::path::{Path, PathBuf};

use hook_config::{Config, FileLoad, Format, InspectReport, IssueSeverity, Layout, LoadOptions, TrustStatus, load};
use hook_testkit::paths::copy_dir;
use hook_testkit::reader::{bare_issue_lines as issues, check_lines, line as row, parse_at};
use hook_types::{OnError, Origin, Protocol};

/// Loads `text` as the project's `.codex/<file>` (`hooks.json` or `config.toml`).
fn read(file: &str, text: &str) -> FileLoad {
    parse_at(text, &format!(".codex/{file}"), Format::Codex)
}

/// Reads `hooks.json` text and checks every hook (as one-line rows) and every issue.
fn check(json: &str, hooks: &[&str], expected_issues: &[&str]) -> FileLoad {
    let load = read("hooks.json", json);
    check_lines(&load, hooks, expected_issues);
    load
}

#[test]
fn codex_events_map_and_names_codex_does_not_fire_load_as_foreign_observers() {
    let events = [
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "PreCompact",
        "SessionStart",
        "SessionEnd",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
        "SubagentStart",
        "PostCompact",
        "PostToolUseFailure",
        "Notification",
    ];
    let entries: Vec<String> =
        events.iter().map(|e| format!(r#""{e}": [{{"hooks": [{{"type": "command", "command": "{e}"}}]}}]"#)).collect();
    let load = check(
        &format!("{{\"hooks\": {{\n{}\n}}}}", entries.join(",\n")),
        &[
            "pre_tool 600000ms $ PreToolUse",
            "permission_request 600000ms $ PermissionRequest",
            "post_tool 600000ms $ PostToolUse",
            "compaction 600000ms $ PreCompact",
            "session_start 600000ms $ SessionStart",
            "session_end 600000ms $ SessionEnd",
            "turn_start 600000ms $ UserPromptSubmit",
            "turn_end 600000ms $ Stop",
            "turn_end+subagent 600000ms $ SubagentStop",
            "foreign:SubagentStart 600000ms $ SubagentStart",
            "foreign:PostCompact 600000ms $ PostCompact",
            "foreign:PostToolUseFailure 600000ms $ PostToolUseFailure",
            "foreign:Notification 600000ms $ Notification",
        ],
        &[
            "13:1: warning: hooks.PostToolUseFailure: `PostToolUseFailure` is not a Codex event (did you mean \
             `PostToolUse`?); its hooks load as observers of the foreign event `PostToolUseFailure`, which Codex \
             never fires",
            "14:1: warning: hooks.Notification: `Notification` is not a Codex event; its hooks load as observers of \
             the foreign event `Notification`, which Codex never fires",
        ],
    );
    assert!(load.hooks.iter().all(|h| h.protocol == Protocol::Codex && h.on_error == OnError::Ignore));
    assert!(load.hooks.iter().all(|h| h.id == format!("project.command.{}", h.hash)), "default ids");
}

#[test]
fn codex_exact_names_are_narrower_so_its_regexes_stay_regexes() {
    let groups = ["Edit|Write", "my-tool", "Edit, Write", "^Bash$", "*", "mcp__memory__create_entities"];
    let entries: Vec<String> = groups
        .iter()
        .enumerate()
        .map(|(i, m)| format!(r#"{{"matcher": "{m}", "hooks": [{{"type": "command", "command": "h{i}"}}]}}"#))
        .collect();
    let load = check(
        &format!(r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#, entries.join(", ")),
        &[
            "pre_tool [Edit|Write] 600000ms $ h0",
            "pre_tool [(?:my-tool)] 600000ms $ h1",
            "pre_tool [(?:Edit, Write)] 600000ms $ h2",
            "pre_tool [^Bash$] 600000ms $ h3",
            "pre_tool 600000ms $ h4",
            "pre_tool [mcp__memory__create_entities] 600000ms $ h5",
        ],
        &[],
    );
    let matches = |i: usize, tool: &str| load.hooks[i].matcher.as_ref().is_none_or(|m| m.matches(tool));
    // In Codex `my-tool` is an unanchored regex: it fires on `my-tool` and on any name that contains it.
    assert!(matches(1, "my-tool") && matches(1, "x-my-tool-2"));
    assert!(!matches(2, "Edit"), "a comma is not a separator in Codex");
    assert!(matches(0, "Write") && !matches(0, "WriteFile"));
    assert!(matches(5, "mcp__memory__create_entities") && !matches(5, "mcp__memory__read"));
}

#[test]
fn codex_ignores_matchers_on_prompt_stop_and_session_end() {
    check(
        r#"{"hooks": {
"UserPromptSubmit": [{"matcher": "^hello", "hooks": [{"type": "command", "command": "a"}]}],
"Stop": [{"matcher": "^done$", "hooks": [{"type": "command", "command": "b"}]}],
"SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "c"}]}],
"SubagentStop": [{"matcher": "explorer", "hooks": [{"type": "command", "command": "d"}]}]
}}"#,
        &["turn_start 600000ms $ a", "turn_end 600000ms $ b", "session_start [startup|resume] 600000ms $ c"],
        &[
            "2:34: warning: hooks.UserPromptSubmit[0].matcher: Codex ignores a matcher on UserPromptSubmit, and so \
             does this engine: the hooks run on every UserPromptSubmit",
            "3:22: warning: hooks.Stop[0].matcher: Codex ignores a matcher on Stop, and so does this engine: the \
             hooks run on every Stop",
            "5:30: warning: hooks.SubagentStop[0].matcher: this engine cannot filter SubagentStop by the subagent's \
             type (`explorer`), and running these hooks for every SubagentStop would change what they decide; this \
             group's 1 hook(s) were not loaded",
        ],
    );
}

#[test]
fn codex_timeouts_are_whole_seconds_at_least_one_with_a_600_second_default() {
    check(
        r#"{"hooks": {"PreToolUse": [{"hooks": [
{"type": "command", "command": "default"},
{"type": "command", "command": "zero", "timeout": 0},
{"type": "command", "command": "alias", "timeoutSec": 7},
{"type": "command", "command": "both", "timeout": 3, "timeoutSec": 4},
{"type": "command", "command": "fraction", "timeout": 1.5},
{"type": "command", "command": "negative", "timeout": -2}
]}]}}"#,
        &["pre_tool 600000ms $ default", "pre_tool 1000ms $ zero", "pre_tool 7000ms $ alias", "pre_tool 3000ms $ both"],
        &[
            "5:54: warning: hooks.PreToolUse[0].hooks[3].timeoutSec: `timeoutSec` repeats `timeout`; `timeout` is \
             used",
            "6:55: error: hooks.PreToolUse[0].hooks[4].timeout: expected a whole number of seconds, found a decimal \
             number (Codex reads whole seconds)",
            "7:55: error: hooks.PreToolUse[0].hooks[5].timeout: expected a whole number of seconds, found a negative \
             number",
        ],
    );
}

#[test]
fn codex_handlers_it_cannot_run_here_are_reported_and_its_own_keys_pass() {
    check(
        r#"{"hooks": {"PreToolUse": [{"hooks": [
{"type": "prompt"},
{"type": "agent"},
{"type": "mcp_tool", "server": "audit", "tool": "check", "input": {"level": "strict"}},
{"type": "command", "command": "guard", "commandWindows": "guard.exe", "statusMessage": "Checking",
 "additionalContextLimit": 0, "async": false}
]}]}}"#,
        &[
            "pre_tool effect {\"kind\":\"block_tool\",\"reason\":\"a hook that guards this cannot run here: \
             /ws/.codex/hooks.json: hooks.PreToolUse[0].hooks[2]: an `mcp_tool` hook calls a tool of one of Codex's \
             MCP servers, which this engine cannot reach (run hook validate; rewrite it as a command hook to open the \
             gate)\",\"severity\":\"hard-block\"}",
            "pre_tool 600000ms $ guard",
        ],
        &[
            "2:10: warning: hooks.PreToolUse[0].hooks[0].type: a `prompt` hook (a model evaluates its prompt) has no \
             counterpart in this engine, which runs commands; this hook is not loaded",
            "3:10: warning: hooks.PreToolUse[0].hooks[1].type: a `agent` hook (a subagent evaluates its prompt) has \
             no counterpart in this engine, which runs commands; this hook is not loaded",
            "4:1: warning: hooks.PreToolUse[0].hooks[2]: an `mcp_tool` hook calls a tool of one of Codex's MCP \
             servers, which this engine cannot reach; its gate is closed instead: every call it would have run on is \
             denied",
        ],
    );
}

const TOML: &str = r#"
model = "gpt-5-codex"

[mcp_servers.docs]
command = "npx"

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "./hooks/bash-guard.sh"
timeout = 30

[[hooks.Stop]]

[[hooks.Stop.hooks]]
type = "command"
command = "python3 hooks/stop-gate.py"

[hooks.state."/ws/.codex/hooks.json:pre_tool_use:0:0"]
enabled = false
"#;

const SAME_AS_JSON: &str = r#"{"hooks": {
  "Stop": [{"hooks": [{"command": "python3 hooks/stop-gate.py", "type": "command"}]}],
  "PreToolUse": [{"hooks": [{"type": "command", "command": "./hooks/bash-guard.sh", "timeout": 30}], "matcher": "^Bash$"}]
}}"#;

#[test]
fn config_toml_hooks_read_like_hooks_json_with_the_same_ids_and_hashes() {
    let toml = read("config.toml", TOML);
    let rows: Vec<String> = toml.hooks.iter().map(row).collect();
    assert_eq!(
        rows,
        ["pre_tool [^Bash$] 30000ms $ ./hooks/bash-guard.sh", "turn_end 600000ms $ python3 hooks/stop-gate.py"]
    );
    // Codex's own per-hook state is not this engine's trust; a hook it disables is said to load here anyway.
    assert_eq!(
        issues(&toml),
        [
            "warning: hooks.state: Codex's hook state disables 1 hook(s); this engine does not read that state (it keeps \
          its own trust), so they load here: remove them from their file to keep them from running"
        ]
    );
    let json = read("hooks.json", SAME_AS_JSON);
    let key = |load: &FileLoad| {
        let mut pairs: Vec<(String, String)> = load.hooks.iter().map(|h| (h.id.clone(), h.hash.clone())).collect();
        pairs.sort();
        pairs
    };
    assert_eq!(key(&toml), key(&json));
}

#[test]
fn a_config_toml_that_does_not_parse_is_one_issue_at_its_position() {
    let load = read("config.toml", "model = \"o3\"\n[[hooks.Stop]\n");
    assert_eq!(load.hooks, []);
    assert_eq!(load.issues.len(), 1);
    let issue = &load.issues[0];
    assert_eq!((issue.severity, issue.line, issue.column), (IssueSeverity::Error, Some(2), Some(13)), "{issue}");
    assert!(
        issue.message.starts_with("syntax error: ") && issue.message.ends_with("; nothing in this file was loaded")
    );
    // A config.toml without hooks declares none and says nothing.
    assert_eq!(read("config.toml", "model = \"o3\"\n# no hooks here\n"), FileLoad::default());
}

/// The fixture project (`tests/fixtures/codex`) with its user-level `~/.codex`, copied into a temp dir.
fn load_fixture() -> (tempfile::TempDir, PathBuf, Config) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/codex");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    copy_dir(&source, &root);
    let layout = Layout::new(root.join("project"))
        .with_home(Some(root.join("home")))
        .with_config_home(root.join("config"))
        .with_managed_file(root.join("managed.yaml"));
    let config = load(&layout, &LoadOptions::default()).unwrap();
    (dir, root, config)
}

#[test]
fn the_fixture_project_loads_hooks_json_then_config_toml_with_the_user_layer_first() {
    let (_dir, root, config) = load_fixture();
    let rel = |p: &Path| p.strip_prefix(&root).unwrap().display().to_string();
    let hooks: Vec<(String, Origin, String, TrustStatus)> =
        config.hooks.iter().map(|h| (row(&h.decl), h.decl.origin, rel(&h.decl.source), h.trust)).collect();
    let user = |r: &str| (r.to_owned(), Origin::User, "home/.codex/config.toml".to_owned(), TrustStatus::Trusted);
    let json =
        |r: &str| (r.to_owned(), Origin::Project, "project/.codex/hooks.json".to_owned(), TrustStatus::Untrusted);
    let toml =
        |r: &str| (r.to_owned(), Origin::Project, "project/.codex/config.toml".to_owned(), TrustStatus::Untrusted);
    assert_eq!(
        hooks,
        [
            // A TOML table's keys come in name order (as Codex itself lists events in an order of its own); the
            // groups of one event keep the file's order, which is what precedence needs.
            user("foreign:Notification 600000ms $ ~/.codex/notify.sh"),
            user("session_end 1000ms $ ~/.codex/notify.sh session-end"),
            json("pre_tool [^Bash$] 600000ms $ ./hooks/bash-guard.sh"),
            json("pre_tool [^Bash$] 60000ms $ python3 hooks/permission.py"),
            json(r#"pre_tool [apply_patch|Edit|Write] 10000ms $ CLAUDE_PROJECT_DIR="$PWD" ./hooks/protect-paths.sh"#),
            json("turn_start 60000ms $ python3 hooks/prompt-guard.py"),
            json("turn_start 600000ms $ ./hooks/prompt-context.sh"),
            json("session_start [startup|resume] 600000ms $ ./hooks/session-notes.sh"),
            json("turn_end 60000ms $ python3 hooks/stop-gate.py"),
            toml("permission_request [Read] 600000ms $ ./hooks/approve-read.sh"),
            toml("post_tool [apply_patch|Edit|Write] 30000ms $ ./hooks/post-edit.sh"),
            toml("pre_tool [shell] 600000ms $ ./hooks/log-event.sh shell-alias"),
            toml("pre_tool [Grep] 600000ms $ ./hooks/crash.sh"),
            toml("foreign:SubagentStart 600000ms $ ./hooks/log-event.sh subagent-start"),
        ]
    );
    assert!(config.hooks.iter().all(|h| h.decl.protocol == Protocol::Codex && h.decl.format == Format::Codex));
    let issues: Vec<(String, Option<String>, Option<usize>)> =
        config.issues.iter().map(|i| (rel(&i.source), i.field.clone(), i.line)).collect();
    // An event named only in `[[hooks.Notification]]` headers has no position of its own; the field path names it.
    assert_eq!(issues, [("home/.codex/config.toml".to_owned(), Some("hooks.Notification".to_owned()), None)]);

    let report = InspectReport::new(&config);
    let text = serde_json::to_string(&report).unwrap().replace(&root.display().to_string(), "[tmp]");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(json["hooks"].as_array().unwrap().iter().all(|h| h["format"] == "codex" && h["protocol"] == "codex"));
    insta::assert_json_snapshot!("codex_project_inspect", json);
    insta::assert_snapshot!(
        "codex_project_inspect_text",
        report.render_text().replace(&root.display().to_string(), "[tmp]")
    );
}
