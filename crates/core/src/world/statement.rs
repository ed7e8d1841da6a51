//! One statement of learner SQL, run under the sandbox: preparing,
//! binding `:parameters`, reading what it returned (within the engine's
//! limits), and turning SQLite's failures into words. This is the boundary
//! where learner SQL meets SQLite; nothing here knows processes or history.

use super::{RESULT_BYTES_MAX, RESULT_ROWS_MAX};
use crate::error::Error;
use crate::history::{ErrorCause, ResultRows, Values};
use crate::sandbox::{Denial, SQL_BYTES_MAX, Sandbox, VALUE_BYTES_MAX};
use crate::sql_value::{Bind, value_from_ref};
use crate::sqlite::{is_busy, is_stale_snapshot};
use crate::value::Value;
use rusqlite::{CachedStatement, Connection, Statement, StatementStatus};
use std::ops::{Deref, DerefMut};

pub(super) struct Executed {
    pub(super) parameters: Values,
    pub(super) changed: u64,
    pub(super) rows: ResultRows,
}

pub(super) struct Failure {
    pub(super) busy: bool,
    pub(super) cause: ErrorCause,
    pub(super) message: String,
    /// Byte offset of the error in the statement, when SQLite gives one.
    pub(super) offset: Option<usize>,
}

impl Failure {
    pub(super) fn new(cause: ErrorCause, message: String) -> Failure {
        Failure {
            busy: false,
            cause,
            message,
            offset: None,
        }
    }

    pub(super) fn from_sqlite(error: rusqlite::Error, sandbox: &Sandbox) -> Failure {
        if is_busy(&error) {
            return Failure {
                busy: true,
                ..Failure::new(ErrorCause::Sql, error.to_string())
            };
        }
        if is_stale_snapshot(&error) {
            return Failure::new(ErrorCause::StaleSnapshot, STALE_SNAPSHOT.to_string());
        }
        if let Some(denial) = sandbox.explain_failure() {
            let cause = match denial {
                Denial::StepBudget { .. } | Denial::CheckBudget { .. } => ErrorCause::StepBudget,
                Denial::Refused(_) => ErrorCause::Denied,
            };
            return Failure::new(cause, denial.to_string());
        }
        let offset = match &error {
            rusqlite::Error::SqlInputError { offset, .. } => usize::try_from(*offset).ok(),
            _ => None,
        };
        let cause = if limit_hit(&error)
            || out_of_memory(&error)
            || error.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull)
        {
            ErrorCause::TooLarge
        } else {
            ErrorCause::Sql
        };
        Failure {
            offset,
            ..Failure::new(cause, sqlite_message(&error))
        }
    }
}

/// What a learner reads when a WAL transaction's write meets a commit made
/// after its snapshot.
pub const STALE_SNAPSHOT: &str = "another process committed after this transaction began reading, \
     so it cannot write (SQLITE_BUSY_SNAPSHOT); only a new transaction sees the new rows";

/// A statement prepared from exactly the text given, from the connection's
/// cache when it can be.
enum Prepared<'c> {
    Cached(CachedStatement<'c>),
    Uncached(Statement<'c>),
}

impl<'c> Deref for Prepared<'c> {
    type Target = Statement<'c>;
    fn deref(&self) -> &Statement<'c> {
        match self {
            Prepared::Cached(statement) => statement,
            Prepared::Uncached(statement) => statement,
        }
    }
}

impl DerefMut for Prepared<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Prepared::Cached(statement) => statement,
            Prepared::Uncached(statement) => statement,
        }
    }
}

