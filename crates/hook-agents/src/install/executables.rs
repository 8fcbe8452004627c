//! Install into an agent whose hooks are one executable per event in a directory (the agent table's
//! [`HandlerShape::EventExecutables`](hook_types::HandlerShape::EventExecutables): Cline's `.cline/hooks/PreToolUse`).
//!
//! The directory of the scope (`.cline/hooks`, `~/Documents/Cline/Hooks`) takes the place of the agent's settings
//! file:
//!
//! 1. **The agent's own hook files move aside**, each into [`ASIDE_DIR`] inside the same directory (a subdirectory,
//!    which the agent does not read: it runs only the regular files directly in its hooks directory), by a rename
//!    that keeps its bytes, mode and times. The native file of the scope gets each as a command hook of the agent's
//!    protocol running that moved file as the agent ran it (its shebang's interpreter, or its extension's), so the
//!    bridge runs it, once, and its answer is read by the agent's rules. Its trust is taken from the file where it now
//!    is, checked to be the file shown.
//! 2. **A bridge script per event** is written as `<dir>/<Event>` ([`bridge_script`], mode 0755): `exec` of the
//!    bridge command, which the agent runs with the event's input on stdin. An event that already has a bridge
//!    script gets none.
//! 3. **Uninstall** removes each bridge script that still holds what install wrote, renames each moved file back
//!    (its bytes and mode are what they were), and removes the directories install created once empty: a directory
//!    that held nothing of the engine's is byte for byte what it was.
//!
//! Hooks in the agent's other directories of the scope (Cline's deprecated `.clinerules/hooks`) stay where they are:
//! the agent keeps running them itself, and install lists them as kept.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::InstallError;
use super::agent::{Agent, AgentInstall, InstallScope};
use super::handlers::Handler;
use super::plan::{InstallPlan, InstallRequest, KeptHandler, Paths, kept_beside, plan_native, settle_trust};
use hook_config::{FileContext, Format, IssueSeverity, parse_str};
use hook_types::Limits;

/// The subdirectory of the agent's hooks directory its own hook files move into.
pub const ASIDE_DIR: &str = "moved-by-hook";

/// The bridge script install writes for the agent's event `event`: it runs the bridge command. On a gate event
/// whose answer the agent reads, that is the fail-closed wrapper ([`super::guarded_command`]): a bridge that cannot
/// answer (not on `PATH`, killed, hung) gets the agent's blocking answer, Cline's `cancel`. Elsewhere, when the
/// shell cannot run the bridge at all (exit 126 or 127, or killed by a signal), the script leaves a note for the
/// model, since Cline reads a script that prints nothing as no objection and shows no hook error.
///
/// ```
/// use hook_agents::install::{bridge_script, Agent};
/// use hook_types::Limits;
/// let script = bridge_script(Agent::Cline, "PreToolUse", "hook bridge --protocol cline", &Limits::default());
/// assert!(script.starts_with("#!/bin/sh\n") && script.contains(" hook bridge --protocol cline <&3 3<&- &"));
/// assert!(script.contains(r#"{"cancel":true"#));
/// ```
pub fn bridge_script(agent: Agent, event: &str, command: &str, limits: &Limits) -> String {
    let name = agent.as_str();
    let head = format!(
        "#!/bin/sh\n# Written by `hook install --agent {name}`: hands {event} to the hook engine.\n# `hook uninstall \
         --agent {name}` removes it.\n"
    );
    if super::guards_event(agent, event) {
        return format!("{head}{}\n", super::guarded_command(agent, event, command, limits));
    }
    let why = "hook bridge could not run (exit status '\"$status\"'); is `hook` on PATH?";
    let answer = format!(r#"{{"contextModification":"[hook notice for the user] {why}"}}"#);
    format!("{head}{command}\nstatus=$?\nif [ \"$status\" -ge 126 ]; then\n  printf '%s\\n' '{answer}'\nfi\nexit 0\n")
}

/// One of the agent's own hook files install moved aside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMove {
    /// Where it was (and goes back to).
    pub from: PathBuf,
    /// Where it is now.
    pub to: PathBuf,
    /// sha256 (hex) of its bytes when install moved it.
    pub sha256: String,
}

