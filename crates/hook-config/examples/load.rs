//! Loads a workspace's hooks as a host does, with the load bounds raised so 100 000 generated hooks load, and
//! prints how many are in force: the loading process `cargo xtask bench` and `cargo xtask bench-clio` measure.
//!
//! ```text
//! cargo run --release -p hook-config --example load -- WORKSPACE [--cache DIR]
//! ```
//!
//! The layout is the default one for WORKSPACE (the config home from `XDG_CONFIG_HOME`, else `~/.config/hooks`).
//! With `--cache DIR` the load goes through the load cache in DIR. The CLI keeps the default bounds (10 000 hooks a
//! file, 50 000 in all, 4 MiB a file); only the sizes differ here.
//!
//! The process ends right after the load, so it leaves the `Config`'s memory to the operating system instead of
//! freeing it block by block first (as a Node process such as clio-coder's loader does at exit): at 100 000 hooks
//! that is about a million blocks, and glibc's cost per freed block grows with the heap. With `HOOK_BENCH_FREE=1`
//! in the environment it frees the `Config` before it exits, to measure that too (`BENCHMARKS.md` gives both).

use std::path::PathBuf;
use std::process::ExitCode;

use hook_config::{IssueSeverity, Layout, LoadOptions, load};
use hook_types::Limits;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(workspace) = args.next().map(PathBuf::from) else {
        eprintln!("usage: load WORKSPACE [--cache DIR]");
        return ExitCode::FAILURE;
    };
    let cache_dir = match (args.next(), args.next()) {
        (Some(flag), Some(dir)) if flag == "--cache" => Some(PathBuf::from(dir)),
        (None, None) => None,
        _ => {
            eprintln!("usage: load WORKSPACE [--cache DIR]");
            return ExitCode::FAILURE;
        }
    };
    let limits = Limits {
        max_file_bytes: 1 << 30,
        max_hooks_per_file: 10_000_000,
        max_hooks_total: 10_000_000,
        ..Limits::default()
    };
    let options = LoadOptions { limits, cache_dir, ..LoadOptions::default() };
    match load(&Layout::new(&workspace), &options) {
        Ok(config) => {
            let errors = config.issues.iter().filter(|i| i.severity == IssueSeverity::Error).count();
            println!(
                "{{\"hooks\":{},\"overridden\":{},\"issues\":{},\"errors\":{errors}}}",
                config.hooks.len(),
                config.overridden.len(),
                config.issues.len()
            );
            if std::env::var_os("HOOK_BENCH_FREE").is_none() {
                std::mem::forget(config);
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("load: {err}");
            ExitCode::FAILURE
        }
    }
}
