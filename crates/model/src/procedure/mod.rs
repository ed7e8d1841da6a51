//! Procedures: the learner-editable SQL documents that implement an operation
//! (claim, complete, dead_letter, finish_session, apply, ...).
//!
//! A procedure is plain SQL. Each statement is one *step*, the unit at which
//! processes interleave. Values flow between steps by named parameters: a
//! column returned by a `SELECT` or a `RETURNING` clause becomes `:column` for
//! every later statement of the same call, beside the call's arguments, the
//! exercise's constants and `:now`, the fake clock.
//!
//! Decisions are written as comments that start with `-- @`, placed after the
//! statement whose result they judge. The vocabulary is small:
//!
//! ```text
//! -- @refuse CATEGORY unless changed N: reason shown to the learner
//! -- @refuse CATEGORY unless returned N: reason
//! -- @refuse CATEGORY if returned N: reason
//! -- @return NAME, NAME if returned 1      (return early: an idempotent renewal)
//! -- @return NAME, NAME                    (finish the call with these values)
//! -- @effect NAME NAME, NAME               (a step of its own: an external call,
//!                                           recorded with the named values; no
//!                                           rollback undoes it)
//! ```
//!
//! "changed" is the number of rows the statement itself inserted, updated or
//! deleted; "returned" is the number of rows it returned. A refusal rolls back
//! the call's open transaction. For example, the one-statement claim:
//!
//! ```sql
//! BEGIN IMMEDIATE;
//! INSERT INTO lease_tokens(kind) VALUES ('mailbox_claim') RETURNING token;
//! UPDATE messages SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
//!  WHERE id = :message_id AND state = 'NEW';
//! -- @refuse not_claimable unless changed 1: not claimable
//! COMMIT;
//! -- @return token
//! ```
//!
//! and the naive one, which decides in "code" between its read and its write:
//!
//! ```sql
//! SELECT state FROM messages WHERE id = :message_id AND state = 'NEW';
//! -- @refuse not_claimable unless returned 1: not claimable
//! UPDATE messages SET state = 'CLAIMED', claim_owner = :actor WHERE id = :message_id;
//! ```
//!
//! This module only parses; it never touches SQLite.

pub(crate) mod directive;
pub mod lexer;

use directive::{Directive, parse_directive};

use lexer::TokenKind;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest procedure text the engine accepts.
pub const PROCEDURE_TEXT_BYTES_MAX: usize = 16 * 1024;
/// The most steps one procedure may have.
pub const PROCEDURE_STEPS_MAX: usize = 64;
/// The parameters every procedure can use without passing them, with what
/// they hold. The engine binds them; the editor offers them.
pub const BUILT_IN_PARAMETERS: [(&str, &str); 3] = [
    ("now", "the fake clock, in seconds"),
    ("actor", "the actor this process hosts"),
    ("process", "this process's id"),
];

/// A decision comment as the editor explains it: its form, what it does in
/// one line, and an example as the bundled exercises write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecisionForm {
    pub form: &'static str,
    pub does: &'static str,
    pub example: &'static str,
}

/// Every decision a procedure can write, explained (the vocabulary panel
/// under each editor, and its completions). Each example parses.
pub const DECISION_FORMS: [DecisionForm; 5] = [
    DecisionForm {
        form: "-- @refuse CATEGORY unless changed 1: reason",
        does: "ends the call refused (its transaction rolled back) unless the statement above \
               changed exactly 1 row",
        example: "-- @refuse not_claimable unless changed 1: not claimable",
    },
    DecisionForm {
        form: "-- @refuse CATEGORY unless returned 1: reason",
        does: "ends the call refused unless the statement above returned exactly 1 row",
        example: "-- @refuse unknown_resource unless returned 1: no resource {resource}",
    },
    DecisionForm {
        form: "-- @refuse CATEGORY if returned 1: reason",
        does: "ends the call refused if the statement above returned 1 row",
        example: "-- @refuse request_in_progress if returned 1: key {key} is in use",
    },
    DecisionForm {
        form: "-- @return NAME",
        does: "ends the call ok, handing the caller these values (arguments or columns \
               returned earlier); write it after the COMMIT",
        example: "-- @return token",
    },
    DecisionForm {
        form: "-- @effect NAME VALUE",
        does: "a step of its own: an external call, recorded with these values, that no \
               rollback undoes",
        example: "-- @effect notify_ledger request_id",
    },
];

