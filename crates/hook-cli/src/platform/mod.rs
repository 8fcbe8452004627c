//! The small things `hook` does differently per operating system, each platform's half in its own file: opening an
//! `--input` file, whether a file can be run, and the doctor's probe of an installed handler (its shell, and killing
//! what it started). The stop signals (`signals/`) and the bridge watchdog's raw answer (`bridge/watchdog/`) have
//! platform halves of their own.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;
