//! The engine's error: what fencelab-core's one public error type is
//! (it re-exports it as `Error`), defined here so that a run error can
//! carry it to every edge ([`crate::report::ErrorKind::Engine`]) and each
//! says it with this Display.
//!
//! An [`Error`] means the engine was asked something it cannot do: bad input
//! (a schema that fails, a procedure that does not parse, an unknown
//! process) or a failure of SQLite itself. A refused claim or a learner's SQL
//! error inside a call is *not* an `Error`: those are what the exercises
//! teach, and they come back as an [`Outcome`](crate::history::Outcome).

use crate::procedure::ParseError;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Error {
    /// The exercise's schema or seed rows could not be applied.
    Schema { message: String },
    /// A procedure's text could not be parsed.
    Parse(ParseError),
    /// No procedure of this name exists in the world.
    UnknownProcedure { name: String },
    /// No process of this id exists in the world.
    UnknownProcess { id: String },
    /// The process has crashed; start a new one for the same actor instead.
    ProcessCrashed { id: String },
    /// The process is already inside a call and cannot start another.
    ProcessBusy { id: String, procedure: String },
    /// The process has no call in progress to step.
    NoCallInProgress { id: String },
    /// A call's argument is unusable (for example, it shadows a built-in).
    BadArgument { name: String, message: String },
    /// A query or direct SQL statement failed.
    Query { sql: String, message: String },
    /// The sandbox denied a query or direct SQL statement.
    Denied { sql: String, denial: Denial },
    /// The process is blocked by another process's lock and nothing else can
    /// move to release it.
    Blocked { id: String, sql: String },
    /// SQLite failed while the engine managed the world (reset, snapshot).
    Sqlite { context: String, message: String },
    /// The database server failed while the engine managed the world, or
    /// could not be reached (`fencelab_core::server`).
    Server { context: String, message: String },
    /// A scenario's search was advanced after it had given its report.
    ReportGiven,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Schema { message } => write!(f, "the exercise's schema failed: {message}"),
            Error::Parse(error) => write!(f, "{error}"),
            Error::UnknownProcedure { name } => write!(f, "there is no procedure named `{name}`"),
            Error::UnknownProcess { id } => write!(f, "there is no process `{id}`"),
            Error::ProcessCrashed { id } => write!(
                f,
                "process {id} has crashed; start a new process for its actor to restart it"
            ),
            Error::ProcessBusy { id, procedure } => {
                write!(f, "process {id} is still inside its call to {procedure}")
            }
            Error::NoCallInProgress { id } => write!(f, "process {id} has no call in progress"),
            Error::BadArgument { name, message } => write!(f, "argument `{name}`: {message}"),
            Error::Query { sql, message } => write!(f, "{message} (in `{sql}`)"),
            Error::Denied { sql, denial } => write!(f, "{denial} (in `{sql}`)"),
            Error::Blocked { id, sql } => write!(
                f,
                "process {id} is blocked at `{sql}`: another process holds the database lock"
            ),
            Error::Sqlite { context, message } => {
                write!(f, "SQLite failed to {context}: {message}")
            }
            Error::Server { context, message } => {
                write!(f, "the database server failed to {context}: {message}")
            }
            Error::ReportGiven => {
                f.write_str("this scenario's search has already given its report")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<ParseError> for Error {
    fn from(error: ParseError) -> Self {
        Error::Parse(error)
    }
}

/// Why the sandbox stopped a statement: the core's sandbox decides, this
/// says it (its Display is in `report/error.rs`, beside the limit the
/// check's budget shares a sentence with). A call's statement stopped so
/// ends in a call error ([`crate::history::ErrorCause::StepBudget`] or
/// [`crate::history::ErrorCause::Denied`]); a statement the scenario wrote
/// (direct SQL, a query) in [`Error::Denied`], which ends a run in
/// [`crate::report::ErrorKind::Denied`]; the check's own budget, in a
/// [`crate::report::Limit`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Denial {
    /// The statement ran past its own budget of `steps_max` SQLite steps.
    StepBudget { steps_max: u64 },
    /// The check as a whole ran past its budget of SQLite steps, inside
    /// this statement.
    CheckBudget { steps_max: u64 },
    /// The authorizer refused something the statement tried; the reason is
    /// a sentence for the learner.
    Refused(String),
}
