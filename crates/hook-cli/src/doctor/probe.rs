//! What `hook doctor` learns by running things: the agent's `--version`, and the live probe of an installed handler.
//!
//! The probe runs the handler's command line as the agent runs it — with `sh`, in the workspace, in its own process
//! group, in a minimal environment (`PATH` as the doctor has it, `HOME`, the XDG directories) — and feeds it a
//! synthetic pre-tool call of the agent's shell tool (`true`, session `hook-doctor-probe`) in the agent's own input
//! format. The guard is live when the bridge itself answers, in the agent's form, before the wrapper's timer: an
//! answer the fail-closed fallback wrote instead names why the bridge could not ([`FALLBACK_ANSWERED`]).
//!
//! "The bridge itself" is checked, not assumed from a clean exit: the probe sets [`PROBE_VAR`] to a random nonce,
//! and the bridge, seeing it, adds a line with the nonce to its stderr ([`crate::bridge`]). A handler that ends 0
//! without running the bridge — a stand-in interpreter that runs nothing (Wine's `powershell.exe`), a shim named
//! `hook` — has not answered.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hook_agents::install::{Agent, FALLBACK_ANSWERED, wrapper_timer_secs};
use hook_middleware::EventInput;
use hook_types::{Event, HandlerShape};
use serde::Serialize;

/// The session id the probe's input carries, so its receipts can be told apart.
pub const PROBE_SESSION: &str = "hook-doctor-probe";

/// The variable that asks the bridge to sign its answer with the probe's nonce (on stderr, which the probe reads).
pub const PROBE_VAR: &str = "HOOK_DOCTOR_PROBE";

/// The line the bridge adds to its stderr for a probe: this, then the nonce.
pub const PROBE_SIGNATURE: &str = "hook-doctor-probe: answered ";

/// How long `--version` may take.
const VERSION_WAIT: Duration = Duration::from_secs(5);

/// What the probe saw.
#[derive(Debug, Clone, Serialize)]
pub struct Probe {
    /// The event probed, in the agent's spelling.
    pub event: &'static str,
    /// Whether the bridge answered in the agent's form within the deadline.
    pub live: bool,
    /// The handler's exit status (`None`: it did not end, or ended by a signal).
    pub exit: Option<i32>,
    /// What happened, in words.
    pub outcome: String,
}

/// The agent's pre-tool event install writes the bridge on that a call of its shell tool fires: one about `shell`
/// alone first (Cursor's `beforeShellExecution`, where installed), else its plain pre-tool event.
pub fn shell_event(agent: Agent) -> Option<&'static str> {
    let rows = || agent.agent().events.iter().filter(|r| r.install && r.event == Some(Event::PreTool));
    let shell = rows().find(|r| r.tool == Some("shell"));
    shell.or_else(|| rows().find(|r| r.tool.is_none() && !r.filters.only_errors)).map(|r| r.name)
}

/// The synthetic pre-tool call of the agent's shell tool, in its input format.
fn probe_input(agent: Agent, workspace: &Path) -> Vec<u8> {
    let shell = agent.agent().tool_names("shell").next().unwrap_or("shell");
    let mut input = EventInput::new(Event::PreTool)
        .with_tool(shell, serde_json::json!({"command": "true"}))
        .with_session(PROBE_SESSION);
    input.cwd = Some(workspace.display().to_string());
    input.transcript_path = Some("/dev/null".into());
    hook_middleware::protocol::payload(agent, &input)
}

/// Runs the installed `command` for `event` as the agent would, with `path` as its `PATH`.
pub fn probe(agent: Agent, event: &'static str, command: &str, workspace: &Path, path: &str) -> Probe {
    let mut shell = crate::platform::handler_shell(command, agent.agent().handler == HandlerShape::EventExecutables);
    shell.current_dir(workspace).env_clear().env("PATH", path);
    let own = hook_agents::doctor::agent_variables(agent.agent());
    for name in crate::platform::PROBE_ENV.iter().copied().chain(own) {
        if let Some(value) = std::env::var_os(name) {
            shell.env(name, value);
        }
    }
    for var in agent.agent().project_env {
        shell.env(var, workspace);
    }
    let nonce = nonce();
    shell.env(PROBE_VAR, &nonce);
    crate::platform::own_group(&mut shell);
    let deadline = Duration::from_secs(wrapper_timer_secs(&crate::engine::limits()) + 2);
    let input = probe_input(agent, workspace);
    let fail = |outcome: String| Probe { event, live: false, exit: None, outcome };
    let child = shell.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(err) => return fail(format!("sh could not be started: {err}")),
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A handler that exits without reading its input closes the pipe: that is its business.
        let _ = stdin.write_all(&input);
    }
    let Some((status, stdout, stderr)) = finish(child, deadline) else {
        return fail(format!("no answer within {} s: the agent would go on without the guard", deadline.as_secs()));
    };
    judge(event, status, &stdout, &stderr, &nonce)
}

