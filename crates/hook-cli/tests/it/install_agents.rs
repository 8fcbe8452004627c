//! `hook install`, the bridge and `hook uninstall` for each agent, end to end: a project with hooks in the agent's
//! own configuration; `install --yes`; the agent's own hook input fed on stdin to the command install wrote into the
//! agent's file, run as the agent runs it (`sh -c`, the project as working directory, the agent's variables); the
//! answers the agent expects for deny, ask, allow, context, a Stop continuation and a crashed hook; then `uninstall`
//! giving the original files back byte for byte.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Env, Out};
use serde_json::{Value, json};

/// One agent's fixture and the names it uses.
struct Agent {
    name: &'static str,
    /// Its configuration file in the fixture.
    file: &'static str,
    /// The variable it sets to the project for its hooks.
    project_var: Option<&'static str>,
    /// Its event names: a tool gate, the prompt, the end of a turn, the session start.
    gate: &'static str,
    prompt: &'static str,
    stop: &'static str,
    start: &'static str,
    /// The name its shell tool has.
    shell_tool: &'static str,
}

const CLAUDE: Agent = Agent {
    name: "claude",
    file: ".claude/settings.json",
    project_var: Some("CLAUDE_PROJECT_DIR"),
    gate: "PreToolUse",
    prompt: "UserPromptSubmit",
    stop: "Stop",
    start: "SessionStart",
    shell_tool: "Bash",
};
const CODEX: Agent = Agent {
    name: "codex",
    file: ".codex/hooks.json",
    project_var: None,
    gate: "PreToolUse",
    prompt: "UserPromptSubmit",
    stop: "Stop",
    start: "SessionStart",
    shell_tool: "Bash",
};
const GEMINI: Agent = Agent {
    name: "gemini",
    file: ".gemini/settings.json",
    project_var: Some("GEMINI_PROJECT_DIR"),
    gate: "BeforeTool",
    prompt: "BeforeAgent",
    stop: "AfterAgent",
    start: "SessionStart",
    shell_tool: "run_shell_command",
};
const CURSOR: Agent = Agent {
    name: "cursor",
    file: ".cursor/hooks.json",
    project_var: Some("CURSOR_PROJECT_DIR"),
    gate: "preToolUse",
    prompt: "beforeSubmitPrompt",
    stop: "stop",
    start: "sessionStart",
    shell_tool: "Shell",
};

/// An installed project: the environment and the bridge command install wrote.
struct Installed {
    env: Env,
    agent: &'static Agent,
    command: String,
}

/// What the bridge answered.
#[derive(Debug)]
struct Answer {
    code: i32,
    /// stdout as JSON, when it is JSON.
    stdout: Option<Value>,
    /// stdout as written (a lone hook's own plain text, handed back).
    text: String,
    stderr: String,
}

impl Installed {
    /// The agent's hook input for `event` with `fields`, the way the agent writes it.
    fn input(&self, event: &str, fields: Value) -> Value {
        let ws = self.env.ws.display().to_string();
        let mut input = match self.agent.name {
            "cursor" => json!({"hook_event_name": event, "conversation_id": "conv-1", "generation_id": "gen-1",
                "workspace_roots": [ws]}),
            _ => {
                json!({"hook_event_name": event, "session_id": "sess-1", "transcript_path": "/tmp/t.jsonl", "cwd": ws})
            }
        };
        input.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        input
    }

    /// A call of the agent's shell tool running `command`.
    fn shell(&self, command: &str) -> Answer {
        let fields = json!({"tool_name": self.agent.shell_tool, "tool_input": {"command": command}});
        self.call(&self.input(self.agent.gate, fields))
    }

    /// Runs the bridge command the way the agent runs a hook, with `input` on stdin.
    fn call(&self, input: &Value) -> Answer {
        let out = self.env.run_as_agent(&self.command, self.agent.project_var, input.to_string().as_bytes());
        let stdout = &out.stdout;
        Answer {
            code: out.code,
            stdout: stdout.trim_start().starts_with('{').then(|| {
                assert!(!stdout.trim_end().contains('\n'), "one line of JSON: {stdout}");
                serde_json::from_str(stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}"))
            }),
            text: stdout.clone(),
            stderr: out.stderr,
        }
    }
}

