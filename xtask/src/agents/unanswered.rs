//! The scenarios where the engine cannot answer the agent, run against every agent (Cline too, through its own
//! list): the handler `hook install` wrote must then give the agent its blocking answer itself.
//!
//! - `hook_missing`: the bridge is installed as `hook install` writes it in a project (the portable `hook bridge
//!   --protocol <agent>`, found through `PATH`), a native `tools: [shell]` gate that would let the call through is
//!   loaded and trusted, and then `hook` is taken off the agent's `PATH` (an agent started from an IDE or a service
//!   often lacks `~/.cargo/bin`). The shell of the agent cannot find `hook` (exit 127).
//! - `bridge_killed`: a native gate whose command kills its parent, the bridge dispatching it: `kill -KILL $PPID` on
//!   the first shell call, `kill -ABRT $PPID` on the second (an abort, as an allocation failure inside the engine
//!   is). Cline ends its run at the first `cancel`, so it meets the SIGKILL alone.
//!
//! Either way the shell tool must not run, and the reason must reach the model or the agent's user. Left to
//! themselves, the pinned agents run the tool when the hook process is not found or dies by a signal, except Gemini
//! CLI on exit 127 (it reads the shell's "not found" as a deny reason) and GitHub Copilot CLI (it denies any failed
//! preToolUse hook, telling the model only "hook errored"); the installed handler must stop it and say why.

use anyhow::{Context, Result};

use super::agent::{Approver, Point, Run};
use super::server::Step;
use super::session::{Checks, Ctx, SENTINEL, Session};

/// A gate that lets every shell call through, and leaves a mark that it ran: if the engine ran at all, it shows.
const PASSING_GATE: &str = "  - id: gate-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    \
                            shell: \"touch GATE-RAN\"\n";

/// A gate that kills the bridge dispatching it: SIGKILL the first time, SIGABRT after. `$PPID` of the gate's `sh` is
/// the bridge (hook-exec starts the command's shell as the bridge's own child). Its marks go to `$HOME`, outside the
/// workspace: a file under the workspace that the command names is part of the hook's fingerprint, and creating one
/// would make the gate untrusted at its second call.
const KILLING_GATE: &str = "  - id: gate-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    \
                            shell: \"cat >/dev/null; if [ -e ${HOME:?}/KILLED-ONCE ]; then \
                            touch $HOME/ABORTED; kill -ABRT $PPID; \
                            else touch $HOME/KILLED-ONCE; kill -KILL $PPID; fi\"\n";

/// The second shell call's mark: it ran if and only if this file exists.
const SECOND: &str = "SENTINEL-2";

/// The handler's reason when `hook` cannot be found, as it reads once the shell has filled in the cause: the text of
/// the installed command holds every cause unfilled, and some agents repeat that command in what they show.
const MISSING: &str = "(exit 127); the call is blocked";

/// The handler's reason when the bridge died by SIGKILL.
const KILLED: &str = "killed by signal 9; the call is blocked";

/// The handler's reason when the bridge died by SIGABRT.
const ABORTED: &str = "killed by signal 6; the call is blocked";

/// How the scenarios run the agent: pre-approved, showing what its UI shows about hooks (Codex's app server, whose
/// hook notifications carry a blocked prompt's reason; `codex exec` prints none).
const UI: Run = Run { approver: Approver::Preapproved, ui: true };

/// `hook` is missing from the agent's `PATH`: the shell tool does not run, and the reason reaches the model or user.
pub fn hook_missing(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(PASSING_GATE)?;
    ctx.install(false)?;
    ctx.trust_all()?;
    ctx.sandbox.take_hook_off_path()?;
    let session = ctx.run(super::scenarios::tool_then_done(), UI)?;
    let mut checks = Checks::default();
    checks.expect(!ctx.sandbox.exists("GATE-RAN"), "the engine never to run (`hook` not on PATH)", || {
        "the gate ran".into()
    });
    checks.tool_blocked(ctx, &session);
    reason_reached(&mut checks, ctx, &session, MISSING, "the reason `hook` was not found")?;
    Ok(checks)
}

