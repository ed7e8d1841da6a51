//! The engine's side: one world on the server as the core's
//! [`fencelab_core::server::Server`], the seam its interpreter, scheduler
//! and monitor reach a database through. Each scenario process is a
//! [`Session`]; the world's own connection resets, reads the committed rows
//! for the mirror and runs a scenario's direct SQL.

use crate::error::{Error, ErrorKind};
use crate::server::Server;
use crate::session::{Isolation, Reply, Session, Settled};
use crate::world::{Observer, WorldDb};
use fencelab_core::mutate::TableColumns;
use fencelab_core::server::{self as seam, SendError, ServerTable, StatementError};
use fencelab_core::target::Worlds;
use fencelab_core::{ErrorCause, Exercise, ProcessId, Values};
use fencelab_model::value::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long between looks while every waiting session is still waiting.
const STALL_POLL: Duration = Duration::from_millis(5);

/// The worlds a PostgreSQL server makes for the engine's checkers, one
/// database each (`fencelab_core::target::Target::Server`).
pub struct PgWorlds {
    server: Mutex<Server>,
}

impl PgWorlds {
    /// Worlds on `server` (each run's sessions at its scenario's isolation).
    pub fn new(server: Server) -> PgWorlds {
        PgWorlds {
            server: Mutex::new(server),
        }
    }

    /// A database of its own on the server with `schema_sql` applied, for
    /// what runs beside the engine's checkers (`fencelab replay
    /// --postgres`); dropped with it.
    pub fn create_world(&self, schema_sql: &str) -> Result<WorldDb, Error> {
        crate::server::lock(&self.server).create_world(schema_sql)
    }
}

impl Worlds for PgWorlds {
    fn world(&self, exercise: &Exercise) -> Result<Box<dyn seam::Server>, seam::ServerError> {
        let mut server = crate::server::lock(&self.server);
        let db = server.create_world(&exercise.schema).map_err(|e| match e {
            Error::Schema(error) => server_error("apply the exercise's schema", &sql_error(&error)),
            other => failed("make a world", &other),
        })?;
        let world =
            PgWorld::new(db, Isolation::default()).map_err(|e| failed("open a world", &e))?;
        Ok(Box::new(world))
    }
}

/// A world on a PostgreSQL server, as the engine drives it.
pub struct PgWorld {
    db: WorldDb,
    observer: Observer,
    isolation: Isolation,
    sessions: BTreeMap<ProcessId, Session>,
    /// Replies a stall's watch ([`seam::Server::await_any`]) took from the
    /// sessions, until the world settles their statements.
    ready: BTreeMap<ProcessId, Reply>,
}

impl PgWorld {
    /// The engine's world on `db`, each process's transactions at
    /// `isolation` unless a statement says otherwise.
    pub fn new(db: WorldDb, isolation: Isolation) -> Result<PgWorld, Error> {
        Ok(PgWorld {
            observer: db.observer()?,
            db,
            isolation,
            sessions: BTreeMap::new(),
            ready: BTreeMap::new(),
        })
    }

    fn session(&mut self, id: ProcessId) -> Result<&mut Session, seam::ServerError> {
        self.sessions
            .get_mut(&id)
            .ok_or_else(|| server_error("reach a session", &format!("{id} has no session")))
    }
}

impl seam::Server for PgWorld {
    fn set_isolation(&mut self, isolation: fencelab_model::exercise::Isolation) {
        self.isolation = isolation.into();
    }

    fn open(&mut self, id: ProcessId) -> Result<(), seam::ServerError> {
        let session = self
            .db
            .session(self.isolation)
            .map_err(|e| failed("open a session", &e))?;
        self.sessions.insert(id, session);
        Ok(())
    }

    fn close(&mut self, id: ProcessId) -> bool {
        self.ready.remove(&id);
        let Some(session) = self.sessions.remove(&id) else {
            return false;
        };
        let open = session.in_transaction();
        // Closing cancels a statement in flight and rolls back; a session
        // that cannot be cleaned is dropped with its connection, which the
        // server rolls back as it does for any closed connection.
        let _ = session.close();
        open
    }

