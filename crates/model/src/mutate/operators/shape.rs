//! What several operator families read from one statement's tokens: nesting
//! levels, conditions (WHERE, ON, CASE WHEN) and their conjuncts, SET lists
//! (an UPDATE's or an upsert's assignments), the tables a statement names,
//! and the short SQL a description quotes.
//!
//! It is a reading of the tokens good enough to place one change, not a SQL
//! parser: whatever it misreads produces a text SQLite or the procedure
//! parser refuses, or a mutant that changes less than intended. It never
//! decides whether SQL is valid, and never indexes past a unit's tokens.

use super::Unit;
use crate::procedure::lexer::{Token, TokenKind};
use std::ops::Range;

/// The words that end a condition at its own level: the clauses that may
/// follow a WHERE or an ON, the end of a CASE WHEN's condition, and the
/// words that start a join. (A CASE's END closes a level, so a CASE WHEN's
/// condition also ends there, and a WHERE runs on past a CASE inside it.)
const CONDITION_ENDS: &[&str] = &[
    "GROUP",
    "ORDER",
    "LIMIT",
    "RETURNING",
    "HAVING",
    "WINDOW",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "DO",
    "ON",
    "WHERE",
    "THEN",
    "WHEN",
    "ELSE",
    "SET",
    "JOIN",
    "LEFT",
    "RIGHT",
    "FULL",
    "INNER",
    "CROSS",
    "NATURAL",
    "USING",
];

/// The words that end an UPDATE's (or an upsert's) list of assignments.
const SET_LIST_ENDS: &[&str] = &["WHERE", "FROM", "RETURNING", "ORDER", "LIMIT"];

/// Words that may follow a table name but are not its alias.
const NOT_ALIASES: &[&str] = &[
    "WHERE",
    "JOIN",
    "ON",
    "SET",
    "LEFT",
    "RIGHT",
    "FULL",
    "INNER",
    "CROSS",
    "NATURAL",
    "OUTER",
    "GROUP",
    "ORDER",
    "LIMIT",
    "RETURNING",
    "USING",
    "VALUES",
    "DEFAULT",
    "SELECT",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "WINDOW",
    "HAVING",
    "INDEXED",
    "NOT",
    "DO",
];

/// The words at which an expression quoted in a description stops, beside
/// those that end a condition.
const EXPRESSION_ENDS: &[&str] = &["AND", "OR", "NOT", "SELECT", "FROM", "VALUES", "AS"];

/// The clause keywords a statement's head runs through ("UPDATE messages SET").
const HEAD_ENDS: &[&str] = &[
    "SET",
    "VALUES",
    "WHERE",
    "FROM",
    "RETURNING",
    "SELECT",
    "DO",
];

/// Nesting levels of `code`: `(` and `CASE` open one, `)` and `END` close
/// it; the opening and closing tokens sit at the outer level.
pub(super) fn levels(source: &str, code: &[Token]) -> Vec<usize> {
    let mut level = 0usize;
    code.iter()
        .map(|token| {
            let opens = token.kind == TokenKind::OpenParen || token.is_word(source, "CASE");
            let closes = token.kind == TokenKind::CloseParen || token.is_word(source, "END");
            if closes {
                level = level.saturating_sub(1);
            }
            let here = level;
            if opens {
                level += 1;
            }
            here
        })
        .collect()
}

/// Which clause a condition belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ConditionKind {
    Where,
    On,
    When,
}

impl ConditionKind {
    pub(super) fn clause(self) -> &'static str {
        match self {
            ConditionKind::Where => "WHERE",
            ConditionKind::On => "ON",
            ConditionKind::When => "CASE WHEN",
        }
    }
}

/// A condition: the code tokens `start..end` after its `keyword`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Condition {
    pub(super) kind: ConditionKind,
    pub(super) keyword: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Every WHERE, join ON and CASE WHEN condition of the statement, those of
/// its subqueries included (each at its own level). `ON CONFLICT` is not a
/// condition.
pub(super) fn conditions(unit: &Unit) -> Vec<Condition> {
    let mut out = Vec::new();
    for keyword in 0..unit.code.len() {
        let kind = if unit.is_word(keyword, "WHERE") {
            ConditionKind::Where
        } else if unit.is_word(keyword, "ON") && !unit.is_word(keyword + 1, "CONFLICT") {
            ConditionKind::On
        } else if unit.is_word(keyword, "WHEN") && searched_case(unit, keyword) {
            ConditionKind::When
        } else {
            continue;
        };
        let level = unit.levels[keyword];
        let start = keyword + 1;
        let end = (start..unit.code.len())
            .find(|&i| {
                unit.levels[i] < level
                    || (unit.levels[i] == level
                        && (unit.is_any_word(i, CONDITION_ENDS) || unit.is_punctuation(i, ",")))
            })
            .unwrap_or(unit.code.len());
        if start < end {
            out.push(Condition {
                kind,
                keyword,
                start,
                end,
            });
        }
    }
    out
}

