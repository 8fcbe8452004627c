//! The JSON Schema (draft 2020-12) of `hooks.yaml` / `hooks.json` (docs/declarations.md), built from the closed vocabularies
//! so it cannot drift from them: the events and their aliases, the protocols, and the closed effects. A host can
//! serve it or check files against it; `hook schema --config` prints it, and `schema/hooks.schema.json` is a copy.
//!
//! The schema checks structure — keys, types, closed values, exactly one of `argv` and `shell`, the fields each kind
//! takes — for editors and CI. What needs the file system or the other hooks (a `cwd` escaping the workspace, a
//! duplicate id, a regex that does not compile, an effect on an event it is not valid on) is the loader's job
//! ([`load`](crate::load) and its issues). clio-coder's camelCase spellings (`timeoutMs`) are accepted, as the
//! native reader accepts them.
//!
//! [`effect_schema`] is the one definition of an effect's shape: the config schema's `effect:` uses it, and so does
//! the output protocol's schema of a hook's printed `effects` (`hook_middleware::protocol::output_schema`).

use hook_types::{CANONICAL_EVENTS, Event, Protocol};
use serde_json::{Map, Value, json};

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The fields each kind takes beyond the common ones, canonical spelling first, then the camelCase alias.
const COMMAND_FIELDS: &[&str] = &["argv", "shell", "powershell", "cwd", "timeout_ms", "timeoutMs", "as", "env"];
const PROMPT_FIELDS: &[&str] = &["message", "severity"];
const EFFECT_FIELDS: &[&str] = &["effect"];
const EVALUATED_FIELDS: &[&str] = &["prompt", "model", "agent"];
const HTTP_FIELDS: &[&str] =
    &["url", "method", "headers", "format", "allowed_env_vars", "allowedEnvVars", "timeout_ms", "timeoutMs"];
const POLICY_FIELDS: &[&str] = &["files", "query", "timeout_ms", "timeoutMs"];

/// The JSON Schema (draft 2020-12) of a hook declarations file, `hooks.yaml` or `hooks.json` (docs/declarations.md), for a
/// host to serve or to check files against; `hook schema --config` prints it.
///
/// It checks structure: keys, types, closed values (events with every alias, protocols, effects), exactly one of
/// `argv` and `shell`, the fields each kind takes; clio-coder's camelCase spellings are accepted. What needs the file
/// system or the other hooks (a `cwd` escaping the workspace, a duplicate id, a regex that does not compile, an
/// effect on an event it is not valid on) is left to [`load`](crate::load) and its issues.
///
/// ```
/// let schema = hook_config::config_schema();
/// assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
/// let hook = &schema["$defs"]["hook"];
/// assert_eq!(hook["required"], serde_json::json!(["on", "kind"]));
/// assert!(hook["properties"]["timeout_ms"].is_object() && hook["properties"]["timeoutMs"].is_object());
/// assert_eq!(schema["$defs"]["effect"], hook_config::effect_schema());
/// ```
pub fn config_schema() -> Value {
    let mut properties = Map::new();
    common_properties(&mut properties);
    command_properties(&mut properties);
    prompt_and_effect_properties(&mut properties);
    evaluated_properties(&mut properties);
    http_properties(&mut properties);
    policy_properties(&mut properties);
    file_schema(hook_schema(properties))
}

