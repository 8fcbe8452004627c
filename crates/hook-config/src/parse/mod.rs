//! Parsing a declaration file into a JSON tree, keeping positions.
//!
//! YAML goes through `saphyr-parser` in one streaming pass when the file is plainly written (`plain_yaml`), else
//! through `serde_norway` (the maintained fork of serde_yaml); JSON through `serde_json`; all build the
//! same [`serde_json::Value`] tree, so every format reader works on one shape. Syntax errors carry the parser's
//! line:column. A tree has no positions of its own; [`Positions`] places its nodes, read once for a file that has
//! an issue.

mod depth;
mod line_yaml;
mod plain_yaml;
mod positions;
mod toml_doc;
mod tree;

use std::path::Path;

pub(crate) use positions::{NodePath, Positions, Target};

use serde::de::DeserializeSeed;
use serde_json::Value;

/// The surface syntax of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// YAML (also what any file not named `*.json` is read as).
    Yaml,
    /// JSON.
    Json,
    /// TOML (`*.toml`: mecha's config, Codex's `config.toml`).
    Toml,
}

impl Syntax {
    /// JSON for `*.json`, TOML for `*.toml`, YAML otherwise.
    pub(crate) fn of(path: &Path) -> Syntax {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("json") => Syntax::Json,
            Some(ext) if ext.eq_ignore_ascii_case("toml") => Syntax::Toml,
            _ => Syntax::Yaml,
        }
    }
}

/// A file that does not parse: the parser's message and, where it gives one, the 1-based position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) message: String,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
}

/// Parses `text` into a tree. `Ok(None)` for a document with no content (empty, blanks, only comments).
///
/// Duplicate keys in one mapping are a syntax error here (serde_json would silently keep the last one): a key
/// written twice is almost always a mistake, and which copy wins should not be a parser's accident.
pub(crate) fn parse(text: &str, syntax: Syntax, max_depth: usize) -> Result<Option<Value>, SyntaxError> {
    if let Some((line, column)) = depth::too_deep(text, max_depth) {
        return Err(SyntaxError {
            message: format!("lists and maps nest deeper than {max_depth} levels (the limit)"),
            line: Some(line),
            column: Some(column),
        });
    }
    match syntax {
        Syntax::Toml => toml_doc::parse(text),
        Syntax::Yaml => {
            if yaml_is_blank(text) {
                return Ok(None);
            }
            // Most files have the usual layout, read line by line; most others are plainly written, read in one
            // streaming pass. The rest, and every error, as before.
            if let Some(value) = line_yaml::parse(text).or_else(|| plain_yaml::parse(text)) {
                return Ok(non_null(value));
            }
            yaml_through_serde_norway(text)
        }
        Syntax::Json => {
            if text.trim().is_empty() {
                return Ok(None);
            }
            let mut deserializer = serde_json::Deserializer::from_str(text);
            let value = tree::TreeSeed.deserialize(&mut deserializer).and_then(|value| {
                deserializer.end()?;
                Ok(value)
            });
            value.map(non_null).map_err(|err| {
                let position = (err.line() > 0).then(|| (err.line(), err.column()));
                SyntaxError {
                    message: without_position(tree::message_of(&err.to_string()), position),
                    line: position.map(|p| p.0),
                    column: position.map(|p| p.1),
                }
            })
        }
    }
}

/// A YAML text through `serde_norway`: every file `plain_yaml` leaves, and every syntax error.
fn yaml_through_serde_norway(text: &str) -> Result<Option<Value>, SyntaxError> {
    let deserializer = serde_norway::Deserializer::from_str(text);
    tree::TreeSeed.deserialize(deserializer).map(non_null).map_err(|err| {
        let position = err.location().map(|l| (l.line(), l.column()));
        SyntaxError {
            message: without_position(tree::message_of(&err.to_string()), position),
            line: position.map(|p| p.0),
            column: position.map(|p| p.1),
        }
    })
}

/// Where the nodes of `text`, the contents of `path`, are: TOML files by their spans, YAML and JSON by one event pass.
pub(crate) fn positions(path: &Path, text: &str) -> Positions {
    match Syntax::of(path) {
        Syntax::Toml => toml_doc::positions(text),
        Syntax::Yaml | Syntax::Json => Positions::of(text),
    }
}

/// A document that is only `null` (`~`, or a lone `---`) declares nothing, like an empty one.
fn non_null(value: Value) -> Option<Value> {
    (!value.is_null()).then_some(value)
}

/// Whether a YAML text has nothing but blanks, comments and document markers.
fn yaml_is_blank(text: &str) -> bool {
    text.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#') || line == "---" || line == "..."
    })
}

/// Both parsers write the error's position into the message (" at line L column C"); it is reported separately.
/// Other positions (libyaml's "while parsing a flow sequence at line 2 column 9") stay: they point elsewhere.
fn without_position(message: &str, position: Option<(usize, usize)>) -> String {
    match position {
        Some((line, column)) => message.replacen(&format!(" at line {line} column {column}"), "", 1),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_and_json_build_the_same_tree() {
        let yaml = parse("- {on: pre_tool, timeout_ms: 1500, tools: [shell]}\n", Syntax::Yaml, 100).unwrap();
        let json = parse(r#"[{"on":"pre_tool","timeout_ms":1500,"tools":["shell"]}]"#, Syntax::Json, 100).unwrap();
        assert_eq!(yaml, json);
        assert_eq!(yaml, Some(json!([{"on": "pre_tool", "timeout_ms": 1500, "tools": ["shell"]}])));
    }

    #[test]
    fn blank_and_comment_only_documents_are_empty() {
        for text in ["", "\n\n", "# nothing yet\n", "---\n# still nothing\n", "~\n"] {
            assert_eq!(parse(text, Syntax::Yaml, 100), Ok(None), "{text:?}");
        }
        assert_eq!(parse("  \n", Syntax::Json, 100), Ok(None));
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err = parse("- on: pre_tool\n  kind: [command\n", Syntax::Yaml, 100).unwrap_err();
        assert_eq!(err.line, Some(3), "{err:?}");
        assert_eq!(err.message, "did not find expected ',' or ']', while parsing a flow sequence at line 2 column 9");
        let err = parse("[{\"on\": \"pre_tool\",}]", Syntax::Json, 100).unwrap_err();
        assert_eq!((err.line, err.column), (Some(1), Some(20)), "{err:?}");
    }

    #[test]
    fn duplicate_keys_are_refused_at_the_second_key() {
        let err = parse("- on: pre_tool\n  on: post_tool\n", Syntax::Yaml, 100).unwrap_err();
        assert_eq!(err.message, "duplicate key `on`");
        assert_eq!((err.line, err.column), (Some(2), Some(3)));
    }
}
