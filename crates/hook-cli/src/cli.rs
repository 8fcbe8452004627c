//! The command line, as clap derive types: global flags, one subcommand each, and their arguments.
//!
//! Parsing only. Every flag that names a file is kept as given; the subcommand modules check and use it, so a bad
//! value is reported by what it is for ("managed file `…` is a directory"), not by clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use hook_types::{Event, ParsedEvent};

/// Inspect, validate, run and trust lifecycle hooks for coding agents.
///
/// Exit codes: 0 success (and the verdicts allow, pass, none), 2 deny, 3 ask, 1 any error.
#[derive(Debug, Parser)]
#[command(name = "hook", version, max_term_width = 100)]
pub struct Cli {
    /// Flags every subcommand takes, before or after its name.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every subcommand takes (`global = true`: before or after the subcommand). The default is what an empty
/// command line gives.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// The workspace (repository root) whose hooks to use [default: the current directory].
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// The config home: the user's hooks.yaml and the trust store trusted.json [default: $XDG_CONFIG_HOME/hooks,
    /// else ~/.config/hooks].
    #[arg(long, global = true, value_name = "DIR")]
    pub config_home: Option<PathBuf>,
    /// The managed policy file [default: /etc/hooks/hooks.yaml].
    #[arg(long, global = true, value_name = "FILE")]
    pub managed_file: Option<PathBuf>,
    /// Print the versioned JSON form (`"version": 1`) instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// When to color text output; `auto` colors a terminal unless NO_COLOR is set.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--color`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Color a terminal, unless NO_COLOR is set to a non-empty value.
    #[default]
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

/// What `hook --help` prints after the flags: every event with the names it is read by, and the effect kinds.
pub fn vocabulary_help() -> String {
    use std::fmt::Write;
    let mut out = String::from("Events (`on:` takes the name or any alias; docs/events.md):\n");
    for event in &hook_types::CANONICAL_EVENTS {
        let mut aliases: Vec<&str> = Event::aliases().filter(|(_, e)| e == event).map(|(alias, _)| alias).collect();
        aliases.dedup();
        let mut line = format!("  {:<19}", event.canonical_name());
        for (i, alias) in aliases.iter().enumerate() {
            let piece = if i + 1 < aliases.len() { format!(" {alias},") } else { format!(" {alias}") };
            if line.len() + piece.len() > 96 {
                let _ = writeln!(out, "{line}");
                line = " ".repeat(21);
            }
            line.push_str(&piece);
        }
        let _ = writeln!(out, "{line}");
    }
    out.push_str("\nEffect kinds (docs/effects.md):\n");
    let kinds: Vec<&str> = hook_types::effect_kinds().collect();
    for line in kinds.chunks(4) {
        let _ = writeln!(out, "  {}", line.join(", "));
    }
    out.push_str("\nExit codes: 0 success (and the verdicts allow, pass, none), 2 deny, 3 ask, 1 any error.");
    out
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the merged configuration: every hook by origin, its hash, trust, and whether a gate fails open.
    Inspect,
    /// Check every hook file; print issues as `file:line:column: severity: message`; exit 1 on any error.
    Validate,
    /// Dispatch one event exactly as a host would, and show the trace and the verdict.
    Run(RunArgs),
    /// List what would run for an event, in order, without running anything.
    Preview(PreviewArgs),
    /// Why a hook does or does not fire: every hook for an event, matched or not, with the reason.
    Explain(ExplainArgs),
    /// Show untrusted or modified hooks and trust exactly what was shown; list or revoke trust.
    Trust(TrustArgs),
    /// Run a file of test cases (event, input, expected verdict) against the workspace's hooks.
    Test(TestArgs),
    /// Read the receipt log: the newest receipts, or verify its hash chain.
    Receipts(ReceiptsArgs),
    /// Print a JSON Schema: hooks.yaml (default), a hook's stdin payload, or a hook's JSON output.
    Schema(SchemaArgs),
    /// Print (or, with --write, add to .hooks/) the native form of another agent's hooks, keeping their hashes.
    Import(ImportArgs),
    /// Answer an agent's hook call through this engine: its hook input on stdin, its output protocol out.
    Bridge(crate::bridge::BridgeArgs),
    /// Put the bridge into an agent's configuration and move the agent's own hooks into the native file.
    Install(crate::install::InstallArgs),
    /// Undo `hook install`: the agent's file as it was, its hooks back, the trust install recorded revoked.
    Uninstall(crate::install::UninstallArgs),
    /// Check that each installed agent's guards are live here, and say why not and the fix; exit 1 if any is not.
    Doctor(crate::doctor::DoctorArgs),
    /// Print the completion script of `hook` for a shell (`hook completions bash > …`).
    Completions(CompletionsArgs),
    /// Print the man page of `hook`, or of one command (`hook man run`), as roff (`hook man > hook.1`); `--out DIR`
    /// writes them all.
    Man(ManArgs),
    /// The bridge's detached runner of `async: true` hooks (started by `hook bridge`, not by people).
    #[command(hide = true)]
    BackgroundRun(crate::background::RunnerArgs),
}

/// `hook completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// `hook man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`hook-<command>(1)`); the page of `hook` itself when omitted.
    #[arg(value_name = "COMMAND", conflicts_with = "out")]
    pub command: Option<String>,
    /// Write every page (`hook.1`, `hook-<command>.1`, …) into this directory instead, one file each.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

/// `hook import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Whose hooks to import: the agent whose files declare them.
    #[arg(long, value_parser = foreign_agent(), value_name = "AGENT")]
    pub from: hook_types::Protocol,
    /// Write them into the native file of their origin (.hooks/hooks.yaml, .hooks/hooks.local.yaml, the config
    /// home's hooks.yaml), keeping what is there; without it they are only printed.
    #[arg(long)]
    pub write: bool,
}

