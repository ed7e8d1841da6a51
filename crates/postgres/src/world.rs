//! A world: a database of its own with the exercise's schema and seed, the
//! sessions of its scenario processes (pooled: a connection costs
//! milliseconds to open), and the means to put the seed back between runs.

use crate::connection::{Connection, STATEMENT_TIMEOUT};
use crate::convert;
use crate::error::Error;
use crate::server::{Admin, ident, literal, lock};
use crate::session::{Isolation, Session};
use fencelab_model::value::Value;
use postgres::{Client, Config, NoTls, Statement};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The schema that keeps a copy of each table's seed rows, so a reset
/// copies them back on the server, exactly, whatever their types.
const SEED_SCHEMA: &str = "fencelab_seed";

/// A table's rows, ordered by all its columns.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRows {
    pub table: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

/// How [`WorldDb::reset`] empties the tables before copying the seed back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetMethod {
    /// `DELETE` each table, children before parents: a fraction of a
    /// millisecond on the small worlds of exercises.
    Delete,
    /// `TRUNCATE ... RESTART IDENTITY`: milliseconds (it swaps each table's
    /// files), but indifferent to foreign keys in a cycle.
    Truncate,
}

/// A table of schema public, as the seed knows it.
#[derive(Clone, Debug)]
struct Table {
    name: String,
    columns: Vec<String>,
    /// Each column's declared type, upper-cased (`BIGINT`, `TEXT`).
    types: Vec<String>,
    /// Columns a row can be inserted with (not `GENERATED ... STORED`).
    insertable: Vec<String>,
}

/// The world's connections: those lent out as sessions (by backend pid) and
/// the idle ones, which may still be cleaning.
pub(crate) struct Pool {
    config: Config,
    idle: Mutex<Vec<Connection>>,
    lent: Mutex<BTreeSet<i32>>,
    closed: AtomicBool,
}

impl Pool {
    pub(crate) fn unlend(&self, pid: i32) {
        lock(&self.lent).remove(&pid);
    }

    /// Keeps a returned connection for the next session, unless the world
    /// is gone.
    pub(crate) fn give_back(&self, connection: Connection) {
        if !self.closed.load(Ordering::SeqCst) {
            lock(&self.idle).push(connection);
        }
    }

    fn take(&self, isolation: Isolation) -> Result<Connection, Error> {
        loop {
            let Some(mut connection) = lock(&self.idle).pop() else {
                return Connection::open(&self.config, isolation);
            };
            if connection.finish_pending().is_ok() && connection.set_isolation(isolation).is_ok() {
                return Ok(connection);
            }
        }
    }

    /// Waits for every idle connection's cleaning; drops those it failed.
    fn settle_idle(&self) {
        let mut idle = lock(&self.idle);
        idle.retain_mut(|connection| connection.finish_pending().is_ok());
    }
}

/// How many times this process's observers asked whether a session
/// waits, and the nanoseconds those round trips took: the benchmark's
/// (`benches/check.rs`) view of the polling inside each settle. Two
/// relaxed atomic adds beside a round trip to the server.
static POLLS: AtomicU64 = AtomicU64::new(0);
static POLL_NANOS: AtomicU64 = AtomicU64::new(0);

/// The observers' questions so far in this process (see [`POLLS`]): how
/// many, and the time they took.
pub fn observer_polls() -> (u64, Duration) {
    (
        POLLS.load(Ordering::Relaxed),
        Duration::from_nanos(POLL_NANOS.load(Ordering::Relaxed)),
    )
}

/// The world's view of the server's lock table, on a connection of its own:
/// whether a session waits on another of the world's sessions.
#[derive(Clone)]
pub struct Observer {
    inner: Arc<Mutex<(Client, Statement)>>,
    pool: Arc<Pool>,
}

impl Observer {
    fn open(config: &Config, pool: Arc<Pool>) -> Result<Observer, Error> {
        let fail =
            |error: postgres::Error| Error::from_client("opening the world's observer", &error);
        let mut client = config.connect(NoTls).map_err(fail)?;
        let statement = client
            .prepare("SELECT pg_catalog.pg_isolation_test_session_is_blocked($1, $2)")
            .map_err(fail)?;
        Ok(Observer {
            inner: Arc::new(Mutex::new((client, statement))),
            pool,
        })
    }

