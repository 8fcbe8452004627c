//! `cargo xtask release`: every way a user installs `hook`, built from the `dist` binary and checked by installing
//! it as a user would, offline.
//!
//! For each target this machine can build (x86_64 Linux, and aarch64 Linux where rustup has the target's standard
//! library and a cross C compiler is on PATH; [`targets`] says why one is left out), the static musl binary of
//! `cargo xtask dist` ([`crate::dist::build_release`]), and from it, under `<target dir>/release-artifacts/`:
//!
//! - `archives/hook-<target>-v<version>.tar.gz`: the binary, the licenses, README, CHANGELOG, shell completions and
//!   man pages; what cargo-binstall downloads (`[package.metadata.binstall]` of hook-cli names these files);
//! - `npm/`: the main package `hook-engine` (a `hook` bin that `exec`s the binary, the man pages) and one package per
//!   platform (`@hook-engine/linux-x64`, …) with `os` and `cpu`, its optional dependencies: esbuild's pattern, no
//!   install script ([`npm`]);
//! - `pypi/`: one wheel per platform with the binary in `<name>.data/scripts/`, as maturin's `bin` bindings make
//!   them, written here ([`wheel`]);
//! - `SHA256SUMS` over all of them.
//!
//! Then it checks what it made ([`check`]): each packaged binary is byte for byte the `dist` one (a static
//! position-independent image); the npm tarballs install offline into a temporary prefix and `hook --version` and
//! `hook install --agent claude` run through npm's bin; the wheel installs with `pip install --no-index` into a
//! fresh virtual environment and runs the same; the archive holds the binary where binstall's `bin-dir` says.
//!
//! `--binary PATH` packages a binary already built instead of building (CI packages its test build this way, which
//! is not the measured one: the image check is then skipped, and said so).

mod archive;
mod check;
mod npm;
mod wheel;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::dist::Image;

const USAGE: &str = "cargo xtask release [--out DIR] [--target TRIPLE]... [--binary PATH] [--no-check]: the \
                     static binaries, the npm packages, the wheels, the archives and their SHA-256 sums, checked by \
                     installing them offline";

/// A platform a release carries: its Rust target and its names in npm and in wheel tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform {
    /// The Rust target the binary is built for (static, musl).
    pub target: &'static str,
    /// `process.platform` in Node.js and the `os` of the npm package.
    pub node_os: &'static str,
    /// `process.arch` in Node.js and the `cpu` of the npm package.
    pub node_cpu: &'static str,
    /// The machine in wheel platform tags.
    pub wheel_arch: &'static str,
    /// How `dist` links it: position-independent where rustc's target can link a static PIE (its spec's
    /// `static-position-independent-executables`); at a fixed address where it cannot (aarch64 musl in Rust 1.95:
    /// `-static` with `-no-pie`), which `dist --fixed-address` also builds and checks.
    pub image: Image,
}

impl Platform {
    /// The npm package that carries this platform's binary.
    pub fn npm_package(&self) -> String {
        format!("@{NPM_SCOPE}/{}-{}", self.node_os, self.node_cpu)
    }
}

/// Every platform a release can carry, in the order the packages list them.
pub const PLATFORMS: [Platform; 2] = [
    Platform {
        target: "x86_64-unknown-linux-musl",
        node_os: "linux",
        node_cpu: "x64",
        wheel_arch: "x86_64",
        image: Image::Pie,
    },
    Platform {
        target: "aarch64-unknown-linux-musl",
        node_os: "linux",
        node_cpu: "arm64",
        wheel_arch: "aarch64",
        image: Image::Fixed,
    },
];

/// The npm main package, the scope of the platform packages, and the PyPI distribution.
pub const NPM_MAIN: &str = "hook-engine";
/// The npm scope of the per-platform packages.
pub const NPM_SCOPE: &str = "hook-engine";
/// The PyPI distribution name (`pip install hook-engine`).
pub const PYPI_NAME: &str = "hook-engine";

/// What every package says about the project, read from hook-cli's manifest (`cargo metadata`).
#[derive(Debug, Clone)]
pub struct Project {
    /// The version of the release.
    pub version: String,
    /// The SPDX expression of the license.
    pub license: String,
    /// The repository's address.
    pub repository: String,
    /// The one-line description.
    pub description: String,
    /// The workspace root: README, licenses, CHANGELOG.
    pub root: PathBuf,
}

/// One platform's binary, built (or given) for the release.
#[derive(Debug, Clone)]
pub struct Built {
    /// The platform.
    pub platform: Platform,
    /// The binary.
    pub binary: PathBuf,
    /// Whether it is the `dist` build (its image is checked), not a binary given with `--binary`.
    pub dist: bool,
}

/// The shell completions and man pages, generated by a binary of the release that runs here.
#[derive(Debug, Clone)]
pub struct Docs {
    /// `hook.bash`, `_hook` (zsh), `hook.fish`.
    pub completions: PathBuf,
    /// `hook.1`, `hook-<command>.1`, ….
    pub man: PathBuf,
}

