//! SQL values as the engine passes them around: arguments, returned columns,
//! what a process remembers, and the cells of a table snapshot.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One SQLite value. Reals keep their bits so a value hashes and compares
/// exactly (exploration uses values as part of a state's identity).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(
    untagged,
    // Seen by authors (an expected value in a scenario): a sentence, not
    // serde's "data did not match any variant of untagged enum Value".
    expecting = "a value: a number, a string, a boolean or `{ blob = \"HEX\" }`"
)]
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
