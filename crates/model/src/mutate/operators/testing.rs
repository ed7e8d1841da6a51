//! What the operator tests share, and the tests of the whole: running
//! [`mutants`] on a text and reading one family's results, a schema's
//! columns read with the lexer (the engine reads them from SQLite, which the
//! model never links), and every bundled exercise's editable references.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::exercise::Exercise;
use crate::mutate::{Context, Mutant, MutantBudget, Mutants, Operator, TableColumns};
use crate::procedure::Procedure;
use crate::procedure::lexer::{self, TokenKind};
use std::collections::{BTreeMap, BTreeSet};

/// Every mutant of `source`, which the tests keep well within the budget.
fn mutants(name: &str, source: &str, context: &Context) -> Mutants {
    crate::mutate::mutants(name, source, context, &mut MutantBudget::default())
        .expect("a test's procedure is within the mutant budget")
}

/// The mutants of one family for the procedure `p` with text `source`.
pub(super) fn of(source: &str, operator: Operator, context: &Context) -> Vec<Mutant> {
    mutants("p", source, context)
        .mutants
        .into_iter()
        .filter(|m| m.operator == operator)
        .collect()
}

/// The texts of one family's mutants, in the order `mutants` gives them.
pub(super) fn texts(source: &str, operator: Operator) -> Vec<String> {
    texts_with(source, operator, &Context::default())
}

pub(super) fn texts_with(source: &str, operator: Operator, context: &Context) -> Vec<String> {
    of(source, operator, context)
        .into_iter()
        .map(|m| m.text)
        .collect()
}

/// The ids and descriptions of one family's mutants.
pub(super) fn described(source: &str, operator: Operator) -> Vec<[String; 2]> {
    of(source, operator, &Context::default())
        .into_iter()
        .map(|m| [m.id, m.description])
        .collect()
}

/// Words that end a column's declared type in a `CREATE TABLE`.
const COLUMN_CONSTRAINTS: &[&str] = &[
    "PRIMARY",
    "NOT",
    "NULL",
    "DEFAULT",
    "CHECK",
    "UNIQUE",
    "REFERENCES",
    "COLLATE",
    "GENERATED",
    "AS",
    "CONSTRAINT",
];