/// The agents whose files `hook import --from` reads: every entry of the agent table but this engine's own.
fn foreign_agent() -> impl clap::builder::TypedValueParser<Value = hook_types::Protocol> {
    let agents = hook_types::AGENTS.iter().filter(|a| a.protocol != hook_types::Protocol::Native);
    let names = agents.map(|a| clap::builder::PossibleValue::new(a.as_str()).help(a.name));
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names).try_map(|name| {
        hook_types::Agent::parse(&name).map(|a| a.protocol).ok_or_else(|| format!("`{name}` is no known agent"))
    })
}

/// `hook run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The event: a canonical name (pre_tool) or an agent alias (PreToolUse).
    #[arg(value_parser = parse_event)]
    pub event: ParsedEvent,
    /// The tool of a tool event (pre_tool, permission_request, post_tool).
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// The tool's input object on tool events (or a payload with `tool_input` and other event fields); the event
    /// fields (`prompt`, `source`, …) otherwise. `@FILE` reads it from a file, `@-` from stdin.
    #[arg(long, value_name = "JSON|@FILE")]
    pub input: Option<String>,
    /// The session id the hooks and receipts see.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// Write no receipts (by default they go to $XDG_STATE_HOME/hooks/receipts/WORKSPACE_ID.jsonl).
    #[arg(long)]
    pub no_receipts: bool,
    /// Trust this workspace's hooks for this run only, in memory: nothing is written to trusted.json.
    #[arg(long)]
    pub trust_workspace: bool,
}

/// `hook preview`.
#[derive(Debug, Args)]
pub struct PreviewArgs {
    /// The event: a canonical name or an agent alias.
    #[arg(value_parser = parse_event)]
    pub event: ParsedEvent,
    /// The tool of a tool event; `source` on session_start, `trigger` on compaction.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
}

