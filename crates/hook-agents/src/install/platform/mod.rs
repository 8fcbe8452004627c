//! What install does differently per operating system: the atomic renames that never overwrite (`RENAME_NOREPLACE`)
//! or that swap two files (`RENAME_EXCHANGE`), and the permissions of the files it creates. Each platform's half
//! lives in its own file.
//!
//! Both renames fail with [`std::io::ErrorKind::Unsupported`] where the platform or filesystem lacks them; the
//! caller then falls back to a hard link (which never overwrites either) or to comparing right before a plain
//! rename.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::*;
