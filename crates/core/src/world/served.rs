//! A world whose tables live on a database server (`crate::server`): its
//! processes' statements go to their sessions there, and the world's own
//! SQLite holds the *mirror*, the server's committed rows, refreshed after
//! every step, which invariants, scenario queries and the checker's tables
//! read as they read a SQLite world's tables.
//!
//! A statement that waits on the server's lock stays in flight: the process
//! is marked blocked, the wait is recorded (`What::Blocked`), and after
//! every later step each waiting statement is settled again; the one that
//! has finished makes its process movable, and stepping it then records its
//! finish from the reply kept for it.

use super::seed::quote_identifier;
use super::statement::Executed;
use super::step::call_error;
use super::{ProcessId, StepResult, World, index};
use crate::error::Error;
use crate::history::{ErrorCause, Outcome, Values};
use crate::procedure::{StatementClass, Step};
use crate::server::ServerError;
use crate::server::{Reply, SendError, Server, ServerTable, Settled};
use crate::sql_value::Bind;
use rusqlite::params_from_iter;
use std::time::Duration;

/// How long the world waits for the server to break a stall in which every
/// process of a concurrent section waits (PostgreSQL's deadlock detector
/// runs after `deadlock_timeout`, one second unless the engine may lower
/// it), before calling it a deadlock itself.
pub const SERVER_STALL_PATIENCE: Duration = Duration::from_millis(1_500);

/// A server statement's state in its process, between steps.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) enum InFlight {
    #[default]
    Nothing,
    /// Sent with these values bound; the server holds it on a lock.
    Waiting(Values),
    /// Finished while the process waited: stepping it records this.
    Finished(Values, Reply),
}

impl World {
    /// Builds a world on `server`, whose schema and seed rows are already
    /// applied there: the mirror's tables are made from what it holds.
    pub fn on_server(
        mut server: Box<dyn Server>,
        procedures: impl IntoIterator<Item = crate::procedure::Procedure>,
        constants: Values,
    ) -> Result<World, Error> {
        server.reset()?;
        let tables = server.committed()?;
        let mut world = World::new(&mirror_schema(&tables), procedures, constants)?;
        world.server = Some(server);
        world.mirror(tables)?;
        Ok(world)
    }

    /// The isolation level of the server sessions opened from now on;
    /// nothing on a SQLite world, which has one writer and no levels.
    pub fn set_isolation(&mut self, isolation: fencelab_model::exercise::Isolation) {
        if let Some(server) = self.server.as_deref_mut() {
            server.set_isolation(isolation);
        }
    }

    /// Runs process `id`'s statement on its session: sends it (or takes up
    /// the one in flight), and records what the server did with it.
    pub(super) fn run_on_server(
        &mut self,
        id: ProcessId,
        step: &Step,
        sql: &str,
        class: StatementClass,
    ) -> Result<StepResult, Error> {
        let (parameters, reply) = match std::mem::take(&mut self.processes[index(id)].in_flight) {
            InFlight::Finished(parameters, reply) => (parameters, reply),
            InFlight::Waiting(parameters) => match self.settle(id)? {
                Settled::Done(reply) => (parameters, reply),
                Settled::Waiting => return self.wait(id, step, sql, parameters),
            },
            InFlight::Nothing => {
                let parameters = match self.send(id, sql) {
                    Ok(parameters) => parameters,
                    Err(error) => return self.fail_step(id, step, error),
                };
                match self.settle(id)? {
                    Settled::Done(reply) => (parameters, reply),
                    Settled::Waiting => return self.wait(id, step, sql, parameters),
                }
            }
        };
        match reply {
            Reply::Rows { rows, changed } => {
                // A read's command tag counts the rows it returned
                // (`SELECT 2`); what the engine counts, as SQLite's
                // changes() does, is rows written.
                let changed = if class == StatementClass::Read {
                    0
                } else {
                    changed
                };
                let executed = Executed {
                    parameters,
                    changed,
                    rows,
                };
                self.statement_ran(id, step, sql, executed, Vec::new())
            }
            Reply::Failed(failure) => {
                let call = self.call_of(id)?;
                let position = failure
                    .offset
                    .map(|offset| {
                        crate::procedure::position_at(&call.procedure.source, step.offset + offset)
                    })
                    .or(Some(step.position));
                let error = call_error(call, failure.cause, failure.message, position);
                Ok(StepResult::Finished(self.finish(id, Outcome::Error(error))))
            }
        }
    }

    fn send(&mut self, id: ProcessId, sql: &str) -> Result<Values, SendError> {
        let process = &self.processes[index(id)];
        let (clock_seconds, constants) = (self.clock_seconds, &self.constants);
        let Some(server) = self.server.as_deref_mut() else {
            return Err(SendError::Server(no_server()));
        };
        let lookup = |name: &str| {
            let call = process.call.as_ref()?;
            super::step::lookup(clock_seconds, constants, process, call, name)
        };
        server.send(id, sql, &lookup)
    }

