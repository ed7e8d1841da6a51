//! The seam to a database server: where a world's tables live when they
//! are not in the engine's own SQLite.
//!
//! A world built on a [`Server`] (`World::on_server`) keeps everything the
//! interpreter, the monitor and the reports read (processes, calls, scopes,
//! memory, the fake clock, effects, history) exactly as a SQLite world does;
//! only the statements of its processes go elsewhere, each process through a
//! session of its own. Invariants, scenario queries and the checker's own
//! tables read a *mirror*: the server's committed rows, copied into the
//! world's SQLite after every step, so they are judged by the same SQL on
//! either engine.
//!
//! A server's statement may *wait*: it was sent, and the server holds it on
//! another session's lock. The world then records the wait, moves the
//! schedule on, and settles the statement again after every later step; it
//! finishes (a second event) once the holder has ended its transaction.
//! That is PostgreSQL's behaviour; SQLite refuses a second writer at once,
//! and its world retries the statement instead (`world/step.rs`).
//!
//! The core links no server client: the PostgreSQL engine is a crate of its
//! own (`crates/postgres`), native only, which implements this trait.

use crate::history::{ErrorCause, ResultRows, Values};
use crate::value::Value;
use crate::world::ProcessId;
use fencelab_model::exercise::Isolation;
use std::fmt;
use std::time::Duration;

/// A database server holding one world's tables, reached through one
/// session per process. Every method is the engine's own request: learner
/// SQL reaches the server only through [`Server::send`] and
/// [`Server::direct`].
pub trait Server {
    /// The isolation level of the sessions opened from now on (a run sets
    /// its scenario's before it starts a process).
    fn set_isolation(&mut self, isolation: Isolation);
    /// Opens a session for process `id`: a connection of its own, with no
    /// transaction and nothing a statement could read of an earlier one.
    fn open(&mut self, id: ProcessId) -> Result<(), ServerError>;
    /// Ends process `id`'s session as a closed connection would: a
    /// statement in flight is cancelled, an open transaction rolls back,
    /// its session's locks are released. Says whether a transaction was
    /// open.
    fn close(&mut self, id: ProcessId) -> bool;
    /// Sends `sql` on `id`'s session, each `:name` bound to what `lookup`
    /// gives it. Returns the values bound, by name.
    fn send(
        &mut self,
        id: ProcessId,
        sql: &str,
        lookup: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<Values, SendError>;
    /// Waits until the statement `id` sent has finished, or until the
    /// server says it waits on another session: never longer.
    fn settle(&mut self, id: ProcessId) -> Result<Settled, ServerError>;
    /// Waits up to `patience` for any of the waiting statements of `ids`
    /// to finish (a deadlock the server breaks, a lock timeout), and says
    /// which did.
    fn await_any(
        &mut self,
        ids: &[ProcessId],
        patience: Duration,
    ) -> Result<Option<ProcessId>, ServerError>;
    /// Rolls back `id`'s open transaction: its call ended inside it.
    fn roll_back(&mut self, id: ProcessId);
    /// Whether `id`'s session is inside a transaction (an aborted one too).
    fn in_transaction(&self, id: ProcessId) -> bool;
    /// Runs `sql` outside every process, in a transaction of its own.
    /// Returns the rows it changed.
    fn direct(&mut self, sql: &str) -> Result<u64, ServerError>;
    /// Puts the world back as its schema and seed rows made it (rows and
    /// sequences), every session closed first.
    fn reset(&mut self) -> Result<(), ServerError>;
    /// Every table of the world with its columns and their declared types
    /// as the server has them, upper-cased: what the mutation operators
    /// know of a server's schema.
    fn columns(&mut self) -> Result<Vec<crate::mutate::TableColumns>, ServerError>;
    /// Every table of the world as committed, its rows in a stable order:
    /// what the mirror holds.
    fn committed(&mut self) -> Result<Vec<ServerTable>, ServerError>;
}

/// One table of a server's world, as committed.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerTable {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

/// Where a statement sent to a server stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Settled {
    Done(Reply),
    /// Held on a lock another session holds: settled again later.
    Waiting,
}

/// What a finished statement gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Rows {
        rows: ResultRows,
        /// The rows the command changed (its command tag's count).
        changed: u64,
    },
    Failed(StatementError),
}

/// A statement the server refused or failed, in the engine's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct StatementError {
    pub cause: ErrorCause,
    /// The server's message, with its SQLSTATE.
    pub message: String,
    /// Byte offset of the error in the statement's text, when known.
    pub offset: Option<usize>,
}

/// Why a statement could not be sent.
#[derive(Clone, Debug, PartialEq)]
pub enum SendError {
    /// `:name` has no value in the call.
    MissingParameter(String),
    /// A value cannot be given to the parameter the server expects.
    Parameter {
        name: String,
        message: String,
    },
    Server(ServerError),
}

/// The server failed the engine's own request, or could not be reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerError {
    /// What the engine was doing: "open a session", "reset the world".
    pub context: String,
    pub message: String,
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the database server failed to {}: {}",
            self.context, self.message
        )
    }
}

impl std::error::Error for ServerError {}

impl From<ServerError> for crate::error::Error {
    fn from(error: ServerError) -> Self {
        crate::error::Error::Server {
            context: error.context,
            message: error.message,
        }
    }
}
