//! The guard protects itself: the built-in gate `hook.self-protection`, and the refusal of the engine's loosening
//! commands from inside an agent.
//!
//! The gate is a guard of the fixed tier of every pipeline the CLI builds (the bridge's, `hook run`'s), so it runs
//! before any user hook and no project or user file can displace it. On a pre_tool call that would write, delete,
//! move, truncate or change the mode of a protected place ([`paths`]) — through an agent's native write or edit
//! tool (its file path fields, and the file headers of a patch) or a shell line ([`shell`]) — or run `hook trust`,
//! `uninstall`, `install` or `import --write`, it answers `ask_user` where the agent's permission mode has a person
//! to ask, and deny where it runs unattended (the bridge turns an ask into a deny for agents that cannot ask). What
//! it cannot resolve and that names a protected place is Unknown, and denies or asks the same way.

use std::path::{Path, PathBuf};

use hook_middleware::EventInput;
use hook_middleware::pipeline::{EvalError, Evaluation, Registration};
use hook_types::{Effect, Event};

pub mod paths;
pub mod shell;

pub use paths::LazyProtected;
use shell::Target;

/// The gate's id, as `hook inspect` and receipts show it.
pub const ID: &str = "hook.self-protection";

/// Permission modes in which an agent runs a tool without asking anyone: an ask there is a deny.
const UNATTENDED_MODES: &[&str] = &["bypass", "dontask", "dont_ask", "skip", "auto", "yolo", "never"];

/// The gate, protecting `protected`.
pub fn registration(protected: LazyProtected, home: Option<PathBuf>) -> Registration {
    Registration::in_process(ID, [Event::PreTool], move |input: &EventInput, _: &[Effect]| {
        Ok::<_, EvalError>(evaluate(&protected, home.as_deref(), input))
    })
    .source("built in (docs/self-protection.md)")
    .quiet_when_passing(true)
}

/// The gate as `hook inspect` shows it: on, unless the managed file says `self_protection: false`.
pub fn inspected(off: bool) -> hook_config::InspectBuiltIn {
    let about = if off {
        "turned off by the managed file's `self_protection: false`".to_owned()
    } else {
        "asks (denies unattended) before a tool call changes a hook file, the engine's files or the `hook` \
         program, or runs a loosening `hook` command (docs/self-protection.md)"
            .to_owned()
    };
    hook_config::InspectBuiltIn { id: ID.to_owned(), events: vec![Event::PreTool], enabled: !off, about }
}

fn evaluate(protected: &LazyProtected, home: Option<&Path>, input: &EventInput) -> Evaluation {
    let Some(finding) = finding(protected, home, input) else { return Evaluation::pass() };
    let reason = format!(
        "{ID}: {finding}. The agent cannot change its own guards; to make this change, do it yourself in your own \
         terminal (edit the file by hand, or run the `hook` command there). See docs/self-protection.md."
    );
    let mode = input.permission_mode.as_deref().unwrap_or("").to_ascii_lowercase();
    if UNATTENDED_MODES.iter().any(|m| mode.contains(m)) {
        Evaluation::deny(reason)
    } else {
        Evaluation::effects(vec![Effect::AskUser { reason: Some(reason) }])
    }
}

/// What the call would do to a protected place, in words; `None` when it changes none.
fn finding(protected: &LazyProtected, home: Option<&Path>, input: &EventInput) -> Option<String> {
    let name = input.tool_name.as_deref()?;
    let tool_input = input.tool_input.as_ref()?;
    let canonical = hook_types::canonical_tool(name);
    let cwd = input.cwd.as_deref().map(PathBuf::from).or_else(|| std::env::current_dir().ok())?;
    match canonical.as_deref() {
        Some("shell") => {
            let line = ["command", "cmd", "script"].iter().find_map(|k| tool_input.get(*k)?.as_str())?;
            shell_finding(protected, home, &cwd, line)
        }
        Some("read" | "glob" | "grep" | "ls" | "web_fetch" | "web_search" | "todo" | "task") => None,
        _ => native_finding(protected, home, &cwd, tool_input),
    }
}