/// Prepares `sql` as written. rusqlite's statement cache prepares
/// `sql.trim()`, which trims Unicode's white space; SQLite reads U+00A0,
/// U+202F and their kin as name characters, so a text that begins or ends
/// with one would run as another statement (`SELECT 1 x\u{a0}` names its
/// column `x\u{a0}`; a lone U+202F is a syntax error, not an empty statement). Such a
/// text is prepared uncached, as written.
fn prepare_exactly<'c>(connection: &'c Connection, sql: &str) -> rusqlite::Result<Prepared<'c>> {
    let sqls_own = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    if sql.trim() == sql.trim_matches(sqls_own) {
        connection.prepare_cached(sql).map(Prepared::Cached)
    } else {
        connection.prepare(sql).map(Prepared::Uncached)
    }
}

/// Prepares, binds and runs one statement to completion on `connection`.
pub(super) fn execute(
    connection: &Connection,
    sandbox: &Sandbox,
    sql: &str,
    lookup: impl Fn(&str) -> Option<Value>,
) -> Result<Executed, Failure> {
    sandbox.begin_statement();
    if let Some(denial) = crate::sandbox::refuse_before_sqlite(sql) {
        return Err(Failure::new(ErrorCause::Denied, denial.to_string()));
    }
    crate::sqlite::pin_randomness();
    let mut statement =
        prepare_exactly(connection, sql).map_err(|e| Failure::from_sqlite(e, sandbox))?;
    if !sandbox.note_prepared(sql) {
        // The connection's cache kept this statement after the sandbox's
        // memory of what the authorizer saw of it was cleared; what it
        // touches decides its count of rows changed and the explorer's
        // independence, so it is prepared again, and the authorizer sees
        // it again, rather than read as unknown.
        if let Prepared::Cached(cached) = statement {
            cached.discard();
        }
        statement =
            prepare_exactly(connection, sql).map_err(|e| Failure::from_sqlite(e, sandbox))?;
        sandbox.note_prepared(sql);
    }
    let parameters = bind_parameters(&mut statement, sandbox, lookup)?;
    let read_only = statement.readonly();
    let rows = read_rows(&mut statement, sandbox).map_err(|e| match e {
        RowsError::Sqlite(e) => Failure::from_sqlite(e, sandbox),
        RowsError::TooMany => Failure::new(
            ErrorCause::TooLarge,
            format!("the statement returned more than {RESULT_ROWS_MAX} rows"),
        ),
        RowsError::TooManyBytes => Failure::new(ErrorCause::TooLarge, too_many_bytes("statement")),
    })?;
    // The statement's own count: only INSERT, UPDATE and DELETE set it, so
    // a read or a transaction's control (BEGIN, COMMIT) never reports a
    // count left over from an earlier write on this pooled connection.
    let control = sandbox.last_access().is_some_and(|a| a.transaction);
    let changed = if read_only || control {
        0
    } else {
        connection.changes()
    };
    Ok(Executed {
        parameters,
        changed,
        rows,
    })
}

/// Binds each of `statement`'s parameters (`:name`) to its value from
/// `lookup`, and returns the values bound.
fn bind_parameters(
    statement: &mut Statement<'_>,
    sandbox: &Sandbox,
    lookup: impl Fn(&str) -> Option<Value>,
) -> Result<Values, Failure> {
    let mut parameters = Values::new();
    for i in 1..=statement.parameter_count() {
        let Some(raw) = statement.parameter_name(i) else {
            return Err(Failure::new(
                ErrorCause::Sql,
                "use named parameters such as :token, not `?` or a numbered `?N`".into(),
            ));
        };
        let Some(name) = raw.strip_prefix(':').map(str::to_string) else {
            return Err(Failure::new(
                ErrorCause::Sql,
                format!(
                    "write parameters with a colon, as in :{}, not `{raw}`",
                    &raw[1..]
                ),
            ));
        };
        let value = lookup(&name).ok_or_else(|| {
            Failure::new(
                ErrorCause::MissingParameter,
                format!(
                    ":{name} has no value: it is not an argument of this call, not a constant, \
                     not built in (:now, :actor, :process), and no earlier statement returned \
                     a column named {name}"
                ),
            )
        })?;
        statement
            .raw_bind_parameter(i, Bind(&value))
            .map_err(|e| Failure::from_sqlite(e, sandbox))?;
        parameters.insert(name, value);
    }
    Ok(parameters)
}

