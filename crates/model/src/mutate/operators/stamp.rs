//! Stamps: `StampLater`.
//!
//! A compare-and-set takes ownership and stamps the new fence in one
//! statement: the WHERE decides who wins, and the same write records the
//! winner's token. Written as two statements (take the row, then stamp the
//! token on it by its id), the row belongs to the new process under the
//! previous fence until the stamp lands, and a stalled process of the same
//! actor still presenting that fence is accepted in between. No other
//! operator writes this: `SplitWrite` keeps the compare-and-set's WHERE on
//! both halves, so its second half stamps only a row the first did not
//! give away.
//!
//! The rule, read from the tokens alone:
//! - *a take* is an UPDATE with a WHERE, or an upsert whose `DO UPDATE SET`
//!   has one: a write whose condition decides who wins;
//! - *a fence column* is a column of the take's SET list whose name holds
//!   one of [`FENCE_WORDS`] (the seeds' vocabulary), assigned anything but
//!   NULL (clearing a fence is a release, not a take), and never the only
//!   assignment (something must be left to take the row);
//! - *the key* is the WHERE's first `column = :parameter` conjunct (the
//!   row's id in every bundled take), or an upsert's conflict target with
//!   the values the INSERT gives it;
//! - *the stamp* is `UPDATE table SET column = value WHERE key`, returning
//!   what the take returned of that column (so the call still returns the
//!   new token), and it goes where the window it opens is real: right after
//!   the COMMIT when the take is inside a transaction (whose lock lets no
//!   other writer act between two of its statements), before the COMMIT's
//!   own decisions; otherwise right after the take's refusals, before its
//!   `@return`s.

use super::shape::{self, Connective, SetList};
use super::{Candidates, Operator, Text, Unit, candidate, quote};
use crate::procedure::StatementClass;
use crate::procedure::lexer::TokenKind;
use std::ops::Range;

/// The words that make a column a fence when its name holds one.
const FENCE_WORDS: &[&str] = &["token", "incarnation", "generation", "attempt"];

pub(super) fn generate(text: &Text, out: &mut Candidates) {
    for (index, unit) in text.units.iter().enumerate() {
        let Some(take) = Take::of(unit) else {
            continue;
        };
        let Some((at, after)) = stamp_place(text, index) else {
            continue;
        };
        for fence in take.fences(unit) {
            out.push(stamp_later(text, unit, &take, &fence, at, after));
        }
    }
}

/// A write whose condition decides who takes the row, read for the stamp.
struct Take {
    list: SetList,
    row: Row,
    /// The code tokens of each item after RETURNING.
    returning: Vec<Range<usize>>,
}

/// The row a take writes, as a later statement finds it again.
struct Row {
    /// The table as the statement names it, alias included.
    table: String,
    /// The condition that finds the row again: `id = :message_id`.
    key: String,
    /// An upsert's inserted values by column, which `excluded.column` in its
    /// SET list stands for; empty for an UPDATE.
    inserted: Vec<(String, String)>,
}

/// One fence assignment of a take, and how its value reads in a plain
/// UPDATE.
struct Fence {
    assignment: usize,
    column: String,
    value: String,
}

impl Take {
    fn of(unit: &Unit) -> Option<Take> {
        if unit.class != Some(StatementClass::Write) {
            return None;
        }
        let list = shape::set_lists(unit)
            .into_iter()
            .find(|l| unit.levels[l.set] == 0)?;
        if !unit.is_word(list.end, "WHERE") || list.assignments.len() < 2 {
            return None;
        }
        let row = if list.upsert {
            upsert_row(unit)?
        } else {
            Row {
                table: update_table(unit, &list)?,
                key: update_key(unit, &list)?,
                inserted: Vec::new(),
            }
        };
        Some(Take {
            returning: returning_items(unit, list.end),
            list,
            row,
        })
    }

    fn fences(&self, unit: &Unit) -> Vec<Fence> {
        let mut out = Vec::new();
        for (index, assignment) in self.list.assignments.iter().enumerate() {
            let Some(equals) = assignment.equals else {
                continue;
            };
            let column = unit.token_text(assignment.start);
            let named = equals == assignment.start + 1
                && matches!(
                    unit.kind(assignment.start),
                    Some(TokenKind::Word | TokenKind::QuotedName)
                );
            let lower = column.to_ascii_lowercase();
            if !named || !FENCE_WORDS.iter().any(|w| lower.contains(w)) {
                continue;
            }
            let value = equals + 1..assignment.end;
            if value.is_empty() || (value.len() == 1 && unit.is_word(value.start, "NULL")) {
                continue;
            }
            if let Some(value) = self.plain_value(unit, value) {
                out.push(Fence {
                    assignment: index,
                    column: column.to_string(),
                    value,
                });
            }
        }
        out
    }

