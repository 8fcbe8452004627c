//! Cline's hook directories (docs/agents.md#cline): one executable per event, named after the event.
//!
//! ```text
//! .cline/hooks/PreToolUse        # bash runs it (no shebang, no extension)
//! .cline/hooks/PostToolUse.py    # python3 runs it
//! .clinerules/hooks/TaskStart.sh # bash runs it
//! ```
//!
//! Every fact here is Cline 3.0.65's (`@cline/core` 0.0.86), from sdk/packages/core/src/hooks/hook-file-config.ts
//! and hook-file-hooks.ts of github.com/cline/cline, checked against the bundle the npm package runs:
//!
//! - **Which files** (`listHookConfigFiles`): the regular files directly in a hooks directory (a symlink or a
//!   subdirectory is not one: `Dirent.isFile()`), whose extension, lowercased, is none or one of `.sh .bash .zsh .js
//!   .mjs .cjs .ts .mts .cts .py .ps1`, and whose name without it, trimmed and lowercased, is one of Cline's event
//!   file names (`HookConfigFileName`, matched without regard to case). Every other entry is ignored, silently, as
//!   Cline ignores it (a `README.md` sits there in Cline's own repository). Several files of one event all run, in
//!   path order.
//! - **The command** (`inferHookCommand`): the file's shebang, its interpreter reduced to a bare name for `env`,
//!   `bash`, `sh`, `zsh`, `python3` and `python`, then the file; else by extension `bash`, `node`, `bun run`,
//!   `python3`, `pwsh -File`; else `bash`. The file needs no run bit. Each hook is that argv, with the file's path
//!   relative to the workspace for the project origin (absolute for the user origin); its id is its default id,
//!   whose hash covers that argv, so it is derived from the path, and `hook import` writes the same argv back.
//! - **Events**: the agent table's rows (`PreToolUse` → pre_tool, `TaskStart` → session_start, …); `TaskError` and
//!   `TaskCancel` load as foreign observers.
//! - **Timeout and failure**: 120 s on the tool events (`toolCallTimeoutMs ?? 120000`); a hook that fails, times out
//!   or prints what is not JSON is logged and skipped (fails open): the protocol's defaults.
//!
//! A file whose text runs this engine's bridge (what `hook install` writes) is read as that shell line, so the loader
//! keeps it out of the hooks in force like every bridge entry.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::WireFile;
use super::agent::{AgentEvents, HookBuilder, hook_place};
use crate::issues::Reporter;
use crate::parse::{NodePath, Target};

const EVENTS: AgentEvents = AgentEvents::of(hook_types::Protocol::Cline);

/// The extensions Cline reads a hook file with (`SUPPORTED_HOOK_FILE_EXTENSIONS`), `""` for none.
const EXTENSIONS: &[&str] = &["", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1"];

/// How many entries of one directory are looked at: past it the rest are reported, not read.
pub const MAX_DIR_ENTRIES: usize = 4_096;

/// How much of a hook file is read to find its shebang and whether it runs the bridge.
const HEAD_BYTES: u64 = 4_096;

/// One hook file of an event-executables directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventExecutable {
    /// The event, as the agent's table spells it (`PreToolUse`).
    pub event: &'static str,
    /// The file.
    pub path: PathBuf,
}

/// The event a hook file named `file_name` is for, in `agent`'s spelling, as Cline's `toHookConfigFileName` reads
/// it: an extension it knows (or none), and the rest, trimmed, one of its event names without regard to case.
///
/// ```
/// use hook_config::event_executable_name;
/// use hook_types::Protocol;
/// assert_eq!(event_executable_name(Protocol::Cline, "pretooluse.SH"), Some("PreToolUse"));
/// assert_eq!(event_executable_name(Protocol::Cline, "TaskStart"), Some("TaskStart"));
/// assert_eq!(event_executable_name(Protocol::Cline, "README.md"), None);
/// assert_eq!(event_executable_name(Protocol::Cline, "PreToolUse.sh.bak"), None);
/// ```
pub fn event_executable_name(agent: hook_types::Protocol, file_name: &str) -> Option<&'static str> {
    let (stem, extension) = match file_name.rfind('.') {
        // Node's `extname`: a leading dot (`.bashrc`) is no extension.
        Some(at) if at > 0 => (&file_name[..at], &file_name[at..]),
        _ => (file_name, ""),
    };
    let extension = extension.to_ascii_lowercase();
    if !EXTENSIONS.contains(&extension.as_str()) {
        return None;
    }
    let stem = stem.trim();
    agent.agent().events.iter().map(|e| e.name).find(|name| name.eq_ignore_ascii_case(stem))
}