/// Why a read-only query returned nothing.
pub(super) enum QueryFailure {
    /// A process's open transaction holds the write lock.
    Locked,
    /// The sandbox stopped it.
    Denied(Denial),
    Failed(String),
}

impl QueryFailure {
    /// In the sandbox's words when the sandbox stopped the query (never a
    /// bare "not authorized").
    pub(super) fn from_sqlite(error: rusqlite::Error, sandbox: &Sandbox) -> QueryFailure {
        if is_busy(&error) {
            return QueryFailure::Locked;
        }
        match sandbox.explain_failure() {
            Some(denial) => QueryFailure::Denied(denial),
            None => QueryFailure::Failed(sqlite_message(&error)),
        }
    }

    pub(super) fn into_error(self, sql: &str) -> Error {
        let sql = sql.to_string();
        match self {
            QueryFailure::Locked => Error::Query {
                sql,
                message: "a process's open transaction holds the database lock".into(),
            },
            QueryFailure::Denied(denial) => Error::Denied { sql, denial },
            QueryFailure::Failed(message) => Error::Query { sql, message },
        }
    }
}

/// Whether SQLite refused something for exceeding one of the sandbox's size
/// limits (a value, a statement, a LIKE pattern).
fn limit_hit(error: &rusqlite::Error) -> bool {
    error.sqlite_error_code() == Some(rusqlite::ErrorCode::TooBig)
}

/// Whether SQLite ran into its heap limit ([`crate::sqlite::HEAP_BYTES_MAX`]).
fn out_of_memory(error: &rusqlite::Error) -> bool {
    error.sqlite_error_code() == Some(rusqlite::ErrorCode::OutOfMemory)
}

/// SQLite's own message, without rusqlite's wrapping; for a size limit,
/// the limit named in the units a learner can act on.
pub(super) fn sqlite_message(error: &rusqlite::Error) -> String {
    let message = match error {
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        other => other.to_string(),
    };
    if message.contains("string or blob too big") {
        return format!(
            "a string, blob or row grew past {} KiB, the largest value (or row of values) a \
             statement may build",
            VALUE_BYTES_MAX / 1024
        );
    }
    if message.contains("parser stack overflow")
        || message.contains("Expression tree is too large")
        || message == "Recursion limit"
    {
        return format!(
            "the statement is nested too deeply (parentheses, subqueries or a long chain of \
             operators) for SQLite to read: {message}"
        );
    }
    if let Some(name) = message.strip_prefix("no such function: ")
        && let Some(reason) = crate::sandbox::denied_function_reason(name)
    {
        return reason.to_string();
    }
    if error.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull) {
        return format!(
            "the database is full: it reached its {} MiB, or an AUTOINCREMENT table already \
             holds the largest rowid (9223372036854775807), so no new rowid is left",
            super::DATABASE_PAGES_MAX as u64 * crate::sqlite::PAGE_BYTES as u64 / (1024 * 1024)
        );
    }
    if out_of_memory(error) {
        return format!(
            "SQLite needed more than the {} MiB of memory it may use (a GROUP BY, DISTINCT or \
             ORDER BY over very many rows?)",
            crate::sqlite::HEAP_BYTES_MAX / (1024 * 1024)
        );
    }
    if message.contains("statement too long") {
        return format!(
            "the SQL is longer than {} KiB, the longest statement accepted",
            SQL_BYTES_MAX / 1024
        );
    }
    message
}

