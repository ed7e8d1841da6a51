//! Transactions: `DropTransaction`, `WeakenBegin`, `MoveOutOfTransaction`
//! and `SplitWrite`.
//!
//! A transaction is a fence in time: what is read, decided and written
//! inside `BEGIN IMMEDIATE ... COMMIT` cannot be interleaved with another
//! writer, and a refusal rolls back everything before it. These operators
//! take that away in the ways people do: no transaction at all (its
//! statements each commit on their own), a deferred `BEGIN` (two readers both
//! decide before either takes the write lock), the first read or the last
//! write just outside it, and one UPDATE split into two (a critical region
//! cut in half).
//!
//! Decisions move with their statement, except the ones after the COMMIT
//! (`-- @return token`): they are what the call returns, so a statement moved
//! past the COMMIT goes before them, and dropping the transaction leaves them
//! to judge the statement that now ends the procedure.

use super::shape;
use super::{Candidates, Operator, Text, Unit, candidate, join};
use crate::procedure::StatementClass;

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

/// `UPDATE t SET a = x, b = y WHERE w` becomes `UPDATE t SET a = x WHERE
/// w;` then `UPDATE t SET b = y WHERE w`: split after the first assignment,
/// the RETURNING and the decisions kept on the second.
fn split_write(text: &Text, unit: &Unit, out: &mut Candidates) {
    for list in shape::set_lists(unit) {
        if list.upsert || unit.levels[list.set] != 0 || list.assignments.len() < 2 {
            continue;
        }
        if list.assignments.iter().any(|a| a.equals.is_none()) {
            continue;
        }
        let (first, second) = (&list.assignments[0], &list.assignments[1]);
        let last = &list.assignments[list.assignments.len() - 1];
        let returning = (list.end..unit.code.len())
            .find(|&i| unit.levels[i] == 0 && unit.is_word(i, "RETURNING"))
            .unwrap_or(unit.code.len());
        let condition = if list.end < returning {
            unit.code[last.end - 1].end..unit.code[returning - 1].end
        } else {
            0..0
        };
        let source = text.source;
        out.push(candidate(
            Operator::SplitWrite,
            unit.code[first.end].start,
            None,
            format!(
                "split {} into two UPDATEs after {}",
                shape::head(unit),
                unit.quote(first.start, first.end)
            ),
            [
                &source[..unit.start],
                &source[unit.start..unit.code[first.end - 1].end],
                &source[condition],
                ";\n",
                &source[unit.start..unit.code[first.start].start],
                &source[unit.code[second.start].start..],
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
}
