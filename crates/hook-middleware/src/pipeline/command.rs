//! Command hooks: what is checked right before a run, how the run is set up, and what its result means.
//!
//! Before every run of a user command hook (docs/trust.md, docs/limits.md#running-a-command-hook):
//! 1. its `cwd` is resolved again, symlinks included, from the workspace; if it now lands outside the workspace (a
//!    symlink swapped after load), is gone or is not a directory, the hook is refused: status `failed`, an Error
//!    entry, and its `on_error` applies (a native gate hook fails closed);
//! 2. for a hook whose origin was not trusted in its load (`LoadedHook::origin_trusted` is false: extension, project,
//!    project.local, and the user origin when its config home lies inside the workspace), its fingerprint is
//!    re-checked with [`hook_config::recheck`] (only files whose size or modification time changed are hashed
//!    again); if it no longer equals the fingerprint it was trusted with, the hook is not run: status `untrusted`, as
//!    at load. The origin's default trust is not enough to skip this: a user origin inside the workspace is the
//!    repository's, and its hooks run only on a fingerprint someone trusted. A file counts as unchanged only with
//!    the same size, modification time, ctime and inode, so an edit that restores the modification time, or a
//!    prepared file renamed over the script, is seen;
//! 3. such a hook's argv program (relative, or found through the hook's own `env: PATH`) is run by `hook-exec` from
//!    the very bytes it hashes, compared with the digest that was trusted
//!    ([`Invocation::verified_program`](hook_exec::Invocation::verified_program)): a swap after the re-check makes
//!    the hook `untrusted` rather than running unverified bytes. A script named as an argument or a shell word is
//!    covered by the re-check alone.
//!
//! The run gets the payload of its protocol on stdin, the environment of [`super::env`], the hook's `cwd` (else
//! the workspace) as working directory, and a relative argv program resolved at load (`CommandSpec::resolved_program`).
//! Its timeout is first held to its protocol's own bounds (clio-coder: 100 … 5 000 ms), then clamped by the host's
//! [`Limits`](hook_types::Limits); a clamp leaves a Warning entry. The capture limit and the grace come from the
//! `Limits` too.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use hook_config::{AsMode, CommandSpec, LoadedHook, Program};
use hook_exec::{EnvPolicy, Invocation, RunOptions, RunResult};
use hook_types::{EntryKind, Limits, OnError, OutputEntry, Protocol, RunStatus};

use super::env::hook_env;
use super::record::Record;
use super::registration::CommandAction;
use crate::EventInput;
use crate::protocol::{self, HookRules};

/// The stdin payloads of one input, built once per protocol.
#[derive(Default)]
pub(crate) struct Payloads {
    by_protocol: [OnceLock<Vec<u8>>; Protocol::ALL.len()],
}

impl Payloads {
    pub(crate) fn get(&self, protocol: Protocol, input: &EventInput) -> Vec<u8> {
        let slot = Protocol::ALL.iter().position(|p| *p == protocol).expect("every protocol is in ALL");
        self.by_protocol[slot].get_or_init(|| protocol::payload(protocol, input)).clone()
    }
}

/// What a dispatch gives every command run.
pub(crate) struct RunContext<'a> {
    pub input: &'a EventInput,
    pub limits: &'a Limits,
    pub workspace: &'a Path,
    pub env_policy: &'a EnvPolicy,
    pub payloads: &'a Payloads,
    pub evaluator: Option<&'a std::sync::Arc<dyn super::evaluated::HostEvaluator>>,
}

/// A run ready to start.
pub(crate) struct Prepared {
    pub invocation: Invocation,
    pub options: RunOptions,
    pub timeout_ms: u64,
    pub protocol: Protocol,
    pub on_error: OnError,
    pub as_mode: AsMode,
    /// Entries from the setup (a clamped timeout), put before the run's own.
    pub notes: Vec<OutputEntry>,
}

/// Why a user command hook was not run.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// What it runs changed since it was trusted.
    Untrusted(String),
    /// Its working directory is no longer usable.
    Failed(String),
}

