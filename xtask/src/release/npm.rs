//! The npm packages, in esbuild's and biome's pattern: a main package, `hook-engine`, and one package per platform
//! (`@hook-engine/linux-x64`, …) holding the binary, with `os` and `cpu` fields, listed as the main package's
//! `optionalDependencies`: npm installs the one that matches the machine and skips the others. No install script
//! runs and nothing is downloaded but the packages themselves.
//!
//! The main package's `hook` bin is a POSIX shell launcher ([`LAUNCHER`]) that finds the platform package where npm
//! puts it and `exec`s its binary, falling back to a JavaScript shim ([`SHIM`]) that finds it with Node's module
//! resolution and runs it as a child, passing its exit status or signal on. A Node.js start costs about 70 ms of CPU
//! on every call of the bridge, where the binary itself takes 2.3 ms (BENCHMARKS.md#the-npm-launcher), and an agent
//! calls it on every event: the shell launcher brings that back to the binary's own cost plus a shell's start
//! (about 1.5 ms).
//!
//! The man pages ride in the main package's `man` field, which npm links into `<prefix>/share/man` on a global
//! install; npm has no place for shell completions (`hook completions <shell>` prints them).
//!
//! Each package is staged under `npm/stage/` and packed with `npm pack` into `npm/<name>-<version>.tgz`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

use super::{Built, Docs, NPM_MAIN, Project, capture, files_in};

/// The main package's `bin/hook.js`: the fallback of [`LAUNCHER`].
pub const SHIM: &str = include_str!("hook.js");

/// The main package's `bin/hook`, with `@PLATFORMS@` to be replaced by the platform packages' names.
pub const LAUNCHER: &str = include_str!("hook.sh");

/// The launcher with the platforms the release carries.
pub fn launcher(built: &[Built]) -> String {
    let names: Vec<String> = built.iter().map(|b| format!("{}-{}", b.platform.node_os, b.platform.node_cpu)).collect();
    LAUNCHER.replace("@PLATFORMS@", &names.join(" "))
}

/// Stages and packs every package; returns the tarballs, the main package's first.
pub fn write(project: &Project, built: &[Built], docs: &Docs, dir: &Path) -> Result<Vec<PathBuf>> {
    let stage = dir.join("stage");
    let main = stage.join(NPM_MAIN);
    stage_main(project, built, docs, &main)?;
    let mut tarballs = vec![pack(&main, dir)?];
    for one in built {
        let package = stage.join(format!("{}-{}", one.platform.node_os, one.platform.node_cpu));
        stage_platform(project, one, &package)?;
        tarballs.push(pack(&package, dir)?);
    }
    Ok(tarballs)
}

/// The main package's `package.json`.
pub fn main_manifest(project: &Project, built: &[Built], man_pages: &[String]) -> Value {
    let optional: Map<String, Value> =
        built.iter().map(|b| (b.platform.npm_package(), Value::from(project.version.clone()))).collect();
    json!({
        "name": NPM_MAIN,
        "version": project.version,
        "description": project.description,
        "license": project.license,
        "repository": {"type": "git", "url": format!("git+{}.git", project.repository)},
        "homepage": project.repository,
        "keywords": ["hooks", "coding-agents", "claude-code", "codex", "gemini-cli"],
        "bin": {"hook": "bin/hook"},
        "man": man_pages.iter().map(|p| format!("man/{p}")).collect::<Vec<_>>(),
        "files": ["bin/", "man/", "README.md", "LICENSE-MIT", "LICENSE-APACHE"],
        "optionalDependencies": optional,
        "engines": {"node": ">=18"},
    })
}

/// A platform package's `package.json`.
pub fn platform_manifest(project: &Project, built: &Built) -> Value {
    let p = &built.platform;
    json!({
        "name": p.npm_package(),
        "version": project.version,
        "description": format!("The `hook` binary for {} {} (static, musl): installed by {NPM_MAIN}", p.node_os, p.node_cpu),
        "license": project.license,
        "repository": {"type": "git", "url": format!("git+{}.git", project.repository)},
        "os": [p.node_os],
        "cpu": [p.node_cpu],
        "files": ["bin/hook", "LICENSE-MIT", "LICENSE-APACHE"],
        "preferUnplugged": true,
    })
}

