//! The usual hook file read line by line: a list of hooks, one `key: value` a line.
//!
//! Most hook files are written one way — a block list at the left margin whose items are mappings, each key on its
//! own line two spaces in, each value a scalar or a one-line `[...]` / `{...}` of scalars — and a general YAML
//! scanner spends most of a large load reading them character by character. This reader takes exactly that layout
//! and nothing else: any line it is not sure of (another indentation, a tab, a comment after a value, an escape in a
//! quoted string, a scalar that starts with an indicator, a non-ASCII byte, a repeated key, a document marker…)
//! makes it give up, and the text is parsed by the general path ([`super::plain_yaml`], then `serde_norway`), so
//! every file still means what YAML says and every error is still the parser's. Plain scalars resolve by
//! `serde_norway`'s rules (`plain_yaml::resolve`). The module's tests compare it with `serde_norway` on the
//! repository's YAML files and on generated texts in and around the layout.

use serde_json::{Map, Value};

use super::plain_yaml::{Resolved, resolve};

/// The tree of `text` when it has the usual layout, else `None` (parse it with the general path).
pub(super) fn parse(text: &str) -> Option<Value> {
    if !text.bytes().all(|b| b == b'\n' || (b' '..=b'~').contains(&b)) {
        return None;
    }
    let mut items: Vec<Value> = Vec::new();
    // The current item's entries, made a mapping of their final size when the item ends.
    let mut entries: Vec<(String, Value)> = Vec::new();
    let mut open = false;
    for line in text.split('\n') {
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let entry = match line.len() - content.len() {
            0 => {
                // A new item: `- key: value`.
                let rest = line.strip_prefix("- ")?;
                if rest.starts_with(' ') {
                    return None;
                }
                if open {
                    items.push(mapping(&mut entries)?);
                }
                open = true;
                rest
            }
            2 if open => content,
            _ => return None,
        };
        let (key, value) = entry_of(entry)?;
        entries.push((key.to_owned(), value));
    }
    if !open {
        return None;
    }
    items.push(mapping(&mut entries)?);
    Some(Value::Array(items))
}

/// The mapping of an item's entries; `None` when a key repeats (the parser reports it).
fn mapping(entries: &mut Vec<(String, Value)>) -> Option<Value> {
    let mut map = Map::with_capacity(entries.len());
    for (key, value) in entries.drain(..) {
        if map.insert(key, value).is_some() {
            return None;
        }
    }
    Some(Value::Object(map))
}

/// `key: value` of a block mapping.
fn entry_of(text: &str) -> Option<(&str, Value)> {
    let colon = text.find(':')?;
    let key = &text[..colon];
    if !is_key(key) {
        return None;
    }
    let rest = &text[colon + 1..];
    if rest.is_empty() {
        return Some((key, Value::Null));
    }
    let value = rest.strip_prefix(' ')?.trim_matches(' ');
    Some((key, block_value(value)?))
}

/// A key spelled as written: a word that resolves to a string (not `null`, `true`, a number…).
fn is_key(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && matches!(resolve(key), Some(Resolved::Str))
}

/// The value of a block mapping entry: a one-line flow collection, a quoted or a plain scalar.
fn block_value(text: &str) -> Option<Value> {
    match text.as_bytes().first() {
        None => Some(Value::Null),
        Some(b'[') => {
            let mut items = Vec::new();
            for item in flow_items(text.strip_suffix(']')?.strip_prefix('[')?)? {
                items.push(flow_scalar(item)?);
            }
            Some(Value::Array(items))
        }
        Some(b'{') => {
            let inner = text.strip_suffix('}')?.strip_prefix('{')?;
            let mut map = Map::new();
            for item in flow_items(inner)? {
                let (key, value) = item.split_once(": ")?;
                if !is_key(key) || map.insert(key.to_owned(), flow_scalar(value.trim_start_matches(' '))?).is_some() {
                    return None;
                }
            }
            Some(Value::Object(map))
        }
        Some(b'"' | b'\'') => quoted(text),
        Some(_) => {
            // A plain scalar: no indicator first, no comment, no `: ` (a nested mapping), no trailing `:`.
            let first = text.as_bytes()[0];
            let safe_first = first.is_ascii_alphanumeric() || b"_./$(+~".contains(&first);
            if !safe_first || text.contains('#') || text.contains(": ") || text.ends_with(':') {
                return None;
            }
            plain(text)
        }
    }
}

