//! The adapters to coding agents that run their own hooks: the bridge (an agent's hook input in, that agent's answer
//! out), `install`/`uninstall` (putting the bridge into an agent's settings and moving the agent's own hooks into
//! the native file) and `import` (an agent's hooks rewritten as native declarations with the same hashes).
//!
//! Depends on `hook-types` (the agent table), `hook-config` (loading, trust) and `hook-middleware` (dispatch and the
//! output protocol). A host that only embeds the pipeline never needs it: neither `hook-config` nor
//! `hook-middleware` depends on this crate.
//!
//! ```
//! use hook_agents::bridge::parse_input;
//! use hook_agents::install::Agent;
//! use hook_types::Event;
//!
//! // Gemini CLI's hook input, read as this engine's event and tool.
//! let stdin = br#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#;
//! let read = parse_input(Agent::Gemini, stdin).unwrap();
//! assert_eq!(read.input.event, Event::PreTool);
//! ```
//!
//! # Features
//!
//! `policy` and `http` (default) and `otel`, each turning on hook-middleware's feature of the same name: the bridge
//! runs what the loaded files declare, with what the pipeline was built with (see hook-middleware's front page).
#![forbid(unsafe_code)]

pub mod bridge;
pub mod doctor;
pub mod import;
pub mod install;
