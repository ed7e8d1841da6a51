//! Worlds, processes and stepping: the engine proper.
//!
//! A [`World`] is one in-memory SQLite database, built from an exercise's
//! schema and seed rows, that several processes share through the engine's
//! in-memory VFS (`vfs.rs`), which locks as a database file does. An anchor connection keeps the database alive while processes start,
//! crash and restart, and the seed rows, kept aside, are put back on reset
//! through a connection of the world's own (see seed.rs), which every
//! connection then sees.
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

mod changes;
mod image;
mod read;
mod record;
mod seed;
mod served;
mod statement;
mod step;

pub use image::Image;
#[cfg(test)]
pub(crate) use read::Lock;
pub(crate) use read::TransactionMode;
pub use record::Recorder;

use changes::ChangeLog;
use record::Rows;
use seed::SeedImage;
use served::InFlight;
use statement::query_on;
use step::ok;

use crate::error::Error;
use crate::history::{Effect, Event, Outcome, ResultRows, TableRows, Values, What};
use crate::procedure::{Procedure, Step, StepKind};
use crate::sandbox::{Meter, Sandbox};
use crate::sqlite::{open_shared, set_journal};
use fencelab_model::exercise::Journal;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Rows one statement may return before the call fails.
pub const RESULT_ROWS_MAX: usize = 1_000;
/// Bytes of values one statement may return before the call fails (a
/// number or NULL counts eight).
pub const RESULT_BYTES_MAX: usize = 1024 * 1024;
/// Pages the shared database may grow to (1 KiB pages: 16 MiB).
pub(crate) const DATABASE_PAGES_MAX: u32 = 16_384;
/// Prepared statements each connection keeps.
const STATEMENT_CACHE_CAPACITY: usize = 64;
/// Parameters every procedure can use without passing them.
pub use crate::procedure::BUILT_IN_PARAMETERS;

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
    /// The rows its open transaction wrote, as it last saw them: what a
    /// rollback may put back (see record.rs).
    written: Rows,
    /// On a server's world, the statement sent and not yet recorded as
    /// finished (served.rs).
    in_flight: InFlight,
}

#[derive(Clone)]
struct Call {
    procedure: Arc<Procedure>,
    next_step: usize,
    /// The call's arguments and every column returned so far.
    scope: Values,
}

pub struct World {
    name: String,
    /// The names of the database's file and write-ahead log in the VFS.
    stored_at: (String, String),
    anchor: Connection,
    anchor_sandbox: Arc<Sandbox>,
    /// The budget of SQLite steps every connection of this world charges.
    meter: Arc<Meter>,
    /// Connections of processes that are gone, ready for new processes.
    idle: Vec<(Connection, Arc<Sandbox>)>,
    /// The tables and what a reset puts back.
    seed: SeedImage,
    procedures: BTreeMap<String, Arc<Procedure>>,
    constants: Values,
    clock_seconds: i64,
    processes: Vec<Process>,
    effects: Vec<Effect>,
    /// Direct SQL statements run on the anchor so far (never reset): what
    /// the anchor's other tables may have been written by.
    direct_statements: u64,
    history: Vec<Event>,
    /// The bytes `history` takes (see [`World::history_bytes`]).
    history_bytes: u64,
    recording: bool,
    recorder: Recorder,
    /// Where every connection's preupdate hook reports the rows a watched
    /// step touches.
    changes: Arc<ChangeLog>,
    journal: Journal,
    /// The database server the processes' statements go to, when the
    /// world's tables live there; its SQLite then holds their mirror
    /// (served.rs).
    server: Option<Box<dyn crate::server::Server>>,
}

impl World {
    /// Builds a world: a fresh shared database with `schema_sql` (tables and
    /// seed rows) applied, and the procedures and constants calls may use,
    /// in rollback-journal mode.
    pub fn new(
        schema_sql: &str,
        procedures: impl IntoIterator<Item = Procedure>,
        constants: Values,
    ) -> Result<World, Error> {
        World::with_journal(schema_sql, procedures, constants, Journal::Delete)
    }

