//! Properties of the normalizer and the matcher over generated input: loading never panics and always answers;
//! the content hash ignores key order, YAML versus JSON, and the `on`/`tools` aliases' spelling of the same hook;
//! a dropped hook always leaves an error; an exact matcher list matches exactly its names.

use std::path::Path;

use hook_config::{FileContext, Format, IssueSeverity, Matcher, parse_str};
use hook_types::Origin;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn cx() -> FileContext<'static> {
    FileContext {
        origin: Origin::User,
        workspace: Path::new("/ws"),
        root: Path::new("/home/u/.config/hooks"),
        source_id: None,
    }
}

/// Any JSON value, a few levels deep, with strings that include the field names and event names the reader knows.
fn any_json() -> impl Strategy<Value = Value> {
    let word = prop_oneof![
        Just("on".to_owned()),
        Just("kind".to_owned()),
        Just("command".to_owned()),
        Just("prompt".to_owned()),
        Just("pre_tool".to_owned()),
        Just("shell".to_owned()),
        Just("argv".to_owned()),
        Just("message".to_owned()),
        Just("timeout_ms".to_owned()),
        Just("hooks".to_owned()),
        "\\PC{0,12}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        word.clone().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((word.clone(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// A valid prompt or command hook, as a JSON object with its keys in a generated order.
fn valid_hook() -> impl Strategy<Value = (Vec<(String, Value)>, String)> {
    let event = prop_oneof![Just("pre_tool"), Just("post_tool"), Just("turn_start"), Just("PreToolUse")];
    let body = prop_oneof![
        "[a-z][a-z ]{0,19}"
            .prop_map(|m| vec![("kind".to_owned(), Value::from("prompt")), ("message".to_owned(), Value::from(m))]),
        ("[a-z]{1,8}", 100u64..600_000).prop_map(|(cmd, t)| vec![
            ("kind".to_owned(), Value::from("command")),
            ("argv".to_owned(), Value::from(vec![cmd, "--flag".to_owned()])),
            ("timeout_ms".to_owned(), Value::from(t)),
        ]),
    ];
    (event, body, "[a-z][a-z0-9-]{0,10}").prop_map(|(event, mut body, id)| {
        body.push(("on".to_owned(), Value::from(event)));
        body.push(("id".to_owned(), Value::from(id.clone())));
        (body, id)
    })
}

fn object(pairs: &[(String, Value)]) -> Value {
    Value::Object(pairs.iter().cloned().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Normalization never throws: any tree in either syntax loads, each hook with a 16-hex hash, and a hook that
    /// does not load leaves an error-level issue behind (the file is one issue, or the hook has its own).
    #[test]
    fn any_declaration_file_loads_without_panicking(value in any_json()) {
        let json = serde_json::to_string(&value).unwrap();
        let yaml = serde_norway::to_string(&value).unwrap();
        for (text, name) in [(json.as_str(), "hooks.json"), (yaml.as_str(), "hooks.yaml")] {
            let load = parse_str(text, Path::new(name), Format::Native, &cx());
            for hook in &load.hooks {
                prop_assert_eq!(hook.hash.len(), 16);
                prop_assert!(hook.hash.bytes().all(|b| b.is_ascii_hexdigit()));
            }
            let entries = match &value {
                Value::Array(items) => items.len(),
                Value::Object(map) => map.get("hooks").and_then(Value::as_array).map_or(0, Vec::len),
                _ => 0,
            };
            if load.hooks.len() < entries {
                prop_assert!(load.issues.iter().any(|i| i.severity == IssueSeverity::Error), "{:?}", load.issues);
            }
        }
    }

    /// The content hash is a contract: the same hook in YAML or JSON, with its keys in any order, hashes the same.
    #[test]
    fn key_order_and_syntax_do_not_change_the_hash((pairs, id) in valid_hook(), seed in any::<u64>()) {
        let mut shuffled = pairs.clone();
        let n = shuffled.len();
        for i in (1..n).rev() {
            shuffled.swap(i, (seed.wrapping_mul(i as u64 + 7) % (i as u64 + 1)) as usize);
        }
        let json = serde_json::to_string(&vec![object(&pairs)]).unwrap();
        let yaml = serde_norway::to_string(&vec![object(&shuffled)]).unwrap();
        let a = parse_str(&json, Path::new("hooks.json"), Format::Native, &cx());
        let b = parse_str(&yaml, Path::new("hooks.yaml"), Format::Native, &cx());
        prop_assert_eq!(a.hooks.len(), 1, "{:?}", a.issues);
        prop_assert_eq!(b.hooks.len(), 1, "{:?}", b.issues);
        prop_assert_eq!(&a.hooks[0].id, &id);
        prop_assert_eq!(&a.hooks[0].hash, &b.hooks[0].hash);
    }

    /// A matcher of plain names is an exact list: it matches each of its names and nothing that only contains one.
    #[test]
    fn an_exact_matcher_matches_exactly_its_names(names in prop::collection::vec("[A-Za-z][A-Za-z0-9_]{0,8}", 1..5), other in "[A-Za-z0-9_]{1,10}") {
        let matcher = Matcher::parse(&names.join("|")).unwrap().expect("names make a matcher");
        for name in &names {
            prop_assert!(matcher.matches(name));
            let longer = format!("{name}X");
            prop_assert_eq!(matcher.matches(&longer), names.contains(&longer));
        }
        prop_assert_eq!(matcher.matches(&other), names.contains(&other));
        let spaced = Matcher::parse(&names.join(" , ")).unwrap().unwrap();
        prop_assert!(names.iter().all(|n| spaced.matches(n)));
    }

    /// Any pattern compiles or is refused, never panics; a compiled one answers for any value; `*` and blanks
    /// match everything.
    #[test]
    fn any_matcher_pattern_compiles_or_is_refused(pattern in "\\PC{0,24}", value in "\\PC{0,24}") {
        match Matcher::parse(&pattern) {
            Ok(Some(matcher)) => { let _ = matcher.matches(&value); }
            Ok(None) => prop_assert!(pattern.trim().is_empty() || pattern.trim() == "*" || pattern.chars().all(|c| matches!(c, '|' | ',' | ' '))),
            Err(_) => {}
        }
    }
}
