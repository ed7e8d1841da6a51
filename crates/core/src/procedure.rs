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

use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest procedure text the engine accepts.
pub const PROCEDURE_TEXT_BYTES_MAX: usize = 16 * 1024;
/// The most steps one procedure may have.
pub const PROCEDURE_STEPS_MAX: usize = 64;

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
        let mut steps: Vec<Step> = Vec::new();
        for piece in split(source).map_err(|(offset, message)| fail(offset, message))? {
            match piece {
                Piece::Statement { start, end } => {
                    let sql = source[start..end].trim_end().to_string();
                    steps.push(Step {
                        kind: StepKind::Sql {
                            class: classify(&sql),
                            sql,
                        },
                        position: position_at(source, start),
                        offset: start,
                        decisions: Vec::new(),
                    });
                }
                Piece::Directive { start, text } => {
                    let position = position_at(source, start);
                    match parse_directive(text).map_err(|message| fail(start, message))? {
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
                                return Err(fail(
                                    start,
                                    "a decision must follow the SQL statement whose result it judges"
                                        .into(),
                                ));
                            }
                        },
                    }
                }
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

/// Splits SQL text into statements and directive comments, honouring quotes
/// and comments so a `;` inside a string does not end a statement.
fn split(source: &str) -> Result<Vec<Piece<'_>>, (usize, String)> {
    let bytes = source.as_bytes();
    let mut pieces = Vec::new();
    let mut statement_start: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        match byte {
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                let end = source[i..].find('\n').map_or(source.len(), |n| i + n);
                let comment = source[i + 2..end].trim_start();
                if let Some(text) = comment.strip_prefix('@') {
                    if let Some(start) = statement_start {
                        return Err((
                            start,
                            format!(
                                "this statement needs a `;` before the directive on line {}",
                                position_at(source, i).line
                            ),
                        ));
                    }
                    pieces.push(Piece::Directive {
                        start: i,
                        text: text.trim_end(),
                    });
                }
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = source[i + 2..]
                    .find("*/")
                    .ok_or((i, "this comment is never closed with */".to_string()))?;
                i = i + 2 + end + 2;
            }
            b'\'' | b'"' | b'`' | b'[' => {
                let close = if byte == b'[' { b']' } else { byte };
                statement_start.get_or_insert(i);
                let mut j = i + 1;
                loop {
                    match bytes.get(j) {
                        None => {
                            return Err((i, "this quote is never closed".to_string()));
                        }
                        // A doubled quote inside a string is an escaped quote.
                        Some(&b)
                            if b == close && close != b']' && bytes.get(j + 1) == Some(&close) =>
                        {
                            j += 2
                        }
                        Some(&b) if b == close => break,
                        Some(_) => j += 1,
                    }
                }
                i = j + 1;
            }
            b';' => {
                if let Some(start) = statement_start.take() {
                    pieces.push(Piece::Statement { start, end: i });
                }
                i += 1;
            }
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                statement_start.get_or_insert(i);
                i += 1;
            }
        }
    }
    if let Some(start) = statement_start {
        pieces.push(Piece::Statement {
            start,
            end: source.len(),
        });
    }
    Ok(pieces)
}

enum Directive {
    Decision(Action, Option<Condition>),
    Effect { name: String, values: Vec<String> },
}

