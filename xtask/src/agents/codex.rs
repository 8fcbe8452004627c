//! Codex, run offline: its native binary with `CODEX_HOME/config.toml` naming the model server as a custom
//! provider (`wire_api = "responses"`), `codex exec` with stdin from /dev/null.
//!
//! Its shell tool is `exec_command` (`{cmd}`), which its hooks see as `Bash`. It reads `<workspace>/.codex/
//! hooks.json` only for a project whose `trust_level` is `"trusted"`, and runs a hook of it only when
//! `[hooks.state."<file>:<event>:<group>:<handler>"]` holds the hook's current `trusted_hash`
//! (codex-rs/hooks/src/engine/discovery.rs: `command_hook_hash`, `hook_trust_status`). [`trusted_hash`]
//! recomputes that hash; the `hash_oracle` scenario checks it against what Codex itself reports. Codex takes the
//! nearest `.git` above the working directory as the project root, and looks up that root's trust: the sandbox's
//! workspace is a repository of its own for that reason (it sits inside this repository's checkout).

use std::process::Command;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use super::agent::{Agent, Approver, Conversation, Point, Run};
use super::npm::Installed;
use super::process::Sandbox;
use super::server::{Reply, Route, Step, Wire};

/// Codex.
pub struct Codex;

/// The variable the custom provider reads its key from (any value does).
const KEY_VAR: &str = "HOOKS_OFFLINE_KEY";

impl Codex {
    /// `CODEX_HOME`.
    pub fn home(sandbox: &Sandbox) -> std::path::PathBuf {
        sandbox.home.join(".codex")
    }
}

