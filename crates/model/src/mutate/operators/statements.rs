//! Statements: `DeleteStatement` and `SwapStatements`.
//!
//! Every statement of a procedure should earn its place: deleting one (the
//! mint, the re-read of the lease, the effect) asks whether some scenario
//! needs it, and swapping two neighbours (writing before checking, calling
//! out before the terminal write) asks whether the order matters where it
//! should. A statement goes with the decision comments that judge it, and an
//! `@effect` line is a statement of its own.
//!
//! BEGIN, COMMIT and ROLLBACK are left to the transaction operators: deleting
//! one half of a transaction, or swapping it with a neighbour, leaves it
//! unbalanced or is exactly what `MoveOutOfTransaction` writes, with the
//! COMMIT's results kept last. A statement without its `;` (the last one) is
//! never moved in front of another, where it would run into it.

use super::shape;
use super::{Candidates, Operator, Text, candidate, join};

pub(super) fn generate(text: &Text, out: &mut Candidates) {
    let source = text.source;
    for (index, unit) in text.units.iter().enumerate() {
        if unit.is_transaction_control() {
            continue;
        }
        out.push(candidate(
            Operator::DeleteStatement,
            unit.start,
            None,
            format!("delete {}", shape::head(unit)),
            text.splice(text.removal(unit.start..unit.end), ""),
        ));
        let Some(next) = text.units.get(index + 1) else {
            continue;
        };
        if next.is_transaction_control() || !next.terminated {
            continue;
        }
        out.push(candidate(
            Operator::SwapStatements,
            unit.start,
            None,
            format!(
                "swap {} with the {} after it",
                shape::head(unit),
                shape::head(next)
            ),
            join(&[
                (&source[..unit.start], false),
                (next.text(), next.ends_in_line_comment()),
                (&source[unit.end..next.start], false),
                (unit.text(), unit.ends_in_line_comment()),
                (&source[next.end..], false),
            ]),
        ));
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts};
    use crate::mutate::Operator::{DeleteStatement, SwapStatements};

    const FINISH: &str = "SELECT id FROM attempts WHERE token = :token;
-- @refuse lost unless returned 1: no longer current
-- @effect invoke_provider token
-- The terminal write.
UPDATE attempts SET done = 1 WHERE token = :token; SELECT 2 AS two;
-- @return two
";

    #[test]
    fn a_statement_is_deleted_with_its_decisions() {
        assert_eq!(
            texts(FINISH, DeleteStatement),
            [
                "-- @effect invoke_provider token
-- The terminal write.
UPDATE attempts SET done = 1 WHERE token = :token; SELECT 2 AS two;
-- @return two
",
                "SELECT id FROM attempts WHERE token = :token;
-- @refuse lost unless returned 1: no longer current
-- The terminal write.
UPDATE attempts SET done = 1 WHERE token = :token; SELECT 2 AS two;
-- @return two
",
                "SELECT id FROM attempts WHERE token = :token;
-- @refuse lost unless returned 1: no longer current
-- @effect invoke_provider token
-- The terminal write.
SELECT 2 AS two;
-- @return two
",
                "SELECT id FROM attempts WHERE token = :token;
-- @refuse lost unless returned 1: no longer current
-- @effect invoke_provider token
-- The terminal write.
UPDATE attempts SET done = 1 WHERE token = :token;
",
            ]
        );
        assert_eq!(
            described(FINISH, DeleteStatement)
                .iter()
                .map(|[id, description]| format!("{id} {description}"))
                .collect::<Vec<_>>(),
            [
                "p:1:1:delete-statement delete `SELECT id FROM ...`",
                "p:3:1:delete-statement delete `@effect invoke_provider token`",
                "p:5:1:delete-statement delete `UPDATE attempts SET ...`",
                "p:5:52:delete-statement delete `SELECT 2 AS two`",
            ]
        );
    }

    #[test]
    fn neighbours_swap_with_their_decisions() {
        assert_eq!(
            texts(FINISH, SwapStatements),
            [
                "-- @effect invoke_provider token
SELECT id FROM attempts WHERE token = :token;
-- @refuse lost unless returned 1: no longer current
-- The terminal write.
UPDATE attempts SET done = 1 WHERE token = :token; SELECT 2 AS two;
-- @return two
",
                "SELECT id FROM attempts WHERE token = :token;
-- @refuse lost unless returned 1: no longer current
UPDATE attempts SET done = 1 WHERE token = :token;
-- The terminal write.
-- @effect invoke_provider token
 SELECT 2 AS two;
-- @return two
",
                "SELECT id FROM attempts WHERE token = :token;
-- @refuse lost unless returned 1: no longer current
-- @effect invoke_provider token
-- The terminal write.
SELECT 2 AS two;
-- @return two \nUPDATE attempts SET done = 1 WHERE token = :token;
",
            ]
        );
    }

    #[test]
    fn transaction_control_is_left_to_the_transaction_operators() {
        let source = "BEGIN;\nSELECT 1;\nCOMMIT;\n";
        assert_eq!(texts(source, DeleteStatement), ["BEGIN;\nCOMMIT;\n"]);
        assert!(texts(source, SwapStatements).is_empty());
    }
}
