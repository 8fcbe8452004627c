//! `kind: http`: what an http hook declares (docs/policy.md), and the one reading of the environment variables its
//! header values name.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How an http hook's request body and answer are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HttpFormat {
    /// The native payload is the body; the answer is read like a native command hook's stdout on exit 0.
    Native,
    /// Claude Code's payload is the body; the answer is read like a Claude Code command hook's stdout on exit 0.
    Claude,
    /// An Open Policy Agent data API call: the body is `{"input": <native payload>}`, the answer `{"result": …}`
    /// with the result read like a `policy` hook's (a decision object or a list of effects).
    Opa,
}

impl HttpFormat {
    /// The wire name.
    ///
    /// ```
    /// assert_eq!(hook_config::HttpFormat::Opa.as_str(), "opa");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            HttpFormat::Native => "native",
            HttpFormat::Claude => "claude",
            HttpFormat::Opa => "opa",
        }
    }
}

/// An http hook: where its payload goes and how the answer reads.
///
/// The content hash covers the URL, the method, every header's name with the names of the variables its value
/// reads, the format and the timeout; never a header's literal text, which may hold a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSpec {
    /// `http://` or `https://` URL, as declared.
    pub url: String,
    /// The method: `POST`.
    pub method: String,
    /// Header name → value as written; a value may name environment variables (`Bearer $TOKEN`, `${TOKEN}`),
    /// filled from the host's environment when the request is made. Values are never logged.
    pub headers: BTreeMap<String, String>,
    /// Claude Code's `allowedEnvVars`: the only variables a header may read (others read as empty, as Claude Code
    /// does). `None` in a native file: any variable may be read, and one that is not set fails the hook.
    pub allowed_env_vars: Option<Vec<String>>,
    /// One deadline over connect, send and read, in milliseconds, as declared (before the host's clamp).
    pub timeout_ms: u64,
    /// How the body and the answer are shaped.
    pub format: HttpFormat,
}

impl HttpSpec {
    /// Each header's name with the variables its value names, in order: what the content hash covers of the
    /// headers.
    ///
    /// ```
    /// use hook_config::{HttpFormat, HttpSpec};
    /// let spec = HttpSpec {
    ///     url: "https://policy.example/v1/data/hooks/decision".into(),
    ///     method: "POST".into(),
    ///     headers: [("Authorization".to_owned(), "Bearer ${POLICY_TOKEN}".to_owned())].into(),
    ///     allowed_env_vars: None,
    ///     timeout_ms: 2_000,
    ///     format: HttpFormat::Opa,
    /// };
    /// assert_eq!(spec.header_vars()["Authorization"], vec!["POLICY_TOKEN"]);
    /// ```
    pub fn header_vars(&self) -> BTreeMap<&str, Vec<&str>> {
        self.headers.iter().map(|(name, value)| (name.as_str(), env_refs(value))).collect()
    }
}

/// The environment variables `value` names: `$NAME` and `${NAME}`, `NAME` being `[A-Za-z_][A-Za-z0-9_]*`.
///
/// ```
/// assert_eq!(hook_config::env_refs("Bearer $A-${B_2}$"), vec!["A", "B_2"]);
/// ```
pub fn env_refs(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    scan(value, |piece| {
        if let Piece::Var(name) = piece {
            out.push(name);
        }
    });
    out
}

/// `value` with each variable it names replaced by `lookup(name)`; `Err(name)` for the first one `lookup` has no
/// value for.
///
/// ```
/// let filled = hook_config::expand_env_refs("Bearer ${T}", |name| (name == "T").then(|| "s3cret".to_owned()));
/// assert_eq!(filled.unwrap(), "Bearer s3cret");
/// assert_eq!(hook_config::expand_env_refs("$MISSING", |_| None).unwrap_err(), "MISSING");
/// ```
pub fn expand_env_refs(value: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut missing = None;
    scan(value, |piece| match piece {
        Piece::Text(text) => out.push_str(text),
        Piece::Var(name) => match lookup(name) {
            Some(filled) => out.push_str(&filled),
            None => {
                missing.get_or_insert_with(|| name.to_owned());
            }
        },
    });
    match missing {
        Some(name) => Err(name),
        None => Ok(out),
    }
}

enum Piece<'a> {
    Text(&'a str),
    Var(&'a str),
}

fn scan<'a>(value: &'a str, mut each: impl FnMut(Piece<'a>)) {
    let bytes = value.as_bytes();
    let name_len = |from: usize| {
        let rest = &bytes[from..];
        if rest.first().is_none_or(|b| !(b.is_ascii_alphabetic() || *b == b'_')) {
            return 0;
        }
        rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count()
    };
    let (mut at, mut text_from) = (0, 0);
    while at < bytes.len() {
        if bytes[at] != b'$' {
            at += 1;
            continue;
        }
        let braced = bytes.get(at + 1) == Some(&b'{');
        let start = at + 1 + usize::from(braced);
        let len = name_len(start);
        let closed = !braced || bytes.get(start + len) == Some(&b'}');
        if len == 0 || !closed {
            at += 1;
            continue;
        }
        if text_from < at {
            each(Piece::Text(&value[text_from..at]));
        }
        each(Piece::Var(&value[start..start + len]));
        at = start + len + usize::from(braced);
        text_from = at;
    }
    if text_from < bytes.len() {
        each(Piece::Text(&value[text_from..]));
    }
}