/// The hook files of `agent` in `dir`, in path order: regular files only (never through a symlink), named after an
/// event. `Ok(None)` when there is no such directory. At most [`MAX_DIR_ENTRIES`] entries are looked at; the second
/// value says whether there were more.
///
/// ```
/// use hook_config::event_executables;
/// use hook_types::Protocol;
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("PreToolUse.sh"), "exit 0\n").unwrap();
/// std::fs::write(dir.path().join("README.md"), "notes\n").unwrap();
/// let (found, more) = event_executables(Protocol::Cline, dir.path()).unwrap().unwrap();
/// assert_eq!((found.len(), found[0].event, more), (1, "PreToolUse", false));
/// assert!(event_executables(Protocol::Cline, &dir.path().join("absent")).unwrap().is_none());
/// ```
///
/// # Errors
/// `dir` cannot be listed (it is a file, or not readable).
pub fn event_executables(
    agent: hook_types::Protocol,
    dir: &Path,
) -> std::io::Result<Option<(Vec<EventExecutable>, bool)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    let mut found = Vec::new();
    let mut more = false;
    for (seen, entry) in entries.enumerate() {
        if seen >= MAX_DIR_ENTRIES {
            more = true;
            break;
        }
        let entry = entry?;
        // `DirEntry::file_type` does not follow a symlink, as `Dirent.isFile()` does not.
        if !entry.file_type().is_ok_and(|kind| kind.is_file()) {
            continue;
        }
        let name = entry.file_name();
        let Some(event) = name.to_str().and_then(|name| event_executable_name(agent, name)) else { continue };
        found.push(EventExecutable { event, path: entry.path() });
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Some((found, more)))
}

/// The command Cline runs for the hook file at `path` whose text starts with `head` (`inferHookCommand`), with the
/// file written as `shown`.
///
/// ```
/// use hook_config::event_executable_argv;
/// use std::path::Path;
/// let argv = |name: &str, head: &str| event_executable_argv(Path::new(name), head, name);
/// assert_eq!(argv("PreToolUse", "echo hi\n"), ["bash", "PreToolUse"]);
/// assert_eq!(argv("PreToolUse", "#!/usr/bin/env python3\n"), ["python3", "PreToolUse"]);
/// assert_eq!(argv("PreToolUse.js", ""), ["node", "PreToolUse.js"]);
/// assert_eq!(argv("PreToolUse.ts", ""), ["bun", "run", "PreToolUse.ts"]);
/// assert_eq!(argv("x/PreToolUse", "#!/bin/sh -e\n"), ["sh", "-e", "x/PreToolUse"]);
/// ```
pub fn event_executable_argv(path: &Path, head: &str, shown: &str) -> Vec<String> {
    let first = head.split('\n').next().unwrap_or("").trim_end_matches('\r').trim();
    if let Some(shebang) = first.strip_prefix("#!") {
        let tokens: Vec<String> = shebang.split_whitespace().map(str::to_owned).collect();
        if !tokens.is_empty() {
            let mut argv = interpreter(&tokens).unwrap_or(tokens);
            argv.push(shown.to_owned());
            return argv;
        }
    }
    let lowered = path.to_string_lossy().to_ascii_lowercase();
    let ends = |exts: &[&str]| exts.iter().any(|e| lowered.ends_with(e));
    let mut argv: Vec<String> = if ends(&[".sh", ".bash", ".zsh"]) {
        vec!["bash".into()]
    } else if ends(&[".js", ".mjs", ".cjs"]) {
        vec!["node".into()]
    } else if ends(&[".ts", ".mts", ".cts"]) {
        vec!["bun".into(), "run".into()]
    } else if ends(&[".py"]) {
        vec!["python3".into()]
    } else if ends(&[".ps1"]) {
        vec!["pwsh".into(), "-File".into()]
    } else {
        // "Default to bash for legacy hook files with no extension/shebang."
        vec!["bash".into()]
    };
    argv.push(shown.to_owned());
    argv
}

/// Cline's `normalizeHookInterpreter`: `env` is skipped, the shells and Python by their bare names.
fn interpreter(tokens: &[String]) -> Option<Vec<String>> {
    let (first, rest) = tokens.split_first()?;
    let normalized = first.replace('\\', "/").to_ascii_lowercase();
    let name = normalized.rsplit('/').next().unwrap_or(&normalized).to_owned();
    match name.as_str() {
        "env" => interpreter(rest),
        "bash" | "sh" | "zsh" | "python3" | "python" => {
            Some(std::iter::once(name).chain(rest.iter().cloned()).collect())
        }
        _ => Some(tokens.to_vec()),
    }
}

