//! Names: `SwapParameter` and `SwapColumn`.
//!
//! Fencing bugs are often the right check on the wrong value: the row's own
//! token compared with itself, `:actor` where `:host_id` was meant, the
//! actor's id where the process's identity was meant. `SwapParameter`
//! replaces each `:parameter` occurrence by each other parameter the
//! procedure uses that is in scope there, and by the built-ins (`:now`,
//! `:actor`, `:process`); a value returned by a statement is in scope only
//! after that statement.
//!
//! `SwapColumn` replaces a column in a WHERE, ON or CASE WHEN condition by
//! each other column of its table with the same declared type (from
//! [`Context::tables`], which the engine reads from SQLite), so the swapped
//! comparison still makes sense to a reader.
//!
//! Parameters are tokens, so a `:name` inside a string or a comment is never
//! swapped. A column is only swapped when it belongs to a table the statement
//! names (`alias.column` through `table AS alias`, `excluded.column` through
//! the INSERT's table) and its type is declared.

use super::shape;
use super::{Candidates, Context, Operator, Text, Unit, candidate};
use crate::mutate::TableColumns;
use crate::procedure::BUILT_IN_PARAMETERS;
use crate::procedure::lexer::TokenKind;
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn generate(text: &Text, context: &Context, out: &mut Candidates) {
    swap_parameters(text, out);
    for unit in &text.units {
        swap_columns(text, unit, context, out);
    }
}

/// The parameter name of a code token (`token` for `:token`).
fn parameter<'a>(unit: &'a Unit, i: usize) -> Option<&'a str> {
    (unit.kind(i) == Some(TokenKind::Parameter))
        .then(|| unit.token_text(i).strip_prefix(':'))
        .flatten()
}

fn swap_parameters(text: &Text, out: &mut Candidates) {
    // Where each value a statement returns first becomes a parameter: before
    // that statement it is not bound yet, and swapping it in would only make
    // the call fail (unless it is also an argument, which the text cannot
    // tell; such a swap is left out).
    let mut first_returned: BTreeMap<String, usize> = BTreeMap::new();
    for (index, unit) in text.units.iter().enumerate() {
        for name in shape::result_names(unit) {
            first_returned.entry(name).or_insert(index);
        }
    }
    let mut names: Vec<&str> = Vec::new();
    for unit in &text.units {
        for i in 0..unit.code.len() {
            if let Some(name) = parameter(unit, i)
                && !names.contains(&name)
            {
                names.push(name);
            }
        }
    }
    for (built_in, _) in BUILT_IN_PARAMETERS {
        if !names.contains(&built_in) {
            names.push(built_in);
        }
    }
    for (index, unit) in text.units.iter().enumerate() {
        for i in 0..unit.code.len() {
            let Some(name) = parameter(unit, i) else {
                continue;
            };
            let token = unit.code[i];
            let quoted = shape::context(unit, i, i + 1);
            let in_scope = |other: &str| first_returned.get(other).is_none_or(|&at| at < index);
            for other in names
                .iter()
                .filter(|&&other| other != name && in_scope(other))
            {
                out.push(candidate(
                    Operator::SwapParameter,
                    token.start,
                    Some(other),
                    format!("use :{other} instead of :{name} in {quoted}"),
                    text.splice(token.start..token.end, &format!(":{other}")),
                ));
            }
        }
    }
}

