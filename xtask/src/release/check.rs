//! The release checked as a user meets it, offline, in a temporary directory: each package installed from its file
//! by its own tool, and the `hook` that tool puts on PATH run.
//!
//! - Every packaged binary is byte for byte the one built, and a built one is the `dist` image (static,
//!   position-independent, with its frame index: [`crate::dist::check_image`]).
//! - npm: the main tarball and this platform's installed with `npm install -g --offline` into a temporary prefix;
//!   `<prefix>/bin/hook` (npm's link to the launcher) answers `--version`, also with no Node.js on PATH (the shell
//!   found the binary itself), the binary it runs is the packaged one, the man page is in `<prefix>/share/man/man1`.
//! - pip: the wheel installed with `pip install --no-index` into a fresh virtual environment; `<venv>/bin/hook` is
//!   the packaged binary and answers `--version`; the man page and completions are under `<venv>/share`.
//! - Through each: `hook install --agent claude` in an empty workspace writes the bridge into
//!   `.claude/settings.json` without a warning about `hook` on PATH, and the bridge it wrote answers a sample
//!   `PreToolUse` call.
//! - The archive: the binary where cargo-binstall's `bin-dir` says.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use super::archive::{BIN_DIR, bin_dir};
use super::{Built, NPM_MAIN, Project, capture, sha256_file, wheel};
use crate::elf::Elf;

/// Runs every check; the temporary directory is removed when they pass and kept (and named) when one fails.
pub fn all(project: &Project, built: &[Built], out: &Path) -> Result<()> {
    let scratch = std::env::temp_dir().join(format!("hook-release-check-{}", std::process::id()));
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)?;
    }
    std::fs::create_dir_all(&scratch)?;
    let result = checks(project, built, out, &scratch);
    match &result {
        Ok(()) => std::fs::remove_dir_all(&scratch)?,
        Err(_) => eprintln!("xtask: the release check's files are kept in {}", scratch.display()),
    }
    result
}

fn checks(project: &Project, built: &[Built], out: &Path, scratch: &Path) -> Result<()> {
    for one in built {
        if one.dist {
            crate::dist::check_image(&Elf::read(&one.binary)?, one.platform.image)
                .with_context(|| one.binary.display().to_string())?;
        }
        archive(project, one, out, scratch)?;
    }
    let native = built
        .iter()
        .find(|b| b.platform.target.starts_with(std::env::consts::ARCH))
        .context("no binary of the release runs here")?;
    npm(project, native, out, scratch)?;
    pip(project, native, out, scratch)?;
    Ok(())
}

/// Fails unless `installed` has the bytes of the built binary.
fn same_binary(installed: &Path, built: &Built, route: &str) -> Result<()> {
    if sha256_file(installed)? != sha256_file(&built.binary)? {
        bail!("{route}: {} is not the binary built ({})", installed.display(), built.binary.display());
    }
    eprintln!("xtask: {route}: {} is the binary built", installed.display());
    Ok(())
}

fn archive(project: &Project, built: &Built, out: &Path, scratch: &Path) -> Result<()> {
    let top = super::archive::top_dir(built.platform.target, &project.version);
    let file = out.join("archives").join(format!("{top}.tar.gz"));
    let dir = scratch.join("archive").join(built.platform.target);
    std::fs::create_dir_all(&dir)?;
    capture(Command::new("tar").arg("-xzf").arg(&file).arg("-C").arg(&dir))?;
    let binary = dir.join(bin_dir(BIN_DIR, built.platform.target, &project.version));
    same_binary(&binary, built, "the archive (cargo binstall)")?;
    for file in ["man/hook.1", "completions/hook", "LICENSE-MIT", "LICENSE-APACHE"] {
        let path = dir.join(&top).join(file);
        if !path.is_file() {
            bail!("the archive {} has no {file}", out.display());
        }
    }
    Ok(())
}

