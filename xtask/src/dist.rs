//! `cargo xtask dist`: the release `hook` binary as it should be installed, in `target/dist/hook`.
//!
//! `hook` is started once per agent event, so its start is paid on every tool call (docs/performance.md). On Linux
//! with glibc the binary is linked statically (`-C target-feature=+crt-static`): no dynamic loader, no shared
//! libraries to map and relocate. It is also position-dependent (`-C relocation-model=static`): its image sits at a
//! fixed address, so nothing is relocated at start either, where a position-independent one writes ~280 KiB of
//! pointers (70 pages copied) before `main`. The stack, heap and every mapping are still placed at random; only the
//! image's own address is fixed, as in a default Go build. `--pie` builds a static position-independent executable
//! instead, which keeps the image's address random too, for ~0.2 ms per event on the machine measured.
//!
//! Those flags cannot be set for the whole workspace (they would apply to proc-macros and build scripts too, which
//! must be dynamic libraries), so the build names the host's target explicitly, which keeps them to the target's
//! crates. Elsewhere (macOS, musl) it is the ordinary release build.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const USAGE: &str =
    "cargo xtask dist [--out DIR] [--pie]: the release `hook` binary, statically linked on Linux with glibc";

/// How the image is linked on Linux with glibc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Image {
    /// At a fixed address: nothing to relocate at start (the default).
    Fixed,
    /// Position-independent: placed at random, relocated at every start.
    Pie,
}

/// `cargo xtask dist [--out DIR]`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let mut out = root.join("target/dist");
    let mut image = Image::Fixed;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = PathBuf::from(args.next().context("--out needs a directory")?),
            "--pie" => image = Image::Pie,
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let binary = build_into(root, &out, image)?;
    println!("{}", binary.display());
    Ok(())
}

/// Builds the release binary, copies it to `target/dist/hook`, checks it runs, and returns its path.
pub fn build(root: &Path) -> Result<PathBuf> {
    build_into(root, &root.join("target/dist"), Image::Fixed)
}

fn build_into(root: &Path, out: &Path, image: Image) -> Result<PathBuf> {
    let host = host_triple()?;
    let built = if host.ends_with("-linux-gnu") {
        let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
        if !flags.is_empty() {
            flags.push(' ');
        }
        flags.push_str("-C target-feature=+crt-static");
        if image == Image::Fixed {
            flags.push_str(" -C relocation-model=static");
        }
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
    if host.ends_with("-linux-gnu") {
        let elf = Elf::read(&dest)?;
        if elf.has_interpreter()? {
            bail!("{} still names a dynamic loader: the static link did not take", dest.display());
        }
        let wanted = match image {
            Image::Fixed => ET_EXEC,
            Image::Pie => ET_DYN,
        };
        if elf.kind()? != wanted {
            bail!("{} is not the {image:?} image asked for (ELF type {})", dest.display(), elf.kind()?);
        }
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

/// `e_type` of an executable at a fixed address, and of a position-independent one.
const ET_EXEC: u64 = 2;
const ET_DYN: u64 = 3;

/// A 64-bit little-endian ELF file's bytes.
struct Elf {
    bytes: Vec<u8>,
}

impl Elf {
    fn read(path: &Path) -> Result<Elf> {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        if bytes.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
            bail!("{} is not a 64-bit little-endian ELF file", path.display());
        }
        Ok(Elf { bytes })
    }

    fn word(&self, at: usize, len: usize) -> Result<u64> {
        let slice = self.bytes.get(at..at + len).context("a truncated ELF file")?;
        Ok(slice.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    /// `e_type`: [`ET_EXEC`], [`ET_DYN`], ….
    fn kind(&self) -> Result<u64> {
        self.word(16, 2)
    }

    /// Whether it has a `PT_INTERP` program header (it is linked dynamically).
    fn has_interpreter(&self) -> Result<bool> {
        // e_phoff at 32, e_phentsize at 54, e_phnum at 56; p_type first in each header.
        let (phoff, phentsize, phnum) =
            (self.word(32, 8)? as usize, self.word(54, 2)? as usize, self.word(56, 2)? as usize);
        for i in 0..phnum {
            const PT_INTERP: u64 = 3;
            if self.word(phoff + i * phentsize, 4)? == PT_INTERP {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
