//! Where each node of a file is: line:column for every key and value, from one pass over the parser's events.
//!
//! The tree a file parses into has no positions (serde_norway keeps them only in its errors), so issues are placed
//! with a second, event-level reading by `saphyr-parser`: one linear pass that records, for every node, where it
//! starts and where its key is written. It runs only for a file that has an issue, once. JSON is YAML 1.2, so JSON
//! files are placed the same way. A node the pass cannot find (the two parsers disagree on some exotic input) simply
//! has no position.

use std::borrow::Cow;
use std::collections::HashMap;

use saphyr_parser::{Event, Parser, Span};
use smallvec::SmallVec;

/// One step from a node to a child.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Seg {
    /// The value of this key of a mapping (borrowed when a reader knows the key's spelling: no allocation).
    Key(Cow<'static, str>),
    /// This element of a sequence.
    Index(usize),
}

/// The path from the document root to a node.
///
/// Readers build one for every key and element of every file, but only a file with an issue ever looks one up, so
/// building them must be cheap: paths up to three steps deep (a hook's field in `{ hooks: [...] }`) are stored
/// inline; only a key's text is allocated. At 100 000 hooks the allocations saved were a sixth of the load.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct NodePath(pub(crate) SmallVec<[Seg; 3]>);

impl NodePath {
    /// This path extended by a key.
    pub(crate) fn key(&self, key: &str) -> NodePath {
        self.child(Seg::Key(Cow::Owned(key.to_owned())))
    }

    /// This path extended by a key whose spelling is known in advance.
    pub(crate) fn static_key(&self, key: &'static str) -> NodePath {
        self.child(Seg::Key(Cow::Borrowed(key)))
    }

    /// This path extended by an index.
    pub(crate) fn index(&self, index: usize) -> NodePath {
        self.child(Seg::Index(index))
    }

    /// The longer path, allocated (if at all) once at its final size.
    fn child(&self, seg: Seg) -> NodePath {
        let mut segs = SmallVec::with_capacity(self.0.len() + 1);
        segs.extend(self.0.iter().cloned());
        segs.push(seg);
        NodePath(segs)
    }
}

/// Which position of a node to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// Where the node (a key's value, a sequence element) starts.
    Node,
    /// Where the key of the last step is written (for unknown or duplicate keys); where the node starts when the
    /// last step is an index.
    Key,
}

/// A 1-based (line, column).
type Position = (usize, usize);

/// The positions of every node of one text.
#[derive(Debug, Default)]
pub(crate) struct Positions {
    nodes: HashMap<NodePath, (Option<Position>, Position)>,
}

impl Positions {
    /// Reads `text` once. Stops quietly at a syntax error: what came before it is still placed.
    pub(crate) fn of(text: &str) -> Positions {
        let mut walk = Walk::default();
        for item in Parser::new_from_str(text) {
            let Ok((event, span)) = item else { break };
            walk.on_event(event, span);
        }
        Positions { nodes: walk.nodes }
    }

    /// Positions found by another reading (a TOML file's spans): for each node, where its key is written (if it has
    /// one) and where it starts.
    pub(super) fn from_nodes(nodes: HashMap<NodePath, (Option<Position>, Position)>) -> Positions {
        Positions { nodes }
    }

    /// The position of the node at `path`, if it was found.
    pub(crate) fn get(&self, path: &NodePath, target: Target) -> Option<Position> {
        let (key, node) = self.nodes.get(path)?;
        match target {
            Target::Key => Some(key.unwrap_or(*node)),
            Target::Node => Some(*node),
        }
    }
}

/// An open collection while walking the events.
enum Frame {
    Seq {
        path: NodePath,
        next: usize,
    },
    Map {
        path: NodePath,
        /// The key whose value comes next, with its position; `None` while a key is expected.
        key: Option<(Option<String>, Position)>,
    },
    /// A collection without a path — a mapping key, or the value of such a key: nothing inside it is placed.
    /// Counts nested collections so the ends balance.
    Unnamed {
        depth: usize,
        at: Position,
        /// It is a key: when it ends, its value comes next.
        is_key: bool,
    },
}

#[derive(Default)]
struct Walk {
    stack: Vec<Frame>,
    nodes: HashMap<NodePath, (Option<Position>, Position)>,
}

