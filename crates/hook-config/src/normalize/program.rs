//! Whether a command hook's program can run: a program that does not exist or lacks its run bit is found at load,
//! with the fix in the message, not when the hook first fires.
//!
//! Checked in this engine's own files only. A program given as a path — `argv[0]` with a `/`, or the first word of
//! a `shell` command — must be an executable file: `argv[0]` resolves against the origin root, a shell word against
//! the hook's `cwd` (where `sh -c` runs it), after the project variables (`$CLAUDE_PROJECT_DIR`, …) are expanded. A
//! missing or non-executable program is an error (the hook is dropped, and a gate it was on fails closed), or a
//! warning for a disabled hook and for a hook of an agent's protocol (what `hook install` and `hook import` move
//! here), which keeps that agent's rules: the agent loads it whatever its program. A bare name (`cargo`) is looked up on `PATH` — the hook's own `env.PATH` if it sets
//! one — and one that is not found is a warning: the host's `PATH` may differ from this one. A shell word that only
//! the shell can resolve (another variable, a glob, a builtin or keyword) is not checked. An agent's own file is not
//! checked: that agent loads its hooks whatever their program and runs them in its own environment, so what it
//! would load is never an error here.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::NormalizeCx;

/// What a program path is, as far as running it goes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum ProgramState {
    /// A file with a run bit.
    Runnable,
    /// Nothing there.
    Missing,
    /// A directory.
    Directory,
    /// A file no one may execute (`chmod -x`): exec fails with EACCES, for root too.
    NotExecutable,
    /// The filesystem did not say (a permission error on the way): not reported.
    Unknown,
}

/// Looks `path` up (following symlinks).
pub(super) fn state_of(path: &Path) -> ProgramState {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => ProgramState::Directory,
        Ok(meta) if is_executable(&meta) => ProgramState::Runnable,
        Ok(_) => ProgramState::NotExecutable,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => ProgramState::Missing,
        // A dangling symlink or a path through a file: nothing runnable there either.
        Err(err) if err.raw_os_error() == Some(20) => ProgramState::Missing,
        Err(_) => ProgramState::Unknown,
    }
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    meta.is_file()
}

/// What is wrong with the program `written` (resolved to `resolved`), with the fix; `None` when it can run.
pub(super) fn problem(written: &str, resolved: &Path, state: &ProgramState) -> Option<String> {
    if matches!(state, ProgramState::Runnable | ProgramState::Unknown) {
        return None;
    }
    let at = resolved.display();
    let shown = if Path::new(written) == resolved { format!("`{written}`") } else { format!("`{written}` ({at})") };
    match state {
        ProgramState::Runnable | ProgramState::Unknown => None,
        ProgramState::Missing => Some(format!("the program {shown} does not exist")),
        ProgramState::Directory => Some(format!("the program {shown} is a directory, not a program")),
        ProgramState::NotExecutable => {
            Some(format!("the program {shown} is not executable (it has no run bit): run `chmod +x {at}`"))
        }
    }
}

/// The program a shell command runs first, when it can be told without a shell: its first word after any
/// `NAME=value` assignments, with quotes removed and the project variables expanded. `None` for a word the shell
/// alone can resolve — another variable, a glob, `~`, a builtin or keyword (`cd`, `if`, `exit`, …).
pub(super) fn shell_program(command: &str, workspace: &Path) -> Option<String> {
    let words = crate::fingerprint::shell_words(command, workspace);
    let word = words.into_iter().find(|w| !is_assignment(w))?;
    let opaque = word.is_empty()
        || word.contains(['$', '*', '?', '[', '~', '{', '}', '`'])
        || (!word.contains('/') && SHELL_WORDS.contains(&word.as_str()));
    (!opaque).then_some(word)
}

/// `NAME=value`, which sets a variable for the command that follows.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// dash's keywords and builtins: run by the shell itself, never looked up on `PATH`.
const SHELL_WORDS: &[&str] = &[
    "!", ".", ":", "[", "alias", "bg", "break", "case", "cd", "command", "continue", "do", "done", "echo", "elif",
    "else", "esac", "eval", "exec", "exit", "export", "false", "fc", "fg", "fi", "for", "getopts", "hash", "if",
    "jobs", "kill", "local", "printf", "pwd", "read", "readonly", "return", "set", "shift", "test", "then", "times",
    "trap", "true", "type", "ulimit", "umask", "unalias", "unset", "until", "wait", "while",
];

/// Whether the bare `name` is an executable file in a directory of the `PATH` the hook will see: its own
/// `env.PATH`, else this process's. `None` when there is no `PATH` to look in.
pub(super) fn on_path(name: &str, env: &BTreeMap<String, String>, cx: &NormalizeCx<'_>) -> Option<bool> {
    if let Some(path) = env.get("PATH") {
        let key = (name.to_owned(), path.clone());
        if let Some(&known) = cx.memo.on_hook_path.borrow().get(&key) {
            return Some(known);
        }
        let found = search(name, OsStr::new(path));
        cx.memo.on_hook_path.borrow_mut().insert(key, found);
        return Some(found);
    }
    if let Some(&known) = cx.memo.on_path.borrow().get(name) {
        return Some(known);
    }
    let path = std::env::var_os("PATH")?;
    let found = search(name, &path);
    cx.memo.on_path.borrow_mut().insert(name.to_owned(), found);
    Some(found)
}

pub(super) fn search(name: &str, path: &OsStr) -> bool {
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .any(|dir| state_of(&dir.join(name)) == ProgramState::Runnable)
}

/// `path` as the hook's `cwd` sees it: relative paths resolve against it.
pub(super) fn against(base: &Path, path: &str) -> PathBuf {
    super::command::lexical_join(base, Path::new(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_word_of_a_shell_command_is_its_program_unless_only_the_shell_can_tell() {
        let ws = Path::new("/ws");
        let program = |command: &str| shell_program(command, ws);
        assert_eq!(program("./guard.sh --fast && echo ok").as_deref(), Some("./guard.sh"));
        assert_eq!(program("FOO=1 BAR='x y' scripts/check.sh").as_deref(), Some("scripts/check.sh"));
        assert_eq!(program(r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh"#).as_deref(), Some("/ws/.claude/hooks/a.sh"));
        assert_eq!(program("cargo fmt --check").as_deref(), Some("cargo"));
        for opaque in ["$HOME/bin/x", "exit 2", "cd sub && ./x", "~/bin/x", "if true; then :; fi", "./*.sh", ""] {
            assert_eq!(program(opaque), None, "{opaque}");
        }
    }
}
