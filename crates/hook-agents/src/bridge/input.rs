//! An agent's hook input (the JSON it writes to a hook's stdin) read as an [`EventInput`].

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::install::{Agent, AgentInstall, json_kind};
use hook_types::{Event, Scope};
use serde_json::{Map, Value, json};

use hook_middleware::AgentFields;
use hook_middleware::EventInput;
use hook_middleware::protocol::payload_object;

/// One hook input of an agent, read.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentInput {
    /// The agent that sent it.
    pub agent: Agent,
    /// The event as the agent named it (`PreToolUse`, `beforeShellExecution`).
    pub event_name: String,
    /// What the engine dispatches: the canonical (or foreign) event, the filters its name implies, the fields.
    pub input: EventInput,
    /// Where the agent says the project is: Cursor's first `workspace_roots` entry.
    pub project_root: Option<PathBuf>,
}

/// The error returned by [`parse_input`]: the input cannot be read as that agent's hook input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Not JSON.
    #[error("the {agent} hook input on stdin is not valid JSON: {message}")]
    Json {
        /// The agent's name.
        agent: &'static str,
        /// serde's message, with line and column.
        message: String,
    },
    /// JSON, but not an object.
    #[error("the {agent} hook input on stdin is {found}; expected a JSON object")]
    NotAnObject {
        /// The agent's name.
        agent: &'static str,
        /// What it is.
        found: &'static str,
    },
    /// A field of the wrong type, or a required one missing.
    #[error("the {agent} hook input's `{field}` is {found}; expected {expected}")]
    Field {
        /// The agent's name.
        agent: &'static str,
        /// The field.
        field: &'static str,
        /// What it is (`missing`, `a number`).
        found: &'static str,
        /// What it should be.
        expected: &'static str,
    },
}

/// Reads `bytes` (what the agent wrote to stdin) as `agent`'s hook input: `hook_event_name` names the event (the
/// agent's own spelling, see [`Agent::event`]), the other fields fill the [`EventInput`] under the names this engine
/// uses; a field of the wrong type is an error naming it. Every field the payload of the agent's own hooks would not
/// carry — one the engine has no name for (Claude Code's `last_assistant_message`), reads under another name
/// (Claude Code's `error`, Cursor's `loop_count`) or carries on other events only — goes to
/// [`EventInput::extra`], so a hook moved out of the agent's file still reads everything the agent sent.
///
/// ```
/// use hook_agents::install::{Agent, json_kind};
/// use hook_agents::bridge::parse_input;
/// use hook_types::Event;
/// let stdin = br#"{"hook_event_name":"PostToolUseFailure","session_id":"s1","cwd":"/ws",
///                  "tool_name":"Bash","tool_input":{"command":"make"},"error":"exit 2"}"#;
/// let read = parse_input(Agent::Claude, stdin).unwrap();
/// assert_eq!(read.input.event, Event::PostTool);
/// assert!(read.input.is_error);
/// assert_eq!(read.input.content.as_deref(), Some("exit 2"));
/// // A Claude Code hook still reads `error` under its own name; no other agent's hook sees it.
/// assert_eq!(read.input.extra.unwrap().fields["error"], "exit 2");
/// ```
pub fn parse_input(agent: Agent, bytes: &[u8]) -> Result<AgentInput, InputError> {
    parse_input_as(agent, None, bytes)
}

