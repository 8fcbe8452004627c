//! The common YAML file parsed straight into the tree, in one streaming pass.
//!
//! `serde_norway` first loads every event of a document into a list (each scalar copied out of the text, several
//! allocations per scalar inside libyaml), and only then builds the tree: at 100 000 hooks that list and libyaml's
//! buffers were most of the load's allocations and of its peak memory. `saphyr-parser` (already what places issues,
//! see [`super::Positions`]) hands out each event as it reads it, with scalars borrowed from the text where they
//! can be, so the tree is built as the text is read and nothing else is kept.
//!
//! Only plainly written files take this path: one document, no anchors, aliases or tags, every scalar resolved by
//! the rules `serde_norway` applies ([`resolve`]), mapping keys that are scalars and never repeat. Anything else —
//! and every file that does not parse — returns `None`, and the caller parses the text with `serde_norway` as
//! before, so the messages and positions of syntax errors, duplicate keys and unsupported features stay exactly
//! theirs. Both parsers read YAML 1.2; this module's tests check that both build the same tree for every YAML file
//! the repository holds and for a list of tricky scalars and layouts.

use std::borrow::Cow;

use saphyr_parser::{Event, Parser, ScalarStyle};
use serde_json::{Map, Number, Value};

/// A collection being built: where its elements start in the shared lists of elements and of entries. Elements
/// wait there until the collection ends, which then allocates it once at its size (a mapping grown key by key
/// reallocated its table and its entries several times per hook).
enum Frame {
    Seq(usize),
    /// A mapping, and the key whose value comes next (`None` when a key comes next).
    Map(usize, Option<String>),
}

/// The tree of `text`, or `None` when it needs `serde_norway` (see the module's documentation). `Some(Value::Null)`
/// for a document that is only a null.
pub(super) fn parse(text: &str) -> Option<Value> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut elements: Vec<Value> = Vec::new();
    let mut entries: Vec<(String, Value)> = Vec::new();
    let mut root: Option<Value> = None;
    let mut documents = 0usize;
    for item in Parser::new_from_str(text) {
        let (event, _) = item.ok()?;
        let value = match event {
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => continue,
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return None;
                }
                continue;
            }
            Event::Alias(_) => return None,
            Event::Scalar(scalar, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                if let Some(Frame::Map(_, next @ None)) = stack.last_mut() {
                    *next = Some(key(scalar, style)?);
                    continue;
                }
                value(scalar, style)?
            }
            Event::SequenceStart(anchor, tag) => {
                start(&stack, anchor, tag.is_some())?;
                stack.push(Frame::Seq(elements.len()));
                continue;
            }
            Event::MappingStart(anchor, tag) => {
                start(&stack, anchor, tag.is_some())?;
                stack.push(Frame::Map(entries.len(), None));
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(first)) => Value::Array(elements.drain(first..).collect()),
                _ => return None,
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(first, None)) => {
                    let mut map = Map::with_capacity(entries.len() - first);
                    for (key, value) in entries.drain(first..) {
                        // A key written twice: serde_norway refuses it, at the second key.
                        if map.insert(key, value).is_some() {
                            return None;
                        }
                    }
                    Value::Object(map)
                }
                _ => return None,
            },
        };
        match stack.last_mut() {
            None if root.is_none() => root = Some(value),
            None => return None,
            Some(Frame::Seq(_)) => elements.push(value),
            Some(Frame::Map(_, next)) => entries.push((next.take()?, value)),
        }
    }
    if !stack.is_empty() {
        return None;
    }
    root
}

/// Whether a collection may start here: no anchor, no tag, and not as a mapping key (a collection is no string key:
/// serde_norway refuses it with its own message).
fn start(stack: &[Frame], anchor: usize, tagged: bool) -> Option<()> {
    (anchor == 0 && !tagged && !matches!(stack.last(), Some(Frame::Map(_, None)))).then_some(())
}