/// A parsed procedure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Procedure {
    pub name: String,
    /// The text as written, for mapping SQLite's error offsets to positions.
    pub source: String,
    pub steps: Vec<Step>,
}

/// A position in a procedure's text, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// One interleaving point of a procedure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub kind: StepKind,
    /// Where the step starts in the procedure's text.
    pub position: Position,
    /// Byte offset of the step's text in the procedure's source, so SQLite's
    /// error offsets can be mapped back to a line and column.
    pub offset: usize,
    /// The decisions that judge this step's result, in order.
    pub decisions: Vec<Decision>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepKind {
    /// One SQL statement, without its terminating semicolon.
    Sql { sql: String, class: StatementClass },
    /// An external effect, such as invoking a provider, recorded with the
    /// named values. No rollback undoes it.
    Effect { name: String, values: Vec<String> },
}

/// What a statement does, read from its text. Scenarios name points in a
/// procedure by these ("before its first write"), not by step numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatementClass {
    Begin,
    Commit,
    Rollback,
    Read,
    Write,
    Other,
}

impl StatementClass {
    /// The class of the statement `sql`, by its first keyword (a `WITH`
    /// statement's by its body's).
    pub fn of(sql: &str) -> StatementClass {
        classify(sql)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub action: Action,
    /// `None` means always.
    pub condition: Option<Condition>,
    pub position: Position,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    Refuse { category: String, reason: String },
    Return { names: Vec<String> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// `unless` rather than `if`.
    pub negated: bool,
    pub measure: Measure,
    pub count: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    Changed,
    Returned,
}

impl Condition {
    pub fn holds(&self, changed: u64, returned: u64) -> bool {
        let measured = match self.measure {
            Measure::Changed => changed,
            Measure::Returned => returned,
        };
        (measured == self.count) != self.negated
    }
}

/// A procedure text that cannot be parsed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseError {
    pub procedure: String,
    pub position: Position,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.procedure, self.position, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// The step of the statement at `start..end` of `source`.
fn statement_step(source: &str, start: usize, end: usize) -> Step {
    // Only SQL's own white space (control characters are refused before the
    // split): SQLite reads U+202F and its kin as name characters, so
    // `SELECT 1 x\u{202f}` names its column `x\u{202f}`, and a lone U+202F
    // is a syntax error, not an empty statement.
    let sql = source[start..end]
        .trim_end_matches([' ', '\t', '\n', '\r'])
        .to_string();
    Step {
        kind: StepKind::Sql {
            class: classify(&sql),
            sql,
        },
        position: position_at(source, start),
        offset: start,
        decisions: Vec::new(),
    }
}

/// Adds the directive `text`, at `start` of `source`, to `steps`: an effect
/// as a step of its own, a decision to the statement just before it. The
/// error is the message for the directive's place.
fn add_directive(
    steps: &mut Vec<Step>,
    source: &str,
    start: usize,
    text: &str,
) -> Result<(), String> {
    let position = position_at(source, start);
    match parse_directive(text)? {
        Directive::Effect { name, values } => steps.push(Step {
            kind: StepKind::Effect { name, values },
            position,
            offset: start,
            decisions: Vec::new(),
        }),
        Directive::Decision(action, condition) => match steps.last_mut() {
            Some(step) if matches!(step.kind, StepKind::Sql { .. }) => {
                step.decisions.push(Decision {
                    action,
                    condition,
                    position,
                })
            }
            _ => {
                return Err(
                    "a decision must follow the SQL statement whose result it judges".into(),
                );
            }
        },
    }
    Ok(())
}

impl Procedure {
    /// Parses `source` as the procedure `name`.
    pub fn parse(name: &str, source: &str) -> Result<Procedure, ParseError> {
        let fail = |offset: usize, message: String| ParseError {
            procedure: name.to_string(),
            position: position_at(source, offset),
            message,
        };
        if source.len() > PROCEDURE_TEXT_BYTES_MAX {
            return Err(fail(
                0,
                format!(
                    "the text is {} bytes; a procedure may have at most {PROCEDURE_TEXT_BYTES_MAX}",
                    source.len()
                ),
            ));
        }
        sql_characters(source).map_err(|(offset, message)| fail(offset, message))?;
        let mut steps: Vec<Step> = Vec::new();
        for piece in split(source).map_err(|(offset, message)| fail(offset, message))? {
            match piece {
                Piece::Statement { start, end } => steps.push(statement_step(source, start, end)),
                Piece::Directive { start, text } => add_directive(&mut steps, source, start, text)
                    .map_err(|message| fail(start, message))?,
            }
            if steps.len() > PROCEDURE_STEPS_MAX {
                return Err(fail(
                    0,
                    format!("a procedure may have at most {PROCEDURE_STEPS_MAX} steps"),
                ));
            }
        }
        if steps.is_empty() {
            return Err(fail(0, "the procedure has no statements".into()));
        }
        Ok(Procedure {
            name: name.to_string(),
            source: source.to_string(),
            steps,
        })
    }

    /// The parameters (`:name`) the procedure's statements use, in order of
    /// first use. The editor lists them beside the text.
    pub fn parameters(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for step in &self.steps {
            if let StepKind::Sql { sql, .. } = &step.kind {
                for name in parameter_names(sql) {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
        }
        names
    }
}

/// The one rule for the characters any SQL text fencelab runs may hold (a
/// procedure, an exercise's schema, a scenario's `sql`, `query` and
/// invariants): none of the control characters but tab and line breaks.
/// A NUL would silently end the statement inside SQLite, so a reader would
/// see statements that never run; the other control characters are
/// invisible in an editor. Gives the byte offset of the first such
/// character and the sentence that says why it is refused.
pub fn sql_characters(text: &str) -> Result<(), (usize, String)> {
    match text
        .char_indices()
        .find(|(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        None => Ok(()),
        Some((offset, c)) => Err((
            offset,
            format!(
                "the text holds the control character U+{:04X}, which SQL cannot contain here",
                u32::from(c)
            ),
        )),
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn position_at(source: &str, offset: usize) -> Position {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
    }
}

enum Piece<'a> {
    /// A statement's text as byte offsets, from its first significant
    /// character to just before its semicolon (or the end of the text).
    Statement { start: usize, end: usize },
    /// The text of a `-- @...` comment after the `@`.
    Directive { start: usize, text: &'a str },
}

/// Splits SQL text into statements and directive comments. The lexer keeps
/// quotes and comments whole, so a `;` inside a string ends nothing.
fn split(source: &str) -> Result<Vec<Piece<'_>>, (usize, String)> {
    let tokens = lexer::tokens(source).map_err(|e| (e.offset, e.message))?;
    let mut pieces = Vec::new();
    let mut statement: Option<(usize, usize)> = None;
    for token in tokens {
        match token.kind {
            TokenKind::LineComment => {
                let comment = token.text(source)[2..].trim_start();
                if let Some(text) = comment.strip_prefix('@') {
                    if let Some((start, _)) = statement {
                        return Err((
                            start,
                            format!(
                                "this statement needs a `;` before the directive on line {}",
                                position_at(source, token.start).line
                            ),
                        ));
                    }
                    pieces.push(Piece::Directive {
                        start: token.start,
                        text: text.trim_end(),
                    });
                }
            }
            TokenKind::BlockComment => {}
            TokenKind::Semicolon => {
                if let Some((start, _)) = statement.take() {
                    pieces.push(Piece::Statement {
                        start,
                        end: token.start,
                    });
                }
            }
            _ => {
                let start = statement.map_or(token.start, |(start, _)| start);
                statement = Some((start, token.end));
            }
        }
    }
    if let Some((start, _)) = statement {
        pieces.push(Piece::Statement {
            start,
            end: source.len(),
        });
    }
    Ok(pieces)
}

/// The statement's first keyword decides its class. A `WITH` statement is
/// classified by its body: the first keyword outside parentheses that starts
/// a statement (the common table expressions are all inside parentheses, so
/// `WITH x AS (...) SELECT replace(a, 'b', 'c') FROM x` is a read).
fn classify(sql: &str) -> StatementClass {
    let Ok(tokens) = lexer::tokens(sql) else {
        return StatementClass::Other;
    };
    let mut code = tokens.iter().filter(|t| !t.is_comment());
    let Some(first) = code.next() else {
        return StatementClass::Other;
    };
    let class_of = |word: &str| match word.to_ascii_uppercase().as_str() {
        "BEGIN" => Some(StatementClass::Begin),
        "COMMIT" | "END" => Some(StatementClass::Commit),
        "ROLLBACK" => Some(StatementClass::Rollback),
        "SELECT" | "VALUES" => Some(StatementClass::Read),
        "INSERT" | "UPDATE" | "DELETE" | "REPLACE" => Some(StatementClass::Write),
        _ => None,
    };
    if first.kind != TokenKind::Word {
        return StatementClass::Other;
    }
    if !first.is_word(sql, "WITH") {
        return class_of(first.text(sql)).unwrap_or(StatementClass::Other);
    }
    let mut depth = 0usize;
    for token in code {
        match token.kind {
            TokenKind::OpenParen => depth += 1,
            TokenKind::CloseParen => depth = depth.saturating_sub(1),
            TokenKind::Word if depth == 0 => {
                if let Some(class) = class_of(token.text(sql))
                    .filter(|c| matches!(c, StatementClass::Read | StatementClass::Write))
                {
                    return class;
                }
            }
            _ => {}
        }
    }
    StatementClass::Other
}

/// The `:name` parameters of one statement, outside strings and comments.
pub fn parameter_names(sql: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for token in lexer::tokens(sql).unwrap_or_default() {
        if token.kind != TokenKind::Parameter {
            continue;
        }
        if let Some(name) = token.text(sql).strip_prefix(':')
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_string());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const CAS_CLAIM: &str = "BEGIN IMMEDIATE;
INSERT INTO lease_tokens(kind) VALUES ('mailbox_claim') RETURNING token;
UPDATE messages SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
 WHERE id = :message_id AND state = 'NEW';
-- @refuse not_claimable unless changed 1: not claimable
COMMIT;
-- @return token
";

    #[test]
    fn every_explained_decision_has_an_example_that_parses() {
        for form in DECISION_FORMS {
            let text = format!("SELECT 1 AS token;\n{}\n", form.example);
            let parsed = Procedure::parse("p", &text)
                .unwrap_or_else(|e| panic!("`{}` does not parse: {e}", form.example));
            let directive = form.form.split_whitespace().nth(1);
            assert_eq!(
                form.example.split_whitespace().nth(1),
                directive,
                "{form:?}"
            );
            assert!(
                parsed.steps.iter().any(|s| !s.decisions.is_empty())
                    || matches!(
                        parsed.steps.last().map(|s| &s.kind),
                        Some(StepKind::Effect { .. })
                    ),
                "{form:?}"
            );
            assert!(
                !form.does.contains('\n') && form.does.len() < 140,
                "{form:?}"
            );
        }
    }

    /// The procedure_parser fuzz target's finding: a statement of one
    /// U+202F (narrow no-break space) was trimmed to an empty one.
    #[test]
    fn a_statement_keeps_every_character_that_is_not_sqls_white_space() {
        for (text, sql) in [
            ("\u{202f};", "\u{202f}"),
            ("SELECT 1\u{a0};", "SELECT 1\u{a0}"),
            ("SELECT 1 \t\r\n;", "SELECT 1"),
        ] {
            let procedure = Procedure::parse("p", text).expect(text);
            let StepKind::Sql { sql: got, .. } = &procedure.steps[0].kind else {
                panic!("{text:?}: a statement");
            };
            assert_eq!(got, sql, "{text:?}");
        }
    }

    #[test]
    fn splits_statements_and_attaches_decisions() {
        let procedure = Procedure::parse("claim", CAS_CLAIM).unwrap();
        let classes: Vec<_> = procedure
            .steps
            .iter()
            .map(|s| match &s.kind {
                StepKind::Sql { class, .. } => *class,
                StepKind::Effect { .. } => panic!("no effects here"),
            })
            .collect();
        assert_eq!(
            classes,
            [
                StatementClass::Begin,
                StatementClass::Write,
                StatementClass::Write,
                StatementClass::Commit
            ]
        );
        assert_eq!(procedure.steps[2].position, Position { line: 3, column: 1 });
        assert_eq!(
            procedure.steps[2].decisions,
            [Decision {
                action: Action::Refuse {
                    category: "not_claimable".into(),
                    reason: "not claimable".into()
                },
                condition: Some(Condition {
                    negated: true,
                    measure: Measure::Changed,
                    count: 1
                }),
                position: Position { line: 5, column: 1 },
            }]
        );
        assert_eq!(
            procedure.steps[3].decisions[0].action,
            Action::Return {
                names: vec!["token".into()]
            }
        );
        assert_eq!(procedure.parameters(), ["actor", "token", "message_id"]);
    }

    #[test]
    fn semicolons_inside_strings_and_comments_do_not_split() {
        let procedure = Procedure::parse(
            "p",
            "SELECT 'a;b' AS x; /* ; */ SELECT \"c;\" -- ; trailing\n FROM t",
        )
        .unwrap();
        assert_eq!(procedure.steps.len(), 2);
    }

    #[test]
    fn conditional_return_and_effects_parse() {
        let procedure = Procedure::parse(
            "p",
            "SELECT fencing_token AS token FROM messages WHERE id = :id;\n\
             -- @return token if returned 1\n\
             -- @effect invoke_provider assignment_id, token\n",
        )
        .unwrap();
        assert_eq!(
            procedure.steps[0].decisions[0].condition,
            Some(Condition {
                negated: false,
                measure: Measure::Returned,
                count: 1
            })
        );
        assert_eq!(
            procedure.steps[1].kind,
            StepKind::Effect {
                name: "invoke_provider".into(),
                values: vec!["assignment_id".into(), "token".into()]
            }
        );
    }

    #[test]
    fn bad_texts_are_errors_with_positions() {
        let cases = [
            ("", "no statements"),
            ("-- @refuse x unless changed 1\nSELECT 1", "must follow"),
            ("SELECT 1\n-- @refuse x unless changed 1", "needs a `;`"),
            (
                "SELECT 1;\n-- @refuse x unless changed one",
                "not a row count",
            ),
            ("SELECT 1;\n-- @frobnicate", "unknown directive"),
            ("SELECT 'oops", "never closed"),
            ("SELECT 1; /* oops", "never closed"),
        ];
        for (text, expected) in cases {
            let error = Procedure::parse("p", text).unwrap_err();
            assert!(
                error.message.contains(expected),
                "{text:?}: expected {expected:?} in {error}"
            );
        }
        let error = Procedure::parse("p", "SELECT 1;\n\n  -- @frobnicate").unwrap_err();
        assert_eq!(error.position, Position { line: 3, column: 3 });
    }

    #[test]
    fn with_statements_are_classified_by_their_body() {
        assert_eq!(
            classify("WITH x AS (SELECT 1) SELECT * FROM x"),
            StatementClass::Read
        );
        assert_eq!(
            classify("WITH x AS (SELECT 1) UPDATE t SET a = 1"),
            StatementClass::Write
        );
        assert_eq!(
            classify("/* update */ SELECT 'delete'"),
            StatementClass::Read
        );
        assert_eq!(
            classify("WITH x AS (SELECT 1 AS a) SELECT replace(a, 'b', 'c') FROM x"),
            StatementClass::Read
        );
        assert_eq!(
            classify(
                "WITH RECURSIVE x(n) AS (SELECT 1 UNION SELECT n + 1 FROM x) REPLACE INTO t SELECT n FROM x"
            ),
            StatementClass::Write
        );
    }

    #[test]
    fn parameters_inside_comments_and_strings_are_not_parameters() {
        assert_eq!(
            parameter_names("SELECT :a, ':b' /* :c */ FROM t WHERE x = :d -- :e"),
            ["a", "d"]
        );
    }

    #[test]
    fn control_characters_are_refused_with_their_position() {
        let error = Procedure::parse("p", "SELECT 1\n WHERE 1\0 AND 2;").unwrap_err();
        assert_eq!(error.position, Position { line: 2, column: 9 });
        assert!(error.message.contains("control character"), "{error}");
    }
}
