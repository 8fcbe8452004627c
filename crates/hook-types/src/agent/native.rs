//! The engine itself: its entry in the agent table, the canonical events and tools.

use super::*;

/// The canonical event names, each read as itself.
pub(super) const EVENTS: &[AgentEvent] = &[
    ev("session_start", Event::SessionStart),
    ev("turn_start", Event::TurnStart),
    ev("pre_tool", Event::PreTool),
    ev("permission_request", Event::PermissionRequest),
    ev("post_tool", Event::PostTool),
    ev("turn_end", Event::TurnEnd),
    ev("compaction", Event::Compaction),
    ev("notification", Event::Notification),
    ev("session_end", Event::SessionEnd),
];

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Native,
    id: "native",
    name: "this engine",
    version: None,
    events: EVENTS,
    tools: CANONICAL_TOOL_NAMES,
    other_tools: &[],
    mcp: None,
    project_env: &[],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    files: AgentFiles { project: None, local: None, user: None, read: &[], overrides: &[], read_user: None },
    default_timeout_ms: 10_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::ByEvent,
    timeout_unit: TimeUnit::Millis,
    handler: HandlerShape::NotInstallable,
    posix_shell: true,
    answers: ALL_ANSWERS,
    vocabulary: Vocabulary::UNCHECKED,
    wire: WireShape::ClaudeCode,
    json_comments: false,
    hooks_switches: &[],
    bridge: false,
    trust_note: None,
    switches: &[],
    folder_trust: None,
    binary: None,
    tool_call_env: &[],
};
