//! `hook bridge --protocol claude|codex|gemini|cursor`: run as an agent's hook command, read its hook input on
//! stdin, dispatch through this engine exactly as `hook run` does (this workspace's hooks, trust, receipts), answer
//! in the agent's output protocol. Composition only: the translation is `hook_agents::bridge`.
//!
//! The bridge never answers with `hook`'s own error form (a line and exit 1): the agent would read that as its
//! hook's non-blocking error and go ahead. Every failure — bad flags, unreadable input, a configuration that cannot
//! load, a panic — answers with [`hook_agents::bridge::failure`]: the agent's blocking form on a gate event
//! or an event not known yet, its non-blocking error elsewhere. So the bridge is recognised before clap parses the
//! command line ([`intercept`]), and everything after that runs inside `catch_unwind`. A SIGINT, SIGTERM or SIGHUP
//! from the moment the configuration starts loading stops the hooks (forwarded, then killed after the grace, as
//! `hook run` does) and answers as a failure too: the blocking form on a gate, never a silent exit 143.
//!
//! A bridge started by a hook of this engine (its `HOOK_BRIDGE_DEPTH` names the digest of the very payload on its
//! stdin) dispatches nothing and passes with a notice ([`hook_agents::bridge::nested_answer`]): bridges never start
//! bridges, whatever they are called. The variable alone is no proof: an agent a hook started is gated like any.
//!
//! The workspace is `--workspace`, else the one the agent names or whose project root holds the payload's `cwd`
//! ([`AgentInput::workspace`]).
//!
//! Whatever is stuck inside it, the bridge answers by its answer deadline: a watchdog thread with its own clock writes
//! the failure answer then, and a grace after a stop signal the bridge's own handling did not answer
//! ([`watchdog`]).
//!
//! Test-only: when the environment variable `HOOK_BRIDGE_TEST_PANIC` is set to a non-empty value, the bridge panics
//! right after reading its input, so tests can prove a panic answers with the blocking form; `HOOK_BRIDGE_TEST_HANG`
//! makes it wait forever there instead, as a dispatch stuck in a call that never returns would, so tests can prove
//! the watchdog answers. Nothing else reads them; neither can let a call through.

