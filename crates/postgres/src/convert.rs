//! Values across the wire: a parameter is written by the type the server
//! inferred for it, and a column is read into a [`Value`] as the scenarios
//! compare them (SQLite's: booleans are integers 1 and 0).

use crate::error::{Error, ParameterProblem};
use fencelab_model::value::{RealBits, Value};
use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use postgres::{Column, Row};

type BoxError = Box<dyn std::error::Error + Sync + Send>;

/// A parameter already checked against its type, ready to write.
#[derive(Debug)]
pub(crate) enum Parameter {
    Null,
    Int2(i16),
    Int4(i32),
    Int8(i64),
    Float4(f32),
    Float8(f64),
    Bool(bool),
    Text(String),
    Bytes(Vec<u8>),
}

fn is_text(ty: &Type) -> bool {
    [
        Type::TEXT,
        Type::VARCHAR,
        Type::BPCHAR,
        Type::NAME,
        Type::UNKNOWN,
    ]
    .contains(ty)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "NULL",
        Value::Integer(_) => "an integer",
        Value::Real(_) => "a real",
        Value::Text(_) => "text",
        Value::Blob(_) => "a blob",
    }
}

/// The parameter `name` with `value`, for a parameter of type `ty`.
pub(crate) fn parameter(name: &str, value: &Value, ty: &Type) -> Result<Parameter, Error> {
    let problem = |problem| Error::Parameter {
        name: name.to_string(),
        problem,
    };
    let mismatch = || {
        problem(ParameterProblem::Mismatch {
            type_name: ty.name().to_string(),
            value_kind: kind(value),
        })
    };
    let out_of_range = |value: i64| {
        problem(ParameterProblem::OutOfRange {
            type_name: ty.name().to_string(),
            value,
        })
    };
    Ok(match (value, ty) {
        (Value::Null, _) => Parameter::Null,
        (Value::Integer(i), &Type::INT2) => {
            Parameter::Int2(i16::try_from(*i).map_err(|_| out_of_range(*i))?)
        }
        (Value::Integer(i), &Type::INT4) => {
            Parameter::Int4(i32::try_from(*i).map_err(|_| out_of_range(*i))?)
        }
        (Value::Integer(i), &Type::INT8) => Parameter::Int8(*i),
        (Value::Integer(i), &Type::FLOAT4) => Parameter::Float4(*i as f32),
        (Value::Integer(i), &Type::FLOAT8) => Parameter::Float8(*i as f64),
        (Value::Real(r), &Type::FLOAT4) => Parameter::Float4(r.get() as f32),
        (Value::Real(r), &Type::FLOAT8) => Parameter::Float8(r.get()),
        (Value::Integer(0), &Type::BOOL) => Parameter::Bool(false),
        (Value::Integer(1), &Type::BOOL) => Parameter::Bool(true),
        (Value::Integer(_), &Type::BOOL) => return Err(mismatch()),
        (Value::Text(t), ty) if is_text(ty) => Parameter::Text(t.clone()),
        (Value::Integer(i), ty) if is_text(ty) => Parameter::Text(i.to_string()),
        (Value::Blob(b), &Type::BYTEA) => Parameter::Bytes(b.bytes()),
        (_, ty) if is_supported(ty) => return Err(mismatch()),
        (_, ty) => {
            return Err(problem(ParameterProblem::Unsupported {
                type_name: ty.name().to_string(),
            }));
        }
    })
}

fn is_supported(ty: &Type) -> bool {
    is_text(ty)
        || [
            Type::INT2,
            Type::INT4,
            Type::INT8,
            Type::FLOAT4,
            Type::FLOAT8,
            Type::BOOL,
            Type::BYTEA,
        ]
        .contains(ty)
}

impl ToSql for Parameter {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, BoxError> {
        match self {
            Parameter::Null => Ok(IsNull::Yes),
            Parameter::Int2(v) => v.to_sql(ty, out),
            Parameter::Int4(v) => v.to_sql(ty, out),
            Parameter::Int8(v) => v.to_sql(ty, out),
            Parameter::Float4(v) => v.to_sql(ty, out),
            Parameter::Float8(v) => v.to_sql(ty, out),
            Parameter::Bool(v) => v.to_sql(ty, out),
            // Text's own impl refuses `unknown` and `name`; their binary
            // form is the UTF-8 bytes all the same.
            Parameter::Text(v) => {
                out.extend_from_slice(v.as_bytes());
                Ok(IsNull::No)
            }
            Parameter::Bytes(v) => v.to_sql(ty, out),
        }
    }

    /// Checked in [`parameter`] already, against the inferred type.
    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// Refuses a statement whose result has a column fencelab cannot read,
/// before it runs.
pub(crate) fn check_columns(columns: &[Column]) -> Result<(), Error> {
    match columns.iter().find(|column| {
        !(is_supported(column.type_()) || [Type::NUMERIC, Type::VOID].contains(column.type_()))
    }) {
        Some(column) => Err(Error::UnsupportedColumn {
            column: column.name().to_string(),
            type_name: column.type_().name().to_string(),
        }),
        None => Ok(()),
    }
}

/// One cell of a row, read by its column's type.
struct Cell(Value);

impl<'a> FromSql<'a> for Cell {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Cell, BoxError> {
        let value = match *ty {
            Type::INT2 => Value::Integer(i16::from_sql(ty, raw)?.into()),
            Type::INT4 => Value::Integer(i32::from_sql(ty, raw)?.into()),
            Type::INT8 => Value::Integer(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(RealBits::new(f32::from_sql(ty, raw)?.into())),
            Type::FLOAT8 => Value::Real(RealBits::new(f64::from_sql(ty, raw)?)),
            Type::BOOL => Value::Integer(bool::from_sql(ty, raw)?.into()),
            Type::BYTEA => Value::blob(raw),
            Type::NUMERIC => Value::Text(numeric_text(raw)?),
            // `SELECT pg_advisory_lock(1)` returns a void column.
            Type::VOID => Value::Null,
            _ => Value::Text(std::str::from_utf8(raw)?.to_string()),
        };
        Ok(Cell(value))
    }

