//! The content hash of a declaration (docs/declarations.md#content-hash): a contract across versions.
//!
//! The hash covers what a hook *means* — its event, filters, failure policy, protocol and spec — and nothing about
//! where or how it was written: not its `id`, not `enabled`, not the file's format, key order, comments or aliases,
//! not the workspace it sits in. Two declarations with the same hash behave the same, so reformatting a file keeps
//! its trust and `hook import` keeps hashes unchanged.

use std::io::{self, Write};

use hook_types::Event;
use serde::Serialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::model::{HookDecl, HookSpec, Program};

/// The object [`content_hash`] hashes, before canonical serialization: `{async?, command?, if?, kind, on, tools, matcher,
/// only_errors?, scope?, sequential?, on_error, protocol, spec}` with keys sorted recursively.
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
    if decl.run_async {
        object.insert("async".into(), true.into());
    }
    if let Some(command) = &decl.command {
        object.insert("command".into(), command_value(command));
    }
    if let Some(condition) = &decl.condition {
        object.insert("if".into(), condition.as_str().into());
    }
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

/// The content hash of a declaration (docs/declarations.md#content-hash): the first 16 lowercase hex characters of the sha256 of the
/// canonical JSON of [`canonical_hash_input`]. Loading stores it in [`HookDecl::hash`].
///
/// ```
/// # use hook_config::{parse_str, content_hash, FileContext, Format};
/// # use hook_types::Origin;
/// # use std::path::Path;
/// let cx = FileContext { origin: Origin::Project, workspace: Path::new("/ws"), root: Path::new("/ws"), source_id: None };
/// let yaml = "- {on: turn_start, kind: prompt, message: Run the tests before you commit.}";
/// let load = parse_str(yaml, Path::new("/ws/.hooks/hooks.yaml"), Format::Native, &cx);
/// // The second golden vector of docs/declarations.md#content-hash.
/// assert_eq!(content_hash(&load.hooks[0]), "3d272c794c1ca3aa");
/// assert_eq!(load.hooks[0].hash, "3d272c794c1ca3aa");
/// ```
pub fn content_hash(decl: &HookDecl) -> String {
    // Every hook of every load is hashed: its canonical JSON is written field by field into one buffer and hashed
    // once, instead of building `canonical_hash_input`'s tree, sorting it and printing it (that was a quarter of a
    // load). One buffer rather than a write to the hasher per token: dozens of tiny updates cost more than the copy.
    let mut json = Vec::with_capacity(256);
    write_hash_input(decl, &mut json).expect(INFALLIBLE);
    short_hex(&json)
}

/// The first 16 hex characters of the sha256 of `value`'s canonical JSON.
pub(crate) fn hash_canonical(value: &Value) -> String {
    let mut json = Vec::with_capacity(256);
    write_canonical(value, &mut json).expect(INFALLIBLE);
    short_hex(&json)
}

/// Why the writes below cannot fail: they go to a `Vec`, and serialize only strings, integers, string maps and JSON
/// values.
const INFALLIBLE: &str = "writing canonical JSON to a Vec cannot fail";

/// The first 16 hex characters of the sha256 of `json`: hex-encodes only the 8 bytes that are kept.
fn short_hex(json: &[u8]) -> String {
    lower_hex(&Sha256::digest(json)[..8])
}

/// `bytes` as lowercase hex, like `hex::encode`, written into a buffer of the final size (`hex::encode` collects
/// character by character, which showed in the profile of a load: two digests per command hook).
pub(crate) fn lower_hex(bytes: &[u8]) -> String {
    let mut out = vec![0; bytes.len() * 2];
    hex::encode_to_slice(bytes, &mut out).expect("the buffer holds two digits per byte");
    String::from_utf8(out).expect("hex digits are ASCII")
}

/// Writes the canonical JSON of `value`: object keys sorted by bytes at every depth (the workspace enables
/// serde_json's `preserve_order`, so maps keep insertion order and must be sorted here, by borrowing rather than
/// cloning), no whitespace, integers as integers, strings as serde_json writes them.
fn write_canonical(value: &Value, out: &mut impl Write) -> io::Result<()> {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.write_all(b"{")?;
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, key)?;
                out.write_all(b":")?;
                write_canonical(value, out)?;
            }
            out.write_all(b"}")
        }
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_canonical(item, out)?;
            }
            out.write_all(b"]")
        }
        leaf => Ok(serde_json::to_writer(out, leaf)?),
    }
}

