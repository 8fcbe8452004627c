//! The Claude Code reader (docs/declarations.md#foreign-formats): settings files in the documented shape, through `parse_str` for the rules and
//! through `load` for the fixture project with its three files.

use std::path::{Path, PathBuf};

use hook_config::{
    Config, FileContext, FileLoad, Format, HookDecl, HookSpec, InspectReport, IssueSeverity, Layout, LoadOptions,
    Program, TrustStatus, load, parse_str,
};
use hook_testkit::paths::copy_dir;
use hook_testkit::reader::{bare_issue_lines as issues, check_lines, line as row, parse_as};
use hook_types::{OnError, Origin, Protocol};

/// Loads `json` as the project's `.claude/settings.json`.
fn read(json: &str) -> FileLoad {
    read_as(Origin::Project, json)
}

fn read_as(origin: Origin, json: &str) -> FileLoad {
    parse_as(origin, json, ".claude/settings.json", Format::Claude)
}

/// Reads `json` and checks every hook (as one-line rows) and every issue.
fn check(json: &str, hooks: &[&str], expected_issues: &[&str]) -> FileLoad {
    let load = read(json);
    check_lines(&load, hooks, expected_issues);
    load
}

/// A settings file with one group of command hooks on `event`.
fn group(event: &str, matcher: Option<&str>, commands: &[&str]) -> String {
    let handlers: Vec<String> =
        commands.iter().map(|c| format!(r#"{{"type": "command", "command": {}}}"#, serde_json::json!(c))).collect();
    let matcher = matcher.map(|m| format!(r#""matcher": {}, "#, serde_json::json!(m))).unwrap_or_default();
    format!(r#"{{"hooks": {{"{event}": [{{{matcher}"hooks": [{}]}}]}}}}"#, handlers.join(", "))
}

#[test]
fn every_claude_event_with_an_equivalent_maps_to_its_canonical_event_and_filters() {
    let events = [
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "SessionStart",
        "SessionEnd",
        "Notification",
    ];
    let entries: Vec<String> = events
        .iter()
        .map(|e| format!(r#""{e}": [{{"hooks": [{{"type": "command", "command": "echo {e}"}}]}}]"#))
        .collect();
    check(
        &format!("{{\"hooks\": {{{}}}}}", entries.join(", ")),
        &[
            "pre_tool 600000ms $ echo PreToolUse",
            "permission_request 600000ms $ echo PermissionRequest",
            "post_tool 600000ms $ echo PostToolUse",
            "post_tool+only_errors 600000ms $ echo PostToolUseFailure",
            "turn_start 600000ms $ echo UserPromptSubmit",
            "turn_end 600000ms $ echo Stop",
            "turn_end+subagent 600000ms $ echo SubagentStop",
            "compaction 600000ms $ echo PreCompact",
            "session_start 600000ms $ echo SessionStart",
            "session_end 600000ms $ echo SessionEnd",
            "notification 600000ms $ echo Notification",
        ],
        &[],
    );
}

#[test]
fn other_event_names_load_as_foreign_observers_and_are_never_an_error() {
    let json = r#"{"hooks": {
  "SubagentStart": [{"matcher": "code-reviewer", "hooks": [{"type": "command", "command": "log start"}]}],
  "WorktreeCreate": [{"hooks": [{"type": "command", "command": "log worktree"}]}],
  "PreToolUs": [{"hooks": [{"type": "command", "command": "typo"}]}],
  "BeforeTool": [{"hooks": [{"type": "command", "command": "gemini's name"}]}]
}}"#;
    let load = check(
        json,
        &[
            "foreign:SubagentStart [code-reviewer] 600000ms $ log start",
            "foreign:WorktreeCreate 600000ms $ log worktree",
            "foreign:PreToolUs 600000ms $ typo",
            "foreign:BeforeTool 600000ms $ gemini's name",
        ],
        &[
            "4:3: warning: hooks.PreToolUs: `PreToolUs` is not a Claude Code event (did you mean `PreToolUse`?); its \
             hooks load as observers of the foreign event `PreToolUs`, which Claude Code never fires",
            "5:3: warning: hooks.BeforeTool: `BeforeTool` is not a Claude Code event; its hooks load as observers of \
             the foreign event `BeforeTool`, which Claude Code never fires",
        ],
    );
    assert!(load.hooks.iter().all(|h| h.event.is_foreign() && h.on_error == OnError::Ignore));
}

#[test]
fn matchers_follow_the_claude_rule_with_mcp_names_both_ways() {
    let groups = [
        ("*", "star"),
        ("", "empty"),
        ("Edit|Write", "bar list"),
        ("Edit, Write", "comma list"),
        ("mcp__memory__create_entities", "one MCP tool"),
        ("mcp__memory", "an MCP server name alone"),
        ("mcp__.*__write.*", "MCP regex"),
        ("^Bash$", "anchored"),
        ("Notebook", "unanchored regex? no: exact"),
    ];
    let entries: Vec<String> = groups
        .iter()
        .map(|(m, c)| format!(r#"{{"matcher": "{m}", "hooks": [{{"type": "command", "command": "{c}"}}]}}"#))
        .collect();
    let load = read(&format!(r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#, entries.join(", ")));
    assert_eq!(issues(&load), Vec::<String>::new());
    let fires = |tool: &str| -> Vec<String> {
        let shell = |h: &HookDecl| match &h.spec {
            HookSpec::Command(c) => match &c.program {
                Program::Shell(s) | Program::PowerShell(s) => s.clone(),
                Program::Argv(a) => a.join(" "),
            },
            _ => unreachable!(),
        };
        load.hooks.iter().filter(|h| h.matcher.as_ref().is_none_or(|m| m.matches(tool))).map(shell).collect()
    };
    assert_eq!(fires("Write"), ["star", "empty", "bar list", "comma list"]);
    assert_eq!(fires("mcp__memory__create_entities"), ["star", "empty", "one MCP tool"]);
    assert_eq!(fires("mcp__filesystem__write_file"), ["star", "empty", "MCP regex"]);
    assert_eq!(fires("Bash"), ["star", "empty", "anchored"]);
    assert_eq!(fires("NotebookEdit"), ["star", "empty"], "a plain name is exact, not a prefix");
    // `*` and empty are no matcher at all, so they hash like a group without one.
    assert!(load.hooks[0].matcher.is_none() && load.hooks[1].matcher.is_none());
}

#[test]
fn a_matcher_that_is_not_a_valid_regex_drops_its_group_only() {
    check(
        r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash(", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]},
  {"matcher": "(?!Read)", "hooks": [{"type": "command", "command": "c"}]},
  {"matcher": "Read", "hooks": [{"type": "command", "command": "d"}]}
]}}"#,
        &["pre_tool [Read] 600000ms $ d"],
        &[
            "2:15: error: hooks.PreToolUse[0].matcher: invalid regex `Bash(`: unclosed group; this group's 2 hook(s) \
             were not loaded",
            "3:15: error: hooks.PreToolUse[1].matcher: invalid regex `(?!Read)`: look-around, including look-ahead \
             and look-behind, is not supported; this group's 1 hook(s) were not loaded",
        ],
    );
}

#[test]
fn matchers_on_events_that_ignore_or_cannot_route_them() {
    let json = r#"{"hooks": {
  "UserPromptSubmit": [{"matcher": "deploy", "hooks": [{"type": "command", "command": "a"}]}],
  "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "b"}]}],
  "Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": "c"}]}],
  "SubagentStop": [{"matcher": "code-reviewer", "hooks": [{"type": "command", "command": "d"}]}],
  "SessionStart": [{"matcher": "resume", "hooks": [{"type": "command", "command": "e"}]}],
  "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "f"}]}]
}}"#;
    check(
        json,
        &[
            "turn_start 600000ms $ a",
            "turn_end 600000ms $ b",
            "notification 600000ms $ c",
            "session_start [resume] 600000ms $ e",
            "compaction [manual] 600000ms $ f",
        ],
        &[
            "2:36: warning: hooks.UserPromptSubmit[0].matcher: Claude Code ignores a matcher on UserPromptSubmit, and \
             so does this engine: the hooks run on every UserPromptSubmit",
            "4:32: warning: hooks.Notification[0].matcher: this engine cannot filter Notification by its notification \
             type; `idle_prompt` is dropped and the group's hooks run on every Notification",
            "5:32: warning: hooks.SubagentStop[0].matcher: this engine cannot filter SubagentStop by the subagent's \
             type (`code-reviewer`), and running these hooks for every SubagentStop would change what they decide; \
             this group's 1 hook(s) were not loaded",
        ],
    );
}

#[test]
fn timeouts_are_seconds_with_claude_codes_600_second_default() {
    let json = r#"{"hooks": {"PreToolUse": [{"hooks": [
  {"type": "command", "command": "default"},
  {"type": "command", "command": "unset", "timeout": null},
  {"type": "command", "command": "thirty", "timeout": 30},
  {"type": "command", "command": "half", "timeout": 0.5},
  {"type": "command", "command": "long", "timeout": 900},
  {"type": "command", "command": "text", "timeout": "10"},
  {"type": "command", "command": "negative", "timeout": -1}
]}]}}"#;
    check(
        json,
        &[
            "pre_tool 600000ms $ default",
            "pre_tool 600000ms $ unset",
            "pre_tool 30000ms $ thirty",
            "pre_tool 500ms $ half",
            "pre_tool 900000ms $ long",
        ],
        &[
            // The shared normalizer's clamp warning counts handlers in file order.
            "6:53: warning: hooks[4].timeout: 900000 ms is outside the default host limits (100 … 600000 ms); the \
             hook will run with 600000 ms",
            "7:53: error: hooks.PreToolUse[0].hooks[5].timeout: expected a number of seconds, found a string",
            "8:57: error: hooks.PreToolUse[0].hooks[6].timeout: expected a positive number of seconds, found a \
             negative number",
        ],
    );
}

