//! Transactions: `DropTransaction`, `WeakenBegin`, `MoveOutOfTransaction`
//! and `SplitWrite`.
//!
//! A transaction is a fence in time: what is read, decided and written
//! inside `BEGIN IMMEDIATE ... COMMIT` cannot be interleaved with another
//! writer, and a refusal rolls back everything before it. These operators
//! take that away in the ways people do: no transaction at all (its
//! statements each commit on their own), a deferred `BEGIN` (two readers both
//! decide before either takes the write lock), the first read or the last
//! write just outside it, and one write split into two at any of its
//! boundaries (a critical region cut: an UPDATE between two of its
//! assignments, a multi-row INSERT between two of its rows).
//!
//! Decisions move with their statement, except the ones after the COMMIT
//! (`-- @return token`): they are what the call returns, so a statement moved
//! past the COMMIT goes before them, and dropping the transaction leaves them
//! to judge the statement that now ends the procedure.

use super::shape;
use super::{Candidates, Operator, Text, Unit, candidate, join};
use crate::procedure::StatementClass;
use crate::procedure::lexer::TokenKind;
use std::ops::Range;

pub(super) fn generate(text: &Text, out: &mut Candidates) {
    for (begin, unit) in text.units.iter().enumerate() {
        if unit.class != Some(StatementClass::Begin) {
            continue;
        }
        weaken(text, unit, out);
        let commit = text.units[begin + 1..]
            .iter()
            .position(|u| u.is_transaction_control())
            .map(|at| begin + 1 + at)
            .filter(|&at| text.units[at].class == Some(StatementClass::Commit));
        if let Some(commit) = commit {
            drop_transaction(text, begin, commit, out);
            move_first(text, begin, commit, out);
            move_last(text, begin, commit, out);
        }
    }
    for unit in &text.units {
        split_write(text, unit, out);
    }
}

fn weaken(text: &Text, unit: &Unit, out: &mut Candidates) {
    if !unit.is_any_word(1, &["IMMEDIATE", "EXCLUSIVE"]) {
        return;
    }
    out.push(candidate(
        Operator::WeakenBegin,
        unit.code[1].start,
        None,
        format!("weaken {} to `BEGIN`", unit.quote(0, 2)),
        text.splice(unit.code[0].end..unit.code[1].end, ""),
    ));
}

fn drop_transaction(text: &Text, begin: usize, commit: usize, out: &mut Candidates) {
    let (begin, commit) = (&text.units[begin], &text.units[commit]);
    let first = text.removal(begin.start..begin.end);
    let second = text.removal(commit.start..commit.statement_end);
    let second = second.start.max(first.end)..second.end.max(first.end);
    let source = text.source;
    out.push(candidate(
        Operator::DropTransaction,
        begin.start,
        None,
        format!(
            "run without the transaction: drop {} and its {}",
            begin.quote(0, begin.code.len()),
            commit.quote(0, commit.code.len())
        ),
        [
            &source[..first.start],
            &source[first.end..second.start],
            &source[second.end..],
        ]
        .concat(),
    ));
}

/// The first statement after BEGIN, with its decisions, swapped before it.
fn move_first(text: &Text, begin: usize, commit: usize, out: &mut Candidates) {
    let first = begin + 1;
    if first >= commit || text.units[first].is_transaction_control() {
        return;
    }
    let (begin, first) = (&text.units[begin], &text.units[first]);
    let source = text.source;
    out.push(candidate(
        Operator::MoveOutOfTransaction,
        first.start,
        Some("first"),
        format!(
            "move {} before {}",
            shape::head(first),
            begin.quote(0, begin.code.len())
        ),
        join(&[
            (&source[..begin.start], false),
            (first.text(), first.ends_in_line_comment()),
            (&source[begin.end..first.start], false),
            (begin.text(), begin.ends_in_line_comment()),
            (&source[first.end..], false),
        ]),
    ));
}

