//! Each protocol's spelling of the firing event, as the payload's `event` and `hook_event_name` carry it.

use std::borrow::Cow;

use hook_types::{Agent, Event, Protocol};

use crate::EventInput;

/// The event of `input` in `protocol`'s spelling, taken from the dispatch, not only from the canonical event:
/// Claude's `PostToolUseFailure` when `is_error`, `SubagentStop` for a subagent's turn_end, Cursor's per-tool names
/// (`beforeShellExecution` for the tool `shell`, `beforeMCPExecution` for MCP tools, `beforeReadFile` for `read`).
/// A foreign event keeps its own name in every protocol.
///
/// | event | native, mecha | clio | claude | codex | gemini | cursor |
/// |---|---|---|---|---|---|---|
/// | session_start | `session_start` | `session_start` | `SessionStart` | `SessionStart` | `SessionStart` | `sessionStart` |
/// | turn_start | `turn_start` | `turn_start` | `UserPromptSubmit` | `UserPromptSubmit` | `BeforeAgent` | `beforeSubmitPrompt` |
/// | pre_tool | `pre_tool` | `before_tool` | `PreToolUse` | `PreToolUse` | `BeforeTool` | `preToolUse` or per tool |
/// | permission_request | `permission_request` | `permission_request` | `PermissionRequest` | `PermissionRequest` | `PermissionRequest` | `permissionRequest` |
/// | post_tool | `post_tool` | `after_tool` | `PostToolUse`, `PostToolUseFailure` | `PostToolUse` | `AfterTool` | `postToolUse`, `postToolUseFailure` or per tool |
/// | turn_end | `turn_end` | `turn_end` | `Stop`, `SubagentStop` | `Stop`, `SubagentStop` | `AfterAgent` | `stop`, `subagentStop` |
/// | compaction | `compaction` | `on_compaction` | `PreCompact` | `PreCompact` | `PreCompress` | `preCompact` |
/// | notification | `notification` | `notification` | `Notification` | `Notification` | `Notification` | `notification` |
/// | session_end | `session_end` | `session_end` | `SessionEnd` | `SessionEnd` | `SessionEnd` | `sessionEnd` |
///
/// Where an agent has no such event (Gemini and Cursor have no permission request, Cursor no notification) the row
/// holds the name a hook author of that agent would guess; such a hook can only exist through `hook import` of
/// another agent's hook anyway.
///
/// ```
/// use hook_middleware::{EventInput, protocol::event_name};
/// use hook_types::{Agent, Event, Protocol};
/// let failed = EventInput { is_error: true, ..EventInput::new(Event::PostTool) };
/// assert_eq!(event_name(Protocol::Claude, &failed), "PostToolUseFailure");
/// assert_eq!(event_name(Protocol::Gemini, &failed), "AfterTool");
/// let shell = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "ls"}));
/// assert_eq!(event_name(Protocol::Cursor, &shell), "beforeShellExecution");
/// assert_eq!(event_name(Protocol::Clio, &shell), "before_tool");
/// ```
pub fn event_name(protocol: Protocol, input: &EventInput) -> Cow<'static, str> {
    let event = &input.event;
    if let Event::Foreign(name) = event {
        return Cow::Owned(name.clone());
    }
    let names = input.tool_name.iter().chain(input.tool_aliases.iter());
    let tool = names.filter_map(|n| hook_types::canonical_tool(n)).next();
    let name = |agent: &Agent| agent.event_name(event, input.is_error, input.subagent, tool.as_deref());
    let agent = protocol.agent();
    if let Some(own) = name(agent) {
        return Cow::Borrowed(own);
    }
    // The agent has no such event: the name its hook authors would guess, Claude Code's in the agent's case.
    let claude = name(Protocol::Claude.agent()).unwrap_or(event.canonical_name());
    let camel = agent.events.first().is_some_and(|e| e.name.starts_with(|c: char| c.is_ascii_lowercase()));
    if camel {
        let mut chars = claude.chars();
        let first = chars.next().map(|c| c.to_ascii_lowercase()).unwrap_or_default();
        Cow::Owned(std::iter::once(first).chain(chars).collect())
    } else {
        Cow::Borrowed(claude)
    }
}
