//! The bridge's added wall time per tool call, measured end to end: the same scripted run of [`CALLS`] shell calls
//! with a trivial hook of the agent's own on PreToolUse and PostToolUse, and with `hook bridge` there instead
//! (dispatching one trusted native no-op gate), [`PAIRS`] runs of each, interleaved so that drift in the machine's
//! load hits both alike; the difference of the medians divided by the calls.

use std::path::Path;
use std::time::Duration;

use anyhow::{Result, bail};

use super::agent::{Agent, Approver, Point, write_own_hooks};
use super::npm::Installed;
use super::process::Sandbox;
use super::server::Step;
use super::session::Ctx;

/// Shell calls per run.
const CALLS: usize = 10;

/// Runs of each kind.
const PAIRS: usize = 5;

/// Measures and describes the bridge's overhead for `agent`.
pub fn bridge_overhead(agent: &dyn Agent, installed: &Installed, hook: &Path, runs: &Path) -> Result<String> {
    let dir = runs.join(agent.name()).join("measure");
    let own = Ctx::new(agent, installed, Sandbox::create(&dir.join("own"), hook)?, Duration::from_secs(600))?;
    let bridged = Ctx::new(agent, installed, Sandbox::create(&dir.join("bridge"), hook)?, Duration::from_secs(600))?;
    let matcher = Some(agent.shell_matcher());
    let noop = "cat >/dev/null";
    write_own_hooks(agent, &own.sandbox, &[(Point::PreTool, matcher, noop), (Point::PostTool, matcher, noop)])?;
    let bridge = format!("hook bridge --protocol {}", agent.name());
    write_own_hooks(
        agent,
        &bridged.sandbox,
        &[(Point::PreTool, matcher, &bridge), (Point::PostTool, matcher, &bridge)],
    )?;
    bridged.native_hooks("  - id: measure-noop\n    on: pre_tool\n    kind: command\n    argv: [\"true\"]\n")?;
    bridged.trust_all()?;
    let script = || {
        let mut steps: Vec<Step> = (0..CALLS).map(|i| Step::Shell(format!("echo call-{i}"))).collect();
        steps.push(Step::Text("done".into()));
        steps
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..PAIRS {
        for (ctx, times) in [(&own, &mut a), (&bridged, &mut b)] {
            let session = ctx.run(script(), Approver::Preapproved)?;
            if session.turns.len() != CALLS + 1 || session.finished.code != Some(0) {
                bail!("a measured run did not finish its script ({})", session.summary());
            }
            times.push(session.finished.elapsed.as_secs_f64());
        }
    }
    let (own_median, bridge_median) = (median(&mut a), median(&mut b));
    let _ = std::fs::remove_dir_all(&dir);
    Ok(format!(
        "{:+.0} ms per tool call (PreToolUse + PostToolUse; median of {PAIRS} interleaved runs of {CALLS} calls: \
         own trivial hook {own_median:.2} s, bridge {bridge_median:.2} s)",
        (bridge_median - own_median) * 1000.0 / CALLS as f64
    ))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