/// The last statement before COMMIT, with its decisions, moved right after
/// the COMMIT (and before the COMMIT's own decisions).
fn move_last(text: &Text, begin: usize, commit: usize, out: &mut Candidates) {
    let last = commit - 1;
    if last <= begin || text.units[last].is_transaction_control() {
        return;
    }
    let (last, commit) = (&text.units[last], &text.units[commit]);
    if !commit.terminated {
        return;
    }
    let source = text.source;
    let removed = text.removal(last.start..last.end);
    out.push(candidate(
        Operator::MoveOutOfTransaction,
        last.start,
        Some("last"),
        format!(
            "move {} after {}",
            shape::head(last),
            commit.quote(0, commit.code.len())
        ),
        join(&[
            (&source[..removed.start], false),
            (&source[removed.end..commit.statement_end], false),
            ("\n", false),
            (last.text(), last.ends_in_line_comment()),
            (&source[commit.statement_end..], false),
        ]),
    ));
}

/// `UPDATE t SET a = x, b = y, c = z WHERE w` becomes two UPDATEs under
/// the same condition, cut at one assignment boundary: `SET a = x WHERE w;`
/// then `SET b = y, c = z WHERE w`, and likewise after `b = y`. Every
/// boundary is one mutant, since a window can open after any column: a
/// process that reads the row between the two sees some columns changed
/// and the rest not. The RETURNING and the decisions stay on the second
/// UPDATE, which is the one that finishes the write.
fn split_write(text: &Text, unit: &Unit, out: &mut Candidates) {
    for list in shape::set_lists(unit) {
        if list.upsert || unit.levels[list.set] != 0 || list.assignments.len() < 2 {
            continue;
        }
        if list.assignments.iter().any(|a| a.equals.is_none()) {
            continue;
        }
        let last = &list.assignments[list.assignments.len() - 1];
        let returning = (list.end..unit.code.len())
            .find(|&i| unit.levels[i] == 0 && unit.is_word(i, "RETURNING"))
            .unwrap_or(unit.code.len());
        let condition = if list.end < returning {
            unit.code[last.end - 1].end..unit.code[returning - 1].end
        } else {
            0..0
        };
        let parts: Vec<Range<usize>> = list.assignments.iter().map(|a| a.start..a.end).collect();
        split_between(text, unit, &parts, condition, "UPDATEs after", out);
    }
    split_rows(text, unit, out);
}

/// `INSERT INTO t (k) VALUES (1), (2)` becomes `INSERT INTO t (k) VALUES
/// (1);` then `INSERT INTO t (k) VALUES (2)`, cut at each row boundary: the
/// rows that were written together now commit one at a time when no
/// transaction holds them, and a reader between the two sees only the
/// first. Only a VALUES list followed by nothing or by RETURNING is cut (an
/// upsert's conflict clause would have to be repeated on both halves); the
/// RETURNING and the decisions stay on the second INSERT.
fn split_rows(text: &Text, unit: &Unit, out: &mut Candidates) {
    if !unit.is_any_word(0, &["INSERT", "REPLACE"]) {
        return;
    }
    let Some(values) =
        (0..unit.code.len()).find(|&i| unit.levels[i] == 0 && unit.is_word(i, "VALUES"))
    else {
        return;
    };
    let mut rows = Vec::new();
    let mut at = values + 1;
    while unit.kind(at) == Some(TokenKind::OpenParen) {
        let Some(close) = shape::closing(unit, at) else {
            return;
        };
        rows.push(at..close + 1);
        at = close + 1;
        if !unit.is_punctuation(at, ",") {
            break;
        }
        at += 1;
    }
    let tail_ok = at == unit.code.len() || unit.is_word(at, "RETURNING");
    if rows.len() < 2 || !tail_ok {
        return;
    }
    split_between(text, unit, &rows, 0..0, "INSERTs after the row", out);
}

