//! Arithmetic and constants: `DropAddend` and `ShiftConstant`.
//!
//! Leases and budgets are arithmetic on a few numbers: `:now +
//! :lease_seconds` is an expiry, `retry_count + 1` a budget spent,
//! `retry_count < :max_retries` its limit. Dropping an addend (the lease
//! expires the moment it is granted, the retry is never counted) and moving
//! a constant by one (an off-by-one budget, the first incarnation numbered
//! 0) ask whether the scenarios pin these numbers down.
//!
//! `ShiftConstant` moves every integer literal and every exercise constant
//! (`:lease_seconds`, from [`Context::constants`]) by one each way; numbers
//! in strings and comments are not tokens, so they are never touched, and
//! the `1` of `EXISTS (SELECT 1 ...)` is left alone (it is never read, so
//! every shift of it would be an equivalent mutant).

use super::shape;
use super::{Candidates, Context, Operator, Text, Unit, candidate};
use crate::procedure::lexer::TokenKind;

/// Words after which `+` or `-` is a sign, not an addition.
const SIGN_AFTER: &[&str] = &[
    "SELECT",
    "AND",
    "OR",
    "NOT",
    "WHERE",
    "WHEN",
    "THEN",
    "ELSE",
    "SET",
    "VALUES",
    "RETURNING",
    "ON",
    "IS",
    "IN",
    "LIKE",
    "GLOB",
    "BETWEEN",
    "CASE",
    "BY",
    "LIMIT",
    "OFFSET",
    "DISTINCT",
    "ALL",
    "HAVING",
    "DO",
];

/// Operators that bind tighter than `+` and `-`: an addend followed by one
/// of these is not a whole term.
const TIGHTER_THAN_ADDITION: &[&str] = &["*", "/", "%", "||", "."];

pub(super) fn generate(text: &Text, context: &Context, out: &mut Candidates) {
    for unit in &text.units {
        for i in 0..unit.code.len() {
            drop_addend(text, unit, i, out);
            shift(text, unit, i, context, out);
        }
    }
}

/// `x + n` or `x - n` becomes `x`, where `n` is one number or parameter.
fn drop_addend(text: &Text, unit: &Unit, i: usize, out: &mut Candidates) {
    let operator = unit.token_text(i);
    if i == 0 || !(unit.is_punctuation(i, "+") || unit.is_punctuation(i, "-")) {
        return;
    }
    let left_is_operand = match unit.kind(i - 1) {
        Some(TokenKind::Word) => !unit.is_any_word(i - 1, SIGN_AFTER),
        Some(
            TokenKind::Parameter
            | TokenKind::Number
            | TokenKind::String
            | TokenKind::QuotedName
            | TokenKind::CloseParen,
        ) => true,
        _ => false,
    };
    let addend_is_one_token = matches!(
        unit.kind(i + 1),
        Some(TokenKind::Number | TokenKind::Parameter)
    ) && !TIGHTER_THAN_ADDITION
        .iter()
        .any(|p| unit.is_punctuation(i + 2, p));
    if !left_is_operand || !addend_is_one_token {
        return;
    }
    let range = unit.code[i - 1].end..unit.code[i + 1].end;
    let expression = shape::expression_around(unit, i - 1, i + 2);
    out.push(candidate(
        Operator::DropAddend,
        unit.code[i].start,
        None,
        format!(
            "drop `{operator} {}` from {}",
            unit.token_text(i + 1),
            unit.quote(expression.start, expression.end)
        ),
        text.splice(range, ""),
    ));
}