/// The closed gate an `mcp_tool` handler on PreToolUse leaves: a deny for every call it would have run on.
const CLOSED_MCP: &str = "pre_tool [Bash] effect {\"kind\":\"block_tool\",\"reason\":\"a hook that guards this cannot run \
    here: /ws/.claude/settings.json: hooks.PreToolUse[0].hooks[3]: an `mcp_tool` hook calls a tool of one of Claude \
    Code's MCP servers, which this engine cannot reach (run hook validate; rewrite it as a command hook to open the \
    gate)\",\"severity\":\"hard-block\"}";

#[test]
fn handlers_this_engine_cannot_run_are_reported_by_name_not_silently_dropped() {
    let json = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "prompt", "prompt": "Is this command safe?"},
  {"type": "agent", "prompt": "Review the command"},
  {"type": "http", "url": "https://example.com/hook", "if": "Bash(x)"},
  {"type": "mcp_tool", "server": "audit", "tool": "check"},
  {"type": "command", "command": "git-guard", "if": "Bash(git push *)"},
  {"type": "command", "command": "Write-Host hi", "shell": "powershell"},
  {"type": "comand", "command": "typo"},
  {"command": "no type"},
  {"type": "command"},
  {"type": "command", "command": "   "},
  {"type": "command", "command": "background", "async": true, "statusMessage": "Logging"},
  {"type": "command", "command": "bash", "shell": "bash", "timout": 5}
]}]}}"#;
    let load = check(
        json,
        &[
            "pre_tool [Bash] 30000ms model? Is this command safe?",
            "pre_tool [Bash] 60000ms agent? Review the command",
            "pre_tool [Bash] if Bash(x) http https://example.com/hook",
            CLOSED_MCP,
            "pre_tool [Bash] if Bash(git push *) 600000ms $ git-guard",
            "pre_tool [Bash] 600000ms $ powershell Write-Host hi",
            "pre_tool [Bash] 600000ms $ background",
            "pre_tool [Bash] 600000ms $ bash",
        ],
        &[
            "5:3: warning: hooks.PreToolUse[0].hooks[3]: an `mcp_tool` hook calls a tool of one of Claude Code's MCP \
             servers, which this engine cannot reach; its gate is closed instead: every call it would have run on is \
             denied",
            "8:12: error: hooks.PreToolUse[0].hooks[6].type: unknown hook type `comand` (did you mean `command`?); \
             expected one of `command`, `prompt`, `agent`, `http`, `mcp_tool`",
            "9:3: error: hooks.PreToolUse[0].hooks[7]: missing `type` (Claude Code requires `\"type\": \"command\"`)",
            "10:3: error: hooks.PreToolUse[0].hooks[8]: a command hook needs `command` (the shell command to run)",
            "11:34: error: hooks.PreToolUse[0].hooks[9].command: `command` is empty; expected a shell command to run",
            "12:57: warning: hooks[10].async: `async: true` is for observers (post_tool, session_start, session_end, \
             notification, compaction); pre_tool is a gate event, whose answer the dispatch must wait for; this \
             engine runs it to completion, so an answer it gives counts",
            "13:59: warning: hooks.PreToolUse[0].hooks[11].timout: unknown key `timout` (did you mean `timeout`?); \
             Claude Code ignores it",
        ],
    );
    // Every issue names the handler it is about, as the file spells it, and its position among the handlers.
    assert!(load.issues.iter().all(|i| i.index.is_some() && i.field.is_some() && i.line.is_some()));
    let severities: Vec<IssueSeverity> = load.issues.iter().map(|i| i.severity).collect();
    assert_eq!(severities.iter().filter(|s| **s == IssueSeverity::Error).count(), 4);
}

