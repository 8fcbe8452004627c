//! Project automation: `cargo xtask <task>`. With no task, prints the task list.

use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

mod agents;
mod bench;
mod commits;
mod dist;
mod elf;
mod inspect;
mod plugins;
mod release;

const TASKS: &str = "\
cargo xtask <task>

tasks:
  ci       run every check CI runs: setup, fmt, clippy, doc, Miri on the binary's `unsafe`, the test suite, the
           fuzz targets' build, the real agents
  commits  check that every commit since the rule began has a subject of at most 72 characters and a body
  inspect  show the merged hook configuration, trust and issues (the report of `hook inspect`)
           [--workspace DIR] [--config-home DIR] [--managed-file FILE] [--json]
  agents   run the engine end to end inside the seven real agents the suite pins (each a module of
           xtask/src/agents, installed with npm under target/agents), offline against a scripted model server
           [--agent NAME: one of them, as `hook install --agent` names it] [--scenario NAME] [--keep] [--no-measure]
           [--jobs N: agents run at once, each in a worker process of its own; default one per core, at most 2]
           [--conformance [--case PART]]: each protocol case natively and bridged, compared
  dist     the release `hook` binary to install, in <target dir>/dist/hook: on Linux with glibc a static
           position-independent executable (no dynamic loader at each start; docs/performance.md) [--out DIR]
           [--fixed-address: the image at a fixed address, nothing relocated at start]
  release  every install route, from the `dist` binary of each target this machine builds: the release archives
           (cargo binstall), the npm packages, the wheels, SHA256SUMS, in <target dir>/release-artifacts; then
           each installed offline (npm, pip) and `hook --version` and `hook install --agent claude` run through it
           [--out DIR] [--target TRIPLE]... [--binary PATH: package this binary, not a dist build] [--no-check]
  plugins  write the agents' plugin packages of the bridge (plugins/: Claude Code, Gemini CLI, Codex) and their
           marketplace files, from the agent table and what `hook install` writes [--check: fail if they differ]
  bench    the `hook` binary's whole-process figures, each with its baseline from the same run (interleaved
           medians; the build of `cargo xtask dist`), then criterion's figures from target/criterion (BENCHMARKS.md)
           [--runs N] [--sizes 1000,10000,100000] [--load-runs N] [--hook PATH] [--criterion: run the benches first]
  bench-clio PATH
           clio-coder's own hook loader (a checkout at PATH, after `npm install`) beside ours on the same
           generated hooks: whole-process time and peak RSS [--sizes …] [--load-runs N] [--hook PATH]
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        None => {
            print!("{TASKS}");
            Ok(())
        }
        Some("ci") => ci(),
        Some("commits") => commits::run(&workspace_root()),
        Some("inspect") => inspect::run(&args[1..]),
        Some("agents") => agents::run(&args[1..], &workspace_root()),
        Some("bench") => bench::run(&args[1..], &workspace_root()),
        Some("bench-clio") => bench::clio(&args[1..], &workspace_root()),
        Some("dist") => dist::run(&args[1..], &workspace_root()),
        Some("release") => release::run(&args[1..], &workspace_root()),
        Some("plugins") => plugins::run(&args[1..], &workspace_root()),
        Some(other) => Err(anyhow::anyhow!("unknown task `{other}`\n\n{TASKS}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err:#}");
            ExitCode::FAILURE
        }
    }
}

