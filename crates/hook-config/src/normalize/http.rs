//! `kind: http` (docs/policy.md): `url`, `method`, `headers`, `timeout_ms`, `format`, and Claude Code's
//! `allowed_env_vars`.

use std::collections::BTreeMap;

use hook_types::Protocol;
use serde_json::Value;

use super::command::read_timeout;
use super::fields::HookReader;
use crate::issues::describe;
use crate::parse::Target;
use crate::remote::{HttpFormat, HttpSpec, env_refs};

pub(super) fn read(hook: &mut HookReader<'_, '_>, protocol: Protocol) -> Option<HttpSpec> {
    let url = read_url(hook);
    let method = match hook.choice("method", &["POST"]) {
        Some((method, _)) => Some(method.to_owned()),
        None if hook.failed => None,
        None => Some("POST".to_owned()),
    };
    let format = match hook.choice("format", &["native", "claude", "opa"]) {
        Some(("claude", _)) => HttpFormat::Claude,
        Some(("opa", _)) => HttpFormat::Opa,
        Some(_) => HttpFormat::Native,
        None if protocol == Protocol::Claude => HttpFormat::Claude,
        None => HttpFormat::Native,
    };
    let allowed_env_vars = hook.string_list("allowed_env_vars", "a variable name").map(|(names, _)| names);
    let headers = read_headers(hook, allowed_env_vars.as_deref());
    let timeout_ms = read_timeout(hook, protocol);
    Some(HttpSpec { url: url?, method: method?, headers: headers?, allowed_env_vars, timeout_ms: timeout_ms?, format })
}

fn read_url(hook: &mut HookReader<'_, '_>) -> Option<String> {
    if !hook.has("url") {
        hook.missing("url", "an http hook needs `url` (e.g. `https://policy.example.com/v1/data/hooks/decision`)");
        return None;
    }
    let (url, field) = hook.string("url")?;
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    let Some(rest) = rest else {
        hook.error(Some(&field), format!("`{url}` is not an http:// or https:// URL"));
        return None;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() {
        hook.error(Some(&field), format!("`{url}` names no host"));
        return None;
    }
    if authority.contains('@') {
        hook.error(
            Some(&field),
            "the URL holds credentials (`user:password@`), which would be hashed and shown; send them in a header \
             that names an environment variable (`Authorization: Bearer $TOKEN`)",
        );
        return None;
    }
    if url.chars().any(char::is_whitespace) || url.contains('\0') {
        hook.error(Some(&field), "the URL contains whitespace; percent-encode it");
        return None;
    }
    Some(url)
}

fn read_headers(hook: &mut HookReader<'_, '_>, allowed: Option<&[String]>) -> Option<BTreeMap<String, String>> {
    let Some(mut field) = hook.take("headers") else {
        return Some(BTreeMap::new());
    };
    let Value::Object(object) = &mut field.value else {
        hook.wrong_type(&field, "a mapping of header names to strings");
        return None;
    };
    let object = std::mem::take(object);
    let mut headers = BTreeMap::new();
    let mut ok = true;
    for (name, value) in object {
        let place = |target| (format!(".{name}"), field.node.key(&name), target);
        let token =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token {
            let (suffix, node, target) = place(Target::Key);
            let at = hook.place_within(&field, &suffix, node, target);
            hook.error_at(at, format!("`{name}` is not a valid header name (letters, digits and `-` only)"));
            ok = false;
            continue;
        }
        match value {
            Value::String(text) if !text.contains(['\r', '\n', '\0']) => {
                if let Some(allowed) = allowed {
                    for var in env_refs(&text).into_iter().filter(|v| !allowed.iter().any(|a| a == v)) {
                        let (suffix, node, target) = place(Target::Node);
                        let at = hook.place_within(&field, &suffix, node, target);
                        hook.warn_at(
                            at,
                            format!(
                                "the header `{name}` reads `${var}`, which `allowedEnvVars` does not list: it is sent \
                                 empty, as Claude Code sends it"
                            ),
                        );
                    }
                }
                headers.insert(name, text);
            }
            Value::String(_) => {
                let (suffix, node, target) = place(Target::Node);
                let at = hook.place_within(&field, &suffix, node, target);
                hook.error_at(at, "a header value cannot hold a line break or NUL");
                ok = false;
            }
            other => {
                let (suffix, node, target) = place(Target::Node);
                let at = hook.place_within(&field, &suffix, node, target);
                hook.error_at(at, format!("expected a string, found {}", describe(&other)));
                ok = false;
            }
        }
    }
    ok.then_some(headers)
}
