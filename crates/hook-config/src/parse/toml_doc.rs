//! TOML files (mecha's config, Codex's `config.toml`): the same [`Value`] tree the YAML and JSON files build, and
//! the positions of its nodes from the spans the `toml` crate keeps.
//!
//! A TOML datetime has no JSON form; it becomes its TOML text, a string, which no reader expects anywhere.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use toml::Spanned;

use super::SyntaxError;
use super::positions::{NodePath, Positions};

/// Parses a TOML document. `Ok(None)` when it declares nothing (empty, or only comments).
pub(super) fn parse(text: &str) -> Result<Option<Value>, SyntaxError> {
    let table: toml::Table = toml::from_str(text).map_err(|err| {
        let (line, column) = match err.span() {
            Some(span) => {
                let (line, column) = line_column(text, span.start);
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        SyntaxError { message: err.message().trim_end().to_owned(), line, column }
    })?;
    if table.is_empty() {
        return Ok(None);
    }
    Ok(Some(to_json(toml::Value::Table(table))))
}

/// Where each node of a TOML `text` is. A text that does not parse places nothing.
pub(super) fn positions(text: &str) -> Positions {
    let mut nodes = HashMap::new();
    if let Ok(root) = toml::from_str::<Spanned<Node>>(text) {
        collect(text, root.into_inner(), NodePath::default(), &mut nodes);
    }
    Positions::from_nodes(nodes)
}

fn to_json(value: toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::Number(i.into()),
        toml::Value::Float(f) => Number::from_f64(f).map_or_else(|| Value::String(f.to_string()), Value::Number),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(items) => Value::Array(items.into_iter().map(to_json).collect()),
        toml::Value::Table(table) => {
            Value::Object(table.into_iter().map(|(k, v)| (k, to_json(v))).collect::<Map<_, _>>())
        }
    }
}

/// A node with the spans of its children (the root's own span is not needed).
enum Node {
    Table(Vec<(Spanned<String>, Spanned<Node>)>),
    Array(Vec<Spanned<Node>>),
    Leaf,
}

type Nodes = HashMap<NodePath, (Option<(usize, usize)>, (usize, usize))>;

fn collect(text: &str, node: Node, path: NodePath, nodes: &mut Nodes) {
    match node {
        Node::Table(entries) => {
            for (key, value) in entries {
                let child = path.key(key.get_ref());
                let key_at = line_column(text, key.span().start);
                let value_at = line_column(text, value.span().start);
                nodes.insert(child.clone(), (Some(key_at), value_at));
                collect(text, value.into_inner(), child, nodes);
            }
        }
        Node::Array(items) => {
            for (i, item) in items.into_iter().enumerate() {
                let child = path.index(i);
                let at = line_column(text, item.span().start);
                nodes.insert(child.clone(), (None, at));
                collect(text, item.into_inner(), child, nodes);
            }
        }
        Node::Leaf => {}
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TOML value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_str<E>(self, _: &str) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Node>>()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let value = map.next_value::<Spanned<Node>>()?;
            entries.push((key, value));
        }
        Ok(Node::Table(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Target;
    use serde_json::json;

    const CONFIG: &str = "model = \"x\"\n\n[[hook]]\nevent = \"pre_tool\"\ncommand = \"./guard.sh\"\n\n[[hook]]\nevent = \"post_tool\"\ntools = [\"shell\", \"edit\"]\n";

    #[test]
    fn toml_builds_the_same_tree_as_json() {
        let tree = parse(CONFIG).unwrap().unwrap();
        assert_eq!(tree["hook"][1], json!({"event": "post_tool", "tools": ["shell", "edit"]}));
        assert_eq!(parse("# nothing\n").unwrap(), None);
    }

    #[test]
    fn syntax_errors_and_nodes_carry_line_and_column() {
        let err = parse("[[hook]]\nevent = \n").unwrap_err();
        assert_eq!(err.line, Some(2), "{err:?}");
        let positions = positions(CONFIG);
        let at = |segs: &[&str], index: Option<usize>, target| {
            let mut path = NodePath::default().key("hook");
            if let Some(i) = index {
                path = path.index(i);
            }
            for seg in segs {
                path = path.key(seg);
            }
            positions.get(&path, target)
        };
        assert_eq!(at(&["command"], Some(0), Target::Key), Some((5, 1)));
        assert_eq!(at(&["command"], Some(0), Target::Node), Some((5, 11)));
        assert_eq!(at(&["tools"], Some(1), Target::Node), Some((9, 9)));
    }
}