    /// The value's text as a plain UPDATE of the table reads it: an
    /// upsert's `excluded.column` becomes the value inserted for it, and a
    /// value that reads `excluded` any other way has no plain reading.
    fn plain_value(&self, unit: &Unit, value: Range<usize>) -> Option<String> {
        let mentions_excluded = value.clone().any(|i| unit.is_word(i, "excluded"));
        if !mentions_excluded {
            return Some(unit.source[unit.span(value.start, value.end)].to_string());
        }
        let is_one_column = value.len() == 3
            && unit.is_word(value.start, "excluded")
            && unit.is_punctuation(value.start + 1, ".");
        if !is_one_column {
            return None;
        }
        let column = unit.token_text(value.start + 2);
        self.row
            .inserted
            .iter()
            .find(|(c, _)| c.eq_ignore_ascii_case(column))
            .map(|(_, v)| v.clone())
    }
}

/// The mutant: the fence's assignment out of the take's SET list, and the
/// stamp inserted at `at`.
fn stamp_later(
    text: &Text,
    unit: &Unit,
    take: &Take,
    fence: &Fence,
    at: usize,
    after: &str,
) -> super::Candidate {
    let assignments = &take.list.assignments;
    let assignment = &assignments[fence.assignment];
    // The first goes with the comma after it, the others with the comma
    // before them.
    let removed = if fence.assignment == 0 {
        unit.code[assignment.start].start..unit.code[assignments[1].start].start
    } else {
        unit.code[assignments[fence.assignment - 1].end - 1].end..unit.code[assignment.end - 1].end
    };
    let returned: Vec<&str> = take
        .returning
        .iter()
        .filter(|item| (item.start..item.end).any(|i| unit.is_word(i, &fence.column)))
        .map(|item| &unit.source[unit.span(item.start, item.end)])
        .collect();
    let returning = if returned.is_empty() {
        String::new()
    } else {
        format!(" RETURNING {}", returned.join(", "))
    };
    let stamp = format!(
        "\nUPDATE {} SET {} = {} WHERE {}{returning};",
        take.row.table, fence.column, fence.value, take.row.key
    );
    let source = text.source;
    let mutated = [
        &source[..removed.start],
        &source[removed.end..at],
        &stamp,
        &source[at..],
    ]
    .concat();
    candidate(
        Operator::StampLater,
        unit.code[assignment.start].start,
        Some(&fence.column),
        format!(
            "stamp {} later, by {} alone, {after}",
            unit.quote(assignment.start, assignment.end),
            quote(&take.row.key)
        ),
        mutated,
    )
}

/// Where the stamp of the take at `index` goes, and those words: right
/// after its transaction's COMMIT, or, outside a transaction, right after
/// the take's leading refusals. `None` when the take sits in a transaction
/// that does not end in a COMMIT, or ends unterminated.
fn stamp_place(text: &Text, index: usize) -> Option<(usize, &'static str)> {
    let unit = &text.units[index];
    let opened = text.units[..index]
        .iter()
        .rev()
        .find(|u| u.is_transaction_control())
        .is_some_and(|u| u.class == Some(StatementClass::Begin));
    if opened {
        let commit = text.units[index + 1..]
            .iter()
            .find(|u| u.is_transaction_control())
            .filter(|u| u.class == Some(StatementClass::Commit) && u.terminated)?;
        return Some((commit.statement_end, "after `COMMIT`"));
    }
    if !unit.terminated {
        return None;
    }
    let refusals_end = unit
        .decisions
        .iter()
        .take_while(|d| {
            d.text(unit.source)
                .get(2..)
                .is_some_and(|rest| rest.trim_start().starts_with("@refuse"))
        })
        .last()
        .map_or(unit.statement_end, |d| d.end);
    Some((refusals_end, "after the refusals"))
}

/// The UPDATE's table as written (`messages`, `messages AS m`), between
/// `UPDATE [OR action]` and SET.
fn update_table(unit: &Unit, list: &SetList) -> Option<String> {
    if list.update != 0 {
        return None;
    }
    let first = if unit.is_word(1, "OR") { 3 } else { 1 };
    (first < list.set).then(|| unit.folded(first, list.set))
}