/// 64 bits from the standard library's per-process random hash keys, as hex: what a handler that did not run the
/// bridge cannot write.
fn nonce() -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    format!("{:016x}", hasher.finish())
}

/// Whether what the handler wrote is the bridge's answer in the agent's form.
fn judge(event: &'static str, status: Option<i32>, stdout: &str, stderr: &str, nonce: &str) -> Probe {
    let signature = format!("{PROBE_SIGNATURE}{nonce}");
    let signed = stderr.lines().any(|line| line.trim_end() == signature);
    let stderr: String =
        stderr.lines().filter(|line| !line.starts_with(PROBE_SIGNATURE)).collect::<Vec<_>>().join("\n");
    let said = format!("{stdout}\n{stderr}");
    if let Some(at) = said.find(FALLBACK_ANSWERED) {
        let cause = said[..at].trim_end_matches([';', ' ']);
        let cause = cause.rsplit(['"', '\n', ':']).next().unwrap_or(cause).trim();
        let outcome = format!("the fail-closed fallback answered, not the engine: {cause}");
        return Probe { event, live: false, exit: status, outcome };
    }
    let known = matches!(status, Some(0..=2));
    let json = stdout.trim().is_empty() || serde_json::from_str::<serde_json::Value>(stdout.trim()).is_ok();
    let outcome = match (known, json) {
        (true, true) => {
            let answer = crate::render::clean_line(stdout.trim());
            let answer: String = answer.chars().take(160).collect();
            let said = if answer.is_empty() { String::new() } else { format!(": {answer}") };
            format!("the bridge answered (exit {}){said}", status.unwrap_or_default())
        }
        (false, _) => {
            let ended = status.map_or_else(|| "by a signal".to_owned(), |code| format!("with exit {code}"));
            let first = stderr.lines().map(str::trim).find(|line| !line.is_empty());
            let wrote =
                first.map(|line| format!(" (it wrote: {})", crate::render::clean_line(line))).unwrap_or_default();
            format!("the handler ended {ended}, which is no answer of the bridge's{wrote}")
        }
        (true, false) => "the handler's output is not one JSON answer".to_owned(),
    };
    if known && json && !signed {
        let outcome = format!(
            "the handler ended with exit {} but the bridge did not answer: what the line starts is not this engine's \
             bridge (a stand-in interpreter or a `hook` that is something else), so the agent would go on unguarded",
            status.unwrap_or_default()
        );
        return Probe { event, live: false, exit: status, outcome };
    }
    Probe { event, live: known && json, exit: status, outcome }
}

/// The child's status and output, or `None` (and its process group killed) when it outlives `deadline`.
fn finish(mut child: Child, deadline: Duration) -> Option<(Option<i32>, String, String)> {
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out = std::thread::spawn(move || read_all(stdout.as_mut()));
    let err = std::thread::spawn(move || read_all(stderr.as_mut()));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => break None,
        }
    };
    let Some(status) = status else {
        crate::platform::kill_tree(&mut child);
        return None;
    };
    Some((status.code(), out.join().unwrap_or_default(), err.join().unwrap_or_default()))
}

fn read_all(pipe: Option<&mut impl Read>) -> String {
    let mut bytes = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The version the agent's executable reports (`<binary> --version`, found on `PATH`), bounded in time: `Err` says
/// why there is none.
pub fn installed_version(binary: &str) -> Result<String, String> {
    let mut version = Command::new(binary);
    version.arg("--version").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = crate::platform::own_group(&mut version).spawn();
    let child = match child {
        Ok(child) => child,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Err(format!("`{binary}` is not on PATH")),
        Err(err) => return Err(format!("`{binary}` could not be started: {err}")),
    };
    let Some((_, stdout, stderr)) = finish(child, VERSION_WAIT) else {
        return Err(format!("`{binary} --version` did not answer within {} s", VERSION_WAIT.as_secs()));
    };
    version_in(&format!("{stdout} {stderr}")).ok_or_else(|| format!("`{binary} --version` printed no version"))
}

/// The first `N.N[.N…]` in `text`.
fn version_in(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|word| word.trim_matches('.'))
        .find(|word| word.contains('.') && word.split('.').all(|part| !part.is_empty()))
        .map(str::to_owned)
}

