//! The wire side of a hook's JSON output: one object read field by field, each known field type-checked, with the
//! field's path in every error, and the fields the dialect does not know collected (Codex rejects them, the others
//! ignore them). The domain step that turns this into effects and a decision is in `translate`.

use serde_json::{Map, Value};

/// Everything a hook's JSON object can say, across the dialects. Which fields are read at all depends on the
/// dialect and event (see [`Known`]); a field the dialect does not read stays `None` and its name goes to `unknown`.
#[derive(Debug, Default)]
pub(crate) struct HookOutput {
    /// Native and clio: `effects`, still as JSON (parsed strictly against the event later).
    pub effects: Option<Vec<Value>>,
    /// `decision` (top level).
    pub decision: Option<String>,
    /// `reason` (top level).
    pub reason: Option<String>,
    /// `continue`.
    pub continue_: Option<bool>,
    /// `stopReason`.
    pub stop_reason: Option<String>,
    /// `systemMessage`.
    pub system_message: Option<String>,
    /// `suppressOutput`.
    pub suppress_output: Option<bool>,
    /// `hookSpecificOutput`, when present.
    pub specific: Option<Specific>,
    /// Cursor: `permission`.
    pub permission: Option<String>,
    /// Cursor: `user_message`.
    pub user_message: Option<String>,
    /// Cursor: `agent_message`.
    pub agent_message: Option<String>,
    /// Cursor: `followup_message` (stop).
    pub followup_message: Option<String>,
    /// Cursor: `additional_context` (sessionStart), top level.
    pub additional_context: Option<String>,
    /// GitHub Copilot CLI's top-level answer (`permissionDecision`, `behavior`, `additionalContext`, …).
    pub copilot: CopilotTop,
    /// Crush's envelope beside the shared `decision` and `reason`.
    pub crush: CrushTop,
    /// Paths of fields the dialect does not know, in the order met (`hookSpecificOutput.foo`).
    pub unknown: Vec<String>,
}

/// GitHub Copilot CLI's flat answer fields (its `decision` and `reason` are the shared ones).
#[derive(Debug, Default)]
pub(crate) struct CopilotTop {
    /// `permissionDecision` (preToolUse).
    pub permission_decision: Option<String>,
    /// `permissionDecisionReason` (preToolUse).
    pub permission_decision_reason: Option<String>,
    /// `modifiedArgs` (preToolUse; any JSON, must be an object to become a rewrite).
    pub modified_args: Option<Value>,
    /// `behavior` (permissionRequest).
    pub behavior: Option<String>,
    /// `message` (permissionRequest).
    pub message: Option<String>,
    /// `interrupt` (permissionRequest).
    pub interrupt: bool,
    /// `additionalContext`, top level.
    pub additional_context: Option<String>,
}

/// Crush's envelope fields (its `decision` and `reason` are the shared ones).
#[derive(Debug, Default)]
pub(crate) struct CrushTop {
    /// `halt`: end the turn.
    pub halt: bool,
    /// `context`: a string or a list of strings.
    pub context: Option<Value>,
    /// `updated_input`: a patch shallow-merged over the tool's input.
    pub updated_input: Option<Value>,
}

/// `hookSpecificOutput`.
#[derive(Debug, Default)]
pub(crate) struct Specific {
    /// `hookEventName`.
    pub hook_event_name: Option<String>,
    /// `permissionDecision`.
    pub permission_decision: Option<String>,
    /// `permissionDecisionReason`.
    pub permission_decision_reason: Option<String>,
    /// `updatedInput` (any JSON; must be an object to become a rewrite).
    pub updated_input: Option<Value>,
    /// `additionalContext`.
    pub additional_context: Option<String>,
    /// `decision` (permission_request).
    pub decision: Option<PermissionDecisionWire>,
    /// Gemini: `tool_input` (BeforeTool rewrite, merged over the model's arguments).
    pub tool_input: Option<Map<String, Value>>,
    /// Codex: `updatedMCPToolOutput` present (unsupported there).
    pub updated_mcp_tool_output: bool,
}

/// `hookSpecificOutput.decision` of a permission request.
#[derive(Debug, Default)]
pub(crate) struct PermissionDecisionWire {
    /// `behavior`: `allow` or `deny` (checked by the translator, which knows the dialect's words).
    pub behavior: String,
    /// `message`.
    pub message: Option<String>,
    /// `updatedInput`.
    pub updated_input: Option<Value>,
    /// `updatedPermissions` present.
    pub updated_permissions: bool,
    /// `interrupt`.
    pub interrupt: bool,
}

/// Which fields one dialect reads on one event.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Known {
    /// Top-level fields.
    pub top: &'static [&'static str],
    /// Fields of `hookSpecificOutput` (empty: the dialect has none on this event).
    pub specific: &'static [&'static str],
    /// Fields of `hookSpecificOutput.decision`.
    pub decision: &'static [&'static str],
}

/// Why an output is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WireError {
    /// Not JSON at all (serde's message, with line and column).
    Json(String),
    /// JSON, but not the expected shape: a message naming the field and what was expected.
    Shape(String),
}