use std::ffi::OsString;
use std::io::{self, IsTerminal, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Mutex;

use clap::builder::TypedValueParser;
use clap::error::ErrorKind;
use clap::{Args, Parser};
use hook_agents::bridge::{
    AgentInput, Answer, BRIDGE_DEPTH_VAR, MAX_BRIDGE_DEPTH, Nesting, agent_runs_it, answer, failure, nested_answer,
    parse_input, parse_input_as, project_root, too_deep,
};
use hook_agents::install::{Agent, AgentInstall};
use hook_config::IssueSeverity;
use hook_types::Event;
use hook_types::Protocol;

use crate::background;
use crate::cli::{Cli, Command};
use crate::context::Context;
use crate::engine::{Engine, EngineOptions};
use crate::exit::{one_line, panic_parts};
use crate::signals;

mod watchdog;

use watchdog::Watchdog;

/// The variable that makes the bridge panic on purpose (tests only; see the module docs).
pub const TEST_PANIC_VAR: &str = "HOOK_BRIDGE_TEST_PANIC";

/// The variable that makes the bridge hang on purpose (tests only; see the module docs).
pub const TEST_HANG_VAR: &str = "HOOK_BRIDGE_TEST_HANG";

/// The most stdin the bridge reads: an agent's hook input is a few kilobytes; a tool response can be large.
const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// `hook bridge`.
#[derive(Debug, Args)]
pub struct BridgeArgs {
    /// The agent that runs the bridge as its hook: its hook input is read from stdin and answered in its output
    /// protocol.
    #[arg(long, value_parser = bridged_agent(), value_name = "AGENT")]
    pub protocol: Protocol,
    /// The agent's name for the event, for an agent whose hook input does not carry it (GitHub Copilot CLI: `hook
    /// install` writes it into each of its handlers).
    #[arg(long, value_name = "EVENT")]
    pub event: Option<String>,
}

/// The agents of the agent table that run their own hooks: `--protocol` of `hook bridge`, `--agent` of
/// `hook install` and `hook uninstall`.
pub fn bridged_agent() -> impl clap::builder::TypedValueParser<Value = Protocol> {
    let names = hook_types::Agent::bridged().map(|a| clap::builder::PossibleValue::new(a.as_str()).help(a.name));
    clap::builder::PossibleValuesParser::new(names).try_map(|name| {
        Protocol::parse_bridged(&name).ok_or_else(|| format!("`{name}` is no agent the bridge speaks to"))
    })
}

/// The message of the last panic, kept by the bridge's panic hook for the answer.
static PANIC_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

/// Runs the bridge when the command line asks for it (its first positional word is `bridge`), before clap: `None`
/// otherwise.
pub fn intercept() -> Option<u8> {
    let args: Vec<OsString> = std::env::args_os().collect();
    if !is_bridge(&args) {
        return None;
    }
    // The agent reads stderr as the reason: the panic goes into the answer, not as `hook: error: …`.
    panic::set_hook(Box::new(|info| {
        let (message, at) = panic_parts(info);
        *PANIC_MESSAGE.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{message}{at}"));
    }));
    Some(run_and_deliver(&args))
}

/// Starts the watchdog, runs the bridge and delivers its answer, unless the watchdog already delivered one.
fn run_and_deliver(args: &[OsString]) -> u8 {
    let dog = Watchdog::start(watchdog::answer_deadline(&crate::engine::limits()), protocol_hint(args));
    let answer = run(args, &dog);
    if !dog.claim() {
        // The watchdog answered and ends the process.
        loop {
            std::thread::park();
        }
    }
    deliver(&answer)
}

/// The bridge inside `catch_unwind`: a panic becomes a failure's answer too.
fn run(args: &[OsString], dog: &Watchdog) -> Answer {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| bridge(args, dog)));
    outcome.unwrap_or_else(|_| {
        let message = PANIC_MESSAGE.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
        let message = format!("internal error (a bug in hook; please report it): the bridge panicked: {message}");
        dog.failure(&one_line(&message))
    })
}

/// Writes the answer and gives the exit code. A closed stdout is the agent's business: nothing more can be said.
fn deliver(answer: &Answer) -> u8 {
    let _ = io::stdout().lock().write_all(answer.stdout.as_bytes()).and_then(|()| io::stdout().flush());
    let _ = io::stderr().lock().write_all(answer.stderr.as_bytes());
    sign_for_the_doctor();
    answer.exit_code
}

/// Under `hook doctor`'s probe (its nonce in [`crate::doctor::PROBE_VAR`]): a line on stderr with the nonce, which
/// shows the probe that this bridge answered and not something else that ended 0. Only a short hex nonce is echoed.
fn sign_for_the_doctor() {
    let Some(nonce) = std::env::var_os(crate::doctor::PROBE_VAR) else { return };
    let Some(nonce) = nonce.to_str().filter(|n| n.len() <= 32 && n.bytes().all(|b| b.is_ascii_hexdigit())) else {
        return;
    };
    let _ = writeln!(io::stderr().lock(), "\n{}{nonce}", crate::doctor::PROBE_SIGNATURE);
}

