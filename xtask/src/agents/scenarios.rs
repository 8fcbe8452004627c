//! The scenarios, each run against every agent it applies to, each with its own sandbox. A scenario sets up the
//! workspace (the agent's own hooks, or native hooks with the bridge installed), runs the agent against a
//! scripted model, and checks the outcome: whether the tool ran (a sentinel file), what the model saw (the request
//! bodies), what the agent showed, and files byte for byte.
//!
//! `baseline` and `permission_baseline` use the agent's own hooks only: they prove the harness sees the agent's
//! hooks at all, so a failure of a bridged scenario is the engine's.

use anyhow::Result;

use super::adversary;
use super::agent::{Approver, Point, Run, write_own_hooks};
use super::codex;
use super::doctor;
use super::retries;
use super::server::Step;
use super::session::{Checks, Ctx, SENTINEL, touch_sentinel};
use super::unanswered;

/// One scenario: its name, the agents it applies to (all when empty), and its body.
pub struct Scenario {
    /// Its name (`--scenario`).
    pub name: &'static str,
    /// The agents it applies to; all of them when empty.
    pub agents: &'static [&'static str],
    /// Sets up, runs, checks.
    pub run: fn(&Ctx<'_>) -> Result<Checks>,
}

/// Every scenario, in the order they run.
pub const SCENARIOS: &[Scenario] = &[
    Scenario { name: "baseline", agents: &[], run: baseline },
    Scenario { name: "deny", agents: &[], run: deny },
    // The bridge as the agent's own plugin, installed from this repository's marketplace instead of `hook install`.
    Scenario { name: "plugin", agents: &["claude", "gemini"], run: plugin },
    Scenario { name: "pass", agents: &[], run: pass },
    Scenario { name: "ask_user", agents: &[], run: ask_user },
    Scenario { name: "ask_user_print", agents: &["claude"], run: ask_user_print },
    Scenario { name: "permission_baseline", agents: &["claude", "codex"], run: permission_baseline },
    Scenario { name: "permission_allow", agents: &["claude", "codex"], run: permission_allow },
    Scenario { name: "permission_deny", agents: &["claude", "codex"], run: permission_deny },
    Scenario { name: "context", agents: &[], run: context },
    // Factory Droid's exec mode fires no UserPromptSubmit (it skips `context`): its session_start context alone.
    Scenario { name: "session_context", agents: &["droid"], run: session_context },
    Scenario { name: "continuation", agents: &[], run: continuation },
    Scenario { name: "continuation_cap", agents: &[], run: continuation_cap },
    Scenario { name: "post_tool_note", agents: &[], run: post_tool_note },
    Scenario { name: "async_observer", agents: &["claude", "codex"], run: async_observer },
    // A refused force push re-tried as `-f` and through `bash -c`: the `command:` guard reads the parsed command.
    Scenario { name: "force_push_retries", agents: &["claude", "codex"], run: retries::force_push_retries },
    Scenario { name: "migrate", agents: &[], run: migrate },
    // The model as the adversary: an approval held to the whole line, a delete inside a substitution, an attempt
    // to take the guard away.
    Scenario { name: "auto_approve", agents: &["claude", "codex"], run: adversary::auto_approve },
    Scenario { name: "substitution_guard", agents: &["claude", "codex"], run: adversary::substitution_guard },
    Scenario { name: "self_protection", agents: &["claude", "codex"], run: adversary::self_protection },
    // Qwen Code 0.24.4 shows a hook's `systemMessage` in neither of its headless outputs (text, stream-json): the
    // suite cannot see what it shows its user, so these two run for the agents that print it.
    Scenario { name: "notice_baseline", agents: &["claude", "codex", "gemini"], run: notice_baseline },
    Scenario { name: "untrusted", agents: &["claude", "codex", "gemini", "copilot"], run: untrusted },
    Scenario { name: "portable_command", agents: &[], run: portable_command },
    Scenario { name: "hash_oracle", agents: &["codex"], run: hash_oracle },
    Scenario { name: "agent_trust", agents: &["codex"], run: agent_trust },
    Scenario { name: "agent_trust_migrate", agents: &["codex"], run: agent_trust_migrate },
    // The engine cannot answer: the installed handler must block by itself (Cline runs these through its own list).
    Scenario { name: "hook_missing", agents: &[], run: unanswered::hook_missing },
    Scenario { name: "bridge_killed", agents: &[], run: unanswered::bridge_killed },
    // `hook doctor`'s verdict against the agent: live and the gate fires; an off switch and the gate never runs
    // (Cline, which runs its own list, has no switch of its own).
    Scenario { name: "doctor_live", agents: &[], run: doctor::doctor_live },
    Scenario { name: "doctor_off", agents: &[], run: doctor::doctor_off },
];