/// The WHERE's first top-level conjunct `column = :parameter`.
fn update_key(unit: &Unit, list: &SetList) -> Option<String> {
    let condition = shape::conditions(unit)
        .into_iter()
        .find(|c| c.keyword == list.end)?;
    let (connective, parts) = shape::operands(
        unit,
        condition.start,
        condition.end,
        unit.levels[condition.keyword],
    );
    if connective != Connective::And {
        return None;
    }
    parts
        .into_iter()
        .find(|part| {
            let column = part.start..part.end.saturating_sub(2);
            part.len() >= 3
                && unit.kind(part.end - 1) == Some(TokenKind::Parameter)
                && unit.is_punctuation(part.end - 2, "=")
                && column.clone().all(|i| {
                    matches!(unit.kind(i), Some(TokenKind::Word | TokenKind::QuotedName))
                        || unit.is_punctuation(i, ".")
                })
        })
        .map(|part| unit.folded(part.start, part.end))
}

/// An upsert `INSERT INTO t (c, ...) VALUES (v, ...) ON CONFLICT (k, ...)`
/// of one row: its table, the key `k = v AND ...` its conflict target and
/// values give, and its values by column.
fn upsert_row(unit: &Unit) -> Option<Row> {
    let into = (0..unit.code.len()).find(|&i| unit.levels[i] == 0 && unit.is_word(i, "INTO"))?;
    let table = into + 1;
    let columns = items(unit, table + 1)?;
    let values_at = shape::closing(unit, table + 1)? + 1;
    if !unit.is_word(values_at, "VALUES") {
        return None;
    }
    let values = items(unit, values_at + 1)?;
    let after_row = shape::closing(unit, values_at + 1)? + 1;
    if columns.len() != values.len()
        || !unit.is_word(after_row, "ON")
        || !unit.is_word(after_row + 1, "CONFLICT")
    {
        return None;
    }
    let inserted: Vec<(String, String)> = columns
        .iter()
        .zip(&values)
        .map(|(c, v)| (unit.folded(c.start, c.end), unit.folded(v.start, v.end)))
        .collect();
    let target = items(unit, after_row + 2)?;
    let key: Option<Vec<String>> = target
        .iter()
        .map(|t| {
            let column = unit.folded(t.start, t.end);
            let value = inserted.iter().find(|(c, _)| *c == column)?;
            Some(format!("{column} = {}", value.1))
        })
        .collect();
    Some(Row {
        table: unit.token_text(table).to_string(),
        key: key?.join(" AND "),
        inserted,
    })
}

/// The comma-separated items of the parenthesised list opening at `open`.
fn items(unit: &Unit, open: usize) -> Option<Vec<Range<usize>>> {
    if unit.kind(open) != Some(TokenKind::OpenParen) {
        return None;
    }
    let close = shape::closing(unit, open)?;
    let level = unit.levels[open] + 1;
    let mut out = Vec::new();
    let mut start = open + 1;
    for i in open + 1..=close {
        if i == close || (unit.levels[i] == level && unit.is_punctuation(i, ",")) {
            if start == i {
                return None;
            }
            out.push(start..i);
            start = i + 1;
        }
    }
    Some(out)
}