/// How long loading a plugin may take.
const PLUGIN_LOAD_WAIT: Duration = Duration::from_secs(10);

/// What loading the plugin does in `node`: it must export one function (the agent calls every exported function as a
/// plugin) that returns a handler for each hook the plugin hands to the bridge.
const PLUGIN_LOAD: &str = r#"
const module = await import(process.argv[1]);
const plugins = Object.values(module).filter((v) => typeof v === "function");
if (plugins.length !== 1) throw new Error(`it exports ${plugins.length} functions, where the agent expects one plugin`);
const hooks = await plugins[0]({ directory: process.cwd() });
for (const name of ["tool.execute.before", "tool.execute.after", "chat.message", "event"]) {
  if (typeof hooks?.[name] !== "function") throw new Error(`it returns no \`${name}\` handler`);
}
"#;

/// Loads the plugin `file` as the agent does, as an ES module, with `node` from `path`: `Ok(true)` when it loads and
/// returns its handlers, `Ok(false)` when `node` is not there to try, `Err` with what went wrong. A plugin the agent
/// cannot load it skips without a word, and every gate it held is gone.
pub fn plugin_loads(file: &Path, workspace: &Path, path: &str) -> Result<bool, String> {
    let Some(node) = std::env::split_paths(path).map(|dir| dir.join("node")).find(|p| p.is_file()) else {
        return Ok(false);
    };
    let url = format!("file://{}", file.display());
    let mut command = Command::new(node);
    command.args(["--input-type=module", "-e", PLUGIN_LOAD, &url]).current_dir(workspace);
    crate::platform::own_group(&mut command);
    let child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let child = child.map_err(|err| format!("node could not be started: {err}"))?;
    match finish(child, PLUGIN_LOAD_WAIT) {
        None => Err(format!("loading it took more than {} s", PLUGIN_LOAD_WAIT.as_secs())),
        Some((Some(0), _, _)) => Ok(true),
        Some((_, _, stderr)) => {
            let why = stderr.lines().find(|l| l.contains("Error")).unwrap_or("it did not load").trim().to_owned();
            Err(crate::render::clean_line(&why))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_the_first_dotted_number() {
        assert_eq!(version_in("2.1.197 (Some Agent)").as_deref(), Some("2.1.197"));
        assert_eq!(version_in("agent-cli 0.169.0\n").as_deref(), Some("0.169.0"));
        assert_eq!(version_in("Agent CLI 1.0.102.\n").as_deref(), Some("1.0.102"));
        assert_eq!(version_in("no version"), None);
    }

    #[test]
    fn an_answer_of_the_fallback_is_not_the_engines() {
        let fallback = format!("{{\"reason\": \"hook was not found on the PATH (exit 127); {FALLBACK_ANSWERED}.\"}}");
        let signed = format!("{PROBE_SIGNATURE}00ff");
        let probe = judge("PreToolUse", Some(2), &fallback, &signed, "00ff");
        assert!(!probe.live && probe.outcome.contains("hook was not found on the PATH (exit 127)"), "{probe:?}");
        assert!(judge("PreToolUse", Some(0), "", &signed, "00ff").live);
        assert!(!judge("PreToolUse", Some(0), "not json", &signed, "00ff").live);
        let missing = judge("PreToolUse", Some(9009), "", "'pwsh' is not recognized\n", "00ff");
        assert!(!missing.live && missing.outcome.contains("exit 9009") && missing.outcome.contains("'pwsh' is not"));
    }

    #[test]
    fn a_clean_exit_without_the_bridges_signature_is_not_its_answer() {
        // A stand-in interpreter that runs nothing (Wine's `powershell.exe`), or a signature with another nonce.
        for stderr in ["", "hook-doctor-probe: answered 1234"] {
            let probe = judge("PreToolUse", Some(0), "", stderr, "00ff");
            assert!(!probe.live && probe.outcome.contains("the bridge did not answer"), "{probe:?}");
        }
    }
}
