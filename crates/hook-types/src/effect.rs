//! Effects (docs/effects.md): the closed set of things a hook can ask of the host.
//!
//! Parsing is strict: an unknown `kind` or an unknown field is rejected with a message naming it and the nearest
//! valid name. clio-coder's camelCase spellings (`toolName`, `injectReminder`) are read as aliases; effects are
//! always written snake_case.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::Event;
use crate::suggest::did_you_mean;

/// How loudly an injected reminder speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Severity {
    /// Background information (the default).
    #[default]
    #[serde(rename = "info")]
    Info,
    /// A suggestion.
    #[serde(rename = "advisory")]
    Advisory,
    /// A warning.
    #[serde(rename = "warn")]
    Warn,
    /// A hard rule; spelled `hard-block`.
    #[serde(rename = "hard-block")]
    HardBlock,
}

/// The severities a tool-result annotation may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnnotationSeverity {
    /// Information (the default).
    #[default]
    Info,
    /// A warning.
    Warn,
}

/// The one severity a `block_tool` carries: `hard-block`. Absent reads as present.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum HardBlock {
    /// `hard-block`.
    #[default]
    #[serde(rename = "hard-block")]
    HardBlock,
}

/// One thing a hook asks of the host. The set is closed; see the table in docs/effects.md.
///
/// ```
/// use hook_types::{Effect, Event};
/// let effect: Effect = serde_json::from_str(r#"{"kind":"block_tool","reason":"no rm -rf"}"#).unwrap();
/// assert!(effect.valid_on(&Event::PreTool) && !effect.widens());
/// let err = serde_json::from_str::<Effect>(r#"{"kind":"block_tool","reasn":"x"}"#).unwrap_err();
/// assert!(err.to_string().contains("unknown field `reasn` in effect `block_tool` (did you mean `reason`?)"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Effect {
    /// Add text to the model's context.
    InjectReminder {
        /// The text.
        message: String,
        /// How loudly.
        #[serde(default)]
        severity: Severity,
    },
    /// Append a note to the tool result the model sees.
    AnnotateToolResult {
        /// The note.
        message: String,
        /// How loudly.
        #[serde(default)]
        severity: AnnotationSeverity,
    },
    /// Deny the tool call.
    BlockTool {
        /// Why; shown to the model.
        reason: String,
        /// Always `hard-block`.
        #[serde(default)]
        severity: HardBlock,
    },
    /// Explicitly allow the call, skipping the human approver; never overrides a deny.
    AllowTool {
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Force the human approver even where the host would auto-approve.
    AskUser {
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Replace the tool's whole input; the host's guards re-check it.
    RewriteToolInput {
        /// The new input.
        input: Map<String, Value>,
    },
    /// The host must refuse writes to `path`.
    ProtectPath {
        /// The protected path.
        path: String,
        /// Why.
        reason: String,
    },
    /// The host must make the model call this tool.
    RequireTool {
        /// The tool.
        tool_name: String,
    },
    /// Disable tool calls for the rest of the turn.
    LockTools {},
    /// Keep the run going with this message.
    RequestContinuation {
        /// What the model is told.
        message: String,
    },
    /// Drop the user's prompt and show the reason.
    BlockTurn {
        /// Why.
        reason: String,
    },
    /// Stop the agent's run after this event; on a gate it also denies.
    Halt {
        /// Why.
        reason: String,
    },
    /// Show the operator (not the model) a message.
    NotifyOperator {
        /// The message.
        message: String,
        /// De-duplicates repeated notices.
        key: String,
    },
}

/// A field's wire name and its camelCase alias, if it has one.
type FieldName = (&'static str, Option<&'static str>);

/// Every effect kind with its fields.
const KINDS: &[(&str, &[FieldName])] = &[
    ("inject_reminder", &[("message", None), ("severity", None)]),
    ("annotate_tool_result", &[("message", None), ("severity", None)]),
    ("block_tool", &[("reason", None), ("severity", None)]),
    ("allow_tool", &[("reason", None)]),
    ("ask_user", &[("reason", None)]),
    ("rewrite_tool_input", &[("input", None)]),
    ("protect_path", &[("path", None), ("reason", None)]),
    ("require_tool", &[("tool_name", Some("toolName"))]),
    ("lock_tools", &[]),
    ("request_continuation", &[("message", None)]),
    ("block_turn", &[("reason", None)]),
    ("halt", &[("reason", None)]),
    ("notify_operator", &[("message", None), ("key", None)]),
];

/// Every effect kind's wire name, in the order of docs/effects.md.
pub fn effect_kinds() -> impl Iterator<Item = &'static str> {
    KINDS.iter().map(|(kind, _)| *kind)
}

