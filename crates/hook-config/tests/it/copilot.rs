//! The GitHub Copilot CLI reader (docs/agents.md#github-copilot-cli): every `.github/hooks/*.json` into the model,
//! with `protocol: copilot`.

use hook_config::{FileLoad, Format, Layout, LoadOptions, load};
use hook_testkit::paths::fixture;
use hook_testkit::reader::{assert_issue, line, load_project, load_text, rows};
use hook_types::{Event, OnError};

fn guard() -> FileLoad {
    load_project(&fixture("copilot/project"), ".github/hooks/guard.json", Format::Copilot)
}

fn check(hooks: &str) -> FileLoad {
    load_text(hooks, ".github/hooks/x.json", Format::Copilot)
}

#[test]
fn copilot_events_map_to_canonical_events_and_filters() {
    let load = guard();
    assert!(load.issues.is_empty(), "{:#?}", load.issues);
    let rows = rows(&load);
    let events: Vec<(&str, Option<&str>, &str)> =
        rows.iter().map(|r| (r.on.as_str(), r.matcher.as_deref(), r.shell.as_str())).collect();
    assert_eq!(
        events,
        [
            ("pre_tool", Some("^(?:bash|powershell)$"), "./scripts/guard.sh"),
            ("pre_tool", None, r#"argv ["./scripts/audit", "--json"]"#),
            ("permission_request", None, "./scripts/approve.sh"),
            ("post_tool", Some("^(?:edit|create)$"), "./scripts/log.sh"),
            ("post_tool", None, "./scripts/recover.sh"),
            ("turn_end", None, "./scripts/stop.sh"),
            ("turn_end", None, "./scripts/stop.sh"),
            ("session_start", None, "./scripts/context.sh"),
            ("foreign:errorOccurred", None, "./scripts/report.sh"),
        ]
    );
    assert!(rows[4].only_errors, "postToolUseFailure: post_tool on failed calls only");
    assert_eq!(rows[6].scope, Some("subagent"), "subagentStop: a subagent's turn_end");
    assert!(rows.iter().all(|r| r.protocol == "copilot"));
}

#[test]
fn copilot_matchers_are_anchored_regexes_over_its_own_tool_names() {
    let load = guard();
    let fires = |i: usize, tool: &str| load.hooks[i].matcher.as_ref().is_none_or(|m| m.matches(tool));
    assert!(fires(0, "bash") && fires(0, "powershell") && !fires(0, "bash_extra") && !fires(0, "xbash"));
    assert!(fires(3, "create") && !fires(3, "view"));
}

#[test]
fn copilot_timeouts_are_seconds_with_a_30_second_default_and_pre_tool_fails_closed() {
    let load = guard();
    let rows = rows(&load);
    assert_eq!(rows[0].timeout_ms, 5_000, "timeoutSec");
    assert_eq!(rows[1].timeout_ms, 2_000, "timeout, its alias");
    assert_eq!(rows[2].timeout_ms, 30_000, "the default");
    assert_eq!(load.hooks[0].on_error, OnError::Deny, "a crashing preToolUse hook denies in Copilot");
    assert_eq!(load.hooks[2].on_error, OnError::Ignore, "elsewhere a failure is logged and skipped");
    let both = check(r#"{"version": 1, "hooks": {"agentStop": [{"bash": "x", "timeoutSec": 4, "timeout": 9}]}}"#);
    assert_eq!(hook_testkit::reader::row(&both.hooks[0]).timeout_ms, 4_000, "timeoutSec wins over timeout");
}

#[test]
fn copilot_files_need_version_1_and_disable_all_hooks_loads_nothing() {
    let load = check(r#"{"hooks": {"agentStop": [{"bash": "x"}]}}"#);
    assert!(load.hooks.is_empty());
    assert_issue(&load, &["error: version: unsupported version none", "rejects this file"]);
    let load = check(r#"{"version": 1, "disableAllHooks": true, "hooks": {"agentStop": [{"bash": "x"}]}}"#);
    assert!(load.hooks.is_empty());
    assert_issue(&load, &["warning: disableAllHooks:", "skips every hook of this file"]);
    let load = check(r#"{"version": 1, "hooks": {"agentStop": {"bash": "x"}}}"#);
    assert!(load.hooks.is_empty());
    assert_issue(&load, &["error: hooks.agentStop: expected a list of hooks, found a mapping"]);
}

#[test]
fn copilot_mistakes_are_reported_with_the_file_field_and_position() {
    let load = load_project(&fixture("copilot/bad"), ".github/hooks/bad.json", Format::Copilot);
    assert_issue(&load, &["bad.json:3:3: warning: hook: unknown key `hook` (did you mean `hooks`?)"]);
    assert_issue(&load, &["error: hooks[0].timeoutSec: expected a number of seconds, found a string"]);
    assert_issue(&load, &["error: hooks[1].bash:", "refuses a hook with both"]);
    assert_issue(&load, &["error: hooks[2].type:", "`prompt` hooks"]);
    assert_issue(&load, &["warning: hooks[3].powershell:", "runs on Windows only", "its gate is closed instead"]);
    assert_issue(&load, &["error: hooks[4]:", "needs `bash`"]);
    assert_issue(&load, &["error: hooks[5].matcher:", "not a valid regular expression"]);
    assert_issue(&load, &["warning: hooks[6].timeoutSecs:", "(did you mean `timeoutSec`?)"]);
    assert_issue(&load, &["error: hooks[7].hooks:", "nested group"]);
    assert_issue(&load, &["warning: hooks[8].matcher:", "does not filter sessionEnd"]);
    assert_issue(&load, &["error: hooks.PreToolUse:", "Claude-compatible spelling", "`preToolUse`"]);
    assert_issue(&load, &["warning: hooks.preToolUsed:", "(did you mean `preToolUse`?)"]);
    // What is sound still loads: the entry with only a warning, the sessionEnd hook, the typo as a foreign observer.
    // The `powershell`-only guard is no command here: it loads as the gate it closes, for the calls it would see.
    let (gates, commands): (Vec<_>, Vec<_>) =
        load.hooks.iter().cloned().partition(|h| matches!(h.spec, hook_config::HookSpec::Effect(_)));
    assert_eq!(gates.len(), 1);
    assert!(
        line(&gates[0]).starts_with("pre_tool effect {\"kind\":\"block_tool\",\"reason\":\"a hook that guards this")
    );
    let load = FileLoad { hooks: commands, ..load };
    let loaded: Vec<(String, String)> = rows(&load).into_iter().map(|r| (r.on, r.shell)).collect();
    assert_eq!(
        loaded,
        [
            ("pre_tool".to_owned(), "./guard.sh".to_owned()),
            ("session_end".to_owned(), "./end.sh".to_owned()),
            ("foreign:preToolUsed".to_owned(), "./typo.sh".to_owned()),
        ]
    );
}

#[test]
fn every_json_file_of_the_hooks_directory_is_read_in_name_order_and_a_pascal_case_gate_closes() {
    let project = fixture("copilot/project");
    let home = tempfile::tempdir().unwrap();
    let cfg = tempfile::tempdir().unwrap();
    let layout = Layout::new(&project).with_config_home(cfg.path()).with_home(Some(home.path().to_path_buf()));
    let config = load(&layout, &LoadOptions::default()).unwrap();
    let copilot: Vec<String> = config
        .sources
        .iter()
        .filter(|s| s.format == Format::Copilot)
        .map(|s| format!("{} {} {}", s.origin, s.path.strip_prefix(&project).unwrap_or(&s.path).display(), s.found))
        .collect();
    let user_dir = home.path().join(".copilot/hooks/*.json");
    let user_missing = format!("user {} false", user_dir.display());
    assert_eq!(
        copilot,
        [
            user_missing,
            "project .github/hooks/audit.json true".to_owned(),
            "project .github/hooks/guard.json true".to_owned(),
        ],
        "readme.txt is no hook file; a missing directory is listed as its pattern"
    );
    let on: Vec<String> =
        config.hooks.iter().filter(|h| h.decl.format == Format::Copilot).map(|h| h.decl.event.to_string()).collect();
    assert_eq!(on.first().map(String::as_str), Some("turn_start"), "audit.json before guard.json: {on:?}");

    // A Claude-spelled gate in a Copilot file is not read: its gate closes instead of passing unguarded.
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".github/hooks")).unwrap();
    std::fs::write(
        ws.path().join(".github/hooks/claude-style.json"),
        r#"{"version": 1, "hooks": {"PreToolUse": [{"type": "command", "bash": "./guard.sh"}]}}"#,
    )
    .unwrap();
    let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None);
    let config = load(&layout, &LoadOptions::default()).unwrap();
    let closed: Vec<&Event> = config.closed_gates.iter().flat_map(|g| g.events.iter()).collect();
    assert_eq!(closed, [&Event::PreTool], "{:#?}", config.closed_gates);
}

#[test]
fn a_hooks_directory_past_its_bound_is_an_error_that_closes_every_gate() {
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join(".github/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..=hook_config::MAX_HOOK_DIR_FILES {
        std::fs::write(dir.join(format!("h{i:04}.json")), r#"{"version": 1}"#).unwrap();
    }
    let cfg = tempfile::tempdir().unwrap();
    let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None);
    let config = load(&layout, &LoadOptions::default()).unwrap();
    assert!(config.closed_gates.iter().any(|g| g.events.contains(&Event::PreTool)), "{:#?}", config.closed_gates);
    let issue = config.issues.iter().find(|i| i.source == dir).unwrap_or_else(|| panic!("{:#?}", config.issues));
    assert!(issue.message.contains("holds more than 256 `.json` files"), "{}", issue.message);
}
