//! Values crossing into and out of SQLite. The model's [`Value`] knows
//! nothing of rusqlite; these two conversions are the whole bridge.

use crate::value::Value;
use rusqlite::types::{ToSqlOutput, ValueRef};

/// A value read from SQLite.
pub fn value_from_ref(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(r) => Value::Real(crate::value::RealBits::new(r)),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::blob(b),
    }
}

/// A value bound as a statement's parameter.
pub struct Bind<'a>(pub &'a Value);

impl rusqlite::ToSql for Bind<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self.0 {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Integer(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Value::Real(r) => ToSqlOutput::Borrowed(ValueRef::Real(r.get())),
            Value::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            Value::Blob(b) => ToSqlOutput::Owned(rusqlite::types::Value::Blob(b.bytes())),
        })
    }
}
