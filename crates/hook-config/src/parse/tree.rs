//! Building a [`serde_json::Value`] from any self-describing deserializer, refusing duplicate keys.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Deserializes one node into a [`Value`].
pub(super) struct TreeSeed;

impl<'de> DeserializeSeed<'de> for TreeSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML or JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Err(custom(format_args!("the number {v} is out of range")))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Err(custom(format_args!("the number {v} is out of range")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| custom(format_args!("{v} is not a finite number")))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        TreeSeed.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(TreeSeed)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed { object: &object })? {
            let value = map.next_value_seed(TreeSeed)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, _data: A) -> Result<Value, A::Error> {
        // serde_norway presents a tagged node (`!name value`) as an enum.
        Err(custom("YAML tags (`!name`) are not supported here"))
    }
}

/// Deserializes a mapping key as a string (scalars are spelled as written), refusing one the mapping already has. The
/// error is raised inside the key's own visitor, so the parser stamps it with the duplicate key's position. The keys
/// seen so far are the mapping's own: no second set of copies.
struct KeySeed<'a> {
    object: &'a Map<String, Value>,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(UniqueKey { object: self.object })
    }
}

struct UniqueKey<'a> {
    object: &'a Map<String, Value>,
}

impl UniqueKey<'_> {
    fn check<E: de::Error>(self, key: &str) -> Result<String, E> {
        if self.object.contains_key(key) {
            Err(custom(format_args!("duplicate key `{key}`")))
        } else {
            Ok(key.to_owned())
        }
    }
}

impl<'de> Visitor<'de> for UniqueKey<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        self.check(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        self.check(&v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        self.check(&v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        self.check(&v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        self.check(&v.to_string())
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Err(custom("a mapping key must be a string, not null"))
    }
}

/// Marks the start of a message this module wrote, so [`message_of`] can drop what a parser puts before it (serde_norway
/// prefixes the node's path).
const OWN: char = '\u{1}';

/// A custom error whose text [`message_of`] recovers exactly.
fn custom<E: de::Error>(message: impl fmt::Display) -> E {
    E::custom(format_args!("{OWN}{message}"))
}

/// The message of a parser error, without a path prefix serde_norway adds to messages written here.
pub(super) fn message_of(error: &str) -> &str {
    error.split_once(OWN).map_or(error, |(_, own)| own)
}
