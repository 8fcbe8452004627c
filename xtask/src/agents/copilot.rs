//! GitHub Copilot CLI, run offline: its single executable (`@github/copilot-linux-x64`) in prompt mode with
//! `COPILOT_OFFLINE=true` and a custom model provider on 127.0.0.1 (`COPILOT_PROVIDER_BASE_URL`, OpenAI Chat
//! Completions by default), which needs no GitHub login (its bundled `cli-main.js`, help topic "providers"). Prompt
//! mode loads a repository's hooks only in a trusted folder or with `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true`,
//! which the runs set. The executable unpacks itself into `$XDG_CACHE_HOME/copilot/pkg` on its first run (some 7 s
//! and 235 MB): every run shares one cache beside the installed package.
//!
//! Wire: each model turn is `POST /v1/chat/completions` with `stream: true`, answered with chat-completion chunks;
//! its shell tool is `bash` (`{"command", "description"}`).
//!
//! Its hook files are a directory (`.github/hooks/*.json`) of flat handlers; the agent's own hooks are written into
//! the file `hook install` writes, `.github/hooks/hook-engine.json`, so that install finds them there to move.

use std::process::Command;

use serde_json::{Value, json};

use super::agent::{Agent, Approver, Point, Run};
use super::chat::ChatCompletions;
use super::npm::Installed;
use super::process::Sandbox;
use super::server::Wire;

/// GitHub Copilot CLI.
pub struct Copilot;

/// The model asked for: any name does offline (an unknown one gets Copilot's safe defaults).
const MODEL: &str = "gpt-4.1";

impl Agent for Copilot {
    fn name(&self) -> &'static str {
        "copilot"
    }

    fn wire(&self, _approver: Approver) -> Box<dyn Wire> {
        Box::new(ChatCompletions {
            model: MODEL,
            shell_tool: "bash",
            shell_arguments: |command| json!({"command": command, "description": "run it"}),
            side_answer: super::chat::ok,
        })
    }

    /// A git repository: Copilot reads `.github/hooks` at the repository root.
    fn configure(&self, sandbox: &Sandbox) -> anyhow::Result<()> {
        let status = sandbox.command("git").args(["init", "-q"]).status()?;
        anyhow::ensure!(status.success(), "git init failed in the sandbox");
        Ok(())
    }

    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, _run: Run) -> Command {
        let mut command = sandbox.command(&installed.copilot);
        let cache = installed.copilot.with_file_name("xdg-cache");
        command
            .env("XDG_CACHE_HOME", cache)
            .env("COPILOT_OFFLINE", "true")
            .env("COPILOT_PROVIDER_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
            .env("COPILOT_PROVIDER_API_KEY", "offline")
            .env("COPILOT_MODEL", MODEL)
            .env("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS", "true")
            .args(["-p", prompt, "--allow-all-tools"]);
        command
    }

    fn event(&self, point: Point) -> Option<&'static str> {
        point.table_name(hook_types::Protocol::Copilot)
    }

    fn shell_matcher(&self) -> &'static str {
        "bash"
    }

    fn settings_file(&self) -> &'static str {
        ".github/hooks/hook-engine.json"
    }

    /// A deny in its JSON: on exit 2 Copilot tells the model only "hook exited with code 2".
    fn own_deny(&self) -> Option<&'static str> {
        Some(
            "cat >/dev/null; echo '{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"BASELINE-7431 refused by the \
             agent hook\"}'",
        )
    }

    /// Copilot drops a command hook's answer on userPromptSubmitted (its hooks reference, "userPromptSubmitted").
    fn context_on_turn_start(&self) -> bool {
        false
    }

    fn handler(&self, command: &str) -> Value {
        json!({"type": "command", "bash": command})
    }

    /// `{"version": 1, "hooks": {event: [handler]}}`, a matcher inside its handler.
    fn own_hooks_file(&self, hooks: Vec<(&'static str, Option<&str>, Value)>) -> Option<Value> {
        let mut events = serde_json::Map::new();
        for (name, matcher, mut handler) in hooks {
            if let Some(matcher) = matcher {
                handler["matcher"] = json!(matcher);
            }
            if let Some(list) = events.entry(name).or_insert_with(|| json!([])).as_array_mut() {
                list.push(handler);
            }
        }
        Some(json!({"version": 1, "hooks": events}))
    }

    /// Its lines that speak of hooks: a denied tool's reason and the warnings it shows (`! …`).
    fn hook_status(&self, _sandbox: &Sandbox, finished: &super::process::Finished) -> Vec<String> {
        let lines = finished.stdout.iter().map(String::as_str).chain(finished.stderr.lines());
        lines
            .map(str::trim)
            .filter(|l| l.to_ascii_lowercase().contains("hook") || l.starts_with('!'))
            .map(str::to_owned)
            .collect()
    }
}