fn parse_directive(text: &str) -> Result<Directive, String> {
    let (keyword, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let rest = rest.trim();
    match keyword {
        "refuse" => {
            let (head, reason) = match rest.split_once(':') {
                Some((head, reason)) => (head.trim(), reason.trim()),
                None => (rest, ""),
            };
            let (category, condition_text) =
                head.split_once(char::is_whitespace).unwrap_or((head, ""));
            if !is_name(category) {
                return Err(format!(
                    "@refuse needs a category such as not_claimable, not `{category}`"
                ));
            }
            let condition = parse_condition(condition_text.trim())?;
            let reason = if reason.is_empty() {
                category.replace('_', " ")
            } else {
                reason.to_string()
            };
            Ok(Directive::Decision(
                Action::Refuse {
                    category: category.to_string(),
                    reason,
                },
                condition,
            ))
        }
        "return" => {
            let (names_text, condition_text) = split_condition(rest);
            let names = parse_names(names_text)?;
            Ok(Directive::Decision(
                Action::Return { names },
                parse_condition(condition_text)?,
            ))
        }
        "effect" => {
            let (name, values) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if !is_name(name) {
                return Err(format!(
                    "@effect needs a name such as invoke_provider, not `{name}`"
                ));
            }
            Ok(Directive::Effect {
                name: name.to_string(),
                values: parse_names(values)?,
            })
        }
        other => Err(format!(
            "unknown directive `@{other}`: the directives are @refuse, @return and @effect"
        )),
    }
}

/// Splits `a, b if returned 1` into its names and its condition, at the
/// first word `if` or `unless`.
fn split_condition(text: &str) -> (&str, &str) {
    let at = text
        .split_whitespace()
        .find(|word| matches!(*word, "if" | "unless"))
        .map(|word| word.as_ptr() as usize - text.as_ptr() as usize);
    match at {
        Some(at) => (text[..at].trim(), text[at..].trim()),
        None => (text.trim(), ""),
    }
}

fn parse_condition(text: &str) -> Result<Option<Condition>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let expected = "a condition reads `unless changed N`, `unless returned N`, `if changed N` or `if returned N`";
    let [when, measure, count] = words.as_slice() else {
        return Err(format!("{expected}, not `{text}`"));
    };
    let negated = match *when {
        "unless" => true,
        "if" => false,
        _ => return Err(format!("{expected}, not `{text}`")),
    };
    let measure = match *measure {
        "changed" => Measure::Changed,
        "returned" => Measure::Returned,
        _ => return Err(format!("{expected}, not `{text}`")),
    };
    let count = count
        .parse()
        .map_err(|_| format!("{expected}: `{count}` is not a row count"))?;
    Ok(Some(Condition {
        negated,
        measure,
        count,
    }))
}

fn parse_names(text: &str) -> Result<Vec<String>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            let name = name.strip_prefix(':').unwrap_or(name);
            if is_name(name) {
                Ok(name.to_string())
            } else {
                Err(format!(
                    "`{name}` is not a value name (letters, digits and _)"
                ))
            }
        })
        .collect()
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}

/// The statement's first keyword, after comments, decides its class; a `WITH`
/// statement is a write when it has a top-level INSERT, UPDATE, DELETE or
/// REPLACE.
fn classify(sql: &str) -> StatementClass {
    let words = keywords(sql);
    let first = words.first().map(String::as_str).unwrap_or("");
    match first {
        "BEGIN" => StatementClass::Begin,
        "COMMIT" | "END" => StatementClass::Commit,
        "ROLLBACK" => StatementClass::Rollback,
        "SELECT" | "VALUES" => StatementClass::Read,
        "INSERT" | "UPDATE" | "DELETE" | "REPLACE" => StatementClass::Write,
        "WITH" => {
            if words
                .iter()
                .any(|w| matches!(w.as_str(), "INSERT" | "UPDATE" | "DELETE" | "REPLACE"))
            {
                StatementClass::Write
            } else {
                StatementClass::Read
            }
        }
        _ => StatementClass::Other,
    }
}

/// The upper-cased bare words of a statement, skipping strings, quoted
/// identifiers and comments.
fn keywords(sql: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = sql.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' | '"' | '`' | '[' => {
                let close = if c == '[' { ']' } else { c };
                for (_, d) in chars.by_ref() {
                    if d == close {
                        break;
                    }
                }
            }
            '-' if sql[i..].starts_with("--") => {
                for (_, d) in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '/' if sql[i..].starts_with("/*") => {
                let mut previous = ' ';
                for (_, d) in chars.by_ref() {
                    if previous == '*' && d == '/' {
                        break;
                    }
                    previous = d;
                }
            }
            ':' | '@' | '$' => {
                while chars
                    .next_if(|(_, d)| d.is_alphanumeric() || *d == '_')
                    .is_some()
                {}
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut word = String::from(c);
                while let Some((_, d)) = chars.next_if(|(_, d)| d.is_alphanumeric() || *d == '_') {
                    word.push(d);
                }
                words.push(word.to_ascii_uppercase());
            }
            _ => {}
        }
    }
    words
}

/// The `:name` parameters of one statement, outside strings and comments.
fn parameter_names(sql: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_quote: Option<char> = None;
    let mut chars = sql.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if let Some(q) = in_quote {
            if c == q {
                in_quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => in_quote = Some(c),
            '[' => in_quote = Some(']'),
            '-' if sql[i..].starts_with("--") => {
                while chars.next_if(|(_, d)| *d != '\n').is_some() {}
            }
            ':' => {
                let mut name = String::new();
                while let Some((_, d)) = chars.next_if(|(_, d)| d.is_alphanumeric() || *d == '_') {
                    name.push(d);
                }
                if !name.is_empty() && !names.contains(&name) {
                    names.push(name);
                }
            }
            _ => {}
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
    }
}