/// A pre-approved run observed as the agent's UI would show it.
const UI: Run = Run { approver: Approver::Preapproved, ui: true };

/// The agent's own deny hook: consumes its input, exits 2 with the reason on stderr.
const OWN_DENY: &str = "cat >/dev/null; echo 'BASELINE-7431 refused by the agent hook' >&2; exit 2";

/// The agent's own deny hook: the shared [`OWN_DENY`], or the agent's own form where that would not show the model
/// its reason.
fn own_deny(ctx: &Ctx<'_>) -> &'static str {
    ctx.agent.own_deny().unwrap_or(OWN_DENY)
}

/// The script most scenarios run: the shell call that touches the sentinel, then the end of the turn.
pub fn tool_then_done() -> Vec<Step> {
    vec![touch_sentinel(), Step::Text("done".into())]
}

/// The agent's own PreToolUse hook denies the shell tool: it does not run and the model sees the reason.
fn baseline(ctx: &Ctx<'_>) -> Result<Checks> {
    write_own_hooks(ctx.agent, &ctx.sandbox, &[(Point::PreTool, Some(ctx.agent.shell_matcher()), own_deny(ctx))])?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.tool_blocked(ctx, &session);
    checks.model_saw(&session, "BASELINE-7431", "the deny reason");
    Ok(checks)
}

/// A native `tools: [shell]` gate that denies, and marks that it ran.
const SHELL_GATE: &str = "  - id: gate-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    \
                          shell: \"touch GATE-RAN; echo 'DENY-5120 no shell commands here' >&2; exit 2\"\n";

/// A native `tools: [shell]` gate denies through the bridge.
fn deny(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(SHELL_GATE)?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(ctx.sandbox.exists("GATE-RAN"), "the native gate to run", || "it did not".into());
    checks.tool_blocked(ctx, &session);
    checks.model_saw(&session, "DENY-5120", "the deny reason");
    Ok(checks)
}

/// The agent's plugin of the bridge (plugins/, Claude Code's from this repository's marketplace) installed with the
/// agent's own commands and no `hook install`: the agent runs its fail-closed bridge, and a native `tools: [shell]`
/// gate denies through it.
fn plugin(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(SHELL_GATE)?;
    ctx.trust_all()?;
    let Some(installed) = ctx.agent.install_plugin(ctx.installed, &ctx.sandbox) else {
        anyhow::bail!("the suite installs no plugin into {}", ctx.agent.name());
    };
    installed?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    let settings = ctx.sandbox.exists(ctx.agent.settings_file());
    checks.expect(!settings, "no project settings file: the hooks are the plugin's", || "there is one".into());
    checks.expect(ctx.sandbox.exists("GATE-RAN"), "the native gate to run", || "it did not".into());
    checks.tool_blocked(ctx, &session);
    checks.model_saw(&session, "DENY-5120", "the deny reason");
    Ok(checks)
}

/// A native `tools: [shell]` gate runs and passes: the tool runs.
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
    Ok(checks)
}

