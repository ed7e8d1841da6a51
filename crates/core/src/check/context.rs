//! The run's own tables: what scenario queries and invariants may read
//! beside the exercise's tables.
//!
//! - `beliefs` (resource, process, actor, token, expires_at): what each
//!   process believes it holds, as the checker's monitor sees it;
//! - `effects` (name, process, actor, clock_seconds, detail as JSON): every
//!   external effect so far.
//!
//! They are temp tables on the world's anchor connection, so no process sees
//! them and a reset of the exercise's tables leaves them alone. They belong
//! to the checker: the world only lends its anchor. They are made when the
//! first query or direct statement that may read them comes ([`Loaded`]):
//! most exercises never name them, and making them was a tenth of a small
//! exercise's first check.

use crate::error::Error;
use crate::history::{Effect, ResultRows};
use crate::monitor::Belief;
use crate::sql_value::Bind;
use crate::value::Value;
use crate::world::World;
use rusqlite::Connection;

/// Creates the run's tables on the world's anchor. Once per world.
fn create_tables(world: &World) -> Result<(), Error> {
    world
        .with_anchor_trusted(|anchor| {
            anchor.execute_batch(
                "CREATE TEMP TABLE beliefs (resource TEXT, process TEXT, actor TEXT, \
                 token, expires_at INTEGER); \
                 CREATE TEMP TABLE effects (name TEXT, process TEXT, actor TEXT, \
                 clock_seconds INTEGER, detail TEXT);",
            )
        })
        .map_err(|e| Error::Sqlite {
            context: "create the run's beliefs and effects tables".into(),
            message: e.to_string(),
        })
}

/// What the run's tables were last loaded with. Invariants are queried
/// after every step, several a step, and most steps change no belief and
/// no effect: such a query reads the tables as they are instead of
/// rewriting them. Direct SQL runs on the anchor and could write them, so
/// a direct statement since the load makes the next query load afresh.
#[derive(Default)]
pub(super) struct Loaded {
    /// `None` until a load succeeds (and while one is under way).
    contents: Option<(Vec<Belief>, Vec<Effect>, u64)>,
    /// Loads so far: equal at two moments, the tables held the same rows.
    loads: u64,
    /// Whether the tables have been made on the anchor.
    created: bool,
    /// Whether a query reads these tables, by its text: asked for every
    /// invariant of every run, where the scenarios are few.
    readers: Vec<(String, bool)>,
}

/// Queries whose answer [`Loaded::read_by`] keeps; past it, it starts again.
const READERS_KEPT_MAX: usize = 64;

impl Loaded {
    /// Runs a read-only query that may read the run's tables as they are
    /// now (filled first if it reads them). `None` when a process holds the
    /// write lock, so the committed state cannot be read now.
    pub(super) fn query(
        &mut self,
        world: &World,
        sql: &str,
        beliefs: &[Belief],
    ) -> Result<Option<ResultRows>, Error> {
        if self.read_by(sql) {
            self.load(world, beliefs)?;
        }
        world.query_committed(sql)
    }

    /// Whether `sql` may read the run's tables, as `reads_run_tables`
    /// judges it, kept by text.
    pub(super) fn read_by(&mut self, sql: &str) -> bool {
        if let Some((_, reads)) = self.readers.iter().find(|(known, _)| known == sql) {
            return *reads;
        }
        let reads = super::reads_run_tables(sql);
        if self.readers.len() >= READERS_KEPT_MAX {
            self.readers.clear();
        }
        self.readers.push((sql.to_string(), reads));
        reads
    }

    /// Makes the tables, if `sql` may read them and they are not made yet:
    /// before a direct statement, which may write them.
    pub(super) fn make_for(&mut self, world: &World, sql: &str) -> Result<(), Error> {
        if self.read_by(sql) {
            self.make(world)?;
        }
        Ok(())
    }

    fn make(&mut self, world: &World) -> Result<(), Error> {
        if !self.created {
            create_tables(world)?;
            self.created = true;
        }
        Ok(())
    }

    /// Makes the tables hold `beliefs` and the world's effects, if they do
    /// not already. Returns which load they hold: the same number means
    /// the same rows.
    pub(super) fn load(&mut self, world: &World, beliefs: &[Belief]) -> Result<u64, Error> {
        let current =
            self.contents
                .as_ref()
                .is_some_and(|(loaded_beliefs, loaded_effects, direct)| {
                    loaded_beliefs == beliefs
                        && loaded_effects == world.effects()
                        && *direct == world.direct_statements()
                });
        if !current {
            self.make(world)?;
            self.contents = None;
            self.loads += 1;
            world
                .with_anchor_trusted(|anchor| load(anchor, beliefs, world.effects()))
                .map_err(|e| Error::Sqlite {
                    context: "load the beliefs and effects tables".into(),
                    message: e.to_string(),
                })?;
            self.contents = Some((
                beliefs.to_vec(),
                world.effects().to_vec(),
                world.direct_statements(),
            ));
        }
        Ok(self.loads)
    }
}

fn load(anchor: &Connection, beliefs: &[Belief], effects: &[Effect]) -> rusqlite::Result<()> {
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
            Bind(belief.token.as_ref().unwrap_or(&Value::Null)),
            belief.expires_at,
        ])?;
    }
    anchor
        .prepare_cached("DELETE FROM temp.effects")?
        .execute([])?;
    let mut insert =
        anchor.prepare_cached("INSERT INTO temp.effects VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for effect in effects {
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
}