/// Installs the bridge for `agent` into a copy of its fixture, checking what install reports and wrote; returns
/// the installed project and the fixture's original files.
fn install(agent: &'static Agent) -> (Installed, Vec<(PathBuf, Vec<u8>)>) {
    let env = Env::new(&format!("tests/fixtures/install/{}", agent.name));
    let originals: Vec<(PathBuf, Vec<u8>)> = [agent.file, ".hooks/hooks.yaml"]
        .iter()
        .map(|f| (env.ws.join(f), std::fs::read(env.ws.join(f)).unwrap()))
        .collect();
    let out = env.hook(&["install", "--agent", agent.name, "--yes", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let report = out.json();
    assert_eq!((report["version"].as_i64(), report["changed"].as_bool()), (Some(1), Some(true)), "{report:#}");
    let moved: Vec<&str> = report["moved"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    let trusted: Vec<&str> = report["trusted"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(moved.len(), 3, "the guard, the context and the stop hooks move: {report:#}");
    assert_eq!(trusted, moved, "exactly the moved hooks are trusted");
    assert!(report["kept"].as_array().unwrap().is_empty(), "{report:#}");
    // Fingerprints cover canonical file paths, which a temp workspace changes.
    insta::assert_yaml_snapshot!(format!("install_{}", agent.name), report, { ".moved[].fingerprint" => "[fingerprint]" });

    let written_bytes = std::fs::read(env.ws.join(agent.file)).unwrap();
    let written: Value = serde_json::from_slice(&written_bytes).unwrap();
    let command = bridge_command(agent, &written);
    assert!(command.contains(&format!(" bridge --protocol {}", agent.name)), "{command}");
    let installed = Installed { env, agent, command };

    // A second run finds everything done and writes nothing.
    let again = installed.env.hook(&["install", "--agent", agent.name, "--yes"]);
    assert_eq!(again.code, 0, "{again:#?}");
    assert!(again.stdout.contains("nothing to do"), "{again:#?}");
    assert_eq!(std::fs::read(installed.env.ws.join(agent.file)).unwrap(), written_bytes, "unchanged by a second run");
    (installed, originals)
}

/// The bridge command under the agent's end-of-turn event, and the same under every other event written: bare on an
/// observer, inside the fail-closed wrapper on a gate.
fn bridge_command(agent: &Agent, written: &Value) -> String {
    let hooks = written["hooks"].as_object().unwrap();
    let command_of = |entry: &Value| -> String {
        let handler = if agent.name == "cursor" { entry } else { &entry["hooks"][0] };
        handler["command"].as_str().unwrap().to_owned()
    };
    let bare = command_of(&hooks[agent.stop][0]);
    let guarded = command_of(&hooks[agent.gate][0]);
    let wrapped = |command: &str| {
        command.contains(&format!(" {bare} <&3 3<&- & hook_bridge_pid=$!;")) && command.contains("the call is blocked")
    };
    assert!(wrapped(&guarded), "{guarded}");
    for (event, entries) in hooks {
        let entries = entries.as_array().unwrap();
        assert_eq!(entries.len(), 1, "{event}: only the bridge is left: {entries:?}");
        let command = command_of(&entries[0]);
        assert!(command == bare || wrapped(&command), "{event}: {command}");
    }
    for event in [agent.prompt, agent.stop, agent.start] {
        assert!(hooks.contains_key(event), "the bridge is on {event}");
    }
    bare
}

/// Uninstalls and checks the fixture's files are back byte for byte and nothing install made is left.
fn uninstall(installed: &Installed, originals: &[(PathBuf, Vec<u8>)]) {
    let out = installed.env.hook(&["uninstall", "--agent", installed.agent.name]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("restored"), "{out:#?}");
    for (path, original) in originals {
        assert_eq!(&std::fs::read(path).unwrap(), original, "{} is back as it was", path.display());
    }
    let cfg = installed.env.config_home();
    assert!(!cfg.join("installs.json").exists() && !cfg.join("trusted.json").exists(), "{:?}", ls(&cfg));
    let again = installed.env.hook(&["uninstall", "--agent", installed.agent.name]);
    assert!(again.stdout.contains("nothing to uninstall"), "{again:#?}");
}

fn ls(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

fn expect(answer: &Answer, code: i32, stdout: Option<Value>) {
    assert_eq!((answer.code, &answer.stdout), (code, &stdout), "{answer:#?}");
    assert_eq!(answer.stderr, "", "nothing else is said");
}

#[test]
fn claude_code_gets_its_own_answers_through_the_bridge_and_its_file_back_on_uninstall() {
    let (project, originals) = install(&CLAUDE);
    let decision = |word: &str, reason: &str| {
        Some(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": word,
            "permissionDecisionReason": reason}}))
    };
    expect(&project.shell("rm -rf /"), 0, decision("deny", "rm -rf is not allowed in this project"));
    expect(&project.shell("git push origin main"), 0, decision("ask", "a push leaves this machine"));
    let deploy = project.call(&project.input("PreToolUse", json!({"tool_name": "Deploy", "tool_input": {}})));
    expect(&deploy, 0, decision("ask", "deploys need a human"));
    expect(&project.shell("ls -la"), 0, decision("allow", "listing is read-only"));
    expect(&project.shell("echo hello"), 0, None);
    // The one hook that ran is Claude Code's own: its plain text is handed back, and Claude Code makes it context
    // in its own words.
    let context = project.call(&project.input("UserPromptSubmit", json!({"prompt": "fix the bug"})));
    assert_eq!((context.code, context.text.as_str()), (0, "The tests live in t/; run them with make test.\n"));
    let stop = project.call(&project.input("Stop", json!({"stop_hook_active": false})));
    expect(&stop, 0, Some(json!({"decision": "block", "reason": "run the tests before you stop"})));
    expect(&project.call(&project.input("Stop", json!({"stop_hook_active": true}))), 0, None);
    // Claude Code hooks fail open: the crashed guard's own exit 137 (its shell's, after SIGKILL) is a non-blocking
    // error by Claude Code's rules, so the call runs, as it does for its own hook; the bridge says so in its
    // answer with status 0, since on a gate it never exits 1 (the installed handler reads 1 as the bridge failing).
    let crash = project.shell("crash now");
    assert_eq!(crash.code, 0, "{crash:#?}");
    let message = crash.stdout.as_ref().and_then(|o| o["systemMessage"].as_str()).unwrap_or_default();
    assert!(message.contains("exited with code 137 (a non-blocking error)"), "{crash:#?}");
    uninstall(&project, &originals);
}

#[test]
fn codex_gets_its_own_answers_and_an_ask_becomes_a_deny_saying_approval_is_required() {
    let (project, originals) = install(&CODEX);
    let deny = |reason: &str| {
        Some(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": reason}}))
    };
    // The guard is Codex's own and ran alone: its exit 2 with the reason on stderr is handed back as it was.
    let rm = project.shell("rm -rf /");
    assert_eq!((rm.code, &rm.stdout, rm.stderr.as_str()), (2, &None, "rm -rf is not allowed in this project\n"));
    let deploy = project.call(&project.input("PreToolUse", json!({"tool_name": "Deploy", "tool_input": {}})));
    expect(&deploy, 0, deny("approval is required and this agent cannot ask for it here: deploys need a human"));
    // Codex has no allow that skips its approval: a hook that lets the call through says nothing.
    expect(&project.shell("ls -la"), 0, None);
    let context = project.call(&project.input("UserPromptSubmit", json!({"prompt": "fix the bug"})));
    expect(
        &context,
        0,
        Some(json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
        "additionalContext": "The tests live in t/; run them with make test."}})),
    );
    let stop = project.call(&project.input("Stop", json!({"stop_hook_active": false})));
    expect(&stop, 0, Some(json!({"decision": "block", "reason": "run the tests before you stop"})));
    // Codex hooks fail open: the crashed guard's exit 137 lets the call run, as Codex does for its own hook; the
    // bridge answers 0 with the failure in its message (on a gate it never exits 1, which the handler denies).
    let crash = project.shell("crash now");
    assert_eq!(crash.code, 0, "{crash:#?}");
    let message = crash.stdout.as_ref().and_then(|o| o["systemMessage"].as_str()).unwrap_or_default();
    assert!(message.contains("exited with undefined code 137"), "{crash:#?}");
    uninstall(&project, &originals);
}