/// The bridge is killed mid-dispatch (SIGKILL, then SIGABRT where the agent makes a second call): neither shell call
/// runs, and the reason reaches the model or user.
pub fn bridge_killed(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(KILLING_GATE)?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let two_calls = !ctx.agent.block_ends_run();
    let script = if two_calls {
        vec![
            Step::Shell(format!("touch {SENTINEL}")),
            Step::Shell(format!("touch {SECOND}")),
            Step::Text("done".into()),
        ]
    } else {
        super::scenarios::tool_then_done()
    };
    let session = ctx.run(script, UI)?;
    let mut checks = Checks::default();
    checks.expect(ctx.sandbox.home.join("KILLED-ONCE").exists(), "the gate to kill the bridge (SIGKILL)", || {
        format!("the gate never ran ({})", session.summary())
    });
    checks.tool_blocked(ctx, &session);
    reason_reached(&mut checks, ctx, &session, KILLED, "the reason the bridge died (SIGKILL)")?;
    if two_calls {
        checks.expect(
            ctx.sandbox.home.join("ABORTED").exists(),
            "a second shell call, its gate aborting the bridge (SIGABRT)",
            || format!("none ({})", session.summary()),
        );
        checks.expect(!ctx.sandbox.exists(SECOND), "the second shell call blocked (SIGABRT)", || {
            format!("it ran ({})", session.summary())
        });
        reason_reached(&mut checks, ctx, &session, ABORTED, "the reason the bridge died (SIGABRT)")?;
    }
    Ok(checks)
}

/// `reason` reached the model (a request) or the agent's user (its output, or what it records for the user
/// elsewhere: [`Agent::user_log`](super::agent::Agent::user_log)). Where the agent blocked the prompt before any
/// model request and its headless output drops a blocked prompt's reason
/// ([`Agent::hides_blocked_prompt`](super::agent::Agent::hides_blocked_prompt)), the answer its turn_start handler
/// gives it, run as the agent runs it, must hold the reason instead.
fn reason_reached(checks: &mut Checks, ctx: &Ctx<'_>, session: &Session, reason: &str, what: &str) -> Result<()> {
    let to_model = session.model_saw(reason);
    let to_user = session.finished.shown().contains(reason) || ctx.agent.user_log(&ctx.sandbox).contains(reason);
    if to_model || to_user {
        return Ok(());
    }
    if let Some(shell) = ctx.agent.hides_blocked_prompt()
        && session.requests.is_empty()
    {
        let answer = turn_start_answer(ctx, shell)?;
        checks.expect(answer.contains(reason), &format!("{what} (`{reason}`) in the agent's blocked prompt"), || {
            format!("an answer without it: {}", super::process::one_line(&answer))
        });
        return Ok(());
    }
    checks.expect(false, &format!("{what} (`{reason}`) shown to the model or the user"), || {
        format!("it nowhere ({})", session.summary())
    });
    Ok(())
}

/// What the agent's installed turn_start handler answers when `shell` runs it with the sandbox's environment (as the
/// agent ran it), its stdout and stderr together.
fn turn_start_answer(ctx: &Ctx<'_>, shell: &str) -> Result<String> {
    let event = ctx.agent.event(Point::TurnStart).context("the agent has no turn_start event")?;
    let path = ctx.sandbox.ws.join(ctx.agent.settings_file());
    let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)
        .with_context(|| format!("{} is not JSON", path.display()))?;
    let command = file["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .with_context(|| format!("no {event} handler in {}", path.display()))?;
    let mut run = ctx.sandbox.command(shell);
    run.args(["-c", command]);
    let finished = super::process::run(run, std::time::Duration::from_secs(30), &[], None)?;
    Ok(finished.shown())
}
