//! Reading and writing the world from outside any call: direct SQL (the
//! write no fence sees), queries, the tables as anyone sees them, and the
//! fingerprint exploration compares states by.

use super::statement::{QueryFailure, query_on};
use super::{Effect, ProcessId, TableRows, World};
use crate::error::Error;
use crate::history::{Event, ResultRows, Values, What};
use crate::mutate::TableColumns;
use fencelab_model::exercise::Journal;
use rusqlite::Connection;
use serde::Serialize;

/// The lock a process's connection holds on the shared database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    None,
    Shared,
    /// The write lock.
    Reserved,
    /// The write lock of a rollback-journal transaction whose COMMIT met
    /// readers: it waits for them to leave, and turns new readers away.
    Pending,
}

/// A process's transaction between steps: see [`World::transaction_mode`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransactionMode {
    pub open: bool,
    pub lock: Lock,
}

impl World {
    /// Runs SQL directly against the world, bypassing every procedure: the
    /// kind of write no fence can see. Returns the rows it changed.
    pub fn execute_direct(&mut self, sql: &str) -> Result<u64, Error> {
        if let Some(server) = self.server.as_deref_mut() {
            let changed = server.direct(sql).map_err(|e| Error::Query {
                sql: sql.to_string(),
                message: e.message,
            })?;
            self.direct_statements += 1;
            self.record(Event {
                what: What::DirectSql {
                    sql: sql.to_string(),
                    changed,
                },
                ..self.world_event()
            });
            self.after_server_step()?;
            return Ok(changed);
        }
        let before = self.before_step(None, || super::record::rolls_back(sql));
        self.direct_statements += 1;
        self.anchor_sandbox.begin_statement();
        if let Some(denial) = crate::sandbox::refuse_before_sqlite(sql) {
            return Err(QueryFailure::Denied(denial).into_error(sql));
        }
        crate::sqlite::pin_randomness();
        let total_before = self.anchor.total_changes();
        let ran = self
            .anchor
            .execute_batch(sql)
            .map_err(|e| QueryFailure::from_sqlite(e, &self.anchor_sandbox).into_error(sql));
        // Direct SQL is the world's own, outside every process: it may not
        // leave a transaction open behind it (a lone BEGIN would hold the
        // lock for the rest of the scenario and stop the next reset).
        if !self.anchor.is_autocommit() {
            let _ = self.anchor.execute_batch("ROLLBACK");
            ran?;
            return Err(Error::Query {
                sql: sql.to_string(),
                message: "direct SQL must end every transaction it begins (a COMMIT is \
                          missing); it was rolled back"
                    .into(),
            });
        }
        ran?;
        let changed = self.anchor.total_changes() - total_before;
        let row_changes = self.row_changes_since(before, None);
        self.record(Event {
            what: What::DirectSql {
                sql: sql.to_string(),
                changed,
            },
            row_changes,
            ..self.world_event()
        });
        self.unblock_all();
        Ok(changed)
    }

    /// Runs a read-only query against the world's committed state, binding
    /// `:name` parameters from `parameters`.
    pub fn query(&self, sql: &str, parameters: &Values) -> Result<ResultRows, Error> {
        self.anchor_sandbox.begin_statement();
        query_on(&self.anchor, &self.anchor_sandbox, sql, parameters).map_err(|f| f.into_error(sql))
    }

    /// Runs `f` on the anchor's connection as the engine itself, outside
    /// the sandbox: for the checker's own setup and bookkeeping (its temp
    /// tables), never for learner SQL.
    pub(crate) fn with_anchor_trusted<R>(&self, f: impl FnOnce(&Connection) -> R) -> R {
        let _trusted = self.anchor_sandbox.trusted();
        crate::sqlite::pin_randomness();
        f(&self.anchor)
    }

    /// Runs a read-only query against the committed state, or `None` when a
    /// process holds the write lock, so the committed rows cannot be read now.
    pub(crate) fn query_committed(&self, sql: &str) -> Result<Option<ResultRows>, Error> {
        self.anchor_sandbox.begin_statement();
        match query_on(&self.anchor, &self.anchor_sandbox, sql, &Values::new()) {
            Ok(rows) => Ok(Some(rows)),
            Err(QueryFailure::Locked) => Ok(None),
            Err(failure) => Err(failure.into_error(sql)),
        }
    }

    /// When the committed rows may last have changed: equal at two moments,
    /// a read-only query finds the same rows at both. `None` when a query
    /// could not read them now (a writer holds PENDING or more).
    pub(crate) fn stored(&self) -> Option<crate::vfs::Stored> {
        crate::vfs::stored(&self.stored_at.0, &self.stored_at.1)
    }

