//! The content hash of a declaration (DESIGN §4.5): a contract across versions.
//!
//! The hash covers what a hook *means* — its event, filters, failure policy, protocol and spec — and nothing about
//! where or how it was written: not its `id`, not `enabled`, not the file's format, key order, comments or aliases,
//! not the workspace it sits in. Two declarations with the same hash behave the same, so reformatting a file keeps
//! its trust and `hook import` keeps hashes unchanged.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::model::{HookDecl, HookSpec, Program};

/// The object [`content_hash`] hashes, before canonical serialization: `{kind, on, tools, matcher, only_errors?,
/// scope?, sequential?, on_error, protocol, spec}` with keys sorted recursively.
///
/// `tools` and `matcher` are `null` when absent (a `*` or empty matcher is stored as absent); `only_errors`, `scope`
/// and `sequential` are omitted at their defaults; `spec` holds the values as declared, before the host's clamp, with
/// `cwd` workspace-relative as written.
///
/// ```
/// # use hook_config::{parse_str, canonical_hash_input, FileContext, Format};
/// # use hook_types::Origin;
/// # use std::path::Path;
/// let cx = FileContext { origin: Origin::Project, workspace: Path::new("/ws"), root: Path::new("/ws"), source_id: None };
/// let yaml = "- {on: turn_start, kind: prompt, message: Run the tests before you commit.}";
/// let load = parse_str(yaml, Path::new("/ws/.hooks/hooks.yaml"), Format::Native, &cx);
/// let input = canonical_hash_input(&load.hooks[0]);
/// assert_eq!(input["spec"]["severity"], "info");
/// assert!(input["matcher"].is_null());
/// ```
pub fn canonical_hash_input(decl: &HookDecl) -> Value {
    let mut object = Map::new();
    object.insert("kind".into(), decl.kind().as_str().into());
    object.insert("on".into(), decl.event.to_string().into());
    object.insert("tools".into(), decl.tools.as_ref().map_or(Value::Null, |tools| json!(tools)));
    object.insert("matcher".into(), decl.matcher.as_ref().map_or(Value::Null, |m| m.pattern.clone().into()));
    if decl.filters.only_errors {
        object.insert("only_errors".into(), true.into());
    }
    if decl.filters.scope != hook_types::Scope::Main {
        object.insert("scope".into(), json!(decl.filters.scope));
    }
    if decl.sequential {
        object.insert("sequential".into(), true.into());
    }
    object.insert("on_error".into(), json!(decl.on_error));
    object.insert("protocol".into(), decl.protocol.as_str().into());
    object.insert("spec".into(), spec_value(&decl.spec));
    sorted(Value::Object(object))
}

/// The content hash of a declaration (DESIGN §4.5): the first 16 lowercase hex characters of the sha256 of the
/// canonical JSON of [`canonical_hash_input`]. Loading stores it in [`HookDecl::hash`].
///
/// ```
/// # use hook_config::{parse_str, content_hash, FileContext, Format};
/// # use hook_types::Origin;
/// # use std::path::Path;
/// let cx = FileContext { origin: Origin::Project, workspace: Path::new("/ws"), root: Path::new("/ws"), source_id: None };
/// let yaml = "- {on: turn_start, kind: prompt, message: Run the tests before you commit.}";
/// let load = parse_str(yaml, Path::new("/ws/.hooks/hooks.yaml"), Format::Native, &cx);
/// // The second golden vector of DESIGN §4.5.
/// assert_eq!(content_hash(&load.hooks[0]), "3d272c794c1ca3aa");
/// assert_eq!(load.hooks[0].hash, "3d272c794c1ca3aa");
/// ```
pub fn content_hash(decl: &HookDecl) -> String {
    hash_canonical(&canonical_hash_input(decl))
}

/// The first 16 hex characters of the sha256 of `value`'s canonical JSON.
pub(crate) fn hash_canonical(value: &Value) -> String {
    let digest = Sha256::digest(canonical_json(value).as_bytes());
    let mut hex = hex::encode(digest);
    hex.truncate(16);
    hex
}

/// Canonical JSON: object keys sorted (by bytes) at every depth, no whitespace, integers as integers, strings as
/// serde_json writes them.
pub(crate) fn canonical_json(value: &Value) -> String {
    // The workspace enables serde_json's `preserve_order`, so maps keep insertion order: sort explicitly.
    sorted(value.clone()).to_string()
}

/// `value` with every object's keys re-inserted in sorted order.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn spec_value(spec: &HookSpec) -> Value {
    match spec {
        HookSpec::Command(command) => {
            let mut object = Map::new();
            match &command.program {
                Program::Argv(argv) => object.insert("argv".into(), json!(argv)),
                Program::Shell(shell) => object.insert("shell".into(), shell.clone().into()),
            };
            object.insert("cwd".into(), command.cwd.clone().into());
            object.insert("timeout_ms".into(), command.timeout_ms.into());
            object.insert("as".into(), json!(command.as_mode));
            object.insert("env".into(), json!(command.env));
            Value::Object(object)
        }
        HookSpec::Prompt { message, severity } => json!({ "message": message, "severity": severity }),
        HookSpec::Effect(effect) => json!({ "effect": effect }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_nested_keys_and_stays_compact() {
        let value = json!({"b": {"z": 1, "a": [{"y": true, "x": null}]}, "a": "s\"q"});
        assert_eq!(canonical_json(&value), r#"{"a":"s\"q","b":{"a":[{"x":null,"y":true}],"z":1}}"#);
    }
}