impl Agent for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn wire(&self, approver: Approver) -> Box<dyn Wire> {
        let allow = match approver {
            Approver::Answers(allow) | Approver::PreapprovedAnswers(allow) => allow,
            Approver::Preapproved => false,
        };
        Box::new(ResponsesWire { allow })
    }

    fn model_approvals(&self, requests: &[super::server::Logged]) -> Vec<String> {
        requests.iter().filter(|r| is_review(&r.body)).map(|_| "exec_command".to_owned()).collect()
    }

    fn configure(&self, sandbox: &Sandbox) -> Result<()> {
        let home = Codex::home(sandbox);
        std::fs::create_dir_all(&home)?;
        let config = format!(
            "model = \"gpt-5\"\nmodel_provider = \"offline\"\n\n\
             [model_providers.offline]\nname = \"offline\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
             wire_api = \"responses\"\nenv_key = \"{KEY_VAR}\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n\
             [projects.{}]\ntrust_level = \"trusted\"\n",
            toml_string(&sandbox.ws.display().to_string())
        );
        std::fs::write(home.join("config.toml"), config)?;
        Ok(())
    }

    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, run: Run) -> Command {
        let mut command = sandbox.command(&installed.codex);
        command
            .env("CODEX_HOME", Codex::home(sandbox))
            .env(KEY_VAR, "offline")
            .args(["-c", &format!("model_providers.offline.base_url=\"http://127.0.0.1:{port}/v1\"")]);
        if run.ui {
            command.arg("app-server");
            return command;
        }
        command.args(["exec", "--skip-git-repo-check", "--json", "--color", "never"]);
        match run.approver {
            Approver::Preapproved | Approver::PreapprovedAnswers(_) => {
                command.arg("--dangerously-bypass-approvals-and-sandbox");
            }
            Approver::Answers(_) => {
                command.arg("--approve-for-me");
            }
        }
        command.arg(prompt);
        command
    }

    /// With `ui`, one turn through the app server (JSON-RPC over stdio, as Codex's TUI and IDE clients drive
    /// it): `initialize`, `thread/start` in the workspace with approvals off, `turn/start`, then every
    /// notification — `hook/started`, `hook/completed` with the run's status and entries — until
    /// `turn/completed`.
    fn conversation(&self, sandbox: &Sandbox, prompt: &str, run: Run) -> Option<Conversation> {
        if !run.ui {
            return None;
        }
        let first = vec![
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"clientInfo": {"name": "xtask-agents", "version": "1"}}})
            .to_string(),
            json!({"jsonrpc": "2.0", "method": "initialized"}).to_string(),
            json!({"jsonrpc": "2.0", "id": 2, "method": "thread/start", "params": {
                "cwd": sandbox.ws, "approvalPolicy": "never", "sandbox": "danger-full-access"}})
            .to_string(),
        ];
        let prompt = prompt.to_owned();
        let talk = move |line: &str| {
            let message: Value = serde_json::from_str(line).unwrap_or_default();
            if message["id"] == 2 {
                let thread = message["result"]["thread"]["id"].clone();
                let turn = json!({"jsonrpc": "2.0", "id": 3, "method": "turn/start",
                    "params": {"threadId": thread, "input": [{"type": "text", "text": prompt}]}});
                return super::process::Reaction::Write(turn.to_string());
            }
            if message["method"] == "turn/completed" || (message["id"] == 3 && message.get("error").is_some()) {
                return super::process::Reaction::Close;
            }
            super::process::Reaction::None
        };
        Some(Conversation { first, talk: Box::new(talk), asked: Default::default() })
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

    fn settings_file(&self) -> &'static str {
        ".codex/hooks.json"
    }

    /// From the app server's notifications (a `ui` run): each `hook/completed` run's event, status and entries
    /// (what the TUI lists under the hook), each command's final status, the agent's messages, the turn's end.
    fn hook_status(&self, _sandbox: &Sandbox, finished: &super::process::Finished) -> Vec<String> {
        let mut lines = Vec::new();
        for event in finished.events() {
            let params = &event["params"];
            match event["method"].as_str() {
                Some("hook/completed") => {
                    let run = &params["run"];
                    lines.push(format!("hook {} {} {}", run["eventName"], run["status"], run["entries"]));
                }
                Some("item/completed") => {
                    let item = &params["item"];
                    match item["type"].as_str() {
                        Some("commandExecution") => lines.push(format!("command {}", item["status"])),
                        Some("agentMessage") => lines.push(format!("message {}", item["text"])),
                        _ => {}
                    }
                }
                Some("turn/completed") => {
                    let turn = &params["turn"];
                    lines.push(format!("turn {} {}", turn["status"], turn["error"]));
                }
                Some("error") | Some("warning") => lines.push(format!("{} {}", event["method"], params["message"])),
                _ => {}
            }
        }
        lines
    }

    fn trust_project_hooks(&self, sandbox: &Sandbox) -> Result<()> {
        let config_path = Codex::home(sandbox).join("config.toml");
        let mut config: toml::Table = toml::from_str(&std::fs::read_to_string(&config_path)?)?;
        let hooks = config.entry("hooks").or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let state = hooks
            .as_table_mut()
            .context("[hooks] is not a table")?
            .entry("state")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .context("[hooks.state] is not a table")?;
        for (key, hash) in hook_hashes(sandbox)? {
            let entry = state.entry(key).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if let Some(entry) = entry.as_table_mut() {
                entry.insert("trusted_hash".into(), toml::Value::String(hash));
            }
        }
        std::fs::write(&config_path, toml::to_string(&config)?)?;
        Ok(())
    }
}

/// Every command handler of the workspace's `.codex/hooks.json` as Codex keys it, with its current hash.
pub fn hook_hashes(sandbox: &Sandbox) -> Result<Vec<(String, String)>> {
    let path = sandbox.ws.join(".codex/hooks.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&path)?).context("bad .codex/hooks.json")?;
    let mut hashes = Vec::new();
    let Some(events) = file["hooks"].as_object() else { return Ok(hashes) };
    for (event, groups) in events {
        let Some(label) = event_label(event) else { continue };
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, handler) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                if handler["type"] != "command" {
                    continue;
                }
                let key = format!("{}:{label}:{g}:{h}", path.display());
                hashes.push((key, trusted_hash(label, group["matcher"].as_str(), handler)));
            }
        }
    }
    Ok(hashes)
}

/// Codex's snake_case label of an event (`hook_event_key_label`).
fn event_label(event: &str) -> Option<&'static str> {
    Some(match event {
        "PreToolUse" => "pre_tool_use",
        "PermissionRequest" => "permission_request",
        "PostToolUse" => "post_tool_use",
        "PreCompact" => "pre_compact",
        "PostCompact" => "post_compact",
        "SessionStart" => "session_start",
        "UserPromptSubmit" => "user_prompt_submit",
        "Stop" => "stop",
        _ => return None,
    })
}