/// A file install wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrittenFile {
    /// The file.
    pub path: PathBuf,
    /// sha256 (hex) of what install wrote: uninstall removes it only while it still holds exactly that.
    pub sha256: String,
}

/// What install did in the agent's directory, for uninstall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutablesChange {
    /// The directory.
    pub dir: PathBuf,
    /// Directories install created (the directory and its missing parents, the aside directory), outermost first.
    pub created_dirs: Vec<PathBuf>,
    /// The bridge scripts written.
    pub bridges: Vec<WrittenFile>,
    /// The agent's own hook files moved aside, in order.
    pub moved: Vec<FileMove>,
}

/// What install will do in the agent's directory.
#[derive(Debug, Clone)]
pub(crate) struct ExecutablesPlan {
    /// The directory.
    pub(crate) dir: PathBuf,
    /// Each bridge script to write: its event and path, and its text.
    pub(crate) bridges: Vec<(PathBuf, String)>,
    /// The agent's own hook files to move aside.
    pub(crate) moves: Vec<FileMove>,
    /// Other directories to create beside `dir`, once each (a plugin's dependency directory).
    pub(crate) dirs: Vec<PathBuf>,
    /// The mode of the files written: 0755 for scripts the agent runs, 0644 for a module it loads.
    pub(crate) mode: u32,
}

pub(crate) fn digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> InstallError + 'a {
    move |source| InstallError::Io { action, path: path.to_path_buf(), source }
}

/// The hook files of `dir` and whether each runs the bridge.
fn listing(
    request: &InstallRequest<'_>,
    dir: &Path,
) -> Result<Vec<(hook_config::EventExecutable, bool)>, InstallError> {
    let found = hook_config::event_executables(request.agent, dir).map_err(io("cannot list", dir))?;
    let Some((found, more)) = found else { return Ok(Vec::new()) };
    if more {
        return Err(InstallError::Unsupported {
            path: dir.to_path_buf(),
            message: format!("it holds more than {} entries", hook_config::EVENT_EXECUTABLES_MAX_ENTRIES),
        });
    }
    let mut out = Vec::with_capacity(found.len());
    for file in found {
        let head = hook_config::event_executable_head(&file.path).map_err(io("cannot read", &file.path))?;
        let bridge =
            hook_config::event_executable_bridge_line(&head).is_some_and(|l| request.program.invokes_bridge_line(&l));
        out.push((file, bridge));
    }
    Ok(out)
}

/// The native declaration of the agent's hook file `file` once moved to `to`: the command the agent runs for it
/// there, of the agent's protocol.
fn moved_decl(
    request: &InstallRequest<'_>,
    paths: &Paths,
    event: &'static str,
    head: &str,
    to: &Path,
) -> Result<hook_config::HookDecl, InstallError> {
    let shown = match paths.origin {
        hook_types::Origin::User => to.display().to_string(),
        _ => to.strip_prefix(&paths.workspace).unwrap_or(to).display().to_string(),
    };
    let argv = hook_config::event_executable_argv(to, head, &shown);
    let agent = request.agent.agent();
    let on = match agent.event(event).and_then(|row| row.event.as_ref()) {
        Some(canonical) => canonical.canonical_name().to_owned(),
        None => format!("foreign:{event}"),
    };
    let text = json!([{"on": on, "kind": "command", "protocol": request.agent.as_str(), "argv": argv}]).to_string();
    let root = paths.native_root();
    let cx = FileContext { origin: paths.origin, workspace: &paths.workspace, root: &root, source_id: None };
    let mut load = parse_str(&text, &paths.native_file, Format::Native, &cx);
    if let Some(error) = load.issues.iter().find(|i| i.severity == IssueSeverity::Error) {
        return Err(InstallError::Verify { path: paths.native_file.clone(), message: error.message.clone() });
    }
    load.hooks.pop().ok_or_else(|| InstallError::Verify {
        path: paths.native_file.clone(),
        message: format!("the hook of `{}` did not load", to.display()),
    })
}