    /// Whether backend `pid` waits on a lock held by (or queued behind) one
    /// of the world's other sessions, as isolationtester asks.
    pub fn is_blocked(&self, pid: i32) -> Result<bool, Error> {
        let others: Vec<i32> = lock(&self.pool.lent)
            .iter()
            .copied()
            .filter(|&other| other != pid)
            .collect();
        if others.is_empty() {
            return Ok(false);
        }
        let mut inner = lock(&self.inner);
        let (client, statement) = &mut *inner;
        let started = Instant::now();
        let blocked = client
            .query_one(&*statement, &[&pid, &others])
            .and_then(|row| row.try_get(0))
            .map_err(|error| Error::from_client("asking whether a session waits", &error));
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        POLLS.fetch_add(1, Ordering::Relaxed);
        POLL_NANOS.fetch_add(nanos, Ordering::Relaxed);
        blocked
    }
}

/// One world: its database is dropped with it.
pub struct WorldDb {
    name: String,
    admin: Arc<Mutex<Admin>>,
    control: Option<Client>,
    pool: Arc<Pool>,
    observer: Option<Observer>,
    tables: Vec<Table>,
    seed: Vec<TableRows>,
    sequences: Vec<(String, i64, bool)>,
    /// Parents before children; `None` when foreign keys form a cycle.
    parents_first: Option<Vec<usize>>,
}

impl WorldDb {
    /// Applies the schema to the new database `name` and captures its seed;
    /// on any failure the database is dropped again (by `Drop`).
    pub(crate) fn open(
        name: String,
        config: Config,
        admin: Arc<Mutex<Admin>>,
        schema_sql: &str,
    ) -> Result<WorldDb, Error> {
        let pool = Arc::new(Pool {
            config: config.clone(),
            idle: Mutex::new(Vec::new()),
            lent: Mutex::new(BTreeSet::new()),
            closed: AtomicBool::new(false),
        });
        let mut world = WorldDb {
            name,
            admin,
            control: None,
            pool: Arc::clone(&pool),
            observer: None,
            tables: Vec::new(),
            seed: Vec::new(),
            sequences: Vec::new(),
            parents_first: None,
        };
        let fail = |error: postgres::Error| {
            Error::from_client("opening the world's control connection", &error)
        };
        let mut control = config.connect(NoTls).map_err(fail)?;
        control
            .batch_execute(&format!(
                "SET default_transaction_isolation = 'read committed'; SET statement_timeout = '{}ms'",
                STATEMENT_TIMEOUT.as_millis()
            ))
            .map_err(fail)?;
        control
            .batch_execute(schema_sql)
            .map_err(|error| match error.as_db_error() {
                Some(db) => Error::Schema(crate::error::ServerError {
                    position: match db.position() {
                        Some(postgres::error::ErrorPosition::Original(at)) => {
                            crate::positional::byte_offset(schema_sql, *at)
                        }
                        _ => None,
                    },
                    ..crate::error::ServerError::from_db(db)
                }),
                None => fail(error),
            })?;
        world.capture(&mut control)?;
        world.control = Some(control);
        world.observer = Some(Observer::open(&config, pool)?);
        Ok(world)
    }

    /// The database's name, `fencelab_<pid>_<n>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Each table of schema public with its columns and their declared
    /// types, upper-cased (`BIGINT`): what the mutation operators know.
    pub fn columns(&self) -> Vec<(String, Vec<(String, String)>)> {
        self.tables
            .iter()
            .map(|t| {
                let columns = t.columns.iter().cloned().zip(t.types.iter().cloned());
                (t.name.clone(), columns.collect())
            })
            .collect()
    }

    /// The seed rows, as the schema left them.
    pub fn seed(&self) -> &[TableRows] {
        &self.seed
    }

    /// The handle [`Session::settle`] asks whether a session waits.
    pub fn observer(&self) -> Result<Observer, Error> {
        self.observer.clone().ok_or_else(closed)
    }

