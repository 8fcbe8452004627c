//! What the scenarios need of an agent: how to configure and start it against the model server, its wire format,
//! and how its own hook configuration is spelled. One implementation per agent (`claude`, `codex`, `gemini`).

use std::process::Command;

use anyhow::Result;
use serde_json::{Value, json};

use super::npm::Installed;
use super::process::{Reaction, Sandbox};
use super::server::Wire;

/// A lifecycle point, in the engine's canonical spelling; each agent names it its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// `session_start`.
    SessionStart,
    /// `turn_start`.
    TurnStart,
    /// `pre_tool`.
    PreTool,
    /// `permission_request`.
    PermissionRequest,
    /// `post_tool`.
    PostTool,
    /// `turn_end`.
    TurnEnd,
}

impl Point {
    /// The engine's event at this point.
    pub fn event(self) -> hook_types::Event {
        match self {
            Point::SessionStart => hook_types::Event::SessionStart,
            Point::TurnStart => hook_types::Event::TurnStart,
            Point::PreTool => hook_types::Event::PreTool,
            Point::PermissionRequest => hook_types::Event::PermissionRequest,
            Point::PostTool => hook_types::Event::PostTool,
            Point::TurnEnd => hook_types::Event::TurnEnd,
        }
    }

    /// What `protocol`'s entry in the agent table names this point's event (for an agent whose names the suite
    /// takes from the table rather than spelling them itself).
    pub fn table_name(self, protocol: hook_types::Protocol) -> Option<&'static str> {
        protocol.agent().event_name(&self.event(), false, false, None)
    }
}

/// How the human approver is played in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approver {
    /// Nobody approves: the shell tool is pre-approved (Claude Code `--allowedTools Bash`, Codex's bypass flag,
    /// Gemini CLI's yolo mode).
    Preapproved,
    /// Nothing is pre-approved, and an approver answers every request with this decision (Claude Code's SDK mode
    /// with the test as its permission prompt tool; Codex's `--approve-for-me`).
    Answers(bool),
    /// The shell tool is pre-approved and the approver still answers what reaches it (an `ask` forces it).
    PreapprovedAnswers(bool),
}

/// How one run is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// Who approves.
    pub approver: Approver,
    /// Whether to run it the way that shows what the agent's UI shows about hooks.
    pub ui: bool,
}

impl From<Approver> for Run {
    fn from(approver: Approver) -> Run {
        Run { approver, ui: false }
    }
}

/// What the approver was asked during a run, and whether the agent's stdin is a conversation.
pub struct Conversation {
    /// Lines written to stdin first.
    pub first: Vec<String>,
    /// Called with each stdout line.
    pub talk: Box<dyn FnMut(&str) -> Reaction + Send>,
    /// The approver's requests that the agent did not cancel, as (request id, tool name), filled by `talk`.
    pub asked: std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>,
}

/// One agent under test.
pub trait Agent: Sync {
    /// Its name: `--agent` of `hook install`, `--protocol` of `hook bridge`, and of `cargo xtask agents`.
    fn name(&self) -> &'static str;

    /// Its wire format for the model server; where the agent's approver is a model call (Codex's
    /// `--approve-for-me` review), the wire answers it as `approver` decides.
    fn wire(&self, approver: Approver) -> Box<dyn Wire>;

    /// The approvals the agent asked the model for (Codex's review requests), by tool, from the server's log.
    fn model_approvals(&self, _requests: &[super::server::Logged]) -> Vec<String> {
        Vec::new()
    }

    /// Writes what the agent needs in the sandbox to run offline (the server's port is given to [`Agent::command`]).
    fn configure(&self, sandbox: &Sandbox) -> Result<()>;

