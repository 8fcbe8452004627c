//! `--input JSON | @FILE | @-`: what the event carries.
//!
//! On a tool event (pre_tool, permission_request, post_tool) the value is the tool's input object
//! (`{"command": "ls"}`), or a whole payload when it has a `tool_input` (or `input`) field — then its other fields
//! (`tool_name`, `session_id`, `tool_response`, `is_error`, …) are read too, as a host would send them. On other
//! events it is an object of the event's fields (`{"prompt": "…"}` on turn_start, `{"source": "resume"}` on
//! session_start). Unknown fields are reported on stderr and ignored, with the nearest field name suggested.

use std::io::Read;
use std::path::Path;

use anyhow::{Context as _, Result, bail};
use hook_middleware::EventInput;
use hook_middleware::protocol::json_type_name;
use hook_types::{ParsedEvent, Scope, did_you_mean};
use serde_json::{Map, Value};

/// Builds the dispatch input from the command line.
pub fn event_input(
    event: &ParsedEvent,
    tool: Option<&str>,
    input: Option<&str>,
    session_id: Option<&str>,
    workspace: &Path,
) -> Result<EventInput> {
    let value = match input {
        None => None,
        Some(text) => Some(read_value(text)?),
    };
    build(event, tool, value, session_id, workspace, "--input")
}

/// Builds the dispatch input from an already parsed `input` value (`hook test` cases give one); `what` names it in
/// messages (`--input`, `input`).
pub fn build(
    event: &ParsedEvent,
    tool: Option<&str>,
    value: Option<Value>,
    session_id: Option<&str>,
    workspace: &Path,
    what: &str,
) -> Result<EventInput> {
    let tool_event = event.event.is_tool_event();
    let mut fields = match value {
        None => Map::new(),
        Some(Value::Object(object)) => {
            if tool_event && !(object.contains_key("tool_input") || object.contains_key("input")) {
                Map::from_iter([("tool_input".to_owned(), Value::Object(object))])
            } else {
                object
            }
        }
        Some(other) => bail!("{what} must be a JSON object, not {}", json_type_name(&other)),
    };
    // The payload's native spellings read as aliases of the host field names.
    for (alias, name) in [("tool", "tool_name"), ("input", "tool_input")] {
        if let Some(value) = fields.remove(alias) {
            fields.entry(name.to_owned()).or_insert(value);
        }
    }
    if let Some(tool) = tool {
        fields.insert("tool_name".to_owned(), Value::String(tool.to_owned()));
    }
    if let Some(id) = session_id {
        fields.insert("session_id".to_owned(), Value::String(id.to_owned()));
    }
    let known = FIELDS;
    for key in fields.keys().filter(|k| !known.contains(&k.as_str())) {
        let hint =
            did_you_mean(key, known.iter().copied()).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
        eprintln!("hook: warning: {what} field `{}` is not an event field{hint}; ignored", crate::render::safe(key));
    }
    fields.retain(|k, _| known.contains(&k.as_str()));
    fields.insert("event".to_owned(), Value::String(event.event.to_string()));
    let mut input: EventInput =
        serde_json::from_value(Value::Object(fields)).map_err(|err| anyhow::anyhow!("{what}: {err}"))?;
    if tool_event {
        if input.tool_name.is_none() {
            bail!("{} is a tool event: name the tool (--tool NAME, or `tool:` in a test case)", event.event);
        }
        input.tool_input.get_or_insert_with(|| Value::Object(Map::new()));
    }
    // What the alias implies: PostToolUseFailure is a failed post_tool, SubagentStop a subagent's turn_end.
    input.is_error |= event.filters.only_errors;
    input.subagent |= event.filters.scope == Scope::Subagent;
    if input.cwd.is_none() {
        input.cwd = Some(workspace.display().to_string());
    }
    Ok(input)
}

/// The fields an input may carry: every field of [`EventInput`] but the event itself (a test checks the list against
/// the type's serialized form, so a field renamed or added there cannot be accepted or refused silently).
const FIELDS: &[&str] = &[
    "session_id",
    "turn_id",
    "cwd",
    "transcript_path",
    "model",
    "permission_mode",
    "tool_name",
    "tool_aliases",
    "tool_input",
    "tool_use_id",
    "tool_response",
    "is_error",
    "content",
    "prompt",
    "source",
    "trigger",
    "stop_hook_active",
    "subagent",
    "agent_id",
    "agent_type",
];

/// The largest `--input` read from a file or stdin, as the bridge caps an agent's hook input.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads `JSON`, `@FILE` or `@-` (stdin) and parses it. A file or stdin is read up to [`MAX_INPUT_BYTES`]; a
/// directory or a device (`/dev/zero` never ends) is refused without reading, and a FIFO nobody writes to reads as
/// empty instead of blocking.
fn read_value(text: &str) -> Result<Value> {
    let (what, source) = match text.strip_prefix('@') {
        Some("-") => ("--input from stdin".to_owned(), read_capped(std::io::stdin().lock(), "--input @-")?),
        Some(path) => {
            let path = Path::new(path);
            let what = format!("--input file `{}`", crate::render::clean_line(&path.display().to_string()));
            let file = open_input(path, &what)?;
            (what.clone(), read_capped(file, &what)?)
        }
        None => ("--input".to_owned(), text.to_owned()),
    };
    serde_json::from_str(&source).map_err(|err| {
        anyhow::anyhow!("{what} is not valid JSON: {err} (expected an object such as '{{\"command\":\"ls\"}}')")
    })
}

/// Opens an `--input` file without blocking, refusing what is no file to read ([`crate::platform::open_input`]).
fn open_input(path: &Path, what: &str) -> Result<std::fs::File> {
    crate::platform::open_input(path, what)
}

/// Reads at most [`MAX_INPUT_BYTES`] as UTF-8 text; more is an error, not a reason to keep reading.
fn read_capped(reader: impl Read, what: &str) -> Result<String> {
    let mut bytes = Vec::new();
    reader.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes).with_context(|| format!("{what}: cannot read it"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        bail!("{what} is larger than {} MiB (the limit); nothing was dispatched", MAX_INPUT_BYTES / (1024 * 1024));
    }
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{what} is not valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::FIELDS;
    use hook_middleware::EventInput;

    #[test]
    fn the_field_list_is_every_field_of_an_event_input_but_the_event() {
        let empty = serde_json::to_value(EventInput::new(hook_types::Event::PreTool)).unwrap();
        let mut names: Vec<&str> =
            empty.as_object().unwrap().keys().map(String::as_str).filter(|k| *k != "event").collect();
        let mut fields = FIELDS.to_vec();
        names.sort_unstable();
        fields.sort_unstable();
        assert_eq!(names, fields);
    }
}