#[test]
fn gemini_cli_gets_its_own_answers_through_the_bridge_and_its_file_back_on_uninstall() {
    let (project, originals) = install(&GEMINI);
    expect(
        &project.shell("rm -rf /"),
        0,
        Some(json!({"decision": "deny", "reason": "rm -rf is not allowed in this project"})),
    );
    let deploy = project.call(&project.input("BeforeTool", json!({"tool_name": "Deploy", "tool_input": {}})));
    expect(
        &deploy,
        0,
        Some(json!({"decision": "deny",
            "reason": "approval is required and this agent cannot ask for it here: deploys need a human"})),
    );
    // Gemini CLI's own guard ran alone: its `allow` (which skips nothing there) is handed back as it was.
    expect(&project.shell("ls -la"), 0, Some(json!({"decision": "allow"})));
    let context = project.call(&project.input("BeforeAgent", json!({"prompt": "fix the bug"})));
    expect(
        &context,
        0,
        Some(json!({"hookSpecificOutput": {"hookEventName": "BeforeAgent",
        "additionalContext": "The tests live in t/; run them with make test."}})),
    );
    let stop = project.call(&project.input(
        "AfterAgent",
        json!({"prompt": "fix it", "prompt_response": "done",
        "stop_hook_active": false}),
    ));
    expect(&stop, 0, Some(json!({"decision": "deny", "reason": "run the tests before you stop"})));
    // Gemini CLI 0.61.0 reads stderr when stdout is empty and denies from exit 2 up: the crashed guard's exit 137
    // with its shell's "Killed" blocks the call natively, and is handed back as the blocking 2 with the same text.
    let crash = project.shell("crash now");
    assert_eq!((crash.code, &crash.stdout), (2, &None), "{crash:#?}");
    assert!(crash.stderr.contains("Killed"), "the shell's word for SIGKILL, Gemini CLI's deny reason: {crash:#?}");
    uninstall(&project, &originals);
}

