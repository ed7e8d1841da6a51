//! `fencelab replay --postgres`: a run of the engine on PostgreSQL done
//! again on the server, step by step, and compared, as replay.rs does a
//! SQLite run on a file.
//!
//! The replay goes around the engine: no interpreter, scheduler or mirror,
//! only the plan the model reads off the report ([`Plan`]) and the
//! PostgreSQL leaf's own sessions. Each plan gets a database of its own,
//! made from the schema the plan carries and dropped after; each scenario
//! process a connection of its own, opened where the history starts it
//! and closed where it crashes. A statement the history saw wait on a lock
//! must be seen waiting here too (the server asked, as isolationtester
//! asks, whether the session waits on another's lock), stays in flight,
//! and must finish, as it did there, at the process's next statement step.

use crate::replay::{Difference, Replayed};
use fencelab_core::history::ResultRows;
use fencelab_core::replay::{Action, Observed, Plan};
use fencelab_model::procedure::StatementClass;
use fencelab_postgres::{
    Isolation, Observer, PgWorlds, Reply, Session, Settled, WorldDb, settle_first,
};
use std::collections::BTreeMap;

/// Replays `plan` in a database of its own on the server `worlds` makes
/// them on, each session at `isolation` (the scenario's). An `Err` is a
/// replay that could not go on (the server refused the schema, a
/// connection was lost), never a difference.
pub fn replay(plan: &Plan, isolation: Isolation, worlds: &PgWorlds) -> Result<Replayed, String> {
    let db = worlds
        .create_world(&plan.schema)
        .map_err(|e| format!("cannot make the replay's database: {e}"))?;
    let observer = db.observer().map_err(|e| e.to_string())?;
    let mut on = OnServer {
        db,
        observer,
        isolation,
        sessions: BTreeMap::new(),
        replayed: Replayed::default(),
    };
    for step in &plan.steps {
        let differs = on.step(&step.action)?;
        if let Some(what) = differs {
            on.replayed.differences.push(Difference {
                event: step.event,
                who: step.who.clone(),
                line: step.line.clone(),
                what,
            });
        }
    }
    // Each session is closed (a statement still in flight cancelled) before
    // the database is dropped with `db`.
    for (_, session) in std::mem::take(&mut on.sessions) {
        let _ = session.close();
    }
    Ok(on.replayed)
}

/// One replay's database, its sessions by process name, and what it saw.
struct OnServer {
    db: WorldDb,
    observer: Observer,
    isolation: Isolation,
    sessions: BTreeMap<String, Session>,
    replayed: Replayed,
}

impl OnServer {
    /// Does one step; how it differs from what fencelab saw, in words.
    fn step(&mut self, action: &Action) -> Result<Option<String>, String> {
        match action {
            Action::Open { process } => {
                let session = self
                    .db
                    .session(self.isolation)
                    .map_err(|e| format!("cannot open {process}'s connection: {e}"))?;
                self.sessions.insert(process.clone(), session);
                Ok(None)
            }
            Action::Close { process } => {
                if let Some(session) = self.sessions.remove(process) {
                    session
                        .close()
                        .map_err(|e| format!("cannot close {process}'s connection: {e}"))?;
                }
                Ok(None)
            }
            Action::Run {
                process,
                sql,
                parameters,
                expected,
            } => {
                let observed = self.run(process, sql, parameters)?;
                if matches!(observed, Observed::Waits) {
                    self.replayed.waits += 1;
                }
                Ok(expected.differs(&observed, "on the server"))
            }
            Action::Rollback { process } => {
                let session = session_of(&mut self.sessions, process)?;
                session
                    .send("ROLLBACK", &[])
                    .and_then(|()| settle_first(&mut [session], &self.observer))
                    .map_err(|e| format!("cannot roll back {process}'s transaction: {e}"))?;
                Ok(None)
            }
            Action::Direct { sql, changed } => {
                let seen = self
                    .db
                    .direct(sql)
                    .map_err(|e| format!("the direct SQL failed on the server: {e}"))?;
                Ok((seen != *changed)
                    .then(|| format!("changed {changed} in fencelab, {seen} on the server")))
            }
            Action::Note => Ok(None),
        }
    }

    /// A statement step: sent and settled (done, or seen waiting); or, when
    /// the process's statement waits in flight, that statement's finish.
    fn run(
        &mut self,
        process: &str,
        sql: &str,
        parameters: &fencelab_core::Values,
    ) -> Result<Observed, String> {
        let session = session_of(&mut self.sessions, process)?;
        if session.in_flight() {
            // Where fencelab saw it finish: the server must finish it too
            // (within its statement timeout), whatever it answers.
            let (_, reply) = settle_first(&mut [session], &self.observer)
                .map_err(|e| format!("{process}'s statement in flight: {e}"))?;
            return Ok(observed(sql, reply));
        }
        self.replayed.statements += 1;
        let bound: Vec<(String, fencelab_model::value::Value)> = parameters
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        session
            .send(sql, &bound)
            .map_err(|e| format!("cannot send {process}'s statement: {e}"))?;
        match session.settle(&self.observer) {
            Ok(Settled::Waiting) => Ok(Observed::Waits),
            Ok(Settled::Done(reply)) => Ok(observed(sql, reply)),
            Err(e) => Err(format!("{process}'s statement: {e}")),
        }
    }
}

