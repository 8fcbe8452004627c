//! The closed vocabularies of the hook engine: events, effects, severities, origins, protocols (each with its
//! default failure policy), the agent table and the tool vocabulary, verdicts, [`Limits`], run summaries and receipts, and the pure folds of docs/effects.md#verdicts.
//!
//! This is the small, rarely changing crate every other part of the engine — and every host — builds on. It depends
//! on serde, serde_json and thiserror only; it does no I/O, has no async, knows nothing about YAML or subprocesses.
//!
//! ```
//! use hook_types::{gate_fold, Decision, Effect, Event, Verdict};
//!
//! // An agent alias parses to its canonical event…
//! let event = Event::parse("PreToolUse").unwrap().event;
//! assert_eq!(event, Event::PreTool);
//!
//! // …effects are a closed, validated set…
//! let effect: Effect = serde_json::from_str(r#"{"kind":"ask_user","reason":"touches prod"}"#).unwrap();
//! assert!(effect.valid_on(&event));
//!
//! // …and the gate fold reads decisions in precedence order: any deny wins.
//! let folded = gate_fold(&[Decision::Ask { reason: None }, Decision::Deny { reason: "no".into() }]);
//! assert_eq!(folded.verdict, Verdict::Deny);
//! ```
#![forbid(unsafe_code)]

mod agent;
mod effect;
mod event;
mod limits;
mod origin;
mod suggest;
mod summary;
mod text;
mod verdict;

pub use agent::{
    AGENTS, Agent, AgentEvent, AgentFiles, AgentPath, Answers, CANONICAL_TOOLS, ContinuationCap, DefaultFailure,
    FolderTrust, HandlerShape, InstallScope, MatcherUse, McpSpelling, OffSwitch, OffWhen, Protocol, Reach, TimeUnit,
    ToolEnv, TrustShape, Vocabulary, WireShape, canonical_tool, static_canonical_tool, suggest_tool, tool_name_for,
};
pub use effect::{AnnotationSeverity, Effect, EffectError, HardBlock, Severity, effect_kinds};
pub use event::{CANONICAL_EVENTS, Event, EventClass, EventFilters, ParsedEvent, Scope, UnknownEvent};
pub use limits::Limits;
pub use origin::{HookKind, OnError, Origin};
pub use suggest::did_you_mean;
pub use summary::{
    Bound, EntryKind, Outcome, OutputEntry, Receipt, Replay, RunStatus, RunSummary, format_rfc3339_millis,
};
pub use text::{needs_escape, terminal_escaped};
pub use verdict::{Decision, FoldOutcome, Verdict, gate_fold, permission_fold};
