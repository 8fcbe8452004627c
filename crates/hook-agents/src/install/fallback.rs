//! The installed handler fails closed without the engine.
//!
//! Every agent the bridge plugs into treats a hook command that does not answer — not found, not executable, killed
//! by a signal, still running at the agent's timeout — as "go ahead", and runs the tool. So on a gate event what
//! `hook install` writes is not the bare bridge command but a small POSIX-shell wrapper around it
//! ([`guarded_command`]), which the agent runs with its shell as it runs any hook command:
//!
//! 1. A timer (`sleep`, [`wrapper_timer_secs`]: above the bridge's own answer deadline, below the agent's timeout)
//!    and a watcher run side by side, both children of the handler's shell. The watcher runs the bridge with the
//!    agent's stdin (handed over through descriptor 3: a shell gives a background command `/dev/null` otherwise, and
//!    dash ignores a plain `<&0`), waits for it, stops the timer and exits with the bridge's status. The shell waits
//!    for the timer: stopped, it collects the watcher's status; run out, it signals the watcher, which kills the
//!    bridge with SIGKILL (a stopped or hung one too) and exits 124. Every process is reaped by its parent, so nothing
//!    is left behind, and no signal is sent that a race could lose: the watcher is signalled only once the timer ran
//!    out, when it is waiting on a bridge that has run for all of it.
//! 2. The bridge's own statuses on a gate pass through: 0 and 2 ([`GATE_STATUSES`](crate::bridge::GATE_STATUSES);
//!    the bridge never exits 1 on a gate, so a 1 — the npm launcher's status when its platform package is missing —
//!    is the bridge failing to answer, and denies).
//! 3. Anything else — 127 (not found), 126 (not executable), death by a signal (a crash, an abort, the kernel's
//!    out-of-memory kill, the timer), a status the bridge never uses — becomes the agent's blocking answer, built by
//!    [`crate::bridge::failure`] as the bridge itself would have answered, with a reason that names the cause and the
//!    fix.
//!
//! Observer events keep the bare command: a failure there blocks nothing, and the agent reports it as a failed hook.
//! An agent with a switch of its own that makes a failing handler block (Cursor's `failClosed`,
//! [`hook_types::Answers::fail_closed_key`]) gets that switch on its gate handlers too.
//!
//! An agent that runs its handlers with the user's own shell, which may not be a POSIX shell (Codex;
//! [`hook_types::Agent::posix_shell`]), gets the wrapper inside `sh -c '…'`.
//!
//! The wrapper holds the bridge command as a simple command of its own (inside the `sh -c` script where there is
//! one), so every host still recognises it as a bridge entry ([`hook_config::BridgeProgram`]) and uninstall still
//! finds it.
//!
//! On Windows the wrapper is a PowerShell script passed as `-EncodedCommand` (`fallback/powershell.rs`): one line
//! that `cmd`, PowerShell and Git Bash all run alike, with the same timer, statuses and answers; the bridge command
//! sits on a line of its own in the script, where the recognition finds it after decoding.

mod powershell;

use hook_types::{EventClass, Limits};

use super::agent::{Agent, BRIDGE_ANSWER_MARGIN_MS, BRIDGE_TIMEOUT_MARGIN_MS};
use super::command::quote;
use crate::bridge::GATE_STATUSES;

/// How long the wrapper's timer gives the bridge before it kills it, in whole seconds: the dispatch deadline plus
/// the grace plus the time between the bridge's own answer deadline and the agent's timeout, halfway
/// ([`BRIDGE_ANSWER_MARGIN_MS`] < this < [`BRIDGE_TIMEOUT_MARGIN_MS`]).
///
/// ```
/// use hook_agents::install::{wrapper_timer_secs, Agent, AgentInstall};
/// use hook_types::Limits;
/// let limits = Limits::default();
/// let agent_timeout = Agent::Claude.bridge_timeout(&limits).as_u64().unwrap();
/// assert!(wrapper_timer_secs(&limits) < agent_timeout);
/// ```
pub fn wrapper_timer_secs(limits: &Limits) -> u64 {
    let margin = BRIDGE_ANSWER_MARGIN_MS + (BRIDGE_TIMEOUT_MARGIN_MS - BRIDGE_ANSWER_MARGIN_MS) / 2;
    limits.dispatch_deadline_ms.saturating_add(limits.grace_ms).saturating_add(margin).div_ceil(1_000)
}

/// Whether install writes the fail-closed wrapper on the agent's event `event`: a gate event (the class whose
/// failure must not let the call through) whose answer the agent reads.
///
/// ```
/// use hook_agents::install::{guards_event, Agent};
/// assert!(guards_event(Agent::Claude, "PreToolUse") && guards_event(Agent::Claude, "UserPromptSubmit"));
/// assert!(!guards_event(Agent::Claude, "PostToolUse") && !guards_event(Agent::Claude, "Stop"));
/// ```
pub fn guards_event(agent: Agent, event: &str) -> bool {
    agent
        .agent()
        .event(event)
        .is_some_and(|row| row.answered && row.event.as_ref().is_some_and(|event| event.class() == EventClass::Gate))
}