const ASK_HOOK: &str = "  - id: ask-shell\n    on: pre_tool\n    kind: effect\n    \
                        effect: {kind: ask_user, reason: \"ASK-6210 a human must approve this\"}\n";

/// `ask_user` on a pre-approved tool: the human approver must be asked (Claude Code's SDK mode, the approver
/// denying), or, where the agent has no approver to force, the call is denied saying approval is required.
fn ask_user(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(ASK_HOOK)?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let mut checks = Checks::default();
    if ctx.agent.name() == "claude" {
        let session = ctx.run(tool_then_done(), Approver::PreapprovedAnswers(false))?;
        checks.expect(session.asked.iter().any(|t| t == "Bash"), "the approver asked about Bash", || {
            format!("asked {:?} ({})", session.asked, session.summary())
        });
        checks.tool_blocked(ctx, &session);
    } else {
        let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
        checks.tool_blocked(ctx, &session);
        checks.model_saw(&session, "ASK-6210", "the ask reason");
    }
    Ok(checks)
}

/// `ask_user` in Claude Code's print mode, where nobody can approve: the tool must not run.
fn ask_user_print(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(ASK_HOOK)?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.tool_blocked(ctx, &session);
    Ok(checks)
}

/// The script of the permission scenarios: a shell call that needs the approver.
fn escalated_then_done() -> Vec<Step> {
    vec![Step::Escalated(format!("touch {SENTINEL}")), Step::Text("done".into())]
}

/// The agent's own PermissionRequest hook denies (the approver would allow): proves the event fires here.
fn permission_baseline(ctx: &Ctx<'_>) -> Result<Checks> {
    let event = ctx.agent.event(Point::PermissionRequest).unwrap_or("PermissionRequest");
    let output = format!(
        "{{\"hookSpecificOutput\":{{\"hookEventName\":\"{event}\",\"decision\":{{\"behavior\":\"deny\",\
         \"message\":\"PERMBASE-5531 denied by the agent hook\"}}}}}}"
    );
    let command = format!("cat >/dev/null; printf '%s' '{output}'");
    write_own_hooks(ctx.agent, &ctx.sandbox, &[(Point::PermissionRequest, None, &command)])?;
    let session = ctx.run(escalated_then_done(), Approver::Answers(true))?;
    let mut checks = Checks::default();
    checks.tool_blocked(ctx, &session);
    checks.expect(session.asked.is_empty(), "the approver not asked", || format!("asked {:?}", session.asked));
    Ok(checks)
}

