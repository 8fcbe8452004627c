//! The agents under test, pinned: installed with npm into `target/agents/npm` (reused while the versions match)
//! and located there. A version bump is one line of [`PINNED`].

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Every npm package installed, at its pinned version. Claude Code and Codex ship their native binaries in
/// platform packages that npm installs as optional dependencies of the main one.
pub const PINNED: &[(&str, &str)] = &[
    ("@anthropic-ai/claude-code", "2.1.332"),
    ("@openai/codex", "0.171.0"),
    ("@google/gemini-cli", "0.61.0"),
    ("@qwen-code/qwen-code", "0.24.4"),
    // GitHub Copilot CLI's executable; its `@github/copilot` package only picks this platform package.
    ("@github/copilot-linux-x64", "1.0.102"),
    ("cline", "3.0.65"),
    // Factory Droid: the wrapper exists only as 0.225.1; its platform package, pinned apart, carries the 0.225.2
    // binary the agent table pins.
    ("@factory/cli", "0.225.1"),
    ("@factory/cli-linux-x64", "0.225.2"),
    // OpenCode and Kilo Code CLI: each wrapper's postinstall only links the executable its platform package (an
    // optional dependency) carries, which is run directly. Kilo 7.7.7 is its newest release whose platform packages
    // are all published.
    ("opencode-ai", "1.18.33"),
    ("@kilocode/cli", "7.7.7"),
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
    /// OpenCode's executable from its platform package (`opencode-linux-x64`; Bun compiled in).
    pub opencode: PathBuf,
    /// Kilo Code CLI's executable from its platform package (`@kilocode/cli-linux-x64`; Bun compiled in).
    pub kilo: PathBuf,
}

/// Installs the pinned packages under `prefix` unless every one is there at its version, then locates them.
pub fn ensure(prefix: &Path) -> Result<Installed> {
    let pinned: Vec<(&str, String)> = PINNED.iter().map(|(name, version)| (*name, (*version).to_owned())).collect();
    ensure_versions(prefix, &pinned)
}

/// Installs `packages` (each name with the version wanted; one entry per package of [`PINNED`]) under `prefix`
/// unless every one is there at its version, then locates the agents' programs.
pub fn ensure_versions(prefix: &Path, packages: &[(&str, String)]) -> Result<Installed> {
    let modules = prefix.join("node_modules");
    let missing: Vec<String> = packages
        .iter()
        .filter(|(name, version)| installed_version(&modules, name).as_deref() != Some(version.as_str()))
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
            .args(packages.iter().map(|(name, version)| format!("{name}@{version}")))
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
        opencode: modules.join("opencode-linux-x64/bin/opencode"),
        kilo: modules.join("@kilocode/cli-linux-x64/bin/kilo"),
    };
    for path in [
        &installed.claude,
        &installed.codex,
        &installed.gemini,
        &installed.qwen,
        &installed.cline,
        &installed.copilot,
        &installed.droid,
        &installed.opencode,
        &installed.kilo,
    ] {
        if !path.is_file() {
            bail!("{} is missing after npm install (only linux-x64 is supported)", path.display());
        }
    }
    Ok(installed)
}

/// The version of the package `name` installed under `modules`, as its `package.json` says.
pub fn installed_version(modules: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(modules.join(name).join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("version")?.as_str().map(str::to_owned)
}

/// The npm packages each agent of the suite comes in, by the suite's name for it.
pub fn packages(agent: &str) -> &'static [&'static str] {
    match agent {
        "claude" => &["@anthropic-ai/claude-code"],
        "codex" => &["@openai/codex"],
        "gemini" => &["@google/gemini-cli"],
        "qwen" => &["@qwen-code/qwen-code"],
        "copilot" => &["@github/copilot-linux-x64"],
        "cline" => &["cline"],
        "droid" => &["@factory/cli", "@factory/cli-linux-x64"],
        "opencode" => &["opencode-ai"],
        "kilo" => &["@kilocode/cli"],
        _ => &[],
    }
}

/// The files of an agent's program the scan reads: its native binary, or the JavaScript of its package.
pub fn bundle(agent: &str, installed: &Installed) -> Vec<PathBuf> {
    let scripts = |dir: &Path, subdirs: &[&str]| -> Vec<PathBuf> {
        let mut files = Vec::new();
        for sub in std::iter::once(&"").chain(subdirs) {
            let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
            let mut names: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "js" || x == "cjs" || x == "mjs"))
                .collect();
            names.sort();
            files.extend(names);
        }
        files
    };
    let parent = |p: &Path| p.parent().map(Path::to_path_buf).unwrap_or_default();
    match agent {
        "claude" => vec![installed.claude.clone()],
        "codex" => vec![installed.codex.clone()],
        "gemini" => scripts(&parent(&installed.gemini), &[]),
        "qwen" => scripts(&parent(&installed.qwen), &["chunks"]),
        "copilot" => vec![installed.copilot.clone()],
        "cline" => vec![installed.cline.clone()],
        "droid" => vec![installed.droid.clone()],
        "opencode" => vec![installed.opencode.clone()],
        "kilo" => vec![installed.kilo.clone()],
        _ => Vec::new(),
    }
}
