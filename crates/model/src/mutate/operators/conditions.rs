//! Conditions: `DropConjunct` and `NegateCondition`.
//!
//! Most fences are a conjunct of a WHERE: `AND state = 'NEW'`, `AND
//! fencing_token IS :token`, `AND claim_expires_at > :now`. Dropping one at a
//! time asks whether some scenario notices that check is gone; negating a
//! whole condition asks whether the scenarios look at it at all.
//!
//! Every WHERE, join ON and CASE WHEN condition counts, subqueries' included,
//! and so does a parenthesised conjunction inside one (`(state = 'CLAIMED'
//! AND claim_expires_at <= :now)` within an OR): that is where a takeover's
//! expiry check lives. A condition with a top-level OR is never split into
//! conjuncts (AND binds tighter, so its ANDs are inside the disjuncts); a
//! WHERE or ON with a single conjunct is dropped whole. Negation applies to
//! the clause-level conditions only.

use super::shape::{self, Condition, ConditionKind, Connective};
use super::{Candidates, Operator, Text, Unit, candidate};
use std::ops::Range;

pub(super) fn generate(text: &Text, out: &mut Candidates) {
    for unit in &text.units {
        for condition in shape::conditions(unit) {
            drop_conjuncts(text, unit, &condition, out);
            negate(text, unit, &condition, out);
        }
    }
}

fn drop_conjuncts(text: &Text, unit: &Unit, condition: &Condition, out: &mut Candidates) {
    let level = unit.levels[condition.keyword];
    let (connective, parts) = shape::operands(unit, condition.start, condition.end, level);
    let clause = condition.kind.clause();
    if connective == Connective::And && parts.len() >= 2 {
        drop_each(text, unit, &parts, clause, out);
    } else if condition.kind != ConditionKind::When && condition.keyword > 0 {
        // One conjunct: the whole clause goes, from the end of the token
        // before it, so no blank line or stray space is left behind.
        let keyword = unit.code[condition.keyword];
        let before = unit.code[condition.keyword - 1].end;
        let range = before..unit.code[condition.end - 1].end;
        out.push(candidate(
            Operator::DropConjunct,
            keyword.start,
            None,
            format!("drop {}", unit.quote(condition.keyword, condition.end)),
            text.splice(range, ""),
        ));
    }
    for part in &parts {
        nested(text, unit, part, level + 1, clause, out);
    }
}

/// The conjuncts of a parenthesised conjunction inside a condition, and of
/// those inside it in turn.
fn nested(
    text: &Text,
    unit: &Unit,
    part: &Range<usize>,
    level: usize,
    clause: &str,
    out: &mut Candidates,
) {
    let Some(inner) = shape::parenthesised(unit, part) else {
        return;
    };
    let (connective, parts) = shape::operands(unit, inner.start, inner.end, level);
    if connective == Connective::And && parts.len() >= 2 {
        drop_each(text, unit, &parts, clause, out);
    }
    for part in &parts {
        nested(text, unit, part, level + 1, clause, out);
    }
}

/// One candidate per conjunct: the first goes with the AND after it, the
/// others with the AND before them.
fn drop_each(text: &Text, unit: &Unit, parts: &[Range<usize>], clause: &str, out: &mut Candidates) {
    if parts.iter().any(Range::is_empty) {
        return;
    }
    for (index, part) in parts.iter().enumerate() {
        let (offset, range, quoted) = if index == 0 {
            let next = unit.code[parts[1].start].start;
            (
                unit.code[part.start].start,
                unit.code[part.start].start..next,
                unit.quote(part.start, parts[1].start),
            )
        } else {
            let and = part.start - 1;
            let previous_end = unit.code[parts[index - 1].end - 1].end;
            (
                unit.code[and].start,
                previous_end..unit.code[part.end - 1].end,
                unit.quote(and, part.end),
            )
        };
        out.push(candidate(
            Operator::DropConjunct,
            offset,
            None,
            format!("drop {quoted} from the {clause}"),
            text.splice(range, ""),
        ));
    }
}

