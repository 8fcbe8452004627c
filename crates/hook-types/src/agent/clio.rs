//! clio-coder: its entry in the agent table, with its event and tool names.

use super::*;

/// clio-coder's names: the canonical ones, and its own for three of them.
const EVENTS: &[AgentEvent] = &[
    ev("session_start", Event::SessionStart),
    ev("turn_start", Event::TurnStart),
    ev("before_tool", Event::PreTool),
    ev("permission_request", Event::PermissionRequest),
    ev("after_tool", Event::PostTool),
    ev("turn_end", Event::TurnEnd),
    ev("on_compaction", Event::Compaction),
    ev("notification", Event::Notification),
    ev("session_end", Event::SessionEnd),
];

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Clio,
    id: "clio",
    name: "clio-coder",
    version: None,
    events: EVENTS,
    tools: CANONICAL_TOOL_NAMES,
    other_tools: &[],
    mcp: None,
    project_env: &[],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    files: AgentFiles {
        project: Some(".clio-coder/hooks.yaml"),
        local: Some(".clio-coder/hooks.local.yaml"),
        user: None,
        read: &[".clio-coder/hooks.yaml"],
        overrides: &[],
        read_user: None,
    },
    default_timeout_ms: 2_000,
    timeout_bounds_ms: Some((100, 5_000)),
    failure: DefaultFailure::Open,
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