/// Words that start a table constraint rather than a column.
const TABLE_CONSTRAINTS: &[&str] = &["PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "CONSTRAINT"];

/// The tables of a schema with their columns' declared types, read from
/// its `CREATE TABLE` statements: what `PRAGMA table_info` tells the engine.
fn tables_of(schema: &str) -> Vec<TableColumns> {
    let tokens = lexer::tokens(schema).unwrap_or_default();
    let code: Vec<_> = tokens.iter().filter(|t| !t.is_comment()).collect();
    let mut out = Vec::new();
    for (i, token) in code.iter().enumerate() {
        let table_follows = code.get(i + 1).is_some_and(|t| t.is_word(schema, "TABLE"));
        if !(token.is_word(schema, "CREATE") && table_follows) {
            continue;
        }
        let Some(open) = (i + 2..code.len()).find(|&j| code[j].kind == TokenKind::OpenParen) else {
            continue;
        };
        let mut table = TableColumns {
            table: code[open - 1].text(schema).to_string(),
            columns: Vec::new(),
        };
        let mut depth = 0usize;
        let mut column_start = true;
        for (j, token) in code.iter().enumerate().skip(open) {
            match token.kind {
                TokenKind::OpenParen => depth += 1,
                TokenKind::CloseParen => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                TokenKind::Punctuation if depth == 1 && token.text(schema) == "," => {
                    column_start = true;
                    continue;
                }
                _ => {}
            }
            if !(column_start && depth == 1 && j > open) {
                continue;
            }
            column_start = false;
            if TABLE_CONSTRAINTS.iter().any(|w| token.is_word(schema, w)) {
                continue;
            }
            let declared: Vec<String> = code[j + 1..]
                .iter()
                .take_while(|t| {
                    t.kind == TokenKind::Word
                        && !COLUMN_CONSTRAINTS.iter().any(|w| t.is_word(schema, w))
                })
                .map(|t| t.text(schema).to_ascii_uppercase())
                .collect();
            table
                .columns
                .push((token.text(schema).to_string(), declared.join(" ")));
        }
        out.push(table);
    }
    out
}

/// What the engine would hand the operators for an exercise.
fn context_of(exercise: &Exercise) -> Context {
    Context {
        tables: tables_of(&exercise.schema),
        constants: exercise.constants.keys().cloned().collect(),
    }
}

#[test]
fn a_schema_is_read_into_columns_and_types() {
    assert_eq!(
        tables_of(
            "CREATE TABLE m (id TEXT PRIMARY KEY, n integer NOT NULL, x, CHECK (n > 0));\n\
             INSERT INTO m (id) VALUES ('a');"
        ),
        [TableColumns {
            table: "m".into(),
            columns: vec![
                ("id".into(), "TEXT".into()),
                ("n".into(), "INTEGER".into()),
                ("x".into(), String::new()),
            ],
        }]
    );
}

#[test]
fn ids_are_stable_unique_and_sorted_by_place() {
    let source = "SELECT s FROM t WHERE k = :k AND s = 'NEW';\n-- @refuse gone unless returned 1\nSELECT 2;\n";
    let first = mutants("read", source, &Context::default());
    let again = mutants("read", source, &Context::default());
    assert_eq!(first, again);
    let ids: Vec<&str> = first.mutants.iter().map(|m| m.id.as_str()).collect();
    let unique: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "{ids:#?}");
    assert_eq!(
        &ids[..4],
        [
            "read:1:1:delete-statement",
            "read:1:1:swap-statements",
            "read:1:17:negate-condition",
            "read:1:23:drop-conjunct",
        ]
    );
    assert!(first.mutants.iter().all(|m| m.procedure == "read"));
    assert!(
        first
            .mutants
            .windows(2)
            .all(|w| (w[0].position.line, w[0].position.column)
                <= (w[1].position.line, w[1].position.column))
    );
}

#[test]
fn unparsable_and_repeated_texts_are_dropped_and_counted() {
    // Deleting the only statement leaves a text with none, which does not
    // parse. Dropping either half of `a = 1 AND a = 1` writes the same text.
    let only = mutants("p", "SELECT 1;", &Context::default());
    assert_eq!(only.dropped_unparsable, 1);
    assert!(
        only.mutants
            .iter()
            .all(|m| m.operator != Operator::DeleteStatement)
    );
    let repeated = mutants(
        "p",
        "SELECT 1 FROM t WHERE a = 1 AND a = 1;",
        &Context::default(),
    );
    assert_eq!(repeated.dropped_duplicate, 1);
    assert_eq!(
        repeated
            .mutants
            .iter()
            .filter(|m| m.operator == Operator::DropConjunct)
            .count(),
        1
    );
}

#[test]
fn a_text_that_does_not_parse_has_no_mutants() {
    assert_eq!(
        mutants("p", "SELECT 'oops", &Context::default()),
        Default::default()
    );
}

#[test]
fn every_bundled_reference_gives_parsable_mutants_with_unique_ids() {
    let mut per_operator: BTreeMap<Operator, usize> = BTreeMap::new();
    let (mut procedures, mut unparsable, mut duplicate) = (0, 0, 0);
    for exercise in crate::bundled::catalog().expect("the bundled exercises load") {
        let context = context_of(&exercise);
        for spec in exercise.procedures.iter().filter(|p| p.editable) {
            procedures += 1;
            let found = mutants(&spec.name, &spec.reference, &context);
            assert!(
                !found.mutants.is_empty(),
                "{}: {} has no mutants",
                exercise.id,
                spec.name
            );
            let mut ids = BTreeSet::new();
            for mutant in &found.mutants {
                assert!(ids.insert(mutant.id.as_str()), "{} twice", mutant.id);
                assert_ne!(mutant.text, spec.reference, "{}", mutant.id);
                assert!(
                    Procedure::parse(&spec.name, &mutant.text).is_ok(),
                    "{} does not parse",
                    mutant.id
                );
                assert!(
                    !mutant.description.contains('\n'),
                    "{}: {}",
                    mutant.id,
                    mutant.description
                );
                *per_operator.entry(mutant.operator).or_default() += 1;
            }
            unparsable += found.dropped_unparsable;
            duplicate += found.dropped_duplicate;
        }
    }
    let total: usize = per_operator.values().sum();
    eprintln!(
        "mutants of {procedures} editable references: {total} \
         ({unparsable} unparsable and {duplicate} repeated texts dropped)"
    );
    for (operator, count) in &per_operator {
        eprintln!("  {:<24} {count}", operator.name());
    }
    let missing: Vec<&str> = ALL_OPERATORS
        .iter()
        .filter(|o| !per_operator.contains_key(o))
        .map(|o| o.name())
        .collect();
    assert!(missing.is_empty(), "no mutants of {missing:?}");
    assert!(total > 20 * procedures, "only {total} mutants");
}