/// Whether the WHEN at `when` belongs to a searched `CASE WHEN condition`
/// rather than a simple `CASE value WHEN value`, whose WHEN holds no
/// condition.
fn searched_case(unit: &Unit, when: usize) -> bool {
    let level = unit.levels[when];
    (0..when)
        .rev()
        .find(|&i| unit.levels[i] < level)
        .is_some_and(|case| unit.is_word(case, "CASE") && unit.is_word(case + 1, "WHEN"))
}

/// How the operands of a boolean expression are joined at its top level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Connective {
    And,
    Or,
}

/// The operands of the boolean expression `start..end` at `level`: its
/// disjuncts when it has a top-level OR (AND binds tighter, so a condition
/// with one is never split into conjuncts), otherwise its conjuncts. The
/// AND of a `BETWEEN x AND y` joins nothing.
pub(super) fn operands(
    unit: &Unit,
    start: usize,
    end: usize,
    level: usize,
) -> (Connective, Vec<Range<usize>>) {
    let at_level = |i: &usize| unit.levels[*i] == level;
    let connective = if (start..end).filter(at_level).any(|i| unit.is_word(i, "OR")) {
        Connective::Or
    } else {
        Connective::And
    };
    let mut parts = Vec::new();
    let mut part_start = start;
    let mut in_between = false;
    for i in (start..end).filter(at_level) {
        match connective {
            Connective::Or if unit.is_word(i, "OR") => {
                parts.push(part_start..i);
                part_start = i + 1;
            }
            Connective::And if unit.is_word(i, "BETWEEN") => in_between = true,
            Connective::And if unit.is_word(i, "AND") => {
                if in_between {
                    in_between = false;
                } else {
                    parts.push(part_start..i);
                    part_start = i + 1;
                }
            }
            _ => {}
        }
    }
    parts.push(part_start..end);
    (connective, parts)
}

/// The index of the `)` that closes the `(` at `open`.
pub(super) fn closing(unit: &Unit, open: usize) -> Option<usize> {
    let level = *unit.levels.get(open)?;
    (open + 1..unit.code.len())
        .find(|&i| unit.levels[i] == level)
        .filter(|&i| unit.kind(i) == Some(TokenKind::CloseParen))
}

/// When `part` is one parenthesised boolean expression (not a subquery),
/// the code tokens inside its parentheses.
pub(super) fn parenthesised(unit: &Unit, part: &Range<usize>) -> Option<Range<usize>> {
    if part.is_empty() || unit.kind(part.start) != Some(TokenKind::OpenParen) {
        return None;
    }
    let inner = part.start + 1..part.end - 1;
    let is_subquery = unit.is_any_word(inner.start, &["SELECT", "WITH", "VALUES"]);
    (closing(unit, part.start) == Some(part.end - 1) && !inner.is_empty() && !is_subquery)
        .then_some(inner)
}

/// Ranges of the subqueries inside `start..end` (their parentheses
/// included), so a reader of a condition can skip their select lists.
pub(super) fn subqueries(unit: &Unit, start: usize, end: usize) -> Vec<Range<usize>> {
    (start..end)
        .filter(|&i| {
            unit.kind(i) == Some(TokenKind::OpenParen)
                && unit.is_any_word(i + 1, &["SELECT", "WITH", "VALUES"])
        })
        .filter_map(|open| closing(unit, open).map(|close| open..close + 1))
        .collect()
}

/// One `column = expression` of a SET list: its code tokens `start..end`,
/// and the `=` that makes it an assignment.
#[derive(Clone, Debug)]
pub(super) struct Assignment {
    pub(super) start: usize,
    pub(super) equals: Option<usize>,
    pub(super) end: usize,
}

/// The assignments after one `SET`.
#[derive(Clone, Debug)]
pub(super) struct SetList {
    /// The index of `UPDATE` (for an upsert, the one after `DO`).
    pub(super) update: usize,
    pub(super) set: usize,
    /// An upsert's `DO UPDATE SET`, rather than an UPDATE statement's.
    pub(super) upsert: bool,
    pub(super) assignments: Vec<Assignment>,
    /// The first code token after the list.
    pub(super) end: usize,
}

