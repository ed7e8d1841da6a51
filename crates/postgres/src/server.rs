//! The server as a whole: an admin connection that makes and drops each
//! world's database.

use crate::error::Error;
use crate::world::WorldDb;
use postgres::{Client, Config, NoTls};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long a connection may take to open before it is given up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many names a world tries before giving up (a name is taken only
/// when a process of the same pid left its world behind, killed).
const NAME_TRIES: u32 = 64;

/// Numbers the worlds of this process; with the pid, a database name no
/// other world on the server has.
static NEXT_WORLD: AtomicU64 = AtomicU64::new(0);

/// A PostgreSQL server that worlds are made on.
pub struct Server {
    config: Config,
    /// `PostgreSQL 15.18`, as reports name the engine.
    version: String,
    admin: Arc<Mutex<Admin>>,
}

/// The connection that creates and drops the worlds' databases, shared by
/// the server and its worlds (a world drops its own database).
pub(crate) struct Admin {
    client: Client,
    /// `DROP DATABASE ... WITH (FORCE)` (PostgreSQL 13 and later).
    forces: bool,
}

impl Server {
    /// Connects to the server that `spec` (libpq's `key=value` pairs or a
    /// `postgres://` URL) names, and keeps that connection for making worlds.
    pub fn connect(spec: &str) -> Result<Server, Error> {
        let mut config = Config::from_str(spec).map_err(|error| Error::Spec {
            message: error.to_string(),
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("fencelab");
        }
        let fail = |error: postgres::Error| Error::from_client("connecting to the server", &error);
        let mut client = config.connect(NoTls).map_err(fail)?;
        let version: i32 = client
            .query_one("SELECT current_setting('server_version_num')::int4", &[])
            .and_then(|row| row.try_get(0))
            .map_err(fail)?;
        let named = client
            .query_one("SELECT current_setting('server_version')", &[])
            .and_then(|row| row.try_get::<_, String>(0))
            .map_err(fail)?;
        let admin = Admin {
            client,
            forces: version >= 130_000,
        };
        Ok(Server {
            config,
            version: format!("PostgreSQL {named}"),
            admin: Arc::new(Mutex::new(admin)),
        })
    }

    /// The server's name and version, `PostgreSQL 15.18`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// A new world: a database of its own made from `template0`, with
    /// `schema_sql` (tables and seed rows) applied and its seed captured.
    pub fn create_world(&mut self, schema_sql: &str) -> Result<WorldDb, Error> {
        let name = lock(&self.admin).create_database()?;
        let mut config = self.config.clone();
        config.dbname(&name);
        WorldDb::open(name, config, Arc::clone(&self.admin), schema_sql)
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A name quoted as an SQL identifier.
pub(crate) fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A text quoted as an SQL string literal.
pub(crate) fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

impl Admin {
    /// Creates `fencelab_<pid>_<n>`, skipping names already taken.
    fn create_database(&mut self) -> Result<String, Error> {
        let mut name = String::new();
        for _ in 0..NAME_TRIES {
            let number = NEXT_WORLD.fetch_add(1, Ordering::Relaxed);
            name = format!("fencelab_{}_{number}", std::process::id());
            let sql = format!("CREATE DATABASE {} TEMPLATE template0", ident(&name));
            match self.client.batch_execute(&sql) {
                Ok(()) => return Ok(name),
                Err(error)
                    if error.code() == Some(&postgres::error::SqlState::DUPLICATE_DATABASE) => {}
                Err(error) => {
                    return Err(Error::from_client("creating a world's database", &error));
                }
            }
        }
        Err(Error::NoFreeName { last: name })
    }

    /// Drops a world's database, ending any connection still on it.
    pub(crate) fn drop_database(&mut self, name: &str) -> Result<(), Error> {
        let fail =
            |error: postgres::Error| Error::from_client("dropping a world's database", &error);
        if self.forces {
            let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", ident(name));
            return self.client.batch_execute(&sql).map_err(fail);
        }
        let terminate = format!(
            "SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity WHERE datname = {}",
            literal(name)
        );
        self.client.batch_execute(&terminate).map_err(fail)?;
        let sql = format!("DROP DATABASE IF EXISTS {}", ident(name));
        self.client.batch_execute(&sql).map_err(fail)
    }
}