/// One mutant per boundary between two of `parts` (code-token ranges of
/// the statement: its assignments, or its rows): the statement up to the
/// boundary, then the source bytes `condition` (the WHERE both halves
/// keep), and a second statement that repeats the head before the first
/// part and goes on from the part after the boundary to the end, decisions
/// included.
fn split_between(
    text: &Text,
    unit: &Unit,
    parts: &[Range<usize>],
    condition: Range<usize>,
    into: &str,
    out: &mut Candidates,
) {
    let source = text.source;
    for pair in parts.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        out.push(candidate(
            Operator::SplitWrite,
            unit.code[before.end].start,
            None,
            format!(
                "split {} into two {into} {}",
                shape::head(unit),
                unit.quote(before.start, before.end)
            ),
            [
                &source[..unit.start],
                &source[unit.start..unit.code[before.end - 1].end],
                &source[condition.clone()],
                ";\n",
                &source[unit.start..unit.code[parts[0].start].start],
                &source[unit.code[after.start].start..],
            ]
            .concat(),
        ));
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts};
    use crate::mutate::Operator::{DropTransaction, MoveOutOfTransaction, SplitWrite, WeakenBegin};

    const CLAIM: &str = "BEGIN IMMEDIATE;
INSERT INTO tokens (kind) VALUES ('claim') RETURNING token;
UPDATE messages SET state = 'CLAIMED', token = :token
 WHERE id = :id AND state = 'NEW'