/// The shell line install writes for `agent`'s event `event` that runs the bridge `command`: on a gate event the
/// fail-closed wrapper (see the module docs), elsewhere `command` itself.
///
/// ```
/// use hook_agents::install::{guarded_command, Agent};
/// use hook_types::Limits;
/// let line = guarded_command(Agent::Claude, "PreToolUse", "hook bridge --protocol claude", &Limits::default());
/// assert!(line.contains(" hook bridge --protocol claude <&3 3<&- & hook_bridge_pid=$!;"));
/// assert!(line.contains("exit 2"));
/// assert_eq!(guarded_command(Agent::Claude, "PostToolUse", "hook bridge --protocol claude", &Limits::default()),
///            "hook bridge --protocol claude");
/// ```
pub fn guarded_command(agent: Agent, event: &str, command: &str, limits: &Limits) -> String {
    if !guards_event(agent, event) {
        return command.to_owned();
    }
    if cfg!(windows) {
        return powershell::encoded_line(&windows_script(agent, event, command, limits));
    }
    posix_wrapper(agent, event, command, limits)
}

/// The answer the wrapper gives in the bridge's place, [`MARK`] standing for the reason.
fn fallback_answer(agent: Agent, event: &str, program: &str) -> crate::bridge::Answer {
    let message = format!(
        "{MARK}; {FALLBACK_ANSWERED}. Check with: {program} validate; \
         reinstall with: {program} install --agent {agent}"
    );
    crate::bridge::failure(Some(agent), Some(event), &message)
}

/// The PowerShell script of the Windows wrapper (`fallback/powershell.rs`), built on every platform so that its
/// tests run everywhere.
fn windows_script(agent: Agent, event: &str, command: &str, limits: &Limits) -> String {
    let timer = wrapper_timer_secs(limits);
    let program = program_word(command);
    let reasons = powershell::Reasons {
        timer: format!("{program} did not answer within {timer} s"),
        missing: format!("{program} was not found on the PATH the agent gives its hooks"),
        status: format!("{program} exited with a status hook bridge never uses: "),
        start: format!("{program} could not be started: "),
    };
    powershell::script(command, timer, &reasons, &fallback_answer(agent, event, &program))
}

/// The POSIX wrapper: `sh` runs the bridge beside a timer.
fn posix_wrapper(agent: Agent, event: &str, command: &str, limits: &Limits) -> String {
    let timer = wrapper_timer_secs(limits);
    let program = program_word(command);
    let statuses = GATE_STATUSES.map(|s| s.to_string()).join("|");
    let why = Why {
        timer: format!("{program} did not answer within {timer} s"),
        missing: format!("{program} was not found on the PATH the agent gives its hooks (exit 127)"),
        not_executable: format!("{program} is not executable (exit 126)"),
        signal: format!("{program} was killed by signal $(({C}-128))"),
        other: format!("{program} exited with status ${C}, which hook bridge never uses"),
    };
    let answer = fallback_answer(agent, event, &program);
    let mut line = format!(
        "sleep {timer} </dev/null >/dev/null 2>&1 & {S}=$!; {{ {{ trap '{F}=1; kill -9 ${P} 2>/dev/null' TERM; {command} \
         <&3 3<&- & {P}=$!; {{ wait ${P}; }} 2>/dev/null; {C}=$?; [ -n \"${F}\" ] && {{ wait ${P}; exit {TIMED_OUT}; }}; \
         kill ${S} 2>/dev/null; exit ${C}; }} & {T}=$!; }} 3<&0; {{ wait ${S}; }} 2>/dev/null && kill ${T} 2>/dev/null; \
         {{ wait ${T}; }} 2>/dev/null; {C}=$?; case ${C} in {statuses}) exit ${C};; esac; if [ ${C} = {TIMED_OUT} ]; \
         then {W}={}; elif [ ${C} = 127 ]; then {W}={}; elif [ ${C} = 126 ]; then {W}={}; elif [ ${C} -gt 128 ]; then \
         {W}=\"{}\"; else {W}=\"{}\"; fi; ",
        quote_always(&why.timer),
        quote_always(&why.missing),
        quote_always(&why.not_executable),
        why.signal,
        why.other,
    );
    if let Some(out) = print_with_why(&answer.stdout) {
        line.push_str(&format!("{out}; "));
    }
    if let Some(err) = print_with_why(&answer.stderr) {
        line.push_str(&format!("{err} >&2; "));
    }
    line.push_str(&format!("exit {}", answer.exit_code));
    if agent.agent().posix_shell { line } else { format!("sh -c {}", quote_always(&line)) }
}

/// Where the reason goes in the prebuilt answer: replaced by the shell's reason variable at run time.
const MARK: &str = "@WHY@";

/// The words of every answer the fallback gives in the bridge's place, after the cause: `hook doctor` tells by them
/// that the wrapper answered, not the engine.
pub const FALLBACK_ANSWERED: &str = "the call is blocked, since the hook engine could not decide it";

