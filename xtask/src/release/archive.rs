//! The release archive of one platform, `hook-<target>-v<version>.tar.gz`: what a release page offers for download
//! and what cargo-binstall fetches (`[package.metadata.binstall]` in crates/hook-cli/Cargo.toml names the file and
//! the binary's place in it: [`BIN_DIR`]).
//!
//! ```text
//! hook-x86_64-unknown-linux-musl-v0.1.0/
//!   hook  README.md  CHANGELOG.md  LICENSE-MIT  LICENSE-APACHE
//!   completions/hook.bash  completions/_hook  completions/hook.fish
//!   man/hook.1  man/hook-run.1  …
//! ```
//!
//! Written with the system's `tar` (GNU tar: sorted names, owner 0, a fixed time, so two runs give the same bytes).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::{Built, Docs, Project, capture, files_in};

/// The directory inside the archive, as binstall's `bin-dir` template spells it.
pub const BIN_DIR: &str = "hook-{ target }-v{ version }/{ bin }{ binary-ext }";

/// The directory at the top of the archive of `target`.
pub fn top_dir(target: &str, version: &str) -> String {
    format!("hook-{target}-v{version}")
}

/// Writes the archive of `built` into `dir` and returns its path.
pub fn write(project: &Project, built: &Built, docs: &Docs, dir: &Path) -> Result<PathBuf> {
    let top = top_dir(built.platform.target, &project.version);
    let stage = dir.join("stage");
    let root = stage.join(&top);
    std::fs::create_dir_all(root.join("completions"))?;
    std::fs::create_dir_all(root.join("man"))?;
    std::fs::copy(&built.binary, root.join("hook")).context("cannot copy the binary into the archive")?;
    for file in ["README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE"] {
        std::fs::copy(project.root.join(file), root.join(file)).with_context(|| format!("cannot copy {file}"))?;
    }
    for file in files_in(&docs.completions)? {
        std::fs::copy(&file, root.join("completions").join(file.file_name().unwrap_or_default()))?;
    }
    for file in files_in(&docs.man)? {
        std::fs::copy(&file, root.join("man").join(file.file_name().unwrap_or_default()))?;
    }
    let archive = dir.join(format!("{top}.tar.gz"));
    capture(
        Command::new("tar")
            .args(["--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "-czf"])
            .arg(&archive)
            .arg("-C")
            .arg(&stage)
            .arg(&top),
    )?;
    std::fs::remove_dir_all(&stage)?;
    Ok(archive)
}

/// binstall's `bin-dir` template with its variables filled in, as binstall fills them for a Linux target.
pub fn bin_dir(template: &str, target: &str, version: &str) -> String {
    template
        .replace("{ target }", target)
        .replace("{ version }", version)
        .replace("{ bin }", "hook")
        .replace("{ binary-ext }", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binstall metadata of hook-cli names the archives this module writes, with the binary where it puts it.
    #[test]
    fn binstall_metadata_names_the_archive_and_the_binary_in_it() {
        let manifest =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../crates/hook-cli/Cargo.toml")).unwrap();
        let manifest: toml::Value = toml::from_str(&manifest).unwrap();
        let binstall = &manifest["package"]["metadata"]["binstall"];
        let target = "x86_64-unknown-linux-musl";
        let url = binstall["pkg-url"].as_str().unwrap();
        let file = url.rsplit('/').next().unwrap();
        let file =
            file.replace("{ target }", target).replace("{ version }", "0.1.0").replace("{ archive-suffix }", ".tar.gz");
        assert_eq!(file, format!("{}.tar.gz", top_dir(target, "0.1.0")));
        assert!(url.starts_with("{ repo }/releases/download/v{ version }/"), "{url}");
        assert_eq!(binstall["bin-dir"].as_str(), Some(BIN_DIR));
        assert_eq!(bin_dir(BIN_DIR, target, "0.1.0"), format!("{}/hook", top_dir(target, "0.1.0")));
        assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    }
}