/// The completion scripts shipped: the shell, the file name, and where a Unix prefix keeps it (`share/…`).
pub const COMPLETIONS: [(&str, &str, &str); 3] = [
    ("bash", "hook", "bash-completion/completions"),
    ("zsh", "_hook", "zsh/site-functions"),
    ("fish", "hook.fish", "fish/vendor_completions.d"),
];

struct Options {
    out: Option<PathBuf>,
    targets: Vec<String>,
    binary: Option<PathBuf>,
    check: bool,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut options = Options { out: None, targets: Vec::new(), binary: None, check: true };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().cloned().with_context(|| format!("{flag} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--out" => options.out = Some(PathBuf::from(value("--out")?)),
            "--target" => options.targets.push(value("--target")?),
            "--binary" => options.binary = Some(PathBuf::from(value("--binary")?)),
            "--no-check" => options.check = false,
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    Ok(options)
}

/// `cargo xtask release …`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let options = parse(args)?;
    let project = project(root)?;
    let out = match &options.out {
        Some(out) => std::path::absolute(out).context("cannot resolve --out")?,
        None => crate::dist::target_dir(root)?.join("release-artifacts"),
    };
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("cannot empty {}", out.display()))?;
    }
    let built = build(root, &out, &options)?;
    let docs = docs(&built, &out)?;
    let mut artifacts = Vec::new();
    for one in &built {
        artifacts.push(archive::write(&project, one, &docs, &out.join("archives"))?);
        artifacts.push(wheel::write(&project, one, &docs, &out.join("pypi"))?);
    }
    artifacts.extend(npm::write(&project, &built, &docs, &out.join("npm"))?);
    let sums = checksums(&out, &artifacts)?;
    if options.check {
        check::all(&project, &built, &out)?;
    }
    println!("{}", out.display());
    for artifact in &artifacts {
        println!("  {}", artifact.strip_prefix(&out).unwrap_or(artifact).display());
    }
    println!("  {}", sums.strip_prefix(&out).unwrap_or(&sums).display());
    Ok(())
}

/// The binaries of the release: the one given, or each target built with `dist`'s flags.
fn build(root: &Path, out: &Path, options: &Options) -> Result<Vec<Built>> {
    if let Some(binary) = &options.binary {
        let host = PLATFORMS
            .iter()
            .find(|p| p.target.starts_with(std::env::consts::ARCH))
            .context("no release platform for this machine's arch")?;
        eprintln!("xtask: packaging {} as given: not the `dist` build, so its image is not checked", binary.display());
        let binary = std::path::absolute(binary).context("cannot resolve --binary")?;
        return Ok(vec![Built { platform: *host, binary, dist: false }]);
    }
    let mut built = Vec::new();
    for platform in targets(&options.targets)? {
        let dir = out.join("bin").join(platform.target);
        let binary = crate::dist::build_release(root, &dir, platform.target, platform.image)?;
        built.push(Built { platform, binary, dist: true });
    }
    Ok(built)
}

/// The platforms to build: those asked for (each must be buildable), or every one this machine can build, saying
/// why each other is left out.
fn targets(asked: &[String]) -> Result<Vec<Platform>> {
    let mut chosen = Vec::new();
    for platform in PLATFORMS {
        let wanted = asked.is_empty() || asked.iter().any(|t| t == platform.target);
        if !wanted {
            continue;
        }
        match buildable(&platform) {
            Ok(()) => chosen.push(platform),
            Err(why) if asked.is_empty() && !platform.target.starts_with(std::env::consts::ARCH) => {
                eprintln!("xtask: {} left out: {why:#}", platform.target)
            }
            Err(why) => return Err(why.context(format!("cannot build {}", platform.target))),
        }
    }
    if let Some(unknown) = asked.iter().find(|t| !PLATFORMS.iter().any(|p| p.target == t.as_str())) {
        let known: Vec<&str> = PLATFORMS.iter().map(|p| p.target).collect();
        bail!("--target {unknown}: a release carries {}", known.join(", "));
    }
    Ok(chosen)
}

/// Whether this machine can build `platform`: rustup has its standard library, and for another arch a cross C
/// compiler is on PATH.
fn buildable(platform: &Platform) -> Result<()> {
    crate::dist::require_target(platform.target)?;
    if !platform.target.starts_with(std::env::consts::ARCH) {
        crate::dist::cross_compiler(platform.target)?;
    }
    Ok(())
}