/// Plans an install into the agent's directory of the scope (see the module docs). Nothing is written.
pub(crate) fn plan(request: &InstallRequest<'_>) -> Result<InstallPlan, InstallError> {
    let paths = Paths::of(request)?;
    let dir = paths.agent_file.clone();
    // The agent's files carry no timeout: it gives every hook its protocol's (Cline: 120 s) and, past it, goes on as
    // if the hook had not answered. The bridge must answer before that.
    let needed =
        request.limits.dispatch_deadline_ms.saturating_add(request.limits.grace_ms) + super::BRIDGE_TIMEOUT_MARGIN_MS;
    let allowed = request.agent.default_timeout_ms();
    if needed > allowed {
        return Err(InstallError::Unsupported {
            path: dir,
            message: format!(
                "{} gives a hook {allowed} ms and then runs the tool as if it had not answered, and the bridge may take \
                 {needed} ms (the dispatch deadline, its grace and a margin); lower the dispatch deadline",
                request.agent.display_name()
            ),
        });
    }
    paths.confines.0.resolve_dir(&dir)?;
    let aside = dir.join(ASIDE_DIR);
    let listed = listing(request, &dir)?;
    let mut bridged: Vec<String> = Vec::new();
    let mut movable = Vec::new();
    let mut moves = Vec::new();
    for (index, (file, bridge)) in listed.into_iter().enumerate() {
        if bridge {
            if !bridged.iter().any(|e| e == file.event) {
                bridged.push(file.event.to_owned());
            }
            continue;
        }
        let name = file.path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        let to = aside.join(&name);
        if fs::symlink_metadata(&to).is_ok() {
            return Err(InstallError::Unsupported {
                path: to,
                message: format!(
                    "install moves `{}` here, and something is already there; move it away first",
                    file.path.display()
                ),
            });
        }
        let bytes = fs::read(&file.path).map_err(io("cannot read", &file.path))?;
        let head = hook_config::event_executable_head(&file.path).map_err(io("cannot read", &file.path))?;
        let decl = moved_decl(request, &paths, file.event, &head, &to)?;
        let handler = Handler {
            event: file.event.to_owned(),
            group: None,
            index,
            value: json!({"file": file.path.display().to_string()}),
            group_keys: serde_json::Map::new(),
        };
        movable.push((handler, decl));
        moves.push(FileMove { from: file.path, to, sha256: digest(&bytes) });
    }
    let mut kept: Vec<KeptHandler> = kept_beside(request, &paths);
    for hook in &mut kept {
        hook.reason = hook.reason.replace("hook install does not edit", "hook install does not move hooks out of");
    }
    let native = plan_native(request, &paths, movable)?;
    let mut moved = native.moved.clone();
    settle_trust(&paths, &mut moved)?;
    // The fingerprint covers the moved file where it will be: taken again once it is there.
    for hook in &mut moved {
        hook.fingerprint = None;
    }

    let mut events: Vec<String> = request.agent.install_events().into_iter().map(str::to_owned).collect();
    for hook in &moved {
        if let hook_types::Event::Foreign(name) = &hook.decl.event
            && !events.contains(name)
        {
            events.push(name.clone());
        }
    }
    let (elsewhere, narrower) = bridged_in_other_scopes(request, &paths, &mut bridged)?;
    let added: Vec<String> = events.into_iter().filter(|e| !bridged.contains(e)).collect();
    let mut bridges = Vec::new();
    for event in &added {
        let path = dir.join(event);
        let moving = moves.iter().any(|m| m.from == path);
        if !moving && fs::symlink_metadata(&path).is_ok() {
            return Err(InstallError::Unsupported {
                path,
                message: format!(
                    "the bridge script for {event} goes here, and something that is not a hook file of {} is \
                     there (a symlink or a directory); move it away first",
                    request.agent.display_name()
                ),
            });
        }
        bridges.push((path, bridge_script(request.agent, event, &request.command, &request.limits)));
    }
    let plan = ExecutablesPlan { dir, bridges, moves, dirs: Vec::new(), mode: 0o755 };
    let native = super::plan::NativePlan { moved: Vec::new(), original: native.original, new: native.new };
    Ok(InstallPlan::of_executables(request, paths, added, moved, kept, native, (elsewhere, narrower), plan))
}