fn swap_columns(text: &Text, unit: &Unit, context: &Context, out: &mut Candidates) {
    let tables = shape::tables(unit);
    let known = |name: &str| {
        context
            .tables
            .iter()
            .find(|t| t.table.eq_ignore_ascii_case(name))
    };
    // A condition's own tokens, without the select lists of its subqueries
    // (their conditions are conditions of their own).
    let mut in_conditions: BTreeSet<usize> = BTreeSet::new();
    for condition in shape::conditions(unit) {
        let skipped = shape::subqueries(unit, condition.start, condition.end);
        in_conditions.extend(
            (condition.start..condition.end).filter(|i| !skipped.iter().any(|s| s.contains(i))),
        );
    }
    for i in in_conditions {
        if unit.kind(i) != Some(TokenKind::Word)
            || unit.kind(i + 1) == Some(TokenKind::OpenParen)
            || unit.is_punctuation(i + 1, ".")
        {
            continue;
        }
        let qualified = i >= 2 && unit.is_punctuation(i - 1, ".");
        let column = unit.token_text(i);
        let table: Option<&TableColumns> = if qualified {
            let qualifier = unit.token_text(i - 2);
            tables
                .iter()
                .find(|t| {
                    t.alias
                        .as_deref()
                        .is_some_and(|a| a.eq_ignore_ascii_case(qualifier))
                        || t.name.eq_ignore_ascii_case(qualifier)
                        || (t.inserted && qualifier.eq_ignore_ascii_case("excluded"))
                })
                .and_then(|t| known(&t.name))
        } else {
            tables.iter().filter_map(|t| known(&t.name)).find(|t| {
                t.columns
                    .iter()
                    .any(|(c, _)| c.eq_ignore_ascii_case(column))
            })
        };
        let Some(table) = table else {
            continue;
        };
        let Some((_, kind)) = table
            .columns
            .iter()
            .find(|(c, _)| c.eq_ignore_ascii_case(column))
        else {
            continue;
        };
        if kind.trim().is_empty() {
            continue;
        }
        let token = unit.code[i];
        let quoted = shape::context(unit, i, i + 1);
        for (other, _) in table.columns.iter().filter(|(other, other_kind)| {
            !other.eq_ignore_ascii_case(column) && other_kind.eq_ignore_ascii_case(kind)
        }) {
            out.push(candidate(
                Operator::SwapColumn,
                token.start,
                Some(other),
                format!("use the column `{other}` instead of `{column}` in {quoted}"),
                text.splice(token.start..token.end, other),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts, texts_with};
    use crate::mutate::Operator::{SwapColumn, SwapParameter};
    use crate::mutate::{Context, TableColumns};

    fn columns(table: &str, columns: &[(&str, &str)]) -> TableColumns {
        TableColumns {
            table: table.into(),
            columns: columns
                .iter()
                .map(|(c, t)| (c.to_string(), t.to_string()))
                .collect(),
        }
    }

    #[test]
    fn each_parameter_becomes_each_other_and_each_built_in() {
        let source = "UPDATE t SET a = :a WHERE k = :key;";
        assert_eq!(
            texts(source, SwapParameter),
            [
                "UPDATE t SET a = :actor WHERE k = :key;",
                "UPDATE t SET a = :key WHERE k = :key;",
                "UPDATE t SET a = :now WHERE k = :key;",
                "UPDATE t SET a = :process WHERE k = :key;",
                "UPDATE t SET a = :a WHERE k = :a;",
                "UPDATE t SET a = :a WHERE k = :actor;",
                "UPDATE t SET a = :a WHERE k = :now;",
                "UPDATE t SET a = :a WHERE k = :process;",
            ]
        );
        assert_eq!(
            described(source, SwapParameter)[0],
            [
                "p:1:18:swap-parameter:actor",
                "use :actor instead of :a in `a = :a`"
            ]
        );
    }

    #[test]
    fn a_returned_value_is_swapped_in_only_after_the_statement_that_returns_it() {
        let source = "SELECT a.k AS got, b FROM t a WHERE a.k = :key;\nUPDATE t SET b = :got WHERE k = :key RETURNING b AS done;";
        let swapped_in = |line: u32| -> Vec<String> {
            super::super::testing::of(source, SwapParameter, &Default::default())
                .into_iter()
                .filter(|m| m.position.line == line)
                .map(|m| m.id.rsplit(':').next().unwrap_or_default().to_string())
                .collect()
        };
        assert_eq!(swapped_in(1), ["actor", "now", "process"]);
        assert_eq!(
            swapped_in(2),
            [
                "actor", "key", "now", "process", "actor", "got", "now", "process"
            ]
        );
    }

    #[test]
    fn parameters_in_strings_and_comments_are_not_swapped() {
        let source = "SELECT ':b' AS s /* :c */ FROM t WHERE x = :now; -- :d\n-- @return s\n";
        assert_eq!(
            texts(source, SwapParameter),
            [
                "SELECT ':b' AS s /* :c */ FROM t WHERE x = :actor; -- :d\n-- @return s\n",
                "SELECT ':b' AS s /* :c */ FROM t WHERE x = :process; -- :d\n-- @return s\n",
            ]
        );
    }

    #[test]
    fn a_column_in_a_condition_becomes_each_other_column_of_its_type() {
        let context = Context {
            tables: vec![
                columns(
                    "leases",
                    &[
                        ("actor_id", "TEXT"),
                        ("process_identity", "text"),
                        ("token", "INTEGER"),
                        ("note", ""),
                    ],
                ),
                columns("hosts", &[("id", "TEXT"), ("name", "TEXT")]),
            ],
            constants: Vec::new(),
        };
        let source = "SELECT l.token FROM leases l JOIN hosts AS h ON h.id = l.actor_id\n WHERE token = :token AND note = :n AND actor_id = (SELECT name FROM hosts);";
        let mutated = texts_with(source, SwapColumn, &context);
        assert_eq!(
            mutated,
            [
                "SELECT l.token FROM leases l JOIN hosts AS h ON h.name = l.actor_id\n WHERE token = :token AND note = :n AND actor_id = (SELECT name FROM hosts);",
                "SELECT l.token FROM leases l JOIN hosts AS h ON h.id = l.process_identity\n WHERE token = :token AND note = :n AND actor_id = (SELECT name FROM hosts);",
                "SELECT l.token FROM leases l JOIN hosts AS h ON h.id = l.actor_id\n WHERE token = :token AND note = :n AND process_identity = (SELECT name FROM hosts);",
            ]
        );
    }

    #[test]
    fn excluded_reads_as_the_inserted_table() {
        let context = Context {
            tables: vec![columns("t", &[("k", "TEXT"), ("a", "INT"), ("b", "INT")])],
            constants: Vec::new(),
        };
        assert_eq!(
            texts_with(
                "INSERT INTO t (k, a) VALUES (:k, 1)\nON CONFLICT (k) DO UPDATE SET a = excluded.a WHERE t.a < excluded.a;",
                SwapColumn,
                &context
            ),
            [
                "INSERT INTO t (k, a) VALUES (:k, 1)\nON CONFLICT (k) DO UPDATE SET a = excluded.a WHERE t.b < excluded.a;",
                "INSERT INTO t (k, a) VALUES (:k, 1)\nON CONFLICT (k) DO UPDATE SET a = excluded.a WHERE t.a < excluded.b;",
            ]
        );
    }
}
