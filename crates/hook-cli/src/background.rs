//! The `async: true` observers of a bridge call, run to completion after the bridge has answered the agent.
//!
//! The agent waits for the bridge to exit, so the bridge cannot wait for an observer that takes seconds. Its
//! dispatch checks the async hooks the event matches (trust, fingerprint, `cwd`) but does not start them
//! ([`hook_middleware::pipeline::PipelineBuilder::hand_off_background`]); [`hand_off`] then starts a detached
//! runner, `hook background-run` (hidden from `--help`), and the bridge answers at once. The runner is still this
//! engine: it loads the workspace again (a hook changed since is untrusted there as anywhere), keeps only the hooks
//! it was handed, dispatches the event, and waits for each to end by itself — bounded by its timeout, its process
//! group (its Job Object on Windows) killed at the deadline, its receipt written with how it ended.
//!
//! **Bounded.** At most [`MAX_RUNNERS`] runners of one user run at once, each holding one slot file under the state
//! directory (`hooks/background/runner-N`) for its whole life; the lock goes when the runner goes, however it ends.
//! On Unix the lock is an `flock` the bridge takes and the runner inherits: the slot file, holding the input, is its
//! stdin. On Windows a `LockFileEx` lock cannot pass to a child, so the bridge and the runner each lock a byte of
//! their own and shake hands through the file (`background/windows_slot.rs`); the bridge waits at most 2 s for its
//! runner to take the slot. When every slot is taken, or the runner cannot start or take its slot, the observers of
//! that call do not run, and the bridge's answer says so. A runner also stops itself, killing what is left, a while
//! after the longest timeout a hook may have.
//!
//! **Detached.** The runner is in a process group of its own, with its stdout and stderr on `/dev/null` (`NUL`):
//! the agent sees the bridge end, and a signal the agent sends the bridge's group does not reach it. On Unix it
//! supervises its hooks like `hook run` (child subreaper, watchdog, cgroups where writable), so nothing outlives
//! it. On Windows it has no console (`DETACHED_PROCESS`) and leaves the agent's Job Object where that job allows
//! breakaway (else it stays in it, and ends when the agent's job is closed); each of its hooks runs in a Job Object
//! of its own that dies with the runner.

#[cfg(unix)]
use std::fs::{File, OpenOptions};
#[cfg(unix)]
use std::io::Read as _;
#[cfg(unix)]
use std::io::{Seek as _, SeekFrom, Write as _};
use std::path::Path;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

#[cfg(unix)]
use anyhow::Context as _;
use anyhow::Result;
use clap::Args;
use hook_agents::bridge::{agent_runs_it, parse_input_as};
#[cfg(unix)]
use hook_config::locked::{self, LockKind};
use hook_types::Protocol;

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::engine::{Engine, EngineOptions};

#[cfg(windows)]
mod windows_slot;

/// The most detached runners of one user that run at once.
pub const MAX_RUNNERS: usize = 16;

/// The most input a runner reads: the bridge's own bound on an agent's hook input.
const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// How long past the longest hook timeout (and its grace) a runner lets itself run before it kills what is left.
const RUNNER_MARGIN: Duration = Duration::from_secs(5);

/// `hook background-run`: what the bridge hands over.
#[derive(Debug, Args)]
pub struct RunnerArgs {
    /// The agent whose hook input is on stdin.
    #[arg(long, value_parser = crate::bridge::bridged_agent(), value_name = "AGENT")]
    pub protocol: Protocol,
    /// The agent's name for the event, where its input does not carry it.
    #[arg(long, value_name = "EVENT")]
    pub event: Option<String>,
    /// The ids of the `async: true` hooks the bridge's dispatch matched and checked.
    #[arg(long = "hook", value_name = "ID", required = true)]
    pub hooks: Vec<String>,
    /// The slot file the bridge wrote the input into (Windows: the input is not on stdin).
    #[cfg(windows)]
    #[arg(long, value_name = "FILE")]
    pub slot: PathBuf,
    /// The bridge's token for this hand-off (Windows), which the slot must still offer.
    #[cfg(windows)]
    #[arg(long, value_name = "HEX")]
    pub token: String,
}

/// What the bridge hands to a runner.
pub struct HandOff<'a> {
    /// The bridge's global arguments, with the workspace it resolved.
    pub global: &'a GlobalArgs,
    /// The workspace the bridge dispatched in.
    pub workspace: &'a Path,
    /// The agent.
    pub protocol: Protocol,
    /// `--event`, as the bridge got it.
    pub event: Option<&'a str>,
    /// The agent's hook input, as read.
    pub input: &'a [u8],
    /// The async hooks to run.
    pub hooks: &'a [String],
}

/// Starts a detached runner for `hand.hooks`, handing it a slot; `Err` says why they will not run, for the answer.
#[cfg(windows)]
pub fn hand_off(hand: &HandOff<'_>) -> Result<(), String> {
    let dir =
        slots_dir().ok_or("neither %LOCALAPPDATA% nor %USERPROFILE% is set, so there is no place for its slot")?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut command = runner_command(hand)?;
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    windows_slot::hand_off(&dir, hand.input, command)
}

