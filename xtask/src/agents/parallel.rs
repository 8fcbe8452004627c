//! The scenarios of several agents at once: each agent's run in a worker process of its own (this same `xtask
//! agents`, with `--agent`), at most `--jobs` at a time. A worker is a child subreaper of its own, so what an
//! agent leaves running is adopted and killed by its worker between scenarios, never by another agent's.
//!
//! The agents spend most of a scenario waiting (on the model server, on their own timers, on hooks that sleep), so
//! two at a time on two cores take about half the wall time of one after the other; the bridge's overhead is still
//! measured afterwards, alone.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, mpsc};

use anyhow::{Context, Result};

use super::Flags;
use super::agent::Agent;

/// The variable that hands a worker the `hook` binary the suite built, so that it does not build it again.
pub const HOOK_VAR: &str = "XTASK_AGENTS_HOOK";

/// How many agents run at once without `--jobs`: one per core, at most two (the agents' own start-up is CPU-bound,
/// and their hooks' deadlines are real).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

/// Runs every agent's scenarios (those `flags` select) in workers, `jobs` at a time, and prints each agent's lines
/// in the suite's order as soon as the agents before it are done. Returns how many scenarios passed and failed; a
/// worker that ends without its tally counts as one failure, and what it printed is shown.
pub fn scenarios(agents: &[&dyn Agent], flags: &Flags, jobs: usize, hook: &Path) -> Result<(usize, usize)> {
    let exe = std::env::current_exe().context("cannot find the xtask executable to run workers")?;
    // Longest first ([`Agent::suite_seconds`]), so that the last worker does not start a long agent alone.
    let mut order: Vec<(usize, &dyn Agent)> = agents.iter().copied().enumerate().collect();
    order.sort_by_key(|(_, agent)| std::cmp::Reverse(agent.suite_seconds()));
    let queue = Mutex::new(order.into_iter().map(|(i, a)| (i, a.name())).collect::<VecDeque<_>>());
    let (sender, receiver) = mpsc::channel::<(usize, std::io::Result<Output>)>();
    let (mut passed, mut failed) = (0, 0);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            let (queue, sender, exe) = (&queue, sender.clone(), &exe);
            scope.spawn(move || {
                while let Some((index, name)) = queue.lock().map_or(None, |mut q| q.pop_front()) {
                    if sender.send((index, worker(exe, name, flags, hook))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        let mut done: Vec<Option<std::io::Result<Output>>> = agents.iter().map(|_| None).collect();
        let mut next = 0;
        for (index, output) in receiver {
            done[index] = Some(output);
            while let Some(output) = done.get_mut(next).and_then(Option::take) {
                let (p, f) = report(agents[next].name(), output);
                (passed, failed) = (passed + p, failed + f);
                next += 1;
            }
        }
    });
    Ok((passed, failed))
}

/// Runs one agent's scenarios in a worker and waits for it.
fn worker(exe: &PathBuf, agent: &str, flags: &Flags, hook: &Path) -> std::io::Result<Output> {
    let mut command = Command::new(exe);
    command.args(["agents", "--agent", agent, "--no-measure"]).env(HOOK_VAR, hook);
    if let Some(scenario) = &flags.scenario {
        command.args(["--scenario", scenario]);
    }
    if flags.keep {
        command.arg("--keep");
    }
    command.stdin(Stdio::null()).output()
}

/// Prints a worker's scenario lines and returns its tally.
fn report(agent: &str, output: std::io::Result<Output>) -> (usize, usize) {
    let output = match output {
        Ok(output) => output,
        Err(err) => {
            println!("{agent:<7} worker could not start: {err}");
            return (0, 1);
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut tally = None;
    for line in stdout.lines() {
        match parse_tally(line) {
            Some(counts) => tally = Some(counts),
            None => println!("{line}"),
        }
    }
    match tally {
        Some(counts) if output.status.success() || counts.1 > 0 => counts,
        _ => {
            println!("{agent:<7} worker ended without its tally ({}); its errors:", output.status);
            for line in
                String::from_utf8_lossy(&output.stderr).lines().rev().take(20).collect::<Vec<_>>().into_iter().rev()
            {
                println!("    {line}");
            }
            (tally.map_or(0, |t| t.0), tally.map_or(0, |t| t.1) + 1)
        }
    }
}

/// `N passed, M failed`, the last line of a run.
fn parse_tally(line: &str) -> Option<(usize, usize)> {
    let (passed, failed) = line.split_once(" passed, ")?;
    Some((passed.parse().ok()?, failed.strip_suffix(" failed")?.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_line_is_read_and_nothing_else_is() {
        assert_eq!(parse_tally("12 passed, 3 failed"), Some((12, 3)));
        assert_eq!(parse_tally("claude  deny  ok  (1 passed, 0 failed)"), None);
        assert_eq!(parse_tally("passed, failed"), None);
    }
}