fn session_of<'a>(
    sessions: &'a mut BTreeMap<String, Session>,
    process: &str,
) -> Result<&'a mut Session, String> {
    sessions
        .get_mut(process)
        .ok_or_else(|| format!("{process} has no connection (a plan out of order)"))
}

/// A reply as a replay compares it: rows written (a read's command tag
/// counts rows returned, which the engine does not count as changed, as
/// SQLite's `changes()` does not) and rows returned; a failure with the
/// server's words.
fn observed(sql: &str, reply: Reply) -> Observed {
    match reply {
        Reply::Rows {
            columns,
            rows,
            changed,
        } => Observed::Ran {
            changed: if StatementClass::of(sql) == StatementClass::Read {
                0
            } else {
                changed
            },
            returned: ResultRows { columns, rows },
        },
        Reply::Failed(error) => Observed::Fails {
            stale_snapshot: false,
            message: format!("{} (SQLSTATE {})", error.message, error.sqlstate),
        },
    }
}

#[cfg(test)]
mod tests {
    //! The replay can fail: a plan told otherwise than the server does is
    //! reported at the step, in words, for a count and for a wait.

    use super::*;
    use crate::counterexample::every_text;
    use fencelab_core::replay::Expected;
    use fencelab_core::target::Target;
    use fencelab_postgres::testing::server_for_tests;
    use std::sync::Arc;

    /// A plan of exercise 25 on the server in which a statement waits on
    /// another's lock, and the worlds it ran on; `None` when the tests
    /// skip (no server, none required).
    fn plan_with_a_wait() -> Option<(Plan, Arc<PgWorlds>)> {
        let worlds = Arc::new(PgWorlds::new(server_for_tests()?));
        let exercise = fencelab_core::bundled::exercises()
            .expect("the bundled exercises load")
            .into_iter()
            .find(|e| e.id == "insert-if-absent")
            .and_then(|e| e.on_postgres())
            .expect("exercise 25 has a [postgres] table");
        let target = Target::Server(worlds.clone());
        for texts in every_text(&exercise) {
            let procedures: Vec<_> = texts
                .texts
                .iter()
                .map(|(name, text)| fencelab_core::Procedure::parse(name, text).expect("parses"))
                .collect();
            let mut checker = target.checker(&exercise, &texts.texts).expect("a checker");
            for scenario in &exercise.scenarios {
                let report = checker.check(scenario);
                let plan = Plan::of(&exercise, &procedures, &report, exercise.journal);
                let waits = plan.steps.iter().any(|s| {
                    matches!(
                        s.action,
                        Action::Run {
                            expected: Expected::Waits,
                            ..
                        }
                    )
                });
                if waits {
                    return Some((plan, worlds));
                }
            }
        }
        panic!("no shown run of exercise 25 waits on a lock")
    }

    /// The index of the first statement step whose expectation `pick` takes.
    fn step_where(plan: &Plan, pick: impl Fn(&Expected) -> bool) -> usize {
        plan.steps
            .iter()
            .position(|s| matches!(&s.action, Action::Run { expected, .. } if pick(expected)))
            .expect("such a step")
    }

    fn expected_mut(plan: &mut Plan, at: usize) -> &mut Expected {
        match &mut plan.steps[at].action {
            Action::Run { expected, .. } => expected,
            _ => unreachable!("step_where picks statement steps"),
        }
    }

    #[test]
    fn the_plan_as_recorded_agrees_and_each_told_otherwise_is_caught_at_its_step() {
        let Some((plan, worlds)) = plan_with_a_wait() else {
            return;
        };
        let isolation = Isolation::default();
        let agreed = replay(&plan, isolation, &worlds).expect("the replay runs");
        assert!(
            agreed.differences.is_empty(),
            "{:?}",
            agreed
                .differences
                .iter()
                .map(|d| &d.what)
                .collect::<Vec<_>>()
        );
        assert!(agreed.waits >= 1);

        let mut counted = plan.clone();
        let at = step_where(
            &counted,
            |e| matches!(e, Expected::Ran { changed, .. } if *changed > 0),
        );
        if let Expected::Ran { changed, .. } = expected_mut(&mut counted, at) {
            *changed += 1;
        }
        let told = replay(&counted, isolation, &worlds).expect("the replay runs");
        assert_eq!(
            told.differences.len(),
            1,
            "{:?}",
            told.differences.iter().map(|d| &d.what).collect::<Vec<_>>()
        );
        assert_eq!(told.differences[0].event, plan.steps[at].event);
        assert!(
            told.differences[0].what.ends_with("on the server"),
            "{}",
            told.differences[0].what
        );

        let mut unwaited = plan.clone();
        let at = step_where(&unwaited, |e| matches!(e, Expected::Waits));
        *expected_mut(&mut unwaited, at) = Expected::Ran {
            changed: 0,
            returned: ResultRows::default(),
        };
        let told = replay(&unwaited, isolation, &worlds).expect("the replay runs");
        let first = told.differences.first().expect("the wait is caught");
        assert_eq!(first.event, plan.steps[at].event);
        assert!(first.what.contains("on the server"), "{}", first.what);
    }
}
