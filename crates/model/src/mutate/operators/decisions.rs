//! Decisions: `DropRefusal`, `FlipDecision` and `ShiftDecisionCount`.
//!
//! A compare-and-set only fences if its row count is read: `-- @refuse
//! not_claimable unless changed 1` is what turns a write that matched
//! nothing into a refusal. Dropping a refusal, flipping `unless` and `if`,
//! and moving the count by one ask whether some scenario depends on each
//! decision exactly as written.
//!
//! Decisions are the `-- @refuse` and `-- @return` comments the lexer
//! found after each statement; their words are read the way the procedure
//! parser reads them (a refusal's condition is before its `:`, a return's
//! after its names).

use super::{Candidates, Operator, Text, candidate, quote};
use crate::procedure::directive::refusal_parts;
use crate::procedure::lexer::Token;

pub(super) fn generate(text: &Text, out: &mut Candidates) {
    for unit in &text.units {
        for comment in &unit.decisions {
            decision(text, comment, out);
        }
    }
}

/// The whitespace-separated words of `text` with their byte offsets.
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (true, Some(from)) => {
                out.push((from, &text[from..at]));
                start = None;
            }
            (false, None) => start = Some(at),
            _ => {}
        }
    }
    out
}

fn decision(text: &Text, comment: &Token, out: &mut Candidates) {
    let written = comment.text(text.source);
    let Some(at) = written.find('@') else {
        return;
    };
    let directive = &written[at..];
    let refuse = directive.starts_with("@refuse");
    // A refusal's condition comes before the `:` that starts its reason.
    let head = if refuse {
        refusal_parts(directive).0
    } else {
        directive
    };
    let head_offset = comment.start + at;
    let shown = quote(head);
    if refuse {
        out.push(candidate(
            Operator::DropRefusal,
            comment.start,
            None,
            format!(
                "drop the refusal {}",
                quote(head.trim_start_matches("@refuse"))
            ),
            text.splice(text.removal(comment.start..comment.end), ""),
        ));
    }
    let words = words(head);
    let [.., (when_at, when), (_, measure), (count_at, count_word)] = words.as_slice() else {
        return;
    };
    let flipped = match *when {
        "unless" => "if",
        "if" => "unless",
        _ => return,
    };
    let Ok(count) = count_word.parse::<u64>() else {
        return;
    };
    if !matches!(*measure, "changed" | "returned") {
        return;
    }
    let when_at = head_offset + when_at;
    out.push(candidate(
        Operator::FlipDecision,
        when_at,
        None,
        format!("flip {shown} to `{flipped} {measure} {count}`"),
        text.splice(when_at..when_at + when.len(), flipped),
    ));
    let count_range = head_offset + count_at..head_offset + count_at + count_word.len();
    let shifted = [("+1", count.checked_add(1)), ("-1", count.checked_sub(1))];
    for (variant, shifted) in shifted {
        let Some(shifted) = shifted else {
            continue;
        };
        out.push(candidate(
            Operator::ShiftDecisionCount,
            count_range.start,
            Some(variant),
            format!("count {shifted} instead of {count} in {shown}"),
            text.splice(count_range.clone(), &shifted.to_string()),
        ));
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::testing::{described, texts};
    use crate::mutate::Operator::{DropRefusal, FlipDecision, ShiftDecisionCount};

    const JUDGED: &str = "SELECT s FROM t WHERE k = :k;
-- @refuse missing unless returned 1: no row {k}
-- @return s if returned 0
";

    #[test]
    fn a_refusal_line_is_dropped() {
        assert_eq!(
            texts(JUDGED, DropRefusal),
            ["SELECT s FROM t WHERE k = :k;\n-- @return s if returned 0\n"]
        );
        assert_eq!(
            described(JUDGED, DropRefusal),
            [[
                "p:2:1:drop-refusal",
                "drop the refusal `missing unless returned 1`"
            ]]
        );
    }

    #[test]
    fn unless_and_if_flip() {
        assert_eq!(
            texts(JUDGED, FlipDecision),
            [
                "SELECT s FROM t WHERE k = :k;
-- @refuse missing if returned 1: no row {k}
-- @return s if returned 0
",
                "SELECT s FROM t WHERE k = :k;
-- @refuse missing unless returned 1: no row {k}
-- @return s unless returned 0
",
            ]
        );
        assert_eq!(
            described(JUDGED, FlipDecision)[0],
            [
                "p:2:20:flip-decision",
                "flip `@refuse missing unless returned 1` to `if returned 1`"
            ]
        );
    }

    #[test]
    fn counts_move_by_one_but_not_below_zero() {
        assert_eq!(
            texts(JUDGED, ShiftDecisionCount),
            [
                "SELECT s FROM t WHERE k = :k;
-- @refuse missing unless returned 2: no row {k}
-- @return s if returned 0
",
                "SELECT s FROM t WHERE k = :k;
-- @refuse missing unless returned 0: no row {k}
-- @return s if returned 0
",
                "SELECT s FROM t WHERE k = :k;
-- @refuse missing unless returned 1: no row {k}
-- @return s if returned 1
",
            ]
        );
        assert_eq!(
            described(JUDGED, ShiftDecisionCount)[0][1],
            "count 2 instead of 1 in `@refuse missing unless returned 1`"
        );
    }

    #[test]
    fn unconditional_decisions_have_nothing_to_flip() {
        let source = "UPDATE t SET a = 1;\n-- @refuse gone: the row is gone\n-- @return a\n";
        assert!(texts(source, FlipDecision).is_empty());
        assert!(texts(source, ShiftDecisionCount).is_empty());
        assert_eq!(
            texts(source, DropRefusal),
            ["UPDATE t SET a = 1;\n-- @return a\n"]
        );
    }
}
