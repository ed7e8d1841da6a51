//! Comparisons: `SwapComparison`.
//!
//! A fence often turns on one operator: `fencing_token IS :token` lets a
//! never-claimed row's NULL match where `=` would not, `expires_at <= :now`
//! and `< :now` differ by exactly the second a handover happens in, and
//! `generation = :generation` is not `>=`. So each comparison operator is
//! replaced by each other one of `=`, `<>`, `<`, `<=`, `>`, `>=`; `=` also
//! by `IS` and `<>` by `IS NOT` (and back), which differ from them exactly
//! on NULL. `IS NULL` and `IS NOT NULL` flip to each other only.
//!
//! The `=` of an assignment (an UPDATE's `SET col = expr`, an upsert's `DO
//! UPDATE SET`) is not a comparison and is never touched; `IS DISTINCT FROM`
//! is left alone.

use super::shape;
use super::{Candidates, Operator, Text, Unit, candidate};
use crate::procedure::lexer::TokenKind;

/// A comparison operator, as far as swapping goes: `==` is `=` and `!=` is
/// `<>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Comparison {
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    Is,
    IsNot,
}

use Comparison::*;

impl Comparison {
    fn of_punctuation(text: &str) -> Option<Comparison> {
        Some(match text {
            "=" | "==" => Equal,
            "<>" | "!=" => NotEqual,
            "<" => Less,
            "<=" => LessOrEqual,
            ">" => Greater,
            ">=" => GreaterOrEqual,
            _ => return None,
        })
    }

    fn sql(self) -> &'static str {
        match self {
            Equal => "=",
            NotEqual => "<>",
            Less => "<",
            LessOrEqual => "<=",
            Greater => ">",
            GreaterOrEqual => ">=",
            Is => "IS",
            IsNot => "IS NOT",
        }
    }

    /// The variant in a mutant's id.
    fn variant(self) -> &'static str {
        match self {
            Is => "is",
            IsNot => "is-not",
            other => other.sql(),
        }
    }

    /// What this operator is swapped for.
    fn replacements(self) -> Vec<Comparison> {
        let mut out: Vec<Comparison> =
            [Equal, NotEqual, Less, LessOrEqual, Greater, GreaterOrEqual]
                .into_iter()
                .filter(|&c| c != self)
                .collect();
        match self {
            Equal => out.push(Is),
            NotEqual => out.push(IsNot),
            _ => {}
        }
        out
    }
}

pub(super) fn generate(text: &Text, out: &mut Candidates) {
    for unit in &text.units {
        let assignments = shape::assignment_equals(unit);
        for i in 0..unit.code.len() {
            if assignments.contains(&i) {
                continue;
            }
            if unit.kind(i) == Some(TokenKind::Punctuation) {
                if let Some(comparison) = Comparison::of_punctuation(unit.token_text(i)) {
                    swap(text, unit, i, i + 1, comparison, out);
                }
            } else if unit.is_word(i, "IS") {
                let not = unit.is_word(i + 1, "NOT");
                let operand = if not { i + 2 } else { i + 1 };
                if unit.is_word(operand, "DISTINCT") {
                    continue;
                }
                if unit.is_word(operand, "NULL") {
                    flip_null(text, unit, i, not, out);
                } else if not {
                    swap(text, unit, i, i + 2, IsNot, out);
                } else {
                    swap(text, unit, i, i + 1, Is, out);
                }
            }
        }
    }
}

/// One candidate per replacement of the operator at code tokens `first..end`.
fn swap(
    text: &Text,
    unit: &Unit,
    first: usize,
    end: usize,
    comparison: Comparison,
    out: &mut Candidates,
) {
    let range = unit.span(first, end);
    let quoted = shape::context(unit, first, end);
    let was = unit.quote(first, end);
    for replacement in comparison.replacements() {
        out.push(candidate(
            Operator::SwapComparison,
            range.start,
            Some(replacement.variant()),
            format!(
                "compare with `{}` instead of {was} in {quoted}",
                replacement.sql()
            ),
            text.splice(range.clone(), &spaced(text, &range, replacement.sql())),
        ));
    }
}

