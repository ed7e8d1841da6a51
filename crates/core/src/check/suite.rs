//! The budget of a whole suite: every scenario of an exercise checked in
//! turn, as `fencelab run` and the page's worker do.
//!
//! Each scenario has its own [`Limits`]; without a bound on the suite, an
//! exercise with a thousand scenarios would take a thousand times the
//! longest. A [`SuiteBudget`] gives every scenario at most what the suite
//! has left, and once that is spent reports the remaining scenarios as
//! errors that say so, without running them.

use super::{Checker, Limits, Progress, ScenarioSearch};
use crate::report::{ScenarioError, ScenarioReport};
use crate::scenario::Scenario;

/// How many scenarios' worth of SQLite and procedure steps one suite may
/// spend in all. The bundled suites spend a small fraction of one.
pub const SUITE_SCENARIOS_OF_BUDGET: u64 = 4;

/// What a suite may still spend.
pub struct SuiteBudget {
    limits: Limits,
    sqlite_steps_left: u64,
    procedure_steps_left: u64,
}

impl SuiteBudget {
    pub fn new(limits: Limits) -> SuiteBudget {
        SuiteBudget {
            limits,
            sqlite_steps_left: limits
                .sqlite_steps_max
                .saturating_mul(SUITE_SCENARIOS_OF_BUDGET),
            procedure_steps_left: limits.steps_max.saturating_mul(SUITE_SCENARIOS_OF_BUDGET),
        }
    }

    /// Checks `scenario` with `checker` within what is left, or reports it
    /// unrun once the suite's budget is spent.
    pub fn check(&mut self, checker: &mut Checker, scenario: &Scenario) -> ScenarioReport {
        let report = match self.begin(checker, scenario) {
            Ok(mut search) => loop {
                if let Progress::Done(report) = search.advance(checker, u64::MAX) {
                    break *report;
                }
            },
            Err(unrun) => return *unrun,
        };
        self.spend(&report);
        report
    }

    /// Starts checking `scenario` with `checker` within what is left (then
    /// advance the search, and give its report to [`SuiteBudget::spend`]),
    /// or reports it unrun once the suite's budget is spent.
    pub fn begin(
        &mut self,
        checker: &mut Checker,
        scenario: &Scenario,
    ) -> Result<ScenarioSearch, Box<ScenarioReport>> {
        if self.sqlite_steps_left == 0 || self.procedure_steps_left == 0 {
            return Err(Box::new(ScenarioReport::errored(
                scenario,
                ScenarioError::new(format!(
                    "not checked: the scenarios before it spent this check's budget ({} \
                     scenarios' worth of steps); this is not a pass. Check fewer scenarios at \
                     once (`fencelab run --scenario`), or make each do less work",
                    SUITE_SCENARIOS_OF_BUDGET
                )),
            )));
        }
        checker.set_limits(Limits {
            sqlite_steps_max: self.limits.sqlite_steps_max.min(self.sqlite_steps_left),
            steps_max: self.limits.steps_max.min(self.procedure_steps_left),
            ..self.limits
        });
        Ok(checker.search(scenario))
    }

    /// Takes what a scenario's check spent from what the suite has left.
    pub fn spend(&mut self, report: &ScenarioReport) {
        self.sqlite_steps_left = self
            .sqlite_steps_left
            .saturating_sub(report.exploration.sqlite_steps);
        self.procedure_steps_left = self
            .procedure_steps_left
            .saturating_sub(report.exploration.procedure_steps);
    }
}