/// The bridge, start to end; every failure becomes the answer, in the form of what `dog` knows of the agent and the
/// event so far.
fn bridge(args: &[OsString], dog: &Watchdog) -> Answer {
    let parsed = match plain_bridge(args) {
        Some(cli) => Ok(cli),
        None => Cli::try_parse_from(args),
    };
    if let Err(err) = &parsed
        && matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
    {
        // A person asking, not an agent: help as usual, and no stdin to wait for.
        return Answer { exit_code: 0, stdout: err.render().to_string(), stderr: String::new() };
    }
    let stdin = match read_stdin() {
        Ok(stdin) => stdin,
        Err(message) => return dog.failure(&message),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => {
            // The event still decides between the blocking form and a non-blocking error, if the input says it.
            let event = dog.agent().and_then(|agent| parse_input(agent, &stdin).ok()).map(|r| r.event_name);
            dog.knows(None, event.as_deref());
            // clap's first paragraph says what is wrong; its continuation lines name the arguments.
            let message = err.render().to_string();
            let first: Vec<&str> = message.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
            let first = first.join(" ");
            let first = first.strip_prefix("error: ").unwrap_or(&first);
            return dog.failure(&format!("bad arguments: {first}"));
        }
    };
    let Command::Bridge(bridge_args) = &cli.command else {
        return dog.failure("bad arguments: expected `hook bridge --protocol AGENT`");
    };
    let agent = bridge_args.protocol;
    dog.knows(Some(agent), bridge_args.event.as_deref());
    let read = match parse_input_as(agent, bridge_args.event.as_deref(), &stdin) {
        Ok(read) => read,
        Err(err) => return failure(Some(agent), bridge_args.event.as_deref(), &err.to_string()),
    };
    dog.knows(Some(agent), Some(&read.event_name));
    if std::env::var_os(TEST_PANIC_VAR).is_some_and(|v| !v.is_empty()) {
        panic!("{TEST_PANIC_VAR} is set: panicking on purpose");
    }
    if std::env::var_os(TEST_HANG_VAR).is_some_and(|v| !v.is_empty()) {
        loop {
            std::thread::park();
        }
    }
    // A hook of an engine given exactly this payload: that engine already dispatches this event, and this bridge
    // must start nothing. The variable without the payload (an agent a hook started) dispatches as usual.
    match Nesting::read(std::env::var_os(BRIDGE_DEPTH_VAR).as_deref(), &stdin) {
        Nesting::Dispatched { .. } => return nested_answer(&read),
        Nesting::Inherited { depth } if depth >= MAX_BRIDGE_DEPTH => return too_deep(&read, depth),
        _ => {}
    }
    match dispatch(&cli, &read, &stdin) {
        Ok(answer) => answer,
        Err(err) => failure(Some(agent), Some(&read.event_name), &one_line(&format!("{err:#}"))),
    }
}

/// Loads the workspace the input is about and dispatches the event as `hook run` would, minus the hooks the agent
/// runs itself.
/// The agent's own cap on continuations in a row as its environment sets it (the bridge inherits the agent's
/// environment): Claude Code ends a turn itself after `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` (8 by default, 0 for none)
/// Stop-hook blocks in a row, and the bridge counts to no more than that, so the notice of a refused continuation
/// comes from the engine, not from a loop the agent broke off.
fn agent_continuation_cap(agent: &hook_types::Agent) -> Option<u32> {
    let cap = agent.answers.continuation_cap?;
    let value = cap.env.and_then(|name| std::env::var(name).ok());
    cap.effective(value.as_deref())
}