/// An integer literal one more and one less; an exercise constant
/// `(:name + 1)` and `(:name - 1)`.
fn shift(text: &Text, unit: &Unit, i: usize, context: &Context, out: &mut Candidates) {
    let token = unit.code[i];
    let written = unit.token_text(i);
    // `EXISTS (SELECT 1 ...)` asks whether a row exists; its 1 is never read.
    let exists_select = i >= 3
        && unit.is_word(i - 1, "SELECT")
        && unit.kind(i - 2) == Some(TokenKind::OpenParen)
        && unit.is_word(i - 3, "EXISTS");
    let shifted: [(&str, String); 2] = match token.kind {
        TokenKind::Number if !exists_select => {
            let Some(n) = written
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| written.parse::<u64>().ok())
                .flatten()
            else {
                return;
            };
            let Some(up) = n.checked_add(1) else {
                return;
            };
            let down = match n.checked_sub(1) {
                Some(down) => down.to_string(),
                // `x-0` must not become `x--1`, which is a comment.
                None if text.source[..token.start].ends_with('-') => "(-1)".to_string(),
                None => "-1".to_string(),
            };
            [("+1", up.to_string()), ("-1", down)]
        }
        TokenKind::Parameter => {
            let Some(name) = written.strip_prefix(':') else {
                return;
            };
            if !context.constants.iter().any(|c| c == name) {
                return;
            }
            [
                ("+1", format!("({written} + 1)")),
                ("-1", format!("({written} - 1)")),
            ]
        }
        _ => return,
    };
    let quoted = shape::context(unit, i, i + 1);
    for (variant, with) in shifted {
        out.push(candidate(
            Operator::ShiftConstant,
            token.start,
            Some(variant),
            format!("use `{with}` instead of `{written}` in {quoted}"),
            text.splice(token.start..token.end, &with),
        ));
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts, texts_with};
    use crate::mutate::Context;
    use crate::mutate::Operator::{DropAddend, ShiftConstant};

    #[test]
    fn a_one_token_addend_is_dropped() {
        let source =
            "UPDATE t SET e = :now + :lease_seconds, r = r - 1, s = 2 * :x + :y * 3, u = -1;";
        assert_eq!(
            texts(source, DropAddend),
            [
                "UPDATE t SET e = :now, r = r - 1, s = 2 * :x + :y * 3, u = -1;",
                "UPDATE t SET e = :now + :lease_seconds, r = r, s = 2 * :x + :y * 3, u = -1;",
            ]
        );
        assert_eq!(
            described(source, DropAddend)[0],
            [
                "p:1:23:drop-addend",
                "drop `+ :lease_seconds` from `e = :now + :lease_seconds`"
            ]
        );
    }

    #[test]
    fn integer_literals_move_by_one_and_strings_do_not() {
        let source = "SELECT 'x 1' AS s, 2 AS n, 1.5 AS r FROM t WHERE c < 0 AND NOT EXISTS (SELECT 1 FROM u); -- 7";
        assert_eq!(
            texts(source, ShiftConstant),
            [
                "SELECT 'x 1' AS s, 3 AS n, 1.5 AS r FROM t WHERE c < 0 AND NOT EXISTS (SELECT 1 FROM u); -- 7",
                "SELECT 'x 1' AS s, 1 AS n, 1.5 AS r FROM t WHERE c < 0 AND NOT EXISTS (SELECT 1 FROM u); -- 7",
                "SELECT 'x 1' AS s, 2 AS n, 1.5 AS r FROM t WHERE c < 1 AND NOT EXISTS (SELECT 1 FROM u); -- 7",
                "SELECT 'x 1' AS s, 2 AS n, 1.5 AS r FROM t WHERE c < -1 AND NOT EXISTS (SELECT 1 FROM u); -- 7",
            ]
        );
        assert_eq!(
            texts("SELECT 1 FROM t WHERE a = b-0;", ShiftConstant)[3],
            "SELECT 1 FROM t WHERE a = b-(-1);"
        );
    }

    #[test]
    fn exercise_constants_move_by_one_and_other_parameters_do_not() {
        let context = Context {
            constants: vec!["max_retries".into()],
            ..Context::default()
        };
        assert_eq!(
            texts_with(
                "SELECT x FROM t WHERE r < :max_retries AND k = :key;",
                ShiftConstant,
                &context
            ),
            [
                "SELECT x FROM t WHERE r < (:max_retries + 1) AND k = :key;",
                "SELECT x FROM t WHERE r < (:max_retries - 1) AND k = :key;",
            ]
        );
    }
}
