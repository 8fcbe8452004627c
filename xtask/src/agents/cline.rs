//! Cline, run offline: its CLI binary (`@cline/cli-linux-x64`, the platform package of npm `cline` 3.0.65) with its
//! `openai-compatible` provider pointed at the model server (`cline auth -p openai-compatible -b <url>` writes
//! `~/.cline/data/settings/providers.json` in the sandbox's home), then `cline --json <prompt>`, whose tools are
//! auto-approved by default.
//!
//! Cline's hooks are one executable per event in `.cline/hooks/`, and its answer is stdout JSON whatever the exit
//! code, so the shared scenarios (which write a settings file, deny by exit 2 and expect the reason in the model's
//! next turn) do not apply: a `cancel` ends Cline's run before the tool runs. Its own scenarios, [`SCENARIOS`], check
//! the same things in its terms: its own hook denies (`baseline`), a native `tools: [shell]` gate denies through the
//! bridge (`deny`) or passes (`pass`), a post_tool note reaches the model (`context`), a skipped guard is told to the
//! model for the user (`untrusted`), and install's migration still denies and uninstall gives the directory back
//! byte for byte and mode for mode (`migrate`).
//!
//! Wire: each model turn is `POST /v1/chat/completions` with `stream: true`, answered with chat-completion chunks;
//! the shell step is a `run_commands` call with `{"commands": [...]}`.

use std::process::Command;

use anyhow::Result;
use serde_json::json;

use super::agent::{Agent, Approver, Point, Run};
use super::chat::ChatCompletions;
use super::npm::Installed;
use super::process::Sandbox;
use super::scenarios::{Scenario, tool_then_done};
use super::server::Wire;
use super::session::{Checks, Ctx, SENTINEL};

/// Cline.
pub struct Cline;

/// The model asked for: any name does offline.
const MODEL: &str = "offline-model";

impl Agent for Cline {
    fn name(&self) -> &'static str {
        "cline"
    }

    fn suite_seconds(&self) -> u32 {
        123
    }

    fn wire(&self, _approver: Approver) -> Box<dyn Wire> {
        Box::new(ChatCompletions {
            model: MODEL,
            shell_tool: "run_commands",
            shell_arguments: |command| json!({"commands": [command]}),
            side_answer: super::chat::ok,
        })
    }

    fn configure(&self, _sandbox: &Sandbox) -> Result<()> {
        Ok(())
    }

    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, _run: Run) -> Command {
        // The provider's base URL is a setting `cline auth` writes; the port is known only now.
        let script =
            "\"$1\" auth -p openai-compatible -k offline -m \"$2\" -b \"$3\" >/dev/null && exec \"$1\" --json \"$4\"";
        let mut command = sandbox.command("sh");
        command.args(["-c", script, "sh"]).arg(&installed.cline).args([
            MODEL,
            &format!("http://127.0.0.1:{port}/v1"),
            prompt,
        ]);
        command
    }

    fn measured_by_default(&self) -> bool {
        false
    }

    fn own_scenarios_only(&self) -> bool {
        true
    }

    fn block_ends_run(&self) -> bool {
        true
    }

    fn event(&self, point: Point) -> Option<&'static str> {
        match point {
            Point::SessionStart => Some("TaskStart"),
            Point::TurnStart => Some("UserPromptSubmit"),
            Point::PreTool => Some("PreToolUse"),
            Point::PermissionRequest => None,
            Point::PostTool => Some("PostToolUse"),
            Point::TurnEnd => Some("TaskComplete"),
        }
    }

    fn shell_matcher(&self) -> &'static str {
        "run_commands"
    }

    fn settings_file(&self) -> &'static str {
        ".cline/hooks"
    }

    /// Cline's log (`~/.cline/data/logs/cline.log`), where the reason of a `cancel` is written (`errorMessage` of
    /// its "Agent loop caught error" line) and which its `--json` output does not carry.
    fn user_log(&self, sandbox: &Sandbox) -> String {
        std::fs::read_to_string(sandbox.home.join(".cline/data/logs/cline.log")).unwrap_or_default()
    }

    /// Cline's `--json` lines without ids and times: its hook events, tool ends and how the run ended.
    fn hook_status(&self, _sandbox: &Sandbox, finished: &super::process::Finished) -> Vec<String> {
        let mut lines = Vec::new();
        for event in finished.events() {
            match event["type"].as_str() {
                Some("hook_event") => lines.push(format!("hook {}", event["hookEventName"])),
                Some("run_result") => lines.push(format!("result {}", event["finishReason"])),
                _ => {}
            }
        }
        lines
    }
}