    /// As [`World::new`], with the database in `journal` mode.
    pub fn with_journal(
        schema_sql: &str,
        procedures: impl IntoIterator<Item = Procedure>,
        constants: Values,
        journal: Journal,
    ) -> Result<World, Error> {
        let number = WORLDS_OPENED.fetch_add(1, Ordering::Relaxed);
        let name = format!("fencelab-world-{number}");
        let meter = Arc::new(Meter::default());
        let (mut anchor, sandbox) = open_sandboxed(&name, &meter)
            .map_err(|e| crate::error::sqlite("open the world's in-memory database", e))?;
        if let Some(denial) = crate::sandbox::refuse_before_sqlite(schema_sql) {
            return Err(Error::Schema {
                message: denial.to_string(),
            });
        }
        {
            let _trusted = sandbox.trusted();
            set_journal(&anchor, journal)
                .map_err(|e| crate::error::sqlite("set the world's journal mode", e))?;
        }
        sandbox.set_schema_changes_allowed(true);
        sandbox.begin_statement();
        // The schema may draw on SQLite's generator too (an INSERT past the
        // largest rowid picks one at random): pinned first, it draws the same
        // rowids in every run, like a learner's statement.
        crate::sqlite::pin_randomness();
        anchor
            .execute_batch(schema_sql)
            .map_err(|e| Error::Schema {
                message: sandbox.explain_failure().map_or_else(
                    || statement::sqlite_message(&e),
                    |denial| denial.to_string(),
                ),
            })?;
        if !anchor.is_autocommit() {
            let _ = anchor.execute_batch("ROLLBACK");
            return Err(Error::Schema {
                message: "the schema left a transaction open".into(),
            });
        }
        sandbox.set_schema_changes_allowed(false);
        let seed = SeedImage::capture(&anchor, &name)
            .map_err(|(context, e)| crate::error::sqlite(context, e))?;
        let changes = ChangeLog::new(seed.hook_tables());
        changes
            .install(&mut anchor)
            .map_err(|e| crate::error::sqlite("watch the world's row changes", e))?;
        for name in constants.keys() {
            check_argument_name(name)?;
        }
        Ok(World {
            stored_at: crate::sqlite::shared_paths(&name),
            name,
            anchor,
            anchor_sandbox: sandbox,
            meter,
            idle: Vec::new(),
            seed,
            procedures: procedures
                .into_iter()
                .map(|p| (p.name.clone(), Arc::new(p)))
                .collect(),
            constants,
            clock_seconds: 0,
            processes: Vec::new(),
            effects: Vec::new(),
            direct_statements: 0,
            history: Vec::new(),
            history_bytes: 0,
            recording: true,
            recorder: Recorder::default(),
            changes,
            journal,
            server: None,
        })
    }

    /// The journal mode the world's database runs in.
    pub fn journal(&self) -> Journal {
        self.journal
    }

    /// Whether steps record history (on by default). Exploration turns it
    /// off for speed and replays the schedule it reports with it on.
    pub fn set_recording(&mut self, recording: bool) {
        self.recording = recording;
    }

    pub fn recording(&self) -> bool {
        self.recording
    }

    /// The budget of SQLite steps that every statement of this world's
    /// processes, direct SQL and queries charges.
    pub fn meter(&self) -> &Meter {
        &self.meter
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
        query_on(connection, sandbox, sql, parameters).map_err(|f| f.into_error(sql))
    }

    /// Replaces (or adds) a procedure, as a learner's edit does.
    pub fn set_procedure(&mut self, procedure: Procedure) {
        self.procedures
            .insert(procedure.name.clone(), Arc::new(procedure));
    }

    /// Puts `procedures` in place of every procedure the world holds.
    pub fn replace_procedures(&mut self, procedures: impl IntoIterator<Item = Arc<Procedure>>) {
        self.procedures = procedures
            .into_iter()
            .map(|p| (p.name.clone(), p))
            .collect();
    }

    /// The procedure `name` as this world has it, if it was parsed from
    /// exactly `source`: a parse is a function of the two, so it serves
    /// again unchanged (a keystroke changes one procedure of several).
    pub fn parsed(&self, name: &str, source: &str) -> Option<Arc<Procedure>> {
        self.procedures
            .get(name)
            .filter(|p| p.source == source)
            .cloned()
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
        if let Some(server) = self.server.as_deref_mut() {
            server.reset()?;
            let tables = server.committed()?;
            self.mirror(tables)?;
        } else {
            let changed = self.changes.take_changed_tables();
            if let Err(e) = self.seed.restore(&changed) {
                self.changes.all_changed();
                return Err(crate::error::sqlite("put the seed rows back", e));
            }
        }
        self.clock_seconds = 0;
        self.effects.clear();
        self.history.clear();
        self.history_bytes = 0;
        Ok(())
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
        let (connection, sandbox) = self.pooled_connection()?;
        if let Some(server) = self.server.as_deref_mut() {
            server.open(id)?;
        }
        self.processes.push(Process {
            id,
            actor: actor.to_string(),
            connection: Some(connection),
            sandbox,
            call: None,
            memory: Values::new(),
            blocked: false,
            written: Rows::new(),
            in_flight: InFlight::Nothing,
        });
        let event = self.process_event(id, What::ProcessStarted);
        self.record(event);
        Ok(id)
    }