    fn settle(&mut self, id: ProcessId) -> Result<Settled, Error> {
        Ok(self.server_mut()?.settle(id)?)
    }

    /// Records that `id`'s statement waits on the server.
    fn wait(
        &mut self,
        id: ProcessId,
        step: &Step,
        sql: &str,
        parameters: Values,
    ) -> Result<StepResult, Error> {
        self.processes[index(id)].in_flight = InFlight::Waiting(parameters);
        self.blocked(id, step, sql)
    }

    /// Ends `id`'s call with the reason its statement could not be sent.
    fn fail_step(
        &mut self,
        id: ProcessId,
        step: &Step,
        error: SendError,
    ) -> Result<StepResult, Error> {
        let (cause, message) = match error {
            SendError::MissingParameter(name) => (
                ErrorCause::MissingParameter,
                format!("`:{name}` has no value in this call"),
            ),
            SendError::Parameter { name, message } => {
                (ErrorCause::Sql, format!("parameter `:{name}`: {message}"))
            }
            SendError::Server(error) => return Err(error.into()),
        };
        let call = self.call_of(id)?;
        let error = call_error(call, cause, message, Some(step.position));
        Ok(StepResult::Finished(self.finish(id, Outcome::Error(error))))
    }

    /// After any step: settles every statement still waiting, so a process
    /// whose wait has ended can move, and copies the committed rows to the
    /// mirror. Nothing on a SQLite world.
    pub(super) fn after_server_step(&mut self) -> Result<(), Error> {
        if self.server.is_none() {
            return Ok(());
        }
        for position in 0..self.processes.len() {
            let id = self.processes[position].id;
            if let InFlight::Waiting(parameters) = &self.processes[position].in_flight {
                let parameters = parameters.clone();
                if let Settled::Done(reply) = self.settle(id)? {
                    let process = &mut self.processes[position];
                    process.in_flight = InFlight::Finished(parameters, reply);
                    process.blocked = false;
                }
            }
        }
        let tables = self.server_mut()?.committed()?;
        self.mirror(tables)
    }

    /// When every process of `ids` waits on the server: gives the server
    /// [`SERVER_STALL_PATIENCE`] to end one of the waits, and says whether
    /// one ended (a deadlock it broke), so the schedule can go on.
    pub fn await_server(&mut self, ids: &[ProcessId]) -> Result<bool, Error> {
        let Some(server) = self.server.as_deref_mut() else {
            return Ok(false);
        };
        if server.await_any(ids, SERVER_STALL_PATIENCE)?.is_none() {
            return Ok(false);
        }
        self.after_server_step()?;
        Ok(true)
    }

    /// Whether process `id`'s session is inside a transaction.
    pub(super) fn server_transaction(&self, id: ProcessId) -> Option<bool> {
        self.server.as_ref().map(|s| s.in_transaction(id))
    }

    pub(super) fn server_mut(&mut self) -> Result<&mut (dyn Server + 'static), Error> {
        self.server.as_deref_mut().ok_or_else(|| no_server().into())
    }

    /// Puts `tables` in the mirror, as the engine's own trusted write.
    pub(super) fn mirror(&mut self, tables: Vec<ServerTable>) -> Result<(), Error> {
        self.with_anchor_trusted(|anchor| {
            for table in &tables {
                let name = quote_identifier(&table.name);
                anchor.execute(&format!("DELETE FROM {name}"), [])?;
                if table.columns.is_empty() {
                    continue;
                }
                let marks = vec!["?"; table.columns.len()].join(", ");
                let mut insert = anchor.prepare(&format!("INSERT INTO {name} VALUES ({marks})"))?;
                for row in &table.rows {
                    insert.execute(params_from_iter(row.iter().map(Bind)))?;
                }
            }
            Ok(())
        })
        .map_err(|e: rusqlite::Error| {
            crate::error::sqlite("copy the server's rows to the mirror", e)
        })
    }
}

/// The mirror's tables: each server table's columns, untyped and
/// unconstrained (the server holds the constraints; the mirror only copies
/// what it committed).
fn mirror_schema(tables: &[ServerTable]) -> String {
    tables
        .iter()
        .map(|table| {
            let columns: Vec<String> = table.columns.iter().map(|c| quote_identifier(c)).collect();
            format!(
                "CREATE TABLE {} ({});\n",
                quote_identifier(&table.name),
                columns.join(", ")
            )
        })
        .collect()
}

/// The error of a server request on a world that has none: a bug in the
/// engine, said rather than panicked.
fn no_server() -> ServerError {
    ServerError {
        context: "reach the world's server".into(),
        message: "this world keeps its tables in SQLite".into(),
    }
}