/// Whether the agent's `event` is a gate whose answer the agent reads (Cline's PreToolUse).
/// The agent runs the hooks of all its directories: a bridge script a broader scope's directory holds on an event
/// serves this workspace too, so none is added here; a narrower one's serves that workspace only (and is reported).
fn bridged_in_other_scopes(
    request: &InstallRequest<'_>,
    paths: &Paths,
    bridged: &mut Vec<String>,
) -> Result<super::plan::BridgedElsewhere, InstallError> {
    let rank = |s: InstallScope| match s {
        InstallScope::Local => 0,
        InstallScope::Project => 1,
        InstallScope::User => 2,
    };
    let (mut elsewhere, mut narrower) = (Vec::new(), Vec::new());
    for other in [InstallScope::Local, InstallScope::Project, InstallScope::User] {
        let Some(dir) = request.agent.config_file(other, request.layout).filter(|_| other != request.scope) else {
            continue;
        };
        let dir = super::plan::absolute(&dir);
        if dir == paths.agent_file {
            continue;
        }
        let Ok(listed) = listing(request, &dir) else { continue };
        for (file, _) in listed.into_iter().filter(|(_, bridge)| *bridge) {
            if rank(other) < rank(request.scope) {
                narrower.push((file.event.to_owned(), file.path));
            } else if !bridged.iter().any(|e| e == file.event) {
                bridged.push(file.event.to_owned());
                elsewhere.push((file.event.to_owned(), file.path));
            }
        }
    }
    Ok((elsewhere, narrower))
}

impl ExecutablesPlan {
    /// Whether the files are still what the plan saw: each file to move holds the bytes planned, nothing is where a
    /// file goes.
    pub(crate) fn check_unchanged(&self) -> Result<(), InstallError> {
        for m in &self.moves {
            let bytes = fs::read(&m.from).map_err(|_| InstallError::Changed { path: m.from.clone() })?;
            if digest(&bytes) != m.sha256 || fs::symlink_metadata(&m.to).is_ok() {
                return Err(InstallError::Changed { path: m.from.clone() });
            }
        }
        for (path, _) in &self.bridges {
            if fs::symlink_metadata(path).is_ok() && !self.moves.iter().any(|m| &m.from == path) {
                return Err(InstallError::Changed { path: path.clone() });
            }
        }
        Ok(())
    }

    /// Moves the agent's hook files aside and writes the bridge scripts. On a failure, what was done is undone.
    pub(crate) fn apply(&self) -> Result<ExecutablesChange, InstallError> {
        let mut change = ExecutablesChange {
            dir: self.dir.clone(),
            created_dirs: Vec::new(),
            bridges: Vec::new(),
            moved: Vec::new(),
        };
        match self.apply_into(&mut change) {
            Ok(()) => Ok(change),
            Err(err) => {
                let mut ignored = Vec::new();
                undo(&change, &mut Vec::new(), &mut ignored);
                Err(err)
            }
        }
    }

