//! Gemini CLI, run offline: its bundled entry point under `node`, with `GOOGLE_GEMINI_BASE_URL` pointing at the
//! model server, `GEMINI_CLI_TRUST_WORKSPACE=true` (it runs project hooks only in a trusted folder), an explicit
//! model (no routing classifier call) and `--approval-mode yolo`.
//!
//! Wire: each model turn is `POST …:streamGenerateContent?alt=sse`; it also sends JSON-mode `…:generateContent`
//! calls (loop detection, next-speaker checks), answered here with one object that satisfies every such schema.

use std::process::Command;

use serde_json::{Value, json};

use super::agent::{Agent, Approver, Point, Run};
use super::npm::Installed;
use super::process::Sandbox;
use super::server::{Reply, Route, Step, Wire};

/// Gemini CLI.
pub struct Gemini;

/// Runs `command` with `answer` on its stdin; fails with its output unless it exits 0.
fn run_answering(mut command: Command, answer: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(answer)?;
    }
    let output = child.wait_with_output()?;
    if !output.status.success() {
        anyhow::bail!(
            "{command:?} exited {}: {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

/// The model asked for: any name does offline; naming one skips the routing classifier.
const MODEL: &str = "gemini-2.5-flash";

impl Agent for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn suite_seconds(&self) -> u32 {
        102
    }

    fn wire(&self, _approver: Approver) -> Box<dyn Wire> {
        Box::new(GenerateContentWire)
    }

    fn configure(&self, sandbox: &Sandbox) -> anyhow::Result<()> {
        let dir = sandbox.home.join(".gemini");
        std::fs::create_dir_all(&dir)?;
        let settings = json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
        });
        std::fs::write(dir.join("settings.json"), serde_json::to_string_pretty(&settings)?)?;
        Ok(())
    }

    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, _run: Run) -> Command {
        let mut command = sandbox.command("node");
        command
            .env("GEMINI_API_KEY", "offline")
            .env("GOOGLE_GEMINI_BASE_URL", format!("http://127.0.0.1:{port}"))
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            .env("GEMINI_TELEMETRY_ENABLED", "false")
            .arg(&installed.gemini)
            .args(["-m", MODEL, "-p", prompt, "--approval-mode", "yolo", "--output-format", "stream-json"]);
        command
    }

    fn event(&self, point: Point) -> Option<&'static str> {
        Some(match point {
            Point::SessionStart => "SessionStart",
            Point::TurnStart => "BeforeAgent",
            Point::PreTool => "BeforeTool",
            Point::PermissionRequest => return None,
            Point::PostTool => "AfterTool",
            Point::TurnEnd => "AfterAgent",
        })
    }

    fn shell_matcher(&self) -> &'static str {
        "run_shell_command"
    }

    /// `gemini extensions install <repository>/plugins/gemini --consent`, answering its folder-trust question yes.
    fn install_plugin(&self, installed: &Installed, sandbox: &Sandbox) -> Option<anyhow::Result<()>> {
        let extension = crate::workspace_root().join("plugins/gemini");
        let mut command = sandbox.command("node");
        command.arg(&installed.gemini).args(["extensions", "install"]).arg(extension).arg("--consent");
        Some(run_answering(command, b"y\n"))
    }

    fn settings_file(&self) -> &'static str {
        ".gemini/settings.json"
    }

    fn handler(&self, command: &str) -> Value {
        json!({"type": "command", "command": command, "name": "own-hook"})
    }

    /// The stream-json events without times and ids (tool results with their status and output, the
    /// assistant's messages, the result's status), and the lines of stderr that speak of hooks.
    fn hook_status(&self, _sandbox: &Sandbox, finished: &super::process::Finished) -> Vec<String> {
        let mut lines = Vec::new();
        for event in finished.events() {
            match event["type"].as_str() {
                Some("tool_result") => {
                    lines.push(format!("tool_result {} {} {}", event["status"], event["output"], event["error"]))
                }
                Some("message") if event["role"] == "assistant" => lines.push(format!("message {}", event["content"])),
                Some("result") => lines.push(format!("result {} {}", event["status"], event["error"])),
                Some("error") => lines.push(format!("error {}", event["message"])),
                _ => {}
            }
        }
        for line in finished.stderr.lines() {
            let lower = line.to_ascii_lowercase();
            if (lower.contains("hook") || line.contains("CASE-")) && !line.trim_start().starts_with("at ") {
                lines.push(format!("stderr {}", line.trim()));
            }
        }
        lines
    }
}

/// The Gemini API's `generateContent`, streamed and not.
struct GenerateContentWire;

impl Wire for GenerateContentWire {
    fn route(&self, method: &str, path: &str, _body: &Value) -> Route {
        if method != "POST" {
            return Route::Reply(Reply::error(404, "not here"));
        }
        if path.contains(":streamGenerateContent") {
            return Route::Turn;
        }
        if path.contains(":countTokens") {
            return Route::Reply(Reply::json(&json!({"totalTokens": 100})));
        }
        if path.contains(":generateContent") {
            // One JSON text that every structured side call accepts: loop detection, next speaker, routing.
            let answer = json!({
                "unproductive_state_analysis": "no loop", "unproductive_state_confidence": 0.0,
                "reasoning": "the model answered", "next_speaker": "user",
                "complexity_reasoning": "simple", "complexity_score": 1, "model_choice": "flash",
            });
            return Route::Reply(Reply::json(&candidate(json!([{"text": answer.to_string()}]))));
        }
        Route::Reply(Reply::error(404, "not here"))
    }

    fn turn(&self, step: &Step, _turn: usize) -> Reply {
        let parts = match step {
            Step::Shell(command) | Step::Escalated(command) => {
                json!([{"functionCall": {"name": "run_shell_command", "args": {"command": command}}}])
            }
            Step::Text(text) => json!([{"text": text}]),
        };
        Reply::sse(format!("data: {}\r\n\r\n", candidate(parts)))
    }
}

fn candidate(parts: Value) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
    })
}