/// The entries of a one-line flow collection's inside, split at commas, trimmed. `None` when a quote could hold a
/// comma or a bracket, or an entry is empty (`[a, , b]`, a trailing comma).
fn flow_items(inner: &str) -> Option<Vec<&str>> {
    let inner = inner.trim_matches(' ');
    if inner.is_empty() {
        return Some(Vec::new());
    }
    if inner.contains(['[', ']', '{', '}', '#']) {
        return None;
    }
    let mut out = Vec::new();
    let mut rest = inner;
    loop {
        let rest_trimmed = rest.trim_start_matches(' ');
        let (item, after) = match rest_trimmed.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => {
                let close = rest_trimmed[1..].find(q as char)? + 2;
                (&rest_trimmed[..close], &rest_trimmed[close..])
            }
            Some(_) => match rest_trimmed.find(',') {
                Some(at) => (&rest_trimmed[..at], &rest_trimmed[at..]),
                None => (rest_trimmed, ""),
            },
            None => return None,
        };
        let item = item.trim_end_matches(' ');
        if item.is_empty() {
            return None;
        }
        out.push(item);
        let after = after.trim_start_matches(' ');
        if after.is_empty() {
            return Some(out);
        }
        rest = after.strip_prefix(',')?;
        if rest.trim_start_matches(' ').is_empty() {
            return None;
        }
    }
}

/// A scalar inside a flow collection: quoted, or a plain word of safe characters.
fn flow_scalar(text: &str) -> Option<Value> {
    match text.as_bytes().first()? {
        b'"' | b'\'' => quoted(text),
        &first => {
            let safe = |b: u8| b.is_ascii_alphanumeric() || b"_./$+~=@-".contains(&b);
            // `-` starts a plain scalar only before a safe character (`--strict`), never alone.
            let safe_first = (first != b'-' || text.len() > 1) && first != b'@';
            (safe_first && text.bytes().all(safe)).then(|| plain(text))?
        }
    }
}

/// A one-line quoted scalar with nothing to unescape: `"…"` without `\`, `'…'` without `''`.
fn quoted(text: &str) -> Option<Value> {
    let quote = text.chars().next()?;
    let inner = text.strip_prefix(quote)?.strip_suffix(quote)?;
    if inner.contains(quote) || (quote == '"' && inner.contains('\\')) {
        return None;
    }
    Some(Value::String(inner.to_owned()))
}