RETURNING state;
-- @refuse not_claimable unless changed 1: not claimable
COMMIT;
-- @return token
";

    #[test]
    fn the_transaction_is_dropped_and_its_results_kept() {
        assert_eq!(
            texts(CLAIM, DropTransaction),
            ["INSERT INTO tokens (kind) VALUES ('claim') RETURNING token;
UPDATE messages SET state = 'CLAIMED', token = :token
 WHERE id = :id AND state = 'NEW'
RETURNING state;
-- @refuse not_claimable unless changed 1: not claimable
-- @return token
"]
        );
        assert_eq!(
            described(CLAIM, DropTransaction),
            [[
                "p:1:1:drop-transaction",
                "run without the transaction: drop `BEGIN IMMEDIATE` and its `COMMIT`"
            ]]
        );
    }

    #[test]
    fn begin_immediate_is_weakened() {
        assert_eq!(
            texts(
                "BEGIN EXCLUSIVE TRANSACTION;\nSELECT 1;\nCOMMIT;",
                WeakenBegin
            ),
            ["BEGIN TRANSACTION;\nSELECT 1;\nCOMMIT;"]
        );
        assert_eq!(
            described(CLAIM, WeakenBegin),
            [["p:1:7:weaken-begin", "weaken `BEGIN IMMEDIATE` to `BEGIN`"]]
        );
        assert!(texts("BEGIN;\nSELECT 1;\nCOMMIT;", WeakenBegin).is_empty());
    }

    #[test]
    fn the_first_and_last_statements_move_out_with_their_decisions() {
        assert_eq!(
            texts(CLAIM, MoveOutOfTransaction),
            [
                "INSERT INTO tokens (kind) VALUES ('claim') RETURNING token;
BEGIN IMMEDIATE;
UPDATE messages SET state = 'CLAIMED', token = :token
 WHERE id = :id AND state = 'NEW'
RETURNING state;
-- @refuse not_claimable unless changed 1: not claimable
COMMIT;
-- @return token
",
                "BEGIN IMMEDIATE;
INSERT INTO tokens (kind) VALUES ('claim') RETURNING token;
COMMIT;
UPDATE messages SET state = 'CLAIMED', token = :token
 WHERE id = :id AND state = 'NEW'
RETURNING state;
-- @refuse not_claimable unless changed 1: not claimable
-- @return token
",
            ]
        );
        assert_eq!(
            described(CLAIM, MoveOutOfTransaction)
                .iter()
                .map(|[id, description]| format!("{id} {description}"))
                .collect::<Vec<_>>(),
            [
                "p:2:1:move-out-of-transaction:first move `INSERT INTO tokens (kind) VALUES ...` before `BEGIN IMMEDIATE`",
                "p:3:1:move-out-of-transaction:last move `UPDATE messages SET ...` after `COMMIT`",
            ]
        );
    }

    #[test]
    fn an_update_of_several_columns_is_split_in_two() {
        assert_eq!(
            texts(CLAIM, SplitWrite),
            ["BEGIN IMMEDIATE;
INSERT INTO tokens (kind) VALUES ('claim') RETURNING token;
UPDATE messages SET state = 'CLAIMED'
 WHERE id = :id AND state = 'NEW';
UPDATE messages SET token = :token
 WHERE id = :id AND state = 'NEW'
RETURNING state;
-- @refuse not_claimable unless changed 1: not claimable
COMMIT;
-- @return token
"]
        );
        assert_eq!(
            described(CLAIM, SplitWrite)[0][1],
            "split `UPDATE messages SET ...` into two UPDATEs after `state = 'CLAIMED'`"
        );
        assert!(texts("UPDATE t SET a = 1 WHERE k = 2;", SplitWrite).is_empty());
    }

    #[test]
    fn an_update_is_split_at_every_assignment_boundary() {
        let update = "UPDATE jobs SET state = 'done', owner = NULL, attempt = attempt + 1
 WHERE id = :id AND state = 'running'
RETURNING attempt;
-- @refuse not_running unless changed 1: not running
";
        assert_eq!(
            texts(update, SplitWrite),
            [
                "UPDATE jobs SET state = 'done'
 WHERE id = :id AND state = 'running';
UPDATE jobs SET owner = NULL, attempt = attempt + 1
 WHERE id = :id AND state = 'running'
RETURNING attempt;
-- @refuse not_running unless changed 1: not running
",
                "UPDATE jobs SET state = 'done', owner = NULL
 WHERE id = :id AND state = 'running';
UPDATE jobs SET attempt = attempt + 1
 WHERE id = :id AND state = 'running'
RETURNING attempt;
-- @refuse not_running unless changed 1: not running
",
            ]
        );
        assert_eq!(
            described(update, SplitWrite),
            [
                [
                    "p:1:31:split-write",
                    "split `UPDATE jobs SET ...` into two UPDATEs after `state = 'done'`"
                ],
                [
                    "p:1:45:split-write",
                    "split `UPDATE jobs SET ...` into two UPDATEs after `owner = NULL`"
                ],
            ]
        );
    }

    #[test]
    fn an_update_without_a_condition_is_split_without_one() {
        assert_eq!(
            texts("UPDATE t SET a = 1, b = 2, c = 3;", SplitWrite),
            [
                "UPDATE t SET a = 1;\nUPDATE t SET b = 2, c = 3;",
                "UPDATE t SET a = 1, b = 2;\nUPDATE t SET c = 3;",
            ]
        );
    }

    #[test]
    fn a_multi_row_insert_is_split_at_every_row_boundary() {
        let insert = "INSERT INTO log (event, n) VALUES ('a', 1), ('b', (2)), ('c', 3) RETURNING n;
-- @refuse short unless changed 3: short
";
        assert_eq!(
            texts(insert, SplitWrite),
            [
                "INSERT INTO log (event, n) VALUES ('a', 1);
INSERT INTO log (event, n) VALUES ('b', (2)), ('c', 3) RETURNING n;
-- @refuse short unless changed 3: short
",
                "INSERT INTO log (event, n) VALUES ('a', 1), ('b', (2));
INSERT INTO log (event, n) VALUES ('c', 3) RETURNING n;
-- @refuse short unless changed 3: short
",
            ]
        );
        assert_eq!(
            described(insert, SplitWrite)[1][1],
            "split `INSERT INTO log (event, n) VALUES ...` into two INSERTs after the row `('b', (2))`"
        );
    }

    #[test]
    fn single_rows_upserts_and_selected_rows_are_not_split() {
        for sql in [
            "INSERT INTO t (a) VALUES (1);",
            "INSERT INTO t (a) VALUES (1), (2) ON CONFLICT (a) DO NOTHING;",
            "INSERT INTO t (a) SELECT a FROM u;",
            "INSERT INTO t (a) VALUES (1), (2",
        ] {
            assert!(texts(sql, SplitWrite).is_empty(), "{sql}");
        }
    }
}