/// Pieces of SQL and directives that random texts are made of: keywords
/// the operators look for, in orders no statement would have them.
const SOUP: &[&str] = &[
    "SELECT",
    "UPDATE",
    "INSERT",
    "INTO",
    "DELETE",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "ON",
    "CONFLICT",
    "DO",
    "NOTHING",
    "SET",
    "JOIN",
    "LEFT",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "BETWEEN",
    "IS",
    "NULL",
    "DISTINCT",
    "EXISTS",
    "RETURNING",
    "AS",
    "BEGIN",
    "IMMEDIATE",
    "COMMIT",
    "VALUES",
    "excluded",
    "t",
    "a",
    ".",
    ",",
    "(",
    ")",
    "=",
    "<>",
    "<=",
    "+",
    "-",
    "*",
    "0",
    "1",
    ":now",
    ":a",
    "'s'",
    ";",
    "\n",
    "\n-- @refuse x unless changed 1\n",
    "\n-- @return a if returned 0\n",
    "\n-- @effect e a\n",
    "-- note\n",
];

#[test]
fn no_text_makes_an_operator_panic() {
    // Every prefix of every bundled reference that still parses: unclosed
    // parentheses, a WHERE with nothing after it, an UPDATE cut at its SET.
    for exercise in crate::bundled::catalog().expect("the bundled exercises load") {
        let context = context_of(&exercise);
        for spec in &exercise.procedures {
            let tokens = lexer::tokens(&spec.reference).unwrap_or_default();
            for token in tokens {
                let prefix = &spec.reference[..token.end];
                if let Ok(procedure) = Procedure::parse(&spec.name, prefix) {
                    let budget = crate::mutate::MutantBudget::default();
                    super::all(&procedure, &context, &mut super::Candidates::new(&budget));
                }
            }
        }
    }
    // Seeded random soups of the words the operators look for.
    let seed = 0x6d75_7461_6e74;
    let mut random = crate::random::SplitMix64::new(seed);
    for _ in 0..3000 {
        let length = 1 + random.below(30);
        let text: Vec<&str> = (0..length)
            .map(|_| SOUP[random.below(SOUP.len())])
            .collect();
        let text = text.join(" ");
        let found = mutants("soup", &text, &Context::default());
        for mutant in &found.mutants {
            assert!(
                Procedure::parse("soup", &mutant.text).is_ok(),
                "seed {seed}: {text:?} gave {}",
                mutant.id
            );
        }
    }
}

const ALL_OPERATORS: [Operator; 19] = [
    Operator::DropConjunct,
    Operator::NegateCondition,
    Operator::SwapComparison,
    Operator::DropAddend,
    Operator::ShiftConstant,
    Operator::SwapParameter,
    Operator::SwapColumn,
    Operator::DropTransaction,
    Operator::WeakenBegin,
    Operator::MoveOutOfTransaction,
    Operator::SplitWrite,
    Operator::DropRefusal,
    Operator::FlipDecision,
    Operator::ShiftDecisionCount,
    Operator::DeleteStatement,
    Operator::SwapStatements,
    Operator::DropUpsertAssignment,
    Operator::UpsertDoNothing,
    Operator::StampLater,
];
