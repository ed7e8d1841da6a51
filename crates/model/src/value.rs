//! SQL values as the engine passes them around: arguments, returned columns,
//! what a process remembers, and the cells of a table snapshot.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One SQLite value. Reals keep their bits so a value hashes and compares
/// exactly (exploration uses values as part of a state's identity).
///
/// Serialized untagged (a JSON or TOML scalar, or `{"blob": "HEX"}`), and
/// read back by [`ValueVisitor`], which asks the format for whatever it holds
/// once, where serde's derived untagged form buffered each value and tried
/// the variants in turn, building an error message for each miss: reading
/// the bundled catalogue took 1.4x to 1.6x as long natively with it
/// (docs/PERFORMANCE.md), and the page and the worker read it as they start.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(untagged)]
pub enum Value {
    Null,
    Integer(i64),
    Real(RealBits),
    Text(String),
    Blob(Blob),
}

/// A float stored by its bits, so values are `Eq` and `Hash`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RealBits(u64);

impl RealBits {
    pub fn new(value: f64) -> Self {
        RealBits(value.to_bits())
    }
    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl Serialize for RealBits {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.get())
    }
}

impl<'de> Deserialize<'de> for RealBits {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        f64::deserialize(d).map(RealBits::new)
    }
}

/// Seen by authors (an expected value in a scenario): a sentence, not
/// serde's "data did not match any variant of untagged enum Value".
const VALUE_EXPECTED: &str = "a value: a number, a string, a boolean or `{ blob = \"HEX\" }`";

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

/// Reads a [`Value`] from what the format holds: null (or a unit) is
/// `Null`; an integer that fits `i64` is `Integer`, any other number
/// `Real`; a boolean 1 or 0, as SQLite reads `TRUE` and `FALSE`; a string
/// `Text`; a map with one `blob` string `Blob` (other keys are ignored, as
/// the derived form's `Blob` struct ignored them). Anything else (a list,
/// another map) is refused with [`VALUE_EXPECTED`] and what was found.
pub(crate) struct ValueVisitor;

impl<'de> serde::de::Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(VALUE_EXPECTED)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    /// SQLite's own reading of `TRUE` and `FALSE`.
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Integer(v.into()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Integer(v))
    }

    /// JSON's integers past `i64::MAX` come as `u64`: a real, as the
    /// derived form read them. (TOML's past `i64` come as 128 bits and are
    /// refused, as before.)
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or_else(|_| Value::Real(RealBits::new(v as f64)), Value::Integer))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Real(RealBits::new(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Text(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Text(v))
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        use serde::de::Error;
        let mut blob: Option<String> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key != "blob" {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            if blob.is_some() {
                return Err(A::Error::custom(VALUE_EXPECTED));
            }
            blob = Some(
                map.next_value::<String>()
                    .map_err(|_| A::Error::custom(VALUE_EXPECTED))?,
            );
        }
        blob.map(|blob| Value::Blob(Blob { blob }))
            .ok_or_else(|| A::Error::custom(VALUE_EXPECTED))
    }
}

/// Bytes, serialized as `{"blob": "hex"}` so they cannot be mistaken for text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Blob {
    pub blob: String,
}

impl Value {
    /// A blob from its bytes.
    pub fn blob(bytes: &[u8]) -> Value {
        Value::Blob(Blob {
            blob: bytes.iter().map(|byte| format!("{byte:02x}")).collect(),
        })
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }

    /// An approximate size in bytes, for the engine's size limits.
    pub fn size_bytes(&self) -> usize {
        match self {
            Value::Null | Value::Integer(_) | Value::Real(_) => 8,
            Value::Text(t) => t.len(),
            Value::Blob(b) => b.blob.len() / 2,
        }
    }
}

impl From<i64> for Value {
    fn from(value: i64) -> Self {
        Value::Integer(value)
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Self {
        Value::Text(value.to_string())
    }
}

impl From<String> for Value {
    fn from(value: String) -> Self {
        Value::Text(value)
    }
}

impl Blob {
    /// The bytes; pairs of characters that are not hex digits are skipped.
    pub fn bytes(&self) -> Vec<u8> {
        self.blob
            .as_bytes()
            .chunks(2)
            .filter_map(|pair| std::str::from_utf8(pair).ok())
            .filter_map(|pair| u8::from_str_radix(pair, 16).ok())
            .collect()
    }
}

/// SQL-literal style: `NULL`, `3`, `'worker-a'`, `x'00ff'`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => write!(f, "NULL"),
            Value::Integer(i) => write!(f, "{i}"),
            Value::Real(r) => write!(f, "{}", r.get()),
            Value::Text(t) => write!(f, "'{}'", t.replace('\'', "''")),
            Value::Blob(b) => write!(f, "x'{}'", b.blob),
        }
    }
}