    /// A connection for a process: one left by an earlier process is as
    /// good as a new one (no transaction, no state a procedure can read),
    /// and it keeps its prepared statements: opening one costs far more
    /// than a step.
    fn pooled_connection(&mut self) -> Result<(Connection, Arc<Sandbox>), Error> {
        if let Some(idle) = self.idle.pop() {
            return Ok(idle);
        }
        let (mut connection, sandbox) = open_sandboxed(&self.name, &self.meter)
            .map_err(|e| crate::error::sqlite("open a process's connection", e))?;
        self.changes
            .install(&mut connection)
            .map_err(|e| crate::error::sqlite("watch the world's row changes", e))?;
        Ok((connection, sandbox))
    }

    /// Crashes a process: its connection closes (an open transaction rolls
    /// back), its call and memory are gone, and it can never move again.
    pub fn crash(&mut self, id: ProcessId) -> Result<(), Error> {
        let process = self.process_mut(id)?;
        let connection = process.connection.take();
        let sandbox = Arc::clone(&process.sandbox);
        process.call = None;
        process.in_flight = InFlight::Nothing;
        let mut rolled_back = connection.as_ref().is_some_and(|c| !c.is_autocommit());
        if let Some(connection) = connection {
            release(&mut self.idle, connection, sandbox);
        }
        if let Some(server) = self.server.as_deref_mut() {
            rolled_back = server.close(id);
        }
        let event = self.process_event(id, What::ProcessCrashed { rolled_back });
        self.record(event);
        self.unblock_all();
        self.after_server_step()
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
        let call = self.call_of(id)?;
        // The step is read through a handle of its own, so the call stays
        // in its process, where the step reads its scope and updates it in
        // place (a copy of the call was a copy of every value so far).
        let procedure = Arc::clone(&call.procedure);
        let Some(step) = procedure.steps.get(call.next_step) else {
            return Ok(StepResult::Finished(self.finish(id, ok(Values::new()))));
        };
        let result = match &step.kind {
            StepKind::Effect { name, values } => self.run_effect(id, step, name, values)?,
            StepKind::Sql { sql, class } => self.run_statement(id, step, sql, *class)?,
        };
        // Locks are only ever released when a transaction ends: a process
        // still inside its transaction holds at least what it held before, so
        // whoever it blocked would only block again.
        let released = self
            .processes
            .get(index(id))
            .is_some_and(|p| p.connection.is_some() && !self.in_transaction(p));
        if result != StepResult::Blocked && released {
            self.unblock_all();
        }
        self.after_server_step()?;
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

    /// The statement process `id` runs at its next step (an effect as
    /// `@effect NAME`), if its call has one left.
    pub(crate) fn next_sql(&self, id: ProcessId) -> Option<String> {
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
            in_transaction: p.connection.is_some() && self.in_transaction(p),
        })
    }

    /// Whether process `p` is inside a transaction: its SQLite
    /// connection's, or its session's on the world's server.
    fn in_transaction(&self, p: &Process) -> bool {
        match self.server_transaction(p.id) {
            Some(open) => open,
            None => p.connection.as_ref().is_some_and(|c| !c.is_autocommit()),
        }
    }

    pub fn process_view(&self, id: ProcessId) -> Result<ProcessView<'_>, Error> {
        self.processes()
            .find(|p| p.id == id)
            .ok_or_else(|| Error::UnknownProcess { id: id.to_string() })
    }

    pub fn effects(&self) -> &[Effect] {
        &self.effects
    }

    /// How many direct SQL statements ([`World::execute_direct`]) this
    /// world has run, ever: the checker reloads its own tables on the
    /// anchor after one, since direct SQL may have written them.
    pub fn direct_statements(&self) -> u64 {
        self.direct_statements
    }

    pub fn history(&self) -> &[Event] {
        &self.history
    }

    pub fn take_history(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.history)
    }

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
        self.seed.snapshot(connection)
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

fn check_argument_name(name: &str) -> Result<(), Error> {
    if BUILT_IN_PARAMETERS
        .iter()
        .any(|(built_in, _)| *built_in == name)
    {
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

fn open_sandboxed(name: &str, meter: &Arc<Meter>) -> rusqlite::Result<(Connection, Arc<Sandbox>)> {
    let mut connection = open_shared(name)?;
    connection.pragma_update(None, "max_page_count", DATABASE_PAGES_MAX)?;
    connection.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
    let sandbox = Sandbox::install(&mut connection, Arc::clone(meter))?;
    Ok((connection, sandbox))
}