/// The whole file: a list of hooks, or `{version: 1, hooks: [...]}`, with the definitions of a hook, an event and an
/// effect.
fn file_schema(hook: Value) -> Value {
    let events: Vec<String> = CANONICAL_EVENTS
        .iter()
        .map(|e| e.canonical_name().to_owned())
        .chain(Event::aliases().map(|(alias, _)| alias.to_owned()))
        .collect();
    let effect = effect_schema();
    json!({
        "$schema": DRAFT,
        "title": "hooks.yaml",
        "description": "Hook declarations (docs/declarations.md): a list of hooks, or `{version: 1, hooks: [...]}`; the \
                        managed file may add `only_managed: true` and `self_protection: false`.",
        "oneOf": [
            {"$ref": "#/$defs/hooks"},
            {
                "type": "object",
                "properties": {
                    "version": {"const": 1},
                    "hooks": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/hooks"}]},
                    "only_managed": {"type": "boolean"},
                    "onlyManaged": {"type": "boolean"},
                    "self_protection": {"type": "boolean"},
                    "selfProtection": {"type": "boolean"},
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

/// One hook: its `properties`, the two fields every hook needs, and the rules that tie fields to kinds.
fn hook_schema(properties: Map<String, Value>) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
        "required": ["on", "kind"],
        "allOf": [
            kind_rule("command", COMMAND_FIELDS, json!({"oneOf": [{"required": ["argv"]}, {"required": ["shell"]}, {"required": ["powershell"]}]})),
            kind_rule("prompt", PROMPT_FIELDS, json!({"required": ["message"]})),
            kind_rule("effect", EFFECT_FIELDS, json!({"required": ["effect"]})),
            kind_rule(
                "evaluated",
                &["prompt", "model", "agent", "timeout_ms", "timeoutMs"],
                json!({"required": ["prompt"]}),
            ),
            kind_rule("http", HTTP_FIELDS, json!({"required": ["url"]})),
            kind_rule("policy", POLICY_FIELDS, json!({"required": ["files", "query"]})),
            {
                "description": "A foreign event (`foreign:<Name>`) only on a hook that follows another agent's protocol.",
                "if": {"properties": {"on": {"type": "string", "pattern": "^foreign:"}}, "required": ["on"]},
                "then": {"required": ["protocol"], "properties": {"protocol": {"not": {"const": "native"}}}},
            },
            not_both("only_errors", "onlyErrors"),
            not_both("timeout_ms", "timeoutMs"),
            not_both("on_error", "onError"),
        ],
    })
}

/// Sets `schema` as the schema of each of `names` (a field and its camelCase alias).
fn add(hook: &mut Map<String, Value>, names: &[&str], schema: Value) {
    for name in names {
        hook.insert((*name).to_owned(), schema.clone());
    }
}

/// The fields every kind of hook takes: where it runs, on what, and how it fails.
fn common_properties(hook: &mut Map<String, Value>) {
    let protocols: Vec<&str> = Protocol::ALL.iter().map(|p| p.as_str()).collect();
    let boolean = json!({"type": "boolean"});
    add(
        hook,
        &["id"],
        json!({"description": "The merge key across origins.", "type": "string", "pattern": "^[a-z0-9._-]+$"}),
    );
    add(hook, &["on"], json!({"$ref": "#/$defs/event"}));
    add(
        hook,
        &["tools"],
        json!({"description": "Tool names (tool events only): canonical (shell, read, write, edit, glob, grep, ls, web_fetch, web_search, task, notebook_edit, todo, mcp:<server>:<tool>), or an agent's own spelling of one (Bash, run_shell_command), which means the canonical tool.", "type": "array",
               "items": {"type": "string", "minLength": 1}}),
    );
    add(
        hook,
        &["matcher"],
        json!({"description": "`*` or empty: all; `[A-Za-z0-9_ ,|-]` only: exact names split on `|` or `,`; \
                                else an unanchored regex.", "type": "string"}),
    );
    add(
        hook,
        &["if"],
        json!({"description": "Tool events only: a permission rule the call must match, tool names spelled as the \
                               hook's protocol spells them: `shell(git push *)`, `edit(/src/**)`, \
                               `web_fetch(domain:example.com)`, `mcp:github` (docs/declarations.md#if).",
               "type": "string", "minLength": 1}),
    );
    let pattern = json!({
        "type": "object", "additionalProperties": false, "required": ["program"],
        "properties": {
            "program": {"description": "Program names separated by `|`; `*` any run of characters.", "type": "string", "minLength": 1},
            "args": {"description": "Argument patterns, each matched by an argument of its own (normalised), in any order.",
                     "type": "array", "items": {"type": "string"}},
            "piped_from": {"description": "The program feeding this one in a pipeline.", "type": "string", "minLength": 1},
            "via": {"description": "A wrapper the command runs through (`xargs`, `find -exec`, `sudo`, `bash`).", "type": "string", "minLength": 1}
        }
    });
    let mut listed = pattern.clone();
    listed["properties"]["writes"] = json!({"description": "In `all`: the commands this entry matches may also write \
                                                             files through redirections (`sort -o`, `> out`).",
                                            "type": "boolean"});
    let all = json!({
        "type": "object", "additionalProperties": false, "required": ["all"],
        "properties": {"all": {"description": "The allow-list form: the hook's allow stands only when every command \
                                               of the line matches one of these.",
                               "type": "array", "minItems": 1, "items": listed}}
    });
    add(
        hook,
        &["command"],
        json!({"description": "Tool events only: patterns over the commands a shell call runs, its line read by a \
                               shell parser (docs/shell-commands.md): `{program: git, args: [push, \"--force|-f\"]}` \
                               or a list of them; `{all: [...]}` to approve only lines made of listed commands.",
               "oneOf": [pattern.clone(), {"type": "array", "minItems": 1, "items": pattern}, all]}),
    );
    add(
        hook,
        &["on_unknown", "onUnknown"],
        json!({"description": "With `command`: what a line that cannot be read statically means (default: deny when \
                               on_error is deny, else pass).", "enum": ["deny", "ask", "pass"]}),
    );
    add(
        hook,
        &["on_interpreter", "onInterpreter"],
        json!({"description": "With `command`: what an interpreter one-liner (`python -c`, `perl -e`) means when it \
                               is all the line holds that cannot be read (default: as on_unknown).",
               "enum": ["deny", "ask", "pass"]}),
    );
    add(hook, &["only_errors", "onlyErrors"], boolean.clone());
    add(hook, &["scope"], json!({"enum": ["main", "subagent", "any"]}));
    add(hook, &["sequential", "enabled"], boolean.clone());
    add(
        hook,
        &["async"],
        json!({"description": "Observer command hooks only (post_tool, session_start, session_end, notification, \
                               compaction): the dispatch does not wait for the hook; its receipt is written when it \
                               ends.", "type": "boolean"}),
    );
    add(hook, &["kind"], json!({"enum": ["command", "prompt", "effect", "evaluated", "http", "policy"]}));
    add(hook, &["protocol"], json!({"enum": protocols}));
    add(hook, &["on_error", "onError"], json!({"enum": ["deny", "ignore"]}));
}

/// A command hook's fields.
fn command_properties(hook: &mut Map<String, Value>) {
    let timeout = json!({
        "description": "Milliseconds; the host's limits clamp it at run time (100 … 600 000 by default).",
        "type": "integer",
        "minimum": 0,
    });
    add(
        hook,
        &["argv"],
        json!({"description": "The program and its arguments; no shell.", "type": "array", "minItems": 1,
               "items": {"type": "string"}}),
    );
    add(hook, &["shell"], json!({"description": "Run by `sh -c`.", "type": "string"}));
    add(
        hook,
        &["powershell"],
        json!({"description": "Run by PowerShell (`pwsh`; on Windows `powershell` when there is no `pwsh`).",
               "type": "string"}),
    );
    add(
        hook,
        &["cwd"],
        json!({"description": "Workspace-relative; must stay inside the workspace.", "type": "string"}),
    );
    add(hook, &["timeout_ms", "timeoutMs"], timeout);
    add(hook, &["as"], json!({"enum": ["annotate", "reminder"]}));
    add(hook, &["env"], json!({"type": "object", "additionalProperties": {"type": "string"}}));
}

/// A prompt hook's and an effect hook's fields.
fn prompt_and_effect_properties(hook: &mut Map<String, Value>) {
    add(hook, &["message"], json!({"description": "At most 2 000 characters; longer is cut.", "type": "string"}));
    add(hook, &["severity"], json!({"enum": ["info", "advisory", "warn", "hard-block"]}));
    add(hook, &["effect"], json!({"$ref": "#/$defs/effect"}));
}

/// An evaluated hook's own fields (its timeout is a command hook's).
fn evaluated_properties(hook: &mut Map<String, Value>) {
    add(
        hook,
        &["prompt"],
        json!({"description": "What the host's evaluator (a model) is asked about the event; it answers a decision \
                               and a reason.", "type": "string", "minLength": 1}),
    );
    add(
        hook,
        &["model"],
        json!({"description": "The model the author asks for; a hint for the host.", "type": "string"}),
    );
    add(hook, &["agent"], json!({"description": "The evaluator may use tools before it answers.", "type": "boolean"}));
}

/// An http hook's own fields.
fn http_properties(hook: &mut Map<String, Value>) {
    add(
        hook,
        &["url"],
        json!({"description": "Where an http hook POSTs the payload: http:// or https://, no credentials.",
               "type": "string", "pattern": "^https?://[^@/?#\\s]+([/?#]\\S*)?$"}),
    );
    add(hook, &["method"], json!({"enum": ["POST"]}));
    add(
        hook,
        &["headers"],
        json!({"description": "Header name to value; a value may read environment variables ($NAME, ${NAME}). \
                                Values are never logged.", "type": "object",
               "propertyNames": {"pattern": "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"}, "additionalProperties": {"type": "string"}}),
    );
    add(
        hook,
        &["format"],
        json!({"description": "The body and answer of an http hook: native, claude, or opa (`{\"input\": …}` → \
                                `{\"result\": …}`).", "enum": ["native", "claude", "opa"]}),
    );
    add(
        hook,
        &["allowed_env_vars", "allowedEnvVars"],
        json!({"description": "The only variables header values may read (others are sent empty).", "type": "array",
               "items": {"type": "string", "minLength": 1}}),
    );
}

/// A policy hook's own fields.
fn policy_properties(hook: &mut Map<String, Value>) {
    add(
        hook,
        &["files"],
        json!({"description": "The Rego files of a policy hook, relative to the origin root.", "type": "array",
               "minItems": 1, "items": {"type": "string", "minLength": 1}}),
    );
    add(
        hook,
        &["query"],
        json!({"description": "The rule a policy hook asks, e.g. `data.hooks.pre_tool.decision`.", "type": "string",
               "pattern": "^data(\\.[A-Za-z_][A-Za-z0-9_]*)+$"}),
    );
}

/// For hooks of `kind`: `required` holds, and no field of another kind is set.
fn kind_rule(kind: &str, own: &[&str], required: Value) -> Value {
    let others: Vec<Value> = COMMAND_FIELDS
        .iter()
        .chain(PROMPT_FIELDS)
        .chain(EFFECT_FIELDS)
        .chain(EVALUATED_FIELDS)
        .chain(HTTP_FIELDS)
        .chain(POLICY_FIELDS)
        .filter(|f| !own.contains(f))
        .fold(Vec::<&str>::new(), |mut seen, f| {
            if !seen.contains(f) {
                seen.push(f);
            }
            seen
        })
        .into_iter()
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

/// The JSON Schema of one effect: a `oneOf` over the closed kinds of docs/effects.md, each with exactly its fields (the
/// strictness of [`Effect::from_json`](hook_types::Effect::from_json): unknown kinds and fields are refused).
///
/// ```
/// let effect = hook_config::effect_schema();
/// let kinds: Vec<&str> =
///     effect["oneOf"].as_array().unwrap().iter().map(|v| v["properties"]["kind"]["const"].as_str().unwrap()).collect();
/// assert_eq!(kinds, hook_types::effect_kinds().collect::<Vec<_>>());
/// ```
pub fn effect_schema() -> Value {
    let text = || json!({"type": "string"});
    let kind = |kind: &str, properties: Value, required: &[&str]| {
        let mut properties = properties;
        properties["kind"] = json!({"const": kind});
        let mut required: Vec<&str> = required.to_vec();
        required.insert(0, "kind");
        json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
    };
    json!({"oneOf": [
        kind("inject_reminder", json!({"message": text(), "severity": {"enum": ["info", "advisory", "warn", "hard-block"]}}), &["message"]),
        kind("annotate_tool_result", json!({"message": text(), "severity": {"enum": ["info", "warn"]}}), &["message"]),
        kind("block_tool", json!({"reason": text(), "severity": {"const": "hard-block"}}), &["reason"]),
        kind("allow_tool", json!({"reason": text()}), &[]),
        kind("ask_user", json!({"reason": text()}), &[]),
        kind("rewrite_tool_input", json!({"input": {"type": "object"}}), &["input"]),
        kind("protect_path", json!({"path": text(), "reason": text()}), &["path", "reason"]),
        kind("require_tool", json!({"tool_name": text()}), &["tool_name"]),
        kind("lock_tools", json!({}), &[]),
        kind("request_continuation", json!({"message": text()}), &["message"]),
        kind("block_turn", json!({"reason": text()}), &["reason"]),
        kind("halt", json!({"reason": text()}), &["reason"]),
        kind("notify_operator", json!({"message": text(), "key": text()}), &["message", "key"]),
    ]})
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// The schema lists its keys by hand; the reader's table is the truth. A key added to one and not the other
    /// would make editors flag valid files, or pass files the reader refuses.
    #[test]
    fn a_hook_in_the_schema_takes_exactly_the_keys_the_reader_knows() {
        let schema = super::config_schema();
        let listed: BTreeSet<&str> =
            schema["$defs"]["hook"]["properties"].as_object().unwrap().keys().map(String::as_str).collect();
        let known: BTreeSet<&str> =
            crate::formats::HOOK_KEYS.iter().flat_map(|(snake, camel)| [*snake, *camel]).collect();
        assert_eq!(listed, known);
        let by_kind: BTreeSet<&str> = super::COMMAND_FIELDS
            .iter()
            .chain(super::PROMPT_FIELDS)
            .chain(super::EFFECT_FIELDS)
            .chain(super::EVALUATED_FIELDS)
            .chain(super::HTTP_FIELDS)
            .chain(super::POLICY_FIELDS)
            .copied()
            .collect();
        assert!(by_kind.is_subset(&known), "a kind's field the reader does not know: {by_kind:?}");
    }
}
