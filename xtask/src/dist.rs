//! `cargo xtask dist`: the release `hook` binary as it should be installed, in `target/dist/hook`.
//!
//! `hook` is started once per agent event, so its start is paid on every tool call (docs/performance.md). On Linux
//! with glibc the binary is linked statically as a position-independent executable (`-C
//! target-feature=+crt-static`): no dynamic loader, no shared libraries to map and relocate, ASLR kept. That flag
//! cannot be set for the whole workspace (it would apply to proc-macros and build scripts too, which must be
//! dynamic libraries), so the build names the host's target explicitly, which keeps the flag to the target's crates.
//! Elsewhere (macOS, musl) it is the ordinary release build.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const USAGE: &str = "cargo xtask dist [--out DIR]: the release `hook` binary, statically linked on Linux with glibc";

/// `cargo xtask dist [--out DIR]`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let mut out = root.join("target/dist");
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = PathBuf::from(args.next().context("--out needs a directory")?),
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let binary = build_into(root, &out)?;
    println!("{}", binary.display());
    Ok(())
}

/// Builds the release binary, copies it to `target/dist/hook`, checks it runs, and returns its path.
pub fn build(root: &Path) -> Result<PathBuf> {
    build_into(root, &root.join("target/dist"))
}

fn build_into(root: &Path, out: &Path) -> Result<PathBuf> {
    let host = host_triple()?;
    let built = if host.ends_with("-linux-gnu") {
        let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
        if !flags.is_empty() {
            flags.push(' ');
        }
        flags.push_str("-C target-feature=+crt-static");
        crate::run(
            root,
            "cargo",
            &["build", "--release", "-p", "hook-cli", "--target", &host],
            &[("RUSTFLAGS", flags.as_str())],
        )?;
        root.join("target").join(&host).join("release/hook")
    } else {
        crate::run(root, "cargo", &["build", "--release", "-p", "hook-cli"], &[])?;
        root.join("target/release/hook")
    };
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
    if host.ends_with("-linux-gnu") && has_interpreter(&dest)? {
        bail!("{} still names a dynamic loader: the static link did not take", dest.display());
    }
    Ok(dest)
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

/// Whether an ELF file has a `PT_INTERP` program header (it is linked dynamically).
fn has_interpreter(path: &Path) -> Result<bool> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let word = |at: usize, len: usize| -> Result<u64> {
        let slice = bytes.get(at..at + len).context("not an ELF file")?;
        Ok(slice.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    };
    // A 64-bit little-endian ELF: e_phoff at 32, e_phentsize at 54, e_phnum at 56; p_type first in each header.
    if bytes.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
        bail!("{} is not a 64-bit little-endian ELF file", path.display());
    }
    let (phoff, phentsize, phnum) = (word(32, 8)? as usize, word(54, 2)? as usize, word(56, 2)? as usize);
    for i in 0..phnum {
        const PT_INTERP: u64 = 3;
        if word(phoff + i * phentsize, 4)? == PT_INTERP {
            return Ok(true);
        }
    }
    Ok(false)
}