/// The error returned by [`Effect::from_json`]: the effect is not one of the closed set, names the culprit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EffectError {
    /// Not a JSON object.
    #[error("an effect must be an object with a `kind`")]
    NotAnObject,
    /// No `kind` field, or not a string.
    #[error("an effect needs a string `kind`")]
    MissingKind,
    /// A kind outside the closed set.
    #[error("unknown effect kind `{kind}`{}", hint(suggestion))]
    UnknownKind {
        /// As written.
        kind: String,
        /// The nearest valid kind.
        suggestion: Option<String>,
    },
    /// A field the kind does not have.
    #[error("unknown field `{field}` in effect `{kind}`{}", hint(suggestion))]
    UnknownField {
        /// The effect kind.
        kind: String,
        /// The field as written.
        field: String,
        /// The nearest valid field.
        suggestion: Option<String>,
    },
    /// A known field of the wrong type, or a missing required field.
    #[error("invalid effect `{kind}`: {message}")]
    Invalid {
        /// The effect kind.
        kind: String,
        /// serde's description.
        message: String,
    },
}

fn hint(suggestion: &Option<String>) -> String {
    suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
}

fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl Effect {
    /// Parses one effect from JSON, strictly (see the module docs).
    ///
    /// ```
    /// use hook_types::{Effect, EffectError};
    /// let value = serde_json::json!({"kind": "requireTool", "toolName": "run_tests"});
    /// assert_eq!(Effect::from_json(&value).unwrap(), Effect::RequireTool { tool_name: "run_tests".into() });
    /// let typo = serde_json::json!({"kind": "blok_tool", "reason": "x"});
    /// assert!(matches!(Effect::from_json(&typo), Err(EffectError::UnknownKind { .. })));
    /// ```
    pub fn from_json(value: &Value) -> Result<Effect, EffectError> {
        let object = value.as_object().ok_or(EffectError::NotAnObject)?;
        let written = object.get("kind").and_then(Value::as_str).ok_or(EffectError::MissingKind)?;
        let kind = snake_case(written);
        let (kind, fields) = KINDS.iter().find(|(k, _)| *k == kind).ok_or_else(|| EffectError::UnknownKind {
            kind: written.to_owned(),
            suggestion: did_you_mean(written, effect_kinds()).map(str::to_owned),
        })?;
        let mut normalized = Map::with_capacity(object.len());
        for (key, field_value) in object {
            if key == "kind" {
                continue;
            }
            let field = fields.iter().find(|(name, alias)| name == key || *alias == Some(key.as_str()));
            let Some((name, _)) = field else {
                let names = fields.iter().map(|(name, _)| *name);
                return Err(EffectError::UnknownField {
                    kind: (*kind).into(),
                    field: key.clone(),
                    suggestion: did_you_mean(key, names).map(str::to_owned),
                });
            };
            normalized.insert((*name).into(), field_value.clone());
        }
        let mut f = Fields { kind, map: normalized };
        Ok(match *kind {
            "inject_reminder" => Effect::InjectReminder {
                message: f.required("message")?,
                severity: f.take("severity")?.unwrap_or_default(),
            },
            "annotate_tool_result" => Effect::AnnotateToolResult {
                message: f.required("message")?,
                severity: f.take("severity")?.unwrap_or_default(),
            },
            "block_tool" => {
                Effect::BlockTool { reason: f.required("reason")?, severity: f.take("severity")?.unwrap_or_default() }
            }
            "allow_tool" => Effect::AllowTool { reason: f.optional("reason")? },
            "ask_user" => Effect::AskUser { reason: f.optional("reason")? },
            "rewrite_tool_input" => Effect::RewriteToolInput { input: f.required("input")? },
            "protect_path" => Effect::ProtectPath { path: f.required("path")?, reason: f.required("reason")? },
            "require_tool" => Effect::RequireTool { tool_name: f.required("tool_name")? },
            "lock_tools" => Effect::LockTools {},
            "request_continuation" => Effect::RequestContinuation { message: f.required("message")? },
            "block_turn" => Effect::BlockTurn { reason: f.required("reason")? },
            "halt" => Effect::Halt { reason: f.required("reason")? },
            "notify_operator" => Effect::NotifyOperator { message: f.required("message")?, key: f.required("key")? },
            // Every kind of KINDS has its arm above; this keeps a new kind without one an error, never a panic.
            _ => return Err(EffectError::UnknownKind { kind: written.to_owned(), suggestion: None }),
        })
    }

    /// The wire name of this effect's kind (`block_tool`).
    pub fn kind(&self) -> &'static str {
        match self {
            Effect::InjectReminder { .. } => "inject_reminder",
            Effect::AnnotateToolResult { .. } => "annotate_tool_result",
            Effect::BlockTool { .. } => "block_tool",
            Effect::AllowTool { .. } => "allow_tool",
            Effect::AskUser { .. } => "ask_user",
            Effect::RewriteToolInput { .. } => "rewrite_tool_input",
            Effect::ProtectPath { .. } => "protect_path",
            Effect::RequireTool { .. } => "require_tool",
            Effect::LockTools {} => "lock_tools",
            Effect::RequestContinuation { .. } => "request_continuation",
            Effect::BlockTurn { .. } => "block_turn",
            Effect::Halt { .. } => "halt",
            Effect::NotifyOperator { .. } => "notify_operator",
        }
    }

    /// Whether the effect may be emitted on `event` (docs/effects.md#the-effect-kinds). Foreign events accept only
    /// `notify_operator`: their hooks' own answers are kept in run summaries for the bridge (docs/events.md#other-agents-events).
    pub fn valid_on(&self, event: &Event) -> bool {
        use Event::*;
        match self {
            Effect::InjectReminder { .. } | Effect::Halt { .. } => !matches!(event, SessionEnd | Foreign(_)),
            Effect::AnnotateToolResult { .. } => *event == PostTool,
            Effect::BlockTool { .. } | Effect::AllowTool { .. } | Effect::RewriteToolInput { .. } => {
                matches!(event, PreTool | PermissionRequest)
            }
            Effect::AskUser { .. } => *event == PreTool,
            Effect::ProtectPath { .. } => matches!(event, PreTool | PostTool),
            Effect::RequireTool { .. } => matches!(event, TurnStart | TurnEnd),
            Effect::LockTools {} => matches!(event, TurnStart | PreTool),
            Effect::RequestContinuation { .. } => *event == TurnEnd,
            Effect::BlockTurn { .. } => *event == TurnStart,
            Effect::NotifyOperator { .. } => true,
        }
    }

    /// Whether the effect can widen what the agent does (docs/effects.md#the-effect-kinds). A prompt or effect hook from a
    /// non-trusted origin that can widen needs trust; one that only narrows runs untrusted.
    pub fn widens(&self) -> bool {
        matches!(
            self,
            Effect::InjectReminder { .. }
                | Effect::AnnotateToolResult { .. }
                | Effect::AllowTool { .. }
                | Effect::RewriteToolInput { .. }
                | Effect::RequireTool { .. }
                | Effect::RequestContinuation { .. }
        )
    }
}

impl<'de> Deserialize<'de> for Effect {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Effect::from_json(&value).map_err(serde::de::Error::custom)
    }
}

/// An effect's fields by wire name, already checked against its kind's list, taken out one at a time with their
/// types checked.
struct Fields {
    kind: &'static str,
    map: Map<String, Value>,
}

impl Fields {
    /// The field, if present; a value of the wrong type is an error naming the field.
    fn take<T: serde::de::DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, EffectError> {
        let Some(value) = self.map.remove(name) else { return Ok(None) };
        serde_json::from_value(value)
            .map(Some)
            .map_err(|err| EffectError::Invalid { kind: self.kind.into(), message: format!("field `{name}`: {err}") })
    }

    /// A field that must be present.
    fn required<T: serde::de::DeserializeOwned>(&mut self, name: &str) -> Result<T, EffectError> {
        self.take(name)?
            .ok_or_else(|| EffectError::Invalid { kind: self.kind.into(), message: format!("missing field `{name}`") })
    }

    /// An optional field, where `null` reads as absent.
    fn optional<T: serde::de::DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, EffectError> {
        Ok(self.take::<Option<T>>(name)?.flatten())
    }
}
