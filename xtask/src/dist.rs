//! `cargo xtask dist`: the release `hook` binary as it should be installed, in `<target dir>/dist/hook`.
//!
//! `hook` is started once per agent event, so its start is paid on every tool call (docs/performance.md). On Linux
//! the binary is a static position-independent executable linked with musl (`<arch>-unknown-linux-musl`, rustc's
//! default there: static and position-independent): no dynamic loader and no shared library to map at start, the
//! image still placed at a random address like every other mapping, and nothing of the host's libc needed where it
//! runs (a static glibc binary still loads the host's NSS libraries, of the same glibc version, to resolve a host
//! name). Against the same code linked statically with glibc (`--libc gnu`) it costs 0.59–0.62× the CPU time of
//! `hook --version` and 0.91–0.96× of a bridge call: glibc's static start asks the processor about its caches
//! with about 40 `cpuid` instructions, each a trap to the hypervisor on a virtual machine
//! (BENCHMARKS.md#start-up-machinery). It needs the target's standard library (`rustup target add
//! x86_64-unknown-linux-musl`) and a C compiler for it, for ring's C and assembly: `musl-gcc` (Debian's
//! `musl-tools`) when there is one, the host's `cc` otherwise.
//!
//! Being position-independent also gives the unwinder an index: such an image finds a frame's description through
//! its `.eh_frame_hdr` table (`PT_GNU_EH_FRAME`), by binary search, where a static image at a fixed address registers
//! its `.eh_frame` at start and the first unwind sorts every frame description of the image (about 1.7 ms), which a
//! library that captures a backtrace with each error it builds pays on every event. The build checks both: no
//! dynamic loader named, and the index there.
//!
//! `--fixed-address` builds the image at a fixed address instead (`-C relocation-model=static`), for a host that
//! would rather have the start faster than the image's own address random: nothing is relocated at start, where the
//! position-independent image writes about 15 000 pointers first (1.4× the CPU time of `hook --version`, 1.09–1.13×
//! of a bridge call with glibc: BENCHMARKS.md#start-up-machinery). Such an image has no unwinder index in use, which
//! costs `hook` nothing as long as it captures no backtrace.
//!
//! The flags cannot be set for the whole workspace (they would apply to proc-macros and build scripts too, which
//! must be dynamic libraries), so the build names its target explicitly, which keeps them to the target's crates.
//! Elsewhere (macOS) it is the ordinary release build. The binary is read from the target directory cargo really
//! builds in (`cargo metadata`'s, which follows `CARGO_TARGET_DIR` and `build.target-dir`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::elf::{EM_AARCH64, EM_X86_64, ET_DYN, ET_EXEC, Elf, PT_GNU_EH_FRAME, PT_INTERP};

const USAGE: &str = "cargo xtask dist [--out DIR] [--fixed-address] [--libc musl|gnu]: the release `hook` binary, \
                     a static position-independent executable on Linux, linked with musl unless `--libc gnu`";

/// The C library a Linux binary is linked with, statically.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Libc {
    /// musl (the default): no `cpuid` storm at start, nothing of the host's libc needed.
    Musl,
    /// glibc, as the host's own target.
    Gnu,
}

/// How the image is linked on Linux.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Image {
    /// Position-independent, placed at random (the default).
    Pie,
    /// At a fixed address: nothing to relocate at start.
    Fixed,
}

/// `cargo xtask dist [--out DIR] [--fixed-address] [--libc musl|gnu]`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let mut out = None;
    let mut image = Image::Pie;
    let mut libc = Libc::Musl;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = Some(PathBuf::from(args.next().context("--out needs a directory")?)),
            "--fixed-address" => image = Image::Fixed,
            "--libc" => {
                libc = match args.next().map(String::as_str) {
                    Some("musl") => Libc::Musl,
                    Some("gnu") => Libc::Gnu,
                    other => bail!("--libc takes `musl` or `gnu`, not {other:?}\n{USAGE}"),
                }
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let out = match out {
        Some(out) => out,
        None => target_dir(root)?.join("dist"),
    };
    let binary = build_into(root, &out, image, libc)?;
    println!("{}", binary.display());
    Ok(())
}