fn dispatch(cli: &Cli, read: &AgentInput, stdin: &[u8]) -> anyhow::Result<Answer> {
    let mut global = cli.global.clone();
    if global.workspace.is_none() {
        let workspace = read.workspace(|name| std::env::var_os(name));
        global.workspace = Some(match workspace {
            Some(dir) => dir,
            None => {
                let home =
                    std::env::var_os(hook_config::platform::HOME_VAR).filter(|h| !h.is_empty()).map(PathBuf::from);
                project_root(read.agent, &std::env::current_dir()?, home.as_deref())
            }
        });
    }
    let ctx = Context::new(&global)?;
    // Every child of the bridge is a hook run: one that leaves its group and is orphaned comes back to be killed.
    let _ = hook_exec::supervise(hook_exec::Supervision { subreaper: true, watchdog: false, cgroup: false });
    let options = EngineOptions {
        trust_workspace: false,
        receipts: true,
        signals_from_start: true,
        async_wait: None,
        hand_off_background: true,
        stateless: false,
        agent_continuation_cap: agent_continuation_cap(read.agent.agent()),
    };
    // The bridge entries themselves never load as hooks (hook_config lists them as excluded); what the agent runs
    // itself must not run here too.
    let engine = Engine::new_keeping(&ctx, options, |hook| !agent_runs_it(read.agent, hook))?;
    let mut result = match engine.dispatch_until_signal(&read.input) {
        Ok(result) => result,
        Err(signal) => {
            // Stopped is not decided: on a gate the agent must not go ahead.
            signals::stop_hooks();
            let message = format!("interrupted by {}: the running hooks were stopped", signals::name(signal));
            return Ok(failure(Some(read.agent), Some(&read.event_name), &message));
        }
    };
    // A hook file that does not load is a policy that may be missing: say so once a turn, not on every tool call.
    if matches!(read.input.event, Event::SessionStart | Event::TurnStart) {
        let errors: Vec<String> = engine
            .config
            .issues
            .iter()
            .filter(|i| i.severity == IssueSeverity::Error)
            .map(|i| one_line(&i.to_string()))
            .collect();
        if let Some(first) = errors.first() {
            result.diagnostics.push(format!(
                "{} error(s) in this workspace's hook files, whose hooks do not run (first: {first}); run `hook \
                 validate`",
                errors.len()
            ));
        }
    }
    // The agent waits for this process: its async hooks run in a detached runner, and the answer goes now.
    if !result.background.is_empty() {
        let hand = background::HandOff {
            global: &global,
            workspace: &engine.config.workspace,
            protocol: read.agent,
            event: cli_event(cli),
            input: stdin,
            hooks: &result.background,
        };
        if let Err(why) = background::hand_off(&hand) {
            let ids = result.background.join(", ");
            result.diagnostics.push(format!("async hook(s) {ids} did not run: {why}"));
        }
    }
    engine.end();
    Ok(answer(read, &result))
}

/// The bridge's `--event`, as given.
fn cli_event(cli: &Cli) -> Option<&str> {
    match &cli.command {
        Command::Bridge(args) => args.event.as_deref(),
        _ => None,
    }
}

/// The agent's hook input. A terminal on stdin means nobody piped an input: waiting for one would hang the agent.
fn read_stdin() -> Result<Vec<u8>, String> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Err("stdin is a terminal: the bridge reads the agent's hook input (JSON) on stdin".into());
    }
    let mut bytes = Vec::new();
    stdin
        .lock()
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the hook input on stdin: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!("the hook input on stdin is larger than {} MiB", MAX_INPUT_BYTES / (1024 * 1024)));
    }
    Ok(bytes)
}

/// Whether the command line's subcommand is `bridge`: its first word that is neither a flag nor a global flag's
/// value.
fn is_bridge(args: &[OsString]) -> bool {
    const TAKE_VALUE: [&str; 4] = ["--workspace", "--config-home", "--managed-file", "--color"];
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if TAKE_VALUE.contains(&word.as_ref()) {
            words.next();
        } else if !word.starts_with('-') {
            return word == "bridge";
        }
    }
    false
}

/// The command line agents run, `hook bridge --protocol AGENT` (or `--protocol=AGENT`) and nothing else, parsed
/// without clap: building clap's command tree costs about as much as the rest of a bridge call's startup. Any other
/// command line (global flags, a misspelling, `--help`) is `None` and goes to clap, which gives the same `Cli` for
/// this one (a unit test says so).
fn plain_bridge(args: &[OsString]) -> Option<Cli> {
    let words: Vec<&str> = args.iter().skip(1).map(|a| a.to_str()).collect::<Option<_>>()?;
    let (name, event) = match words.as_slice() {
        ["bridge", "--protocol", name] => (*name, None),
        ["bridge", flag] => (flag.strip_prefix("--protocol=")?, None),
        ["bridge", "--protocol", name, "--event", event] if !event.starts_with('-') => (*name, Some(*event)),
        _ => return None,
    };
    if !hook_types::Agent::bridged().any(|agent| agent.as_str() == name) {
        return None;
    }
    let protocol = Protocol::parse_bridged(name)?;
    let event = event.map(str::to_owned);
    Some(Cli { global: crate::cli::GlobalArgs::default(), command: Command::Bridge(BridgeArgs { protocol, event }) })
}

