//! The PyPI wheel of one platform, as maturin's `bin` bindings make one (ruff's and uv's shape): no Python code,
//! the binary in `<dist>-<version>.data/scripts/`, which pip installs into the environment's `bin/` as it is, so
//! `hook` on PATH is the binary itself. Written here rather than by maturin, which would build the crate again in
//! its own way: the wheel must carry the `dist` binary.
//!
//! The man pages and completions go into `<dist>-<version>.data/data/share/…`, which pip installs under the
//! environment's prefix (`share/man/man1/hook.1`, `share/bash-completion/completions/hook`, …).
//!
//! The binary is static, so one wheel serves glibc and musl systems: its platform tag is compressed
//! (`manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_2_x86_64`) and pip takes it on either.
//!
//! `RECORD` lists every file with its SHA-256 (urlsafe base64, no padding) and size, as PEP 376 and the wheel
//! specification (PEP 427) ask.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

use super::{Built, COMPLETIONS, Docs, PYPI_NAME, Project, files_in};

/// The distribution name as it is written in file names (PEP 427: `-` becomes `_`).
pub fn dist_name() -> String {
    PYPI_NAME.replace('-', "_")
}

/// The wheel's platform tag for a machine (`x86_64`, `aarch64`).
pub fn platform_tag(arch: &str) -> String {
    format!("manylinux_2_17_{arch}.manylinux2014_{arch}.musllinux_1_2_{arch}")
}

/// The wheel's file name.
pub fn file_name(version: &str, arch: &str) -> String {
    format!("{}-{version}-py3-none-{}.whl", dist_name(), platform_tag(arch))
}

/// One file of the wheel: its path inside, its bytes, whether it is executable.
struct Entry {
    path: String,
    bytes: Vec<u8>,
    executable: bool,
}

/// Writes the wheel of `built` into `dir` and returns its path.
pub fn write(project: &Project, built: &Built, docs: &Docs, dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let entries = entries(project, built, docs)?;
    let path = dir.join(file_name(&project.version, built.platform.wheel_arch));
    let file = std::fs::File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    for entry in &entries {
        let mode = if entry.executable { 0o755 } else { 0o644 };
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode)
            .last_modified_time(zip::DateTime::default());
        zip.start_file(entry.path.as_str(), options)?;
        zip.write_all(&entry.bytes)?;
    }
    zip.finish().context("cannot finish the wheel")?;
    Ok(path)
}

/// Every file of the wheel, `RECORD` last.
fn entries(project: &Project, built: &Built, docs: &Docs) -> Result<Vec<Entry>> {
    let data = format!("{}-{}.data", dist_name(), project.version);
    let info = format!("{}-{}.dist-info", dist_name(), project.version);
    let read = |path: &Path| std::fs::read(path).with_context(|| format!("cannot read {}", path.display()));
    let mut entries =
        vec![Entry { path: format!("{data}/scripts/hook"), bytes: read(&built.binary)?, executable: true }];
    for page in files_in(&docs.man)? {
        let name = page.file_name().unwrap_or_default().to_string_lossy().into_owned();
        entries.push(Entry {
            path: format!("{data}/data/share/man/man1/{name}"),
            bytes: read(&page)?,
            executable: false,
        });
    }
    for (_, file, place) in COMPLETIONS {
        let bytes = read(&docs.completions.join(file))?;
        entries.push(Entry { path: format!("{data}/data/share/{place}/{file}"), bytes, executable: false });
    }
    for license in ["LICENSE-MIT", "LICENSE-APACHE"] {
        entries.push(Entry {
            path: format!("{info}/licenses/{license}"),
            bytes: read(&project.root.join(license))?,
            executable: false,
        });
    }
    let readme = std::fs::read_to_string(project.root.join("README.md")).context("cannot read README.md")?;
    entries.push(Entry {
        path: format!("{info}/METADATA"),
        bytes: metadata(project, &readme).into(),
        executable: false,
    });
    entries.push(Entry {
        path: format!("{info}/WHEEL"),
        bytes: wheel_file(built.platform.wheel_arch).into(),
        executable: false,
    });
    let record = record(&entries, &format!("{info}/RECORD"));
    entries.push(Entry { path: format!("{info}/RECORD"), bytes: record.into(), executable: false });
    Ok(entries)
}

/// `METADATA` (core metadata 2.4), the README as the long description.
pub fn metadata(project: &Project, readme: &str) -> String {
    format!(
        "Metadata-Version: 2.4\nName: {PYPI_NAME}\nVersion: {}\nSummary: {}\nLicense-Expression: {}\n\
         License-File: LICENSE-MIT\nLicense-File: LICENSE-APACHE\nProject-URL: Repository, {}\n\
         Keywords: hooks,coding-agents,claude-code,codex,gemini-cli\n\
         Classifier: Environment :: Console\nClassifier: Operating System :: POSIX :: Linux\n\
         Classifier: Programming Language :: Rust\nDescription-Content-Type: text/markdown\n\n{readme}",
        project.version,
        project.description.replace('\n', " "),
        project.license,
        project.repository,
    )
}

/// `WHEEL`: no Python code (not purelib), one compressed tag.
fn wheel_file(arch: &str) -> String {
    let generator = concat!("xtask ", env!("CARGO_PKG_VERSION"));
    format!(
        "Wheel-Version: 1.0\nGenerator: {generator}\nRoot-Is-Purelib: false\nTag: py3-none-{}\n",
        platform_tag(arch)
    )
}

/// `RECORD`: each file's path, `sha256=` its urlsafe base64 digest without padding, its size; the RECORD itself
/// without either.
fn record(entries: &[Entry], record_path: &str) -> String {
    let mut text = String::new();
    for entry in entries {
        let digest = urlsafe_base64(&Sha256::digest(&entry.bytes));
        text.push_str(&format!("{},sha256={digest},{}\n", entry.path, entry.bytes.len()));
    }
    text.push_str(&format!("{record_path},,\n"));
    text
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648, section 5), as the hashes of RECORD are written.
fn urlsafe_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_hashes_are_urlsafe_base64_without_padding() {
        // The SHA-256 of "" as PEP 376 RECORD files show it.
        let empty = urlsafe_base64(&Sha256::digest(b""));
        assert_eq!(empty, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
        assert_eq!(urlsafe_base64(b"\xfb\xff"), "-_8");
        let entries = [Entry { path: "a/scripts/hook".into(), bytes: b"".to_vec(), executable: true }];
        assert_eq!(
            record(&entries, "a.dist-info/RECORD"),
            format!("a/scripts/hook,sha256={empty},0\na.dist-info/RECORD,,\n")
        );
    }

    #[test]
    fn the_wheel_is_named_and_tagged_for_glibc_and_musl_systems() {
        assert_eq!(
            file_name("0.1.0", "x86_64"),
            "hook_engine-0.1.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_2_x86_64.whl"
        );
        assert!(wheel_file("aarch64").contains("Root-Is-Purelib: false\nTag: py3-none-manylinux_2_17_aarch64."));
    }
}
