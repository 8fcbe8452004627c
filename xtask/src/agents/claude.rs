//! Claude Code, run offline: its native binary with `ANTHROPIC_BASE_URL` pointing at the model server, in print
//! mode (`-p … --output-format stream-json`) or in SDK mode (`--input-format stream-json --permission-prompt-tool
//! stdio`, the harness acting as the approver; only there does `PermissionRequest` fire).
//!
//! In SDK mode Claude Code runs the `PermissionRequest` hooks and sends the approver its `can_use_tool` request
//! at the same time, and takes whichever answers first (a hook's decision cancels the request with a
//! `control_cancel_request`). The harness's approver therefore answers after [`APPROVER_DELAY`], so that a hook
//! that decides does so first, and counts as asked only the requests that were not cancelled.
//!
//! Wire: it sends `HEAD /`, then `POST /v1/messages?beta=true` with `stream: true` per model turn, answered here
//! with Messages API server-sent events.

use std::process::Command;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use serde_json::{Value, json};

use super::agent::{Agent, Approver, Conversation, Point, Run};
use super::npm::Installed;
use super::process::{Reaction, Sandbox};
use super::server::{Reply, Route, Step, Wire};

/// Claude Code.
pub struct Claude;

/// How long the approver takes to answer: well past a bridge's run, so that a `PermissionRequest` hook that
/// decides wins the race.
const APPROVER_DELAY: std::time::Duration = std::time::Duration::from_secs(4);

impl Agent for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn suite_seconds(&self) -> u32 {
        43
    }

    fn wire(&self, _approver: Approver) -> Box<dyn Wire> {
        Box::new(MessagesWire)
    }

    fn configure(&self, sandbox: &Sandbox) -> anyhow::Result<()> {
        std::fs::create_dir_all(sandbox.home.join(".claude"))?;
        Ok(())
    }

    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, run: Run) -> Command {
        let mut command = offline(installed, sandbox);
        command
            .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
            .env("ANTHROPIC_API_KEY", "sk-ant-offline")
            .args(["--output-format", "stream-json", "--verbose"]);
        if run.ui {
            // Print mode shows no hook's message; the hook events are what an SDK host shows its user.
            command.arg("--include-hook-events");
        }
        match run.approver {
            Approver::Preapproved => {
                command.args(["-p", prompt, "--allowedTools", "Bash"]);
            }
            Approver::Answers(_) => {
                command.args(["-p", "--input-format", "stream-json", "--permission-prompt-tool", "stdio"]);
            }
            Approver::PreapprovedAnswers(_) => {
                command.args(["-p", "--input-format", "stream-json", "--permission-prompt-tool", "stdio"]);
                command.args(["--allowedTools", "Bash"]);
            }
        }
        command
    }

    fn conversation(&self, _sandbox: &Sandbox, prompt: &str, run: Run) -> Option<Conversation> {
        let allow = match run.approver {
            Approver::Preapproved => return None,
            Approver::Answers(allow) | Approver::PreapprovedAnswers(allow) => allow,
        };
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&asked);
        let user = json!({
            "type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": prompt}]},
            "parent_tool_use_id": null,
            "session_id": "",
        });
        let talk = move |line: &str| -> Reaction {
            let Ok(event) = serde_json::from_str::<Value>(line) else { return Reaction::None };
            let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
            match event["type"].as_str() {
                Some("result") => Reaction::Close,
                Some("control_request") if event["request"]["subtype"] == "can_use_tool" => {
                    let tool = event["request"]["tool_name"].as_str().unwrap_or("?").to_owned();
                    seen.push((event["request_id"].as_str().unwrap_or("").to_owned(), tool));
                    let decision = if allow {
                        json!({"behavior": "allow", "updatedInput": event["request"]["input"]})
                    } else {
                        json!({"behavior": "deny", "message": "APPROVER-DENIED the tool call"})
                    };
                    Reaction::Later(APPROVER_DELAY, control_response(&event, decision).to_string())
                }
                Some("control_cancel_request") => {
                    seen.retain(|(id, _)| event["request_id"] != id.as_str());
                    Reaction::None
                }
                Some("control_request") => Reaction::Write(control_response(&event, json!({})).to_string()),
                _ => Reaction::None,
            }
        };
        Some(Conversation { first: vec![user.to_string()], talk: Box::new(talk), asked })
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
        "Bash"
    }

    fn install_plugin(&self, installed: &Installed, sandbox: &Sandbox) -> Option<anyhow::Result<()>> {
        Some(install_plugin(installed, sandbox))
    }

    fn settings_file(&self) -> &'static str {
        ".claude/settings.json"
    }

    fn scan_noise(&self) -> &'static [(&'static str, &'static [&'static str], &'static str)] {
        &[
            (
                "events",
                &["StatusLine", "FileSuggestion"],
                "Claude Code lists its statusLine and fileSuggestion commands with the events whose hooks run \
                 outside a trusted workspace; they are settings that run a command, not hook events",
            ),
            (
                "decisions",
                &[
                    "environment",
                    "hard_deny",
                    "soft_deny",
                    "invalid",
                    "output",
                    "tool_failed",
                    "not_now",
                    "error",
                    "off",
                ],
                "the outcomes of Claude Code's auto-mode classifier and of its permission prompt, and a bundled \
                 linter's severities, in lists beside `allow` and `deny`; no hook answers with them",
            ),
        ]
    }

    /// The hook attachments of the session transcript (what its UI renders: `hook_success`,
    /// `hook_non_blocking_error`, `hook_blocking_error`, …, with their event and content; not the raw output),
    /// the stream's system notices, and the result.
    fn hook_status(&self, sandbox: &Sandbox, finished: &super::process::Finished) -> Vec<String> {
        let mut lines = Vec::new();
        for line in transcript_lines(&sandbox.home.join(".claude/projects")) {
            let attachment = &line["attachment"];
            let kind = attachment["type"].as_str().unwrap_or("");
            if line["type"] == "attachment" && kind.starts_with("hook") {
                let mut shown = attachment.clone();
                if let Some(map) = shown.as_object_mut() {
                    for raw in ["stdout", "stderr", "command", "durationMs", "exitCode", "toolUseID", "hookName"] {
                        map.remove(raw);
                    }
                }
                lines.push(format!("attachment {shown}"));
            }
        }
        for event in finished.events() {
            match (event["type"].as_str(), event["subtype"].as_str()) {
                (Some("system"), Some("init" | "hook_started" | "hook_response")) => {}
                (Some("system"), Some(subtype)) => lines.push(format!("system {subtype} {}", event["message"])),
                (Some("result"), subtype) => lines.push(format!(
                    "result {} error={} stop={} {}",
                    subtype.unwrap_or(""),
                    event["is_error"],
                    event["stop_reason"],
                    event["result"]
                )),
                _ => {}
            }
        }
        lines
    }
}

