//! Qwen Code, run offline: its entry point under `node` with `--auth-type openai`, `OPENAI_BASE_URL` pointing at the
//! model server (its OpenAI-compatible provider), an explicit model, `--yolo` and stream-json output. Its user
//! settings turn telemetry, usage statistics and update checks off (without them a headless run waits some
//! 35 seconds on the network it does not have).
//!
//! Wire: each model turn is `POST /v1/chat/completions` with `stream: true`, answered with chat-completion chunks
//! (`data: …`, then `data: [DONE]`); a side call without `stream` gets one completion whose text is a JSON object
//! that satisfies the structured checks it makes.

use std::process::Command;

use serde_json::{Value, json};

use super::agent::{Agent, Approver, Point, Run};
use super::chat::ChatCompletions;
use super::npm::Installed;
use super::process::Sandbox;
use super::server::Wire;

/// Qwen Code.
pub struct Qwen;

/// The model asked for: any name does offline.
const MODEL: &str = "qwen3-coder-plus";

impl Agent for Qwen {
    fn name(&self) -> &'static str {
        "qwen"
    }

    fn suite_seconds(&self) -> u32 {
        159
    }

    fn wire(&self, _approver: Approver) -> Box<dyn Wire> {
        Box::new(ChatCompletions {
            model: MODEL,
            shell_tool: "run_shell_command",
            shell_arguments: |command| json!({"command": command, "is_background": false}),
            side_answer: qwen_side_answer,
        })
    }

    fn configure(&self, sandbox: &Sandbox) -> anyhow::Result<()> {
        let dir = sandbox.home.join(".qwen");
        std::fs::create_dir_all(&dir)?;
        let settings = json!({
            "security": {"auth": {"selectedType": "openai"}},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
        });
        std::fs::write(dir.join("settings.json"), serde_json::to_string_pretty(&settings)?)?;
        Ok(())
    }

    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, _run: Run) -> Command {
        let mut command = sandbox.command("node");
        command
            .env("OPENAI_API_KEY", "offline")
            .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
            .env("OPENAI_MODEL", MODEL)
            .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
            .arg(&installed.qwen)
            .args(["-p", prompt, "--auth-type", "openai", "--yolo", "--output-format", "stream-json"]);
        command
    }

    /// Its ten measuring runs take some two minutes; `cargo xtask agents --agent qwen --measure-only` measures
    /// (last: −106 ms per tool call against its own trivial hook, within the noise of a 12 s run).
    fn measured_by_default(&self) -> bool {
        false
    }

    fn event(&self, point: Point) -> Option<&'static str> {
        Some(match point {
            Point::SessionStart => "SessionStart",
            Point::TurnStart => "UserPromptSubmit",
            Point::PreTool => "PreToolUse",
            Point::PermissionRequest => "PermissionRequest",
            Point::PostTool => "PostToolUse",
            Point::TurnEnd => "Stop",
        })
    }

    fn shell_matcher(&self) -> &'static str {
        "run_shell_command"
    }

    fn settings_file(&self) -> &'static str {
        ".qwen/settings.json"
    }

    fn handler(&self, command: &str) -> Value {
        json!({"type": "command", "command": command, "name": "own-hook"})
    }

    /// Its settings migration stamps `"$version": 4` (`SETTINGS_VERSION`, chunks/chunk-LYEINKJD.js) into a settings
    /// file that lacks it, on the first run.
    fn settings_stamp(&self) -> serde_json::Map<String, Value> {
        let mut stamp = serde_json::Map::new();
        stamp.insert("$version".into(), json!(4));
        stamp
    }

    /// Its `-p` stream-json output ends a run whose prompt a UserPromptSubmit hook blocked with an empty result and
    /// no reason: the `user_prompt_submit_blocked` event is rendered by its interactive UI only ("UserPromptSubmit
    /// operation blocked by hook: …", chunks/chunk-NBWGGZY2.js). It runs a hook's command with `bash -c`.
    fn hides_blocked_prompt(&self) -> Option<&'static str> {
        Some("bash")
    }

    /// The stream-json messages without ids and times (tool results with their text, the assistant's text, the
    /// result's status), and the lines of stderr that speak of hooks.
    fn hook_status(&self, _sandbox: &Sandbox, finished: &super::process::Finished) -> Vec<String> {
        let mut lines = Vec::new();
        for event in finished.events() {
            match event["type"].as_str() {
                Some("user") | Some("assistant") => {
                    for part in event["message"]["content"].as_array().into_iter().flatten() {
                        match part["type"].as_str() {
                            Some("tool_result") => {
                                lines.push(format!("tool_result {} {}", part["is_error"], part["content"]))
                            }
                            Some("text") => lines.push(format!("text {}", part["text"])),
                            _ => {}
                        }
                    }
                }
                Some("result") => lines.push(format!("result {} {}", event["subtype"], event["is_error"])),
                _ => {}
            }
        }
        for line in finished.stderr.lines() {
            if line.to_ascii_lowercase().contains("hook") && !line.trim_start().starts_with("at ") {
                lines.push(format!("stderr {}", line.trim()));
            }
        }
        lines
    }
}

/// One JSON text that every structured side call of Qwen Code accepts (next speaker, loop detection).
fn qwen_side_answer() -> String {
    json!({"next_speaker": "user", "reasoning": "the model answered", "confidence": 0.0}).to_string()
}