pub(crate) fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The same steps as `.ci/run`, in the same order.
fn ci() -> Result<()> {
    let root = workspace_root();
    run(&root, "bash", &[".ci/setup"], &[])?;
    run(&root, "cargo", &["fmt", "--all", "--check"], &[])?;
    commits::run(&root)?;
    // The agents' npm install, in the background while the Rust steps build; the agent suite waits for it.
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".to_owned());
    let npm_log = root.join(&target).join("agents-npm.log");
    std::fs::create_dir_all(root.join(&target))?;
    let log = std::fs::File::create(&npm_log)?;
    let mut npm = Command::new(std::env::current_exe()?)
        .args(["agents", "--install-only"])
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .context("cannot start the agents' npm install")?;
    run(&root, "cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[])?;
    // The library crates without their optional kinds (the workspace build unifies every feature on).
    let libraries = ["-p", "hook-config", "-p", "hook-middleware", "-p", "hook-agents", "--no-default-features"];
    run(&root, "cargo", &[&["clippy"][..], &libraries, &["--all-targets", "--", "-D", "warnings"]].concat(), &[])?;
    let otel_only = ["clippy", "-p", "hook-middleware", "--no-default-features", "--features", "otel", "--lib"];
    run(&root, "cargo", &[&otel_only[..], &["--", "-D", "warnings"]].concat(), &[])?;
    run(&root, "cargo", &[&["test"][..], &libraries, &["--lib"]].concat(), &[])?;
    run(&root, "cargo", &[&["test"][..], &libraries, &["--doc"]].concat(), &[])?;
    run(&root, "cargo", &["doc", "--workspace", "--no-deps"], &[("RUSTDOCFLAGS", "-D warnings")])?;
    // The `hook` binary's own `unsafe` (its allocators and process start), alone in hook-start, under Miri.
    run(
        &root,
        "cargo",
        &["+nightly", "miri", "test", "-p", "hook-start"],
        &[("MIRIFLAGS", "-Zmiri-disable-isolation")],
    )?;
    run(&root, "cargo", &["test", "--workspace"], &[])?;
    // Every install route's packages from the test build's `hook`, installed offline; the crates packaged.
    let (binary, out) = (format!("{target}/debug/hook"), format!("{target}/release-check"));
    run(&root, "cargo", &["xtask", "release", "--binary", &binary, "--out", &out], &[])?;
    run(&root, "cargo", &["publish", "--workspace", "--dry-run", "--allow-dirty", "--no-verify"], &[])?;
    other_platforms(&root)?;
    // The fuzz targets (fuzz/, a workspace of its own) are built so that they keep compiling against the crates, into
    // the workspace's target directory, where most of what they link is built already.
    run(&root, "cargo", &["build", "--manifest-path", "fuzz/Cargo.toml", "--bins", "--target-dir", &target], &[])?;
    if !npm.wait()?.success() {
        let log = std::fs::read_to_string(&npm_log).unwrap_or_default();
        bail!("the agents' npm install failed ({}):\n{log}", npm_log.display());
    }
    run(&root, "cargo", &["xtask", "agents", "--no-measure", "--jobs", "3"], &[])?;
    Ok(())
}

/// Windows: cross-built, linted, and hook-exec's and the CLI's Windows suites run under Wine (`.ci/wine/run`).
/// macOS: compiled and linted only, ring's C through clang without an SDK (`.ci/macos-check`).
fn other_platforms(root: &std::path::Path) -> Result<()> {
    let windows = ["--target", "x86_64-pc-windows-gnu"];
    let lint = ["--", "-D", "warnings"];
    run(root, "cargo", &[&["clippy", "--workspace", "--exclude", "xtask"][..], &windows, &lint].concat(), &[])?;
    let runner = root.join(".ci/wine/run");
    let runner = runner.to_str().context("the repository's path is not UTF-8")?;
    let suites = ["test", "-p", "hook-exec", "-p", "hook-cli", "--test", "it"];
    let threads = ["--", "--test-threads", "2"];
    run(
        root,
        "cargo",
        &[&suites[..], &windows, &threads].concat(),
        &[("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER", runner)],
    )?;
    let include = root.join(".ci/macos-check");
    let cflags = format!("-ffreestanding -nostdlibinc -DRING_CORE_NOSTDLIBINC=1 -I{}", include.display());
    let macos = [
        ("CC_x86_64_apple_darwin", "clang"),
        ("AR_x86_64_apple_darwin", "llvm-ar"),
        ("CFLAGS_x86_64_apple_darwin", cflags.as_str()),
    ];
    run(root, "cargo", &[&["clippy", "--workspace", "--target", "x86_64-apple-darwin"][..], &lint].concat(), &macos)
}

/// Makes this process a child subreaper (Linux): what a command it starts leaves running, even in a session of its
/// own, is re-parented here, where the bench waits for it and counts its CPU time, and the agent suite kills it.
pub(crate) fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
}

fn run(dir: &std::path::Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> Result<()> {
    eprintln!("xtask: $ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .status()
        .with_context(|| format!("could not start `{program}`"))?;
    if !status.success() {
        bail!("`{program} {}` failed ({status})", args.join(" "));
    }
    Ok(())
}