/// [`parse_input`] for an agent whose input may not name its event: `event` is the agent's name for it as the
/// bridge's command line gave it (`hook bridge --protocol copilot --event preToolUse`; GitHub Copilot CLI's camelCase
/// inputs carry no event name), and wins over one the input names.
///
/// ```
/// use hook_agents::install::Agent;
/// use hook_agents::bridge::parse_input_as;
/// use hook_types::Event;
/// let stdin = br#"{"sessionId":"s1","timestamp":1704614600000,"cwd":"/ws","toolName":"bash","toolArgs":{"command":"ls"}}"#;
/// let read = parse_input_as(Agent::Copilot, Some("preToolUse"), stdin).unwrap();
/// assert_eq!(read.input.event, Event::PreTool);
/// assert_eq!(read.input.tool_name.as_deref(), Some("bash"));
/// assert_eq!(read.input.tool_input.unwrap()["command"], "ls");
/// assert!(parse_input_as(Agent::Copilot, None, stdin).is_err());
/// ```
pub fn parse_input_as(agent: Agent, event: Option<&str>, bytes: &[u8]) -> Result<AgentInput, InputError> {
    let name = agent.display_name();
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start_matches('\u{feff}');
    let value: Value =
        serde_json::from_str(text).map_err(|e| InputError::Json { agent: name, message: e.to_string() })?;
    let Value::Object(fields) = value else {
        return Err(InputError::NotAnObject { agent: name, found: json_kind(&value) });
    };
    let read = Fields { agent: name, fields: &fields };
    let wire = agent.agent().wire;
    // Cline names the event in `hookName`, its own wire name (`tool_call`), not its file name (`PreToolUse`); Crush
    // in `event`.
    let name_field = match wire {
        hook_types::WireShape::Cline => "hookName",
        hook_types::WireShape::Crush => "event",
        _ => "hook_event_name",
    };
    let event_name = match event {
        Some(event) => event.to_owned(),
        // GitHub Copilot CLI's input does not name its event: the bridge's command line does.
        None if wire == hook_types::WireShape::Copilot => {
            return Err(InputError::Field {
                agent: name,
                field: "hook_event_name",
                found: "missing",
                expected: "the event's name, which this agent's input does not carry: run the bridge with \
                           `--event <name>` (as hook install writes it)",
            });
        }
        None => read.string(name_field)?.ok_or(InputError::Field {
            agent: name,
            field: name_field,
            found: "missing",
            expected: "the event's name",
        })?,
    };
    let event_name = match agent.agent().event_by_wire_name(&event_name) {
        Some(row) if wire == hook_types::WireShape::Cline => row.name.to_owned(),
        _ => event_name,
    };
    let named = agent.event(&event_name);
    let mut input = EventInput::new(named.event.clone());
    input.is_error = named.filters.only_errors;
    input.subagent = named.filters.scope == Scope::Subagent;
    input.tool_name = named.tool.map(str::to_owned);
    let mut project_root = None;
    match wire {
        hook_types::WireShape::Cursor => project_root = read.cursor(&event_name, &mut input)?,
        hook_types::WireShape::Cline => project_root = read.cline(&mut input)?,
        hook_types::WireShape::ClaudeCode | hook_types::WireShape::GeminiCli | hook_types::WireShape::Crush => {
            read.common(&mut input)?
        }
        hook_types::WireShape::Copilot => read.copilot(&mut input)?,
        hook_types::WireShape::Auggie => project_root = read.auggie(&mut input)?,
    }
    // An event whose answer the agent never reads (Cline's detached ones) keeps no session state: a notice given
    // there would count as told, and nobody would have seen it. The session id stays in `extra` for the agent's own
    // hooks.
    if agent.agent().event(&event_name).is_some_and(|row| !row.answered) {
        input.session_id = None;
    }
    input.extra = leftover(agent, &mut input, fields);
    if let Some(extra) = input.extra.as_mut() {
        extra.newline = bytes.ends_with(b"\n");
    }
    Ok(AgentInput { agent, event_name, input, project_root })
}

/// The fields of the agent's input that the payload of the agent's own hooks does not carry, as [`EventInput::extra`]:
/// exactly those, because the payload builder itself says which it carries; and every key the agent sent, in its
/// order, so that the payload of the agent's own hooks has the agent's shape.
fn leftover(agent: Agent, input: &mut EventInput, fields: Map<String, Value>) -> Option<AgentFields> {
    let protocol = agent;
    // Only which keys the payload has matters here: a tool response (a whole file, a build log) is not copied for it.
    let response = input.tool_response.as_mut().map(std::mem::take);
    let carried = payload_object(protocol, input);
    if let Some(response) = response {
        input.tool_response = Some(response);
    }
    let keys: Vec<String> = fields.keys().cloned().collect();
    let fields: Map<String, Value> = fields.into_iter().filter(|(key, _)| !carried.contains_key(key)).collect();
    Some(AgentFields { protocol, fields, keys, newline: false })
}