/// `hook explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The event: a canonical name or an agent alias (PreToolUse, BeforeTool).
    #[arg(value_parser = parse_event)]
    pub event: ParsedEvent,
    /// The tool of a tool event, in any agent's spelling (Bash, run_shell_command, shell); `source` on
    /// session_start, `trigger` on compaction.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// The input as `hook run --input` reads it; with it, `only_errors` and `scope` are tested against it instead
    /// of being listed as conditions.
    #[arg(long, value_name = "JSON|@FILE")]
    pub input: Option<String>,
    /// Explain as the bridge for this agent runs: the hooks of the agent's own files are the agent's to run, and
    /// the tool is looked up in its vocabulary.
    #[arg(long, value_parser = foreign_agent(), value_name = "AGENT")]
    pub agent: Option<hook_types::Protocol>,
}

/// `hook trust`.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The hook ids to trust.
    #[arg(value_name = "ID", conflicts_with_all = ["all", "list", "revoke"])]
    pub ids: Vec<String>,
    /// Trust every untrusted or modified hook of the workspace.
    #[arg(long, conflicts_with_all = ["list", "revoke"])]
    pub all: bool,
    /// Do not ask: trust what is shown (needed when stdin is not a terminal).
    #[arg(long, short = 'y', conflicts_with_all = ["list", "revoke"])]
    pub yes: bool,
    /// List what is trusted in this workspace.
    #[arg(long, conflicts_with = "revoke")]
    pub list: bool,
    /// Forget the trust of one hook.
    #[arg(long, value_name = "ID")]
    pub revoke: Option<String>,
}

/// `hook test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The YAML file of cases: a list of `{name, event, tool?, input, expect: {verdict, reason_contains?,
    /// effects?}}`.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Trust this workspace's hooks for this run only, in memory: nothing is written to trusted.json.
    #[arg(long)]
    pub trust_workspace: bool,
}

/// `hook receipts`.
#[derive(Debug, Args)]
pub struct ReceiptsArgs {
    /// What to do; `tail` when omitted.
    #[command(subcommand)]
    pub action: Option<ReceiptsAction>,
}

/// `hook receipts tail | verify`.
#[derive(Debug, Subcommand)]
pub enum ReceiptsAction {
    /// Print the newest receipts, oldest first.
    Tail {
        /// How many.
        #[arg(short = 'n', long = "lines", value_name = "N", default_value_t = 20)]
        n: usize,
    },
    /// Check the hash chain and the receipts marked missing; exit 1 and name the first broken line or the gap.
    Verify,
}

/// `hook schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The schema of hooks.yaml / hooks.json (the default).
    #[arg(long, group = "which")]
    pub config: bool,
    /// The schema of the JSON payload a command hook reads on stdin.
    #[arg(long, group = "which")]
    pub payload: bool,
    /// The schema of the JSON a command hook may print on stdout.
    #[arg(long, group = "which")]
    pub output: bool,
}

/// Parses an event name or alias (keeping what the alias implies: `PostToolUseFailure` is a failed post_tool); the
/// error names the nearest valid name.
fn parse_event(name: &str) -> Result<ParsedEvent, String> {
    Event::parse(name).map_err(|err| err.to_string())
}