/// A `command:` matcher as hashed: `{on_interpreter?, on_unknown, patterns}`, the patterns in their canonical
/// form (`on_interpreter` only where the hook set it, so the digests of hooks without it are unchanged).
pub(crate) fn command_value(command: &crate::CommandMatcher) -> Value {
    let mut value = json!({"on_unknown": command.on_unknown().as_str(), "patterns": command.canonical()});
    if let Some(answer) = command.on_interpreter() {
        value["on_interpreter"] = answer.as_str().into();
    }
    value
}

/// Writes exactly `canonical_json(&canonical_hash_input(decl))` without building either. The keys are written in
/// byte order by hand — `async` < `command` < `if` < `kind` < `matcher` < `on` < `on_error` < `only_errors` < `protocol` < `scope` <
/// `sequential` < `spec` < `tools`, and in a command spec `argv` < `as` < `cwd` < `env` < `shell` < `timeout_ms` —
/// and the unit test below holds this to the tree form for every optional field.
fn write_hash_input(decl: &HookDecl, out: &mut impl Write) -> io::Result<()> {
    let mut object = Object::new(out)?;
    if decl.run_async {
        object.field("async", &true)?;
    }
    if let Some(command) = &decl.command {
        object.key("command")?;
        write_canonical(&command_value(command), &mut *object.out)?;
    }
    if let Some(condition) = &decl.condition {
        object.field("if", condition.as_str())?;
    }
    object.field("kind", decl.kind().as_str())?;
    object.field("matcher", &decl.matcher.as_ref().map(|m| m.pattern.as_str()))?;
    match &decl.event {
        Event::Foreign(_) => object.field("on", &decl.event.to_string())?,
        // Its `Display` form, without formatting a new string.
        event => object.field("on", event.canonical_name())?,
    }
    object.field("on_error", &decl.on_error)?;
    if decl.filters.only_errors {
        object.field("only_errors", &true)?;
    }
    object.field("protocol", decl.protocol.as_str())?;
    if decl.filters.scope != hook_types::Scope::Main {
        object.field("scope", &decl.filters.scope)?;
    }
    if decl.sequential {
        object.field("sequential", &true)?;
    }
    object.key("spec")?;
    write_spec(&decl.spec, object.out)?;
    object.field("tools", &decl.tools)?;
    object.end()
}

fn write_spec(spec: &HookSpec, out: &mut impl Write) -> io::Result<()> {
    let mut object = Object::new(out)?;
    match spec {
        HookSpec::Command(command) => {
            if let Program::Argv(argv) = &command.program {
                object.field("argv", argv)?;
            }
            object.field("as", &command.as_mode)?;
            object.field("cwd", &command.cwd)?;
            // A BTreeMap of strings serializes with its keys in byte order already.
            object.field("env", &command.env)?;
            if let Program::PowerShell(line) = &command.program {
                object.field("powershell", line)?;
            }
            if let Program::Shell(shell) = &command.program {
                object.field("shell", shell)?;
            }
            object.field("timeout_ms", &command.timeout_ms)?;
        }
        HookSpec::Prompt { message, severity } => {
            object.field("message", message)?;
            object.field("severity", severity)?;
        }
        HookSpec::Effect(effect) => {
            // An effect may hold any JSON (`rewrite_tool_input`'s input): sort it as a tree.
            object.key("effect")?;
            write_canonical(&serde_json::to_value(effect)?, object.out)?;
        }
        HookSpec::Evaluated(evaluated) => {
            if evaluated.agent {
                object.field("agent", &true)?;
            }
            if let Some(model) = &evaluated.model {
                object.field("model", model)?;
            }
            object.field("prompt", &evaluated.prompt)?;
            object.field("timeout_ms", &evaluated.timeout_ms)?;
        }
        // The newer kinds are rare and small: their tree form is written through the canonical writer.
        HookSpec::Http(_) | HookSpec::Policy(_) => {
            let Value::Object(map) = spec_value(spec) else { unreachable!("a spec is an object") };
            for (key, value) in map.iter().collect::<std::collections::BTreeMap<_, _>>() {
                object.key_owned(key)?;
                write_canonical(value, object.out)?;
            }
        }
    }
    object.end()
}

