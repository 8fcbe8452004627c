//! mecha: its entry in the agent table, with its event and tool names.

use super::*;

pub(super) const AGENT: Agent = Agent {
    protocol: Protocol::Mecha,
    id: "mecha",
    name: "mecha",
    version: None,
    events: native::EVENTS,
    tools: CANONICAL_TOOL_NAMES,
    other_tools: &[],
    mcp: None,
    project_env: &[],
    session_env: None,
    cwd_env: None,
    tool_env: None,
    // mecha and clio-coder document no user-level location of their own; `~/.mecha/config.toml` and
    // `~/.clio-coder/hooks.yaml` mirror their project files.
    files: AgentFiles {
        project: None,
        local: None,
        user: None,
        read: &[".mecha/config.toml"],
        overrides: &[],
        read_user: None,
    },
    default_timeout_ms: 10_000,
    timeout_bounds_ms: None,
    failure: DefaultFailure::ClosedOnPreTool,
    timeout_unit: TimeUnit::Seconds,
    handler: HandlerShape::NotInstallable,
    posix_shell: true,
    answers: Answers { ask: false, continuation: false, system_message: false, ..ALL_ANSWERS },
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