/// The plainest `hook run` command lines, read without building clap's parser, whose command tree costs more than
/// the rest of a `hook run`'s start: the global flags `--workspace`, `--config-home`, `--managed-file` and `--json`
/// anywhere, `run`, its event, and its own flags after it, each at most once, every value a separate word that is
/// not empty and does not start with `-`. `None` for any other command line, which clap parses as before (a test
/// compares the two on every form read here).
pub fn plain_run(args: &[std::ffi::OsString]) -> Option<Cli> {
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    let mut global = GlobalArgs::default();
    let mut run: Option<RunArgs> = None;
    let mut event: Option<ParsedEvent> = None;
    let value = |words: &mut dyn Iterator<Item = Option<&str>>| -> Option<String> {
        let word = words.next()??;
        (!word.is_empty() && !word.starts_with('-')).then(|| word.to_owned())
    };
    fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
        slot.replace(value).is_none().then_some(())
    }
    fn flag(slot: &mut bool) -> Option<()> {
        (!std::mem::replace(slot, true)).then_some(())
    }
    while let Some(word) = words.next() {
        let word = word?;
        match (word, run.as_mut()) {
            ("--workspace", _) => once(&mut global.workspace, PathBuf::from(value(&mut words)?))?,
            ("--config-home", _) => once(&mut global.config_home, PathBuf::from(value(&mut words)?))?,
            ("--managed-file", _) => once(&mut global.managed_file, PathBuf::from(value(&mut words)?))?,
            ("--json", _) => flag(&mut global.json)?,
            ("run", None) => {
                run = Some(RunArgs {
                    event: ParsedEvent { event: Event::SessionStart, filters: Default::default() },
                    tool: None,
                    input: None,
                    session_id: None,
                    no_receipts: false,
                    trust_workspace: false,
                })
            }
            ("--tool", Some(args)) => once(&mut args.tool, value(&mut words)?)?,
            ("--input", Some(args)) => once(&mut args.input, value(&mut words)?)?,
            ("--session-id", Some(args)) => once(&mut args.session_id, value(&mut words)?)?,
            ("--no-receipts", Some(args)) => flag(&mut args.no_receipts)?,
            ("--trust-workspace", Some(args)) => flag(&mut args.trust_workspace)?,
            (name, Some(_)) if !name.starts_with('-') => once(&mut event, parse_event(name).ok()?)?,
            _ => return None,
        }
    }
    let mut run = run?;
    run.event = event?;
    Some(Cli { global, command: Command::Run(run) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// clap's reading of a command line, as text (the types hold no `PartialEq`).
    fn by_clap(args: &[std::ffi::OsString]) -> Result<String, clap::error::ErrorKind> {
        let matches = Cli::command().try_get_matches_from(args).map_err(|e| e.kind())?;
        Cli::from_arg_matches(&matches).map(|cli| format!("{cli:?}")).map_err(|e| e.kind())
    }

    #[test]
    fn a_plain_run_command_line_reads_as_clap_reads_it_and_anything_else_is_left_to_clap() {
        let read_plainly = [
            "run pre_tool",
            "run pre_tool --tool shell --input {\"command\":\"ls\"}",
            "--workspace /w run pre_tool --tool shell --input {}",
            "run PreToolUse --input @in.json --session-id s1 --no-receipts --trust-workspace",
            "--json run turn_end --workspace /w --config-home /c --managed-file /m",
            "run SubagentStop --json",
            "run foreign:Custom",
            "--workspace run run session_start",
        ];
        let left_to_clap = [
            "run",
            "pre_tool",
            "run pre_tool post_tool",
            "run pre_tol",
            "run pre_tool --tool",
            "run pre_tool --tool -x",
            "run pre_tool --tool ''",
            "run pre_tool --tool a --tool b",
            "run pre_tool --no-receipts --no-receipts",
            "--json --json run pre_tool",
            "--tool shell run pre_tool",
            "run pre_tool --color never",
            "run pre_tool --tool=shell",
            "run pre_tool -h",
            "run pre_tool --help",
            "run pre_tool -- x",
            "--version",
            "inspect",
            "run pre_tool --unknown",
        ];
        let args = |line: &str| -> Vec<std::ffi::OsString> {
            std::iter::once("hook".into())
                .chain(line.split(' ').map(|w| if w == "''" { "".into() } else { w.into() }))
                .collect()
        };
        for line in read_plainly {
            let args = args(line);
            let plain = plain_run(&args).unwrap_or_else(|| panic!("not read plainly: {line}"));
            assert_eq!(Ok(format!("{plain:?}")), by_clap(&args), "{line}");
        }
        for line in left_to_clap {
            assert!(plain_run(&args(line)).is_none(), "read plainly: {line}");
        }
    }
}