    /// A session at `isolation`: an idle one from the pool, else a new one.
    pub fn session(&mut self, isolation: Isolation) -> Result<Session, Error> {
        let connection = self.pool.take(isolation)?;
        lock(&self.pool.lent).insert(connection.pid());
        Ok(Session::new(connection, Arc::clone(&self.pool)))
    }

    /// How [`Self::reset`] empties the tables: by `DELETE`, the faster on
    /// this scale (docs in [`ResetMethod`]), unless foreign keys form a
    /// cycle that no order of deletes can respect.
    pub fn reset_method(&self) -> ResetMethod {
        match self.parents_first {
            Some(_) => ResetMethod::Delete,
            None => ResetMethod::Truncate,
        }
    }

    /// Puts the seed back: every table's rows and every sequence's state.
    /// Every session must have been closed (dropped) first.
    pub fn reset(&mut self) -> Result<(), Error> {
        self.reset_by(self.reset_method())
    }

    /// [`Self::reset`] by a method of the caller's choice (to measure them).
    pub fn reset_by(&mut self, method: ResetMethod) -> Result<(), Error> {
        let count = lock(&self.pool.lent).len();
        if count > 0 {
            return Err(Error::SessionsLent { count });
        }
        self.pool.settle_idle();
        let sql = self.reset_sql(method);
        let control = self.control.as_mut().ok_or_else(closed)?;
        control.batch_execute(&sql).map_err(|error| {
            let _ = control.batch_execute("ROLLBACK");
            Error::from_client("resetting the world", &error)
        })
    }

    /// Each seed table's committed rows, ordered by all columns, all read in
    /// one snapshot on the world's own connection (never a session's).
    pub fn committed(&mut self) -> Result<Vec<TableRows>, Error> {
        let control = self.control.as_mut().ok_or_else(closed)?;
        let fail =
            |error: postgres::Error| Error::from_client("reading the committed rows", &error);
        control
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .map_err(fail)?;
        let read = self
            .tables
            .iter()
            .map(|table| read_table(control, table))
            .collect::<Result<Vec<_>, _>>();
        control.batch_execute("COMMIT").map_err(fail)?;
        read
    }
}

/// How long a scenario's direct SQL waits for a lock a session holds
/// before it fails, as SQLite's direct SQL fails at once on a held lock.
pub const DIRECT_LOCK_TIMEOUT_MS: u64 = 100;

impl WorldDb {
    /// Runs a scenario's direct SQL on the world's own connection, outside
    /// every session, as one implicit transaction (a transaction it leaves
    /// open is rolled back). Returns the rows its commands changed.
    pub fn direct(&mut self, sql: &str) -> Result<u64, Error> {
        let control = self.control.as_mut().ok_or_else(closed)?;
        let doing = "running direct SQL";
        control
            .batch_execute(&format!("SET lock_timeout = '{DIRECT_LOCK_TIMEOUT_MS}ms'"))
            .map_err(|error| Error::from_client(doing, &error))?;
        let ran = control.simple_query(sql);
        let _ = control.batch_execute("ROLLBACK; SET lock_timeout = 0");
        let messages = ran.map_err(|error| match error.as_db_error() {
            Some(db) => Error::Server {
                doing,
                error: crate::error::ServerError::from_db(db),
            },
            None => Error::from_client(doing, &error),
        })?;
        Ok(messages
            .iter()
            .map(|message| match message {
                postgres::SimpleQueryMessage::CommandComplete(rows) => *rows,
                _ => 0,
            })
            .sum())
    }
}

fn closed() -> Error {
    Error::Connection {
        doing: "using a world",
        message: "the world's connection is closed".into(),
    }
}

/// A table's rows, ordered by all its columns.
fn read_table(client: &mut Client, table: &Table) -> Result<TableRows, Error> {
    let fail = |error: postgres::Error| Error::from_client("reading a table", &error);
    let columns: Vec<String> = table.columns.iter().map(|c| ident(c)).collect();
    let order: Vec<String> = (1..=columns.len()).map(|n| n.to_string()).collect();
    let sql = format!(
        "SELECT {} FROM public.{} ORDER BY {}",
        columns.join(", "),
        ident(&table.name),
        order.join(", ")
    );
    let statement = client.prepare(&sql).map_err(fail)?;
    convert::check_columns(statement.columns()).map_err(|error| match error {
        Error::UnsupportedColumn { column, type_name } => Error::UnsupportedColumn {
            column: format!("{}.{column}", table.name),
            type_name,
        },
        other => other,
    })?;
    let rows = client
        .query(&statement, &[])
        .map_err(fail)?
        .iter()
        .map(convert::row)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TableRows {
        table: table.name.clone(),
        columns: table.columns.clone(),
        rows,
    })
}