#[test]
fn every_hook_follows_the_claude_protocol_and_fails_open_even_on_gates() {
    let load = read(&group("PreToolUse", Some("Bash"), &["guard"]));
    let hook = &load.hooks[0];
    assert_eq!((hook.protocol, hook.on_error, hook.format), (Protocol::Claude, OnError::Ignore, Format::Claude));
    let prompt = read(&group("UserPromptSubmit", None, &["guard"]));
    assert_eq!(prompt.hooks[0].on_error, OnError::Ignore, "Claude Code lets a prompt through when its hook fails");
}

#[test]
fn identical_handlers_in_one_file_run_once_the_later_copy_kept() {
    let json = r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "timeout": 5}, {"type": "command", "command": "other"}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "timeout": 9}]},
  {"matcher": "Edit", "hooks": [{"type": "command", "command": "guard"}]}
]}}"#;
    let load = check(
        json,
        &["pre_tool [Bash] 600000ms $ other", "pre_tool [Bash] 9000ms $ guard", "pre_tool [Edit] 600000ms $ guard"],
        &["3:33: warning: hooks.PreToolUse[1].hooks[0]: identical to the handler at `hooks.PreToolUse[0].hooks[0]` \
           (same event, matcher and command): Claude Code runs it once, so that copy is dropped and this one is kept"],
    );
    // A different matcher is a different handler.
    assert_ne!(load.hooks[1].id, load.hooks[2].id);
}