/// A plain scalar, resolved.
fn plain(text: &str) -> Option<Value> {
    Some(match resolve(text)? {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::U64(n) => Value::Number(n.into()),
        Resolved::I64(n) => Value::Number(n.into()),
        Resolved::F64(f) => Value::Number(serde_json::Number::from_f64(f)?),
        Resolved::Str => Value::String(text.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Where this reader takes a text, `serde_norway` builds the same tree; `false` where it gives up.
    fn agrees(text: &str) -> bool {
        let Some(fast) = parse(text) else { return false };
        assert_eq!(super::super::yaml_through_serde_norway(text), Ok(super::super::non_null(fast)), "{text:?}");
        true
    }

    #[test]
    fn the_usual_layout_is_read_here_as_serde_norway_reads_it() {
        let text = "# hooks\n- id: shared-0\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  argv: [./scripts/guard.sh, \
                    --strict, \"0\"]\n  timeout_ms: 1500\n\n- id: f0-h1\n  on: turn_start\n  kind: prompt\n  message: \
                    \"Run the tests before you commit (1).\"\n- id: f0-h2\n  on: pre_tool\n  tools: [write]\n  kind: effect\n  \
                    effect: { kind: block_tool, reason: \"no writes here (2)\", severity: hard-block }\n  enabled: true\n  \
                    cwd: .\n  env: {}\n  x: ~\n  y:\n  z: 'single'\n  w: a plain sentence, with (punctuation).\n";
        assert!(agrees(text));
        assert_eq!(parse(text).unwrap()[2]["effect"]["severity"], "hard-block");
        assert!(agrees("- a: [\"x, y\", z, 'p, q']\n"));
    }

    #[test]
    fn anything_unusual_goes_to_the_general_path() {
        for text in [
            "a: 1\n",
            "- a: 1\n   b: 2\n",
            "- a: 1\n\tb: 2\n",
            "- a: 1 # note\n",
            "- a: \"x\\ty\"\n",
            "- a: 'it''s'\n",
            "- a: -5\n",
            "- a: *x\n",
            "- a: |\n    text\n",
            "- a: [1, [2]]\n",
            "- a: [1, ]\n",
            "- a: {b: c, b: d}\n",
            "- a: 1\n  a: 2\n",
            "- true: 1\n",
            "- a: b: c\n",
            "- a: caf\u{e9}\n",
            "---\n- a: 1\n",
            "- a:\n    - 1\n",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn both_parsers_agree_on_every_yaml_file_of_the_repository() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if path.is_dir() {
                    if !name.starts_with('.') && name != "target" && name != "node_modules" {
                        stack.push(path);
                    }
                } else if (name.ends_with(".yaml") || name.ends_with(".yml"))
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    agrees(&text);
                }
            }
        }
    }

    const KEYS: &[&str] = &["id", "on", "kind", "timeout_ms", "x-y", "_k", "true", "null", "1", "a b", "inf", "y"];
    const SEPARATORS: &[&str] = &[": ", ": ", ": ", ": ", ": ", ": ", ":", ":  ", " : ", ":x", ":\t"];
    const VALUES: &[&str] = &[
        "pre_tool",
        "1500",
        "-5",
        "0x1F",
        "0o17",
        "007",
        "1e3",
        "1_000",
        "~",
        "null",
        "Null",
        "True",
        "FALSE",
        "yes",
        "a b",
        "a  b",
        "a: b",
        "a:b",
        "a #c",
        "#c",
        "a#b",
        "http://x:80/y",
        "./scripts/g.sh",
        "$HOOK_PROJECT_DIR/x",
        "--strict",
        "-",
        "-x",
        "*a",
        "&a x",
        "!t x",
        "|",
        "> x",
        "@x",
        "`x",
        "%x",
        "?x",
        "? x",
        ",x",
        "[a",
        "{a",
        "'it''s'",
        "'a'",
        "''",
        "\"\"",
        "\"a\"",
        "\"a\\\"b\"",
        "\"a'b\"",
        "'a\"b'",
        "(x)",
        "+5",
        ".5",
        ".inf",
        "-.inf",
        "inf",
        "nan",
        ".nan",
        "'#'",
        "\"#\"",
        "",
        "a:",
        "18446744073709551616",
        "9223372036854775807",
        "0.",
        "1.5e400",
        "=",
        "a,b",
        "a]",
        "x}",
    ];
    const FLOW: &[&str] = &[
        "a",
        "shell",
        "--strict",
        "-",
        "\"0\"",
        "'x'",
        "1",
        "-1",
        "~",
        "true",
        "a b",
        "a:b",
        "a: b",
        "k: v",
        "k:v",
        "\"a, b\"",
        "''",
        "@x",
        "=x",
        "$V",
        ".5",
        "0x10",
        "007",
        "x@y",
        "",
        "'a''b'",
        "\"q\\\"\"",
    ];
    const GLUE: &[&str] = &[", ", ",", " , ", ",  "];

    fn value() -> impl Strategy<Value = String> {
        let scalar = prop::sample::select(VALUES).prop_map(str::to_owned);
        let flow = (
            prop::collection::vec((prop::sample::select(FLOW), prop::sample::select(GLUE)), 0..4),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(items, map, spaced)| {
                let mut inner = String::new();
                for (i, (item, glue)) in items.iter().enumerate() {
                    if i > 0 {
                        inner.push_str(glue);
                    }
                    inner.push_str(item);
                }
                let pad = if spaced { " " } else { "" };
                if map { format!("{{{pad}{inner}{pad}}}") } else { format!("[{pad}{inner}{pad}]") }
            });
        prop_oneof![3 => scalar, 1 => flow]
    }

    fn line() -> impl Strategy<Value = String> {
        let entry = (
            prop::sample::select(KEYS),
            prop::sample::select(SEPARATORS),
            value(),
            prop::sample::select(&["", " ", "  "][..]),
        )
            .prop_map(|(key, sep, value, trail)| format!("{key}{sep}{value}{trail}"));
        let indent =
            prop::sample::select(&["- ", "- ", "  ", "  ", "  ", "  ", "  ", "  ", "", "   ", "-  ", "-", " - "][..]);
        prop_oneof![
            8 => (indent, entry).prop_map(|(indent, entry)| format!("{indent}{entry}")),
            1 => prop::sample::select(&["", "# comment", "  # indented comment", "---", "...", "  "][..]).prop_map(str::to_owned),
        ]
    }

    #[test]
    fn both_parsers_agree_on_generated_texts() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let texts = (prop::collection::vec(line(), 1..5), value())
            .prop_map(|(lines, first)| format!("- id: {first}\n{}\n", lines.join("\n")));
        let (mut taken, runs) = (0, 20_000);
        for _ in 0..runs {
            let text = proptest::strategy::ValueTree::current(&texts.new_tree(&mut runner).expect("a text"));
            taken += usize::from(agrees(&text));
        }
        // Not vacuous: a good share of the texts is read here (the rest goes to the general path).
        assert!(taken > runs / 100, "{taken} of {runs} texts read here");
    }
}