/// Parses `text` (already known to start with `{` or `[`) as one JSON object and reads the fields `known` lists.
pub(crate) fn parse(text: &str, known: Known) -> Result<HookOutput, WireError> {
    let value: Value = serde_json::from_str(text).map_err(|e| WireError::Json(e.to_string()))?;
    let Value::Object(object) = value else {
        return Err(WireError::Shape(format!("expected a JSON object, got {}", json_type_name(&value))));
    };
    let mut out = HookOutput::default();
    let top = Reader::new(&object, "", known.top);
    out.effects = top.array("effects")?;
    out.decision = top.string("decision")?;
    out.reason = top.string("reason")?;
    out.continue_ = top.bool("continue")?;
    out.stop_reason = top.string("stopReason")?;
    out.system_message = top.string("systemMessage")?;
    out.suppress_output = top.bool("suppressOutput")?;
    out.permission = top.string("permission")?;
    out.user_message = top.string("user_message")?;
    out.agent_message = top.string("agent_message")?;
    out.followup_message = top.string("followup_message")?;
    out.additional_context = top.string("additional_context")?;
    out.copilot = CopilotTop {
        permission_decision: top.string("permissionDecision")?,
        permission_decision_reason: top.string("permissionDecisionReason")?,
        modified_args: top.any("modifiedArgs"),
        behavior: top.string("behavior")?,
        message: top.string("message")?,
        interrupt: top.bool("interrupt")?.unwrap_or(false),
        additional_context: top.string("additionalContext")?,
    };
    out.crush = CrushTop {
        halt: top.bool("halt")?.unwrap_or(false),
        context: top.any("context"),
        updated_input: top.any("updated_input"),
    };
    if let Some(specific) = top.object("hookSpecificOutput")? {
        out.specific = Some(read_specific(specific, known, &mut out.unknown)?);
    }
    top.finish(&mut out.unknown);
    Ok(out)
}

fn read_specific(object: &Map<String, Value>, known: Known, unknown: &mut Vec<String>) -> Result<Specific, WireError> {
    let reader = Reader::new(object, "hookSpecificOutput.", known.specific);
    let mut specific = Specific {
        hook_event_name: reader.string("hookEventName")?,
        permission_decision: reader.string("permissionDecision")?,
        permission_decision_reason: reader.string("permissionDecisionReason")?,
        updated_input: reader.any("updatedInput"),
        additional_context: reader.string("additionalContext")?,
        decision: None,
        tool_input: reader.object("tool_input")?.cloned(),
        updated_mcp_tool_output: reader.any("updatedMCPToolOutput").is_some(),
    };
    if let Some(decision) = reader.object("decision")? {
        let inner = Reader::new(decision, "hookSpecificOutput.decision.", known.decision);
        specific.decision = Some(PermissionDecisionWire {
            behavior: inner.string("behavior")?.ok_or_else(|| {
                WireError::Shape(
                    "field `hookSpecificOutput.decision.behavior` is required (expected \"allow\" or \"deny\")".into(),
                )
            })?,
            message: inner.string("message")?,
            updated_input: inner.any("updatedInput"),
            updated_permissions: inner.any("updatedPermissions").is_some(),
            interrupt: inner.bool("interrupt")?.unwrap_or(false),
        });
        inner.finish(unknown);
    }
    reader.finish(unknown);
    Ok(specific)
}

/// Reads the known fields of one object, type-checked; remembers which keys it did not read.
struct Reader<'v> {
    object: &'v Map<String, Value>,
    prefix: &'static str,
    known: &'static [&'static str],
}

impl<'v> Reader<'v> {
    fn new(object: &'v Map<String, Value>, prefix: &'static str, known: &'static [&'static str]) -> Self {
        Reader { object, prefix, known }
    }

    /// The value of `key` if the dialect reads it and it is present and not `null` (`null` reads as absent, as
    /// serde's `Option` does in the agents' own parsers).
    fn get(&self, key: &str) -> Option<&'v Value> {
        if !self.known.contains(&key) {
            return None;
        }
        self.object.get(key).filter(|v| !v.is_null())
    }

    fn typed<T>(&self, key: &str, want: &str, pick: impl Fn(&'v Value) -> Option<T>) -> Result<Option<T>, WireError> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => pick(value).map(Some).ok_or_else(|| {
                WireError::Shape(format!("field `{}{key}` must be {want}, got {}", self.prefix, json_type_name(value)))
            }),
        }
    }

    fn string(&self, key: &str) -> Result<Option<String>, WireError> {
        self.typed(key, "a string", |v| v.as_str().map(str::to_owned))
    }

    fn bool(&self, key: &str) -> Result<Option<bool>, WireError> {
        self.typed(key, "a boolean", Value::as_bool)
    }

    fn object(&self, key: &str) -> Result<Option<&'v Map<String, Value>>, WireError> {
        self.typed(key, "an object", Value::as_object)
    }

    fn array(&self, key: &str) -> Result<Option<Vec<Value>>, WireError> {
        self.typed(key, "an array", |v| v.as_array().cloned())
    }

    fn any(&self, key: &str) -> Option<Value> {
        self.get(key).cloned()
    }

    fn finish(self, unknown: &mut Vec<String>) {
        for key in self.object.keys() {
            if !self.known.contains(&key.as_str()) {
                unknown.push(format!("{}{key}", self.prefix));
            }
        }
    }
}

/// A JSON value's type in words, for messages about JSON a hook printed or a host passed ("must be a string, got an
/// array").
///
/// ```
/// use hook_middleware::protocol::json_type_name;
/// assert_eq!(json_type_name(&serde_json::json!([1])), "an array");
/// assert_eq!(json_type_name(&serde_json::Value::Null), "null");
/// ```
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
