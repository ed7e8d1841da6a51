//! Worlds, processes and stepping: the engine proper.
//!
//! A [`World`] is one in-memory SQLite database, built from an exercise's
//! schema and seed rows, that several processes share through SQLite's memdb
//! VFS. An anchor connection keeps the database alive while processes start,
//! crash and restart, and a private copy of the prepared image makes a reset
//! cheap (the backup API writes it back into the shared database, which every
//! connection then sees).
//!
//! An *actor* is a durable identity ("worker-a"); a *process* is one running
//! instance hosting an actor, with its own connection, its own call in
//! progress and its own memory of what its calls returned. Process ids come
//! from a per-world sequence (proc-1, proc-2, ...) and are never reused, so a
//! restarted actor is always told apart from its earlier instance.
//!
//! A call runs one step at a time. Whoever drives the world (a test, the
//! scenario checker, the page) chooses which process moves next, so any
//! interleaving can be produced and replayed. A step that meets another
//! process's lock does not run: the process is *blocked* on it and tries again
//! when next scheduled, after some other process has moved.
//!
//! Time is the fake clock, in integer seconds, which procedures read as
//! `:now`. The world never reads real time or real randomness.

use crate::error::Error;
use crate::history::{
    CallError, Effect, ErrorCause, Event, Outcome, ResultRows, RowChange, TableRows, Values, What,
};
use crate::procedure::{Action, Position, Procedure, Step, StepKind};
use crate::sandbox::Sandbox;
use crate::sqlite::{is_busy, open_shared};
use crate::value::Value;
use rusqlite::Connection;
use rusqlite::config::DbConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Rows one statement may return before the call fails.
pub const RESULT_ROWS_MAX: usize = 1_000;
/// Pages the shared database may grow to (1 KiB pages: 16 MiB).
const DATABASE_PAGES_MAX: u32 = 16_384;
/// Prepared statements each connection keeps.
const STATEMENT_CACHE_CAPACITY: usize = 64;
/// Parameters every procedure can use without passing them.
pub const BUILT_IN_PARAMETERS: [&str; 3] = ["now", "actor", "process"];

/// Names each world's shared database uniquely within this program.
static WORLDS_OPENED: AtomicU64 = AtomicU64::new(0);

/// A process's identity: `proc-N`, from the world's never-reused sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ProcessId(pub u32);

impl fmt::Display for ProcessId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "proc-{}", self.0)
    }
}

/// What one call to [`World::step`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepResult {
    /// The step ran and the call goes on.
    Ran,
    /// The step could not run: another process holds the lock.
    Blocked,
    /// The call ended, with this outcome.
    Finished(Outcome),
}

/// The parts of a world a driver may read between steps.
pub struct ProcessView<'a> {
    pub id: ProcessId,
    pub actor: &'a str,
    pub crashed: bool,
    pub blocked: bool,
    /// The procedure being called and the index of its next step.
    pub call: Option<(&'a str, usize)>,
    /// What the process's finished calls returned, latest value per name.
    pub memory: &'a Values,
    pub in_transaction: bool,
}

struct Process {
    id: ProcessId,
    actor: String,
    /// `None` once the process has crashed.
    connection: Option<Connection>,
    sandbox: Arc<Sandbox>,
    call: Option<Call>,
    memory: Values,
    /// Met a lock on its last attempt, and nothing has moved since.
    blocked: bool,
}

#[derive(Clone)]
struct Call {
    procedure: Arc<Procedure>,
    next_step: usize,
    /// The call's arguments and every column returned so far.
    scope: Values,
}

/// One exercise table, and how to read it in a stable order.
struct Table {
    name: String,
    columns: Vec<String>,
    key_len: usize,
    select_sql: String,
    /// Puts a row back on reset: the rowid too, unless a column already
    /// carries it (an INTEGER PRIMARY KEY) or the table has none.
    insert_sql: String,
    insert_with_key: bool,
    delete_sql: String,
}

pub struct World {
    name: String,
    anchor: Connection,
    anchor_sandbox: Arc<Sandbox>,
    /// Connections of processes that are gone, ready for new processes.
    idle: Vec<(Connection, Arc<Sandbox>)>,
    /// The rows the schema seeded, by table, and the AUTOINCREMENT counters:
    /// what a reset puts back.
    seed: Vec<TableRows>,
    /// `None` when no table uses AUTOINCREMENT.
    sequence_seed: Option<Vec<(String, i64)>>,
    /// The schema has triggers or foreign keys, which a reset must switch off.
    schema_has_guards: bool,
    tables: Vec<Table>,
    procedures: BTreeMap<String, Arc<Procedure>>,
    constants: Values,
    clock_seconds: i64,
    processes: Vec<Process>,
    effects: Vec<Effect>,
    history: Vec<Event>,
    recording: bool,
}