    /// The command that runs `prompt` once, non-interactively; with `ui`, so that what the agent's interactive
    /// UI shows about hooks is in its output too (Codex: through its app server, whose notifications feed its TUI,
    /// since `codex exec` prints no hook's message).
    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, run: Run) -> Command;

    /// For runs whose stdin is a conversation (Claude Code's SDK mode, Codex's app server): the conversation.
    fn conversation(&self, _sandbox: &Sandbox, _prompt: &str, _run: Run) -> Option<Conversation> {
        None
    }

    /// The agent's name for `point`, when it has the event.
    fn event(&self, point: Point) -> Option<&'static str>;

    /// The matcher of the agent's shell tool, as its own hooks write it.
    fn shell_matcher(&self) -> &'static str;

    /// Words the drift scan (`--latest`) finds beside this agent's own that are no part of its hook vocabulary: (kind
    /// — `events` or `decisions` —, the words, why). Anything else it finds that the table lacks is an undocumented
    /// difference.
    fn scan_noise(&self) -> &'static [(&'static str, &'static [&'static str], &'static str)] {
        &[]
    }

    /// The file, relative to the workspace, that holds the agent's project hooks (what `hook install --scope
    /// project` edits).
    fn settings_file(&self) -> &'static str;

    /// Whether a full run of the suite measures the bridge's overhead in this agent (`--measure-only` always does):
    /// off where the suite's time budget has no room for its ten extra runs.
    fn measured_by_default(&self) -> bool {
        true
    }

    /// About how long all this agent's scenarios take, in seconds (measured on a 2-core machine): the agents that
    /// take longest start first when several run at once, so the last worker does not start a long one when the
    /// others are done ([`super::parallel`]).
    fn suite_seconds(&self) -> u32 {
        30
    }

    /// Whether only the scenarios that name this agent apply to it (Cline: its hooks are files of one executable per
    /// event and its answer a `cancel` that ends the run, so it has scenarios of its own).
    fn own_scenarios_only(&self) -> bool {
        false
    }

    /// Whether a blocked tool call ends the agent's whole run, so that a script's second call never comes (Cline: a
    /// hook's `cancel` aborts the run).
    fn block_ends_run(&self) -> bool {
        false
    }

    /// Why a scenario of the kind the agent would run cannot apply to it, printed in its place (`skip`), whether or not
    /// the scenario names the agent; `None` for the others.
    fn skips(&self, _scenario: &str) -> Option<&'static str> {
        None
    }

    /// Keys the agent itself writes into a project settings file it loads, written up front so that a run leaves the
    /// file as it was (Qwen Code stamps `"$version": 4` into one that lacks it).
    fn settings_stamp(&self) -> serde_json::Map<String, Value> {
        serde_json::Map::new()
    }

    /// One handler of the agent's hook configuration running `command`.
    fn handler(&self, command: &str) -> Value {
        json!({"type": "command", "command": command})
    }

    /// The agent's own deny hook for its shell tool, where the shared one (exit 2, the reason on stderr) would not
    /// show the model its reason: GitHub Copilot CLI tells the model only "hook exited with code 2".
    fn own_deny(&self) -> Option<&'static str> {
        None
    }

    /// Whether the agent adds a hook's context on its turn_start event (GitHub Copilot CLI drops a command hook's
    /// answer on userPromptSubmitted; the bridge tells the user instead).
    fn context_on_turn_start(&self) -> bool {
        true
    }

    /// The agent's own hook file holding `hooks` (event name, matcher, handler), where its shape is not Claude Code's
    /// `{"hooks": {event: [{matcher, hooks: [handler]}]}}` (GitHub Copilot CLI's flat `version: 1` file).
    fn own_hooks_file(&self, _hooks: Vec<(&'static str, Option<&str>, Value)>) -> Option<Value> {
        None
    }

    /// What the agent showed about hooks and the run's end, one normalized line each, for comparing two runs:
    /// the status it gives each hook run, the messages it shows, how the turn ended.
    fn hook_status(&self, _sandbox: &Sandbox, _finished: &super::process::Finished) -> Vec<String> {
        Vec::new()
    }

    /// What the agent records for its user outside its output, where a reason it gives may be only there (Cline's
    /// log: its headless JSON ends a run a hook cancelled without the hook's `errorMessage`). Empty for the others.
    fn user_log(&self, _sandbox: &Sandbox) -> String {
        String::new()
    }

    /// Where the agent's headless output drops the reason of a prompt its turn_start hook blocked (shown by its
    /// interactive UI only): the shell it runs that hook's command with, so that a scenario can run the installed
    /// handler as the agent does and read the answer the agent got. `None` where the reason is shown.
    fn hides_blocked_prompt(&self) -> Option<&'static str> {
        None
    }

    /// Makes the agent's own trust accept every hook of its project file that it does not trust yet (what a user
    /// does once in the agent): Codex's per-hook `trusted_hash`. Nothing for agents without such trust.
    fn trust_project_hooks(&self, _sandbox: &Sandbox) -> Result<()> {
        Ok(())
    }

    /// Installs the bridge's plugin for this agent (plugins/, `cargo xtask plugins`) with the agent's own commands,
    /// in the sandbox's agent configuration, as the install page tells a user to. `None` for an agent the suite
    /// does not install a plugin into.
    fn install_plugin(&self, _installed: &Installed, _sandbox: &Sandbox) -> Option<Result<()>> {
        None
    }
}

/// Writes the agent's own project hooks: `(point, matcher, command)` each one group with one handler.
pub fn write_own_hooks(agent: &dyn Agent, sandbox: &Sandbox, hooks: &[(Point, Option<&str>, &str)]) -> Result<String> {
    write_own_hooks_if(agent, sandbox, hooks, None)
}

/// [`write_own_hooks`], each handler with the `if` condition `condition` where one is given (Claude Code's
/// permission-rule syntax).
pub fn write_own_hooks_if(
    agent: &dyn Agent,
    sandbox: &Sandbox,
    hooks: &[(Point, Option<&str>, &str)],
    condition: Option<&str>,
) -> Result<String> {
    let handler = |command: &str| {
        let mut handler = agent.handler(command);
        if let (Some(condition), Some(fields)) = (condition, handler.as_object_mut()) {
            fields.insert("if".into(), json!(condition));
        }
        handler
    };
    let mut named = Vec::new();
    for (point, matcher, command) in hooks {
        let name = agent.event(*point).ok_or_else(|| anyhow::anyhow!("{} has no {point:?} event", agent.name()))?;
        named.push((name, *matcher, handler(command)));
    }
    if let Some(file) = agent.own_hooks_file(named) {
        let text = serde_json::to_string_pretty(&file)? + "\n";
        sandbox.write(agent.settings_file(), &text)?;
        agent.trust_project_hooks(sandbox)?;
        return Ok(text);
    }
    let mut events = serde_json::Map::new();
    for (point, matcher, command) in hooks {
        let name = agent.event(*point).ok_or_else(|| anyhow::anyhow!("{} has no {point:?} event", agent.name()))?;
        let mut group = serde_json::Map::new();
        if let Some(matcher) = matcher {
            group.insert("matcher".into(), json!(matcher));
        }
        group.insert("hooks".into(), json!([handler(command)]));
        if let Some(groups) = events.entry(name).or_insert_with(|| json!([])).as_array_mut() {
            groups.push(Value::Object(group));
        }
    }
    let mut settings = serde_json::Map::new();
    settings.insert("hooks".into(), Value::Object(events));
    settings.extend(agent.settings_stamp());
    let text = serde_json::to_string_pretty(&Value::Object(settings))? + "\n";
    sandbox.write(agent.settings_file(), &text)?;
    agent.trust_project_hooks(sandbox)?;
    Ok(text)
}
