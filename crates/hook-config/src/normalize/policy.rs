//! `kind: policy` (docs/policy.md): `files` (Rego, resolved against the origin root, compiled once per load),
//! `query` and `timeout_ms`.

use std::path::Path;

use hook_types::Protocol;

use super::NormalizeCx;
use super::command::{lexical_join, read_timeout};
use super::fields::HookReader;
use crate::policy::{CompiledPolicy, PolicySpec};

/// The largest Rego file read, in bytes.
const MAX_FILE_BYTES: u64 = 1 << 20;

pub(super) fn read(hook: &mut HookReader<'_, '_>, protocol: Protocol, cx: &NormalizeCx<'_>) -> Option<PolicySpec> {
    let files = if hook.has("files") {
        hook.string_list("files", "a .rego file")
    } else {
        hook.missing("files", "a policy hook needs `files` (one or more `.rego` files, e.g. `[policy/hooks.rego]`)");
        None
    };
    let query = if hook.has("query") {
        hook.string("query")
    } else {
        hook.missing("query", "a policy hook needs `query` (the rule to ask, e.g. `data.hooks.pre_tool.decision`)");
        None
    };
    let timeout_ms = read_timeout(hook, protocol);
    let (files, files_field) = files?;
    if files.is_empty() {
        hook.error(Some(&files_field), "`files` is empty; name one or more `.rego` files");
        return None;
    }
    let mut resolved = Vec::with_capacity(files.len());
    let mut sources = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        let at =
            hook.place_within(&files_field, &format!("[{i}]"), files_field.node.index(i), crate::parse::Target::Node);
        let path = Path::new(file);
        let joined = if path.is_absolute() { path.to_path_buf() } else { lexical_join(cx.root, path) };
        match read_rego(&joined) {
            Ok((canonical, text)) => {
                sources.push((file.clone(), text));
                resolved.push(canonical);
            }
            Err(why) => hook.error_at(at, format!("`{file}` ({}) {why}", joined.display())),
        }
    }
    let (query, query_field) = query?;
    if !valid_query(&query) {
        hook.error(
            Some(&query_field),
            format!(
                "`{query}` is not a rule path; expected `data.<package>.<rule>`, e.g. `data.hooks.pre_tool.decision`"
            ),
        );
        return None;
    }
    // Without the `policy` feature nothing compiles: that was reported on `kind`.
    if resolved.len() != files.len() || !crate::supports_kind(hook_types::HookKind::Policy) {
        return None;
    }
    let compiled = match CompiledPolicy::compile(sources) {
        Ok(compiled) => compiled,
        Err(why) => {
            hook.error(Some(&files_field), format!("the Rego does not compile: {}", why.trim_end()));
            return None;
        }
    };
    let packages = compiled.packages();
    if !packages.iter().any(|p| query.strip_prefix(p.as_str()).is_some_and(|rest| rest.starts_with('.'))) {
        hook.error(
            Some(&query_field),
            format!(
                "`{query}` is in no package of these files (they define {}); expected `<package>.<rule>`",
                packages.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
            ),
        );
        return None;
    }
    Some(PolicySpec { files, resolved, query, timeout_ms: timeout_ms?, compiled })
}

/// `data.` followed by dot-separated identifiers.
fn valid_query(query: &str) -> bool {
    let Some(rest) = query.strip_prefix("data.") else { return false };
    rest.split('.').all(|part| {
        part.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// Reads one Rego file: a regular file no larger than [`MAX_FILE_BYTES`], valid UTF-8, canonical path.
fn read_rego(path: &Path) -> Result<(std::path::PathBuf, String), String> {
    let canonical = crate::canonicalize(path).map_err(|e| format!("cannot be read: {e}"))?;
    let meta = std::fs::metadata(&canonical).map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!("is {} bytes; a policy file may have at most {MAX_FILE_BYTES}", meta.len()));
    }
    let bytes = std::fs::read(&canonical).map_err(|e| format!("cannot be read: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_owned())?;
    Ok((canonical, text))
}
