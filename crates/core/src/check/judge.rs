//! The interpreter's judging: what a run checks as it goes. When a call
//! ends, beliefs follow an ok outcome and its expectation is held to it;
//! after every step, the world's effects, the exclusive beliefs and the
//! scenario's invariants are judged, the invariants not again while
//! nothing they read has changed ([`Held`]). It never moves a process or
//! chooses a step: run.rs does, and asks it after each.

use super::end::End;
use super::run::{Flow, Run, engine_error};
use crate::history::{Outcome, OutcomeKind};
use crate::monitor::{OkCall, RuleError, Violation};
use crate::report::{ErrorKind, Failure, FailureCause, Place, ScenarioError};
use crate::world::ProcessId;

/// Every invariant of the run's scenario held on the committed rows as
/// `stored` says they stood and the run's tables as load `loads` filled
/// them (0: they read none); judging them cost `steps` SQLite steps.
/// Invariants are read-only queries of those alone, so while both are as they were, judging them
/// again finds the same rows at the same cost. Most steps commit nothing
/// (a read, a write inside a transaction, a step of code), and the check
/// charges the cost instead of running the queries (see
/// [`Run::invariants_hold`]).
#[derive(Clone, Copy)]
pub(super) struct Held {
    stored: crate::vfs::Stored,
    loads: u64,
    steps: u64,
}

impl Run<'_> {
    /// Updates beliefs and checks expectations when a call ends.
    pub(super) fn finished(&mut self, id: ProcessId, name: &str, outcome: &Outcome) -> Flow {
        let Some(info) = self.state.calls.remove(&id) else {
            return Ok(());
        };
        if let Outcome::Error(error) = outcome
            && info.expect.as_ref().and_then(|e| e.outcome) != Some(OutcomeKind::Error)
        {
            return Err(End::Error(Box::new(
                ScenarioError::of(ErrorKind::Call {
                    process: self.called(name),
                    procedure: info.procedure.clone(),
                    cause: error.cause,
                    message: error.message.clone(),
                })
                .at(Place {
                    procedure: error.procedure.clone(),
                    position: error.position,
                }),
            )));
        }
        if let Outcome::Ok { values } = outcome {
            let actor = self
                .state
                .processes
                .get(name)
                .map(|(_, a)| a.clone())
                .unwrap_or_default();
            let call = OkCall {
                process: &id.to_string(),
                actor: &actor,
                procedure: &info.procedure,
                arguments: &info.arguments,
                returned: values,
            };
            // Beliefs follow every ok outcome, in limit scenarios too (the
            // timeline shows them); only judging is left out there. The
            // invariants come first: a broken fence is the news, an
            // expectation that then fails is its consequence.
            let broken = self
                .state
                .monitor
                .call_ok(&self.rules.beliefs, &call)
                .map_err(rule_error)?
                .or_else(|| {
                    self.state
                        .monitor
                        .check_exclusive(self.world.clock_seconds())
                });
            if let Some(violation) = broken
                && !self.scenario.limit
            {
                return Err(self.violated(violation));
            }
        }
        if let Some(expect) = &info.expect
            && let Some(mismatch) = expect.check(outcome)
        {
            return Err(self.failed(FailureCause::Expectation {
                process: self.called(name),
                procedure: info.procedure.clone(),
                mismatch,
            }));
        }
        Ok(())
    }

    /// The invariants checked after every step.
    pub(super) fn after_step(&mut self) -> Flow {
        let clock = self.world.clock_seconds();
        while let Some(effect) = self.world.effects().get(self.state.effects_seen) {
            self.state.effects_seen += 1;
            let broken = self
                .state
                .monitor
                .effect(&self.rules.effects, effect, clock)
                .map_err(rule_error)?;
            if let Some(violation) = broken
                && !self.scenario.limit
            {
                return Err(self.violated(violation));
            }
        }
        if self.scenario.limit {
            return Ok(());
        }
        if let Some(violation) = self.state.monitor.check_exclusive(clock) {
            return Err(self.violated(violation));
        }
        self.invariants_hold()
    }

    /// Judges the scenario's invariants on the committed rows, or charges
    /// what judging them cost when nothing they read has changed since
    /// they last held ([`Held`]).
    fn invariants_hold(&mut self) -> Flow {
        if self.scenario.invariants.is_empty() {
            return Ok(());
        }
        let reads_run_tables = match self.invariants_read_run_tables {
            Some(reads) => reads,
            None => {
                let run_tables = &mut *self.run_tables;
                let reads = self
                    .scenario
                    .invariants
                    .iter()
                    .any(|invariant| run_tables.read_by(&invariant.sql));
                *self.invariants_read_run_tables.insert(reads)
            }
        };
        // Invariants that read only the exercise's tables need not wait for
        // the run's tables to be filled with what changed since.
        let loads = if reads_run_tables {
            self.run_tables
                .load(self.world, self.state.monitor.beliefs())
                .map_err(engine_error)?
        } else {
            0
        };
        let stored = self.world.stored();
        let meter = self.world.meter();
        let unchanged = self.held.filter(|held| {
            Some(held.stored) == stored
                && held.loads == loads
                // Charged in one go, the cost must not cross the check's
                // budget, which the queries would have stopped at.
                && meter.spent().saturating_add(held.steps) <= meter.limit()
        });
        if let Some(held) = unchanged {
            if cfg!(debug_assertions) {
                self.assert_still_held(held);
            }
            meter.charge(held.steps);
            return Ok(());
        }
        let spent_before = meter.spent();
        self.held = None;
        for invariant in &self.scenario.invariants {
            let Some(rows) = self
                .world
                .query_committed(&invariant.sql)
                .map_err(engine_error)?
            else {
                // A process holds the write lock; the committed state has
                // not changed, and it is checked again at the commit.
                return Ok(());
            };
            if !rows.rows.is_empty() {
                return Err(self.violated(Violation::ScenarioInvariant {
                    name: invariant.name.clone(),
                    columns: rows.columns,
                    rows: rows.rows,
                }));
            }
        }
        self.held = stored.map(|stored| Held {
            stored,
            loads,
            steps: self.world.meter().spent() - spent_before,
        });
        Ok(())
    }

    /// Debug builds judge the invariants that [`Held`] says need not be
    /// judged, and fail if they break or cost other than it says; the
    /// steps the queries spend are taken back, for the caller to charge.
    fn assert_still_held(&self, held: Held) {
        let meter = self.world.meter();
        let spent_before = meter.spent();
        for invariant in &self.scenario.invariants {
            let rows = self.world.query_committed(&invariant.sql);
            assert!(
                matches!(&rows, Ok(Some(rows)) if rows.rows.is_empty()),
                "invariant {:?} judged again on unchanged rows: {rows:?}",
                invariant.name
            );
        }
        assert_eq!(
            meter.spent() - spent_before,
            held.steps,
            "the invariants cost other than when they last held"
        );
        meter.resume(spent_before, meter.limit());
    }

    /// A failure seen after the latest history event.
    pub(super) fn failed(&self, cause: FailureCause) -> End {
        End::Failed(Box::new(Failure::new(
            cause,
            self.world.history().len().checked_sub(1),
        )))
    }

    fn violated(&self, violation: Violation) -> End {
        self.failed(FailureCause::Invariant { violation })
    }
}

fn rule_error(error: RuleError) -> End {
    End::Error(Box::new(ScenarioError::of(ErrorKind::Rule { error })))
}
