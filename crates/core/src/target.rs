//! Where an exercise's checks run: the engine's own SQLite, or worlds a
//! database server makes (`crate::server`). Every checker an exercise's
//! check, a suite, a mutant's judgement or a replay uses is built here, so
//! the rest of the engine is the same on either.

use crate::Error;
use crate::check::{Checker, Limits, SuiteSearch};
use crate::mutate::Context;
use crate::server::{Server, ServerError};
use crate::world::World;
use fencelab_model::exercise::Exercise;
use fencelab_model::procedure::Procedure;
use fencelab_model::report::{ErrorKind, Place, ScenarioError, Unusable};
use fencelab_model::scenario::Scenario;
use std::fmt;
use std::sync::Arc;

/// Where checkers are built.
#[derive(Clone, Default)]
pub enum Target {
    /// A world in the engine's own SQLite, from the exercise's schema.
    #[default]
    Sqlite,
    /// A world on a server, from the schema of the exercise as that server
    /// runs it (`Exercise::on_postgres`).
    Server(Arc<dyn Worlds>),
}

/// What makes worlds on a server: one per checker.
pub trait Worlds: Send + Sync {
    /// A new world holding `exercise`'s schema and seed rows.
    fn world(&self, exercise: &Exercise) -> Result<Box<dyn Server>, ServerError>;
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Sqlite => f.write_str("Sqlite"),
            Target::Server(_) => f.write_str("Server"),
        }
    }
}

impl Target {
    /// A checker for these exact procedure texts, in `exercise`'s world.
    pub fn checker(
        &self,
        exercise: &Exercise,
        texts: &[(String, String)],
    ) -> Result<Checker, Unusable> {
        self.checker_reusing(exercise, texts, &mut None)
    }

    /// As [`Target::checker`], renewing `kept` (a checker this exercise
    /// built before, for any of its texts: [`Checker::renew`]) instead of
    /// building one, when the texts parse. Texts that do not leave `kept`
    /// where it is, for the next texts.
    pub fn checker_reusing(
        &self,
        exercise: &Exercise,
        texts: &[(String, String)],
        kept: &mut Option<Checker>,
    ) -> Result<Checker, Unusable> {
        // A text the kept checker holds already is not parsed again.
        let procedures = parse_texts(texts, |name, text| {
            kept.as_ref().and_then(|checker| checker.parsed(name, text))
        })?;
        let procedures = match kept.take() {
            Some(mut checker) => match checker.renew(procedures) {
                Ok(()) => return Ok(checker),
                Err(procedures) => procedures,
            },
            None => procedures,
        };
        let procedures = procedures.into_iter().map(Arc::unwrap_or_clone);
        let (constants, rules) = (exercise.constants.clone(), exercise.rules.clone());
        match self {
            Target::Sqlite => Checker::with_journal(
                &exercise.schema,
                procedures,
                constants,
                rules,
                exercise.journal,
            ),
            Target::Server(worlds) => worlds
                .world(exercise)
                .map_err(Error::from)
                .and_then(|server| Checker::on_server(server, procedures, constants, rules)),
        }
        .map_err(unusable_world)
    }

    /// The check of `scenarios` against `texts`, to run a slice at a time
    /// (see [`SuiteSearch`]); nothing runs yet.
    pub fn suite(
        &self,
        exercise: &Exercise,
        texts: &[(String, String)],
        scenarios: &[Scenario],
        limits: Limits,
    ) -> SuiteSearch {
        SuiteSearch::new(
            &exercise.id,
            self.checker(exercise, texts),
            scenarios,
            limits,
        )
    }
}

impl Target {
    /// What the mutation operators may know of `exercise` on this target:
    /// its tables' columns with their declared types (SQLite's from its
    /// schema; a server's as the server declares them), and its constants.
    pub fn context(&self, exercise: &Exercise) -> Result<Context, Error> {
        let tables = match self {
            Target::Sqlite => {
                World::new(&exercise.schema, [], exercise.constants.clone())?.table_columns()?
            }
            Target::Server(worlds) => {
                World::on_server(worlds.world(exercise)?, [], exercise.constants.clone())?
                    .table_columns()?
            }
        };
        Ok(Context {
            tables,
            constants: exercise.constants.keys().cloned().collect(),
        })
    }
}

/// Parses each text as its procedure, or takes the parse `parsed` already
/// has of exactly that text.
fn parse_texts(
    texts: &[(String, String)],
    parsed: impl Fn(&str, &str) -> Option<Arc<Procedure>>,
) -> Result<Vec<Arc<Procedure>>, Unusable> {
    texts
        .iter()
        .map(|(name, text)| match parsed(name, text) {
            Some(parsed) => Ok(parsed),
            None => Procedure::parse(name, text).map(Arc::new),
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| Unusable {
            // The place is carried apart, not repeated in the sentence.
            error: ScenarioError::of(ErrorKind::Unusable {
                message: error.message.clone(),
            })
            .at(Place {
                procedure: error.procedure.clone(),
                position: Some(error.position),
            }),
        })
}

/// A world that could not be built, as the verdict every scenario gets.
fn unusable_world(error: Error) -> Unusable {
    Unusable {
        error: ScenarioError::of(ErrorKind::Unusable {
            message: error.to_string(),
        }),
    }
}