/// Every SET list of the statement: an UPDATE's and an upsert's alike.
pub(super) fn set_lists(unit: &Unit) -> Vec<SetList> {
    let mut out = Vec::new();
    for set in 0..unit.code.len() {
        if !unit.is_word(set, "SET") {
            continue;
        }
        let level = unit.levels[set];
        let Some(update) = (0..set)
            .rev()
            .filter(|&i| unit.levels[i] == level)
            .find(|&i| unit.is_word(i, "UPDATE"))
        else {
            continue;
        };
        let upsert = update > 0 && unit.is_word(update - 1, "DO");
        let end = (set + 1..unit.code.len())
            .find(|&i| {
                unit.levels[i] < level
                    || (unit.levels[i] == level && unit.is_any_word(i, SET_LIST_ENDS))
            })
            .unwrap_or(unit.code.len());
        let mut assignments = Vec::new();
        let mut start = set + 1;
        for i in set + 1..=end {
            if i == end || (unit.levels[i] == level && unit.is_punctuation(i, ",")) {
                if start < i {
                    let equals = (start..i)
                        .find(|&j| unit.levels[j] == level && unit.is_punctuation(j, "="));
                    assignments.push(Assignment {
                        start,
                        equals,
                        end: i,
                    });
                }
                start = i + 1;
            }
        }
        out.push(SetList {
            update,
            set,
            upsert,
            assignments,
            end,
        });
    }
    out
}

/// The `=` tokens of the statement that assign rather than compare.
pub(super) fn assignment_equals(unit: &Unit) -> Vec<usize> {
    set_lists(unit)
        .iter()
        .flat_map(|list| list.assignments.iter().filter_map(|a| a.equals))
        .collect()
}

/// A table the statement names, with the alias it goes by.
#[derive(Clone, Debug)]
pub(super) struct TableRef {
    pub(super) name: String,
    pub(super) alias: Option<String>,
    /// The INSERT's table, which an upsert reads as `excluded`.
    pub(super) inserted: bool,
}

/// The tables named after FROM, JOIN, UPDATE and INTO, anywhere in the
/// statement, in order.
pub(super) fn tables(unit: &Unit) -> Vec<TableRef> {
    let mut out = Vec::new();
    for i in 0..unit.code.len() {
        let after_from = unit.is_word(i, "FROM") && !(i > 0 && unit.is_word(i - 1, "DISTINCT"));
        let after_update = unit.is_word(i, "UPDATE") && !(i > 0 && unit.is_word(i - 1, "DO"));
        let inserted = unit.is_word(i, "INTO");
        if !(after_from || after_update || inserted || unit.is_word(i, "JOIN")) {
            continue;
        }
        let mut at = i + 1;
        if after_update && unit.is_word(at, "OR") {
            at += 2;
        }
        loop {
            if !matches!(unit.kind(at), Some(TokenKind::Word | TokenKind::QuotedName)) {
                break;
            }
            let name = unquoted(unit.token_text(at)).to_string();
            let (alias, next) = if unit.is_word(at + 1, "AS") {
                (Some(unit.token_text(at + 2)), at + 3)
            } else if unit.kind(at + 1) == Some(TokenKind::Word)
                && !unit.is_any_word(at + 1, NOT_ALIASES)
            {
                (Some(unit.token_text(at + 1)), at + 2)
            } else {
                (None, at + 1)
            };
            out.push(TableRef {
                name,
                alias: alias.map(|a| unquoted(a).to_string()),
                inserted,
            });
            // `FROM a, b` names several tables.
            if after_from && unit.is_punctuation(next, ",") {
                at = next + 1;
            } else {
                break;
            }
        }
    }
    out
}

fn unquoted(name: &str) -> &str {
    let mut chars = name.chars();
    match (chars.next(), chars.next_back()) {
        (Some('"'), Some('"')) | (Some('`'), Some('`')) | (Some('['), Some(']')) => {
            &name[1..name.len() - 1]
        }
        _ => name,
    }
}

/// The code tokens of the expression around `first..end` (a comparison,
/// a term of a condition): widened at its level up to the nearest clause
/// word, connective or comma, for a description to quote.
pub(super) fn expression_around(unit: &Unit, first: usize, end: usize) -> Range<usize> {
    let level = unit.levels[first];
    let stops = |i: usize| {
        unit.levels[i] < level
            || (unit.levels[i] == level
                && (unit.is_any_word(i, EXPRESSION_ENDS)
                    || unit.is_any_word(i, CONDITION_ENDS)
                    || unit.is_punctuation(i, ",")))
    };
    let start = (0..first).rev().find(|&i| stops(i)).map_or(0, |i| i + 1);
    let stop = (end..unit.code.len())
        .find(|&i| stops(i))
        .unwrap_or(unit.code.len());
    start..stop
}