/// Starts a detached runner for `hand.hooks`; `Err` says why they will not run, for the answer.
#[cfg(unix)]
pub fn hand_off(hand: &HandOff<'_>) -> Result<(), String> {
    let dir = slots_dir().ok_or("neither $XDG_STATE_HOME nor $HOME is set, so there is no place for its lock")?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut slot = take_slot(&dir)?;
    let write = |slot: &mut File| {
        slot.set_len(0)?;
        slot.write_all(hand.input)?;
        slot.seek(SeekFrom::Start(0)).map(|_| ())
    };
    write(&mut slot).map_err(|e| format!("cannot write its input under {}: {e}", dir.display()))?;
    let mut command = runner_command(hand)?;
    command.stdin(Stdio::from(slot)).stdout(Stdio::null()).stderr(Stdio::null());
    crate::platform::spawn_detached(&mut command).map(drop).map_err(|e| format!("cannot start the runner: {e}"))
}

/// `hook background-run` with what the runner needs to find and run the hooks the bridge matched.
fn runner_command(hand: &HandOff<'_>) -> Result<Command, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program to start it: {e}"))?;
    let mut command = Command::new(exe);
    command.args(global_args(hand.global, hand.workspace)).arg("background-run");
    command.arg("--protocol").arg(hand.protocol.as_str());
    if let Some(event) = hand.event {
        command.arg("--event").arg(event);
    }
    for id in hand.hooks {
        command.arg("--hook").arg(id);
    }
    Ok(command)
}

/// The global flags the runner needs to load what the bridge loaded.
fn global_args(global: &GlobalArgs, workspace: &Path) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = vec!["--workspace".into(), workspace.into()];
    if let Some(home) = &global.config_home {
        args.extend(["--config-home".into(), home.into()]);
    }
    if let Some(managed) = &global.managed_file {
        args.extend(["--managed-file".into(), managed.into()]);
    }
    args
}

/// `$XDG_STATE_HOME/hooks/background` (else `~/.local/state/…`; `%LOCALAPPDATA%\hooks\background` on Windows): the
/// runners' slot files.
fn slots_dir() -> Option<PathBuf> {
    let cache = hook_config::default_load_cache_dir()?;
    Some(cache.parent()?.join("background"))
}

/// The first slot file whose lock is free, locked; the lock is the runner's once the file is its stdin.
#[cfg(unix)]
fn take_slot(dir: &Path) -> Result<File, String> {
    for n in 0..MAX_RUNNERS {
        let path = dir.join(format!("runner-{n}"));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        if locked::flock_within(&file, &path, LockKind::Exclusive, Duration::ZERO).is_ok() {
            return Ok(file);
        }
    }
    Err(format!(
        "{MAX_RUNNERS} runners of earlier calls are still running their async hooks, the most that run at once; \
         these were skipped rather than piling up"
    ))
}

/// `hook background-run`: the runner itself. Its stdout and stderr go nowhere; what it did is in the receipts.
pub fn run(global: &GlobalArgs, args: &RunnerArgs) -> Result<u8> {
    #[cfg(unix)]
    let input = {
        let mut input = Vec::new();
        std::io::stdin().lock().take(MAX_INPUT_BYTES).read_to_end(&mut input).context("cannot read the hook input")?;
        input
    };
    // The slot's life lock is held until `_slot` goes, at the end of the run (or with the process).
    #[cfg(windows)]
    let (_slot, input) = windows_slot::take(&args.slot, &args.token)?;
    let read = parse_input_as(args.protocol, args.event.as_deref(), &input)?;
    let ctx = Context::new(global)?;
    crate::signals::supervise();
    let limits = crate::engine::limits();
    let whole = Duration::from_millis(limits.timeout_max_ms.saturating_add(limits.grace_ms));
    stop_after(whole + RUNNER_MARGIN);
    let options = EngineOptions { receipts: true, stateless: true, ..EngineOptions::default() };
    let agent = read.agent;
    let engine = Engine::new_keeping(&ctx, options, |hook| {
        hook.decl.run_async && !agent_runs_it(agent, hook) && args.hooks.contains(&hook.decl.id)
    })?;
    if let Err(signal) = engine.dispatch_until_signal(&read.input) {
        crate::signals::stop_hooks();
        return Ok(crate::signals::finish_interrupted(signal));
    }
    engine.end();
    Ok(crate::exit::SUCCESS)
}

/// A runner that is still running after `bound` kills its hooks and exits: the timeouts bound each hook, and this
/// bounds the runner if something in it does not return.
fn stop_after(bound: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(bound);
        crate::signals::stop_hooks();
        std::process::exit(i32::from(crate::exit::ERROR));
    });
}