impl AgentInput {
    /// The workspace this input is about, found as the agent finds its project: the agent's project variable when
    /// the agent set one (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`, `CURSOR_PROJECT_DIR`; Codex sets none), else the
    /// project root the input names (Cursor's `workspace_roots`), else the [`project_root`] above the input's `cwd`
    /// — Codex and Gemini CLI send the session's working directory, which may be any directory of the project.
    /// `None` when the input names no directory. `env` looks a variable up (the process environment, in the CLI);
    /// `HOME` among them.
    ///
    /// ```
    /// use hook_agents::install::Agent;
    /// use hook_agents::bridge::parse_input;
    /// let ws = tempfile::tempdir().unwrap();
    /// std::fs::create_dir_all(ws.path().join(".codex")).unwrap();
    /// std::fs::create_dir_all(ws.path().join("src/deep")).unwrap();
    /// let cwd = ws.path().join("src/deep");
    /// let stdin = format!(r#"{{"hook_event_name":"Stop","cwd":{:?}}}"#, cwd.to_str().unwrap());
    /// let read = parse_input(Agent::Codex, stdin.as_bytes()).unwrap();
    /// assert_eq!(read.workspace(|_| None), Some(ws.path().to_path_buf()));
    /// let read = parse_input(Agent::Claude, br#"{"hook_event_name":"Stop","cwd":"/ws/sub"}"#).unwrap();
    /// assert_eq!(read.workspace(|v| (v == "CLAUDE_PROJECT_DIR").then(|| "/ws".into())), Some("/ws".into()));
    /// ```
    pub fn workspace(&self, env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        let home = env(hook_config::platform::HOME_VAR).filter(|h| !h.is_empty()).map(PathBuf::from);
        self.agent
            .agent()
            .project_env
            .first()
            .copied()
            .and_then(&env)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| self.project_root.clone())
            .or_else(|| self.input.cwd.as_ref().map(|cwd| project_root(self.agent, Path::new(cwd), home.as_deref())))
    }
}

/// The project root of `agent` above the directory `cwd`, as the agents find theirs: the nearest directory, `cwd`
/// itself or an ancestor, that holds the agent's project settings directory (`.claude/`, `.codex/`, `.gemini/`,
/// `.cursor/`: the first part of its project file in the agent table) or this engine's `.hooks/` — the home
/// directory excepted, whose `.claude/` holds the user's settings, not a project's; else the nearest that holds
/// `.git`; else `cwd` itself.
///
/// ```
/// use hook_agents::bridge::project_root;
/// use hook_agents::install::Agent;
/// let repo = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(repo.path().join(".git")).unwrap();
/// std::fs::create_dir_all(repo.path().join("a/b")).unwrap();
/// assert_eq!(project_root(Agent::Gemini, &repo.path().join("a/b"), None), repo.path());
/// std::fs::create_dir_all(repo.path().join("a/.gemini")).unwrap();
/// assert_eq!(project_root(Agent::Gemini, &repo.path().join("a/b"), None), repo.path().join("a"));
/// // Another agent's settings directory is no project root for this one.
/// assert_eq!(project_root(Agent::Codex, &repo.path().join("a/b"), None), repo.path());
/// ```
pub fn project_root(agent: Agent, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let settings_dir = agent.agent().files.project.and_then(|file| match Path::new(file).components().next() {
        Some(Component::Normal(dir)) => Some(dir.to_owned()),
        _ => None,
    });
    let native_dir = format!(".{}", hook_config::DEFAULT_APP_DIR);
    let marked = cwd.ancestors().find(|dir| {
        Some(*dir) != home
            && (dir.join(&native_dir).is_dir() || settings_dir.as_ref().is_some_and(|name| dir.join(name).is_dir()))
    });
    marked.or_else(|| cwd.ancestors().find(|dir| dir.join(".git").exists())).unwrap_or(cwd).to_path_buf()
}

/// Typed access to the input's fields, naming the field in every error.
struct Fields<'a> {
    agent: &'static str,
    fields: &'a Map<String, Value>,
}

