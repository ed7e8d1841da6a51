//! `--postgres [URL]`: a command's exercises run on a PostgreSQL server
//! (issue 53), through the same engine: the core builds every checker on
//! the server's worlds (`Target::Server`), and the exercise is the one its
//! `[postgres]` table gives (`Exercise::on_postgres`).

use crate::BadInput;
use clap::Args;
use fencelab_core::Exercise;
use fencelab_core::target::Target;
use fencelab_postgres::{PgWorlds, Server};
use std::sync::Arc;

/// The variable a bare `--postgres` reads the server's address from.
pub const POSTGRES_VARIABLE: &str = "FENCELAB_POSTGRES";

/// `--postgres [URL]`, flattened into the commands that run scenarios.
#[derive(Args, Clone, Default)]
pub struct PostgresArg {
    /// Run on the PostgreSQL server URL names (a `postgres://` URL or
    /// libpq's `host=... user=... dbname=...`; with no URL, the one
    /// FENCELAB_POSTGRES names), with the exercise's [postgres] texts. Each
    /// process is a connection of its own; each checker a database of its
    /// own, dropped after. An exercise without a [postgres] table is SQLite
    /// only (exit 2).
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    pub postgres: Option<String>,
}

/// Where a command's checks run.
pub enum Engine {
    Sqlite,
    Postgres {
        worlds: Arc<PgWorlds>,
        /// `PostgreSQL 15.18`, as the report names it.
        version: String,
    },
}

impl PostgresArg {
    /// Connects to the server the flag names, if it is given.
    pub fn engine(&self) -> Result<Engine, BadInput> {
        let Some(given) = &self.postgres else {
            return Ok(Engine::Sqlite);
        };
        let spec = if given.trim().is_empty() {
            std::env::var(POSTGRES_VARIABLE)
                .ok()
                .filter(|spec| !spec.trim().is_empty())
                .ok_or_else(|| {
                    BadInput(format!(
                        "--postgres names no server and {POSTGRES_VARIABLE} is not set: give \
                         one, as --postgres 'host=/run/postgresql user=me dbname=postgres' or \
                         a postgres:// URL"
                    ))
                })?
        } else {
            given.clone()
        };
        let server = Server::connect(&spec)
            .map_err(|e| BadInput(format!("cannot use the PostgreSQL server: {e}")))?;
        let version = server.version().to_string();
        Ok(Engine::Postgres {
            worlds: Arc::new(PgWorlds::new(server)),
            version,
        })
    }
}

impl Engine {
    /// `exercise` as this engine runs it, and where its checkers are built;
    /// bad input when the exercise has no texts for this engine.
    pub fn exercise(&self, exercise: &Exercise) -> Result<(Exercise, Target), BadInput> {
        match self {
            Engine::Sqlite => Ok((exercise.clone(), Target::Sqlite)),
            Engine::Postgres { worlds, .. } => {
                let on_postgres = exercise.on_postgres().ok_or_else(|| {
                    BadInput(format!(
                        "{} is SQLite only: it has no [postgres] table (docs/EXERCISES.md \
                         says how to give it PostgreSQL texts)",
                        exercise.id
                    ))
                })?;
                let worlds: Arc<dyn fencelab_core::target::Worlds> = worlds.clone();
                Ok((on_postgres, Target::Server(worlds)))
            }
        }
    }

    /// The engine as a report's heading names it, when not SQLite.
    pub fn named(&self) -> Option<&str> {
        match self {
            Engine::Sqlite => None,
            Engine::Postgres { version, .. } => Some(version),
        }
    }
}