fn stage_main(project: &Project, built: &[Built], docs: &Docs, main: &Path) -> Result<()> {
    std::fs::create_dir_all(main.join("bin"))?;
    std::fs::create_dir_all(main.join("man"))?;
    let mut pages = Vec::new();
    for page in files_in(&docs.man)? {
        let name = page.file_name().unwrap_or_default().to_string_lossy().into_owned();
        std::fs::copy(&page, main.join("man").join(&name))?;
        pages.push(name);
    }
    write_json(&main.join("package.json"), &main_manifest(project, built, &pages))?;
    let platforms: Map<String, Value> = built
        .iter()
        .map(|b| (format!("{}-{}", b.platform.node_os, b.platform.node_cpu), Value::from(b.platform.npm_package())))
        .collect();
    write_json(&main.join("bin/platforms.json"), &Value::Object(platforms))?;
    let shim = main.join("bin/hook.js");
    std::fs::write(&shim, SHIM)?;
    executable(&shim)?;
    let launcher_file = main.join("bin/hook");
    std::fs::write(&launcher_file, launcher(built))?;
    executable(&launcher_file)?;
    copy_common(project, main, true)
}

fn stage_platform(project: &Project, built: &Built, package: &Path) -> Result<()> {
    std::fs::create_dir_all(package.join("bin"))?;
    let binary = package.join("bin/hook");
    std::fs::copy(&built.binary, &binary).context("cannot copy the binary into its npm package")?;
    executable(&binary)?;
    write_json(&package.join("package.json"), &platform_manifest(project, built))?;
    copy_common(project, package, false)
}

fn copy_common(project: &Project, package: &Path, readme: bool) -> Result<()> {
    let mut files = vec!["LICENSE-MIT", "LICENSE-APACHE"];
    if readme {
        files.push("README.md");
    }
    for file in files {
        std::fs::copy(project.root.join(file), package.join(file)).with_context(|| format!("cannot copy {file}"))?;
    }
    Ok(())
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

fn executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

/// `npm pack` of the staged package into `dir`; returns the tarball.
fn pack(package: &Path, dir: &Path) -> Result<PathBuf> {
    let out = capture(
        Command::new("npm")
            .args(["pack", "--json", "--pack-destination"])
            .arg(dir)
            .arg(package)
            .env("npm_config_update_notifier", "false"),
    )?;
    let report: Value = serde_json::from_slice(&out).context("`npm pack --json` printed no JSON")?;
    let Some(file) = report[0]["filename"].as_str() else {
        bail!("`npm pack` named no tarball: {report}");
    };
    let unpacked: Vec<&str> =
        report[0]["files"].as_array().into_iter().flatten().filter_map(|f| f["path"].as_str()).collect();
    if !unpacked.iter().any(|f| f.starts_with("bin/")) {
        bail!("the npm package {} holds no bin/: {unpacked:?}", package.display());
    }
    Ok(dir.join(file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::PLATFORMS;

    fn project() -> Project {
        Project {
            version: "0.4.0".into(),
            license: "MIT OR Apache-2.0".into(),
            repository: "https://example.org/hooks".into(),
            description: "The `hook` binary.".into(),
            root: PathBuf::from("/repo"),
        }
    }

    #[test]
    fn the_main_package_lists_each_platform_package_as_optional_and_runs_no_script() {
        let built: Vec<Built> =
            PLATFORMS.iter().map(|p| Built { platform: *p, binary: PathBuf::from("/b"), dist: true }).collect();
        let main = main_manifest(&project(), &built, &["hook.1".to_owned()]);
        assert_eq!(main["bin"]["hook"], "bin/hook");
        assert_eq!(main["optionalDependencies"]["@hook-engine/linux-x64"], "0.4.0");
        assert_eq!(main["optionalDependencies"]["@hook-engine/linux-arm64"], "0.4.0");
        assert_eq!(main["man"][0], "man/hook.1");
        assert!(main.get("scripts").is_none(), "no install script: {main:#}");
        let platform = platform_manifest(&project(), &built[1]);
        assert_eq!(platform["os"][0], "linux");
        assert_eq!(platform["cpu"][0], "arm64");
        assert!(platform.get("scripts").is_none(), "{platform:#}");
    }

    #[test]
    fn the_launcher_execs_the_platform_binary_and_falls_back_to_node() {
        let built: Vec<Built> =
            PLATFORMS.iter().map(|p| Built { platform: *p, binary: PathBuf::from("/b"), dist: true }).collect();
        let text = launcher(&built);
        assert!(text.starts_with("#!/bin/sh\n"));
        assert!(text.contains("for platform in linux-x64 linux-arm64; do"), "{text}");
        assert!(text.contains("exec \"$binary\" \"$@\""));
        assert!(text.contains("HOOK_LAUNCHER=$0 exec node \"${self%/*}/hook.js\" \"$@\""));
    }

    #[test]
    fn the_shim_reads_the_platform_table_and_passes_the_status_and_signal_on() {
        assert!(SHIM.starts_with("#!/usr/bin/env node\n"));
        assert!(SHIM.contains("require('./platforms.json')"));
        assert!(SHIM.contains("process.kill(process.pid, signal)"));
        assert!(SHIM.contains("process.exit(code ?? 1)"));
        assert!(!SHIM.contains("http"), "the shim downloads nothing");
    }
}