#[test]
fn ids_come_from_event_matcher_and_command_and_rereading_changes_nothing() {
    let compact =
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"guard","timeout":5}]}]}}"#;
    let spaced = r#"{
      "model": "opus",
      "hooks": { "PreToolUse": [ { "hooks": [ { "timeout": 5, "command": "guard", "type": "command" } ],
                                   "matcher": "Bash" } ] }
    }"#;
    let a = read(compact);
    let b = read(compact);
    let c = read(spaced);
    assert_eq!(a.hooks, b.hooks, "reading twice gives the same declarations");
    assert_eq!((&a.hooks[0].id, &a.hooks[0].hash), (&c.hooks[0].id, &c.hooks[0].hash), "layout and key order");
    let id = &a.hooks[0].id;
    assert!(id.starts_with("claude.command.") && id.len() == "claude.command.".len() + 16, "{id}");

    // The id is the same in every origin (that is what makes run-once work across the three files); a new
    // timeout keeps the id and changes the hash, so trust reports the hook modified rather than new.
    let user = read_as(Origin::User, compact);
    assert_eq!((&user.hooks[0].id, &user.hooks[0].hash), (id, &a.hooks[0].hash));
    let longer = read(&compact.replace("\"timeout\":5", "\"timeout\":6"));
    assert_eq!(&longer.hooks[0].id, id);
    assert_ne!(longer.hooks[0].hash, a.hooks[0].hash);

    // The hash is the one the same hook has written natively with `protocol: claude`: importing keeps it.
    let ws = Path::new("/ws");
    let cx = FileContext { origin: Origin::Project, workspace: ws, root: ws, source_id: None };
    let native = "- {on: PreToolUse, matcher: Bash, kind: command, shell: guard, timeout_ms: 5000, protocol: claude}\n";
    let native = parse_str(native, Path::new("/ws/.hooks/hooks.yaml"), Format::Native, &cx);
    assert_eq!(native.hooks[0].hash, a.hooks[0].hash);
}