/// Cline's own scenarios (see the module docs).
pub const SCENARIOS: &[Scenario] = &[
    Scenario { name: "cline_baseline", agents: &["cline"], run: baseline },
    Scenario { name: "cline_deny", agents: &["cline"], run: deny },
    Scenario { name: "cline_pass", agents: &["cline"], run: pass },
    Scenario { name: "cline_context", agents: &["cline"], run: context },
    Scenario { name: "cline_untrusted", agents: &["cline"], run: untrusted },
    Scenario { name: "cline_migrate", agents: &["cline"], run: migrate },
    // The shared scenarios where the engine cannot answer, under the same names (`--scenario hook_missing` runs both).
    Scenario { name: "hook_missing", agents: &["cline"], run: super::unanswered::hook_missing },
    Scenario { name: "bridge_killed", agents: &["cline"], run: super::unanswered::bridge_killed },
    Scenario { name: "doctor_live", agents: &["cline"], run: super::doctor::doctor_live },
];

/// Cline's own PreToolUse hook file that cancels, in its protocol (`cancel` with `errorMessage`).
const OWN_CANCEL: &str = "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' \
                          '{\"cancel\":true,\"errorMessage\":\"BASELINE-7431 refused by the agent hook\"}'\n";

/// How the run ended, from Cline's `run_result` line.
fn finish_reason(session: &super::session::Session) -> String {
    let events = session.finished.events();
    let result = events.iter().rev().find(|e| e["type"] == "run_result");
    result.and_then(|e| e["finishReason"].as_str()).unwrap_or("none").to_owned()
}

/// The run ended before the tool ran: no sentinel, and Cline aborted it (a `cancel` stops the whole run).
fn cancelled(checks: &mut Checks, ctx: &Ctx<'_>, session: &super::session::Session) {
    checks.tool_blocked(ctx, session);
    let reason = finish_reason(session);
    checks.expect(reason == "aborted", "Cline to abort the run", || format!("finishReason {reason}"));
}

/// Cline's own PreToolUse hook cancels the shell tool.
fn baseline(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.sandbox.write(".cline/hooks/PreToolUse", OWN_CANCEL)?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    cancelled(&mut checks, ctx, &session);
    Ok(checks)
}

/// A native `tools: [shell]` gate denies `run_commands` through the bridge script install wrote.
fn deny(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: gate-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    \
         shell: \"touch GATE-RAN; echo 'DENY-5120 no shell commands here' >&2; exit 2\"\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(ctx.sandbox.exists("GATE-RAN"), "the native gate to run", || "it did not".into());
    cancelled(&mut checks, ctx, &session);
    Ok(checks)
}

/// A native `tools: [shell]` gate runs and passes: the tool runs and the run completes.
fn pass(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: pass-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    shell: \"touch PASS-RAN\"\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(ctx.sandbox.exists("PASS-RAN"), "the native gate to run", || "it did not".into());
    checks.tool_ran(ctx, &session);
    let reason = finish_reason(&session);
    checks.expect(reason == "completed", "the run to complete", || format!("finishReason {reason}"));
    Ok(checks)
}

/// A native post_tool note reaches the model before its next turn (Cline's `<hook_context>` block).
fn context(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: note-shell\n    on: post_tool\n    tools: [shell]\n    kind: effect\n    \
         effect: {kind: annotate_tool_result, message: \"NOTE-3388 the build is slow today\"}\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.tool_ran(ctx, &session);
    checks.model_saw(&session, "NOTE-3388", "the note");
    Ok(checks)
}

/// An untrusted native gate is skipped and the model is told, for the user, naming `hook trust` (Cline has no
/// message for the user alone).
fn untrusted(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: untrusted-gate\n    on: pre_tool\n    kind: command\n    \
         shell: \"echo 'UNTRUSTED-9090 should not run' >&2; exit 2\"\n",
    )?;
    ctx.install(false)?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.tool_ran(ctx, &session);
    checks.model_saw(&session, "untrusted-gate", "the skipped guard's notice");
    checks.model_saw(&session, "hook trust", "how to trust it");
    Ok(checks)
}

/// Every file under `.cline` with its mode and bytes.
fn tree(ctx: &Ctx<'_>) -> Vec<(String, u32, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt;
    let root = ctx.sandbox.ws.join(".cline");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
            let bytes = if meta.is_file() { std::fs::read(&path).unwrap_or_default() } else { Vec::new() };
            let name = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
            out.push((name, meta.permissions().mode(), bytes));
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Cline's own hook, migrated by `hook install` into `moved-by-hook/` and the native file, still cancels through the
/// bridge; `hook uninstall` gives `.cline` back byte for byte and mode for mode.
fn migrate(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.sandbox.write(".cline/hooks/PreToolUse", OWN_CANCEL)?;
    let before = tree(ctx);
    ctx.install(false)?;
    let native = std::fs::read_to_string(ctx.sandbox.ws.join(".hooks/hooks.yaml")).unwrap_or_default();
    let mut checks = Checks::default();
    checks.expect(native.contains("moved-by-hook/PreToolUse"), "the hook declared in .hooks/hooks.yaml", || {
        "it not there".into()
    });
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    cancelled(&mut checks, ctx, &session);
    ctx.uninstall()?;
    let after = tree(ctx);
    checks.expect(after == before, "`.cline` restored byte for byte and mode for mode", || {
        format!("{} entries differing from {}", after.len(), before.len())
    });
    checks.expect(!ctx.sandbox.exists(SENTINEL), "no sentinel", || "one".into());
    Ok(checks)
}
