//! What a host hands to one dispatch: the event and its fields (docs/events.md#payload).

use hook_types::{Event, Protocol};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The input of one dispatch. Every field but `event` is optional; the payload a command hook reads on stdin is
/// built from it in the hook's protocol (see [`crate::protocol`]).
///
/// ```
/// use hook_middleware::EventInput;
/// use hook_types::Event;
/// let input = EventInput::new(Event::PreTool)
///     .with_tool("shell", serde_json::json!({"command": "rm -rf /"}))
///     .with_session("sess-1");
/// assert_eq!(input.match_value(), Some("shell"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventInput {
    /// The event being dispatched.
    pub event: Event,
    /// The host's session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The host's turn id.
    #[serde(default)]
    pub turn_id: Option<String>,
    /// The agent's working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Where the host keeps the transcript.
    #[serde(default)]
    pub transcript_path: Option<String>,
    /// The model in use.
    #[serde(default)]
    pub model: Option<String>,
    /// The host's permission mode (`default`, `plan`, `acceptEdits`, …).
    #[serde(default)]
    pub permission_mode: Option<String>,
    /// Tool events: the tool's name.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// Tool events: other names the same tool answers to (Codex's `matcher_aliases`); a hook matches if any does.
    #[serde(default)]
    pub tool_aliases: Vec<String>,
    /// Tool events: the tool's input.
    #[serde(default)]
    pub tool_input: Option<Value>,
    /// Tool events: the host's id for this call.
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// post_tool: what the tool returned.
    #[serde(default)]
    pub tool_response: Option<Value>,
    /// post_tool: whether the call failed (Claude's `PostToolUseFailure`).
    #[serde(default)]
    pub is_error: bool,
    /// post_tool: the result text the model will see (the payload carries its first 4 000 characters).
    #[serde(default)]
    pub content: Option<String>,
    /// turn_start: the user's prompt.
    #[serde(default)]
    pub prompt: Option<String>,
    /// session_start: `startup`, `resume`, `clear` or `compact`.
    #[serde(default)]
    pub source: Option<String>,
    /// compaction: `manual` or `auto`.
    #[serde(default)]
    pub trigger: Option<String>,
    /// turn_end: whether the run is already continuing because of a turn_end hook.
    #[serde(default)]
    pub stop_hook_active: bool,
    /// turn_end and others: whether the firing run is a subagent's.
    #[serde(default)]
    pub subagent: bool,
    /// The subagent's id, if any.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The subagent's type, if any.
    #[serde(default)]
    pub agent_type: Option<String>,
    /// Fields of an agent's own hook input that no field above names (Claude Code's `last_assistant_message`, Gemini
    /// CLI's `prompt_response`, Cursor's `status`, …), passed through to that agent's hooks: the bridge fills it, so a
    /// hook `hook install` moved out of the agent's file still reads what the agent sent. `None` (the default) for
    /// an input a host builds itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<AgentFields>,
}

/// Fields of one agent's hook input that [`EventInput`] has no name for, kept for that agent's hooks.
///
/// The payload of a hook whose protocol is `protocol` carries them after its own fields, never in place of one of
/// them; a hook of any other protocol never sees them, since each agent names its fields its own way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentFields {
    /// Whose fields they are: the protocol of the agent that sent them.
    pub protocol: Protocol,
    /// The fields, as the agent sent them, in its order.
    pub fields: Map<String, Value>,
    /// Every key of the agent's input, in the agent's order, when the input came from that agent (the bridge fills
    /// it): the payload of that agent's hooks then carries exactly these keys in this order, as the agent's own
    /// payload does, and no other. Empty: the payload's own keys, then `fields`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// With `keys`: whether the agent's input ended with a newline (Claude Code's and Codex's do, Gemini CLI's does
    /// not); the payload of that agent's hooks ends the same way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub newline: bool,
}

impl EventInput {
    /// An input for `event` with every other field empty.
    pub fn new(event: Event) -> Self {
        EventInput {
            event,
            session_id: None,
            turn_id: None,
            cwd: None,
            transcript_path: None,
            model: None,
            permission_mode: None,
            tool_name: None,
            tool_aliases: Vec::new(),
            tool_input: None,
            tool_use_id: None,
            tool_response: None,
            is_error: false,
            content: None,
            prompt: None,
            source: None,
            trigger: None,
            stop_hook_active: false,
            subagent: false,
            agent_id: None,
            agent_type: None,
            extra: None,
        }
    }

    /// Sets the tool name and input.
    pub fn with_tool(mut self, name: impl Into<String>, input: Value) -> Self {
        self.tool_name = Some(name.into());
        self.tool_input = Some(input);
        self
    }

    /// Sets the session id.
    pub fn with_session(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// The value a hook's `matcher` is tested against: the tool name on tool events, `source` on session_start,
    /// `trigger` on compaction; `None` elsewhere.
    pub fn match_value(&self) -> Option<&str> {
        match &self.event {
            Event::PreTool | Event::PermissionRequest | Event::PostTool => self.tool_name.as_deref(),
            Event::SessionStart => self.source.as_deref(),
            Event::Compaction => self.trigger.as_deref(),
            _ => None,
        }
    }
}