/// The items after the statement's top-level RETURNING, from `from` on.
fn returning_items(unit: &Unit, from: usize) -> Vec<Range<usize>> {
    let Some(keyword) =
        (from..unit.code.len()).find(|&i| unit.levels[i] == 0 && unit.is_word(i, "RETURNING"))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut start = keyword + 1;
    for i in keyword + 1..=unit.code.len() {
        if i == unit.code.len() || (unit.levels[i] == 0 && unit.is_punctuation(i, ",")) {
            if start < i {
                out.push(start..i);
            }
            start = i + 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts};
    use crate::mutate::Operator::StampLater;

    const CLAIM: &str = "BEGIN IMMEDIATE;
INSERT INTO lease_tokens (kind) VALUES ('claim') RETURNING token;
UPDATE messages
   SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
 WHERE id = :message_id AND state = 'NEW';
-- @refuse not_claimable unless changed 1: not claimable
COMMIT;
-- @return token
";

    #[test]
    fn a_claim_in_a_transaction_is_stamped_after_its_commit() {
        assert_eq!(
            texts(CLAIM, StampLater),
            ["BEGIN IMMEDIATE;
INSERT INTO lease_tokens (kind) VALUES ('claim') RETURNING token;
UPDATE messages
   SET state = 'CLAIMED', claim_owner = :actor
 WHERE id = :message_id AND state = 'NEW';
-- @refuse not_claimable unless changed 1: not claimable
COMMIT;
UPDATE messages SET fencing_token = :token WHERE id = :message_id;
-- @return token
"]
        );
        assert_eq!(
            described(CLAIM, StampLater),
            [[
                "p:4:49:stamp-later:fencing_token",
                "stamp `fencing_token = :token` later, by `id = :message_id` alone, after `COMMIT`"
            ]]
        );
    }

    #[test]
    fn a_claim_without_a_transaction_is_stamped_after_its_refusals() {
        let claim = "INSERT INTO lease_tokens (kind) VALUES ('claim') RETURNING token;
UPDATE messages SET claim_owner = :actor, fencing_token = :token,
       expires_at = :now + 30
 WHERE id = :message_id AND (state = 'NEW' OR expires_at <= :now)
RETURNING expires_at;
-- @refuse held unless changed 1: held
-- @return token, expires_at
";
        assert_eq!(
            texts(claim, StampLater),
            [
                "INSERT INTO lease_tokens (kind) VALUES ('claim') RETURNING token;
UPDATE messages SET claim_owner = :actor,
       expires_at = :now + 30
 WHERE id = :message_id AND (state = 'NEW' OR expires_at <= :now)
RETURNING expires_at;
-- @refuse held unless changed 1: held
UPDATE messages SET fencing_token = :token WHERE id = :message_id;
-- @return token, expires_at
"
            ]
        );
    }

    #[test]
    fn an_acquire_stamps_the_inserted_token_by_its_conflict_target() {
        let acquire = "BEGIN IMMEDIATE;
INSERT INTO lease_tokens (kind) VALUES ('actor') RETURNING token AS minted;
INSERT INTO leases (actor_id, holder, fencing_token, expires_at)
VALUES (:actor, :process, :minted, :now + 30)
ON CONFLICT (actor_id) DO UPDATE
   SET holder = excluded.holder,
       fencing_token = excluded.fencing_token,
       expires_at = excluded.expires_at
 WHERE leases.expires_at <= :now
RETURNING fencing_token AS token, expires_at;
-- @refuse held unless changed 1: held
COMMIT;
-- @return token, expires_at
";
        assert_eq!(
            texts(acquire, StampLater),
            ["BEGIN IMMEDIATE;
INSERT INTO lease_tokens (kind) VALUES ('actor') RETURNING token AS minted;
INSERT INTO leases (actor_id, holder, fencing_token, expires_at)
VALUES (:actor, :process, :minted, :now + 30)
ON CONFLICT (actor_id) DO UPDATE
   SET holder = excluded.holder,
       expires_at = excluded.expires_at
 WHERE leases.expires_at <= :now
RETURNING fencing_token AS token, expires_at;
-- @refuse held unless changed 1: held
COMMIT;
UPDATE leases SET fencing_token = :minted WHERE actor_id = :actor RETURNING fencing_token AS token;
-- @return token, expires_at
"]
        );
    }

    #[test]
    fn a_finish_that_clears_its_fence_is_no_take() {
        let finish = "BEGIN IMMEDIATE;
UPDATE assignments
   SET state = 'COMPLETED', current_execution_attempt = NULL
 WHERE id = :assignment_id AND current_execution_attempt = :attempt_id;
-- @refuse lost unless changed 1: no longer current
UPDATE attempts SET status = 'DONE' WHERE fencing_token = :attempt_token;
COMMIT;
";
        assert!(texts(finish, StampLater).is_empty());
    }

    #[test]
    fn a_fence_alone_an_unconditional_write_and_an_unkeyed_one_are_left() {
        for sql in [
            "UPDATE t SET token = :token WHERE id = :id AND token < :token;",
            "UPDATE t SET owner = :actor, token = :token;",
            "UPDATE t SET owner = :actor, token = :token WHERE expires_at <= :now;",
            "UPDATE t SET owner = :actor, token = :token WHERE id = :id OR id = :other;",
            "INSERT INTO t (id, owner, token) SELECT :id, :actor, :token
ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, token = excluded.token WHERE t.token < :token;",
        ] {
            assert!(texts(sql, StampLater).is_empty(), "{sql}");
        }
    }

    #[test]
    fn every_fence_word_names_a_fence() {
        let take = "UPDATE sessions SET host = :actor, incarnation = incarnation + 1,
 generation = :generation, attempt = :attempt, note = 'x'
 WHERE id = :id AND host IS NOT :actor;
";
        assert_eq!(
            described(take, StampLater)
                .iter()
                .map(|[id, _]| id.as_str())
                .collect::<Vec<_>>(),
            [
                "p:1:36:stamp-later:incarnation",
                "p:2:2:stamp-later:generation",
                "p:2:28:stamp-later:attempt",
            ]
        );
    }
}