#[test]
fn cursor_gets_its_own_answers_and_a_fail_closed_hook_that_crashes_denies() {
    let (project, originals) = install(&CURSOR);
    let both = |permission: &str, message: &str| {
        Some(json!({"permission": permission, "user_message": message, "agent_message": message}))
    };
    expect(&project.shell("rm -rf /"), 0, both("deny", "rm -rf is not allowed in this project"));
    expect(&project.shell("git push origin main"), 0, both("ask", "a push leaves this machine"));
    let deploy = project.call(&project.input("preToolUse", json!({"tool_name": "Deploy", "tool_input": {}})));
    expect(&deploy, 0, both("ask", "deploys need a human"));
    expect(&project.shell("ls -la"), 0, Some(json!({"permission": "allow"})));
    // The per-tool event Cursor also sends reaches the same hook.
    let per_tool = project.call(&project.input("beforeShellExecution", json!({"command": "rm -rf /", "cwd": "/"})));
    expect(&per_tool, 0, both("deny", "rm -rf is not allowed in this project"));
    let context = project.call(&project.input("sessionStart", json!({})));
    expect(&context, 0, Some(json!({"additional_context": "The tests live in t/; run them with make test."})));
    let stop = project.call(&project.input("stop", json!({"status": "completed", "loop_count": 0})));
    expect(&stop, 0, Some(json!({"followup_message": "run the tests before you stop"})));
    // `failClosed: true`: this hook's own rule makes its crash a deny.
    let crash = project.shell("crash now");
    assert_eq!(crash.code, 0, "{crash:#?}");
    let out = crash.stdout.as_ref().unwrap();
    assert_eq!(out["permission"], "deny", "{crash:#?}");
    assert!(out["user_message"].as_str().unwrap().contains("exited with undefined code 137"), "{crash:#?}");
    uninstall(&project, &originals);
}

#[test]
fn install_without_yes_on_a_non_terminal_refuses_and_changes_nothing() {
    let env = Env::new("tests/fixtures/install/claude");
    let before = snapshot_tree(&env.ws);
    let out: Out = env.hook(&["install", "--agent", "claude"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stderr.contains("not installing without confirmation"), "{out:#?}");
    assert!(out.stdout.contains("claude.command."), "the hooks were shown: {out:#?}");
    assert_eq!(snapshot_tree(&env.ws), before, "the workspace is untouched");
    assert!(ls(&env.config_home()).is_empty(), "no trust, no record: {:?}", ls(&env.config_home()));
}

#[test]
fn codex_has_no_local_scope_and_says_which_to_use() {
    let env = Env::new("tests/fixtures/install/codex");
    let out = env.hook(&["install", "--agent", "codex", "--scope", "local", "--yes"]);
    common::assert_one_line_error(&out, "Codex has no local configuration file; use --scope project or --scope user");
}

/// Every file under `dir` with its bytes, sorted.
fn snapshot_tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                out.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}