fn npm(project: &Project, built: &Built, out: &Path, scratch: &Path) -> Result<()> {
    let prefix = scratch.join("npm-prefix");
    let tarball = |name: String| out.join("npm").join(format!("{name}-{}.tgz", project.version));
    let platform = built.platform.npm_package().trim_start_matches('@').replace('/', "-");
    let mut install = Command::new("npm");
    install
        .args(["install", "--global", "--offline", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg(tarball(platform))
        .arg(tarball(NPM_MAIN.to_owned()))
        .env("npm_config_cache", scratch.join("npm-cache"))
        .env("npm_config_update_notifier", "false");
    capture(&mut install)?;
    let launcher = prefix.join("bin/hook");
    let version = capture(Command::new(&launcher).arg("--version"))?;
    expect_version(&version, project, "npm's bin launcher")?;
    // The launcher's fast path: the binary found and exec'd by the shell alone, no Node.js on PATH to fall back to.
    let direct =
        capture(Command::new(&launcher).env_clear().env("PATH", scratch.join("no-such-dir")).arg("--version"))?;
    expect_version(&direct, project, "npm's bin launcher without Node.js")?;
    let installed = prefix.join("lib/node_modules").join(built.platform.npm_package()).join("bin/hook");
    same_binary(&installed, built, "npm")?;
    if !prefix.join("share/man/man1/hook.1").is_file() {
        bail!("npm: no man page in {}/share/man/man1", prefix.display());
    }
    install_claude(&prefix.join("bin"), &scratch.join("npm-user"), "npm")
}

fn pip(project: &Project, built: &Built, out: &Path, scratch: &Path) -> Result<()> {
    let venv = scratch.join("venv");
    capture(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    let wheel = out.join("pypi").join(wheel::file_name(&project.version, built.platform.wheel_arch));
    capture(
        Command::new(venv.join("bin/pip"))
            .args(["install", "--no-index", "--no-cache-dir", "--disable-pip-version-check"])
            .arg(&wheel),
    )?;
    let hook = venv.join("bin/hook");
    expect_version(&capture(Command::new(&hook).arg("--version"))?, project, "pip")?;
    same_binary(&hook, built, "pip")?;
    for file in ["share/man/man1/hook.1", "share/bash-completion/completions/hook", "share/zsh/site-functions/_hook"] {
        if !venv.join(file).is_file() {
            bail!("pip: the wheel installed no {file} into {}", venv.display());
        }
    }
    install_claude(&venv.join("bin"), &scratch.join("pip-user"), "pip")
}

fn expect_version(stdout: &[u8], project: &Project, route: &str) -> Result<()> {
    let wanted = format!("hook {}\n", project.version);
    if stdout != wanted.as_bytes() {
        bail!("{route}: `hook --version` printed {:?}, not {wanted:?}", String::from_utf8_lossy(stdout));
    }
    Ok(())
}

/// `hook install --agent claude` as a user runs it with `bin` first on PATH, in an empty workspace of a home of its
/// own; then the bridge command it wrote, run by `sh` as Claude Code runs it, answers a sample call.
fn install_claude(bin: &Path, user: &Path, route: &str) -> Result<()> {
    let ws = user.join("project");
    std::fs::create_dir_all(&ws)?;
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )?;
    let isolated = |command: &mut Command| {
        command
            .current_dir(&ws)
            .env("PATH", &path)
            .env("HOME", user)
            .env("XDG_CONFIG_HOME", user.join(".config"))
            .env("XDG_STATE_HOME", user.join(".local/state"))
            .env_remove("HOOK_LAUNCHER");
    };
    let mut install = Command::new("hook");
    install.args(["install", "--agent", "claude", "--yes"]);
    isolated(&mut install);
    let output = install.output().with_context(|| format!("{route}: cannot run `hook install`"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() || stderr.contains("warning: the committed file runs `hook` from PATH") {
        bail!(
            "{route}: `hook install --agent claude` ({}):\n{}{stderr}",
            output.status,
            String::from_utf8_lossy(&output.stdout)
        );
    }
    let settings = ws.join(".claude/settings.json");
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&settings)?)?;
    let command = written["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .with_context(|| format!("{route}: no PreToolUse command in {}", settings.display()))?;
    if !command.contains("hook bridge --protocol claude") {
        bail!("{route}: the PreToolUse command is not the bridge: {command}");
    }
    let payload = serde_json::json!({
        "session_id": "release-check", "transcript_path": "", "cwd": ws, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}, "permission_mode": "default",
    });
    let mut call = Command::new("sh");
    call.args(["-c", command]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    isolated(&mut call);
    let answer = run_with_input(&mut call, payload.to_string().as_bytes())?;
    if answer.status.code() != Some(0) {
        bail!(
            "{route}: the installed bridge refused a plain `ls` ({}): {}",
            answer.status,
            String::from_utf8_lossy(&answer.stderr)
        );
    }
    eprintln!("xtask: {route}: `hook install --agent claude` wrote the bridge, and it answered a sample call");
    Ok(())
}

fn run_with_input(command: &mut Command, input: &[u8]) -> Result<std::process::Output> {
    use std::io::Write;
    let mut child = command.spawn().context("cannot start the bridge command")?;
    child.stdin.take().context("no stdin")?.write_all(input)?;
    Ok(child.wait_with_output()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_version_line_must_be_the_release_version() {
        let project = Project {
            version: "0.1.0".into(),
            license: String::new(),
            repository: String::new(),
            description: String::new(),
            root: PathBuf::new(),
        };
        assert!(expect_version(b"hook 0.1.0\n", &project, "npm").is_ok());
        let err = expect_version(b"hook 0.0.9\n", &project, "npm").unwrap_err().to_string();
        assert!(err.contains("npm: `hook --version` printed \"hook 0.0.9\\n\""), "{err}");
    }
}