    fn from_sql_null(_: &Type) -> Result<Cell, BoxError> {
        Ok(Cell(Value::Null))
    }

    /// Checked in [`check_columns`] before the statement runs.
    fn accepts(_: &Type) -> bool {
        true
    }
}

/// A row's values, in its columns' order.
pub(crate) fn row(row: &Row) -> Result<Vec<Value>, Error> {
    row.columns()
        .iter()
        .enumerate()
        .map(|(index, column)| {
            row.try_get::<_, Cell>(index)
                .map(|cell| cell.0)
                .map_err(|error| Error::Unreadable {
                    column: column.name().to_string(),
                    message: error.to_string(),
                })
        })
        .collect()
}

/// A `numeric`'s binary form (base-10000 digits, a weight, a sign and a
/// display scale) as its decimal text, as `numeric_out` writes it.
fn numeric_text(raw: &[u8]) -> Result<String, BoxError> {
    let word = |index: usize| -> Result<u16, BoxError> {
        raw.get(index * 2..index * 2 + 2)
            .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
            .ok_or_else(|| "a numeric value cut short".into())
    };
    let (count, weight, sign, scale) = (
        word(0)? as usize,
        word(1)? as i16,
        word(2)?,
        word(3)? as usize,
    );
    match sign {
        0xC000 => return Ok("NaN".into()),
        0xD000 => return Ok("Infinity".into()),
        0xF000 => return Ok("-Infinity".into()),
        _ => {}
    }
    let digits = (0..count)
        .map(|i| word(4 + i))
        .collect::<Result<Vec<u16>, _>>()?;
    let digit = |group: i32| -> u16 {
        usize::try_from(group)
            .ok()
            .and_then(|g| digits.get(g))
            .copied()
            .unwrap_or(0)
    };
    let mut text = String::new();
    if sign == 0x4000 {
        text.push('-');
    }
    let weight = i32::from(weight);
    if weight < 0 {
        text.push('0');
    }
    for group in 0..=weight {
        let group_digits = digit(group);
        if group == 0 {
            text.push_str(&group_digits.to_string());
        } else {
            text.push_str(&format!("{group_digits:04}"));
        }
    }
    if scale > 0 {
        let mut fraction = String::new();
        let mut group = weight + 1;
        while fraction.len() < scale {
            fraction.push_str(&format!("{:04}", digit(group)));
            group += 1;
        }
        fraction.truncate(scale);
        text.push('.');
        text.push_str(&fraction);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(count: u16, weight: i16, sign: u16, scale: u16, digits: &[u16]) -> Vec<u8> {
        let mut raw = Vec::new();
        for word in [count, weight as u16, sign, scale].iter().chain(digits) {
            raw.extend_from_slice(&word.to_be_bytes());
        }
        raw
    }

    #[test]
    fn numerics_read_as_their_decimal_text() {
        assert_eq!(
            numeric_text(&numeric(2, 0, 0, 2, &[12, 3400])).ok(),
            Some("12.34".into())
        );
        assert_eq!(
            numeric_text(&numeric(2, 1, 0x4000, 0, &[1, 2])).ok(),
            Some("-10002".into())
        );
        assert_eq!(
            numeric_text(&numeric(1, -1, 0, 5, &[5])).ok(),
            Some("0.00050".into())
        );
        assert_eq!(
            numeric_text(&numeric(0, 0, 0, 0, &[])).ok(),
            Some("0".into())
        );
        assert_eq!(
            numeric_text(&numeric(1, 2, 0, 0, &[7])).ok(),
            Some("700000000".into())
        );
        assert_eq!(
            numeric_text(&numeric(0, 0, 0xC000, 0, &[])).ok(),
            Some("NaN".into())
        );
        assert!(numeric_text(&[0, 1]).is_err());
        assert!(numeric_text(&numeric(3, 0, 0, 0, &[1])).is_err());
    }

    #[test]
    fn parameters_are_checked_against_the_inferred_type() {
        assert!(matches!(
            parameter("a", &Value::Integer(7), &Type::INT4),
            Ok(Parameter::Int4(7))
        ));
        assert!(
            matches!(parameter("a", &Value::Integer(7), &Type::TEXT), Ok(Parameter::Text(t)) if t == "7")
        );
        assert!(matches!(
            parameter("a", &Value::Integer(1), &Type::BOOL),
            Ok(Parameter::Bool(true))
        ));
        assert!(matches!(
            parameter("a", &Value::Null, &Type::TIMESTAMPTZ),
            Ok(Parameter::Null)
        ));
        let refused = [
            (
                Value::Integer(70000),
                Type::INT2,
                "70000 does not fit the server's int2",
            ),
            (
                Value::Text("x".into()),
                Type::INT8,
                "the server expects int8 there, and it was given text",
            ),
            (
                Value::Integer(2),
                Type::BOOL,
                "the server expects bool there, and it was given an integer",
            ),
            (
                Value::Integer(2),
                Type::TIMESTAMPTZ,
                "the server expects timestamptz there, which fencelab cannot send",
            ),
        ];
        for (value, ty, sentence) in refused {
            let error = parameter("p", &value, &ty)
                .map(|_| ())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                error.starts_with(&format!("parameter `:p`: {sentence}")),
                "{error}"
            );
        }
    }
}