/// A JSON object being written, one `"key":value` at a time; the caller supplies the keys in order.
struct Object<'w, W: Write> {
    out: &'w mut W,
    first: bool,
}

impl<'w, W: Write> Object<'w, W> {
    fn new(out: &'w mut W) -> io::Result<Self> {
        out.write_all(b"{")?;
        Ok(Object { out, first: true })
    }

    /// Writes `"key":`; the value follows. The keys are this module's own field names, plain ASCII that JSON
    /// writes without escapes, so they are copied as they are.
    fn key(&mut self, key: &'static str) -> io::Result<()> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",")?;
        }
        self.out.write_all(b"\"")?;
        self.out.write_all(key.as_bytes())?;
        self.out.write_all(b"\":")
    }

    /// Writes `"key":` for a key that is not one of this module's own names.
    fn key_owned(&mut self, key: &str) -> io::Result<()> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.write_all(b":")
    }

    /// Writes `"key":value`, the value as serde_json writes it compactly.
    fn field(&mut self, key: &'static str, value: &(impl Serialize + ?Sized)) -> io::Result<()> {
        self.key(key)?;
        Ok(serde_json::to_writer(&mut *self.out, value)?)
    }

    fn end(self) -> io::Result<()> {
        self.out.write_all(b"}")
    }
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
                Program::PowerShell(line) => object.insert("powershell".into(), line.clone().into()),
            };
            object.insert("cwd".into(), command.cwd.clone().into());
            object.insert("timeout_ms".into(), command.timeout_ms.into());
            object.insert("as".into(), json!(command.as_mode));
            object.insert("env".into(), json!(command.env));
            Value::Object(object)
        }
        HookSpec::Prompt { message, severity } => json!({ "message": message, "severity": severity }),
        HookSpec::Effect(effect) => json!({ "effect": effect }),
        HookSpec::Evaluated(evaluated) => {
            let mut object = Map::new();
            if evaluated.agent {
                object.insert("agent".into(), true.into());
            }
            if let Some(model) = &evaluated.model {
                object.insert("model".into(), model.clone().into());
            }
            object.insert("prompt".into(), evaluated.prompt.clone().into());
            object.insert("timeout_ms".into(), evaluated.timeout_ms.into());
            Value::Object(object)
        }
        // The header values' literal text is left out (it may be a secret); the variables they read are in.
        HookSpec::Http(http) => json!({
            "url": http.url,
            "method": http.method,
            "headers": http.header_vars(),
            "format": http.format,
            "timeout_ms": http.timeout_ms,
        }),
        // The files' contents are in the fingerprint, like a command's script.
        HookSpec::Policy(policy) => json!({
            "files": policy.files,
            "query": policy.query,
            "timeout_ms": policy.timeout_ms,
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use hook_types::Origin;

    use super::*;
    use crate::file::{FileContext, parse_str};
    use crate::model::Format;

    fn canonical_json(value: &Value) -> String {
        let mut out = Vec::new();
        write_canonical(value, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn canonical_json_sorts_nested_keys_and_stays_compact() {
        let value = json!({"b": {"z": 1, "a": [{"y": true, "x": null}]}, "a": "s\"q", "é": 1.5});
        assert_eq!(canonical_json(&value), r#"{"a":"s\"q","b":{"a":[{"x":null,"y":true}],"z":1},"é":1.5}"#);
    }

    /// The hand-ordered writer behind `content_hash` must stay byte for byte the canonical JSON of the documented
    /// tree, `canonical_hash_input`, whatever optional field a hook has.
    #[test]
    fn content_hash_writes_exactly_the_canonical_json_of_the_hash_input() {
        let yaml = r#"
- {on: pre_tool, kind: command, argv: [./guard.sh, "quote\" and \\ and é", --x], tools: [shell, "edit"], timeout_ms: 1500}
- {on: post_tool, only_errors: true, matcher: "Edit|Write", kind: command, shell: "a && b", env: {Z: "1", A: "é\u0001", M: ""}, as: reminder, on_error: deny}
- {on: SubagentStop, kind: command, argv: [sh], sequential: true, protocol: claude}
- {on: turn_end, scope: any, kind: prompt, message: "tab\tand \"quotes\"", severity: hard-block}
- {on: turn_start, kind: prompt, message: plain}
- {on: pre_tool, matcher: "^mcp__.*", kind: effect, effect: {kind: rewrite_tool_input, input: {z: [3, {b: 1, a: 2.5}], a: null, "é": x}}}
- {on: pre_tool, kind: effect, enabled: false, effect: {kind: block_tool, reason: "no", severity: hard-block}}
- {on: "foreign:WorktreeCreate", protocol: claude, kind: command, argv: [x]}
- {on: pre_tool, if: "shell(git push *)", kind: command, argv: [x], async: false}
"#;
        // The program must exist and be executable for the hook to load.
        let dir = tempfile::tempdir().unwrap();
        let guard = dir.path().join("guard.sh");
        std::fs::write(&guard, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&guard, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let root = dir.path();
        let cx = FileContext { origin: Origin::Project, workspace: root, root, source_id: None };
        let load = parse_str(yaml, Path::new("hooks.yaml"), Format::Native, &cx);
        assert_eq!(load.hooks.len(), 9, "{:#?}", load.issues);
        for decl in &load.hooks {
            let mut written = Vec::new();
            write_hash_input(decl, &mut written).unwrap();
            let tree = canonical_json(&canonical_hash_input(decl));
            assert_eq!(String::from_utf8(written).unwrap(), tree);
            let digest = Sha256::digest(tree.as_bytes());
            assert_eq!(content_hash(decl), hex::encode(digest)[..16]);
            assert_eq!(lower_hex(&digest), hex::encode(digest));
            assert_eq!(hash_canonical(&canonical_hash_input(decl)), content_hash(decl));
        }
    }

    /// The http and policy kinds hash what they mean: the URL, the method, the header names with the variables
    /// they read, the format and the timeout (never a header's text); the files as written, the query and the
    /// timeout. The writer stays the canonical JSON of the tree.
    #[cfg(all(feature = "http", feature = "policy"))]
    #[test]
    fn http_and_policy_hashes_cover_what_they_mean_and_no_header_text() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.rego"), "package p\nd := 1\n").unwrap();
        let root = dir.path();
        let cx = FileContext { origin: Origin::Project, workspace: root, root, source_id: None };
        let yaml = r#"
- {id: a, on: pre_tool, kind: http, url: "https://a.example/x", headers: {Authorization: "Bearer ${T}"}}
- {id: b, on: pre_tool, kind: http, url: "https://a.example/x", headers: {Authorization: "Token ${T}"}}
- {id: c, on: pre_tool, kind: http, url: "https://a.example/x", headers: {Authorization: "Bearer ${U}"}}
- {id: d, on: pre_tool, kind: http, url: "https://b.example/x", headers: {Authorization: "Bearer ${T}"}}
- {id: e, on: pre_tool, kind: http, url: "https://a.example/x", headers: {Authorization: "Bearer ${T}"}, format: opa}
- {id: f, on: pre_tool, kind: policy, files: [p.rego], query: data.p.d}
- {id: g, on: pre_tool, kind: policy, files: [p.rego], query: data.p.d, timeout_ms: 900}
"#;
        let load = parse_str(yaml, Path::new("hooks.yaml"), Format::Native, &cx);
        assert_eq!(load.hooks.len(), 7, "{:#?}", load.issues);
        for decl in &load.hooks {
            let mut written = Vec::new();
            write_hash_input(decl, &mut written).unwrap();
            assert_eq!(String::from_utf8(written).unwrap(), canonical_json(&canonical_hash_input(decl)));
        }
        let hashes: Vec<&str> = load.hooks.iter().map(|h| h.hash.as_str()).collect();
        assert_eq!(hashes[0], hashes[1], "a header's literal text is not hashed");
        for (i, other) in hashes.iter().enumerate().skip(2) {
            assert_ne!(hashes[0], *other, "hook {i} differs in what it means");
        }
        assert_ne!(hashes[5], hashes[6]);
        let input = canonical_hash_input(&load.hooks[0]);
        assert_eq!(input["spec"]["headers"], json!({"Authorization": ["T"]}));
        assert!(!input.to_string().contains("Bearer"));
    }
}