#[test]
fn disable_all_hooks_loads_the_files_hooks_disabled() {
    let json = r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}]}]}}"#;
    let load = check(
        json,
        &["turn_end 600000ms disabled $ a"],
        &[
            "1:21: warning: disableAllHooks: `disableAllHooks` is true: this file's hooks are loaded and shown but never \
           run",
        ],
    );
    // Enabled is not hashed: switching the hooks off and on again keeps their trust.
    let enabled = read(&json.replace("true", "false"));
    assert_eq!(enabled.hooks[0].hash, load.hooks[0].hash);
}

#[test]
fn settings_without_hooks_are_empty_and_malformed_shapes_are_one_issue() {
    check(r#"{"model": "opus", "permissions": {"allow": []}}"#, &[], &[]);
    check(r#"{"hooks": {}}"#, &[], &[]);
    check(
        r#"{"hooks": ["PreToolUse"]}"#,
        &[],
        &["1:11: error: hooks: expected a mapping of event names to matcher groups, found a list"],
    );
    check(r#"["hooks"]"#, &[], &["1:1: error: expected a settings object (`{\"hooks\": {...}}`), found a list"]);
    // A bad group or handler costs only itself.
    check(
        r#"{"hooks": {"Stop": {"hooks": []}, "PreToolUse": ["guard", {"hooks": "guard"}, {"matcher": 7, "hooks": []},
  {"hooks": [{"type": "command", "command": "kept"}]}]}}"#,
        &["pre_tool 600000ms $ kept"],
        &[
            "1:20: error: hooks.Stop: expected a list of matcher groups, found a mapping",
            "1:50: error: hooks.PreToolUse[0]: expected a matcher group (`{matcher, hooks: [...]}`), found a string",
            "1:69: error: hooks.PreToolUse[1].hooks: expected a list of hook handlers, found a string",
            "1:91: error: hooks.PreToolUse[2].matcher: expected a matcher string, found a number; this group's 0 \
             hook(s) were not loaded",
        ],
    );
}

/// The fixture project (`tests/fixtures/claude`): its three files, copied with the user's home into a temp dir.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn copy() -> Project {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claude");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        copy_dir(&source, &root);
        Project { _dir: dir, root }
    }

    fn load(&self) -> Config {
        let layout = Layout::new(self.root.join("project"))
            .with_home(Some(self.root.join("home")))
            .with_config_home(self.root.join("config"))
            .with_managed_file(self.root.join("managed.yaml"));
        load(&layout, &LoadOptions::default()).unwrap()
    }

    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap().display().to_string()
    }
}

