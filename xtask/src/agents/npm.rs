//! The agents under test, pinned: installed with npm into `target/agents/npm` (reused while the versions match)
//! and located there. A version bump is one line of [`PINNED`].

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Every npm package installed, at its pinned version. Claude Code and Codex ship their native binaries in
/// platform packages that npm installs as optional dependencies of the main one.
pub const PINNED: &[(&str, &str)] = &[
    ("@anthropic-ai/claude-code", "2.1.197"),
    ("@openai/codex", "0.169.0"),
    ("@google/gemini-cli", "0.61.0"),
    ("@qwen-code/qwen-code", "0.24.4"),
    // GitHub Copilot CLI's executable; its `@github/copilot` package only picks this platform package.
    ("@github/copilot-linux-x64", "1.0.102"),
    ("cline", "3.0.65"),
    // Factory Droid: the wrapper exists only as 0.225.1; its platform package, pinned apart, carries the 0.225.2
    // binary the agent table pins.
    ("@factory/cli", "0.225.1"),
    ("@factory/cli-linux-x64", "0.225.2"),
];

/// The runnable program of each agent, once installed.
#[derive(Debug, Clone)]
pub struct Installed {
    /// Claude Code's native binary (`@anthropic-ai/claude-code-linux-x64/claude`; npm skips the postinstall
    /// that would link it, which is fine: it is run directly).
    pub claude: PathBuf,
    /// Codex's native binary from its platform package.
    pub codex: PathBuf,
    /// Gemini CLI's bundled entry point (run with `node`).
    pub gemini: PathBuf,
    /// Qwen Code's entry point (run with `node`).
    pub qwen: PathBuf,
    /// GitHub Copilot CLI's single executable.
    pub copilot: PathBuf,
    /// Cline's CLI binary from its platform package (`@cline/cli-linux-x64`; Bun compiled in).
    pub cline: PathBuf,
    /// Factory Droid's native binary from its platform package (`@factory/cli-linux-x64`; Bun compiled in).
    pub droid: PathBuf,
}

/// Installs the pinned packages under `prefix` unless every one is there at its version, then locates them.
pub fn ensure(prefix: &Path) -> Result<Installed> {
    let modules = prefix.join("node_modules");
    let missing: Vec<String> = PINNED
        .iter()
        .filter(|(name, version)| installed_version(&modules, name).as_deref() != Some(*version))
        .map(|(name, version)| format!("{name}@{version}"))
        .collect();
    if !missing.is_empty() {
        std::fs::create_dir_all(prefix)?;
        eprintln!("agents: npm install {}", missing.join(" "));
        let status = Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(prefix)
            .args(["--no-audit", "--no-fund", "--no-save", "--loglevel=error"])
            .args(PINNED.iter().map(|(name, version)| format!("{name}@{version}")))
            .status()
            .context("cannot run npm (install Node.js and npm)")?;
        if !status.success() {
            bail!("npm install failed ({status})");
        }
    }
    let installed = Installed {
        claude: modules.join("@anthropic-ai/claude-code-linux-x64/claude"),
        codex: modules.join("@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"),
        gemini: modules.join("@google/gemini-cli/bundle/gemini.js"),
        qwen: modules.join("@qwen-code/qwen-code/cli-entry.js"),
        cline: modules.join("@cline/cli-linux-x64/bin/cline"),
        copilot: modules.join("@github/copilot-linux-x64/copilot"),
        droid: modules.join("@factory/cli-linux-x64/bin/droid"),
    };
    for path in [
        &installed.claude,
        &installed.codex,
        &installed.gemini,
        &installed.qwen,
        &installed.cline,
        &installed.copilot,
        &installed.droid,
    ] {
        if !path.is_file() {
            bail!("{} is missing after npm install (only linux-x64 is supported)", path.display());
        }
    }
    Ok(installed)
}

fn installed_version(modules: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(modules.join(name).join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("version")?.as_str().map(str::to_owned)
}