/// The hash Codex trusts a command hook by: the engine's own computation (`hook install` writes it into Codex's
/// store), which the `hash_oracle` scenario checks against what Codex itself reports.
pub fn trusted_hash(label: &str, matcher: Option<&str>, handler: &Value) -> String {
    hook_agents::install::codex_hook_hash(label, matcher, handler)
}

/// A TOML basic string.
pub fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// What Codex itself reports for the workspace's hooks: `(key, currentHash, trustStatus)`, through its app server's
/// `hooks/list` (JSON-RPC over stdio).
pub fn reported_hashes(installed: &Installed, sandbox: &Sandbox) -> Result<Vec<(String, String, String)>> {
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"clientInfo": {"name": "xtask-agents", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [sandbox.ws]}}),
    ];
    let mut command = sandbox.command(&installed.codex);
    command.env("CODEX_HOME", Codex::home(sandbox)).env(KEY_VAR, "offline").arg("app-server");
    let first: Vec<String> = requests.iter().map(Value::to_string).collect();
    let mut talk = |line: &str| {
        let reply: Value = serde_json::from_str(line).unwrap_or_default();
        if reply["id"] == 2 { super::process::Reaction::Close } else { super::process::Reaction::None }
    };
    let finished = super::process::run(command, std::time::Duration::from_secs(30), &first, Some(&mut talk))?;
    let reply = finished
        .events()
        .into_iter()
        .find(|e| e["id"] == 2)
        .with_context(|| format!("no hooks/list answer: {}", super::process::one_line(&finished.stderr)))?;
    let mut hooks = Vec::new();
    for entry in reply["result"]["data"].as_array().into_iter().flatten() {
        for hook in entry["hooks"].as_array().into_iter().flatten() {
            let text = |k: &str| hook[k].as_str().unwrap_or("").to_owned();
            hooks.push((text("key"), text("currentHash"), text("trustStatus")));
        }
    }
    Ok(hooks)
}

/// Whether a request body is Codex's automatic review of an approval (`--approve-for-me`): a model call of its
/// own, asking for `{outcome: allow | deny, …}`.
fn is_review(body: &str) -> bool {
    body.contains(">>> APPROVAL REQUEST START")
}

/// The OpenAI Responses API, streamed. Codex's approval reviews are answered `allow` or `deny` as the scenario's
/// approver decides, outside the script.
struct ResponsesWire {
    allow: bool,
}

impl Wire for ResponsesWire {
    fn route(&self, method: &str, path: &str, body: &Value) -> Route {
        if method != "POST" || !path.starts_with("/v1/responses") || path.contains("compact") {
            return Route::Reply(Reply::error(404, "not here"));
        }
        if is_review(&body.to_string()) {
            let outcome = if self.allow { "allow" } else { "deny" };
            let verdict = json!({"outcome": outcome, "risk_level": "low", "rationale": "APPROVER decided"});
            return Route::Reply(self.turn(&Step::Text(verdict.to_string()), 999));
        }
        Route::Turn
    }

    fn turn(&self, step: &Step, turn: usize) -> Reply {
        let id = format!("resp_{turn:04}");
        let item = match step {
            Step::Shell(command) => json!({"type": "function_call", "call_id": format!("call_{turn:04}"),
                "name": "exec_command", "arguments": json!({"cmd": command}).to_string()}),
            Step::Escalated(command) => json!({"type": "function_call", "call_id": format!("call_{turn:04}"),
                "name": "exec_command", "arguments": json!({"cmd": command, "sandbox_permissions": "require_escalated",
                    "justification": "the scripted step needs it"}).to_string()}),
            Step::Text(text) => json!({"type": "message", "role": "assistant", "id": format!("msg_{turn:04}"),
                "content": [{"type": "output_text", "text": text}]}),
        };
        let events = [
            json!({"type": "response.created", "response": {"id": id}}),
            json!({"type": "response.output_item.done", "item": item}),
            json!({"type": "response.completed", "response": {"id": id, "usage": {
                "input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
                "output_tokens_details": null, "total_tokens": 15}}}),
        ];
        Reply::sse(
            events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or(""))).collect(),
        )
    }
}
