//! What a run did, as data: call outcomes and the step-by-step history that
//! feeds the timeline view, replay and the checker.
//!
//! Everything here serializes with serde, and nothing in it depends on the
//! platform, so the same drive gives the same JSON natively and in wasm.

use crate::procedure::Position;
use crate::value::Value;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Named values, ordered by name so output is stable.
pub type Values = BTreeMap<String, Value>;

/// How a call ended. Read through [`OutcomeRead`] (`tag_first.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The call finished; these are the values it returned.
    Ok { values: Values },
    /// The procedure decided not to act: a domain outcome such as a stale
    /// token or a lease held by someone else. Its transaction was rolled back.
    Refused { category: String, reason: String },
    /// The call failed; its transaction, if any, was rolled back.
    Error(CallError),
}

/// [`Outcome`] as `tag_first::read` reads it: its variants, externally
/// tagged.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum OutcomeRead {
    Ok { values: Values },
    Refused { category: String, reason: String },
    Error(CallError),
}

impl From<OutcomeRead> for Outcome {
    fn from(read: OutcomeRead) -> Outcome {
        match read {
            OutcomeRead::Ok { values } => Outcome::Ok { values },
            OutcomeRead::Refused { category, reason } => Outcome::Refused { category, reason },
            OutcomeRead::Error(error) => Outcome::Error(error),
        }
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Outcome, D::Error> {
        crate::tag_first::read::<D, Outcome, OutcomeRead>(deserializer, "kind")
    }
}

impl Outcome {
    /// The kind of outcome, without what it carries.
    pub fn of_kind(&self) -> OutcomeKind {
        match self {
            Outcome::Ok { .. } => OutcomeKind::Ok,
            Outcome::Refused { .. } => OutcomeKind::Refused,
            Outcome::Error(_) => OutcomeKind::Error,
        }
    }

    /// A short word for the kind of outcome: `ok`, `refused` or `error`.
    pub fn kind(&self) -> &'static str {
        self.of_kind().word()
    }
}

/// A kind of outcome, as a scenario expects one (`outcome = "refused"`):
/// written as its word in exercise files and on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Ok,
    Refused,
    Error,
}

impl OutcomeKind {
    /// Its word: `ok`, `refused` or `error`.
    pub fn word(self) -> &'static str {
        match self {
            OutcomeKind::Ok => "ok",
            OutcomeKind::Refused => "refused",
            OutcomeKind::Error => "error",
        }
    }
}

impl fmt::Display for OutcomeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallError {
    pub cause: ErrorCause,
    pub message: String,
    pub procedure: String,
    /// Where in the procedure's text, when the error belongs to a statement.
    pub position: Option<Position>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCause {
    /// SQLite rejected or failed the statement.
    Sql,
    /// The sandbox denied something the statement tried (a pragma, ATTACH,
    /// a wall-clock function).
    Denied,
    /// The statement ran past its VM-step budget.
    StepBudget,
    /// A `:name` in the statement has no value.
    MissingParameter,
    /// A `@return` or `@effect` names a value that does not exist.
    MissingValue,
    /// A statement returned more rows or bytes than the engine keeps.
    TooLarge,
    /// The call ended with its transaction still open (a missing COMMIT).
    TransactionLeftOpen,
    /// In WAL mode, the call's transaction read a snapshot another process
    /// has since committed over, and then tried to write
    /// (SQLITE_BUSY_SNAPSHOT): waiting cannot help, only a new transaction.
    StaleSnapshot,
    /// On a database server: the server broke a deadlock by failing this
    /// statement (PostgreSQL's SQLSTATE 40P01); its transaction is aborted.
    Deadlock,
    /// On a database server: the transaction could not be serialized with
    /// the others (SQLSTATE 40001); only running it again can help.
    SerializationFailure,
    /// On a database server: the statement ran past the engine's
    /// `statement_timeout`, the hard stop behind its budgets (57014).
    StatementTimeout,
}

/// One row of an exercise table that a step changed, identified by its key
/// (the rowid, or the primary key of a WITHOUT ROWID table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowChange {
    pub table: String,
    pub key: Vec<Value>,
    /// The row before the step, `None` if the step inserted it.
    pub before: Option<Vec<Value>>,
    /// The row after the step, `None` if the step deleted it.
    pub after: Option<Vec<Value>>,
}

/// The rows of one table, in key order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableRows {
    pub table: String,
    pub columns: Vec<String>,
    /// Each row starts with its key values, then every column.
    pub rows: Vec<Vec<Value>>,
    /// How many leading values of each row are its key.
    pub key_len: usize,
}

/// Rows a statement returned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