#[test]
fn the_fixture_project_loads_its_three_files_with_run_once_across_them() {
    let project = Project::copy();
    let config = project.load();
    let hooks: Vec<(String, Origin, String, TrustStatus)> =
        config.hooks.iter().map(|h| (row(&h.decl), h.decl.origin, project.relative(&h.decl.source), h.trust)).collect();
    let guard = r#"pre_tool [Bash] 600000ms $ "$CLAUDE_PROJECT_DIR"/hooks/bash-guard.sh"#;
    let user = |r: &str| (r.to_owned(), Origin::User, "home/.claude/settings.json".to_owned(), TrustStatus::Trusted);
    let project_hook =
        |r: &str| (r.to_owned(), Origin::Project, "project/.claude/settings.json".to_owned(), TrustStatus::Untrusted);
    let local = |r: &str| {
        (r.to_owned(), Origin::ProjectLocal, "project/.claude/settings.local.json".to_owned(), TrustStatus::Untrusted)
    };
    let cmd = |script: &str| format!(r#""$CLAUDE_PROJECT_DIR"/hooks/{script}"#);
    let py = |script: &str| format!(r#"python3 "$CLAUDE_PROJECT_DIR/hooks/{script}""#);
    assert_eq!(
        hooks,
        [
            // `async: true` on an observer: it runs in the background, as in Claude Code.
            user("notification 600000ms async $ ~/.claude/hooks/notify.sh"),
            // The bash guard is declared in all three files: the user's trusted copy stays in force (the same
            // command) until the workspace's copies are trusted.
            user(guard),
            user("session_end 900000ms $ ~/.claude/hooks/notify.sh session-end"),
            project_hook(&format!("pre_tool [Bash] 60000ms $ {}", py("permission.py"))),
            project_hook(&format!("pre_tool [Edit|Write|MultiEdit] 10000ms $ {}", cmd("protect-paths.sh"))),
            project_hook(&format!("pre_tool [mcp__github__.*] 600000ms $ {} github-tool", cmd("log-event.sh"))),
            project_hook(&format!("pre_tool [Grep] 600000ms $ {}", cmd("crash.sh"))),
            project_hook(&format!("pre_tool [Glob] 1000ms $ {}", cmd("slow.sh"))),
            project_hook(&format!("permission_request [Read] 600000ms $ {}", cmd("approve-read.sh"))),
            project_hook(&format!("post_tool [Edit, Write] 30000ms $ {}", cmd("post-edit.sh"))),
            project_hook(&format!("post_tool+only_errors [Bash] 60000ms $ {}", py("failure-context.py"))),
            project_hook(&format!("turn_start 60000ms $ {}", py("prompt-guard.py"))),
            project_hook(&format!("turn_start 600000ms $ {}", cmd("prompt-context.sh"))),
            project_hook(&format!("session_start [startup|resume] 600000ms $ {}", cmd("session-notes.sh"))),
            project_hook(&format!("turn_end 60000ms $ {}", py("stop-gate.py"))),
            project_hook(&format!("turn_end+subagent 600000ms $ {} subagent-stop", cmd("log-event.sh"))),
            project_hook(&format!("compaction [auto] 600000ms $ {} compact", cmd("log-event.sh"))),
            project_hook(&format!(
                "foreign:SubagentStart [code-reviewer] 600000ms $ {} subagent-start",
                cmd("log-event.sh")
            )),
            local(&format!("post_tool 600000ms $ {} post-tool", cmd("log-event.sh"))),
            // A `type: "prompt"` hook: a host with a model evaluates it; one without reports it skipped.
            local("turn_end 30000ms model? Did the assistant run the tests? Answer with a JSON decision."),
        ]
    );
    // Every Claude hook follows Claude's protocol and fails open.
    assert!(config.hooks.iter().all(|h| h.decl.protocol == Protocol::Claude && h.decl.on_error == OnError::Ignore));
    assert!(config.hooks.iter().all(|h| h.decl.format == Format::Claude));

    // The two workspace copies of the guard tried to take its id; neither displaced the user's.
    let attempts: Vec<(String, String)> = config
        .shadowed
        .iter()
        .map(|s| (project.relative(&s.kept.decl.source), project.relative(&s.attempted.decl.source)))
        .collect();
    let user_file = "home/.claude/settings.json".to_owned();
    assert_eq!(
        attempts,
        [
            (user_file.clone(), "project/.claude/settings.json".to_owned()),
            (user_file, "project/.claude/settings.local.json".to_owned()),
        ]
    );
    assert!(config.shadowed.iter().all(|s| s.id == config.hooks[1].decl.id));

    let issues: Vec<(IssueSeverity, String, Option<String>, String)> = config
        .issues
        .iter()
        .map(|i| (i.severity, project.relative(&i.source), i.field.clone(), i.message.clone()))
        .collect();
    assert_eq!(
        issues,
        [(
            IssueSeverity::Warning,
            "home/.claude/settings.json".into(),
            Some("hooks[2].timeout".into()),
            "900000 ms is outside the default host limits (100 … 600000 ms); the hook will run with 600000 ms".into(),
        ),]
    );
    let read: Vec<(String, bool, bool)> = config
        .sources
        .iter()
        .filter(|s| s.format == Format::Claude)
        .map(|s| (project.relative(&s.path), s.found, s.read))
        .collect();
    assert_eq!(
        read,
        [
            ("home/.claude/settings.json".into(), true, true),
            ("project/.claude/settings.json".into(), true, true),
            ("project/.claude/settings.local.json".into(), true, true),
        ]
    );
}

#[test]
fn once_trusted_the_highest_precedence_copy_of_an_identical_handler_wins_and_the_others_are_overridden() {
    let project = Project::copy();
    let config = project.load();
    let guard_id = config.hooks[1].decl.id.clone();
    // One id, one trusted fingerprint: trusting the copy that should run (the local file's, with its own timeout)
    // is what `hook trust` records for this id.
    let mut store = hook_config::TrustStore::open(project.root.join("config/trusted.json")).0;
    let local = &config.shadowed.last().unwrap().attempted;
    assert_eq!(local.decl.origin, Origin::ProjectLocal);
    store.trust_hook(&config.workspace, &local.decl, local.fingerprint.as_ref());
    store.save().unwrap();

    let config = project.load();
    let winner = config.get(&guard_id).unwrap();
    assert_eq!((winner.decl.origin, winner.trust), (Origin::ProjectLocal, TrustStatus::Trusted));
    assert_eq!(row(&winner.decl), r#"pre_tool [Bash] 5000ms $ "$CLAUDE_PROJECT_DIR"/hooks/bash-guard.sh"#);
    let losers: Vec<(Origin, Origin)> =
        config.overridden.iter().map(|o| (o.hook.decl.origin, o.winner_origin)).collect();
    assert_eq!(losers, [(Origin::User, Origin::ProjectLocal)]);
    assert_eq!(config.hooks.iter().filter(|h| h.decl.id == guard_id).count(), 1, "it runs once");
}

#[test]
fn inspect_shows_each_hooks_source_format_and_protocol() {
    let project = Project::copy();
    let config = project.load();
    let report = InspectReport::new(&config);
    let root = project.root.display().to_string();
    let json = serde_json::to_string(&report).unwrap().replace(&root, "[tmp]");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    for hook in json["hooks"].as_array().unwrap() {
        assert_eq!((hook["format"].as_str(), hook["protocol"].as_str()), (Some("claude"), Some("claude")), "{hook}");
    }
    insta::assert_json_snapshot!("claude_project_inspect", json);
    let text = report.render_text().replace(&root, "[tmp]");
    // The facts line names the protocol, the source line the file's format.
    assert!(text.contains("    pre_tool · command · claude · dd35c14fd161bbda · FAILS OPEN\n"), "{text}");
    assert!(text.contains("    claude format · [tmp]/home/.claude/settings.json [1]\n"), "{text}");
    insta::assert_snapshot!("claude_project_inspect_text", text);
}
