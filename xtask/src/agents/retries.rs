//! A refused model tries again in other words: `force_push_retries` loads a native `command:` guard against force
//! pushes and scripts the model to push with `--force`, then with `-f`, then through `bash -c`, each followed by a
//! mark of its own in the same tool call. None of the three may run, the model must see the reason after each, and a
//! plain `git status` afterwards must run: the guard reads the parsed command, not its spelling.

use anyhow::Result;

use super::agent::Approver;
use super::server::Step;
use super::session::{Checks, Ctx};

/// The guard: the `command:` matcher of the example guards, reduced to the force push.
const GUARD: &str = "  - id: no-force-push\n    on: pre_tool\n    tools: [shell]\n    command:\n      program: git\n      \
                     args: [push, \"--force|-f\"]\n    kind: effect\n    \
                     effect: {kind: block_tool, reason: \"FORCE-7781 force pushes rewrite shared history\"}\n";

/// The reason the model must see after each refused retry.
const REASON: &str = "FORCE-7781";

/// The retries, each with the mark it leaves when it runs.
const RETRIES: [(&str, &str); 3] = [
    ("git push --force origin main", "RAN-LONG"),
    ("git push -f origin main", "RAN-SHORT"),
    ("bash -c 'git push --force origin main'", "RAN-NESTED"),
];

/// The call that must run after them.
const ALLOWED: (&str, &str) = ("git status", "RAN-STATUS");

/// The guard denies every spelling of the force push and lets the plain command through.
pub fn force_push_retries(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(GUARD)?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let mut script: Vec<Step> =
        RETRIES.iter().chain([&ALLOWED]).map(|(line, mark)| Step::Shell(format!("{line}; touch {mark}"))).collect();
    script.push(Step::Text("done".into()));
    let session = ctx.run(script, Approver::Preapproved)?;
    let mut checks = Checks::default();
    for (k, (line, mark)) in RETRIES.iter().enumerate() {
        checks.expect(!ctx.sandbox.exists(mark), &format!("`{line}` refused"), || {
            format!("it ran ({})", session.summary())
        });
        // The request after the k-th call carries the conversation so far: a reason for each refusal up to it.
        let seen = session.turns.get(k + 1).map_or(0, |t| t.body.matches(REASON).count());
        checks.expect(seen > k, &format!("the reason ({REASON}) after `{line}`"), || {
            format!("{seen} in that request ({})", session.summary())
        });
    }
    checks.expect(ctx.sandbox.exists(ALLOWED.1), &format!("`{}` to run", ALLOWED.0), || {
        format!("it did not ({})", session.summary())
    });
    Ok(checks)
}