impl Drop for WorldDb {
    /// Closes every connection of the world, then drops its database
    /// (forcing out sessions still lent, which then fail).
    fn drop(&mut self) {
        self.pool.closed.store(true, Ordering::SeqCst);
        lock(&self.pool.idle).clear();
        self.observer = None;
        self.control = None;
        let _ = lock(&self.admin).drop_database(&self.name);
    }
}

/// Schema public's tables and their columns, by name and column number.
const TABLES_SQL: &str = "SELECT c.relname::text, a.attname::text, a.attgenerated <> '', \
     upper(pg_catalog.format_type(a.atttypid, a.atttypmod)) \
     FROM pg_catalog.pg_class c \
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
     JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid \
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition \
       AND a.attnum > 0 AND NOT a.attisdropped \
     ORDER BY c.relname, a.attnum";

/// Foreign keys between schema public's tables: (child, parent).
const KEYS_SQL: &str = "SELECT c.relname::text, p.relname::text \
     FROM pg_catalog.pg_constraint k \
     JOIN pg_catalog.pg_class c ON c.oid = k.conrelid \
     JOIN pg_catalog.pg_class p ON p.oid = k.confrelid \
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
     WHERE k.contype = 'f' AND n.nspname = 'public'";

const SEQUENCES_SQL: &str = "SELECT c.relname::text FROM pg_catalog.pg_class c \
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
     WHERE n.nspname = 'public' AND c.relkind = 'S' ORDER BY c.relname";

impl WorldDb {
    /// Reads the tables, their seed rows, the foreign keys' order and the
    /// sequences' states, and copies each table's rows to [`SEED_SCHEMA`].
    fn capture(&mut self, control: &mut Client) -> Result<(), Error> {
        let fail = |error: postgres::Error| Error::from_client("capturing the seed", &error);
        for row in control.query(TABLES_SQL, &[]).map_err(fail)? {
            let (table, column, generated): (String, String, bool) = (
                row.try_get(0).map_err(fail)?,
                row.try_get(1).map_err(fail)?,
                row.try_get(2).map_err(fail)?,
            );
            if self.tables.last().is_none_or(|last| last.name != table) {
                self.tables.push(Table {
                    name: table,
                    columns: Vec::new(),
                    types: Vec::new(),
                    insertable: Vec::new(),
                });
            }
            if let Some(last) = self.tables.last_mut() {
                if !generated {
                    last.insertable.push(column.clone());
                }
                last.columns.push(column);
                last.types.push(row.try_get(3).map_err(fail)?);
            }
        }
        let mut keys = Vec::new();
        for row in control.query(KEYS_SQL, &[]).map_err(fail)? {
            keys.push((
                row.try_get::<_, String>(0).map_err(fail)?,
                row.try_get::<_, String>(1).map_err(fail)?,
            ));
        }
        self.parents_first = parents_first(&self.tables, &keys);
        for row in control.query(SEQUENCES_SQL, &[]).map_err(fail)? {
            let name: String = row.try_get(0).map_err(fail)?;
            let state = control
                .query_one(
                    &format!("SELECT last_value, is_called FROM public.{}", ident(&name)),
                    &[],
                )
                .map_err(fail)?;
            self.sequences.push((
                name,
                state.try_get(0).map_err(fail)?,
                state.try_get(1).map_err(fail)?,
            ));
        }
        self.seed = self
            .tables
            .iter()
            .map(|table| read_table(control, table))
            .collect::<Result<_, _>>()?;
        let mut copy = format!("CREATE SCHEMA {SEED_SCHEMA}; ");
        for table in &self.tables {
            let name = ident(&table.name);
            copy.push_str(&format!(
                "CREATE TABLE {SEED_SCHEMA}.{name} AS SELECT * FROM public.{name}; "
            ));
        }
        control.batch_execute(&copy).map_err(fail)
    }