/// An external effect: something a process did outside the database, such as
/// invoking a provider. No rollback recalls it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effect {
    pub name: String,
    pub process: String,
    pub actor: String,
    pub values: Values,
    pub clock_seconds: i64,
}

/// One entry of a world's history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub clock_seconds: i64,
    /// The process that acted, absent for world-level events.
    pub process: Option<String>,
    pub actor: Option<String>,
    pub procedure: Option<String>,
    /// The step's index in its procedure, for steps of a call.
    pub step: Option<usize>,
    pub position: Option<Position>,
    pub what: What,
    /// Rows of the exercise's tables this event changed, as its process sees
    /// them (its own uncommitted writes included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row_changes: Vec<RowChange>,
}

/// What an event was. Read through [`WhatRead`] (`tag_first.rs`): a
/// history holds many, and the page reads one on every keystroke.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum What {
    /// A new process started, hosting an actor.
    ProcessStarted,
    /// A process crashed; an open transaction died with it.
    ProcessCrashed { rolled_back: bool },
    /// The fake clock moved.
    ClockSet { from_seconds: i64, to_seconds: i64 },
    /// A process began a call.
    CallStarted { arguments: Values },
    /// A statement ran.
    Statement {
        sql: String,
        parameters: Values,
        changed: u64,
        returned: ResultRows,
    },
    /// A statement could not run: another process holds the lock. It will be
    /// tried again when the process is next scheduled.
    Blocked { sql: String },
    /// An external effect was recorded.
    Effect { name: String, values: Values },
    /// A call ended.
    CallFinished {
        outcome: Outcome,
        /// The call's open transaction was rolled back as it ended.
        rolled_back: bool,
    },
    /// SQL run directly against the world, bypassing every procedure.
    DirectSql { sql: String, changed: u64 },
}

/// [`What`] as `tag_first::read` reads it: its variants, externally tagged.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum WhatRead {
    ProcessStarted,
    ProcessCrashed {
        rolled_back: bool,
    },
    ClockSet {
        from_seconds: i64,
        to_seconds: i64,
    },
    CallStarted {
        arguments: Values,
    },
    Statement {
        sql: String,
        parameters: Values,
        changed: u64,
        returned: ResultRows,
    },
    Blocked {
        sql: String,
    },
    Effect {
        name: String,
        values: Values,
    },
    CallFinished {
        outcome: Outcome,
        rolled_back: bool,
    },
    DirectSql {
        sql: String,
        changed: u64,
    },
}

impl From<WhatRead> for What {
    fn from(read: WhatRead) -> What {
        match read {
            WhatRead::ProcessStarted => What::ProcessStarted,
            WhatRead::ProcessCrashed { rolled_back } => What::ProcessCrashed { rolled_back },
            WhatRead::ClockSet {
                from_seconds,
                to_seconds,
            } => What::ClockSet {
                from_seconds,
                to_seconds,
            },
            WhatRead::CallStarted { arguments } => What::CallStarted { arguments },
            WhatRead::Statement {
                sql,
                parameters,
                changed,
                returned,
            } => What::Statement {
                sql,
                parameters,
                changed,
                returned,
            },
            WhatRead::Blocked { sql } => What::Blocked { sql },
            WhatRead::Effect { name, values } => What::Effect { name, values },
            WhatRead::CallFinished {
                outcome,
                rolled_back,
            } => What::CallFinished {
                outcome,
                rolled_back,
            },
            WhatRead::DirectSql { sql, changed } => What::DirectSql { sql, changed },
        }
    }
}

impl<'de> Deserialize<'de> for What {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<What, D::Error> {
        crate::tag_first::read::<D, What, WhatRead>(deserializer, "kind")
    }
}

/// `token = 3, actor = 'worker-a'`.
pub fn show_values(values: &Values) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// SQL on one line, white space folded.
pub fn one_line(sql: &str) -> String {
    sql.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An outcome in a few words: `ok`, `ok (token = 3)`, `refused
/// (not_claimable)`, `error (no such column: x)`.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ok { values } if values.is_empty() => f.write_str("ok"),
            Outcome::Ok { values } => write!(f, "ok ({})", show_values(values)),
            Outcome::Refused { category, .. } => write!(f, "refused ({category})"),
            Outcome::Error(error) => write!(f, "error ({})", error.message),
        }
    }
}

/// What an event's words say after its lead: the page gives each its own
/// line or style, the CLI joins them on one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// A statement's parameters: `with token = 3`.
    Parameters,
    /// Rows a statement changed: `changed 1 row`.
    Changed,
    /// Rows a statement returned, with their values.
    Returned,
    /// A statement the lock turned away: `did not run`.
    NotRun,
    /// A call's transaction, rolled back as it ended.
    RolledBack,
}