    fn send(
        &mut self,
        id: ProcessId,
        sql: &str,
        lookup: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<Values, SendError> {
        let (_, names) = crate::positional(sql);
        let mut bound = Values::new();
        for name in names {
            let value = lookup(&name).ok_or_else(|| SendError::MissingParameter(name.clone()))?;
            bound.insert(name, value);
        }
        let parameters: Vec<(String, Value)> =
            bound.iter().map(|(n, v)| (n.clone(), v.clone())).collect();
        let session = self.session(id).map_err(SendError::Server)?;
        session
            .send(sql, &parameters)
            .map_err(|error| match error {
                Error::Parameter { name, problem } => SendError::Parameter {
                    name,
                    message: problem.to_string(),
                },
                Error::MissingParameter { name } => SendError::MissingParameter(name),
                other => SendError::Server(failed("send a statement", &other)),
            })?;
        Ok(bound)
    }

    fn settle(&mut self, id: ProcessId) -> Result<seam::Settled, seam::ServerError> {
        if let Some(reply) = self.ready.remove(&id) {
            return Ok(seam::Settled::Done(reply_of(reply)));
        }
        let observer = self.observer.clone();
        let session = self.session(id)?;
        match session.settle(&observer) {
            Ok(Settled::Done(reply)) => Ok(seam::Settled::Done(reply_of(reply))),
            Ok(Settled::Waiting) => Ok(seam::Settled::Waiting),
            Err(error) => Err(failed("settle a statement", &error)),
        }
    }

    fn await_any(
        &mut self,
        ids: &[ProcessId],
        patience: Duration,
    ) -> Result<Option<ProcessId>, seam::ServerError> {
        let started = Instant::now();
        loop {
            for &id in ids {
                if self.ready.contains_key(&id) {
                    return Ok(Some(id));
                }
                let observer = self.observer.clone();
                let session = self.session(id)?;
                match session.settle(&observer) {
                    Ok(Settled::Done(reply)) => {
                        self.ready.insert(id, reply);
                        return Ok(Some(id));
                    }
                    Ok(Settled::Waiting) => {}
                    Err(Error::NothingInFlight) => {}
                    Err(error) => return Err(failed("watch a stall", &error)),
                }
            }
            if started.elapsed() >= patience {
                return Ok(None);
            }
            std::thread::sleep(STALL_POLL);
        }
    }

    fn roll_back(&mut self, id: ProcessId) {
        let observer = self.observer.clone();
        if let Ok(session) = self.session(id)
            && session.send("ROLLBACK", &[]).is_ok()
        {
            let _ = session.settle(&observer);
        }
    }

    fn in_transaction(&self, id: ProcessId) -> bool {
        self.sessions.get(&id).is_some_and(Session::in_transaction)
    }

    fn direct(&mut self, sql: &str) -> Result<u64, seam::ServerError> {
        self.db.direct(sql).map_err(|e| match e {
            Error::Server { error, .. } => server_error("run direct SQL", &sql_error(&error)),
            other => failed("run direct SQL", &other),
        })
    }

    fn reset(&mut self) -> Result<(), seam::ServerError> {
        self.ready.clear();
        for (_, session) in std::mem::take(&mut self.sessions) {
            let _ = session.close();
        }
        self.db.reset().map_err(|e| failed("reset the world", &e))
    }

    fn columns(&mut self) -> Result<Vec<TableColumns>, seam::ServerError> {
        Ok(self
            .db
            .columns()
            .into_iter()
            .map(|(table, columns)| TableColumns { table, columns })
            .collect())
    }

    fn committed(&mut self) -> Result<Vec<ServerTable>, seam::ServerError> {
        let tables = self
            .db
            .committed()
            .map_err(|e| failed("read the committed rows", &e))?;
        Ok(tables
            .into_iter()
            .map(|t| ServerTable {
                name: t.table,
                columns: t.columns,
                rows: t.rows,
            })
            .collect())
    }
}

/// A reply as the engine judges it: the lessons' refusals by their cause.
fn reply_of(reply: Reply) -> seam::Reply {
    match reply {
        Reply::Rows {
            columns,
            rows,
            changed,
        } => seam::Reply::Rows {
            rows: fencelab_model::history::ResultRows { columns, rows },
            changed,
        },
        Reply::Failed(error) => seam::Reply::Failed(StatementError {
            cause: match error.kind() {
                ErrorKind::Deadlock => ErrorCause::Deadlock,
                ErrorKind::SerializationFailure => ErrorCause::SerializationFailure,
                ErrorKind::Timeout => ErrorCause::StatementTimeout,
                _ => ErrorCause::Sql,
            },
            message: sql_error(&error),
            offset: error.position,
        }),
    }
}

/// The server's message with its SQLSTATE, as a learner reads it.
fn sql_error(error: &crate::ServerError) -> String {
    format!("{} (SQLSTATE {})", error.message, error.sqlstate)
}

fn failed(context: &str, error: &Error) -> seam::ServerError {
    server_error(context, &error.to_string())
}

fn server_error(context: &str, message: &str) -> seam::ServerError {
    seam::ServerError {
        context: context.to_string(),
        message: message.to_string(),
    }
}