pub(super) fn query_on(
    connection: &Connection,
    sandbox: &Sandbox,
    sql: &str,
    parameters: &Values,
) -> Result<ResultRows, QueryFailure> {
    let fail = QueryFailure::Failed;
    if let Some(denial) = crate::sandbox::refuse_before_sqlite(sql) {
        return Err(QueryFailure::Denied(denial));
    }
    crate::sqlite::pin_randomness();
    // Invariants are queried after every step: prepared once per
    // connection. The authorizer judged the text when it was first
    // prepared (a refused text is never cached), and the step budget
    // counts every run.
    let mut statement =
        prepare_exactly(connection, sql).map_err(|e| QueryFailure::from_sqlite(e, sandbox))?;
    if !statement.readonly() {
        return Err(fail("only read-only queries are allowed here".into()));
    }
    for i in 1..=statement.parameter_count() {
        let name = statement
            .parameter_name(i)
            .and_then(|n| n.strip_prefix(':'))
            .ok_or_else(|| fail("use named parameters such as :token".into()))?
            .to_string();
        let value = parameters
            .get(&name)
            .ok_or_else(|| fail(format!(":{name} has no value")))?;
        statement
            .raw_bind_parameter(i, Bind(value))
            .map_err(|e| QueryFailure::from_sqlite(e, sandbox))?;
    }
    read_rows(&mut statement, sandbox).map_err(|e| match e {
        RowsError::Sqlite(e) => QueryFailure::from_sqlite(e, sandbox),
        RowsError::TooMany => fail(format!(
            "the query returned more than {RESULT_ROWS_MAX} rows"
        )),
        RowsError::TooManyBytes => fail(too_many_bytes("query")),
    })
}

enum RowsError {
    Sqlite(rusqlite::Error),
    TooMany,
    TooManyBytes,
}

fn too_many_bytes(what: &str) -> String {
    format!(
        "the {what} returned more than {} KiB of values, the most a result may hold",
        RESULT_BYTES_MAX / 1024
    )
}

/// What a value costs a result: its bytes, or eight for a number or NULL.
fn value_bytes(value: &Value) -> usize {
    match value {
        Value::Text(text) => text.len(),
        Value::Blob(blob) => blob.blob.len() / 2,
        _ => 8,
    }
}

/// Runs a bound statement to completion and keeps what it returned, up to
/// [`RESULT_ROWS_MAX`] rows and [`RESULT_BYTES_MAX`] bytes, charging the
/// sandbox every VM instruction of this run.
///
/// SQLite counts a prepared statement's instructions across all its runs,
/// and its progress handler fires on that running count; the statement
/// cache keeps statements between runs. The count is zeroed before the run
/// and settled after it, so a run's charge is its own whatever ran before.
fn read_rows(
    statement: &mut rusqlite::Statement<'_>,
    sandbox: &Sandbox,
) -> Result<ResultRows, RowsError> {
    statement.reset_status(StatementStatus::VmStep);
    let rows = read_all_rows(statement);
    let vm_steps = statement.get_status(StatementStatus::VmStep);
    sandbox.settle_vm_steps(u64::try_from(vm_steps).unwrap_or(0));
    rows
}

fn read_all_rows(statement: &mut rusqlite::Statement<'_>) -> Result<ResultRows, RowsError> {
    let columns: Vec<String> = statement.column_names().map(String::from).collect();
    let mut rows = Vec::new();
    let mut bytes = 0;
    let mut cursor = statement.raw_query();
    while let Some(row) = cursor.next().map_err(RowsError::Sqlite)? {
        if rows.len() == RESULT_ROWS_MAX {
            return Err(RowsError::TooMany);
        }
        let values = (0..columns.len())
            .map(|i| row.get_ref(i).map(value_from_ref))
            .collect::<Result<Vec<_>, _>>()
            .map_err(RowsError::Sqlite)?;
        bytes += values.iter().map(value_bytes).sum::<usize>();
        if bytes > RESULT_BYTES_MAX {
            return Err(RowsError::TooManyBytes);
        }
        rows.push(values);
    }
    Ok(ResultRows { columns, rows })
}