/// Claude Code in the sandbox, with its configuration there and no traffic of its own.
fn offline(installed: &Installed, sandbox: &Sandbox) -> Command {
    let mut command = sandbox.command(&installed.claude);
    command
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CONFIG_DIR", sandbox.home.join(".claude"));
    command
}

/// Installs the repository's Claude Code plugin as the install page tells a user to, in the sandbox's Claude Code
/// configuration: `claude plugin marketplace add <repository>` (its `.claude-plugin/marketplace.json`), then
/// `claude plugin install <plugin>@<marketplace>` (`cargo xtask plugins` writes both).
fn install_plugin(installed: &Installed, sandbox: &Sandbox) -> anyhow::Result<()> {
    let repository = crate::workspace_root();
    let plugin = format!("{}@{}", crate::plugins::PLUGIN, crate::plugins::MARKETPLACE);
    let steps: [Vec<std::ffi::OsString>; 2] = [
        vec!["plugin".into(), "marketplace".into(), "add".into(), repository.into()],
        vec!["plugin".into(), "install".into(), plugin.into()],
    ];
    for args in steps {
        let output = offline(installed, sandbox)
            .args(&args)
            .stdin(std::process::Stdio::null())
            .output()
            .context("cannot run claude")?;
        if !output.status.success() {
            anyhow::bail!(
                "`claude {}` exited {}: {}{}",
                args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" "),
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    Ok(())
}

/// Every JSON line of the session transcripts under `projects`.
fn transcript_lines(projects: &std::path::Path) -> Vec<Value> {
    let mut lines = Vec::new();
    for project in std::fs::read_dir(projects).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(project.path()).into_iter().flatten().flatten() {
            if file.path().extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(file.path()).unwrap_or_default();
                lines.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
            }
        }
    }
    lines
}

fn control_response(request: &Value, response: Value) -> Value {
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request["request_id"], "response": response},
    })
}

/// The Anthropic Messages API, streamed.
struct MessagesWire;

impl Wire for MessagesWire {
    fn route(&self, method: &str, path: &str, body: &Value) -> Route {
        if method == "HEAD" || method == "GET" {
            return Route::Reply(Reply::json(&json!({})));
        }
        if !path.starts_with("/v1/messages") {
            return Route::Reply(Reply::error(404, "not here"));
        }
        if path.contains("count_tokens") {
            return Route::Reply(Reply::json(&json!({"input_tokens": 100})));
        }
        if body["stream"] == true {
            return Route::Turn;
        }
        Route::Reply(Reply::json(&json!({
            "id": "msg_side", "type": "message", "role": "assistant", "model": body["model"],
            "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        })))
    }

    fn turn(&self, step: &Step, turn: usize) -> Reply {
        let (block, deltas, stop) = match step {
            Step::Shell(command) | Step::Escalated(command) => (
                json!({"type": "tool_use", "id": format!("toolu_{turn:04}"), "name": "Bash", "input": {}}),
                json!({"type": "input_json_delta",
                       "partial_json": json!({"command": command, "description": "scripted step"}).to_string()}),
                "tool_use",
            ),
            Step::Text(text) => {
                (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": text}), "end_turn")
            }
        };
        let events = [
            json!({"type": "message_start", "message": {
                "id": format!("msg_{turn:04}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 10, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
            json!({"type": "content_block_delta", "index": 0, "delta": deltas}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"output_tokens": 5}}),
            json!({"type": "message_stop"}),
        ];
        Reply::sse(
            events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or(""))).collect(),
        )
    }
}