fn negate(text: &Text, unit: &Unit, condition: &Condition, out: &mut Candidates) {
    let range = unit.span(condition.start, condition.end);
    let negated = format!("NOT ({})", &text.source[range.clone()]);
    out.push(candidate(
        Operator::NegateCondition,
        unit.code[condition.keyword].start,
        None,
        format!(
            "negate the {} condition {}",
            condition.kind.clause(),
            unit.quote(condition.start, condition.end)
        ),
        text.splice(range, &negated),
    ));
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts};
    use crate::mutate::Operator::{DropConjunct, NegateCondition};

    #[test]
    fn each_conjunct_of_a_where_is_dropped_once() {
        let source =
            "UPDATE t SET a = 1\n WHERE id = :id\n   AND state = 'NEW'\n   AND b > :now;\n";
        assert_eq!(
            texts(source, DropConjunct),
            [
                "UPDATE t SET a = 1\n WHERE state = 'NEW'\n   AND b > :now;\n",
                "UPDATE t SET a = 1\n WHERE id = :id\n   AND b > :now;\n",
                "UPDATE t SET a = 1\n WHERE id = :id\n   AND state = 'NEW';\n",
            ]
        );
        assert_eq!(
            described(source, DropConjunct),
            [
                ["p:2:8:drop-conjunct", "drop `id = :id AND` from the WHERE"],
                [
                    "p:3:4:drop-conjunct",
                    "drop `AND state = 'NEW'` from the WHERE"
                ],
                ["p:4:4:drop-conjunct", "drop `AND b > :now` from the WHERE"],
            ]
        );
    }

    #[test]
    fn a_single_conjunct_drops_the_whole_clause() {
        assert_eq!(
            texts(
                "UPDATE t SET a = 1\n WHERE id = :id\nRETURNING a;",
                DropConjunct
            ),
            ["UPDATE t SET a = 1\nRETURNING a;"]
        );
        assert_eq!(
            described("SELECT 1 AS x WHERE :a = :b;", DropConjunct),
            [["p:1:15:drop-conjunct", "drop `WHERE :a = :b`"]]
        );
    }

    #[test]
    fn a_top_level_or_is_never_split_but_its_parenthesised_conjunctions_are() {
        assert_eq!(
            texts(
                "SELECT 1 FROM t WHERE a = 1 AND b = 2 OR c = 3;",
                DropConjunct
            ),
            ["SELECT 1 FROM t;"]
        );
        assert_eq!(
            texts(
                "UPDATE m SET s = 1\n WHERE id = :id\n   AND (s = 'NEW' OR (s = 'CLAIMED' AND e <= :now));",
                DropConjunct
            ),
            [
                "UPDATE m SET s = 1\n WHERE (s = 'NEW' OR (s = 'CLAIMED' AND e <= :now));",
                "UPDATE m SET s = 1\n WHERE id = :id;",
                "UPDATE m SET s = 1\n WHERE id = :id\n   AND (s = 'NEW' OR (e <= :now));",
                "UPDATE m SET s = 1\n WHERE id = :id\n   AND (s = 'NEW' OR (s = 'CLAIMED'));",
            ]
        );
    }

    #[test]
    fn between_joins_nothing() {
        assert_eq!(
            texts(
                "SELECT 1 FROM t WHERE a BETWEEN 1 AND 2 AND b = 3;",
                DropConjunct
            ),
            [
                "SELECT 1 FROM t WHERE b = 3;",
                "SELECT 1 FROM t WHERE a BETWEEN 1 AND 2;",
            ]
        );
    }

    #[test]
    fn subqueries_joins_and_case_whens_have_conditions_of_their_own() {
        let source = "INSERT INTO r SELECT a.x FROM a JOIN b ON b.id = a.id AND b.live = 1\n WHERE a.k = :k AND NOT EXISTS (SELECT 1 FROM c WHERE c.k = :k AND c.z = 0)\n   AND CASE WHEN a.v > 1 AND a.w < 2 THEN 1 ELSE 0 END = 1\nON CONFLICT DO NOTHING;";
        let dropped = described(source, DropConjunct);
        let descriptions: Vec<&str> = dropped.iter().map(|[_, d]| d.as_str()).collect();
        assert_eq!(
            descriptions,
            [
                "drop `b.id = a.id AND` from the ON",
                "drop `AND b.live = 1` from the ON",
                "drop `a.k = :k AND` from the WHERE",
                "drop `AND NOT EXISTS (SELECT 1 FROM c WHERE c.k = :k ...` from the WHERE",
                "drop `c.k = :k AND` from the WHERE",
                "drop `AND c.z = 0` from the WHERE",
                "drop `AND CASE WHEN a.v > 1 AND a.w < 2 THEN 1 ELSE 0 ...` from the WHERE",
                "drop `a.v > 1 AND` from the CASE WHEN",
                "drop `AND a.w < 2` from the CASE WHEN",
            ]
        );
        // The WHERE of an INSERT ... SELECT ends at its ON CONFLICT.
        assert!(
            texts(source, DropConjunct)
                .iter()
                .all(|t| t.contains("ON CONFLICT"))
        );
    }

    #[test]
    fn conditions_are_negated_whole() {
        let source = "SELECT x FROM t JOIN u ON u.id = t.id WHERE t.a = 1 AND t.b = 2;";
        assert_eq!(
            texts(source, NegateCondition),
            [
                "SELECT x FROM t JOIN u ON NOT (u.id = t.id) WHERE t.a = 1 AND t.b = 2;",
                "SELECT x FROM t JOIN u ON u.id = t.id WHERE NOT (t.a = 1 AND t.b = 2);",
            ]
        );
        assert_eq!(
            described(source, NegateCondition)[1][1],
            "negate the WHERE condition `t.a = 1 AND t.b = 2`"
        );
    }

    #[test]
    fn upsert_targets_and_simple_cases_are_not_conditions() {
        let source = "INSERT INTO t (k, n) VALUES (:k, 1)\nON CONFLICT (k) DO UPDATE SET n = CASE n WHEN 1 THEN 2 ELSE 3 END;";
        assert!(texts(source, NegateCondition).is_empty());
        assert!(texts(source, DropConjunct).is_empty());
    }
}