    /// Process `id`'s transaction as SQLite has it: whether one is open,
    /// and the lock it holds (none, shared, reserved, or pending after a
    /// COMMIT that met readers, as the database file's lock says). With the
    /// cache never spilled mid-transaction, these are all the locks a
    /// process holds between steps. `None` for a crashed or unknown process.
    pub fn transaction_mode(&self, id: ProcessId) -> Option<TransactionMode> {
        // A server's locks are its own: unknown here, so every step of a
        // server's world counts as changing them (footprint.rs).
        if self.server.is_some() {
            return None;
        }
        let connection = self.process(id).ok()?.connection.as_ref()?;
        let lock = match connection.transaction_state(None::<&str>).ok()? {
            rusqlite::TransactionState::None => Lock::None,
            rusqlite::TransactionState::Read => Lock::Shared,
            _ => match crate::vfs::main_file_lock(connection) {
                Some(crate::vfs::FileLock::Pending | crate::vfs::FileLock::Exclusive) => {
                    Lock::Pending
                }
                _ => Lock::Reserved,
            },
        };
        Some(TransactionMode {
            open: !connection.is_autocommit(),
            lock,
        })
    }

    /// What process `id`'s latest statement reads and writes, as SQLite's
    /// authorizer saw it; `None` when unknown.
    pub fn last_access(&self, id: ProcessId) -> Option<std::sync::Arc<crate::sandbox::Access>> {
        self.process(id).ok()?.sandbox.last_access()
    }

    /// Everything later steps can depend on, as bytes: the committed rows,
    /// the clock, the effects, and every process's position, scope, memory
    /// and transaction. `None` when a process holds the write lock, or in
    /// WAL mode has a read transaction open (the committed rows do not say
    /// what it sees then).
    pub fn fingerprint(&self) -> Option<Vec<u8>> {
        #[derive(Serialize)]
        struct ProcessKey<'a> {
            crashed: bool,
            blocked: bool,
            in_transaction: bool,
            call: Option<(&'a str, usize, &'a Values)>,
            memory: &'a Values,
        }
        #[derive(Serialize)]
        struct Key<'a> {
            clock: i64,
            tables: Vec<&'a TableRows>,
            effects: &'a [Effect],
            processes: Vec<ProcessKey<'a>>,
        }
        // The committed rows are all a process's transaction can depend on
        // only while it holds no write lock (its own writes are not in
        // them) and, in WAL mode, reads no older snapshot than the last
        // commit. Otherwise the state has no key, and it is never pruned.
        let stands_apart = self.processes.iter().any(|p| {
            let state = p
                .connection
                .as_ref()
                .and_then(|c| c.transaction_state(None::<&str>).ok());
            match state {
                Some(rusqlite::TransactionState::Read) => self.journal == Journal::Wal,
                Some(rusqlite::TransactionState::None) | None => false,
                Some(_) => true,
            }
        });
        // A server's sessions see what its own snapshots and locks say,
        // which the mirror does not hold: its states are never compared.
        if stands_apart || self.server.is_some() {
            return None;
        }
        let tables = self.committed_tables()?;
        let tables: Vec<&TableRows> = tables.iter().map(|t| t.as_ref()).collect();
        let processes = self
            .processes
            .iter()
            .map(|p| ProcessKey {
                crashed: p.connection.is_none(),
                blocked: p.blocked,
                in_transaction: p.connection.as_ref().is_some_and(|c| !c.is_autocommit()),
                call: p
                    .call
                    .as_ref()
                    .map(|c| (c.procedure.name.as_str(), c.next_step, &c.scope)),
                memory: &p.memory,
            })
            .collect();
        serde_json::to_vec(&Key {
            clock: self.clock_seconds,
            tables,
            effects: &self.effects,
            processes,
        })
        .ok()
    }

    /// Every exercise table as the committed state has it, read only where
    /// a connection has changed it since the rows were last put back; read
    /// while no process holds the write lock.
    pub(super) fn committed_tables(&self) -> Option<Vec<std::sync::Arc<TableRows>>> {
        let _trusted = self.anchor_sandbox.trusted();
        let changed = self.changes.changed_tables();
        self.seed.committed(&self.anchor, &changed).ok()
    }

    /// The rows of every exercise table, as the committed state has them.
    pub fn tables(&self) -> Result<Vec<TableRows>, Error> {
        self.snapshot(None)
            .map_err(|e| crate::error::sqlite("read the exercise's tables", e))
    }

    /// The rows of every exercise table as process `id` sees them, its own
    /// uncommitted writes included.
    pub fn tables_seen_by(&self, id: ProcessId) -> Result<Vec<TableRows>, Error> {
        self.connection(id)?;
        self.snapshot(Some(id))
            .map_err(|e| crate::error::sqlite("read the exercise's tables", e))
    }

    /// Every exercise table's columns with their declared types, upper-cased:
    /// what the column mutation operator needs to know of the schema.
    pub fn table_columns(&mut self) -> Result<Vec<TableColumns>, Error> {
        if let Some(server) = self.server.as_deref_mut() {
            return Ok(server.columns()?);
        }
        self.with_anchor_trusted(|anchor| {
            let names: Vec<String> = anchor
                .prepare(
                    "SELECT name FROM pragma_table_list \
                     WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
                     ORDER BY name",
                )?
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            names
                .into_iter()
                .map(|table| {
                    let columns = anchor
                        .prepare("SELECT name, upper(type) FROM pragma_table_info(?1) ORDER BY cid")?
                        .query_map([&table], |row| Ok((row.get(0)?, row.get(1)?)))?
                        .collect::<rusqlite::Result<_>>()?;
                    Ok(TableColumns { table, columns })
                })
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| crate::error::sqlite("read the exercise's columns", e))
    }
}
