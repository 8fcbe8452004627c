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
//! On x86-64 Linux with glibc, where rustc links with lld, the functions that run on every event are also laid out
//! together, in the order they first run (`xtask/hot-symbols.txt`, written by `cargo xtask layout`, handed to lld as
//! `--symbol-ordering-file`): the kernel maps a program's code 64 KiB around each page it first touches, so code
//! that runs at every start, gathered in one stretch, is mapped in a few faults instead of one per scattered
//! function. A name the build does not have is skipped; the build says how many it found. `--no-layout` leaves the
//! linker's own order.
//!
//! Those flags cannot be set for the whole workspace (they would apply to proc-macros and build scripts too, which
//! must be dynamic libraries), so the build names the host's target explicitly, which keeps them to the target's
//! crates. Elsewhere (macOS, musl) it is the ordinary release build.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::elf::{ET_DYN, ET_EXEC, Elf};

const USAGE: &str = "cargo xtask dist [--out DIR] [--pie] [--no-layout]: the release `hook` binary, statically linked on \
                     Linux with glibc";

/// The functions to lay out first, in order, relative to the workspace root.
pub const HOT_SYMBOLS: &str = "xtask/hot-symbols.txt";

/// How the image is linked on Linux with glibc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Image {
    /// At a fixed address: nothing to relocate at start (the default).
    Fixed,
    /// Position-independent: placed at random, relocated at every start.
    Pie,
}

/// `cargo xtask dist [--out DIR] [--pie] [--no-layout]`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let mut out = root.join("target/dist");
    let mut image = Image::Fixed;
    let mut layout = true;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = PathBuf::from(args.next().context("--out needs a directory")?),
            "--pie" => image = Image::Pie,
            "--no-layout" => layout = false,
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let binary = build_into(root, &out, image, layout)?;
    println!("{}", binary.display());
    Ok(())
}

/// Builds the release binary, copies it to `target/dist/hook`, checks it runs, and returns its path.
pub fn build(root: &Path) -> Result<PathBuf> {
    build_into(root, &root.join("target/dist"), Image::Fixed, true)
}

fn build_into(root: &Path, out: &Path, image: Image, layout: bool) -> Result<PathBuf> {
    let host = host_triple()?;
    let ordering = if layout { symbol_ordering(root, &host)? } else { None };
    let built = if host.ends_with("-linux-gnu") {
        // As cargo splits RUSTFLAGS, then ours, passed one per field so that no path is split at a space.
        let mut flags: Vec<String> =
            std::env::var("RUSTFLAGS").unwrap_or_default().split_whitespace().map(str::to_owned).collect();
        flags.extend(["-C", "target-feature=+crt-static"].map(str::to_owned));
        if image == Image::Fixed {
            flags.extend(["-C", "relocation-model=static"].map(str::to_owned));
        }
        if let Some(file) = &ordering {
            flags.push("-C".to_owned());
            flags.push(format!("link-arg=-Wl,--symbol-ordering-file={}", file.display()));
            // Names the build does not have (a list older than the code) are counted below, not warned per name.
            flags.extend(["-C", "link-arg=-Wl,--no-warn-symbol-ordering"].map(str::to_owned));
        }
        let encoded = flags.join("\u{1f}");
        let built = crate::run(
            root,
            "cargo",
            &["build", "--release", "-p", "hook-cli", "--target", &host],
            &[("CARGO_ENCODED_RUSTFLAGS", encoded.as_str()), ("RUSTFLAGS", "")],
        );
        if built.is_err() && ordering.is_some() {
            eprintln!("xtask: the link was given lld's --symbol-ordering-file; with another linker, use --no-layout");
        }
        built?;
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
        if let Some(file) = &ordering {
            report_layout(&elf, file)?;
        }
    }
    Ok(dest)
}

/// The symbol ordering file for this build, where lld links (x86-64 Linux with glibc, rustc's default there since
/// 1.90) and the list is there: a copy of `xtask/hot-symbols.txt` named by its contents, so that a new list changes
/// the flags and cargo links again (it does not watch a file named in a flag).
fn symbol_ordering(root: &Path, host: &str) -> Result<Option<PathBuf>> {
    let list = root.join(HOT_SYMBOLS);
    if host != "x86_64-unknown-linux-gnu" || !list.exists() {
        return Ok(None);
    }
    let text = std::fs::read(&list).with_context(|| format!("cannot read {}", list.display()))?;
    // FNV-1a: stable across runs and toolchains, unlike std's hasher.
    let digest = text.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let dir = root.join("target/dist-layout");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let copy = dir.join(format!("hot-symbols-{digest:016x}.txt"));
    if !copy.exists() {
        std::fs::write(&copy, &text).with_context(|| format!("cannot write {}", copy.display()))?;
    }
    Ok(Some(copy))
}

/// Says how much of the list the build had, and where those functions ended up.
fn report_layout(elf: &Elf, list: &Path) -> Result<()> {
    let text = std::fs::read_to_string(list).with_context(|| format!("cannot read {}", list.display()))?;
    let wanted: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let functions = elf.functions()?;
    let by_name: std::collections::HashMap<&str, (u64, u64)> =
        functions.iter().map(|f| (f.name.as_str(), (f.addr, f.size))).collect();
    let found: Vec<(u64, u64)> = wanted.iter().filter_map(|name| by_name.get(name).copied()).collect();
    let bytes: u64 = found.iter().map(|&(_, size)| size).sum();
    let span = match (found.iter().map(|&(a, _)| a).min(), found.iter().map(|&(a, s)| a + s).max()) {
        (Some(first), Some(end)) => end - first,
        _ => 0,
    };
    eprintln!(
        "xtask: layout: {} of the {} listed functions are in this build, {} KiB of code within {} KiB",
        found.len(),
        wanted.len(),
        bytes / 1024,
        span / 1024
    );
    if found.len() * 10 < wanted.len() * 9 {
        eprintln!("xtask: warning: {HOT_SYMBOLS} is older than the code; `cargo xtask layout` writes it again");
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