/// Checks and sets up one run of a user command hook.
pub(crate) fn prepare_user(cx: &RunContext<'_>, hook: &LoadedHook, spec: &CommandSpec) -> Result<Prepared, Refusal> {
    let decl = &hook.decl;
    let cwd = confined_cwd(cx.workspace, spec).map_err(Refusal::Failed)?;
    if !hook.origin_trusted
        && let Some(trusted) = &hook.fingerprint
    {
        let now = hook_config::recheck(trusted, decl, cx.workspace);
        if now.value != trusted.value {
            return Err(Refusal::Untrusted(changed_files(trusted, &now)));
        }
    }
    let mut verified = None;
    let program = match &spec.program {
        Program::Argv(argv) => {
            let mut argv: Vec<std::ffi::OsString> = argv.iter().map(Into::into).collect();
            // A relative program resolved at load, or a bare name found through the hook's own `env: PATH`: run
            // exactly that file, not whatever a lookup finds now.
            let pinned = spec.resolved_program.clone().or_else(|| hook_config::program_on_hook_path(spec));
            if let (Some(pinned), Some(first)) = (pinned, argv.first_mut()) {
                verified = verified_digest(hook, &pinned);
                *first = pinned.into_os_string();
            }
            hook_exec::Program::Argv(argv)
        }
        Program::Shell(line) => hook_exec::Program::Shell(line.clone()),
        Program::PowerShell(line) => hook_exec::Program::PowerShell(line.clone()),
    };
    let source_dir = decl.source.parent().filter(|p| !p.as_os_str().is_empty());
    let mut invocation = Invocation::new(program).cwd(cwd).env_policy(cx.env_policy.clone());
    invocation.verified_program = verified;
    invocation.stdin = cx.payloads.get(decl.protocol, cx.input);
    invocation.env_add = hook_env(cx.input, decl.protocol, cx.workspace, source_dir, &spec.env, &invocation.stdin);
    let (timeout_ms, notes) = clamp(cx.limits, decl.protocol, spec.timeout_ms);
    Ok(Prepared {
        invocation,
        options: options(cx.limits, timeout_ms),
        timeout_ms,
        protocol: decl.protocol,
        on_error: decl.on_error,
        as_mode: spec.as_mode,
        notes,
    })
}

/// For a hook that runs only on trust: the digest its program had when it was trusted (the re-check just
/// confirmed it), so `hook-exec` runs exactly those bytes and refuses anything swapped in since.
fn verified_digest(hook: &LoadedHook, program: &Path) -> Option<String> {
    if hook.origin_trusted {
        return None;
    }
    let canonical = hook_config::canonicalize(program).ok()?;
    hook.fingerprint.as_ref()?.files.iter().find(|f| f.path == canonical).map(|f| f.sha256.clone())
}

/// Sets up one run of a host command registration: its own invocation (cwd, environment policy) plus the payload
/// and the pipeline's variables.
pub(crate) fn prepare_guard(cx: &RunContext<'_>, action: &CommandAction, on_error: Option<OnError>) -> Prepared {
    let event = &cx.input.event;
    let mut invocation = action.invocation.clone();
    if invocation.cwd.is_none() {
        invocation.cwd = Some(cx.workspace.to_path_buf());
    }
    invocation.stdin = cx.payloads.get(action.protocol, cx.input);
    let vars = hook_env(cx.input, action.protocol, cx.workspace, None, &Default::default(), &invocation.stdin);
    invocation.env_add.extend(vars);
    let declared = u64::try_from(action.timeout.as_millis()).unwrap_or(u64::MAX);
    let (timeout_ms, notes) = clamp(cx.limits, action.protocol, declared);
    Prepared {
        invocation,
        options: options(cx.limits, timeout_ms),
        timeout_ms,
        protocol: action.protocol,
        on_error: on_error.unwrap_or_else(|| action.protocol.default_on_error(event)),
        as_mode: action.as_mode.unwrap_or_else(|| AsMode::default_for(event)),
        notes,
    }
}

/// Fills `record` from a finished (not cancelled) run.
pub(crate) fn interpret(record: &mut Record, prepared: &Prepared, input: &EventInput, run: &RunResult) {
    if let Some(hook_exec::SpawnError::Changed { program, .. }) = &run.spawn_error {
        // Swapped between the re-check and the exec: as untrusted as a change the re-check had seen.
        let what = format!("`{}` changed", std::path::Path::new(program).display());
        refuse(record, input, prepared.on_error, Refusal::Untrusted(what));
        record.set_duration(run.duration);
        return;
    }
    if let Some(what) = missing_interpreter(&prepared.invocation.program, run) {
        // The engine's own runner for the line is missing here: whatever the protocol makes of a hook's failures
        // (Claude Code's lets the tool run), a guard that could not start at all denies on a gate.
        refuse(record, input, OnError::Deny, Refusal::Failed(what));
        record.set_duration(run.duration);
        return;
    }
    let rules = HookRules {
        hook_id: &record.meta.hook_id,
        protocol: prepared.protocol,
        on_error: prepared.on_error,
        as_mode: prepared.as_mode,
        timeout_ms: Some(prepared.timeout_ms),
    };
    let interpretation = protocol::interpret(&rules, input, run);
    record.summary.status = interpretation.status;
    record.summary.exit_code = protocol::exit_code(run);
    record.summary.entries = prepared.notes.clone();
    record.summary.entries.extend(interpretation.entries);
    record.set_duration(run.duration);
    record.output_bytes = (run.stdout.len() + run.stderr.len()) as u64;
    record.emitted = interpretation.effects.iter().map(hook_types::Effect::kind).collect();
    record.effects = interpretation.effects;
    record.decision = interpretation.decision;
    record.summary.replay = interpretation.replay;
}