/// The statement's head, quoted: its text through its first clause keyword
/// (`UPDATE messages SET ...`), or the effect's directive.
pub(super) fn head(unit: &Unit) -> String {
    if unit.code.is_empty() {
        let comment = &unit.source[unit.start..unit.statement_end];
        return super::quote(comment.trim_start_matches('-').trim_start());
    }
    let clause = (1..unit.code.len()).find(|&i| {
        unit.levels[i] == 0
            && unit.is_any_word(i, HEAD_ENDS)
            && !(unit.is_word(i, "FROM") && unit.is_word(i - 1, "DELETE"))
    });
    match clause {
        Some(i) if i + 1 < unit.code.len() => {
            let quoted = unit.quote(0, i + 1);
            if quoted.ends_with("...`") {
                quoted
            } else {
                format!("{} ...`", quoted.trim_end_matches('`'))
            }
        }
        _ => unit.quote(0, unit.code.len()),
    }
}

/// What a description quotes around the code tokens `first..end`: the
/// expression they belong to, or, when that is only themselves (a value in
/// a list), the parenthesised list with the word before it, or else the
/// statement's code on their line (`RETURNING 1 AS released`).
pub(super) fn context(unit: &Unit, first: usize, end: usize) -> String {
    let expression = expression_around(unit, first, end);
    if expression != (first..end) {
        return unit.quote(expression.start, expression.end);
    }
    let level = unit.levels[first];
    let open = (0..first).rev().find(|&i| unit.levels[i] < level);
    match open.and_then(|open| closing(unit, open).map(|close| (open, close))) {
        Some((open, close)) => {
            let from = if open > 0 && unit.kind(open - 1) == Some(TokenKind::Word) {
                open - 1
            } else {
                open
            };
            unit.quote(from, close + 1)
        }
        None => {
            let source = unit.source;
            let line = |i: usize| source[..unit.code[i].start].matches('\n').count();
            let here = line(first);
            let start = (0..first).rev().take_while(|&i| line(i) == here).last();
            let stop = (end..unit.code.len())
                .take_while(|&i| line(i) == here)
                .last();
            unit.quote(start.unwrap_or(first), stop.map_or(end, |i| i + 1))
        }
    }
}

/// The words that end a select list.
const SELECT_LIST_ENDS: &[&str] = &[
    "FROM",
    "WHERE",
    "GROUP",
    "HAVING",
    "WINDOW",
    "ORDER",
    "LIMIT",
    "UNION",
    "EXCEPT",
    "INTERSECT",
];

/// The names of the columns the statement returns (a read's SELECT list, a
/// write's RETURNING list): the values later statements of the call can use
/// as `:name`. Only `... AS name` and plain columns (`name`, `t.name`) are
/// read; an expression SQLite would name by its text gives no name.
pub(super) fn result_names(unit: &Unit) -> Vec<String> {
    use crate::procedure::StatementClass;
    let list = match unit.class {
        Some(StatementClass::Read) => "SELECT",
        Some(StatementClass::Write) => "RETURNING",
        _ => return Vec::new(),
    };
    let Some(keyword) =
        (0..unit.code.len()).find(|&i| unit.levels[i] == 0 && unit.is_word(i, list))
    else {
        return Vec::new();
    };
    let end = (keyword + 1..unit.code.len())
        .find(|&i| unit.levels[i] == 0 && unit.is_any_word(i, SELECT_LIST_ENDS))
        .unwrap_or(unit.code.len());
    let mut names = Vec::new();
    let first = if unit.is_any_word(keyword + 1, &["DISTINCT", "ALL"]) {
        keyword + 2
    } else {
        keyword + 1
    };
    let mut start = first;
    for i in first..=end {
        if i < end && !(unit.levels[i] == 0 && unit.is_punctuation(i, ",")) {
            continue;
        }
        let length = i.saturating_sub(start);
        let is_name = |at: usize| unit.kind(at) == Some(TokenKind::Word);
        // `expression AS name`, `name` or `table.name`: the name is last.
        let named = (length >= 3 && unit.is_word(i - 2, "AS"))
            || (length == 1 && is_name(start))
            || (length == 3 && is_name(start) && unit.is_punctuation(start + 1, "."));
        if named && is_name(i - 1) {
            names.push(unit.token_text(i - 1).to_string());
        }
        start = i + 1;
    }
    names
}
