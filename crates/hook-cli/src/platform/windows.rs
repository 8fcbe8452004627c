//! The Windows half of [`crate::platform`].

use std::os::windows::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, Command};

use anyhow::{Context, Result, bail};

/// The variables the doctor's probe of a handler keeps from `hook`'s environment (it clears the rest): the
/// profile's folders, the temporary directory, and what `cmd` needs to run at all.
pub const PROBE_ENV: &[&str] =
    &["USERPROFILE", "APPDATA", "LOCALAPPDATA", "TEMP", "TMP", "SystemRoot", "ComSpec", "PATHEXT"];

/// Opens an `--input` file (nothing on Windows blocks an open), refusing a directory.
pub fn open_input(path: &Path, what: &str) -> Result<std::fs::File> {
    let file = std::fs::File::open(path).with_context(|| format!("{what} cannot be read"))?;
    if file.metadata().with_context(|| format!("{what} cannot be read"))?.is_dir() {
        bail!("{what} is a directory; expected a file holding a JSON object");
    }
    Ok(file)
}

/// Whether `path` is a regular file Windows runs by its extension (one `PATHEXT` lists).
pub fn is_executable(path: &Path) -> bool {
    let pathext = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".to_owned());
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else { return false };
    let known = pathext.split(';').filter_map(|e| e.strip_prefix('.')).any(|e| e.eq_ignore_ascii_case(ext));
    known && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The command that runs an installed handler's `command` as the agents do on Windows: `cmd /d /s /c "<command>"`
/// (an agent that runs executables per event runs the file the same way).
pub fn handler_shell(command: &str, _executable_file: bool) -> Command {
    let comspec = std::env::var_os("ComSpec").unwrap_or_else(|| "cmd.exe".into());
    let mut shell = Command::new(comspec);
    shell.raw_arg("/d /s /c \"").raw_arg(command).raw_arg("\"");
    shell
}

/// Nothing to set: [`kill_tree`] finds the tree by the child's pid.
pub fn own_group(cmd: &mut Command) -> &mut Command {
    cmd
}

/// Kills the child and every process it started (`taskkill /T /F`), then reaps the child.
pub fn kill_tree(child: &mut Child) {
    let killed = Command::new("taskkill").args(["/T", "/F", "/PID", &child.id().to_string()]).output();
    if !killed.is_ok_and(|out| out.status.success()) {
        let _ = child.kill();
    }
    let _ = child.wait();
}
