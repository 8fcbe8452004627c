//! `cargo xtask dist`: the release `hook` binary as it should be installed, in `<target dir>/dist/hook`.
//!
//! `hook` is started once per agent event, so its start is paid on every tool call (docs/performance.md). On Linux
//! with glibc the binary is a static position-independent executable (`-C target-feature=+crt-static` with rustc's
//! default relocation model): no dynamic loader and no shared library to map at start, and the image is still
//! placed at a random address like every other mapping. Being position-independent also gives the unwinder an
//! index: such an image finds a frame's description through its `.eh_frame_hdr` table (`PT_GNU_EH_FRAME`), by
//! binary search, where a static image at a fixed address registers its `.eh_frame` at start (GCC's `crtbeginT.o`)
//! and the first unwind sorts every frame description of the image (about 1.7 ms), which a library that captures a
//! backtrace with each error it builds pays on every event. The build checks both: no dynamic loader named, and
//! the index there.
//!
//! `--fixed-address` builds the image at a fixed address instead (`-C relocation-model=static`), for a host that
//! would rather have the start faster than the image's own address random: nothing is relocated at start, where the
//! position-independent image writes about 23 000 pointers first (200 000 instructions and 74 page faults per
//! process; 1.4× the CPU time of `hook --version`, 1.09–1.13× of a bridge call: BENCHMARKS.md#start-up-machinery).
//! Such an image has no unwinder index in use, which costs `hook` nothing as long as it captures no backtrace.
//!
//! These flags cannot be set for the whole workspace (they would apply to proc-macros and build scripts too, which
//! must be dynamic libraries), so the build names the host's target explicitly, which keeps them to the target's
//! crates. Elsewhere (macOS, musl) it is the ordinary release build. The binary is read from the target directory
//! cargo really builds in (`cargo metadata`'s, which follows `CARGO_TARGET_DIR` and `build.target-dir`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::elf::{ET_DYN, ET_EXEC, Elf, PT_GNU_EH_FRAME, PT_INTERP};

const USAGE: &str = "cargo xtask dist [--out DIR] [--fixed-address]: the release `hook` binary, a static \
                     position-independent executable on Linux with glibc";

/// How the image is linked on Linux with glibc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Image {
    /// Position-independent, placed at random (the default).
    Pie,
    /// At a fixed address: nothing to relocate at start.
    Fixed,
}

/// `cargo xtask dist [--out DIR] [--fixed-address]`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let mut out = None;
    let mut image = Image::Pie;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = Some(PathBuf::from(args.next().context("--out needs a directory")?)),
            "--fixed-address" => image = Image::Fixed,
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let out = match out {
        Some(out) => out,
        None => target_dir(root)?.join("dist"),
    };
    let binary = build_into(root, &out, image)?;
    println!("{}", binary.display());
    Ok(())
}

/// Builds the release binary, copies it to `<target dir>/dist/hook`, checks it runs, and returns its path.
pub fn build(root: &Path) -> Result<PathBuf> {
    build_into(root, &target_dir(root)?.join("dist"), Image::Pie)
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

fn build_into(root: &Path, out: &Path, image: Image) -> Result<PathBuf> {
    let host = host_triple()?;
    let static_link = host.ends_with("-linux-gnu");
    if static_link {
        // As cargo splits RUSTFLAGS, then ours, passed one per field so that no path is split at a space.
        let mut flags: Vec<String> =
            std::env::var("RUSTFLAGS").unwrap_or_default().split_whitespace().map(str::to_owned).collect();
        // `--eh-frame-hdr` is rustc's own default; named so that the index never depends on it.
        flags.extend(["-C", "target-feature=+crt-static", "-C", "link-arg=-Wl,--eh-frame-hdr"].map(str::to_owned));
        if image == Image::Fixed {
            flags.extend(["-C", "relocation-model=static"].map(str::to_owned));
        }
        let encoded = flags.join("\u{1f}");
        crate::run(
            root,
            "cargo",
            &["build", "--release", "-p", "hook-cli", "--target", &host],
            &[("CARGO_ENCODED_RUSTFLAGS", encoded.as_str()), ("RUSTFLAGS", "")],
        )?;
    } else {
        crate::run(root, "cargo", &["build", "--release", "-p", "hook-cli"], &[])?;
    }
    let built = built_binary(&target_dir(root)?, static_link.then_some(host.as_str()));
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let dest = out.join("hook");
    // A new file, not a write into the old one: a running `hook` keeps its pages.
    let staged = out.join(".hook.new");
    std::fs::copy(&built, &staged).with_context(|| format!("cannot copy {}", built.display()))?;
    std::fs::rename(&staged, &dest).with_context(|| format!("cannot move the binary to {}", dest.display()))?;
    let version = Command::new(&dest).arg("--version").output().context("the built binary does not start")?;
    if !version.status.success() || !version.stdout.starts_with(b"hook ") {
        bail!("`{} --version` did not answer as expected: {:?}", dest.display(), version);
    }
    if static_link {
        check_image(&Elf::read(&dest)?, image).with_context(|| dest.display().to_string())?;
    }
    Ok(dest)
}

/// Fails unless the image is static and of the kind asked for, with its frame index.
fn check_image(elf: &Elf, image: Image) -> Result<()> {
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

/// The host's target triple, from `rustc -vV`.
fn host_triple() -> Result<String> {
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