/// A scalar in a value's place, as `serde_norway`'s untagged scalar into the tree's visitor.
fn value(scalar: Cow<'_, str>, style: ScalarStyle) -> Option<Value> {
    if style != ScalarStyle::Plain {
        return Some(Value::String(scalar.into_owned()));
    }
    Some(match resolve(&scalar)? {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::U64(n) => Value::Number(n.into()),
        Resolved::I64(n) => Value::Number(n.into()),
        // The tree refuses a number it cannot hold; serde_norway says so with the position.
        Resolved::F64(f) => Value::Number(Number::from_f64(f)?),
        Resolved::Str => Value::String(scalar.into_owned()),
    })
}

/// A scalar in a key's place, spelled as the tree's key visitor spells it (`true`, `16` for `0x10`).
fn key(scalar: Cow<'_, str>, style: ScalarStyle) -> Option<String> {
    if style != ScalarStyle::Plain {
        return Some(scalar.into_owned());
    }
    Some(match resolve(&scalar)? {
        // A null key is refused with a message of the tree's own.
        Resolved::Null => return None,
        Resolved::Bool(b) => b.to_string(),
        Resolved::U64(n) => n.to_string(),
        Resolved::I64(n) => n.to_string(),
        Resolved::F64(f) => f.to_string(),
        Resolved::Str => scalar.into_owned(),
    })
}

/// What a plain scalar is.
pub(super) enum Resolved {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str,
}

/// What a plain scalar means, by the rules `serde_norway` applies to an untagged scalar (YAML 1.2's core schema, with
/// YAML 1.1's `0o`/`0b` prefixes): the null and boolean words; an integer — decimal without leading zeros, or `0x`,
/// `0o`, `0b` digits — with one optional sign; a finite float, or `.inf` / `.nan` spelled the core schema's way; else
/// a string. `None` for an integer wider than 64 bits (but within 128), which the tree refuses through
/// `serde_norway`, with its position. This module's tests compare the result with `serde_norway` for every scalar.
pub(super) fn resolve(v: &str) -> Option<Resolved> {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Resolved::Null),
        "true" | "True" | "TRUE" => return Some(Resolved::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Resolved::Bool(false)),
        _ => {}
    }
    // A number starts with a digit, a sign or a dot: most scalars are words, and no number is tried for them.
    if !v.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) {
        return Some(Resolved::Str);
    }
    if matches!(v, ".nan" | ".NaN" | ".NAN") {
        return Some(Resolved::F64(f64::NAN));
    }
    let (negative, unsigned) = match v.as_bytes()[0] {
        b'-' => (true, &v[1..]),
        b'+' => (false, &v[1..]),
        _ => (false, v),
    };
    let magnitude = match integer(unsigned) {
        Integer::Decimal(None) => return Some(Resolved::Str),
        Integer::Decimal(Some(m)) | Integer::Prefixed(Some(m)) => Some(m),
        Integer::Prefixed(None) | Integer::NotOne => None,
    };
    if let Some(m) = magnitude {
        match (negative, m) {
            (false, m) => return u64::try_from(m).ok().map(Resolved::U64),
            // Down to -2^63, an i64 (whose magnitude 2^63 itself is one more than i64::MAX).
            (true, m) if m <= 1u128 << 63 => return Some(Resolved::I64((m as i128).wrapping_neg() as i64)),
            (true, m) if m <= 1u128 << 127 => return None,
            // Beyond what 128 signed bits hold: read as a float, as the tree's parser does.
            (true, _) => {}
        }
    }
    Some(float(negative, unsigned).map_or(Resolved::Str, Resolved::F64))
}

/// The unsigned part of a scalar read as an integer.
enum Integer {
    /// Decimal digits: their value when it fits 128 bits; `Decimal(None)` for a leading zero (`007` is a string).
    Decimal(Option<u128>),
    /// `0x`, `0o` or `0b` and digits of that base: their value when it fits 128 bits.
    Prefixed(Option<u128>),
    /// Anything else (a float, a word, or decimal digits too many for 128 bits, which are read as a float).
    NotOne,
}