impl World {
    /// Builds a world: a fresh shared database with `schema_sql` (tables and
    /// seed rows) applied, and the procedures and constants calls may use.
    pub fn new(
        schema_sql: &str,
        procedures: impl IntoIterator<Item = Procedure>,
        constants: Values,
    ) -> Result<World, Error> {
        let number = WORLDS_OPENED.fetch_add(1, Ordering::Relaxed);
        let name = format!("fencelab-world-{number}");
        let (anchor, sandbox) = open_sandboxed(&name)
            .map_err(|e| Error::sqlite("open the world's in-memory database", e))?;
        sandbox.set_schema_changes_allowed(true);
        sandbox.begin_statement();
        anchor
            .execute_batch(schema_sql)
            .map_err(|e| Error::Schema {
                message: sandbox.explain_failure().unwrap_or_else(|| e.to_string()),
            })?;
        if !anchor.is_autocommit() {
            let _ = anchor.execute_batch("ROLLBACK");
            return Err(Error::Schema {
                message: "the schema left a transaction open".into(),
            });
        }
        // What the checker's processes believe and the effects so far, for
        // scenario queries and invariants. Temp tables live on the anchor's
        // connection alone: no process sees them.
        anchor
            .execute_batch(
                "CREATE TEMP TABLE beliefs (resource TEXT, process TEXT, actor TEXT, \
                 token, expires_at INTEGER); \
                 CREATE TEMP TABLE effects (name TEXT, process TEXT, actor TEXT, \
                 clock_seconds INTEGER, detail TEXT);",
            )
            .map_err(|e| Error::sqlite("create the beliefs table", e))?;
        sandbox.set_schema_changes_allowed(false);
        let tables =
            discover_tables(&anchor).map_err(|e| Error::sqlite("read the exercise's tables", e))?;
        let seed = snapshot_tables(&anchor, &tables)
            .map_err(|e| Error::sqlite("read the seed rows", e))?;
        let schema_has_guards = anchor
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'trigger') \
                 OR EXISTS (SELECT 1 FROM pragma_table_list AS t, pragma_foreign_key_list(t.name) \
                            WHERE t.schema = 'main')",
                [],
                |row| row.get(0),
            )
            .map_err(|e| Error::sqlite("read the exercise's schema", e))?;
        let sequence_seed = read_sequences(&anchor)
            .map_err(|e| Error::sqlite("read the AUTOINCREMENT counters", e))?;
        for name in constants.keys() {
            check_argument_name(name)?;
        }
        Ok(World {
            name,
            anchor,
            anchor_sandbox: sandbox,
            idle: Vec::new(),
            seed,
            sequence_seed,
            schema_has_guards,
            tables,
            procedures: procedures
                .into_iter()
                .map(|p| (p.name.clone(), Arc::new(p)))
                .collect(),
            constants,
            clock_seconds: 0,
            processes: Vec::new(),
            effects: Vec::new(),
            history: Vec::new(),
            recording: true,
        })
    }

    /// Whether steps record history (on by default). Exploration turns it
    /// off for speed and replays the schedule it reports with it on.
    pub fn set_recording(&mut self, recording: bool) {
        self.recording = recording;
    }

    pub fn recording(&self) -> bool {
        self.recording
    }

    /// Runs a read-only query as process `id` sees the world (its own
    /// uncommitted writes included), or as committed when `id` is `None` or
    /// has crashed.
    pub fn query_as(
        &self,
        id: Option<ProcessId>,
        sql: &str,
        parameters: &Values,
    ) -> Result<ResultRows, Error> {
        let (connection, sandbox) = self.connection_and_sandbox(id);
        sandbox.begin_statement();
        query_on(connection, sql, parameters).map_err(|f| f.into_error(sql))
    }

    /// Replaces (or adds) a procedure, as a learner's edit does.
    pub fn set_procedure(&mut self, procedure: Procedure) {
        self.procedures
            .insert(procedure.name.clone(), Arc::new(procedure));
    }

    pub fn procedure(&self, name: &str) -> Option<&Procedure> {
        self.procedures.get(name).map(|p| p.as_ref())
    }

    /// Returns the world to its prepared image: every process gone (the
    /// sequence starts again at proc-1), the clock at zero, no effects, no
    /// history.
    pub fn reset(&mut self) -> Result<(), Error> {
        for process in self.processes.drain(..) {
            if let Some(connection) = process.connection {
                release(&mut self.idle, connection, process.sandbox);
            }
        }
        self.restore_seed()
            .map_err(|e| Error::sqlite("put the seed rows back", e))?;
        self.clock_seconds = 0;
        self.effects.clear();
        self.history.clear();
        Ok(())
    }

    /// Puts the seed rows back with plain DML, as one transaction on the
    /// anchor. The schema is never touched, so no connection has to reload
    /// it or re-prepare its statements (a byte-for-byte copy of the image
    /// would make every connection do both, and that cost more than the run).
    /// Triggers and foreign keys are off meanwhile: the seed is put back as
    /// it was, not re-derived.
    fn restore_seed(&mut self) -> rusqlite::Result<()> {
        // Switching foreign keys or triggers off makes SQLite expire the
        // anchor's prepared statements, so only a schema that has them pays.
        let guarded = self.schema_has_guards;
        let sandbox = Arc::clone(&self.anchor_sandbox);
        let _trusted = sandbox.trusted();
        let anchor = &self.anchor;
        let result = (|| {
            if guarded {
                anchor.execute_batch("PRAGMA foreign_keys = OFF")?;
                anchor.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
            }
            anchor.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
            for (table, seed) in self.tables.iter().zip(&self.seed) {
                anchor.prepare_cached(&table.delete_sql)?.execute([])?;
                let mut insert = anchor.prepare_cached(&table.insert_sql)?;
                for row in &seed.rows {
                    let values = if table.insert_with_key {
                        &row[..]
                    } else {
                        &row[table.key_len.min(row.len())..]
                    };
                    insert.execute(rusqlite::params_from_iter(values))?;
                }
            }
            if let Some(sequence_seed) = &self.sequence_seed {
                anchor
                    .prepare_cached("DELETE FROM sqlite_sequence")?
                    .execute([])?;
                let mut insert = anchor
                    .prepare_cached("INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)")?;
                for (name, seq) in sequence_seed {
                    insert.execute(rusqlite::params![name, seq])?;
                }
            }
            anchor.prepare_cached("COMMIT")?.execute([]).map(|_| ())
        })();
        if !anchor.is_autocommit() {
            let _ = anchor.execute_batch("ROLLBACK");
        }
        let restored = if guarded {
            anchor
                .set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, true)
                .and_then(|_| anchor.execute_batch("PRAGMA foreign_keys = ON"))
        } else {
            Ok(())
        };
        result.and(restored)
    }

    pub fn clock_seconds(&self) -> i64 {
        self.clock_seconds
    }

    /// Moves the fake clock. It may move backwards: a scenario may replay a
    /// bad recovery.
    pub fn set_clock(&mut self, seconds: i64) {
        let from = self.clock_seconds;
        self.clock_seconds = seconds;
        self.record(Event {
            what: What::ClockSet {
                from_seconds: from,
                to_seconds: seconds,
            },
            ..self.world_event()
        });
    }

    pub fn advance_clock(&mut self, seconds: i64) {
        self.set_clock(self.clock_seconds.saturating_add(seconds));
    }

    /// Starts a new process hosting `actor`, with its own connection.
    pub fn start_process(&mut self, actor: &str) -> Result<ProcessId, Error> {
        let id = ProcessId(u32::try_from(self.processes.len() + 1).unwrap_or(u32::MAX));
        // A connection left by an earlier process is as good as a new one (no
        // transaction, no state a procedure can read), and it keeps its
        // prepared statements: opening one costs far more than a step.
        let (connection, sandbox) = match self.idle.pop() {
            Some(idle) => idle,
            None => open_sandboxed(&self.name)
                .map_err(|e| Error::sqlite("open a process's connection", e))?,
        };
        self.processes.push(Process {
            id,
            actor: actor.to_string(),
            connection: Some(connection),
            sandbox,
            call: None,
            memory: Values::new(),
            blocked: false,
        });
        let event = self.process_event(id, What::ProcessStarted);
        self.record(event);
        Ok(id)
    }

    /// Crashes a process: its connection closes (an open transaction rolls
    /// back), its call and memory are gone, and it can never move again.
    pub fn crash(&mut self, id: ProcessId) -> Result<(), Error> {
        let process = self.process_mut(id)?;
        let connection = process.connection.take();
        let sandbox = Arc::clone(&process.sandbox);
        process.call = None;
        let rolled_back = connection.as_ref().is_some_and(|c| !c.is_autocommit());
        if let Some(connection) = connection {
            release(&mut self.idle, connection, sandbox);
        }
        let event = self.process_event(id, What::ProcessCrashed { rolled_back });
        self.record(event);
        self.unblock_all();
        Ok(())
    }

    /// Begins a call of `procedure` by process `id`. Nothing runs until the
    /// process is stepped.
    pub fn call(&mut self, id: ProcessId, procedure: &str, arguments: Values) -> Result<(), Error> {
        for name in arguments.keys() {
            check_argument_name(name)?;
        }
        let procedure =
            self.procedures
                .get(procedure)
                .cloned()
                .ok_or_else(|| Error::UnknownProcedure {
                    name: procedure.to_string(),
                })?;
        let process = self.process_mut(id)?;
        if process.connection.is_none() {
            return Err(Error::ProcessCrashed { id: id.to_string() });
        }
        if let Some(call) = &process.call {
            return Err(Error::ProcessBusy {
                id: id.to_string(),
                procedure: call.procedure.name.clone(),
            });
        }
        process.call = Some(Call {
            procedure: Arc::clone(&procedure),
            next_step: 0,
            scope: arguments.clone(),
        });
        process.blocked = false;
        let mut event = self.process_event(id, What::CallStarted { arguments });
        event.procedure = Some(procedure.name.clone());
        self.record(event);
        Ok(())
    }

    /// Runs the next step of process `id`'s call.
    pub fn step(&mut self, id: ProcessId) -> Result<StepResult, Error> {
        let process = self.process(id)?;
        if process.connection.is_none() {
            return Err(Error::ProcessCrashed { id: id.to_string() });
        }
        let call = process
            .call
            .clone()
            .ok_or_else(|| Error::NoCallInProgress { id: id.to_string() })?;
        let Some(step) = call.procedure.steps.get(call.next_step) else {
            return Ok(StepResult::Finished(self.finish(id, ok(Values::new()))));
        };
        let result = match &step.kind {
            StepKind::Effect { name, values } => self.run_effect(id, &call, step, name, values),
            StepKind::Sql { sql, .. } => self.run_statement(id, &call, step, sql)?,
        };
        // Locks are only ever released when a transaction ends: a process
        // still inside its transaction holds at least what it held before, so
        // whoever it blocked would only block again.
        let released = self
            .processes
            .get(index(id))
            .and_then(|p| p.connection.as_ref())
            .is_some_and(Connection::is_autocommit);
        if result != StepResult::Blocked && released {
            self.unblock_all();
        }
        Ok(result)
    }

    /// Steps process `id` until its call ends. Fails with [`Error::Blocked`]
    /// if it meets a lock, since no other process moves meanwhile.
    pub fn finish_call(&mut self, id: ProcessId) -> Result<Outcome, Error> {
        loop {
            match self.step(id)? {
                StepResult::Ran => {}
                StepResult::Finished(outcome) => return Ok(outcome),
                StepResult::Blocked => {
                    let sql = self.next_sql(id).unwrap_or_default();
                    return Err(Error::Blocked {
                        id: id.to_string(),
                        sql,
                    });
                }
            }
        }
    }

    /// Begins a call and runs it to its end.
    pub fn run_call(
        &mut self,
        id: ProcessId,
        procedure: &str,
        arguments: Values,
    ) -> Result<Outcome, Error> {
        self.call(id, procedure, arguments)?;
        self.finish_call(id)
    }

    /// The processes that can move now: inside a call, not crashed, and not
    /// blocked on a lock that has not been released since they met it.
    pub fn movable(&self) -> Vec<ProcessId> {
        self.processes
            .iter()
            .filter(|p| p.connection.is_some() && p.call.is_some() && !p.blocked)
            .map(|p| p.id)
            .collect()
    }

    /// The processes inside a call, movable or blocked.
    pub fn in_call(&self) -> Vec<ProcessId> {
        self.processes
            .iter()
            .filter(|p| p.connection.is_some() && p.call.is_some())
            .map(|p| p.id)
            .collect()
    }

    /// The step process `id` will run next, if it is inside a call.
    pub fn next_step(&self, id: ProcessId) -> Option<&Step> {
        let call = self.process(id).ok()?.call.as_ref()?;
        call.procedure.steps.get(call.next_step)
    }

    fn next_sql(&self, id: ProcessId) -> Option<String> {
        match &self.next_step(id)?.kind {
            StepKind::Sql { sql, .. } => Some(sql.clone()),
            StepKind::Effect { name, .. } => Some(format!("@effect {name}")),
        }
    }

    pub fn processes(&self) -> impl Iterator<Item = ProcessView<'_>> {
        self.processes.iter().map(|p| ProcessView {
            id: p.id,
            actor: &p.actor,
            crashed: p.connection.is_none(),
            blocked: p.blocked,
            call: p
                .call
                .as_ref()
                .map(|c| (c.procedure.name.as_str(), c.next_step)),
            memory: &p.memory,
            in_transaction: p.connection.as_ref().is_some_and(|c| !c.is_autocommit()),
        })
    }

    pub fn process_view(&self, id: ProcessId) -> Result<ProcessView<'_>, Error> {
        self.processes()
            .find(|p| p.id == id)
            .ok_or_else(|| Error::UnknownProcess { id: id.to_string() })
    }

    pub fn effects(&self) -> &[Effect] {
        &self.effects
    }

    pub fn history(&self) -> &[Event] {
        &self.history
    }

    pub fn take_history(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.history)
    }

    /// Runs SQL directly against the world, bypassing every procedure: the
    /// kind of write no fence can see. Returns the rows it changed.
    pub fn execute_direct(&mut self, sql: &str) -> Result<u64, Error> {
        let before = self.snapshot_if_recording(None);
        self.anchor_sandbox.begin_statement();
        let total_before = self.anchor.total_changes();
        self.anchor.execute_batch(sql).map_err(|e| Error::Query {
            sql: sql.to_string(),
            message: if is_busy(&e) {
                "a process's open transaction holds the database lock".into()
            } else {
                e.to_string()
            },
        })?;
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
        query_on(&self.anchor, sql, parameters).map_err(|f| f.into_error(sql))
    }

    /// Runs a read-only query that may also read two tables of the run
    /// itself: `beliefs` (resource, process, actor, token, expires_at), what
    /// each process believes it holds, and `effects` (name, process, actor,
    /// clock_seconds, detail as JSON), every external effect so far. `None`
    /// when a process holds the write lock, so the committed state cannot be
    /// read now.
    pub fn query_in_context(
        &self,
        sql: &str,
        beliefs: &[crate::monitor::Belief],
    ) -> Result<Option<ResultRows>, Error> {
        let load = |anchor: &Connection| -> rusqlite::Result<()> {
            anchor
                .prepare_cached("DELETE FROM temp.beliefs")?
                .execute([])?;
            let mut insert =
                anchor.prepare_cached("INSERT INTO temp.beliefs VALUES (?1, ?2, ?3, ?4, ?5)")?;
            for belief in beliefs {
                insert.execute(rusqlite::params![
                    belief.resource,
                    belief.process,
                    belief.actor,
                    belief.token.clone().unwrap_or(Value::Null),
                    belief.expires_at,
                ])?;
            }
            anchor
                .prepare_cached("DELETE FROM temp.effects")?
                .execute([])?;
            let mut insert =
                anchor.prepare_cached("INSERT INTO temp.effects VALUES (?1, ?2, ?3, ?4, ?5)")?;
            for effect in &self.effects {
                let detail = serde_json::to_string(&effect.values).unwrap_or_default();
                insert.execute(rusqlite::params![
                    effect.name,
                    effect.process,
                    effect.actor,
                    effect.clock_seconds,
                    detail,
                ])?;
            }
            Ok(())
        };
        {
            let _trusted = self.anchor_sandbox.trusted();
            load(&self.anchor)
                .map_err(|e| Error::sqlite("load the beliefs and effects tables", e))?;
        }
        self.anchor_sandbox.begin_statement();
        match query_on(&self.anchor, sql, &Values::new()) {
            Ok(rows) => Ok(Some(rows)),
            Err(QueryFailure::Locked) => Ok(None),
            Err(failure) => Err(failure.into_error(sql)),
        }
    }

    /// Everything later steps can depend on, as bytes: the committed rows,
    /// the clock, the effects, and every process's position, scope, memory
    /// and transaction. `None` when a process holds the write lock (the
    /// committed rows cannot be read then).
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
            tables: Vec<TableRows>,
            effects: &'a [Effect],
            processes: Vec<ProcessKey<'a>>,
        }
        let tables = self.snapshot(None).ok()?;
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

    /// The rows of every exercise table, as the committed state has them.
    pub fn tables(&self) -> Result<Vec<TableRows>, Error> {
        self.snapshot(None)
            .map_err(|e| Error::sqlite("read the exercise's tables", e))
    }

    /// The rows of every exercise table as process `id` sees them, its own
    /// uncommitted writes included.
    pub fn tables_seen_by(&self, id: ProcessId) -> Result<Vec<TableRows>, Error> {
        self.connection(id)?;
        self.snapshot(Some(id))
            .map_err(|e| Error::sqlite("read the exercise's tables", e))
    }

    // ----- stepping -----

    fn run_effect(
        &mut self,
        id: ProcessId,
        call: &Call,
        step: &Step,
        name: &str,
        names: &[String],
    ) -> StepResult {
        let values = match self.resolve(id, call, names) {
            Ok(values) => values,
            Err(missing) => {
                let error = call_error(
                    call,
                    ErrorCause::MissingValue,
                    format!("@effect {name} names `{missing}`, which has no value in this call"),
                    Some(step.position),
                );
                return StepResult::Finished(self.finish(id, Outcome::Error(error)));
            }
        };
        let process = &self.processes[index(id)];
        self.effects.push(Effect {
            name: name.to_string(),
            process: id.to_string(),
            actor: process.actor.clone(),
            values: values.clone(),
            clock_seconds: self.clock_seconds,
        });
        let event = self.step_event(
            id,
            call,
            step,
            What::Effect {
                name: name.to_string(),
                values,
            },
        );
        self.record(event);
        self.advance(id, call)
    }

    fn run_statement(
        &mut self,
        id: ProcessId,
        call: &Call,
        step: &Step,
        sql: &str,
    ) -> Result<StepResult, Error> {
        let before = if self.recording {
            match self.snapshot(Some(id)) {
                Ok(tables) => Some(tables),
                Err(e) if is_busy(&e) => return Ok(self.blocked(id, call, step, sql)),
                Err(e) => return Err(Error::sqlite("read the exercise's tables", e)),
            }
        } else {
            None
        };
        let process = &self.processes[index(id)];
        let connection = process.connection.as_ref().expect("checked by step()");
        let executed = execute(connection, &process.sandbox, sql, |name| {
            self.lookup(process, call, name)
        });
        let executed = match executed {
            Ok(executed) => executed,
            Err(failure) if failure.busy => return Ok(self.blocked(id, call, step, sql)),
            Err(failure) => {
                let position = failure
                    .offset
                    .map(|offset| {
                        crate::procedure::position_at(&call.procedure.source, step.offset + offset)
                    })
                    .or(Some(step.position));
                let error = call_error(call, failure.cause, failure.message, position);
                return Ok(StepResult::Finished(self.finish(id, Outcome::Error(error))));
            }
        };

        let row_changes = self.row_changes_since(before, Some(id));
        let mut call = call.clone();
        if let Some(first) = executed.rows.rows.first() {
            for (column, value) in executed.rows.columns.iter().zip(first) {
                call.scope.insert(column.clone(), value.clone());
            }
        }
        let returned = executed.rows.rows.len() as u64;
        let changed = executed.changed;
        let mut event = self.step_event(
            id,
            &call,
            step,
            What::Statement {
                sql: sql.to_string(),
                parameters: executed.parameters,
                changed,
                returned: executed.rows,
            },
        );
        event.row_changes = row_changes;
        self.record(event);

        for decision in &step.decisions {
            if !decision
                .condition
                .is_none_or(|c| c.holds(changed, returned))
            {
                continue;
            }
            let outcome = match &decision.action {
                Action::Refuse { category, reason } => Outcome::Refused {
                    category: category.clone(),
                    reason: interpolate(reason, &call.scope),
                },
                Action::Return { names } => match self.resolve(id, &call, names) {
                    Ok(values) => ok(values),
                    Err(missing) => Outcome::Error(call_error(
                        &call,
                        ErrorCause::MissingValue,
                        format!("@return names `{missing}`, which has no value in this call"),
                        Some(decision.position),
                    )),
                },
            };
            return Ok(StepResult::Finished(self.finish(id, outcome)));
        }
        Ok(self.advance(id, &call))
    }

    fn blocked(&mut self, id: ProcessId, call: &Call, step: &Step, sql: &str) -> StepResult {
        self.processes[index(id)].blocked = true;
        let event = self.step_event(
            id,
            call,
            step,
            What::Blocked {
                sql: sql.to_string(),
            },
        );
        self.record(event);
        StepResult::Blocked
    }

    /// Moves the call past the step just run, finishing it after its last.
    fn advance(&mut self, id: ProcessId, call: &Call) -> StepResult {
        let mut call = call.clone();
        call.next_step += 1;
        let done = call.next_step >= call.procedure.steps.len();
        self.processes[index(id)].call = Some(call);
        if done {
            StepResult::Finished(self.finish(id, ok(Values::new())))
        } else {
            StepResult::Ran
        }
    }

    /// Ends process `id`'s call with `outcome`, rolling back a transaction
    /// the call left open. A call that would have succeeded with its
    /// transaction still open is an error: its writes were never committed.
    fn finish(&mut self, id: ProcessId, outcome: Outcome) -> Outcome {
        let process = &mut self.processes[index(id)];
        let call = process.call.take();
        let procedure = call
            .as_ref()
            .map(|c| c.procedure.name.clone())
            .unwrap_or_default();
        let before = self.snapshot_if_recording(Some(id));
        let process = &mut self.processes[index(id)];
        let open = process
            .connection
            .as_ref()
            .is_some_and(|c| !c.is_autocommit());
        let mut outcome = outcome;
        if open {
            if let Some(connection) = &process.connection {
                let _ = connection.execute_batch("ROLLBACK");
            }
            if matches!(outcome, Outcome::Ok { .. }) {
                outcome = Outcome::Error(CallError {
                    cause: ErrorCause::TransactionLeftOpen,
                    message: format!(
                        "{procedure} ended inside its transaction (is a COMMIT missing?); \
                         the transaction was rolled back"
                    ),
                    procedure: procedure.clone(),
                    position: None,
                });
            }
        }
        if let Outcome::Ok { values } = &outcome {
            process
                .memory
                .extend(values.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let row_changes = if open {
            self.row_changes_since(before, Some(id))
        } else {
            Vec::new()
        };
        let mut event = self.process_event(
            id,
            What::CallFinished {
                outcome: outcome.clone(),
                rolled_back: open,
            },
        );
        event.procedure = Some(procedure);
        event.row_changes = row_changes;
        self.record(event);
        outcome
    }

    /// The value of `:name` for a statement of `call`: the built-ins first,
    /// then the call's arguments and returned columns, then the constants.
    fn lookup(&self, process: &Process, call: &Call, name: &str) -> Option<Value> {
        match name {
            "now" => Some(Value::Integer(self.clock_seconds)),
            "actor" => Some(Value::Text(process.actor.clone())),
            "process" => Some(Value::Text(process.id.to_string())),
            _ => call
                .scope
                .get(name)
                .or_else(|| self.constants.get(name))
                .cloned(),
        }
    }

    /// The named values, or the first name without one.
    fn resolve(&self, id: ProcessId, call: &Call, names: &[String]) -> Result<Values, String> {
        let process = &self.processes[index(id)];
        names
            .iter()
            .map(|name| match self.lookup(process, call, name) {
                Some(value) => Ok((name.clone(), value)),
                None => Err(name.clone()),
            })
            .collect()
    }

    fn unblock_all(&mut self) {
        for process in &mut self.processes {
            process.blocked = false;
        }
    }

    // ----- history -----

    fn record(&mut self, event: Event) {
        if self.recording {
            self.history.push(event);
        }
    }

    fn world_event(&self) -> Event {
        Event {
            clock_seconds: self.clock_seconds,
            process: None,
            actor: None,
            procedure: None,
            step: None,
            position: None,
            what: What::ProcessStarted,
            row_changes: Vec::new(),
        }
    }

    fn process_event(&self, id: ProcessId, what: What) -> Event {
        let actor = self.processes.get(index(id)).map(|p| p.actor.clone());
        Event {
            process: Some(id.to_string()),
            actor,
            what,
            ..self.world_event()
        }
    }

    fn step_event(&self, id: ProcessId, call: &Call, step: &Step, what: What) -> Event {
        Event {
            procedure: Some(call.procedure.name.clone()),
            step: Some(call.next_step),
            position: Some(step.position),
            ..self.process_event(id, what)
        }
    }

    fn snapshot_if_recording(&self, id: Option<ProcessId>) -> Option<Vec<TableRows>> {
        if !self.recording {
            return None;
        }
        self.snapshot(id).ok()
    }

    /// The rows that differ between `before` and now, as `id` (or the anchor)
    /// sees them.
    fn row_changes_since(
        &self,
        before: Option<Vec<TableRows>>,
        id: Option<ProcessId>,
    ) -> Vec<RowChange> {
        match (before, self.snapshot_if_recording(id)) {
            (Some(before), Some(after)) => diff_tables(&before, &after),
            _ => Vec::new(),
        }
    }

    // ----- lookups -----

    fn process(&self, id: ProcessId) -> Result<&Process, Error> {
        self.processes
            .get(index(id))
            .ok_or_else(|| Error::UnknownProcess { id: id.to_string() })
    }

    fn process_mut(&mut self, id: ProcessId) -> Result<&mut Process, Error> {
        self.processes
            .get_mut(index(id))
            .ok_or_else(|| Error::UnknownProcess { id: id.to_string() })
    }

    /// The connection and sandbox of process `id`, or the anchor's for `None`
    /// (or a crashed process).
    fn connection_and_sandbox(&self, id: Option<ProcessId>) -> (&Connection, &Sandbox) {
        id.and_then(|id| self.process(id).ok())
            .and_then(|p| p.connection.as_ref().map(|c| (c, p.sandbox.as_ref())))
            .unwrap_or((&self.anchor, self.anchor_sandbox.as_ref()))
    }

    /// The exercise's tables as process `id` (or the anchor) sees them. The
    /// engine's own reads are trusted: outside the authorizer and the step
    /// budget, which are for learner SQL.
    fn snapshot(&self, id: Option<ProcessId>) -> rusqlite::Result<Vec<TableRows>> {
        let (connection, sandbox) = self.connection_and_sandbox(id);
        let _trusted = sandbox.trusted();
        snapshot_tables(connection, &self.tables)
    }

    fn connection(&self, id: ProcessId) -> Result<&Connection, Error> {
        self.process(id)?
            .connection
            .as_ref()
            .ok_or_else(|| Error::ProcessCrashed { id: id.to_string() })
    }

    /// Finds a process by its id as text (`proc-3`).
    pub fn process_id(&self, text: &str) -> Option<ProcessId> {
        self.processes
            .iter()
            .map(|p| p.id)
            .find(|id| id.to_string() == text)
    }
}

fn index(id: ProcessId) -> usize {
    (id.0 as usize).wrapping_sub(1)
}

fn ok(values: Values) -> Outcome {
    Outcome::Ok { values }
}

fn call_error(
    call: &Call,
    cause: ErrorCause,
    message: String,
    position: Option<Position>,
) -> CallError {
    CallError {
        cause,
        message,
        procedure: call.procedure.name.clone(),
        position,
    }
}

fn check_argument_name(name: &str) -> Result<(), Error> {
    if BUILT_IN_PARAMETERS.contains(&name) {
        return Err(Error::BadArgument {
            name: name.to_string(),
            message: format!(
                ":{name} is built in (the fake clock, the process's actor and its id) \
                 and cannot be passed"
            ),
        });
    }
    Ok(())
}

/// `{name}` in a refusal reason becomes the value of `name` in the call.
fn interpolate(reason: &str, scope: &Values) -> String {
    let mut out = reason.to_string();
    for (name, value) in scope {
        let pattern = format!("{{{name}}}");
        if out.contains(&pattern) {
            let shown = match value {
                Value::Text(text) => text.clone(),
                other => other.to_string(),
            };
            out = out.replace(&pattern, &shown);
        }
    }
    out
}

/// Returns a gone process's connection to the idle pool, rolling back what
/// it left open, as closing it would have. One that cannot be rolled back is
/// closed instead.
fn release(
    idle: &mut Vec<(Connection, Arc<Sandbox>)>,
    connection: Connection,
    sandbox: Arc<Sandbox>,
) {
    if !connection.is_autocommit() && connection.execute_batch("ROLLBACK").is_err() {
        return;
    }
    idle.push((connection, sandbox));
}

fn open_sandboxed(name: &str) -> rusqlite::Result<(Connection, Arc<Sandbox>)> {
    let mut connection = open_shared(name)?;
    connection.pragma_update(None, "max_page_count", DATABASE_PAGES_MAX)?;
    connection.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
    let sandbox = Sandbox::install(&mut connection)?;
    Ok((connection, sandbox))
}

// ----- statements -----

struct Executed {
    parameters: Values,
    changed: u64,
    rows: ResultRows,
}

struct Failure {
    busy: bool,
    cause: ErrorCause,
    message: String,
    /// Byte offset of the error in the statement, when SQLite gives one.
    offset: Option<usize>,
}

impl Failure {
    fn new(cause: ErrorCause, message: String) -> Failure {
        Failure {
            busy: false,
            cause,
            message,
            offset: None,
        }
    }

    fn from_sqlite(error: rusqlite::Error, sandbox: &Sandbox) -> Failure {
        if is_busy(&error) {
            return Failure {
                busy: true,
                ..Failure::new(ErrorCause::Sql, error.to_string())
            };
        }
        if let Some(explained) = sandbox.explain_failure() {
            let cause = if explained.starts_with("step budget") {
                ErrorCause::StepBudget
            } else {
                ErrorCause::Denied
            };
            return Failure::new(cause, explained);
        }
        let offset = match &error {
            rusqlite::Error::SqlInputError { offset, .. } => usize::try_from(*offset).ok(),
            _ => None,
        };
        let message = match &error {
            rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
            rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
            other => other.to_string(),
        };
        Failure {
            offset,
            ..Failure::new(ErrorCause::Sql, message)
        }
    }
}

/// Prepares, binds and runs one statement to completion on `connection`.
fn execute(
    connection: &Connection,
    sandbox: &Sandbox,
    sql: &str,
    lookup: impl Fn(&str) -> Option<Value>,
) -> Result<Executed, Failure> {
    sandbox.begin_statement();
    let mut statement = connection
        .prepare_cached(sql)
        .map_err(|e| Failure::from_sqlite(e, sandbox))?;
    let mut parameters = Values::new();
    for i in 1..=statement.parameter_count() {
        let Some(raw) = statement.parameter_name(i) else {
            return Err(Failure::new(
                ErrorCause::Sql,
                "use named parameters such as :token, not `?`".into(),
            ));
        };
        let Some(name) = raw.strip_prefix(':').map(str::to_string) else {
            return Err(Failure::new(
                ErrorCause::Sql,
                format!("write parameters with a colon, as in :{}", &raw[1..]),
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
            .raw_bind_parameter(i, &value)
            .map_err(|e| Failure::from_sqlite(e, sandbox))?;
        parameters.insert(name, value);
    }
    let read_only = statement.readonly();
    let rows = read_rows(&mut statement).map_err(|e| match e {
        RowsError::Sqlite(e) => Failure::from_sqlite(e, sandbox),
        RowsError::TooMany => Failure::new(
            ErrorCause::TooLarge,
            format!("the statement returned more than {RESULT_ROWS_MAX} rows"),
        ),
    })?;
    // The statement's own count: only a statement that writes sets it, so a
    // read never reports a count left over from an earlier write.
    let changed = if read_only { 0 } else { connection.changes() };
    Ok(Executed {
        parameters,
        changed,
        rows,
    })
}

/// Why a read-only query returned nothing.
enum QueryFailure {
    /// A process's open transaction holds the write lock.
    Locked,
    Failed(String),
}

impl QueryFailure {
    fn from_sqlite(error: rusqlite::Error) -> QueryFailure {
        if is_busy(&error) {
            QueryFailure::Locked
        } else {
            QueryFailure::Failed(error.to_string())
        }
    }

    fn into_error(self, sql: &str) -> Error {
        Error::Query {
            sql: sql.to_string(),
            message: match self {
                QueryFailure::Locked => {
                    "a process's open transaction holds the database lock".into()
                }
                QueryFailure::Failed(message) => message,
            },
        }
    }
}

fn query_on(
    connection: &Connection,
    sql: &str,
    parameters: &Values,
) -> Result<ResultRows, QueryFailure> {
    let fail = QueryFailure::Failed;
    let mut statement = connection.prepare(sql).map_err(QueryFailure::from_sqlite)?;
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
            .raw_bind_parameter(i, value)
            .map_err(QueryFailure::from_sqlite)?;
    }
    read_rows(&mut statement).map_err(|e| match e {
        RowsError::Sqlite(e) => QueryFailure::from_sqlite(e),
        RowsError::TooMany => fail(format!(
            "the query returned more than {RESULT_ROWS_MAX} rows"
        )),
    })
}

enum RowsError {
    Sqlite(rusqlite::Error),
    TooMany,
}

/// Runs a bound statement to completion and keeps what it returned, up to
/// [`RESULT_ROWS_MAX`] rows.
fn read_rows(statement: &mut rusqlite::Statement<'_>) -> Result<ResultRows, RowsError> {
    let columns: Vec<String> = statement.column_names().map(String::from).collect();
    let mut rows = Vec::new();
    let mut cursor = statement.raw_query();
    while let Some(row) = cursor.next().map_err(RowsError::Sqlite)? {
        if rows.len() == RESULT_ROWS_MAX {
            return Err(RowsError::TooMany);
        }
        let values = (0..columns.len())
            .map(|i| row.get_ref(i).map(Value::from_ref))
            .collect::<Result<Vec<_>, _>>()
            .map_err(RowsError::Sqlite)?;
        rows.push(values);
    }
    Ok(ResultRows { columns, rows })
}

// ----- tables -----

fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn discover_tables(connection: &Connection) -> rusqlite::Result<Vec<Table>> {
    let names: Vec<(String, bool)> = connection
        .prepare(
            "SELECT name, wr FROM pragma_table_list \
             WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
             ORDER BY name",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get::<_, i64>(1)? != 0)))?
        .collect::<Result<_, _>>()?;
    let mut tables = Vec::new();
    for (name, without_rowid) in names {
        let mut columns = Vec::new();
        let mut primary_key = Vec::new();
        let mut integer_key = false;
        let mut info = connection.prepare(
            "SELECT name, pk, upper(type) = 'INTEGER' FROM pragma_table_info(?1) ORDER BY cid",
        )?;
        let mut rows = info.query([&name])?;
        while let Some(row) = rows.next()? {
            let column: String = row.get(0)?;
            let pk: i64 = row.get(1)?;
            if pk > 0 {
                primary_key.push((pk, column.clone()));
                integer_key = row.get(2)?;
            }
            columns.push(column);
        }
        primary_key.sort();
        // An INTEGER PRIMARY KEY column is the rowid under another name.
        let rowid_alias = !without_rowid && primary_key.len() == 1 && integer_key;
        let key: Vec<String> = if without_rowid {
            primary_key
                .into_iter()
                .map(|(_, c)| quote_identifier(&c))
                .collect()
        } else {
            vec!["rowid".to_string()]
        };
        let quoted: Vec<String> = columns.iter().map(|c| quote_identifier(c)).collect();
        let table = quote_identifier(&name);
        let select_sql = format!(
            "SELECT {keys}, {columns} FROM {table} ORDER BY {keys}",
            keys = key.join(", "),
            columns = quoted.join(", "),
        );
        let insert_with_key = !without_rowid && !rowid_alias;
        let targets: Vec<String> = if insert_with_key {
            std::iter::once("rowid".to_string()).chain(quoted).collect()
        } else {
            quoted
        };
        let insert_sql = format!(
            "INSERT INTO {table} ({}) VALUES ({})",
            targets.join(", "),
            (1..=targets.len())
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        tables.push(Table {
            name,
            columns,
            key_len: key.len(),
            select_sql,
            insert_sql,
            insert_with_key,
            delete_sql: format!("DELETE FROM {table}"),
        });
    }
    Ok(tables)
}

/// The AUTOINCREMENT counters, if the schema has any.
fn read_sequences(connection: &Connection) -> rusqlite::Result<Option<Vec<(String, i64)>>> {
    let exists: bool = connection.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'sqlite_sequence'",
        [],
        |row| row.get(0),
    )?;
    if !exists {
        return Ok(None);
    }
    connection
        .prepare("SELECT name, seq FROM sqlite_sequence ORDER BY name")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()
        .map(Some)
}

fn snapshot_tables(connection: &Connection, tables: &[Table]) -> rusqlite::Result<Vec<TableRows>> {
    tables
        .iter()
        .map(|table| {
            let mut statement = connection.prepare_cached(&table.select_sql)?;
            let width = table.key_len + table.columns.len();
            let rows = statement
                .query_map([], |row| {
                    (0..width)
                        .map(|i| row.get_ref(i).map(Value::from_ref))
                        .collect::<Result<Vec<_>, _>>()
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(TableRows {
                table: table.name.clone(),
                columns: table.columns.clone(),
                rows,
                key_len: table.key_len,
            })
        })
        .collect()
}

/// The rows that differ between two snapshots of the same tables, in table
/// and key order.
pub fn diff_tables(before: &[TableRows], after: &[TableRows]) -> Vec<RowChange> {
    let mut changes = Vec::new();
    for (old, new) in before.iter().zip(after) {
        let split = |rows: &[Vec<Value>]| -> BTreeMap<Vec<Value>, Vec<Value>> {
            rows.iter()
                .map(|row| {
                    let (key, rest) = row.split_at(old.key_len.min(row.len()));
                    (key.to_vec(), rest.to_vec())
                })
                .collect()
        };
        let old_rows = split(&old.rows);
        let new_rows = split(&new.rows);
        let mut keys: Vec<&Vec<Value>> = old_rows.keys().chain(new_rows.keys()).collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            let (b, a) = (old_rows.get(key), new_rows.get(key));
            if b != a {
                changes.push(RowChange {
                    table: old.table.clone(),
                    key: key.clone(),
                    before: b.cloned(),
                    after: a.cloned(),
                });
            }
        }
    }
    changes
}