// The wrapper's shell variables. Gemini CLI and Qwen Code replace every `$NAME` in a handler's command with the
// value of that environment variable when the agent has it set, so the names are ones nobody exports.
/// The bridge's process id.
const P: &str = "hook_bridge_pid";
/// The watcher's process id: the subshell that runs the bridge, waits for it and stops the timer.
const T: &str = "hook_bridge_watch";
/// The timer's `sleep`.
const S: &str = "hook_bridge_sleep";
/// Set in the watcher when the timer fired.
const F: &str = "hook_bridge_fired";
/// The bridge's exit status, then the watcher's.
const C: &str = "hook_bridge_status";
/// The watcher's status when the timer fired and it killed the bridge (`timeout`'s; the bridge never uses it).
const TIMED_OUT: u8 = 124;
/// The reason.
const W: &str = "hook_bridge_why";

/// The reasons, one per way the bridge can fail to answer. Every text is safe inside JSON and inside the shell's
/// quotes it is written in: no quote, backslash, backtick or control character.
struct Why {
    timer: String,
    missing: String,
    not_executable: String,
    signal: String,
    other: String,
}

/// A `printf` that writes `text` (one line of the prebuilt answer) with [`MARK`] replaced by `$why`; `None` for an
/// empty text.
fn print_with_why(text: &str) -> Option<String> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return None;
    }
    let pieces: Vec<String> = text.split(MARK).map(quote_always).collect();
    Some(format!("printf '%s\\n' {}", pieces.join(&format!("\"${W}\""))))
}

/// `text` in single quotes for `sh`, even when it would not need them.
fn quote_always(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The program the bridge command starts, for the reasons: its first word where that word is plain (it goes into
/// JSON and shell text as it is), else a description.
pub(crate) fn program_word(command: &str) -> String {
    let first = command.split(' ').next().unwrap_or_default();
    let plain = !first.is_empty() && quote(first) == first;
    if plain { first.to_owned() } else { "the hook program".to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first node of `tree` that is an error or a missing token, with its place in `script`.
    fn first_error(tree: &tree_sitter::Tree, script: &str) -> Option<String> {
        let mut cursor = tree.walk();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.is_error() || node.is_missing() {
                let at = node.start_position();
                let line = script.lines().nth(at.row).unwrap_or_default();
                return Some(format!("{} at {}:{}: {line}", node.kind(), at.row + 1, at.column + 1));
            }
            stack.extend(node.children(&mut cursor));
        }
        None
    }

    /// No PowerShell runs on the machines the tests run on (Wine's is a stub that runs nothing), and a wrapper that
    /// does not parse would fail every gate it guards, which the agent then lets through: every gate's script, for
    /// every agent, is parsed with tree-sitter's PowerShell grammar, which must find nothing wrong.
    #[test]
    fn every_windows_wrapper_script_parses_as_powershell() {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_powershell::LANGUAGE.into()).expect("the grammar loads");
        let broken = "if ($c -in 0,1,2 { exit $c";
        assert!(first_error(&parser.parse(broken, None).unwrap(), broken).is_some(), "the check sees a broken script");
        let mut checked = 0;
        for agent in hook_types::Agent::bridged() {
            for row in agent.events.iter().filter(|row| guards_event(agent.protocol, row.name)) {
                let command = format!("\"C:/Program Files/hook/hook.exe\" bridge --protocol {}", agent.as_str());
                let script = windows_script(agent.protocol, row.name, &command, &Limits::default());
                let tree = parser.parse(&script, None).expect("a parse");
                let error = first_error(&tree, &script);
                assert!(error.is_none(), "{} {}: {}\n{script}", agent.as_str(), row.name, error.unwrap_or_default());
                checked += 1;
            }
        }
        assert!(checked >= 10, "only {checked} gates checked");
    }
    use crate::install::AgentInstall;

    #[test]
    fn the_reasons_hold_no_character_json_or_the_shell_would_read() {
        let line = guarded_command(
            Agent::Cursor,
            "beforeShellExecution",
            "/opt/hook bridge --protocol cursor",
            &Limits::default(),
        );
        assert!(line.contains("/opt/hook was not found"), "{line}");
        assert!(line.contains("reinstall with: /opt/hook install --agent cursor"), "{line}");
        let quoted =
            guarded_command(Agent::Claude, "PreToolUse", "'/opt/my hook' bridge --protocol claude", &Limits::default());
        assert!(quoted.contains("the hook program was not found"), "{quoted}");
    }

    #[test]
    fn the_timer_sits_between_the_bridge_answer_deadline_and_the_agent_timeout() {
        for deadline in [1_000, 1_500, 60_000, 61_999] {
            let limits = Limits { dispatch_deadline_ms: deadline, ..Limits::default() };
            let timer_ms = wrapper_timer_secs(&limits) * 1_000;
            assert!(timer_ms >= deadline + limits.grace_ms + BRIDGE_ANSWER_MARGIN_MS + 1_000, "{deadline}");
            let agent = Agent::Claude.bridge_timeout(&limits).as_u64().unwrap() * 1_000;
            assert!(timer_ms + 1_000 <= agent, "{deadline}: {timer_ms} vs {agent}");
        }
    }
}