impl Walk {
    fn on_event(&mut self, event: Event<'_>, span: Span) {
        let at = (span.start.line(), span.start.col() + 1);
        match event {
            Event::Scalar(value, ..) => {
                if self.is_key() {
                    self.set_key(Some(value.into_owned()), at);
                } else {
                    self.node(at);
                }
            }
            Event::Alias(_) => {
                if self.is_key() {
                    self.set_key(None, at);
                } else {
                    self.node(at);
                }
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                let is_seq = matches!(event, Event::SequenceStart(..));
                if let Some(Frame::Unnamed { depth, .. }) = self.stack.last_mut() {
                    *depth += 1;
                } else if self.is_key() {
                    self.stack.push(Frame::Unnamed { depth: 0, at, is_key: true });
                } else if let Some(path) = self.node(at) {
                    self.stack.push(if is_seq { Frame::Seq { path, next: 0 } } else { Frame::Map { path, key: None } });
                } else {
                    self.stack.push(Frame::Unnamed { depth: 0, at, is_key: false });
                }
            }
            Event::SequenceEnd | Event::MappingEnd => match self.stack.last_mut() {
                Some(Frame::Unnamed { depth, .. }) if *depth > 0 => *depth -= 1,
                Some(Frame::Unnamed { at, is_key, .. }) => {
                    let (at, is_key) = (*at, *is_key);
                    self.stack.pop();
                    if is_key {
                        self.set_key(None, at);
                    }
                }
                _ => {
                    self.stack.pop();
                }
            },
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentStart(_) | Event::DocumentEnd => {}
        }
    }

    /// Whether the next node is a mapping key.
    fn is_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
    }

    fn set_key(&mut self, name: Option<String>, at: Position) {
        if let Some(Frame::Map { key, .. }) = self.stack.last_mut() {
            *key = Some((name, at));
        }
    }

    /// Records a node (not a key) starting at `at`; returns its path if it has one.
    fn node(&mut self, at: Position) -> Option<NodePath> {
        let (path, key_at) = match self.stack.last_mut() {
            None => (NodePath::default(), None),
            Some(Frame::Seq { path, next }) => {
                *next += 1;
                (path.index(*next - 1), None)
            }
            Some(Frame::Map { path, key }) => match key.take() {
                Some((Some(name), key_at)) => (path.key(&name), Some(key_at)),
                _ => return None,
            },
            Some(Frame::Unnamed { .. }) => return None,
        };
        self.nodes.entry(path.clone()).or_insert((key_at, at));
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, segs: &[Seg], target: Target) -> Option<(usize, usize)> {
        Positions::of(text).get(&NodePath(segs.iter().cloned().collect()), target)
    }

    fn key(k: &str) -> Seg {
        Seg::Key(Cow::Owned(k.to_owned()))
    }

    #[test]
    fn places_values_keys_and_elements_in_yaml_and_json() {
        let yaml = "version: 1\nhooks:\n  - on: pre_tool\n    argv: [sh, -c, 'exit 0']\n  - on: post_tool\n    timeout_ms: 5\n";
        assert_eq!(at(yaml, &[key("hooks"), Seg::Index(1)], Target::Node), Some((5, 5)));
        assert_eq!(at(yaml, &[key("hooks"), Seg::Index(1), key("timeout_ms")], Target::Node), Some((6, 17)));
        assert_eq!(at(yaml, &[key("hooks"), Seg::Index(1), key("timeout_ms")], Target::Key), Some((6, 5)));
        assert_eq!(at(yaml, &[key("hooks"), Seg::Index(0), key("argv"), Seg::Index(2)], Target::Node), Some((4, 20)));
        assert_eq!(at(yaml, &[key("hooks"), Seg::Index(7)], Target::Node), None);
        assert_eq!(at(yaml, &[key("nope")], Target::Key), None);

        let json = "{\n  \"hooks\": [\n    {\"on\": \"pre_tool\", \"timeout_ms\": 5}\n  ]\n}\n";
        assert_eq!(at(json, &[key("hooks"), Seg::Index(0), key("timeout_ms")], Target::Key), Some((3, 24)));
        assert_eq!(at(json, &[key("hooks"), Seg::Index(0), key("timeout_ms")], Target::Node), Some((3, 38)));
    }

    #[test]
    fn complex_keys_and_aliases_do_not_shift_later_paths() {
        let yaml = "a: &x {p: 1}\n? [k, l]\n: {deep: {q: 2}}\nb: *x\nc:\n  - 3\n";
        assert_eq!(at(yaml, &[key("b")], Target::Node), Some((4, 4)));
        assert_eq!(at(yaml, &[key("c"), Seg::Index(0)], Target::Node), Some((6, 5)));
        assert_eq!(at(yaml, &[key("a"), key("p")], Target::Node), Some((1, 11)));
    }

    #[test]
    fn a_syntax_error_keeps_what_came_before_it() {
        let yaml = "- on: pre_tool\n  kind: command\n- on: [unclosed\n";
        assert_eq!(at(yaml, &[Seg::Index(0), key("kind")], Target::Node), Some((2, 9)));
    }
}
