//! The JSON Schema (draft 2020-12) of `hooks.yaml` / `hooks.json` (DESIGN §4.1), built from the closed vocabularies
//! so it cannot drift from them: the events and their aliases, the protocols, and the effect schema the output
//! protocol publishes.
//!
//! The schema checks structure — keys, types, closed values, exactly one of `argv` and `shell`, the fields each kind
//! takes — for editors and CI. What needs the file system or the other hooks (a `cwd` escaping the workspace, a
//! duplicate id, a regex that does not compile, an effect on an event it is not valid on) is `hook validate`'s job.
//! clio-coder's camelCase spellings (`timeoutMs`) are accepted, as the native reader accepts them.

use hook_types::{CANONICAL_EVENTS, Event, Protocol};
use serde_json::{Map, Value, json};

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The fields each kind takes beyond the common ones, canonical spelling first, then the camelCase alias.
const COMMAND_FIELDS: &[&str] = &["argv", "shell", "cwd", "timeout_ms", "timeoutMs", "as", "env"];
const PROMPT_FIELDS: &[&str] = &["message", "severity"];
const EFFECT_FIELDS: &[&str] = &["effect"];

/// The config schema. Its effect schema is the output protocol's, so a hook's `effect:` and a hook's printed
/// `effects` are held to one definition.
pub fn config_schema() -> Value {
    let output = hook_middleware::protocol::output_schema();
    let effect = output["properties"]["effects"]["items"].clone();
    let events: Vec<String> = CANONICAL_EVENTS
        .iter()
        .map(|e| e.canonical_name().to_owned())
        .chain(Event::aliases().map(|(alias, _)| alias.to_owned()))
        .collect();
    let protocols: Vec<&str> = Protocol::ALL.iter().map(|p| p.as_str()).collect();
    let boolean = json!({"type": "boolean"});
    let timeout = json!({
        "description": "Milliseconds; the host's limits clamp it at run time (100 … 600 000 by default).",
        "type": "integer",
        "minimum": 0,
    });
    let mut hook = Map::new();
    let mut add = |names: &[&str], schema: Value| {
        for name in names {
            hook.insert((*name).to_owned(), schema.clone());
        }
    };
    add(
        &["id"],
        json!({"description": "The merge key across origins.", "type": "string", "pattern": "^[a-z0-9._-]+$"}),
    );
    add(&["on"], json!({"$ref": "#/$defs/event"}));
    add(
        &["tools"],
        json!({"description": "Exact tool names (tool events only).", "type": "array",
               "items": {"type": "string", "minLength": 1}}),
    );
    add(
        &["matcher"],
        json!({"description": "`*` or empty: all; `[A-Za-z0-9_ ,|-]` only: exact names split on `|` or `,`; \
                                else an unanchored regex.", "type": "string"}),
    );
    add(&["only_errors", "onlyErrors"], boolean.clone());
    add(&["scope"], json!({"enum": ["main", "subagent", "any"]}));
    add(&["sequential", "enabled"], boolean);
    add(&["kind"], json!({"enum": ["command", "prompt", "effect"]}));
    add(&["protocol"], json!({"enum": protocols}));
    add(&["on_error", "onError"], json!({"enum": ["deny", "ignore"]}));
    add(
        &["argv"],
        json!({"description": "The program and its arguments; no shell.", "type": "array", "minItems": 1,
               "items": {"type": "string"}}),
    );
    add(&["shell"], json!({"description": "Run by `sh -c`.", "type": "string"}));
    add(&["cwd"], json!({"description": "Workspace-relative; must stay inside the workspace.", "type": "string"}));
    add(&["timeout_ms", "timeoutMs"], timeout);
    add(&["as"], json!({"enum": ["annotate", "reminder"]}));
    add(&["env"], json!({"type": "object", "additionalProperties": {"type": "string"}}));
    add(&["message"], json!({"description": "At most 2 000 characters; longer is cut.", "type": "string"}));
    add(&["severity"], json!({"enum": ["info", "advisory", "warn", "hard-block"]}));
    add(&["effect"], json!({"$ref": "#/$defs/effect"}));

    let hook = json!({
        "type": "object",
        "properties": hook,
        "additionalProperties": false,
        "required": ["on", "kind"],
        "allOf": [
            kind_rule("command", COMMAND_FIELDS, json!({"oneOf": [{"required": ["argv"]}, {"required": ["shell"]}]})),
            kind_rule("prompt", PROMPT_FIELDS, json!({"required": ["message"]})),
            kind_rule("effect", EFFECT_FIELDS, json!({"required": ["effect"]})),
            {
                "description": "A foreign event (`foreign:<Name>`) only on a hook that follows another agent's protocol.",
                "if": {"properties": {"on": {"type": "string", "pattern": "^foreign:"}}, "required": ["on"]},
                "then": {"required": ["protocol"], "properties": {"protocol": {"not": {"const": "native"}}}},
            },
            not_both("only_errors", "onlyErrors"),
            not_both("timeout_ms", "timeoutMs"),
            not_both("on_error", "onError"),
        ],
    });
    json!({
        "$schema": DRAFT,
        "title": "hooks.yaml",
        "description": "Hook declarations (DESIGN §4.1): a list of hooks, or `{version: 1, hooks: [...]}`; the \
                        managed file may add `only_managed: true`.",
        "oneOf": [
            {"$ref": "#/$defs/hooks"},
            {
                "type": "object",
                "properties": {
                    "version": {"const": 1},
                    "hooks": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/hooks"}]},
                    "only_managed": {"type": "boolean"},
                    "onlyManaged": {"type": "boolean"},
                },
                "required": ["hooks"],
                "additionalProperties": false,
            },
        ],
        "$defs": {
            "hooks": {"type": "array", "items": {"$ref": "#/$defs/hook"}},
            "hook": hook,
            "event": {
                "description": "A canonical event, an agent's alias, or `foreign:<Name>`.",
                "anyOf": [{"enum": events}, {"type": "string", "pattern": "^foreign:.+$"}],
            },
            "effect": effect,
        },
    })
}

/// For hooks of `kind`: `required` holds, and no field of another kind is set.
fn kind_rule(kind: &str, own: &[&str], required: Value) -> Value {
    let others: Vec<Value> = COMMAND_FIELDS
        .iter()
        .chain(PROMPT_FIELDS)
        .chain(EFFECT_FIELDS)
        .filter(|f| !own.contains(f))
        .map(|f| json!({"required": [f]}))
        .collect();
    json!({
        "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
        "then": {"allOf": [required, {"not": {"anyOf": others}}]},
    })
}

/// The same field in both spellings is refused by the reader.
fn not_both(snake: &str, camel: &str) -> Value {
    json!({"not": {"required": [snake, camel]}})
}
