//! What a run did, as data: call outcomes and the step-by-step history that
//! feeds the timeline view, replay and the checker.
//!
//! Everything here serializes with serde, and nothing in it depends on the
//! platform, so the same drive gives the same JSON natively and in wasm.

use crate::procedure::Position;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
