//! Link settings of the `hook` binary that shorten every process start (docs/performance.md#the-process-start).
//!
//! `hook` is started once per agent event, so what runs before `main` is paid on every tool call. A
//! position-independent build (any but `cargo xtask dist`'s, which is at a fixed address) writes every absolute
//! address in its tables at start: about 23 000 relative relocations, stored as 24-byte RELA records (560 KiB read
//! at every start). With
//! `-z pack-relative-relocs` the linker packs them as RELR bitmaps (7 KiB). It needs glibc 2.36 or later and GNU
//! ld 2.38, lld 15 or mold; GNU ld leaves the table as it was when the C library does not support RELR, so the
//! flag is asked for on Linux with glibc only, and only for the binary (never for tests, proc-macros or build
//! scripts).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HOOK_NO_RELR");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    // `HOOK_NO_RELR=1` builds without it (an older linker that rejects the flag, or an A/B measurement).
    let off = std::env::var_os("HOOK_NO_RELR").is_some_and(|v| !v.is_empty());
    if os == "linux" && env == "gnu" && matches!(arch.as_str(), "x86_64" | "aarch64") && !off {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
