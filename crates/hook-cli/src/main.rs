//! The `hook` binary: thin composition and rendering over the library crates (README.md#a-tour-of-the-hook-cli).
//!
//! Every subcommand is one module: it builds what a host would build (a `Layout`, a loaded `Config`, a `Pipeline`
//! with a receipt sink), calls the library, and renders the result as text for 80 columns or as versioned JSON.
//! Logic a host would also need lives in the libraries, not here.
//!
//! ```text
//! $ hook --workspace examples/demo run pre_tool --tool shell --input '{"command":"rm -rf /"}' --trust-workspace
//! ```
//!
//! Exit codes: 0 success (and the verdicts allow, pass, none), 2 deny, 3 ask, 1 any error — usage errors included.
//! An error is one line on stderr, `hook: error: …`, naming what and where.
#![deny(unsafe_code)]
// With `fast-start` on Linux with glibc the process starts at `entry::main`, without Rust's runtime start
// (src/entry.rs). (Its unit tests keep the test harness's own `main`.)
#![cfg_attr(all(feature = "fast-start", target_os = "linux", target_env = "gnu", not(test)), no_main)]

mod background;
mod bridge;
mod cases;
mod cli;
mod context;
mod doctor;
mod engine;
#[cfg(all(feature = "fast-start", target_os = "linux", target_env = "gnu", not(test)))]
mod entry;
mod exit;
mod explain;
mod import;
mod input;
mod inspect;
mod install;
mod manual;
mod platform;
mod preview;
mod protect;
mod receipts;
mod render;
mod run;
mod schema;
mod signals;
mod trace;
mod trust;
mod validate;

use anyhow::Result;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};

use cli::{Cli, Command};
use context::Context;

/// With `fast-start`, small allocations from a size-class arena in `.bss` ([`hook_start::Arena`]): `hook` lives for
/// one event. Without it, the system allocator. Both report to the pipeline, which holds `policy` hooks to their
/// memory bound.
#[cfg(feature = "fast-start")]
#[global_allocator]
static ALLOCATOR: hook_start::Arena<{ 1 << 20 }, Pipeline> = hook_start::Arena::new();

#[cfg(not(feature = "fast-start"))]
#[global_allocator]
static ALLOCATOR: hook_start::Metered<Pipeline> = hook_start::Metered::new();

/// The process's allocations, reported to the pipeline ([`hook_middleware::allocation`]); on a thread that runs no
/// evaluation a report is one thread-local read.
struct Pipeline;

impl hook_start::Meter for Pipeline {
    fn charge(bytes: usize) {
        hook_middleware::allocation::charge(bytes);
    }
    fn release(bytes: usize) {
        hook_middleware::allocation::release(bytes);
    }
}

#[cfg(any(test, not(all(feature = "fast-start", target_os = "linux", target_env = "gnu"))))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(hook())
}

/// Everything `hook` does, from its command line to its exit code.
fn hook() -> u8 {
    // `hook --version` is what scripts and health checks run: answered before anything else is set up (clap's
    // command tree alone costs more than starting the process).
    if let Some(code) = version_only() {
        return code;
    }
    no_library_backtraces();
    // A bug must still end as one line and exit 1, never as a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let (message, at) = exit::panic_parts(info);
        eprintln!("hook: error: internal error (a bug in hook; please report it): {}{at}", exit::one_line(&message));
    }));
    std::panic::catch_unwind(run).unwrap_or(exit::ERROR)
}

/// Keeps every library error from capturing a backtrace, whatever `RUST_BACKTRACE` says: `hook` never shows one (an
/// error is one line), and regorus's parser builds and drops a few dozen errors while it backtracks through a
/// policy's Rego, each capture an unwind of the stack (docs/performance.md#the-process-start).
///
/// The standard library reads `RUST_LIB_BACKTRACE`, then `RUST_BACKTRACE`, at the first capture and keeps its answer
/// for the process (`std::backtrace`'s documentation). That first capture is made here with `RUST_LIB_BACKTRACE=0`,
/// and the variable is put back as it was at once: every hook still gets the agent's environment.
///
/// Where neither variable asks for backtraces (the common case), std's first capture finds them off by itself, and
/// nothing is written.
fn no_library_backtraces() {
    const VARIABLE: &str = "RUST_LIB_BACKTRACE";
    let before = std::env::var_os(VARIABLE);
    let asked = match &before {
        Some(value) => value != "0",
        None => std::env::var_os("RUST_BACKTRACE").is_some_and(|value| value != "0"),
    };
    if !asked {
        return;
    }
    #[allow(unsafe_code)]
    // SAFETY: called first thing in `hook`, before the runtime or anything else starts a thread, so no other thread
    // reads or writes the environment meanwhile.
    unsafe {
        std::env::set_var(VARIABLE, "0");
        drop(std::backtrace::Backtrace::capture());
        match before {
            Some(value) => std::env::set_var(VARIABLE, value),
            None => std::env::remove_var(VARIABLE),
        }
    }
}