/// `x IS NULL` becomes `x IS NOT NULL`, and the other way round.
fn flip_null(text: &Text, unit: &Unit, is: usize, not: bool, out: &mut Candidates) {
    let (range, with, to) = if not {
        (unit.code[is].end..unit.code[is + 1].end, "", Is)
    } else {
        (unit.code[is].end..unit.code[is].end, " NOT", IsNot)
    };
    let end = if not { is + 3 } else { is + 2 };
    out.push(candidate(
        Operator::SwapComparison,
        unit.code[is].start,
        Some(to.variant()),
        format!(
            "test `{} NULL` instead of {} in {}",
            to.sql(),
            unit.quote(is, end),
            shape::context(unit, is, end)
        ),
        text.splice(range, with),
    ));
}

/// `sql` with a space on each side where a word would otherwise run into
/// its neighbour (`a=b` becomes `a IS b`, not `aISb`).
fn spaced(text: &Text, range: &std::ops::Range<usize>, sql: &str) -> String {
    let bytes = text.source.as_bytes();
    let word = sql.starts_with(|c: char| c.is_ascii_alphabetic());
    let before = range.start > 0 && !bytes[range.start - 1].is_ascii_whitespace();
    let after = bytes
        .get(range.end)
        .is_some_and(|b| !b.is_ascii_whitespace());
    format!(
        "{}{sql}{}",
        if word && before { " " } else { "" },
        if word && after { " " } else { "" }
    )
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts};
    use crate::mutate::Operator::SwapComparison;

    #[test]
    fn each_operator_becomes_each_other_one() {
        assert_eq!(
            texts("SELECT 1 FROM t WHERE a = :b;", SwapComparison),
            [
                "SELECT 1 FROM t WHERE a < :b;",
                "SELECT 1 FROM t WHERE a <= :b;",
                "SELECT 1 FROM t WHERE a <> :b;",
                "SELECT 1 FROM t WHERE a > :b;",
                "SELECT 1 FROM t WHERE a >= :b;",
                "SELECT 1 FROM t WHERE a IS :b;",
            ]
        );
        assert_eq!(
            described("SELECT 1 FROM t WHERE a=:b;", SwapComparison)[5],
            [
                "p:1:24:swap-comparison:is",
                "compare with `IS` instead of `=` in `a=:b`"
            ]
        );
        assert_eq!(
            texts("SELECT 1 FROM t WHERE a=:b;", SwapComparison)[5],
            "SELECT 1 FROM t WHERE a IS :b;"
        );
    }

    #[test]
    fn is_and_is_not_swap_with_the_relational_operators() {
        let mutated = texts(
            "SELECT 1 FROM t WHERE a IS NOT :b AND c IS :d;",
            SwapComparison,
        );
        assert_eq!(mutated.len(), 12);
        assert!(mutated.contains(&"SELECT 1 FROM t WHERE a <> :b AND c IS :d;".to_string()));
        assert!(mutated.contains(&"SELECT 1 FROM t WHERE a IS NOT :b AND c = :d;".to_string()));
        assert_eq!(
            described("SELECT 1 FROM t WHERE a <> :b;", SwapComparison)
                .iter()
                .map(|[id, _]| id.as_str())
                .collect::<Vec<_>>(),
            [
                "p:1:25:swap-comparison:<",
                "p:1:25:swap-comparison:<=",
                "p:1:25:swap-comparison:=",
                "p:1:25:swap-comparison:>",
                "p:1:25:swap-comparison:>=",
                "p:1:25:swap-comparison:is-not",
            ]
        );
    }

    #[test]
    fn is_null_and_is_not_null_flip_to_each_other() {
        assert_eq!(
            texts(
                "SELECT 1 FROM t WHERE a IS NULL OR b IS NOT NULL;",
                SwapComparison
            ),
            [
                "SELECT 1 FROM t WHERE a IS NOT NULL OR b IS NOT NULL;",
                "SELECT 1 FROM t WHERE a IS NULL OR b IS NULL;",
            ]
        );
        assert!(texts("SELECT a IS DISTINCT FROM b FROM t;", SwapComparison).is_empty());
    }

    #[test]
    fn an_assignment_is_never_a_comparison() {
        let source = "UPDATE t SET a = 1, b = CASE WHEN c = 2 THEN 3 END WHERE d = 4;\n\
                      INSERT INTO t (k) VALUES (1) ON CONFLICT (k) DO UPDATE SET a = excluded.a;";
        let mutated = texts(source, SwapComparison);
        assert_eq!(mutated.len(), 12, "{mutated:#?}");
        assert!(mutated.iter().all(|t| t.contains("SET a = 1, b = CASE")));
        assert!(
            mutated
                .iter()
                .all(|t| t.contains("DO UPDATE SET a = excluded.a;"))
        );
    }
}