impl Fields<'_> {
    fn get(&self, field: &str) -> Option<&Value> {
        self.fields.get(field).filter(|v| !v.is_null())
    }

    fn wrong(&self, field: &'static str, value: &Value, expected: &'static str) -> InputError {
        InputError::Field { agent: self.agent, field, found: json_kind(value), expected }
    }

    fn string(&self, field: &'static str) -> Result<Option<String>, InputError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.wrong(field, other, "a string")),
        }
    }

    fn boolean(&self, field: &'static str) -> Result<Option<bool>, InputError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong(field, other, "true or false")),
        }
    }

    /// A tool input: an object, or (Cursor's MCP events) a string holding one.
    fn tool_input(&self, field: &'static str) -> Result<Option<Value>, InputError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Object(object)) => Ok(Some(Value::Object(object.clone()))),
            Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(object)) => Ok(Some(Value::Object(object))),
                _ => Ok(Some(json!({ "raw": text }))),
            },
            Some(other) => Err(self.wrong(field, other, "an object")),
        }
    }

    /// Claude Code, Codex and Gemini CLI share the field names this engine's payload uses.
    fn common(&self, input: &mut EventInput) -> Result<(), InputError> {
        input.session_id = self.string("session_id")?;
        input.turn_id = self.string("turn_id")?;
        input.cwd = self.string("cwd")?;
        input.transcript_path = self.string("transcript_path")?;
        // Some agents send a model object elsewhere; only a name is this field.
        input.model = self.get("model").and_then(Value::as_str).map(str::to_owned);
        input.permission_mode = self.string("permission_mode")?;
        if let Some(tool) = self.string("tool_name")? {
            input.tool_name = Some(tool);
        }
        input.tool_input = self.tool_input("tool_input")?;
        input.tool_use_id = self.string("tool_use_id")?;
        input.tool_response = self.get("tool_response").cloned();
        input.prompt = self.string("prompt")?;
        input.source = self.string("source")?;
        input.trigger = self.string("trigger")?;
        input.stop_hook_active = self.boolean("stop_hook_active")?.unwrap_or(false);
        input.agent_id = self.string("agent_id")?;
        input.agent_type = self.string("agent_type")?;
        if input.event == Event::PostTool {
            // Claude Code's PostToolUseFailure carries `error`; Gemini CLI's AfterTool an `error` in its response,
            // beside `llmContent`, the text the model sees.
            let response = input.tool_response.as_ref();
            let gemini_error = response.and_then(|r| r.get("error")).filter(|e| !e.is_null());
            input.is_error |= gemini_error.is_some();
            input.content = self
                .string("error")?
                .or_else(|| {
                    let text = response.and_then(|r| r.get("llmContent")).and_then(Value::as_str);
                    text.filter(|t| !t.is_empty()).map(str::to_owned)
                })
                .or_else(|| gemini_error.map(text_of))
                .or_else(|| response.and_then(Value::as_str).map(str::to_owned));
        }
        Ok(())
    }

    /// Cline's input (`createPayloadBase` and the per-event objects of sdk/packages/core/src/hooks/hook-file-hooks.ts,
    /// Cline 3.0.65): `taskId` is the session, `workspaceRoots` the project (Cline sends no `cwd`); `tool_call`
    /// (`{id, name, input}`) on PreToolUse, `tool_result` (`{id, name, input, output, error}`) and `postToolUse`
    /// (`{result, success}`) on PostToolUse, `userPromptSubmit.prompt` on UserPromptSubmit; `parent_agent_id` set
    /// for a delegated agent. The VS Code extension's input (its hook reference: `hookName` is the file name,
    /// `PreToolUse`) carries only `preToolUse`/`postToolUse` (`{toolName, parameters}`), read the same way; its
    /// `use_mcp_tool` is also the MCP tool its parameters name. Returns the project root it names.
    fn cline(&self, input: &mut EventInput) -> Result<Option<PathBuf>, InputError> {
        input.session_id = self.string("taskId")?;
        let root = match self.get("workspaceRoots") {
            None => None,
            Some(Value::Array(roots)) => roots.first().and_then(Value::as_str).map(PathBuf::from),
            Some(other) => return Err(self.wrong("workspaceRoots", other, "a list of directories")),
        };
        input.cwd = root.as_ref().map(|r| r.display().to_string());
        let object = |field: &'static str| -> Result<Option<&Map<String, Value>>, InputError> {
            match self.get(field) {
                None => Ok(None),
                Some(Value::Object(object)) => Ok(Some(object)),
                Some(other) => Err(self.wrong(field, other, "an object")),
            }
        };
        let text = |object: Option<&Map<String, Value>>, key: &str| {
            object.and_then(|o| o.get(key)).and_then(Value::as_str).map(str::to_owned)
        };
        match input.event {
            Event::PreTool => {
                let call = object("tool_call")?;
                let pre = object("preToolUse")?;
                input.tool_name = text(call, "name").or_else(|| text(pre, "toolName"));
                input.tool_use_id = text(call, "id");
                input.tool_input = call
                    .and_then(|c| c.get("input"))
                    .or_else(|| pre.and_then(|p| p.get("parameters")))
                    .filter(|v| !v.is_null())
                    .cloned();
            }
            Event::PostTool => {
                let record = object("tool_result")?;
                let post = object("postToolUse")?;
                input.tool_name = text(record, "name").or_else(|| text(post, "toolName"));
                input.tool_use_id = text(record, "id");
                input.tool_input = record
                    .and_then(|r| r.get("input"))
                    .or_else(|| post.and_then(|p| p.get("parameters")))
                    .filter(|v| !v.is_null())
                    .cloned();
                input.tool_response = record.and_then(|r| r.get("output")).filter(|v| !v.is_null()).cloned();
                let error = text(record, "error");
                let failed = post.and_then(|p| p.get("success")).and_then(Value::as_bool) == Some(false);
                input.is_error |= failed || error.is_some();
                input.content = error.or_else(|| text(post, "result"));
            }
            Event::TurnStart => input.prompt = text(object("userPromptSubmit")?, "prompt"),
            _ => {}
        }
        if input.event.is_tool_event() {
            input.tool_input.get_or_insert_with(|| Value::Object(Map::new()));
            input.tool_aliases.extend(cline_mcp_alias(input));
        }
        if self.string("parent_agent_id")?.is_some() {
            input.agent_id = self.string("agent_id")?;
        }
        Ok(root)
    }

    /// Auggie's input (`B7n`, `T7n`, `N7n`, `V7n` and `k7n` in its 0.36.0 bundle): `conversation_id` is the session,
    /// the first of `workspace_roots` the project and the hook's working directory (Auggie sends no `cwd`);
    /// `tool_name` and `tool_input` on the tool events, `tool_output` (the result's text) and `tool_error` (the same
    /// text when the call failed, else `null`) on PostToolUse, `user_prompt` on PromptSubmit. Its `is_mcp_tool`,
    /// `file_changes`, `agent_stop_cause`, `notification_type` and `notification_message` go to
    /// [`EventInput::extra`]. Returns the project root it names.
    fn auggie(&self, input: &mut EventInput) -> Result<Option<PathBuf>, InputError> {
        input.session_id = self.string("conversation_id")?;
        let root = match self.get("workspace_roots") {
            None => None,
            Some(Value::Array(roots)) => roots.first().and_then(Value::as_str).map(PathBuf::from),
            Some(other) => return Err(self.wrong("workspace_roots", other, "a list of directories")),
        };
        input.cwd = root.as_ref().map(|r| r.display().to_string());
        if let Some(tool) = self.string("tool_name")? {
            input.tool_name = Some(tool);
        }
        input.tool_input = self.tool_input("tool_input")?;
        if input.event.is_tool_event() {
            input.tool_input.get_or_insert_with(|| Value::Object(Map::new()));
        }
        if input.event == Event::PostTool {
            let output = self.string("tool_output")?;
            let error = self.string("tool_error")?;
            input.is_error |= error.is_some();
            input.tool_response = output.clone().map(Value::String);
            input.content = error.or(output);
        }
        if input.event == Event::TurnStart {
            input.prompt = self.string("user_prompt")?;
        }
        Ok(root)
    }

    /// GitHub Copilot CLI's camelCase input (hooks reference, "Hook event input payloads"): `sessionId`, `cwd`,
    /// `transcriptPath`, `toolName` and `toolArgs` (`toolInput` on permissionRequest), `toolResult` (`resultType`,
    /// `textResultForLlm`) on postToolUse, `error` on postToolUseFailure, `prompt`, `source`, `trigger`,
    /// `stop_hook_active`. Its `timestamp`, `stopReason`, `agentName` and the rest go to [`EventInput::extra`].
    fn copilot(&self, input: &mut EventInput) -> Result<(), InputError> {
        input.session_id = self.string("sessionId")?;
        input.cwd = self.string("cwd")?;
        input.transcript_path = self.string("transcriptPath")?;
        if let Some(tool) = self.string("toolName")? {
            input.tool_name = Some(tool);
        }
        input.tool_input = match self.tool_input("toolArgs")? {
            Some(args) => Some(args),
            None => self.tool_input("toolInput")?,
        };
        if input.event.is_tool_event() {
            input.tool_input.get_or_insert_with(|| Value::Object(Map::new()));
        }
        if input.event == Event::PostTool {
            if let Some(result) = self.get("toolResult") {
                let kind = result.get("resultType").and_then(Value::as_str);
                input.is_error |= kind.is_some_and(|k| k != "success");
                input.content = result.get("textResultForLlm").and_then(Value::as_str).map(str::to_owned);
                input.tool_response = Some(result.clone());
            }
            if let Some(error) = self.string("error")? {
                input.is_error = true;
                input.content = Some(error);
            }
        }
        input.prompt = self.string("prompt")?;
        input.source = self.string("source")?;
        input.trigger = self.string("trigger")?;
        input.stop_hook_active = self.boolean("stop_hook_active")?.unwrap_or(false);
        Ok(())
    }

    /// Cursor names the same facts its own way and spreads a tool call over per-tool fields. Returns the project
    /// root it names.
    fn cursor(&self, event_name: &str, input: &mut EventInput) -> Result<Option<PathBuf>, InputError> {
        input.session_id = self.string("conversation_id")?.or(self.string("session_id")?);
        input.turn_id = self.string("generation_id")?;
        input.model = self.get("model").and_then(Value::as_str).map(str::to_owned);
        input.transcript_path = self.string("transcript_path")?;
        let root = match self.get("workspace_roots") {
            None => None,
            Some(Value::Array(roots)) => roots.first().and_then(Value::as_str).map(PathBuf::from),
            Some(other) => return Err(self.wrong("workspace_roots", other, "a list of directories")),
        };
        input.cwd = self.string("cwd")?.or_else(|| root.as_ref().map(|r| r.display().to_string()));
        // Cursor's per-tool events carry the tool's own fields; which tool an event is about is its table row's.
        let implied = Agent::Cursor.agent().event(event_name).and_then(|row| row.tool);
        match implied {
            Some("shell") => {
                let mut tool_input = Map::new();
                if let Some(command) = self.string("command")? {
                    tool_input.insert("command".into(), command.into());
                }
                if let Some(cwd) = self.string("cwd")? {
                    tool_input.insert("cwd".into(), cwd.into());
                }
                input.tool_input = Some(Value::Object(tool_input));
                if let Some(output) = self.string("output")? {
                    input.tool_response = Some(json!({ "output": output }));
                    input.content = Some(output);
                }
            }
            Some("mcp") => {
                input.tool_name = self.string("tool_name")?;
                input.tool_input = self.tool_input("tool_input")?;
                // The `mcp:` alias tells Cursor's per-tool event name apart and lets a hook match MCP tools as such.
                input.tool_aliases = input.tool_name.iter().map(|name| format!("mcp:{name}")).collect();
                if let Some(result) = self.string("result_json")? {
                    input.tool_response = Some(serde_json::from_str(&result).unwrap_or(Value::String(result.clone())));
                    input.content = Some(result);
                }
            }
            Some(_) => {
                let mut tool_input = Map::new();
                for field in ["file_path", "edits"] {
                    if let Some(value) = self.get(field) {
                        tool_input.insert(field.into(), value.clone());
                    }
                }
                input.tool_input = Some(Value::Object(tool_input));
            }
            _ => {
                if let Some(tool) = self.string("tool_name")? {
                    let lower = tool.to_ascii_lowercase();
                    if lower != tool {
                        input.tool_aliases.push(lower);
                    }
                    input.tool_name = Some(tool);
                }
                input.tool_input = self.tool_input("tool_input")?;
                input.tool_use_id = self.string("tool_use_id")?;
                input.tool_response = self.get("tool_output").or(self.get("tool_response")).cloned();
                input.content = input.tool_response.as_ref().map(text_of);
                if let Some(error) = self.string("error")? {
                    input.content = Some(error);
                }
            }
        }
        if input.event.is_tool_event() {
            input.tool_input.get_or_insert_with(|| Value::Object(Map::new()));
        }
        input.prompt = self.string("prompt")?;
        input.source = self.string("source")?;
        input.trigger = self.string("trigger")?;
        // `stop` counts the follow-ups already sent in `loop_count`: one or more means a hook keeps the run going.
        input.stop_hook_active = match self.get("loop_count") {
            None => false,
            Some(Value::Number(n)) => n.as_u64().is_some_and(|n| n > 0),
            Some(other) => return Err(self.wrong("loop_count", other, "a number")),
        };
        Ok(root)
    }
}

/// The canonical name of the MCP tool a Cline extension's `use_mcp_tool` call runs (`mcp:<server_name>:<tool_name>`,
/// from its parameters), so that a `tools: [mcp:github:search]` gate meets it as it meets Claude Code's
/// `mcp__github__search`.
fn cline_mcp_alias(input: &EventInput) -> Option<String> {
    if input.tool_name.as_deref() != Some("use_mcp_tool") {
        return None;
    }
    let parameters = input.tool_input.as_ref()?;
    let field = |key: &str| parameters.get(key).and_then(Value::as_str).filter(|v| !v.is_empty());
    Some(format!("mcp:{}:{}", field("server_name")?, field("tool_name")?))
}

/// A value as text: a string as is, anything else as compact JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