/// Generates the completions and man pages with a binary of the release that runs on this machine.
fn docs(built: &[Built], out: &Path) -> Result<Docs> {
    let native = built
        .iter()
        .find(|b| b.platform.target.starts_with(std::env::consts::ARCH))
        .context("the release holds no binary that runs on this machine, to generate the man pages with")?;
    let docs = Docs { completions: out.join("docs/completions"), man: out.join("docs/man") };
    std::fs::create_dir_all(&docs.completions)?;
    for (shell, file, _) in COMPLETIONS {
        let script = capture(Command::new(&native.binary).args(["completions", shell]))?;
        std::fs::write(docs.completions.join(file), script)?;
    }
    capture(Command::new(&native.binary).args(["man", "--out"]).arg(&docs.man))?;
    if !docs.man.join("hook.1").is_file() {
        bail!("`hook man --out {}` wrote no hook.1", docs.man.display());
    }
    Ok(docs)
}

/// The files of a directory, sorted by name.
pub fn files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    files.retain(|f| f.is_file());
    files.sort();
    Ok(files)
}

/// Runs `command` and returns its stdout; fails with its stderr.
pub fn capture(command: &mut Command) -> Result<Vec<u8>> {
    let output = command.output().with_context(|| format!("cannot run {command:?}"))?;
    if !output.status.success() {
        bail!(
            "{command:?} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output.stdout)
}

/// The SHA-256 of a file, in hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(hex::encode(Sha256::digest(&bytes)))
}

/// Writes `SHA256SUMS` (`sha256sum -c` reads it) over the artifacts, paths relative to `out`.
fn checksums(out: &Path, artifacts: &[PathBuf]) -> Result<PathBuf> {
    let mut text = String::new();
    for artifact in artifacts {
        let name = artifact.strip_prefix(out).unwrap_or(artifact);
        text.push_str(&format!("{}  {}\n", sha256_file(artifact)?, name.display()));
    }
    let path = out.join("SHA256SUMS");
    std::fs::write(&path, text)?;
    Ok(path)
}

/// hook-cli's version, license, repository and description, from `cargo metadata`.
fn project(root: &Path) -> Result<Project> {
    let output = capture(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .current_dir(root),
    )?;
    let metadata: serde_json::Value = serde_json::from_slice(&output).context("`cargo metadata` printed no JSON")?;
    project_of(&metadata, root)
}

fn project_of(metadata: &serde_json::Value, root: &Path) -> Result<Project> {
    let packages = metadata["packages"].as_array().context("`cargo metadata` lists no packages")?;
    let cli = packages.iter().find(|p| p["name"] == "hook-cli").context("no package hook-cli in the workspace")?;
    let field = |name: &str| {
        cli[name].as_str().map(str::to_owned).with_context(|| format!("crates/hook-cli/Cargo.toml has no `{name}`"))
    };
    Ok(Project {
        version: field("version")?,
        license: field("license")?,
        repository: field("repository")?.trim_end_matches('/').to_owned(),
        description: field("description")?,
        root: root.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_facts_come_from_hook_cli_manifest() {
        let metadata = serde_json::json!({"packages": [
            {"name": "hook-types", "version": "9.9.9"},
            {"name": "hook-cli", "version": "0.3.1", "license": "MIT OR Apache-2.0",
             "repository": "https://example.org/hooks/", "description": "The `hook` binary."}
        ]});
        let project = project_of(&metadata, Path::new("/repo")).unwrap();
        assert_eq!(project.version, "0.3.1");
        assert_eq!(project.repository, "https://example.org/hooks");
        let missing = serde_json::json!({"packages": [{"name": "hook-cli", "version": "0.3.1"}]});
        let err = project_of(&missing, Path::new("/repo")).unwrap_err().to_string();
        assert!(err.contains("crates/hook-cli/Cargo.toml has no `license`"), "{err}");
    }

    /// A published crate names the versions of the members it depends on: each must be the workspace's version, or
    /// `cargo publish` would pin the crates of one release to those of another.
    #[test]
    fn every_member_dependency_names_the_workspace_version() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap()).unwrap();
        let version = manifest["workspace"]["package"]["version"].as_str().unwrap();
        let members = manifest["workspace"]["dependencies"].as_table().unwrap();
        let mut named = 0;
        for (name, dep) in members.iter().filter(|(_, dep)| dep.get("path").is_some()) {
            match dep.get("version").and_then(toml::Value::as_str) {
                Some(v) => assert_eq!(v, version, "workspace.dependencies.{name}"),
                None => assert_eq!(name, "hook-testkit", "{name} has no version: `cargo publish` would refuse it"),
            }
            named += 1;
        }
        assert!(named >= 7, "{named} members");
    }

    #[test]
    fn each_platform_names_its_npm_package_and_a_static_target() {
        assert_eq!(PLATFORMS[0].npm_package(), "@hook-engine/linux-x64");
        assert_eq!(PLATFORMS[1].npm_package(), "@hook-engine/linux-arm64");
        assert!(PLATFORMS.iter().all(|p| p.target.ends_with("-unknown-linux-musl")));
    }

    #[test]
    fn a_target_no_release_carries_is_refused_with_the_list() {
        let err = targets(&["riscv64gc-unknown-linux-musl".to_owned()]).unwrap_err().to_string();
        assert!(err.contains("a release carries x86_64-unknown-linux-musl"), "{err}");
    }
}
