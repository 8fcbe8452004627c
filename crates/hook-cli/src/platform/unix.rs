//! The Unix half of [`crate::platform`].

use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, Command};

use anyhow::{Context, Result, bail};

/// The variables the doctor's probe of a handler keeps from `hook`'s environment (it clears the rest).
pub const PROBE_ENV: &[&str] = &["HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "TMPDIR"];

/// Opens an `--input` file without blocking (a FIFO with no writer would), refusing what is no file to read.
pub fn open_input(path: &Path, what: &str) -> Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .with_context(|| format!("{what} cannot be read"))?;
    let kind = file.metadata().with_context(|| format!("{what} cannot be read"))?.file_type();
    if kind.is_dir() {
        bail!("{what} is a directory; expected a file holding a JSON object");
    }
    if kind.is_char_device() || kind.is_block_device() || kind.is_socket() {
        bail!(
            "{what} is a device or a socket, which may never end; expected a file holding a JSON object (or @- for stdin)"
        );
    }
    if kind.is_fifo() {
        // Opened without blocking so that a FIFO with no writer reads as empty; from here on, wait for the writer.
        rustix::fs::fcntl_setfl(&file, rustix::fs::OFlags::empty())
            .with_context(|| format!("{what} cannot be read"))?;
    }
    Ok(file)
}

/// Whether `path` is a regular file with an execute bit.
pub fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The shell command that runs an installed handler's `command` as the agent does: `sh -c <command>`, or, for an
/// agent that runs executables per event, `sh <file>`.
pub fn handler_shell(command: &str, executable_file: bool) -> Command {
    let mut shell = Command::new("sh");
    if executable_file {
        shell.arg(command);
    } else {
        shell.args(["-c", command]);
    }
    shell
}

/// Starts `cmd` in a process group of its own, so [`kill_tree`] reaches what it starts.
pub fn own_group(cmd: &mut Command) -> &mut Command {
    cmd.process_group(0)
}

/// Starts `cmd` detached from the process that runs `hook` (the bridge's runner, which outlives the bridge): in a
/// process group of its own, so a signal the agent sends the bridge's group does not reach it.
pub fn spawn_detached(cmd: &mut Command) -> std::io::Result<Child> {
    own_group(cmd).spawn()
}

/// Kills the child's process group (the child and what it started), then reaps the child.
pub fn kill_tree(child: &mut Child) {
    let group = rustix::process::Pid::from_child(child);
    let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    let _ = child.wait();
}