fn shell_finding(protected: &LazyProtected, home: Option<&Path>, cwd: &Path, line: &str) -> Option<String> {
    for target in shell::targets(line) {
        match target {
            Target::Loosening(command) => {
                return Some(format!("`{command}` loosens the guards and runs only from a person's terminal"));
            }
            Target::Path { raw, tree } => match paths::resolve(&raw, cwd, home) {
                Some(path) => {
                    if let Some(what) = protected.covering(&path, tree) {
                        return Some(format!("this call would change `{}`, {}", path.display(), what));
                    }
                }
                None if protected.mentioned_in(line) => {
                    return Some(format!(
                        "this call writes to `{raw}`, which cannot be resolved before it runs, in a line that names a \
                         protected file (Unknown denies)"
                    ));
                }
                None => {}
            },
            Target::Into { dir, names } => {
                let Some(dir) = paths::resolve(&dir, cwd, home).filter(|d| d.is_dir()) else { continue };
                for name in names {
                    if let Some(what) = protected.covering(&dir.join(&name), false) {
                        return Some(format!("this call would change `{}`, {}", dir.join(name).display(), what));
                    }
                }
            }
            Target::Unknown(why) if protected.mentioned_in(line) => {
                return Some(format!("{why}, in a line that names a protected file (Unknown denies)"));
            }
            Target::Unknown(_) => {}
        }
    }
    None
}

/// The path fields a write or edit tool names its file by, across the agents' tools.
const PATH_FIELDS: &[&str] =
    &["file_path", "filePath", "path", "notebook_path", "absolute_path", "target_file", "filename", "file"];

fn native_finding(
    protected: &LazyProtected,
    home: Option<&Path>,
    cwd: &Path,
    tool_input: &serde_json::Value,
) -> Option<String> {
    let mut raws: Vec<String> =
        PATH_FIELDS.iter().filter_map(|k| tool_input.get(*k)?.as_str()).map(str::to_owned).collect();
    if let Some(object) = tool_input.as_object() {
        for value in object.values().filter_map(serde_json::Value::as_str) {
            raws.extend(patch_files(value));
        }
        // MultiEdit-like shapes: a list of edits each naming its file.
        for list in object.values().filter_map(serde_json::Value::as_array) {
            for item in list {
                raws.extend(PATH_FIELDS.iter().filter_map(|k| item.get(*k)?.as_str()).map(str::to_owned));
            }
        }
    }
    for raw in raws {
        match paths::resolve(&raw, cwd, home) {
            Some(path) => {
                if let Some(what) = protected.covering(&path, false) {
                    return Some(format!("this call would change `{}`, {}", path.display(), what));
                }
            }
            None if protected.mentioned_in(&raw) => {
                return Some(format!("this call writes to `{raw}`, which cannot be resolved (Unknown denies)"));
            }
            None => {}
        }
    }
    None
}

/// The files a patch names: Codex's `*** Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:`, and a
/// unified diff's `--- a/…` and `+++ b/…`.
fn patch_files(text: &str) -> Vec<String> {
    let mut files = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        for prefix in ["*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "] {
            if let Some(path) = line.strip_prefix(prefix) {
                files.push(path.trim().to_owned());
            }
        }
        for prefix in ["+++ ", "--- "] {
            if let Some(path) = line.strip_prefix(prefix) {
                let path = path.split('\t').next().unwrap_or(path).trim();
                let path = path.strip_prefix("a/").or_else(|| path.strip_prefix("b/")).unwrap_or(path);
                if path != "/dev/null" && !path.is_empty() {
                    files.push(path.to_owned());
                }
            }
        }
    }
    files
}

/// The agent whose tool call this process runs as, if any: a variable the agent sets in its tools' environment
/// (the agent table's [`hook_types::Agent::tool_call_env`]), or an ancestor process that is the agent's program.
pub fn inside_agent() -> Option<&'static str> {
    for agent in hook_types::Protocol::ALL.iter().map(|p| p.agent()) {
        if agent.tool_call_env.iter().any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty())) {
            return Some(agent.name);
        }
    }
    ancestor_agent()
}

/// An ancestor process (up to 64 up) whose program name is an agent's binary, on Linux.
#[cfg(target_os = "linux")]
fn ancestor_agent() -> Option<&'static str> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..64 {
        if pid <= 1 {
            return None;
        }
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
        let comm = comm.trim();
        let agent = hook_types::Protocol::ALL.iter().map(|p| p.agent()).find(|a| a.binary.is_some_and(|b| b == comm));
        if let Some(agent) = agent {
            return Some(agent.name);
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The fields after the command name, which is in parentheses and may hold anything.
        let after = stat.rsplit_once(')')?.1;
        pid = after.split_whitespace().nth(1)?.parse().ok()?;
    }
    None
}

#[cfg(not(target_os = "linux"))]
fn ancestor_agent() -> Option<&'static str> {
    None
}

/// Refuses `command` (a loosening command: `hook trust`, …) when run from inside an agent.
pub fn refuse_inside_agent(command: &str) -> anyhow::Result<()> {
    match inside_agent() {
        Some(agent) => anyhow::bail!(
            "`hook {command}` loosens the guards and does not run as a tool call of {agent}: run it yourself in your \
             own terminal (docs/self-protection.md)"
        ),
        None => Ok(()),
    }
}
