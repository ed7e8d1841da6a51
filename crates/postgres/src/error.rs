//! What can go wrong, as typed values with sentences: a learner's statement
//! that the server refused is not an [`Error`] but a [`ServerError`] inside
//! a reply ([`crate::Reply::Failed`]), since refusals (a deadlock, a
//! serialization failure, a unique violation) are what the lessons show.

use std::fmt;
use std::time::Duration;

/// An error the server sent, as the learner sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerError {
    /// The five-character SQLSTATE, such as `40001`.
    pub sqlstate: String,
    /// The server's primary message.
    pub message: String,
    /// A byte offset into the statement's original text (before `:name`
    /// parameters became `$n`), where the server placed the error.
    pub position: Option<usize>,
}

/// The SQLSTATEs the lessons talk about; everything else is `Other`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// 40001: a serializable (or repeatable read) transaction lost a race.
    SerializationFailure,
    /// 40P01: the server broke a deadlock by failing this transaction.
    Deadlock,
    /// 55P03: `NOWAIT` (or `lock_timeout`) found the lock taken.
    LockNotAvailable,
    /// 57014: the statement was cancelled, by `statement_timeout` or by fencelab.
    Timeout,
    /// 23505: a unique index refused the row.
    UniqueViolation,
    /// 25P02: the transaction already failed; only ROLLBACK helps.
    InFailedTransaction,
    Other,
}

impl ServerError {
    pub fn kind(&self) -> ErrorKind {
        match self.sqlstate.as_str() {
            "40001" => ErrorKind::SerializationFailure,
            "40P01" => ErrorKind::Deadlock,
            "55P03" => ErrorKind::LockNotAvailable,
            "57014" => ErrorKind::Timeout,
            "23505" => ErrorKind::UniqueViolation,
            "25P02" => ErrorKind::InFailedTransaction,
            _ => ErrorKind::Other,
        }
    }

    /// The server's error without a position (fencelab's own statements).
    pub(crate) fn from_db(error: &postgres::error::DbError) -> ServerError {
        ServerError {
            sqlstate: error.code().code().to_string(),
            message: error.message().to_string(),
            position: None,
        }
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (SQLSTATE {})", self.message, self.sqlstate)
    }
}

/// Why a value could not be sent as a parameter of the type the server
/// inferred for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParameterProblem {
    /// The value's kind does not fit the type (text for an integer).
    Mismatch {
        type_name: String,
        value_kind: &'static str,
    },
    /// An integer outside the type's range (70000 for an int2).
    OutOfRange { type_name: String, value: i64 },
    /// A type fencelab does not write (a timestamp, a numeric): cast it.
    Unsupported { type_name: String },
}

impl fmt::Display for ParameterProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParameterProblem::Mismatch {
                type_name,
                value_kind,
            } => write!(
                f,
                "the server expects {type_name} there, and it was given {value_kind}"
            ),
            ParameterProblem::OutOfRange { type_name, value } => {
                write!(f, "{value} does not fit the server's {type_name}")
            }
            ParameterProblem::Unsupported { type_name } => write!(
                f,
                "the server expects {type_name} there, which fencelab cannot send; cast the parameter (`:name::int8`, `:name::text`)"
            ),
        }
    }
}

/// Everything that is not the server refusing a learner's statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The connection spec is neither a libpq key-value string nor a URL.
    Spec { message: String },
    /// A connection could not be made, or one fencelab held was lost.
    Connection {
        doing: &'static str,
        message: String,
    },
    /// The server refused a statement fencelab itself sent.
    Server {
        doing: &'static str,
        error: ServerError,
    },
    /// The world's schema (its tables and seed rows) failed.
    Schema(ServerError),
    /// A column of a type fencelab cannot turn into a value.
    UnsupportedColumn { column: String, type_name: String },
    /// A cell the server sent that does not read as its type says (a
    /// malformed numeric, text that is not UTF-8).
    Unreadable { column: String, message: String },
    /// A parameter whose value does not fit the type the server inferred.
    Parameter {
        name: String,
        problem: ParameterProblem,
    },
    /// The statement names `:name`, and no value was given for it.
    MissingParameter { name: String },
    /// The statement has other parameters than its `:name`s (a `$1` written by hand).
    ParameterCount { expected: usize, named: usize },
    /// `send` while the previous statement has not been settled.
    InFlight,
    /// `settle` with nothing sent.
    NothingInFlight,
    /// No reply and no wait seen for longer than the server's own timeout.
    NoReply { waited: Duration },
    /// `reset` while sessions are still lent out.
    SessionsLent { count: usize },
    /// Every database name tried for a world already existed.
    NoFreeName { last: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spec { message } => write!(
                f,
                "the PostgreSQL connection spec is neither `key=value` pairs nor a postgres:// URL: {message}"
            ),
            Error::Connection { doing, message } => {
                write!(
                    f,
                    "the connection to PostgreSQL failed while {doing}: {message}"
                )
            }
            Error::Server { doing, error } => {
                write!(
                    f,
                    "PostgreSQL refused fencelab's statement while {doing}: {error}"
                )
            }
            Error::Schema(error) => write!(f, "the world's schema failed on PostgreSQL: {error}"),
            Error::UnsupportedColumn { column, type_name } => write!(
                f,
                "column `{column}` is of type {type_name}, which fencelab cannot show; cast it (`{column}::text`)"
            ),
            Error::Unreadable { column, message } => {
                write!(
                    f,
                    "column `{column}` holds a value fencelab cannot read: {message}"
                )
            }
            Error::Parameter { name, problem } => write!(f, "parameter `:{name}`: {problem}"),
            Error::MissingParameter { name } => {
                write!(
                    f,
                    "the statement uses `:{name}`, and no value was given for it"
                )
            }
            Error::ParameterCount { expected, named } => write!(
                f,
                "the server counts {expected} parameters in the statement, and it names {named}; write parameters as `:name`, not `$1`"
            ),
            Error::InFlight => f.write_str(
                "a statement was sent while the session's previous statement was still unsettled",
            ),
            Error::NothingInFlight => f.write_str("a session was settled with no statement sent"),
            Error::NoReply { waited } => write!(
                f,
                "no reply and no lock wait seen for {} ms, past the server's statement timeout",
                waited.as_millis()
            ),
            Error::SessionsLent { count } => write!(
                f,
                "the world cannot be reset while {count} of its sessions are still open; close them first"
            ),
            Error::NoFreeName { last } => write!(
                f,
                "no free database name for a new world (the last tried was {last})"
            ),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// A client error from fencelab's own statement: the server's refusal
    /// when it is one, else the connection's failure.
    pub(crate) fn from_client(doing: &'static str, error: &postgres::Error) -> Error {
        match error.as_db_error() {
            Some(db) => Error::Server {
                doing,
                error: ServerError::from_db(db),
            },
            None => Error::Connection {
                doing,
                message: error.to_string(),
            },
        }
    }
}