/// The agent named by `--protocol`, read by hand: a failure before clap (or of clap) still answers in its form.
fn protocol_hint(args: &[OsString]) -> Option<Agent> {
    let words: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    words.iter().enumerate().find_map(|(i, word)| match word.strip_prefix("--protocol") {
        Some("") => words.get(i + 1).and_then(|v| Agent::parse_bridged(v)),
        Some(rest) => rest.strip_prefix('=').and_then(Agent::parse_bridged),
        None => None,
    })
}

/// `hook bridge` reached through the ordinary dispatch (a command line [`intercept`] did not recognise): the same
/// bridge, same answers.
pub fn run_parsed() -> u8 {
    let args: Vec<OsString> = std::env::args_os().collect();
    run_and_deliver(&args)
}

/// The path of the running `hook`, as install writes it into the agent's configuration.
pub fn current_exe() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    Ok(hook_config::canonicalize(&exe).unwrap_or(exe))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_bridge_command_line_parses_as_clap_parses_it() {
        for agent in hook_types::Agent::bridged() {
            for args in [
                vec!["hook".to_owned(), "bridge".to_owned(), "--protocol".to_owned(), agent.as_str().to_owned()],
                vec!["hook".to_owned(), "bridge".to_owned(), format!("--protocol={}", agent.as_str())],
            ] {
                let args: Vec<OsString> = args.into_iter().map(OsString::from).collect();
                let plain = plain_bridge(&args).expect("the plain form");
                let clap = Cli::try_parse_from(&args).expect("clap parses it");
                assert_eq!(format!("{plain:?}"), format!("{clap:?}"));
            }
        }
        // Anything else is clap's.
        for args in [
            &["hook", "bridge", "--protocol", "claud"][..],
            &["hook", "--workspace", "/x", "bridge", "--protocol", "claude"],
            &["hook", "bridge", "--protocol", "claude", "--json"],
            &["hook", "bridge", "--help"],
            &["hook", "bridge"],
        ] {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            assert!(plain_bridge(&args).is_none(), "{args:?}");
        }
    }

    fn args(words: &[&str]) -> Vec<OsString> {
        std::iter::once("hook").chain(words.iter().copied()).map(OsString::from).collect()
    }

    #[test]
    fn the_bridge_is_recognised_behind_global_flags_and_nothing_else_is() {
        assert!(is_bridge(&args(&["bridge", "--protocol", "claude"])));
        assert!(is_bridge(&args(&["--config-home", "/c", "--json", "bridge"])));
        assert!(!is_bridge(&args(&["--workspace", "bridge", "run", "pre_tool"])));
        assert!(!is_bridge(&args(&["run", "bridge"])));
        assert_eq!(protocol_hint(&args(&["bridge", "--protocol=cursor"])), Some(Agent::Cursor));
        assert_eq!(protocol_hint(&args(&["bridge", "--protocol", "vim"])), None);
    }

    #[test]
    fn help_is_help_not_a_failure() {
        let dog = Watchdog::start(std::time::Duration::from_secs(600), None);
        let answer = bridge(&args(&["bridge", "--help"]), &dog);
        assert_eq!(answer.exit_code, 0);
        assert!(answer.stdout.contains("--protocol <AGENT>"), "{}", answer.stdout);
    }

    #[test]
    fn the_bridge_arguments_parse() {
        let cli = Cli::try_parse_from(args(&["bridge", "--protocol", "gemini", "--config-home", "/c"])).unwrap();
        assert!(matches!(cli.command, Command::Bridge(BridgeArgs { protocol: Protocol::Gemini, event: None })));
        let cli = Cli::try_parse_from(args(&["bridge", "--protocol", "copilot", "--event", "preToolUse"])).unwrap();
        let plain = plain_bridge(&args(&["bridge", "--protocol", "copilot", "--event", "preToolUse"])).unwrap();
        assert_eq!(format!("{cli:?}"), format!("{plain:?}"));
    }
}
