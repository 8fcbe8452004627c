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

/// Starts `cmd` detached from the process that runs `hook` (the bridge's runner, which outlives the bridge): no
/// console (`DETACHED_PROCESS`, so the agent's console and its Ctrl-C do not reach it, and no window opens), a
/// process group of its own (`CREATE_NEW_PROCESS_GROUP`), and out of the agent's Job Object
/// (`CREATE_BREAKAWAY_FROM_JOB`). A job that does not allow breakaway makes that spawn fail with access denied: it
/// is then started inside the job, and dies with it when the agent's job is closed.
///
/// Windows hands a child every inheritable handle of its parent, not only its standard ones: the agent's pipes,
/// which `hook` got as its standard handles, would stay open in the runner, and the agent, reading them to their
/// end, would wait for the runner. So this process's standard handles stop being inheritable first (the caller
/// sets the runner's own, `NUL`), which is why only a process about to exit (the bridge) calls this.
pub fn spawn_detached(cmd: &mut Command) -> std::io::Result<Child> {
    keep_std_handles_from_children();
    use windows_sys::Win32::Foundation::ERROR_ACCESS_DENIED;
    use windows_sys::Win32::System::Threading::{
        CREATE_BREAKAWAY_FROM_JOB, CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS,
    };
    let base = CREATE_NEW_PROCESS_GROUP | DETACHED_PROCESS;
    match cmd.creation_flags(base | CREATE_BREAKAWAY_FROM_JOB).spawn() {
        Err(e) if e.raw_os_error() == Some(ERROR_ACCESS_DENIED as i32) => cmd.creation_flags(base).spawn(),
        spawned => spawned,
    }
}

/// Clears the inherit flag of this process's standard input, output and error handles.
#[allow(unsafe_code)]
fn keep_std_handles_from_children() {
    use windows_sys::Win32::Foundation::{HANDLE_FLAG_INHERIT, SetHandleInformation};
    use windows_sys::Win32::System::Console::{GetStdHandle, STD_ERROR_HANDLE, STD_INPUT_HANDLE, STD_OUTPUT_HANDLE};
    for which in [STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE] {
        // SAFETY: asks for one of the process's standard handles; a missing one is null or invalid, checked below.
        let handle = unsafe { GetStdHandle(which) };
        if handle.is_null() || handle as isize == -1 {
            continue;
        }
        // SAFETY: `handle` is one of this process's open standard handles; only its inherit flag changes.
        unsafe { SetHandleInformation(handle, HANDLE_FLAG_INHERIT, 0) };
    }
}

/// Kills the child and every process it started (`taskkill /T /F`), then reaps the child.
pub fn kill_tree(child: &mut Child) {
    let killed = Command::new("taskkill").args(["/T", "/F", "/PID", &child.id().to_string()]).output();
    if !killed.is_ok_and(|out| out.status.success()) {
        let _ = child.kill();
    }
    let _ = child.wait();
}