/// The first bytes of a hook file, as text (lossy): enough for its shebang and to tell the bridge's small script.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("TaskStart");
/// std::fs::write(&path, "#!/bin/sh\necho started\n").unwrap();
/// assert!(hook_config::event_executable_head(&path).unwrap().starts_with("#!/bin/sh\n"));
/// ```
///
/// # Errors
/// The file cannot be opened or read.
pub fn event_executable_head(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = crate::platform::open_read_nonblocking(path)?;
    let mut bytes = Vec::new();
    file.take(HEAD_BYTES).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The shell text of a hook file that runs this engine's bridge: its lines other than comments, when they invoke
/// `hook bridge`. `None` for any other file.
///
/// ```
/// use hook_config::event_executable_bridge_line;
/// let script = "#!/bin/sh\n# written by hook install\nexec hook bridge --protocol cline\n";
/// assert_eq!(event_executable_bridge_line(script).as_deref(), Some("exec hook bridge --protocol cline"));
/// assert_eq!(event_executable_bridge_line("#!/bin/sh\necho '{}'\n"), None);
/// ```
pub fn event_executable_bridge_line(head: &str) -> Option<String> {
    if !head.contains("bridge") {
        return None;
    }
    let body: Vec<&str> =
        head.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect::<Vec<_>>();
    let body = body.join("\n");
    crate::BridgeProgram::default().invokes_bridge_line(&body).then_some(body)
}

/// The listing of a directory as the tree [`read`] takes: one object per hook file, `{event, file, argv}` or
/// `{event, file, shell}` for a bridge script. `base` is the directory paths are shown relative to (the workspace,
/// for the project origin), `None` to show them absolute.
pub(crate) fn tree(found: &[EventExecutable], base: Option<&Path>) -> (Value, Vec<(String, String)>) {
    let mut hooks = Vec::with_capacity(found.len());
    let mut unreadable = Vec::new();
    for file in found {
        let shown = base
            .and_then(|base| file.path.strip_prefix(base).ok())
            .unwrap_or(&file.path)
            .to_string_lossy()
            .into_owned();
        let mut hook = Map::new();
        hook.insert("event".into(), file.event.into());
        hook.insert("file".into(), shown.clone().into());
        match event_executable_head(&file.path) {
            Ok(text) => match event_executable_bridge_line(&text) {
                Some(line) => {
                    hook.insert("shell".into(), line.into());
                }
                None => {
                    hook.insert("argv".into(), json!(event_executable_argv(&file.path, &text, &shown)));
                }
            },
            Err(err) => {
                unreadable.push((shown, err.to_string()));
                continue;
            }
        }
        hooks.push(Value::Object(hook));
    }
    (Value::Array(hooks), unreadable)
}

/// Reads the tree of [`tree`] into the intermediate form.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let mut file = WireFile::default();
    let Value::Array(items) = root else { return Some(file) };
    for (index, item) in items.iter().enumerate() {
        let node = NodePath::default().index(index);
        let event = item.get("event").and_then(Value::as_str).unwrap_or_default();
        let shown = item.get("file").and_then(Value::as_str).unwrap_or_default();
        let place = hook_place(index, shown, node.clone(), Target::Node);
        let (on, _) = EVENTS.resolve(event, place, reporter);
        reporter.in_event(Some(&on));
        let mut hook = HookBuilder::new(index, node.clone());
        hook.set("on", shown, Value::String(on), node.clone());
        hook.set("kind", shown, Value::String("command".into()), node.clone());
        if let Some(argv) = item.get("argv") {
            hook.set("argv", shown, argv.clone(), node.clone());
        } else if let Some(shell) = item.get("shell") {
            hook.set("shell", shown, shell.clone(), node.clone());
        }
        file.hooks.push(hook.finish());
    }
    Some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridge_script_install_writes_is_told_from_a_script_that_mentions_the_word() {
        assert_eq!(
            event_executable_bridge_line("#!/bin/sh\nexec hook bridge --protocol cline\n").as_deref(),
            Some("exec hook bridge --protocol cline")
        );
        assert_eq!(event_executable_bridge_line("#!/bin/sh\n# a bridge to nowhere\necho '{}'\n"), None);
    }

    #[test]
    fn a_shebang_through_env_names_its_interpreter_bare() {
        let argv = event_executable_argv(Path::new("/h/TaskStart"), "#!/usr/bin/env bash\n", "/h/TaskStart");
        assert_eq!(argv, ["bash", "/h/TaskStart"]);
        let argv = event_executable_argv(Path::new("/h/TaskStart"), "#!/opt/node/bin/node\n", "/h/TaskStart");
        assert_eq!(argv, ["/opt/node/bin/node", "/h/TaskStart"]);
    }
}