    /// One batch, one transaction: empty the tables, copy the seed back
    /// (parents first), set each sequence back.
    fn reset_sql(&self, method: ResetMethod) -> String {
        let order: Vec<&Table> = match &self.parents_first {
            Some(order) => order
                .iter()
                .filter_map(|&index| self.tables.get(index))
                .collect(),
            None => self.tables.iter().collect(),
        };
        // Foreign keys declared DEFERRABLE are checked at COMMIT, when every
        // seed row is back: the only way to copy back rows whose keys form
        // a cycle (one not deferrable makes the reset fail, in the
        // server's words).
        let mut sql = String::from("BEGIN; SET CONSTRAINTS ALL DEFERRED; ");
        match method {
            ResetMethod::Delete => {
                for table in order.iter().rev() {
                    sql.push_str(&format!("DELETE FROM public.{}; ", ident(&table.name)));
                }
            }
            ResetMethod::Truncate if !order.is_empty() => {
                let names: Vec<String> = order
                    .iter()
                    .map(|t| format!("public.{}", ident(&t.name)))
                    .collect();
                sql.push_str(&format!("TRUNCATE {} RESTART IDENTITY; ", names.join(", ")));
            }
            ResetMethod::Truncate => {}
        }
        for (table, seed) in order
            .iter()
            .filter_map(|t| Some((*t, self.seed.iter().find(|s| s.table == t.name)?)))
        {
            if seed.rows.is_empty() || table.insertable.is_empty() {
                continue;
            }
            let columns: Vec<String> = table.insertable.iter().map(|c| ident(c)).collect();
            let columns = columns.join(", ");
            let name = ident(&table.name);
            sql.push_str(&format!(
                "INSERT INTO public.{name} ({columns}) OVERRIDING SYSTEM VALUE SELECT {columns} FROM {SEED_SCHEMA}.{name}; "
            ));
        }
        for (name, value, called) in &self.sequences {
            let sequence = literal(&format!("public.{}", ident(name)));
            sql.push_str(&format!(
                "SELECT pg_catalog.setval({sequence}, {value}, {called}); "
            ));
        }
        sql.push_str("COMMIT");
        sql
    }
}

/// The tables' indexes, each parent before the children whose foreign keys
/// name it (a table naming itself is no obstacle: one `DELETE` or `INSERT`
/// is checked at its end); `None` when the keys form a cycle.
fn parents_first(tables: &[Table], keys: &[(String, String)]) -> Option<Vec<usize>> {
    let index = |name: &str| tables.iter().position(|t| t.name == name);
    let edges: Vec<(usize, usize)> = keys
        .iter()
        .filter_map(|(child, parent)| Some((index(child)?, index(parent)?)))
        .filter(|(child, parent)| child != parent)
        .collect();
    let mut placed = vec![false; tables.len()];
    let mut order = Vec::with_capacity(tables.len());
    while order.len() < tables.len() {
        let ready = (0..tables.len()).find(|&t| {
            !placed[t]
                && edges
                    .iter()
                    .all(|&(child, parent)| child != t || placed[parent])
        })?;
        placed[ready] = true;
        order.push(ready);
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str) -> Table {
        Table {
            name: name.into(),
            columns: vec![],
            types: vec![],
            insertable: vec![],
        }
    }

    #[test]
    fn parents_come_before_their_children_and_a_cycle_has_no_order() {
        let tables = [table("attempts"), table("jobs"), table("queues")];
        let keys = [
            ("attempts".to_string(), "jobs".to_string()),
            ("jobs".to_string(), "queues".to_string()),
            ("jobs".to_string(), "jobs".to_string()),
        ];
        assert_eq!(parents_first(&tables, &keys), Some(vec![2, 1, 0]));
        let cycle = [
            ("attempts".to_string(), "jobs".to_string()),
            ("jobs".to_string(), "attempts".to_string()),
        ];
        assert_eq!(parents_first(&tables, &cycle), None);
    }
}