/// Builds the release binary, copies it to `<target dir>/dist/hook`, checks it runs, and returns its path.
pub fn build(root: &Path) -> Result<PathBuf> {
    build_into(root, &target_dir(root)?.join("dist"), Image::Pie, Libc::Musl)
}

/// The directory cargo builds the workspace in: `target_directory` of `cargo metadata`, which follows
/// `CARGO_TARGET_DIR` and the `build.target-dir` of cargo's configuration.
pub fn target_dir(root: &Path) -> Result<PathBuf> {
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .context("cannot run `cargo metadata`")?;
    if !output.status.success() {
        bail!("`cargo metadata` failed: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    target_directory(&output.stdout)
}

/// `target_directory` of `cargo metadata`'s JSON.
fn target_directory(metadata: &[u8]) -> Result<PathBuf> {
    let metadata: serde_json::Value = serde_json::from_slice(metadata).context("`cargo metadata` printed no JSON")?;
    metadata["target_directory"].as_str().map(PathBuf::from).context("`cargo metadata` names no target_directory")
}

/// Where cargo puts the release `hook`: under the target's own directory when the build names one.
fn built_binary(target_dir: &Path, target: Option<&str>) -> PathBuf {
    let dir = match target {
        Some(triple) => target_dir.join(triple),
        None => target_dir.to_path_buf(),
    };
    dir.join("release").join(format!("hook{}", std::env::consts::EXE_SUFFIX))
}

fn build_into(root: &Path, out: &Path, image: Image, libc: Libc) -> Result<PathBuf> {
    let host = host_triple()?;
    match static_target(&host, libc) {
        Some(target) => build_static(root, out, &target, image, libc),
        None => {
            crate::run(root, "cargo", &["build", "--release", "-p", "hook-cli"], &[])?;
            let dest = install_binary(&built_binary(&target_dir(root)?, None), out)?;
            check_answers(&dest, None)?;
            Ok(dest)
        }
    }
}

/// Builds the static musl binary for `target` (the host's arch, or another one a cross C compiler on PATH can build
/// ring for: [`cross_compiler`]) as `image`, copies it to `<out>/hook`, checks its image and, where it can run here
/// (natively or under `qemu-<arch>`), that it answers `--version`. Returns its path.
pub fn build_release(root: &Path, out: &Path, target: &str, image: Image) -> Result<PathBuf> {
    build_static(root, out, target, image, Libc::Musl)
}

fn build_static(root: &Path, out: &Path, target: &str, image: Image, libc: Libc) -> Result<PathBuf> {
    // As cargo splits RUSTFLAGS, then ours, passed one per field so that no path is split at a space.
    let mut flags: Vec<String> =
        std::env::var("RUSTFLAGS").unwrap_or_default().split_whitespace().map(str::to_owned).collect();
    // Static and `--eh-frame-hdr` are musl's and rustc's own defaults; named so that the image never depends on
    // them.
    flags.extend(["-C", "target-feature=+crt-static", "-C", "link-arg=-Wl,--eh-frame-hdr"].map(str::to_owned));
    if image == Image::Fixed {
        flags.extend(["-C", "relocation-model=static"].map(str::to_owned));
    }
    let encoded = flags.join("\u{1f}");
    let mut env = vec![("CARGO_ENCODED_RUSTFLAGS".to_owned(), encoded), ("RUSTFLAGS".to_owned(), String::new())];
    let arch = target_arch(target);
    let native = arch == std::env::consts::ARCH;
    if libc == Libc::Musl {
        require_target(target)?;
        if native {
            env.extend(c_compiler(target));
        } else {
            env.extend(cross_compiler(target)?);
        }
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    crate::run(root, "cargo", &["build", "--release", "-p", "hook-cli", "--target", target], &env)?;
    let dest = install_binary(&built_binary(&target_dir(root)?, Some(target)), out)?;
    let elf = Elf::read(&dest)?;
    check_image(&elf, image).with_context(|| dest.display().to_string())?;
    check_machine(&elf, arch).with_context(|| dest.display().to_string())?;
    let runner = if native { None } else { Some(format!("qemu-{arch}")) };
    match runner {
        Some(qemu) if !on_path(&qemu) => {
            eprintln!("xtask: {} is for {arch} and `{qemu}` is not on PATH: not started here", dest.display())
        }
        runner => check_answers(&dest, runner.as_deref())?,
    }
    Ok(dest)
}

/// Copies the built binary to `<out>/hook` through a new file: a running `hook` keeps its pages.
fn install_binary(built: &Path, out: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let dest = out.join("hook");
    let staged = out.join(".hook.new");
    std::fs::copy(built, &staged).with_context(|| format!("cannot copy {}", built.display()))?;
    std::fs::rename(&staged, &dest).with_context(|| format!("cannot move the binary to {}", dest.display()))?;
    Ok(dest)
}

/// Fails unless `hook --version` (under `runner` when one is named) answers `hook <version>`.
fn check_answers(binary: &Path, runner: Option<&str>) -> Result<()> {
    let mut command = match runner {
        Some(runner) => {
            let mut command = Command::new(runner);
            command.arg(binary);
            command
        }
        None => Command::new(binary),
    };
    let version = command.arg("--version").output().context("the built binary does not start")?;
    if !version.status.success() || !version.stdout.starts_with(b"hook ") {
        bail!("`{} --version` did not answer as expected: {:?}", binary.display(), version);
    }
    Ok(())
}

/// The arch of a target triple, as `std::env::consts::ARCH` names it.
fn target_arch(target: &str) -> &str {
    target.split('-').next().unwrap_or_default()
}

/// Fails unless the image is for `arch`.
fn check_machine(elf: &Elf, arch: &str) -> Result<()> {
    let wanted = match arch {
        "x86_64" => EM_X86_64,
        "aarch64" => EM_AARCH64,
        _ => return Ok(()),
    };
    if elf.machine()? != wanted {
        bail!("is not an {arch} image (ELF machine {})", elf.machine()?);
    }
    Ok(())
}

/// The C compiler and linker for a musl `target` of another arch than the host's: `<arch>-linux-musl-gcc`, else
/// `<arch>-linux-gnu-gcc` (Debian's `gcc-<arch>-linux-gnu`; ring's C needs no libc headers, and rustc links musl's
/// own start files and libc, which it ships with the target), unless the environment names them.
pub fn cross_compiler(target: &str) -> Result<Vec<(String, String)>> {
    let arch = target_arch(target);
    let cc_var = format!("CC_{}", target.replace('-', "_"));
    let linker_var = format!("CARGO_TARGET_{}_LINKER", target.replace('-', "_").to_uppercase());
    let candidates = [format!("{arch}-linux-musl-gcc"), format!("{arch}-linux-gnu-gcc")];
    let Some(gcc) = candidates.iter().find(|name| on_path(name)) else {
        bail!(
            "no C compiler for {target} on PATH ({}): install Debian's `gcc-{}-linux-gnu` (ring's C and assembly \
             are built for the target, and the binary is linked with it)",
            candidates.join(", "),
            arch.replace('_', "-")
        );
    };
    let mut env = Vec::new();
    for var in [cc_var, linker_var] {
        if std::env::var_os(&var).is_none() {
            env.push((var, gcc.clone()));
        }
    }
    Ok(env)
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
}

/// Fails unless the image is static and of the kind asked for, with its frame index.
pub fn check_image(elf: &Elf, image: Image) -> Result<()> {
    if elf.has_segment(PT_INTERP)? {
        bail!("still names a dynamic loader: the static link did not take");
    }
    let wanted = match image {
        Image::Pie => ET_DYN,
        Image::Fixed => ET_EXEC,
    };
    if elf.kind()? != wanted {
        bail!("is not the {image:?} image asked for (ELF type {})", elf.kind()?);
    }
    if !elf.has_segment(PT_GNU_EH_FRAME)? {
        bail!("has no .eh_frame_hdr: each first unwind would sort every frame description");
    }
    Ok(())
}

/// The target a static Linux binary is built for on `host` with `libc`; `None` off Linux.
pub fn static_target(host: &str, libc: Libc) -> Option<String> {
    let arch = host.strip_suffix("-unknown-linux-gnu").or_else(|| host.strip_suffix("-unknown-linux-musl"))?;
    Some(match libc {
        Libc::Musl => format!("{arch}-unknown-linux-musl"),
        Libc::Gnu => format!("{arch}-unknown-linux-gnu"),
    })
}

/// Fails with the fix unless rustup has the target's standard library.
pub fn require_target(target: &str) -> Result<()> {
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output().context("cannot run `rustc`")?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    if !sysroot.join("lib/rustlib").join(target).join("lib").is_dir() {
        bail!(
            "the standard library for {target} is not installed: run `rustup target add {target}` (or build with \
             `--libc gnu`)"
        );
    }
    Ok(())
}

/// The C compiler cc-rs should use for `target` (ring's C and assembly), unless the environment names one:
/// `musl-gcc` when it is on PATH, else the host's `cc`.
fn c_compiler(target: &str) -> Option<(String, String)> {
    let var = format!("CC_{}", target.replace('-', "_"));
    if std::env::var_os(&var).is_some() || std::env::var_os("CC").is_some() {
        return None;
    }
    let named = format!("{}-linux-musl-gcc", target.split('-').next().unwrap_or_default());
    if on_path(&named) {
        return None;
    }
    Some((var, if on_path("musl-gcc") { "musl-gcc" } else { "cc" }.to_owned()))
}

/// The host's target triple, from `rustc -vV`.
pub fn host_triple() -> Result<String> {
    let output = Command::new("rustc").arg("-vV").output().context("cannot run `rustc -vV`")?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(|host| host.trim().to_owned())
        .context("`rustc -vV` names no host")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_is_read_from_the_target_directory_cargo_reports() {
        let metadata = br#"{"packages":[],"target_directory":"/elsewhere/tgt","workspace_root":"/repo"}"#;
        let dir = target_directory(metadata).unwrap();
        assert_eq!(dir, Path::new("/elsewhere/tgt"));
        let exe = std::env::consts::EXE_SUFFIX;
        assert_eq!(
            built_binary(&dir, Some("x86_64-unknown-linux-gnu")),
            Path::new(&format!("/elsewhere/tgt/x86_64-unknown-linux-gnu/release/hook{exe}"))
        );
        assert_eq!(built_binary(&dir, None), Path::new(&format!("/elsewhere/tgt/release/hook{exe}")));
        assert!(target_directory(b"{}").is_err());
    }

    #[test]
    fn a_static_linux_build_names_the_libc_target_of_the_host_arch() {
        assert_eq!(static_target("x86_64-unknown-linux-gnu", Libc::Musl).as_deref(), Some("x86_64-unknown-linux-musl"));
        assert_eq!(static_target("aarch64-unknown-linux-gnu", Libc::Gnu).as_deref(), Some("aarch64-unknown-linux-gnu"));
        assert_eq!(
            static_target("x86_64-unknown-linux-musl", Libc::Musl).as_deref(),
            Some("x86_64-unknown-linux-musl")
        );
        assert_eq!(static_target("aarch64-apple-darwin", Libc::Musl), None);
    }

    #[test]
    fn cargo_metadata_follows_cargo_target_dir() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let elsewhere = std::env::temp_dir().join("xtask-dist-target-dir-test");
        let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .current_dir(root)
            .env("CARGO_TARGET_DIR", &elsewhere)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(target_directory(&output.stdout).unwrap(), elsewhere);
    }
}
