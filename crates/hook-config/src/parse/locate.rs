//! Finding the line:column of one node of a parsed file.
//!
//! serde_norway keeps positions only in its errors: when a visitor fails, the error is stamped with the position of
//! the node being deserialized. So to place a node we deserialize the text again, walking straight to that node,
//! and fail there on purpose; the error's location is the node's. This costs one re-parse per issue, not per file,
//! and keeps a single YAML parser in the workspace. JSON is valid YAML for this purpose, so JSON files are placed
//! the same way (their syntax errors come from serde_json itself).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One step from a node to a child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// The value of this key of a mapping.
    Key(String),
    /// This element of a sequence.
    Index(usize),
}

/// The path from the document root to a node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NodePath(pub(crate) Vec<Seg>);

impl NodePath {
    /// This path extended by a key.
    pub(crate) fn key(&self, key: &str) -> NodePath {
        let mut segs = self.0.clone();
        segs.push(Seg::Key(key.to_owned()));
        NodePath(segs)
    }

    /// This path extended by an index.
    pub(crate) fn index(&self, index: usize) -> NodePath {
        let mut segs = self.0.clone();
        segs.push(Seg::Index(index));
        NodePath(segs)
    }
}

/// Which position of the last step to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// Where the node (a key's value, a sequence element) starts.
    Node,
    /// Where the key of the last step is written (for unknown or duplicate keys). Same as `Node` when the last step
    /// is an index.
    Key,
}

/// What the walk raises when it reaches its node; any other error means the node was not reached.
const FOUND: &str = "\u{0}hook-config:found";

/// The 1-based (line, column) of the node at `path` in a YAML (or JSON) `text`, if it can be placed.
pub(crate) fn locate(text: &str, path: &NodePath, target: Target) -> Option<(usize, usize)> {
    let deserializer = serde_norway::Deserializer::from_str(text);
    let err = Walk { rest: &path.0, target }.deserialize(deserializer).err()?;
    if !err.to_string().contains(FOUND) {
        return None;
    }
    err.location().map(|l| (l.line(), l.column()))
}

/// Walks down `rest`, failing with [`FOUND`] at the target.
struct Walk<'p> {
    rest: &'p [Seg],
    target: Target,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.rest.first() {
            None => deserializer.deserialize_any(Found),
            Some(Seg::Index(_)) => deserializer.deserialize_seq(self),
            Some(Seg::Key(_)) => deserializer.deserialize_map(self),
        }
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a node on the path")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some(Seg::Index(wanted)) = self.rest.first() else { return Ok(()) };
        for _ in 0..*wanted {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Walk { rest: &self.rest[1..], target: self.target })?;
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some(Seg::Key(wanted)) = self.rest.first() else { return Ok(()) };
        let at_key = self.rest.len() == 1 && self.target == Target::Key;
        while let Some(key) = map.next_key_seed(KeyProbe { wanted, fail: at_key })? {
            if key == *wanted {
                return map.next_value_seed(Walk { rest: &self.rest[1..], target: self.target });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Reads a key; fails with [`FOUND`] (positioned at the key) when it is the wanted one and `fail` is set.
struct KeyProbe<'w> {
    wanted: &'w str,
    fail: bool,
}

impl<'de> DeserializeSeed<'de> for KeyProbe<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        // Fail inside the key's own visitor: only there does the parser stamp the error with the key's position.
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyProbe<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        if self.fail && v == self.wanted { Err(E::custom(FOUND)) } else { Ok(v.to_owned()) }
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Ok(String::new())
    }
}

/// Fails with [`FOUND`] on whatever node it is asked to read, before consuming it.
struct Found;

impl<'de> Visitor<'de> for Found {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any node")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_some<D: Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, segs: &[Seg], target: Target) -> Option<(usize, usize)> {
        locate(text, &NodePath(segs.to_vec()), target)
    }

    fn key(k: &str) -> Seg {
        Seg::Key(k.into())
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
}