/// A native `allow_tool` on permission_request: the tool runs without the approver (who would deny).
fn permission_allow(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: allow-permission\n    on: permission_request\n    kind: effect\n    \
         effect: {kind: allow_tool, reason: \"PERM-ALLOW-1200\"}\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(escalated_then_done(), Approver::Answers(false))?;
    let mut checks = Checks::default();
    checks.tool_ran(ctx, &session);
    checks.expect(session.asked.is_empty(), "the approver not asked", || format!("asked {:?}", session.asked));
    Ok(checks)
}

/// A native `block_tool` on permission_request: the tool does not run (the approver would allow), the model
/// sees the reason.
fn permission_deny(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: deny-permission\n    on: permission_request\n    kind: effect\n    \
         effect: {kind: block_tool, reason: \"PERM-DENY-8302 not without a ticket\", severity: hard-block}\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(escalated_then_done(), Approver::Answers(true))?;
    let mut checks = Checks::default();
    checks.tool_blocked(ctx, &session);
    checks.model_saw(&session, "PERM-DENY-8302", "the deny reason");
    checks.expect(session.asked.is_empty(), "the approver not asked", || format!("asked {:?}", session.asked));
    Ok(checks)
}

/// Native context at session_start and turn_start reaches the model's first request.
fn context(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: session-context\n    on: session_start\n    kind: prompt\n    \
         message: \"SESSION-CTX-3391 remember the session rules\"\n  \
         - id: turn-context\n    on: turn_start\n    kind: prompt\n    message: \"TURN-CTX-4471 remember the turn rules\"\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(vec![Step::Text("done".into())], Approver::Preapproved)?;
    let first = session.turns.first().map(|t| t.body.as_str()).unwrap_or("");
    let mut checks = Checks::default();
    for marker in ["SESSION-CTX-3391", "TURN-CTX-4471"] {
        if marker == "TURN-CTX-4471" && !ctx.agent.context_on_turn_start() {
            // The agent drops it: the bridge says so to the user instead of passing in silence.
            let shown = session.finished.shown();
            checks.expect(shown.contains(marker), &format!("{marker} told to the user"), || "not shown".into());
            continue;
        }
        checks.expect(first.contains(marker), &format!("{marker} in the first model request"), || {
            format!("it missing ({})", session.summary())
        });
    }
    Ok(checks)
}

/// Native context at session_start alone reaches the model's first request.
fn session_context(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: session-context\n    on: session_start\n    kind: prompt\n    \
         message: \"SESSION-CTX-3391 remember the session rules\"\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(vec![Step::Text("done".into())], Approver::Preapproved)?;
    let first = session.turns.first().map(|t| t.body.as_str()).unwrap_or("");
    let mut checks = Checks::default();
    checks.expect(first.contains("SESSION-CTX-3391"), "SESSION-CTX-3391 in the first model request", || {
        format!("it missing ({})", session.summary())
    });
    Ok(checks)
}

fn texts(n: usize) -> Vec<Step> {
    (1..=n).map(|i| Step::Text(format!("answer {i}"))).collect()
}

/// A turn_end hook asks to go on once: the model gets one more turn, with the message.
fn continuation(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: continue-once\n    on: turn_end\n    kind: command\n    shell: \"cat >/dev/null; \
         if [ -e CONTINUED ]; then exit 0; fi; touch CONTINUED; printf '%s' \
         '{\\\"effects\\\":[{\\\"kind\\\":\\\"request_continuation\\\",\\\"message\\\":\\\"CONT-2291 please go on\\\"}]}'\"\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(texts(6), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(session.turns.len() == 2, "2 model turns", || session.summary());
    let second = session.turns.get(1).map(|t| t.body.as_str()).unwrap_or("");
    checks.expect(second.contains("CONT-2291"), "the continuation message in the second turn", || "it missing".into());
    Ok(checks)
}

/// A turn_end hook that always asks to go on: the session's cap (3 in a row) ends it after 1 + 3 turns.
fn continuation_cap(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: continue-always\n    on: turn_end\n    kind: command\n    shell: \"cat >/dev/null; printf '%s' \
         '{\\\"effects\\\":[{\\\"kind\\\":\\\"request_continuation\\\",\\\"message\\\":\\\"CAP-1187 keep going\\\"}]}'\"\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(texts(8), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(session.turns.len() == 4, "4 model turns (1 + the cap of 3)", || session.summary());
    Ok(checks)
}

/// A native post_tool note reaches the model with the tool result.
fn post_tool_note(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: note-after-tool\n    on: post_tool\n    kind: command\n    \
         shell: \"cat >/dev/null; echo 'POSTNOTE-7713 the tool output was checked'\"\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.tool_ran(ctx, &session);
    let second = session.turns.get(1).map(|t| t.body.as_str()).unwrap_or("");
    checks.expect(second.contains("POSTNOTE-7713"), "the note (POSTNOTE-7713) in the turn after the tool", || {
        format!("it missing ({})", session.summary())
    });
    Ok(checks)
}

/// A native `async: true` observer that sleeps 2 s runs to its end after the bridge answered the agent: its receipt
/// says it completed in the background (the bridge used to stop it at 1.5 s, `cancelled`), and no runner is left.
fn async_observer(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: slow-observer\n    on: post_tool\n    kind: command\n    async: true\n    timeout_ms: 20000\n    \
         shell: \"cat >/dev/null; sleep 2; echo ASYNC-5521 > \\\"$HOOK_PROJECT_DIR/observer.out\\\"\"\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.tool_ran(ctx, &session);
    let out = ctx.sandbox.ws.join("observer.out");
    let started = std::time::Instant::now();
    let receipt = loop {
        let text = ctx.sandbox.hook_ok(&["--json", "receipts", "tail", "-n", "200"])?;
        let json: serde_json::Value = serde_json::from_str(&text)?;
        let found =
            json["receipts"].as_array().into_iter().flatten().find(|r| r["hook_id"] == "slow-observer").cloned();
        if found.is_some() || started.elapsed() > std::time::Duration::from_secs(30) {
            break found;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let receipt = receipt.unwrap_or_default();
    checks.expect(
        receipt["outcome"] == "command_ok" && receipt["background"] == true,
        "the observer's receipt: command_ok, in the background",
        || format!("{receipt}"),
    );
    checks
        .expect(receipt["duration_ms"].as_u64().unwrap_or(0) >= 2_000, "it ran its full 2 s", || format!("{receipt}"));
    let written = std::fs::read_to_string(&out).unwrap_or_default();
    checks.expect(written.contains("ASYNC-5521"), "the observer wrote its file", || "nothing written".into());
    let started = std::time::Instant::now();
    while !runners(&ctx.sandbox.ws).is_empty() && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left = runners(&ctx.sandbox.ws);
    checks.expect(left.is_empty(), "no runner left once its hook ended", || format!("runners {left:?}"));
    Ok(checks)
}

/// The live processes whose command line is a `hook background-run` for `ws`.
fn runners(ws: &std::path::Path) -> Vec<u32> {
    let ws = ws.as_os_str().as_encoded_bytes();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let zombie = super::process::is_zombie(*pid);
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let words: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            !zombie && words.contains(&b"background-run".as_slice()) && words.contains(&ws)
        })
        .collect()
}

/// The agent's own deny hook, migrated by `hook install`, still denies; `hook uninstall` restores the agent's
/// file byte for byte.
fn migrate(ctx: &Ctx<'_>) -> Result<Checks> {
    let original =
        write_own_hooks(ctx.agent, &ctx.sandbox, &[(Point::PreTool, Some(ctx.agent.shell_matcher()), own_deny(ctx))])?;
    ctx.install(false)?;
    let native = std::fs::read_to_string(ctx.sandbox.ws.join(".hooks/hooks.yaml")).unwrap_or_default();
    let mut checks = Checks::default();
    checks.expect(native.contains("BASELINE-7431"), "the hook moved into .hooks/hooks.yaml", || "it not there".into());
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    checks.tool_blocked(ctx, &session);
    checks.model_saw(&session, "BASELINE-7431", "the migrated hook's reason");
    ctx.uninstall()?;
    let restored = std::fs::read_to_string(ctx.sandbox.ws.join(ctx.agent.settings_file())).unwrap_or_default();
    checks.expect(restored == original, "the agent's file restored byte for byte", || {
        format!("{} bytes differing from {}", restored.len(), original.len())
    });
    Ok(checks)
}

/// The agent's own hook answers with a `systemMessage`: proves the harness sees what the agent shows its user,
/// where the `untrusted` scenario looks for the bridge's notice.
fn notice_baseline(ctx: &Ctx<'_>) -> Result<Checks> {
    let command = "cat >/dev/null; printf '%s' '{\"systemMessage\":\"SYSMSG-6060 shown to the user\"}'";
    write_own_hooks(ctx.agent, &ctx.sandbox, &[(Point::PreTool, Some(ctx.agent.shell_matcher()), command)])?;
    let session = ctx.run(tool_then_done(), UI)?;
    let mut checks = Checks::default();
    checks.tool_ran(ctx, &session);
    checks.expect(session.finished.shown().contains("SYSMSG-6060"), "the system message shown by the agent", || {
        "none".into()
    });
    Ok(checks)
}

/// A native gate that is not trusted is skipped, and the agent's user is told so (naming `hook trust`).
fn untrusted(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: untrusted-gate\n    on: pre_tool\n    kind: command\n    \
         shell: \"echo 'UNTRUSTED-9090 should not run' >&2; exit 2\"\n",
    )?;
    ctx.install(false)?;
    let session = ctx.run(tool_then_done(), UI)?;
    let mut checks = Checks::default();
    checks.tool_ran(ctx, &session);
    let shown = session.finished.shown();
    checks.expect(shown.contains("hook trust"), "a notice naming `hook trust` shown by the agent", || "none".into());
    Ok(checks)
}

/// In a committed (project) file, install writes the portable `hook bridge --protocol <agent>`, no path: as the whole
/// command, or (gate events) inside the fail-closed wrapper install puts around it.
fn portable_command(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.install(true)?;
    let text = std::fs::read_to_string(ctx.sandbox.ws.join(ctx.agent.settings_file()))?;
    let file: serde_json::Value = serde_json::from_str(&text)?;
    let expected = format!("hook bridge --protocol {}", ctx.agent.name());
    let mut commands: Vec<String> = Vec::new();
    for groups in file["hooks"].as_object().into_iter().flat_map(|events| events.values()) {
        for group in groups.as_array().into_iter().flatten() {
            // Matcher groups of handlers, or (GitHub Copilot CLI) the handlers themselves with their shell in `bash`.
            let handlers = group["hooks"].as_array().cloned().unwrap_or_else(|| vec![group.clone()]);
            for handler in &handlers {
                let line = handler["command"].as_str().or(handler["bash"].as_str());
                commands.extend(line.map(str::to_owned));
            }
        }
    }
    let mut checks = Checks::default();
    let odd: Vec<&String> = commands.iter().filter(|c| !runs_bare_bridge(c, ctx.agent.name())).collect();
    checks.expect(!commands.is_empty() && odd.is_empty(), &format!("every command to run `{expected}`"), || {
        odd.first().map(|c| format!("`{c}`")).unwrap_or_else(|| "no command".into())
    });
    Ok(checks)
}

/// Whether `line` runs the bridge for `agent`, each time it names it, as the bare word `hook` (found on `PATH`, not a
/// path), followed by nothing, the event install names where the agent's input has none (`--event E`), or the
/// wrapper's redirections.
fn runs_bare_bridge(line: &str, agent: &str) -> bool {
    let bridge = format!("hook bridge --protocol {agent}");
    let mut found = false;
    for (at, _) in line.match_indices(&bridge) {
        let before = &line[..at];
        let after = &line[at + bridge.len()..];
        let word_start = before.is_empty() || before.ends_with([' ', '{', '\'']);
        let word_end = after.is_empty() || after.starts_with(" --event ") || after.starts_with(" <&3");
        if !word_start || !word_end {
            return false;
        }
        found = true;
    }
    found
}

/// The harness's Codex hook hash equals what Codex reports (its app server's `hooks/list`), and the hooks it
/// trusts show as trusted.
fn hash_oracle(ctx: &Ctx<'_>) -> Result<Checks> {
    write_own_hooks(
        ctx.agent,
        &ctx.sandbox,
        &[
            (Point::PreTool, Some("Bash"), "echo one"),
            (Point::PostTool, None, "echo two"),
            (Point::TurnEnd, Some("ignored"), "echo three"),
            (Point::SessionStart, Some("startup|resume"), "echo four"),
        ],
    )?;
    let ours = codex::hook_hashes(&ctx.sandbox)?;
    let reported = codex::reported_hashes(ctx.installed, &ctx.sandbox)?;
    let mut checks = Checks::default();
    checks.expect(reported.len() == ours.len(), &format!("{} hooks listed by Codex", ours.len()), || {
        format!("{}", reported.len())
    });
    for (key, hash) in &ours {
        let theirs = reported.iter().find(|(k, _, _)| k == key);
        checks.expect(
            theirs.is_some_and(|(_, h, s)| h == hash && s == "trusted"),
            &format!("{key} trusted at {hash}"),
            || format!("{theirs:?}"),
        );
    }
    Ok(checks)
}

/// Codex runs the bridge that `hook install` wrote only if install also recorded it as trusted in Codex's own
/// store (`[hooks.state]` `trusted_hash`): nothing here trusts it on the engine's behalf.
fn agent_trust(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: trust-gate\n    on: pre_tool\n    kind: command\n    \
         shell: \"echo 'TRUST-4410 the bridge ran' >&2; exit 2\"\n",
    )?;
    ctx.install(true)?;
    ctx.trust_all()?;
    let mut checks = Checks::default();
    bridge_trusted_by_codex(ctx, &mut checks)?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    checks.tool_blocked(ctx, &session);
    checks.model_saw(&session, "TRUST-4410", "the deny reason");
    Ok(checks)
}

