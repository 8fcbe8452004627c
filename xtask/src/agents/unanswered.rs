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
//! Either way the shell tool must not run, and the reason must reach the model or the agent's user. Left to itself,
//! every pinned agent runs the tool when its hook process is not found or dies by a signal (Gemini CLI alone denies
//! on exit 127, since it reads the shell's "not found" as a reason); only the installed handler can stop it.

use anyhow::Result;

use super::agent::Approver;
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

/// Words of the handler's reason when `hook` cannot be found: one of them must reach the model or the user.
const MISSING_WORDS: &[&str] = &["not found", "PATH", "exit status '127'", "exit status 127"];

/// Words of the handler's reason when the bridge died by a signal.
const KILLED_WORDS: &[&str] = &["signal", "killed", "exit status '137'", "exit status 137"];

/// `hook` is missing from the agent's `PATH`: the shell tool does not run, and the reason reaches the model or user.
pub fn hook_missing(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(PASSING_GATE)?;
    ctx.install(false)?;
    ctx.trust_all()?;
    ctx.sandbox.take_hook_off_path()?;
    let session = ctx.run(super::scenarios::tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(!ctx.sandbox.exists("GATE-RAN"), "the engine never to run (`hook` not on PATH)", || {
        "the gate ran".into()
    });
    checks.tool_blocked(ctx, &session);
    reason_reached(&mut checks, ctx, &session, MISSING_WORDS, "the reason `hook` was not found");
    Ok(checks)
}

/// The bridge is killed mid-dispatch (SIGKILL, then SIGABRT where the agent makes a second call): neither shell call
/// runs, and the reason reaches the model or user.
pub fn bridge_killed(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(KILLING_GATE)?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let two_calls = ctx.agent.name() != "cline";
    let script = if two_calls {
        vec![
            Step::Shell(format!("touch {SENTINEL}")),
            Step::Shell(format!("touch {SECOND}")),
            Step::Text("done".into()),
        ]
    } else {
        super::scenarios::tool_then_done()
    };
    let session = ctx.run(script, Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(ctx.sandbox.home.join("KILLED-ONCE").exists(), "the gate to kill the bridge (SIGKILL)", || {
        format!("the gate never ran ({})", session.summary())
    });
    checks.tool_blocked(ctx, &session);
    if two_calls {
        checks.expect(
            ctx.sandbox.home.join("ABORTED").exists(),
            "a second shell call, its gate aborting the bridge (SIGABRT)",
            || format!("none ({})", session.summary()),
        );
        checks.expect(!ctx.sandbox.exists(SECOND), "the second shell call blocked (SIGABRT)", || {
            format!("it ran ({})", session.summary())
        });
    }
    reason_reached(&mut checks, ctx, &session, KILLED_WORDS, "the reason the bridge died");
    Ok(checks)
}

/// One of `words` reached the model (in a request after the first, and not already in the first: the system prompt
/// and tool descriptions of some agents mention a `PATH` or a signal) or the agent's user (its output, or what it
/// records for the user elsewhere: [`Agent::user_log`](super::agent::Agent::user_log)).
fn reason_reached(checks: &mut Checks, ctx: &Ctx<'_>, session: &Session, words: &[&str], what: &str) {
    let first = session.turns.first().map(|t| t.body.as_str()).unwrap_or("");
    let to_model = session.turns.iter().skip(1).any(|t| words.iter().any(|w| t.body.contains(w) && !first.contains(w)));
    let shown = session.finished.shown() + &ctx.agent.user_log(&ctx.sandbox);
    let to_user = words.iter().any(|w| shown.contains(w));
    checks.expect(
        to_model || to_user,
        &format!("{what} ({}) shown to the model or the user", words.join(" | ")),
        || format!("it nowhere ({})", session.summary()),
    );
}
