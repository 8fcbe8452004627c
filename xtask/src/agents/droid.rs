//! Factory Droid, run offline: its native binary (`@factory/cli-linux-x64`) as `droid exec` with a custom model
//! (`customModels` in `~/.factory/settings.json`: provider `generic-chat-completion-api`, its `baseUrl` the model
//! server on 127.0.0.1), which needs no `droid login`, and `FACTORY_AIRGAP_ENABLED=true`, which keeps it off
//! api.factory.ai and its telemetry. `--auto high` lets its shell tool run without an approver; `droid exec` runs a
//! project's hooks (`.factory/settings.json`) with no folder-trust step. A run takes about a second.
//!
//! Wire: each model turn is `POST /v1/chat/completions` with `stream: true`, answered with chat-completion chunks;
//! its shell tool is `Execute` (`{"command", "riskLevelReason", "riskLevel"}`).

use std::process::Command;

use serde_json::json;

use super::agent::{Agent, Approver, Point, Run};
use super::chat::ChatCompletions;
use super::npm::Installed;
use super::process::Sandbox;
use super::server::Wire;

/// Factory Droid.
pub struct Droid;

/// The model the server answers as; Droid names a custom model `custom:<displayName>-<index>`.
const MODEL: &str = "stub-model";

impl Agent for Droid {
    fn name(&self) -> &'static str {
        "droid"
    }

    fn wire(&self, _approver: Approver) -> Box<dyn Wire> {
        Box::new(ChatCompletions {
            model: MODEL,
            shell_tool: "Execute",
            // Droid rejects an Execute call without its risk classification.
            shell_arguments: |command| json!({"command": command, "riskLevelReason": "it touches one file", "riskLevel": "low"}),
            side_answer: super::chat::ok,
        })
    }

    fn configure(&self, sandbox: &Sandbox) -> anyhow::Result<()> {
        std::fs::create_dir_all(sandbox.home.join(".factory"))?;
        Ok(())
    }

    /// Writes the user settings with the server's port (its custom model's `baseUrl`), then the command; with `ui`, its
    /// stream-json output (tool calls and results, which its text output leaves out).
    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, run: Run) -> Command {
        let settings = json!({"customModels": [{
            "model": MODEL, "displayName": "Stub", "baseUrl": format!("http://127.0.0.1:{port}/v1"),
            "apiKey": "sk-offline", "provider": "generic-chat-completion-api", "maxOutputTokens": 1024,
        }]});
        let path = sandbox.home.join(".factory/settings.json");
        if let Err(err) = std::fs::write(&path, settings.to_string()) {
            eprintln!("droid: cannot write {}: {err}", path.display());
        }
        let mut command = sandbox.command(&installed.droid);
        command.env("FACTORY_AIRGAP_ENABLED", "true").args(["exec", "-m", "custom:Stub-0", "--auto", "high", prompt]);
        if run.ui {
            command.args(["--output-format", "stream-json"]);
        }
        command
    }

    /// What `droid exec` 0.225.2 cannot show, each found by running it here.
    fn skips(&self, scenario: &str) -> Option<&'static str> {
        match scenario {
            "context" => Some(
                "droid exec fires no UserPromptSubmit, so no turn_start context can reach its model; \
                 session_context checks its SessionStart context alone",
            ),
            "notice_baseline" | "untrusted" => {
                Some("droid exec shows no hook's `systemMessage`, in neither its text nor its stream-json output")
            }
            _ => None,
        }
    }

    fn event(&self, point: Point) -> Option<&'static str> {
        point.table_name(hook_types::Protocol::Droid)
    }

    fn shell_matcher(&self) -> &'static str {
        "Execute"
    }

    fn settings_file(&self) -> &'static str {
        ".factory/settings.json"
    }

    /// Its lines that speak of hooks.
    fn hook_status(&self, _sandbox: &Sandbox, finished: &super::process::Finished) -> Vec<String> {
        let lines = finished.stdout.iter().map(String::as_str).chain(finished.stderr.lines());
        lines.map(str::trim).filter(|l| l.to_ascii_lowercase().contains("hook")).map(str::to_owned).collect()
    }
}