    fn apply_into(&self, change: &mut ExecutablesChange) -> Result<(), InstallError> {
        change.created_dirs = super::files::create_dirs(&self.dir)?;
        for dir in &self.dirs {
            change.created_dirs.extend(super::files::create_dirs(dir)?);
        }
        if !self.moves.is_empty() {
            let aside = self.dir.join(ASIDE_DIR);
            change.created_dirs.extend(super::files::create_dirs(&aside)?);
        }
        for m in &self.moves {
            if fs::symlink_metadata(&m.to).is_ok() {
                return Err(InstallError::Changed { path: m.to.clone() });
            }
            fs::rename(&m.from, &m.to).map_err(io("cannot move", &m.from))?;
            change.moved.push(m.clone());
        }
        for (path, text) in &self.bridges {
            let mut file = super::platform::create_script(path, self.mode).map_err(io("cannot create", path))?;
            change.bridges.push(WrittenFile { path: path.clone(), sha256: digest(text.as_bytes()) });
            file.write_all(text.as_bytes()).and_then(|()| file.sync_all()).map_err(io("cannot write", path))?;
            // The umask narrowed the mode at creation: the agent needs no run bit, a reader of the directory expects it.
            super::platform::make_runnable(path, self.mode).map_err(io("cannot set the mode of", path))?;
        }
        Ok(())
    }
}

/// Undoes what install did in the agent's directory: each bridge script that still holds what install wrote is
/// removed (one changed since is left, with a warning), each moved file goes back where it was (unless something
/// took its place), and the directories install created are removed once empty. `restored` gets each path put back,
/// `warnings` what could not be.
pub(crate) fn undo(change: &ExecutablesChange, restored: &mut Vec<PathBuf>, warnings: &mut Vec<String>) {
    for bridge in &change.bridges {
        match fs::symlink_metadata(&bridge.path) {
            Err(_) => {}
            Ok(meta) if meta.is_file() && fs::read(&bridge.path).is_ok_and(|b| digest(&b) == bridge.sha256) => {
                match fs::remove_file(&bridge.path) {
                    Ok(()) => restored.push(bridge.path.clone()),
                    Err(err) => warnings.push(format!("cannot remove `{}`: {err}", bridge.path.display())),
                }
            }
            Ok(_) => warnings.push(format!(
                "`{}` changed since install and is left in place: remove it if it is not yours",
                bridge.path.display()
            )),
        }
    }
    for m in change.moved.iter().rev() {
        if fs::symlink_metadata(&m.from).is_ok() {
            warnings.push(format!(
                "`{}` is taken again, so `{}` stays where install moved it",
                m.from.display(),
                m.to.display()
            ));
            continue;
        }
        match fs::rename(&m.to, &m.from) {
            Ok(()) => restored.push(m.from.clone()),
            Err(err) => {
                warnings.push(format!("cannot move `{}` back to `{}`: {err}", m.to.display(), m.from.display()))
            }
        }
    }
    super::files::remove_empty_dirs(&change.created_dirs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::Agent;
    use hook_config::Layout;

    #[test]
    fn install_refuses_a_dispatch_deadline_the_agent_would_not_wait_for() {
        let ws = tempfile::tempdir().unwrap();
        let cfg = tempfile::tempdir().unwrap();
        let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None);
        let mut request = InstallRequest::new(Agent::Cline, InstallScope::Project, &layout, "hook bridge");
        request.limits.dispatch_deadline_ms = 200_000;
        let err = super::super::plan_install(&request).unwrap_err();
        assert!(err.to_string().contains("lower the dispatch deadline"), "{err}");
        request.limits.dispatch_deadline_ms = 60_000;
        assert!(super::super::plan_install(&request).is_ok());
    }

    #[test]
    fn a_bridge_script_reads_back_as_a_bridge_and_answers_for_a_bridge_that_cannot_run() {
        let limits = hook_types::Limits::default();
        let script = bridge_script(Agent::Cline, "PreToolUse", "hook bridge --protocol cline", &limits);
        assert!(script.len() < 4_096, "the loader reads a hook file's first 4 KiB");
        let line = hook_config::event_executable_bridge_line(&script).expect("a bridge");
        assert!(hook_config::BridgeProgram::named(["hook"]).invokes_bridge_line(&line));
        assert!(bridge_script(Agent::Cline, "PostToolUse", "x", &limits).contains("contextModification"));
    }
}