/// An event in words, in the parts a reader wraps: the page puts `sql` in
/// a code block and each detail on a line or in a style of its own; the
/// CLI joins them on one line (`Display`). One wording for both, so the
/// timeline, the CLI's histories and a grader's messages read alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wording {
    /// What happened: `starts, hosting worker-a`, `calls claim(...)`,
    /// `→ ok: token = 3`; empty for a statement, which is its SQL.
    pub lead: String,
    /// The statement the event ran, or could not run, as written.
    pub sql: Option<String>,
    pub details: Vec<(Detail, String)>,
}

fn rows(n: u64) -> String {
    format!("{n} row{}", if n == 1 { "" } else { "s" })
}

/// `returned 1 row: token = 3`, or nothing for a statement that returns
/// no columns.
fn returned(rows: &ResultRows) -> Option<String> {
    if rows.columns.is_empty() {
        return None;
    }
    let shown: Vec<String> = rows
        .rows
        .iter()
        .map(|row| {
            rows.columns
                .iter()
                .zip(row)
                .map(|(c, v)| format!("{c} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    Some(match shown.len() {
        0 => "returned no rows".into(),
        1 => format!("returned 1 row: {}", shown[0]),
        n => format!("returned {n} rows: {}", shown.join("; ")),
    })
}

/// A statement's words: its SQL, then its parameters, the rows it changed
/// and what it returned.
fn statement_wording(sql: &str, parameters: &Values, changed: u64, result: &ResultRows) -> Wording {
    let mut details = Vec::new();
    if !parameters.is_empty() {
        details.push((
            Detail::Parameters,
            format!("with {}", show_values(parameters)),
        ));
    }
    details.push((Detail::Changed, format!("changed {}", rows(changed))));
    if let Some(text) = returned(result) {
        details.push((Detail::Returned, text));
    }
    Wording {
        lead: String::new(),
        sql: Some(sql.to_string()),
        details,
    }
}

/// How a call ended, in full: `→ ok: token = 3`, `→ refused (stale): ...`.
fn finished_lead(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok { values } if values.is_empty() => "→ ok".into(),
        Outcome::Ok { values } => format!("→ ok: {}", show_values(values)),
        Outcome::Refused { category, reason } => format!("→ refused ({category}): {reason}"),
        Outcome::Error(error) => format!("→ error: {}", error.message),
    }
}

impl Event {
    /// The event in words (see [`Wording`]).
    pub fn wording(&self) -> Wording {
        let lead = |lead: String| Wording {
            lead,
            sql: None,
            details: Vec::new(),
        };
        let procedure = self.procedure.as_deref().unwrap_or("");
        match &self.what {
            What::ProcessStarted => lead(format!(
                "starts, hosting {}",
                self.actor.as_deref().unwrap_or("")
            )),
            What::ProcessCrashed { rolled_back } => lead(
                if *rolled_back {
                    "crashes, its open transaction rolled back"
                } else {
                    "crashes"
                }
                .into(),
            ),
            What::ClockSet {
                from_seconds,
                to_seconds,
            } => lead(format!("clock {from_seconds} s → {to_seconds} s")),
            What::CallStarted { arguments } => {
                lead(format!("calls {procedure}({})", show_values(arguments)))
            }
            What::Statement {
                sql,
                parameters,
                changed,
                returned: result,
            } => statement_wording(sql, parameters, *changed, result),
            What::Blocked { sql } => Wording {
                lead: "waits: another process holds the lock".into(),
                sql: Some(sql.clone()),
                details: vec![(Detail::NotRun, "did not run".into())],
            },
            What::Effect { name, values } => {
                lead(format!("external effect {name}({})", show_values(values)))
            }
            What::CallFinished {
                outcome,
                rolled_back,
            } => Wording {
                lead: finished_lead(outcome),
                sql: None,
                details: rolled_back
                    .then(|| (Detail::RolledBack, "its transaction rolled back".into()))
                    .into_iter()
                    .collect(),
            },
            What::DirectSql { sql, changed } => Wording {
                lead: "direct SQL".into(),
                sql: Some(sql.clone()),
                details: vec![(Detail::Changed, format!("changed {}", rows(*changed)))],
            },
        }
    }
}

/// One line per event, without who acted (the reader adds the lane): the
/// [`Wording`]'s parts joined by `; `, after the procedure where there is
/// one: `claim: UPDATE messages SET ... WHERE ...; with actor = 'worker-a';
/// changed 1 row`, `claim → ok: token = 3`.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Wording { lead, sql, details } = self.wording();
        let mut line = match (&self.procedure, &self.what) {
            (None, _) | (_, What::CallStarted { .. }) => lead,
            (Some(procedure), What::CallFinished { .. }) => format!("{procedure} {lead}"),
            (Some(procedure), _) if lead.is_empty() => format!("{procedure}:"),
            (Some(procedure), _) => format!("{procedure}: {lead}"),
        };
        if let Some(sql) = sql {
            line.push_str(if line.is_empty() || line.ends_with(':') {
                " "
            } else {
                "; "
            });
            line.push_str(&one_line(&sql));
        }
        for (_, detail) in details {
            line.push_str("; ");
            line.push_str(&detail);
        }
        f.write_str(line.trim_start())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn event(procedure: Option<&str>, what: What) -> Event {
        Event {
            clock_seconds: 0,
            process: Some("proc-1".into()),
            actor: Some("worker-a".into()),
            procedure: procedure.map(str::to_string),
            step: None,
            position: None,
            what,
            row_changes: Vec::new(),
        }
    }

    fn values(pairs: &[(&str, i64)]) -> Values {
        pairs
            .iter()
            .map(|(name, v)| (name.to_string(), Value::Integer(*v)))
            .collect()
    }

    /// The CLI's line of every kind of event: the words the page's timeline
    /// wraps in its markup, joined.
    #[test]
    fn a_process_a_clock_a_call_and_a_statement_read_as_one_line_of_their_wording() {
        let claim = Some("claim");
        let cases = [
            (
                event(None, What::ProcessStarted),
                "starts, hosting worker-a",
            ),
            (
                event(None, What::ProcessCrashed { rolled_back: true }),
                "crashes, its open transaction rolled back",
            ),
            (
                event(
                    None,
                    What::ClockSet {
                        from_seconds: 0,
                        to_seconds: 30,
                    },
                ),
                "clock 0 s → 30 s",
            ),
            (
                event(
                    claim,
                    What::CallStarted {
                        arguments: values(&[("id", 1)]),
                    },
                ),
                "calls claim(id = 1)",
            ),
            (
                event(
                    claim,
                    What::Statement {
                        sql: "UPDATE messages\n   SET state = 'CLAIMED'".into(),
                        parameters: values(&[("token", 3)]),
                        changed: 1,
                        returned: ResultRows {
                            columns: vec!["token".into()],
                            rows: vec![vec![Value::Integer(3)]],
                        },
                    },
                ),
                "claim: UPDATE messages SET state = 'CLAIMED'; with token = 3; changed 1 row; \
                 returned 1 row: token = 3",
            ),
            (
                event(
                    claim,
                    What::Statement {
                        sql: "SELECT 1".into(),
                        parameters: Values::new(),
                        changed: 0,
                        returned: ResultRows {
                            columns: Vec::new(),
                            rows: Vec::new(),
                        },
                    },
                ),
                "claim: SELECT 1; changed 0 rows",
            ),
        ];
        for (event, line) in cases {
            assert_eq!(event.to_string(), line, "{:?}", event.what);
        }
    }

    #[test]
    fn a_wait_an_effect_an_end_and_direct_sql_read_as_one_line_of_their_wording() {
        let claim = Some("claim");
        let cases = [
            (
                event(
                    claim,
                    What::Blocked {
                        sql: "BEGIN IMMEDIATE".into(),
                    },
                ),
                "claim: waits: another process holds the lock; BEGIN IMMEDIATE; did not run",
            ),
            (
                event(
                    claim,
                    What::Effect {
                        name: "invoke_provider".into(),
                        values: values(&[("amount", 5)]),
                    },
                ),
                "claim: external effect invoke_provider(amount = 5)",
            ),
            (
                event(
                    claim,
                    What::CallFinished {
                        outcome: Outcome::Ok {
                            values: values(&[("token", 3)]),
                        },
                        rolled_back: false,
                    },
                ),
                "claim → ok: token = 3",
            ),
            (
                event(
                    claim,
                    What::CallFinished {
                        outcome: Outcome::Refused {
                            category: "not_claimable".into(),
                            reason: "not claimable".into(),
                        },
                        rolled_back: true,
                    },
                ),
                "claim → refused (not_claimable): not claimable; its transaction rolled back",
            ),
            (
                event(
                    None,
                    What::DirectSql {
                        sql: "UPDATE t SET a = 2".into(),
                        changed: 2,
                    },
                ),
                "direct SQL; UPDATE t SET a = 2; changed 2 rows",
            ),
        ];
        for (event, line) in cases {
            assert_eq!(event.to_string(), line, "{:?}", event.what);
        }
    }
}
