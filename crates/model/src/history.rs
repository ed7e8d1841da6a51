//! What a run did, as data: call outcomes and the step-by-step history that
//! feeds the timeline view, replay and the checker.
//!
//! Everything here serializes with serde, and nothing in it depends on the
//! platform, so the same drive gives the same JSON natively and in wasm.

use crate::procedure::Position;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Named values, ordered by name so output is stable.
pub type Values = BTreeMap<String, Value>;

/// How a call ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

impl Outcome {
    /// A short word for the kind of outcome: `ok`, `refused` or `error`.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Ok { .. } => "ok",
            Outcome::Refused { .. } => "refused",
            Outcome::Error(_) => "error",
        }
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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// One line per event, without who acted (the reader adds the lane):
/// `claim: UPDATE messages SET ... [actor = 'worker-a'] changed 1`.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let procedure = self.procedure.as_deref().unwrap_or("");
        match &self.what {
            What::ProcessStarted => {
                write!(f, "starts, hosting {}", self.actor.as_deref().unwrap_or(""))
            }
            What::ProcessCrashed { rolled_back } => write!(
                f,
                "crashes{}",
                if *rolled_back {
                    ", its transaction rolled back"
                } else {
                    ""
                }
            ),
            What::ClockSet {
                from_seconds,
                to_seconds,
            } => write!(f, "clock {from_seconds} s -> {to_seconds} s"),
            What::CallStarted { arguments } => {
                write!(f, "calls {procedure}({})", show_values(arguments))
            }
            What::Statement {
                sql,
                parameters,
                changed,
                returned,
            } => {
                write!(f, "{procedure}: {}", one_line(sql))?;
                if !parameters.is_empty() {
                    write!(f, "  [{}]", show_values(parameters))?;
                }
                if *changed > 0 {
                    write!(f, "  changed {changed}")?;
                }
                if !returned.columns.is_empty() {
                    let n = returned.rows.len();
                    write!(f, "  returned {n} row{}", if n == 1 { "" } else { "s" })?;
                }
                Ok(())
            }
            What::Blocked { sql } => {
                write!(f, "{procedure}: waits for the lock at {}", one_line(sql))
            }
            What::Effect { name, values } => {
                write!(
                    f,
                    "{procedure}: external effect {name}({})",
                    show_values(values)
                )
            }
            What::CallFinished {
                outcome,
                rolled_back,
            } => write!(
                f,
                "{procedure} -> {outcome}{}",
                if *rolled_back { ", rolled back" } else { "" }
            ),
            What::DirectSql { sql, changed } => {
                write!(f, "direct SQL: {}  changed {changed}", one_line(sql))
            }
        }
    }
}