/// For the tests of a reader that replaced a derived one: both readings of
/// `input` (lists, or their errors) must be the same values, or errors
/// that say the same (the derived form's words, before its position, are
/// in the reader's). Returns what the reader read where the derived form
/// refused, for the caller to judge; panics on any other difference.
#[cfg(test)]
pub(crate) fn read_as_derived<T, D, E>(
    input: &str,
    own: Result<Vec<T>, E>,
    derived: Result<Vec<D>, E>,
) -> Option<Vec<T>>
where
    T: PartialEq + fmt::Debug,
    D: Into<T>,
    E: fmt::Display,
{
    match (own, derived) {
        (Ok(own), Ok(derived)) => {
            let derived: Vec<T> = derived.into_iter().map(Into::into).collect();
            assert_eq!(own, derived, "{input}");
            None
        }
        (Err(own), Err(derived)) => {
            let (own, derived) = (own.to_string(), derived.to_string());
            let said = derived.split(" at line ").next().unwrap_or_default();
            assert!(own.contains(said), "{input}: {own} against {derived}");
            None
        }
        (Ok(own), Err(_)) => Some(own),
        (Err(own), Ok(derived)) => panic!(
            "{input}: refused ({own}) where the derived form read {:?}",
            derived.into_iter().map(Into::into).collect::<Vec<T>>()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived untagged form `Value` had before its own visitor: what
    /// every input must still read as, error messages included.
    #[derive(Debug, Deserialize)]
    #[serde(
        untagged,
        expecting = "a value: a number, a string, a boolean or `{ blob = \"HEX\" }`"
    )]
    enum Derived {
        Null,
        Integer(i64),
        Real(RealBits),
        Text(String),
        Blob(Blob),
    }

    impl From<Derived> for Value {
        fn from(derived: Derived) -> Value {
            match derived {
                Derived::Null => Value::Null,
                Derived::Integer(i) => Value::Integer(i),
                Derived::Real(r) => Value::Real(r),
                Derived::Text(t) => Value::Text(t),
                Derived::Blob(b) => Value::Blob(b),
            }
        }
    }

    /// Every shape a JSON or TOML value can take, valid or not.
    const SHAPES: &[&str] = &[
        "null",
        "0",
        "-1",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "18446744073709551615",
        "-9223372036854775809",
        "1.5",
        "-0.0",
        "1e300",
        "\"worker-a\"",
        "\"\"",
        "\"\\u00e9\\n\"",
        "true",
        "false",
        "[]",
        "[1]",
        "{}",
        "{\"blob\": \"00ff\"}",
        "{\"blob\": \"\"}",
        "{\"blob\": \"00\", \"other\": 1}",
        "{\"other\": 1, \"blob\": \"00\"}",
        "{\"blob\": 1}",
        "{\"blob\": null}",
        "{\"blob\": \"a\", \"blob\": \"b\"}",
        "{\"memory\": \"token\"}",
        "{\"blob\": {\"blob\": \"00\"}}",
    ];

    /// Both readings of `input`, as lists of values, or their errors.
    fn same<E: std::fmt::Display>(
        input: &str,
        own: Result<Vec<Value>, E>,
        derived: Result<Vec<Derived>, E>,
    ) {
        // A boolean, refused before although the message offered it, is
        // SQLite's 1 or 0.
        if let Some(own) = super::read_as_derived(input, own, derived) {
            let bit = Value::Integer(input.contains("true").into());
            let boolean = input.contains("true") || input.contains("false");
            assert!(boolean && own.iter().all(|v| *v == bit), "{input}: {own:?}");
        }
    }

    #[test]
    fn json_reads_as_the_derived_form_read() {
        use serde_json::from_str;
        use std::collections::BTreeMap;
        for shape in SHAPES {
            same(
                shape,
                from_str::<Value>(shape).map(|v| vec![v]),
                from_str::<Derived>(shape).map(|v| vec![v]),
            );
            // Inside a list and under a key, as reports and exercises hold them.
            let listed = format!("[{shape}, {shape}]");
            same(
                &listed,
                from_str::<Vec<Value>>(&listed),
                from_str::<Vec<Derived>>(&listed),
            );
            let keyed = format!("{{\"v\": {shape}}}");
            same(
                &keyed,
                from_str::<BTreeMap<String, Value>>(&keyed).map(|m| m.into_values().collect()),
                from_str::<BTreeMap<String, Derived>>(&keyed).map(|m| m.into_values().collect()),
            );
        }
    }

    #[cfg(feature = "toml")]
    #[test]
    fn toml_reads_as_the_derived_form_read() {
        #[derive(Debug, Deserialize)]
        struct Own {
            v: Value,
        }
        #[derive(Debug, Deserialize)]
        struct Old {
            v: Derived,
        }
        let toml_shapes = SHAPES
            .iter()
            .map(|shape| {
                shape
                    .replace("\": ", "\" = ")
                    .replace("{\"blob\"", "{ blob")
                    .replace(", \"other\"", ", other")
                    .replace("{\"other\"", "{ other")
                    .replace("{\"memory\"", "{ memory")
                    .replace(", \"blob\"", ", blob")
            })
            .chain(
                [
                    "1979-05-27",
                    "1979-05-27T07:32:00Z",
                    "inf",
                    "nan",
                    "0x10",
                    "'literal'",
                    "\"\"\"a\nb\"\"\"",
                ]
                .map(String::from),
            );
        for shape in toml_shapes {
            let file = format!("v = {shape}\n");
            same(
                &file,
                toml::from_str::<Own>(&file).map(|own| vec![own.v]),
                toml::from_str::<Old>(&file).map(|old| vec![old.v]),
            );
        }
    }
}