fn integer(unsigned: &str) -> Integer {
    let digits_of = |text: &str, radix: u32| !text.is_empty() && text.chars().all(|c| c.is_digit(radix));
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = unsigned.strip_prefix(prefix) {
            return if digits_of(digits, radix) {
                Integer::Prefixed(u128::from_str_radix(digits, radix).ok())
            } else {
                Integer::NotOne
            };
        }
    }
    if !digits_of(unsigned, 10) {
        return Integer::NotOne;
    }
    if unsigned.len() > 1 && unsigned.starts_with('0') {
        return Integer::Decimal(None);
    }
    unsigned.parse::<u128>().map_or(Integer::NotOne, |n| Integer::Decimal(Some(n)))
}

/// A float by the core schema: `.inf` with an optional sign, else what Rust reads as a finite `f64` (`1e3`, `.5`,
/// `5.`), after at most one sign (`.nan`, which takes none, is [`resolve`]'s).
fn float(negative: bool, unsigned: &str) -> Option<f64> {
    let sign = if negative { -1.0 } else { 1.0 };
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Some(sign * f64::INFINITY);
    }
    if unsigned.starts_with(['+', '-']) {
        return None;
    }
    let value: f64 = unsigned.parse().ok().filter(|f: &f64| f.is_finite())?;
    Some(sign * value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_files_are_read_here() {
        let text = "- id: a\n  on: pre_tool\n  timeout_ms: 1500\n  tools: [shell, 'write']\n  enabled: false\n  x: ~\n";
        assert_eq!(
            parse(text),
            Some(json!([{"id": "a", "on": "pre_tool", "timeout_ms": 1500, "tools": ["shell", "write"],
                "enabled": false, "x": null}]))
        );
        assert_eq!(
            parse("{0x10: a, true: b, 1.5: c, '~': d}"),
            Some(json!({"16": "a", "true": "b", "1.5": "c", "~": "d"}))
        );
        assert_eq!(parse("[007, -0x10, +5, 1e3, 0o7, 1_000]"), Some(json!(["007", -16, 5, 1000.0, 7, "1_000"])));
    }

    #[test]
    fn everything_else_goes_to_serde_norway() {
        for text in [
            "a: &x 1\nb: *x\n",
            "a: !tag 1\n",
            "a: 1\n---\nb: 2\n",
            "a: 1\na: 2\n",
            "? [a]\n: 1\n",
            "~: 1\n",
            "a: 340282366920938463463374607431768211455\n",
            "a: .nan\n",
            "a: [1\n",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }

    /// Both paths build the same tree wherever this one takes a text.
    fn same_as_serde_norway(text: &str) -> bool {
        let Some(fast) = parse(text) else { return false };
        let slow = super::super::yaml_through_serde_norway(text);
        assert_eq!(slow, Ok(super::super::non_null(fast)), "{text:?}");
        true
    }

    #[test]
    fn both_parsers_agree_on_tricky_texts() {
        let texts = [
            "a: 1\nb: -1\nc: +1\nd: 0x1F\ne: 0o17\nf: 0b101\ng: -0x10\nh: 1.5\ni: -2.5e-3\nj: 1_000\nk: 0.\n",
            "a: yes\nb: no\nc: on\nd: off\ne: True\nf: FALSE\ng: Null\nh: ~\ni:\nj: ''\nk: \"\"\n",
            "a: 007\nb: -007\nc: 0\nd: -0\ne: 00\nf: 1e400\ng: 18446744073709551615\nh: -9223372036854775808\n",
            "a: \"tab\\there \\u00e9 \\x41\"\nb: 'it''s'\nc: |\n  line one\n  line two\nd: >-\n  folded\n  text\n\n  para\n",
            "a: plain\n  continued\n  lines\nb: \"double\n  folded\"\nc: 'single\n\n  blank'\n",
            "- [a, b, {c: d, e: [1, 2]}]\n- {}\n- []\n- - nested\n  - list\n- key: value # comment\n",
            "{\"json\": [1, 2.5, true, null, \"s\"], \"o\": {\"k\": \"v\"}}",
            "---\nversion: 1\nhooks:\n- id: x\n  on: pre_tool\n  tools: [shell]\n...\n",
            "a: b: c\n",
            "a:\n  - 1\n  -\n  - 3\n",
            "'quoted key': 1\n\"true\": 2\n1: 3\n1.0: 4\n-5: 5\n",
            "a: http://example.com:8080/path?q=1#frag\nb: '#not comment'\nc: x#y\nd: -dash\ne: ?q\n",
            "\u{feff}a: 1\n",
            "a: \u{e9}t\u{e9}\nb: \u{1f600}\n",
            "key:    spaced    \nother:\ttabbed\n",
            "a: inf\nb: NaN\nc: infinity\nd: -inf\ne: .5\nf: -.5e1\ng: +.inf\nh: e5\ni: _1\n",
        ];
        let taken = texts.iter().filter(|text| same_as_serde_norway(text)).count();
        // Most are read here (the others need serde_norway: an error, a float it cannot hold).
        assert!(taken >= texts.len() / 2, "{taken} of {} read here", texts.len());
    }

    #[test]
    fn both_parsers_resolve_every_number_like_scalar_alike() {
        let signs = ["", "+", "-", "++", "+-", "-+"];
        let prefixes = ["", "0", "00", "0x", "0X", "0o", "0b", ".", "0."];
        let bodies = [
            "",
            "0",
            "1",
            "7",
            "10",
            "1F",
            "ff",
            "102",
            "8",
            "1_0",
            "e5",
            "1e3",
            "5.",
            ".5",
            "5e-1",
            "inf",
            "nan",
            ".inf",
            ".Inf",
            ".nan",
            ".NaN",
            "infinity",
            "8000000000000000",
            "8000000000000001",
            "ffffffffffffffff",
            "10000000000000000",
            "ffffffffffffffffffffffffffffffff",
            "100000000000000000000000000000000",
            "9223372036854775807",
            "9223372036854775808",
            "9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "170141183460469231731687303715884105728",
            "170141183460469231731687303715884105729",
            "340282366920938463463374607431768211455",
            "340282366920938463463374607431768211456",
            "1000000000000000000000000000000000000000",
        ];
        let mut taken = 0;
        for sign in signs {
            for prefix in prefixes {
                for body in bodies {
                    let scalar = format!("{sign}{prefix}{body}");
                    if scalar.is_empty() || scalar.starts_with(['-', '.']) && scalar.len() == 1 {
                        continue;
                    }
                    if same_as_serde_norway(&format!("a: {scalar}\n")) {
                        taken += 1;
                    }
                }
            }
        }
        assert!(taken > 300, "only {taken} scalars were resolved here");
    }

    #[test]
    fn both_parsers_agree_on_every_yaml_file_of_the_repository() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut stack = vec![root];
        let (mut compared, mut seen) = (0, 0);
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if path.is_dir() {
                    if !name.starts_with('.') && name != "target" && name != "node_modules" {
                        stack.push(path);
                    }
                } else if name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".snap") {
                    let Ok(text) = std::fs::read_to_string(&path) else { continue };
                    seen += 1;
                    // A snapshot holds YAML after its `---` header; every file is also tried whole.
                    for text in [text.as_str(), text.splitn(3, "---\n").nth(2).unwrap_or("")] {
                        if !text.trim().is_empty() && same_as_serde_norway(text) {
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(seen > 20 && compared > 20, "{seen} files seen, {compared} compared");
    }
}
