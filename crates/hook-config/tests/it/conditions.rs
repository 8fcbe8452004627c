//! `if` conditions as files declare them (docs/declarations.md#if): read from Claude Code's settings files and from
//! native files, parsed at load, hashed with the hook, and reported where they cannot be read.

use std::path::Path;

use hook_config::{FileContext, Format, HookSpec, Program, load_file};
use hook_testkit::reader::{bare_issue_lines, line, load_project};
use hook_types::{Event, Origin};

/// Writes `text` to `<dir>/<file>` and loads it as a project file of `format`.
fn load(dir: &Path, file: &str, text: &str, format: Format) -> hook_config::FileLoad {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    load_project(dir, file, format)
}

#[test]
fn a_claude_if_hook_loads_with_its_condition_and_runs_once_per_condition() {
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "exit 2", "if": "Bash(git push *)"},
  {"type": "command", "command": "exit 2", "if": "Bash(rm -rf *)"},
  {"type": "command", "command": "exit 2"},
  {"type": "command", "command": "guard", "args": ["--strict", "a b"]},
  {"type": "prompt", "prompt": "Is it safe?", "if": "Bash(curl *)"}
]}], "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt", "if": "Edit(/src/**/*.rs)"}]}]}}"#;
    let load = load(dir.path(), ".claude/settings.json", json, Format::Claude);
    assert_eq!(bare_issue_lines(&load), Vec::<String>::new());
    let lines: Vec<String> = load.hooks.iter().map(line).collect();
    assert_eq!(
        lines,
        [
            "pre_tool [Bash] if Bash(git push *) 600000ms $ exit 2",
            "pre_tool [Bash] if Bash(rm -rf *) 600000ms $ exit 2",
            "pre_tool [Bash] 600000ms $ exit 2",
            "pre_tool [Bash] 600000ms $ argv [\"guard\", \"--strict\", \"a b\"]",
            "pre_tool [Bash] if Bash(curl *) 30000ms model? Is it safe?",
            "post_tool [Edit] if Edit(/src/**/*.rs) 600000ms $ fmt",
        ]
    );
    // Claude Code runs identical handlers once, and a handler's `if` is part of what makes it identical: the three
    // `exit 2` handlers are three hooks, each with its own id and hash.
    let ids: std::collections::HashSet<&str> = load.hooks.iter().map(|h| h.id.as_str()).collect();
    let hashes: std::collections::HashSet<&str> = load.hooks.iter().map(|h| h.hash.as_str()).collect();
    assert_eq!((ids.len(), hashes.len()), (6, 6));
    // The exec form runs its program directly, with its arguments, no shell.
    let HookSpec::Command(exec) = &load.hooks[3].spec else { panic!("a command hook") };
    assert_eq!(exec.program, Program::Argv(vec!["guard".into(), "--strict".into(), "a b".into()]));
}

#[test]
fn a_changed_if_is_a_modified_hook_and_no_if_hashes_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let hook = |condition: &str| {
        let condition = if condition.is_empty() { String::new() } else { format!(", \"if\": \"{condition}\"") };
        let json = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "exit 2"{condition}}}]}}]}}}}"#
        );
        load(dir.path(), ".claude/settings.json", &json, Format::Claude).hooks.remove(0)
    };
    let (push, pull, none) = (hook("Bash(git push *)"), hook("Bash(git pull *)"), hook(""));
    assert_ne!(push.hash, pull.hash);
    assert_ne!(push.hash, none.hash);
    // A hook without `if` keeps the hash and id it had before `if` was read at all.
    assert_eq!(hook_config::canonical_hash_input(&none).get("if"), None);
    assert_eq!(hook_config::canonical_hash_input(&push)["if"], "Bash(git push *)");
}

#[test]
fn a_native_if_names_canonical_tools_and_a_bad_one_closes_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = r#"hooks:
  - {on: pre_tool, if: "shell(git push *)", kind: effect, effect: {kind: block_tool, reason: no pushes}}
  - {on: pre_tool, if: "Bash(git push *)", kind: effect, effect: {kind: block_tool, reason: no pushes}}
  - {on: turn_end, if: "shell", kind: prompt, message: hi}
  - {on: pre_tool, if: "web_fetch(example.com)", kind: effect, effect: {kind: block_tool, reason: no}}
