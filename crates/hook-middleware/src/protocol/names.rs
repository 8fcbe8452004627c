//! Each protocol's spelling of the firing event, as the payload's `event` and `hook_event_name` carry it.

use std::borrow::Cow;

use hook_types::{Event, Protocol};

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
/// use hook_types::{Event, Protocol};
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
    let name = match protocol {
        Protocol::Native | Protocol::Mecha => event.canonical_name(),
        Protocol::Clio => match event {
            Event::PreTool => "before_tool",
            Event::PostTool => "after_tool",
            Event::Compaction => "on_compaction",
            other => other.canonical_name(),
        },
        Protocol::Claude | Protocol::Codex => claude_name(protocol, input),
        Protocol::Gemini => match event {
            Event::SessionStart => "SessionStart",
            Event::TurnStart => "BeforeAgent",
            Event::PreTool => "BeforeTool",
            Event::PermissionRequest => "PermissionRequest",
            Event::PostTool => "AfterTool",
            Event::TurnEnd => "AfterAgent",
            Event::Compaction => "PreCompress",
            Event::Notification => "Notification",
            Event::SessionEnd => "SessionEnd",
            Event::Foreign(_) => unreachable_foreign(),
        },
        Protocol::Cursor => cursor_name(input),
    };
    Cow::Borrowed(name)
}

fn claude_name(protocol: Protocol, input: &EventInput) -> &'static str {
    match input.event {
        Event::SessionStart => "SessionStart",
        Event::TurnStart => "UserPromptSubmit",
        Event::PreTool => "PreToolUse",
        Event::PermissionRequest => "PermissionRequest",
        // Codex has no PostToolUseFailure event: its PostToolUse hooks see failed calls too.
        Event::PostTool if input.is_error && protocol == Protocol::Claude => "PostToolUseFailure",
        Event::PostTool => "PostToolUse",
        Event::TurnEnd if input.subagent => "SubagentStop",
        Event::TurnEnd => "Stop",
        Event::Compaction => "PreCompact",
        Event::Notification => "Notification",
        Event::SessionEnd => "SessionEnd",
        Event::Foreign(_) => unreachable_foreign(),
    }
}

/// Cursor names tool events after the kind of tool (DESIGN §2, Cursor's row).
fn cursor_name(input: &EventInput) -> &'static str {
    let tool = ToolKind::of(input);
    match input.event {
        Event::SessionStart => "sessionStart",
        Event::TurnStart => "beforeSubmitPrompt",
        Event::PreTool => match tool {
            ToolKind::Shell => "beforeShellExecution",
            ToolKind::Mcp => "beforeMCPExecution",
            ToolKind::Read => "beforeReadFile",
            ToolKind::Edit | ToolKind::Other => "preToolUse",
        },
        Event::PermissionRequest => "permissionRequest",
        Event::PostTool if input.is_error => "postToolUseFailure",
        Event::PostTool => match tool {
            ToolKind::Shell => "afterShellExecution",
            ToolKind::Mcp => "afterMCPExecution",
            ToolKind::Edit => "afterFileEdit",
            ToolKind::Read | ToolKind::Other => "postToolUse",
        },
        Event::TurnEnd if input.subagent => "subagentStop",
        Event::TurnEnd => "stop",
        Event::Compaction => "preCompact",
        Event::Notification => "notification",
        Event::SessionEnd => "sessionEnd",
        Event::Foreign(_) => unreachable_foreign(),
    }
}

/// The kinds of tool Cursor names events after, read from the tool name or any of its aliases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToolKind {
    Shell,
    Mcp,
    Read,
    Edit,
    Other,
}

impl ToolKind {
    fn of(input: &EventInput) -> ToolKind {
        let names = input.tool_name.iter().chain(input.tool_aliases.iter());
        let mut kind = ToolKind::Other;
        for name in names {
            let found = ToolKind::of_name(name);
            if found != ToolKind::Other {
                kind = found;
                break;
            }
        }
        kind
    }

    fn of_name(name: &str) -> ToolKind {
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("mcp__") || lower.starts_with("mcp:") {
            ToolKind::Mcp
        } else {
            match lower.as_str() {
                "shell" => ToolKind::Shell,
                "read" => ToolKind::Read,
                "edit" | "write" => ToolKind::Edit,
                _ => ToolKind::Other,
            }
        }
    }
}

/// Foreign events return early in [`event_name`]; the inner matches must still be exhaustive.
fn unreachable_foreign() -> &'static str {
    "foreign"
}