/// Why a line's interpreter (`sh`, `cmd`, PowerShell) could not be started, for a run that never began; `None` for
/// any other run, an argv program's own failure to start included.
fn missing_interpreter(program: &hook_exec::Program, run: &RunResult) -> Option<String> {
    use hook_exec::SpawnError::{NotExecutable, NotFound};
    let (runner, fix) = match program {
        hook_exec::Program::PowerShell(_) => (
            "PowerShell",
            "install PowerShell 7 (`pwsh`) where the agent runs, or rewrite the hook as a `shell` or `argv` command",
        ),
        hook_exec::Program::Shell(_) => ("the system shell", "check the system shell where the agent runs"),
        hook_exec::Program::Argv(_) => return None,
    };
    match &run.spawn_error {
        Some(error @ (NotFound { .. } | NotExecutable { .. })) => {
            Some(format!("could not start: {runner} cannot run here ({error}); {fix}"))
        }
        _ => None,
    }
}

/// Fills `record` for a hook refused before its run.
pub(crate) fn refuse(record: &mut Record, input: &EventInput, on_error: OnError, refusal: Refusal) {
    match refusal {
        Refusal::Untrusted(what) => {
            record.summary.status = RunStatus::Untrusted;
            record.modified = true;
            record.entry(
                EntryKind::Feedback,
                format!("not run: {what} since it was trusted; run `hook trust` to trust it again"),
            );
        }
        Refusal::Failed(what) => record.fail(&input.event, on_error == OnError::Deny, &what),
    }
}

fn options(limits: &Limits, timeout_ms: u64) -> RunOptions {
    RunOptions {
        timeout: Duration::from_millis(timeout_ms),
        capture_limit: limits.capture_limit_bytes,
        grace: Duration::from_millis(limits.grace_ms),
        ..RunOptions::default()
    }
}

/// The protocol's own bounds, then the host's clamp; a Warning entry when the timeout changed.
pub(crate) fn clamp(limits: &Limits, protocol: Protocol, declared: u64) -> (u64, Vec<OutputEntry>) {
    let mut timeout = declared;
    let mut notes = Vec::new();
    if let Some((low, high)) = protocol.timeout_bounds_ms() {
        timeout = timeout.clamp(low, high);
        if timeout != declared {
            notes.push(OutputEntry::new(
                EntryKind::Warning,
                format!("timeout {declared} ms held to {timeout} ms ({protocol} allows {low} … {high} ms)"),
            ));
        }
    }
    let (clamped, changed) = limits.clamp_timeout_ms(timeout);
    if changed {
        notes.push(OutputEntry::new(
            EntryKind::Warning,
            format!(
                "timeout {timeout} ms clamped to {clamped} ms by the host's limits ({} … {} ms)",
                limits.timeout_min_ms, limits.timeout_max_ms
            ),
        ));
    }
    (clamped, notes)
}

/// Resolves the hook's `cwd` again and checks it is a directory inside the (canonical) workspace.
fn confined_cwd(workspace: &Path, spec: &CommandSpec) -> Result<PathBuf, String> {
    let resolved = hook_config::canonicalize(workspace.join(&spec.cwd))
        .map_err(|e| format!("was refused: its cwd `{}` does not resolve: {e}", spec.cwd))?;
    if !resolved.starts_with(workspace) {
        return Err(format!(
            "was refused: its cwd `{}` now resolves to {}, outside the workspace {}",
            spec.cwd,
            resolved.display(),
            workspace.display()
        ));
    }
    if !resolved.is_dir() {
        return Err(format!("was refused: its cwd `{}` ({}) is not a directory", spec.cwd, resolved.display()));
    }
    Ok(resolved)
}

/// "`scripts/guard.sh` changed" for the files whose digest differs (or the declaration, if no file did).
fn changed_files(trusted: &hook_config::Fingerprint, now: &hook_config::Fingerprint) -> String {
    let mut changed: Vec<String> = now
        .files
        .iter()
        .filter(|f| !trusted.files.iter().any(|t| t.path == f.path && t.sha256 == f.sha256))
        .map(|f| format!("`{}`", f.path.display()))
        .collect();
    changed.extend(
        trusted
            .files
            .iter()
            .filter(|t| !now.files.iter().any(|f| f.path == t.path))
            .map(|t| format!("`{}` (now missing)", t.path.display())),
    );
    match changed.len() {
        0 => "what it runs changed".to_owned(),
        1 => format!("{} changed", changed[0]),
        _ => format!("{} changed", changed.join(", ")),
    }
}