"#;
    let load = load(dir.path(), "hooks.yaml", yaml, Format::Native);
    assert_eq!(
        load.hooks.iter().map(line).collect::<Vec<_>>(),
        [
            "pre_tool if shell(git push *) effect {\"kind\":\"block_tool\",\"reason\":\"no pushes\",\"severity\":\"hard-block\"}"
        ]
    );
    assert_eq!(
        bare_issue_lines(&load),
        [
            "3:24: error: hooks[1].if: `Bash` is an agent's name for the tool `shell`; a native `if` names canonical \
             tools: write `shell`",
            "4:24: error: hooks[2].if: `if` applies to tool events (pre_tool, permission_request, post_tool), not \
             turn_end: there is no tool call to test",
            "5:24: error: hooks[3].if: `web_fetch(example.com)`: expected the `domain:` prefix, e.g. \
             `web_fetch(domain:example.com)` or `web_fetch(domain:*.example.com)`",
        ]
    );
    // Each hook dropped on pre_tool leaves that gate closed: a guard whose condition is not understood is no guard.
    assert!(load.closed_gates.iter().all(|gate| gate.events == [Event::PreTool]));
    assert_eq!(load.closed_gates.len(), 2);
}

#[test]
fn what_claude_code_never_runs_loads_as_never_running_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"hooks": {
  "Stop": [{"hooks": [{"type": "command", "command": "exit 2", "if": "Bash(git push *)"}]}],
  "PreToolUse": [{"hooks": [
    {"type": "command", "command": "a", "if": "Bash(git push"},
    {"type": "command", "command": "b", "if": "WebSearch(rust)"}
  ]}]}}"#;
    let load = load(dir.path(), ".claude/settings.json", json, Format::Claude);
    assert_eq!(load.hooks.len(), 3);
    assert!(load.closed_gates.is_empty(), "Claude Code loads these: nothing to close");
    // Claude Code tests an `if` on PermissionDenied, whose input names the denied call's tool: no warning there.
    let denied =
        r#"{"hooks": {"PermissionDenied": [{"hooks": [{"type": "command", "command": "log", "if": "Bash(rm *)"}]}]}}"#;
    let denied = self::load(dir.path(), ".claude/settings.json", denied, Format::Claude);
    assert_eq!((denied.hooks.len(), denied.issues.len()), (1, 0), "{:?}", denied.issues);
    let load = self::load(dir.path(), ".claude/settings.json", json, Format::Claude);
    assert_eq!(
        bare_issue_lines(&load),
        [
            "2:70: warning: hooks[0].if: `if` applies to tool events (pre_tool, permission_request, post_tool), not \
             turn_end: there is no tool call to test; Claude Code never runs this hook, and neither does this engine",
            "4:47: warning: hooks[1].if: `Bash(git push` is not a permission rule: expected `Tool` or \
             `Tool(specifier)` with the `)` last (escape a parenthesis in the specifier as `\\(` or `\\)`); Claude \
             Code reads it as a tool name no call has, so this hook never runs",
            "5:47: warning: hooks[2].if: `WebSearch(rust)`: Claude Code tests no specifier against this tool's calls, \
             so this hook never runs (write the tool name alone to run it on every call)",
        ]
    );
}

#[test]
fn an_mcp_tool_handler_off_the_gates_is_announced_not_loaded_and_a_powershell_one_loads() {
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"hooks": {"PostToolUse": [{"hooks": [
  {"type": "command", "command": "Write-Host hi", "shell": "powershell"},
  {"type": "mcp_tool", "server": "audit", "tool": "log"}
]}], "UserPromptSubmit": [{"hooks": [{"type": "mcp_tool", "server": "audit", "tool": "check"}]}]}}"#;
    let load = load(dir.path(), ".claude/settings.json", json, Format::Claude);
    assert_eq!(load.hooks.len(), 2, "{:?}", load.hooks);
    assert_eq!(line(&load.hooks[0]), "post_tool 600000ms $ powershell Write-Host hi");
    assert_eq!(load.hooks[1].event, Event::TurnStart);
    assert!(line(&load.hooks[1]).starts_with("turn_start effect {\"kind\":\"block_turn\""));
    let issues = bare_issue_lines(&load);
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert!(
        issues[0].ends_with("which this engine cannot reach; on PostToolUse, not a gate, it is not loaded"),
        "{issues:?}"
    );
    assert!(issues[1].ends_with("its gate is closed instead: every call it would have run on is denied"), "{issues:?}");
    // The closed gate needs no trust: it only denies.
    let cx = FileContext { origin: Origin::Project, workspace: dir.path(), root: dir.path(), source_id: None };
    let again = load_file(&dir.path().join(".claude/settings.json"), Format::Claude, &cx);
    assert!(!again.hooks[1].can_widen());
}