/// A deny hook the user had trusted in Codex keeps guarding after `hook install` moves it behind the bridge, with
/// nothing trusted on the engine's behalf. Codex keys trust by position (`<file>:<event>:<group>:<handler>`), so
/// the bridge that takes the moved hook's place inherits its key with a stale `trusted_hash` and reads as
/// modified until install records the bridge's hash there.
fn agent_trust_migrate(ctx: &Ctx<'_>) -> Result<Checks> {
    write_own_hooks(ctx.agent, &ctx.sandbox, &[(Point::PreTool, Some(ctx.agent.shell_matcher()), own_deny(ctx))])?;
    ctx.install(true)?;
    let mut checks = Checks::default();
    bridge_trusted_by_codex(ctx, &mut checks)?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    checks.tool_blocked(ctx, &session);
    checks.model_saw(&session, "BASELINE-7431", "the migrated hook's reason");
    Ok(checks)
}

/// Codex's own view of the bridge on PreToolUse (its app server's `hooks/list`): it must be trusted.
fn bridge_trusted_by_codex(ctx: &Ctx<'_>, checks: &mut Checks) -> Result<()> {
    let reported = codex::reported_hashes(ctx.installed, &ctx.sandbox)?;
    let status = reported.iter().find(|(key, _, _)| key.contains(":pre_tool_use:")).map(|(_, _, s)| s.clone());
    checks.expect(status.as_deref() == Some("trusted"), "Codex to list the bridge on PreToolUse as trusted", || {
        status.unwrap_or_else(|| "no such hook".into())
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::runs_bare_bridge;

    #[test]
    fn a_bridge_run_by_path_is_not_portable_however_it_is_wrapped() {
        for line in [
            "hook bridge --protocol claude",
            "hook bridge --protocol copilot --event userPromptSubmitted",
            "{ hook bridge --protocol claude <&3 3<&- & hook_bridge_pid=$!; } 3<&0; exit 2",
            "sh -c '{ hook bridge --protocol codex <&3 3<&- & hook_bridge_pid=$!; } 3<&0; exit 2'",
        ] {
            let agent = line.split("--protocol ").nth(1).and_then(|r| r.split([' ', '\'']).next()).unwrap();
            assert!(runs_bare_bridge(line, agent), "{line}");
        }
        for line in [
            "/usr/local/bin/hook bridge --protocol claude",
            "{ /opt/hook bridge --protocol claude <&3 3<&- & hook_bridge_pid=$!; } 3<&0; exit 2",
            "hook bridge --protocol claudex",
            "echo hook",
        ] {
            assert!(!runs_bare_bridge(line, "claude"), "{line}");
        }
    }
}
