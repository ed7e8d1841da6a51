//! Upserts: `DropUpsertAssignment` and `UpsertDoNothing`.
//!
//! An upsert's `DO UPDATE SET` is a takeover: when a lease row already
//! exists, it says which columns the new holder overwrites, usually under a
//! WHERE that only lets an expired lease be taken. Forgetting one column
//! (the new holder keeps the old fencing token) or doing nothing on conflict
//! (an expired lease can never be taken over) are the bugs these write.

use super::shape::{self, SetList};
use super::{Candidates, Operator, Text, Unit, candidate};

pub(super) fn generate(text: &Text, out: &mut Candidates) {
    for unit in &text.units {
        for list in shape::set_lists(unit).iter().filter(|l| l.upsert) {
            drop_assignments(text, unit, list, out);
            do_nothing(text, unit, list, out);
        }
    }
}

fn drop_assignments(text: &Text, unit: &Unit, list: &SetList, out: &mut Candidates) {
    let assignments = &list.assignments;
    if assignments.len() < 2 {
        return;
    }
    for (index, assignment) in assignments.iter().enumerate() {
        // The first goes with the comma after it, the others with the comma
        // before them.
        let range = if index == 0 {
            unit.code[assignment.start].start..unit.code[assignments[1].start].start
        } else {
            unit.code[assignments[index - 1].end - 1].end..unit.code[assignment.end - 1].end
        };
        let column = unit.token_text(assignment.start);
        out.push(candidate(
            Operator::DropUpsertAssignment,
            unit.code[assignment.start].start,
            Some(column),
            format!(
                "drop {} from the upsert's `DO UPDATE SET`",
                unit.quote(assignment.start, assignment.end)
            ),
            text.splice(range, ""),
        ));
    }
}

/// `DO UPDATE SET ... [WHERE ...]` becomes `DO NOTHING`.
fn do_nothing(text: &Text, unit: &Unit, list: &SetList, out: &mut Candidates) {
    let mut end = list.end;
    if unit.is_word(end, "WHERE") {
        end = shape::conditions(unit)
            .iter()
            .find(|c| c.keyword == list.end)
            .map_or(end + 1, |c| c.end);
    }
    out.push(candidate(
        Operator::UpsertDoNothing,
        unit.code[list.update].start,
        None,
        format!(
            "do nothing on conflict instead of {}",
            unit.quote(list.update - 1, end)
        ),
        text.splice(unit.span(list.update, end), "NOTHING"),
    ));
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts};
    use crate::mutate::Operator::{DropUpsertAssignment, UpsertDoNothing};

    const ACQUIRE: &str =
        "INSERT INTO leases (actor, holder, token) VALUES (:actor, :process, :token)
ON CONFLICT (actor) DO UPDATE
   SET holder = excluded.holder,
       token = excluded.token
 WHERE leases.expires_at <= :now
RETURNING token;
-- @refuse held unless changed 1: held
";

    #[test]
    fn each_assignment_of_the_upsert_is_dropped() {
        assert_eq!(
            texts(ACQUIRE, DropUpsertAssignment),
            [
                "INSERT INTO leases (actor, holder, token) VALUES (:actor, :process, :token)
ON CONFLICT (actor) DO UPDATE
   SET token = excluded.token
 WHERE leases.expires_at <= :now
RETURNING token;
-- @refuse held unless changed 1: held
",
                "INSERT INTO leases (actor, holder, token) VALUES (:actor, :process, :token)
ON CONFLICT (actor) DO UPDATE
   SET holder = excluded.holder
 WHERE leases.expires_at <= :now
RETURNING token;
-- @refuse held unless changed 1: held
",
            ]
        );
        assert_eq!(
            described(ACQUIRE, DropUpsertAssignment)[1],
            [
                "p:4:8:drop-upsert-assignment:token",
                "drop `token = excluded.token` from the upsert's `DO UPDATE SET`"
            ]
        );
    }

    #[test]
    fn do_update_becomes_do_nothing_with_its_where() {
        assert_eq!(
            texts(ACQUIRE, UpsertDoNothing),
            [
                "INSERT INTO leases (actor, holder, token) VALUES (:actor, :process, :token)
ON CONFLICT (actor) DO NOTHING
RETURNING token;
-- @refuse held unless changed 1: held
"
            ]
        );
        assert_eq!(
            described(ACQUIRE, UpsertDoNothing)[0][1],
            "do nothing on conflict instead of `DO UPDATE SET holder = excluded.holder, token = ...`"
        );
    }

    #[test]
    fn an_update_statement_is_not_an_upsert() {
        let source = "UPDATE t SET a = 1, b = 2 WHERE k = :k;";
        assert!(texts(source, DropUpsertAssignment).is_empty());
        assert!(texts(source, UpsertDoNothing).is_empty());
    }
}