/// `hook --version` or `hook -V` and nothing else: clap's answer (`hook <version>`), without building the command
/// line. `None` for any other command line, which clap parses as usual.
fn version_only() -> Option<u8> {
    let mut args = std::env::args_os().skip(1);
    let (Some(flag), None) = (args.next(), args.next()) else { return None };
    if flag != "--version" && flag != "-V" {
        return None;
    }
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    // A closed stdout is the caller's business, as clap's own `print` treats it.
    let _ = out.write_all(concat!("hook ", env!("CARGO_PKG_VERSION"), "\n").as_bytes()).and_then(|()| out.flush());
    Some(exit::SUCCESS)
}

fn run() -> u8 {
    // The bridge answers every failure, bad flags included, in the agent's protocol: it parses its own arguments.
    if let Some(code) = bridge::intercept() {
        return code;
    }
    let plain = cli::plain_run(&std::env::args_os().collect::<Vec<_>>());
    let cli = match plain.map_or_else(parse_args, Ok) {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    match dispatch(&cli) {
        Ok(code) => code,
        Err(err) => exit::report(&err),
    }
}

/// The command line, with the events and effect kinds after `hook --help` (they come from the vocabularies, so
/// clap's derive cannot hold them). Only a request for help is parsed with them: writing them out costs more than
/// the rest of the parse.
fn parse_args() -> Result<Cli, clap::Error> {
    let parse = |vocabulary: bool| {
        let mut command = Cli::command().after_help("The events, their aliases and the effect kinds: hook --help");
        if vocabulary {
            command = command.after_long_help(cli::vocabulary_help());
        }
        let matches = command.try_get_matches_from_mut(std::env::args_os())?;
        Cli::from_arg_matches(&matches).map_err(|err| err.format(&mut command))
    };
    match parse(false) {
        Err(err) if err.kind() == clap::error::ErrorKind::DisplayHelp => parse(true),
        parsed => parsed,
    }
}

fn dispatch(cli: &Cli) -> Result<u8> {
    // Schemas, completions and man pages need no workspace.
    match &cli.command {
        Command::Schema(args) => return schema::run(args),
        Command::Completions(args) => return manual::completions(args),
        Command::Man(args) => return manual::man(args),
        _ => {}
    }
    // The engine's loosening commands run only from a person's terminal, never as an agent's tool call.
    match &cli.command {
        Command::Trust(_) => protect::refuse_inside_agent("trust")?,
        Command::Install(_) => protect::refuse_inside_agent("install")?,
        Command::Uninstall(_) => protect::refuse_inside_agent("uninstall")?,
        Command::Import(args) if args.write => protect::refuse_inside_agent("import --write")?,
        _ => {}
    }
    let ctx = Context::new(&cli.global)?;
    match &cli.command {
        Command::Inspect => inspect::run(&ctx),
        Command::Validate => validate::run(&ctx),
        Command::Run(args) => run::run(&ctx, args),
        Command::Preview(args) => preview::run(&ctx, args),
        Command::Explain(args) => explain::run(&ctx, args),
        Command::Trust(args) => trust::run(&ctx, args),
        Command::Test(args) => cases::run(&ctx, args),
        Command::Receipts(args) => receipts::run(&ctx, args),
        Command::Schema(args) => schema::run(args),
        Command::Completions(args) => manual::completions(args),
        Command::Man(args) => manual::man(args),
        Command::Import(args) => import::run(&ctx, args),
        Command::Bridge(_) => Ok(bridge::run_parsed()),
        Command::Install(args) => install::run(&ctx, &cli.global, args),
        Command::Uninstall(args) => install::uninstall(&ctx, args),
        Command::Doctor(args) => doctor::run(&ctx, args),
        Command::BackgroundRun(args) => background::run(&cli.global, args),
    }
}

/// clap's errors as one line and exit 1 (never clap's own exit 2, which means "deny" here); `--help` and
/// `--version` print as usual and exit 0.
fn usage_error(err: &clap::Error) -> u8 {
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = err.print();
            return exit::SUCCESS;
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            let _ = err.print();
            return exit::ERROR;
        }
        _ => {}
    }
    let rendered = err.render().to_string();
    // clap's first paragraph says what is wrong (its continuation lines name the arguments); a later one has the
    // usage. Both go on the one line.
    let first: Vec<&str> = rendered.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
    let first = first.join(" ");
    let mut line = first.strip_prefix("error: ").unwrap_or(&first).to_owned();
    if let Some(ContextValue::String(suggested)) = err.get(ContextKind::SuggestedArg) {
        line.push_str(&format!(" (did you mean `{suggested}`?)"));
    } else if let Some(ContextValue::Strings(suggested)) = err.get(ContextKind::SuggestedSubcommand) {
        line.push_str(&format!(" (did you mean `{}`?)", suggested.join("` or `")));
    }
    match rendered.lines().find_map(|l| l.trim().strip_prefix("Usage: ")) {
        Some(usage) => line.push_str(&format!("; usage: {usage}")),
        None => line.push_str("; see `hook --help`"),
    }
    exit::report(&anyhow::anyhow!(line))
}
