//! `--postgres [URL]`: a command's exercises run on a PostgreSQL server
//! (issue 53), through the same engine: the core builds every checker on
//! the server's worlds (`Target::Server`), and the exercise is the one its
//! `[postgres]` table gives (`Exercise::on_postgres`).

use crate::BadInput;
use clap::Args;
use fencelab_cli::render;
use fencelab_core::Exercise;
use fencelab_core::mutate::ExerciseMutation;
use fencelab_core::target::Target;
use fencelab_model::mutate::killed_by_one_only;
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
        /// The server as the user named it, for a script that connects
        /// on its own (`replay --postgres --python`).
        spec: String,
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
            spec,
        })
    }
}

impl Engine {
    /// `exercise` as this engine runs it, and where its checkers are built;
    /// bad input when the exercise has no texts for this engine.
    pub fn exercise(&self, exercise: &Exercise) -> Result<(Exercise, Target), BadInput> {
        match self {
            Engine::Sqlite => Ok((exercise.clone(), Target::Sqlite)),
            Engine::Postgres { .. } => {
                let on_postgres = exercise.on_postgres().ok_or_else(|| {
                    BadInput(format!(
                        "{} is SQLite only: it has no [postgres] table (docs/EXERCISES.md \
                         says how to give it PostgreSQL texts)",
                        exercise.id
                    ))
                })?;
                Ok((on_postgres, self.target()))
            }
        }
    }

    /// Where this engine's checkers are built.
    pub fn target(&self) -> Target {
        match self {
            Engine::Sqlite => Target::Sqlite,
            Engine::Postgres { worlds, .. } => {
                let worlds: Arc<dyn fencelab_core::target::Worlds> = worlds.clone();
                Target::Server(worlds)
            }
        }
    }

    /// The engine's name, as `killed on ... only` lines say it.
    pub fn name(&self) -> &str {
        match self {
            Engine::Sqlite => "SQLite",
            Engine::Postgres { .. } => "PostgreSQL",
        }
    }

    /// Whether the engine can run `exercise` (SQLite runs every one).
    pub fn runs(&self, exercise: &Exercise) -> bool {
        matches!(self, Engine::Sqlite) || exercise.postgres.is_some()
    }

    /// The line a report starts with, naming the server it ran on; nothing
    /// on SQLite, as every report before this engine.
    pub fn heading(&self) -> String {
        match self {
            Engine::Sqlite => String::new(),
            Engine::Postgres { version, .. } => format!("on {version}:\n"),
        }
    }
}

/// `fencelab mutate --postgres`: each exercise's mutation run on SQLite,
/// then on the server, then the mutants of the same text that only one of
/// them killed; it passes when both runs do. With `--json`, one document
/// whose entries are the SQLite runs, then the server's.
pub(crate) fn print_mutations(
    engine: &Engine,
    exercises: &[Exercise],
    runs: &[(ExerciseMutation, f64)],
    on_server: &[(ExerciseMutation, f64, Exercise)],
    json: bool,
) -> Result<crate::Ended, BadInput> {
    let all: Vec<(ExerciseMutation, f64)> = runs
        .iter()
        .cloned()
        .chain(
            on_server
                .iter()
                .map(|(run, seconds, _)| (run.clone(), *seconds)),
        )
        .collect();
    let ok = all.iter().all(|(run, _)| run.ok());
    if json {
        crate::print_json(&crate::mutation_document::Document::new(&all))?;
        return Ok(crate::Ended::passed_if(ok));
    }
    for ((run, seconds), (server_run, server_seconds, server_exercise)) in
        runs.iter().zip(on_server)
    {
        let exercise = exercises.iter().find(|e| e.id == run.exercise);
        crate::emit(&render::mutation(run, exercise, *seconds));
        crate::emit(&engine.heading());
        crate::emit(&render::mutation(
            server_run,
            Some(server_exercise),
            *server_seconds,
        ));
        let (sqlite_only, server_only) = killed_by_one_only(run, server_run);
        for (results, by, not_by) in [
            (sqlite_only, "SQLite", engine.name()),
            (server_only, engine.name(), "SQLite"),
        ] {
            for result in results {
                crate::emit(&format!(
                    "  killed on {by} only, not on {not_by}: {} ({})\n",
                    result.mutant.id, result.mutant.description
                ));
            }
        }
    }
    crate::emit(&render::mutation_totals(&all));
    Ok(crate::Ended::passed_if(ok))
}
