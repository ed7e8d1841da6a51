//! A whole suite: every scenario of an exercise checked in turn, as
//! `fencelab run` and the page's worker do, within one budget, and
//! resumable ([`SuiteSearch`]) as one scenario's search is.
//!
//! Each scenario has its own [`Limits`]; without a bound on the suite, an
//! exercise with a thousand scenarios would take a thousand times the
//! longest. A [`SuiteBudget`] gives every scenario at most what the suite
//! has left, and once that is spent reports the remaining scenarios as
//! errors that say so, without running them.

use super::{Checker, Limits, Progress, ScenarioSearch, Strategy};
use crate::report::{ErrorKind, ExerciseReport, Limit, ScenarioError, ScenarioReport, Unusable};
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

    /// Starts checking `scenario` with `checker` within what is left (then
    /// advance the search, and give its report to [`SuiteBudget::spend`]),
    /// or reports it unrun once the suite's budget is spent.
    pub fn begin(
        &mut self,
        checker: &mut Checker,
        scenario: &Scenario,
    ) -> Result<ScenarioSearch, Box<ScenarioReport>> {
        let Some(limits) = self.next_limits() else {
            return Err(Box::new(ScenarioReport::errored(
                scenario,
                ScenarioError::of(ErrorKind::Limit {
                    limit: Limit::Suite {
                        scenarios: SUITE_SCENARIOS_OF_BUDGET,
                    },
                }),
            )));
        };
        checker.set_limits(limits);
        Ok(checker.search(scenario))
    }

    /// The limits the next scenario is checked within: its own, cut to
    /// what the suite has left; `None` once that is spent (the scenario is
    /// then reported unrun). A scenario's report is a function of its
    /// texts, itself and these limits, nothing else.
    pub fn next_limits(&self) -> Option<Limits> {
        if self.sqlite_steps_left == 0 || self.procedure_steps_left == 0 {
            return None;
        }
        Some(Limits {
            sqlite_steps_max: self.limits.sqlite_steps_max.min(self.sqlite_steps_left),
            steps_max: self.limits.steps_max.min(self.procedure_steps_left),
            ..self.limits
        })
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

/// A suite's check in progress: each scenario in turn, within what the
/// suite has left ([`SuiteBudget`]), a slice of runs per
/// [`SuiteSearch::advance`], so a caller with one thread (the page's
/// worker) can drop a check a newer edit made stale between two slices.
/// Checking in slices gives exactly the report of checking in one go
/// ([`SuiteSearch::finish`], which `ExerciseExt::run_texts` is).
pub struct SuiteSearch {
    exercise: String,
    /// Built once for the texts; every scenario is checked with it. Texts
    /// that cannot run report every scenario as their error.
    checker: Result<Checker, Unusable>,
    scenarios: Vec<Scenario>,
    /// What the remaining scenarios may still spend.
    budget: SuiteBudget,
    /// The current scenario's search, between slices.
    search: Option<ScenarioSearch>,
    reports: Vec<ScenarioReport>,
}

impl SuiteSearch {
    /// A check of `scenarios` of exercise `exercise` with `checker` (nothing
    /// runs yet); each scenario has `limits`, the suite their
    /// [`SuiteBudget`].
    pub fn new(
        exercise: &str,
        checker: Result<Checker, Unusable>,
        scenarios: &[Scenario],
        limits: Limits,
    ) -> SuiteSearch {
        SuiteSearch {
            exercise: exercise.to_string(),
            checker,
            scenarios: scenarios.to_vec(),
            budget: SuiteBudget::new(limits),
            search: None,
            reports: Vec::new(),
        }
    }

    /// The same check, each scenario searched with `strategy` (a random
    /// search: `fencelab explore --random`) instead of the default.
    pub fn with_strategy(mut self, strategy: Strategy) -> SuiteSearch {
        if let Ok(checker) = &mut self.checker {
            checker.set_strategy(strategy);
        }
        self
    }

    /// Runs at most `runs_max` more runs of the current scenario (one that
    /// needs none, malformed or unrun, is reported at once), then says
    /// whether every scenario has its report.
    pub fn advance(&mut self, runs_max: u64) -> Progress<ExerciseReport> {
        if let Some(scenario) = self.scenarios.get(self.reports.len())
            && let Some(report) = slice(
                &mut self.checker,
                &mut self.budget,
                &mut self.search,
                scenario,
                runs_max,
            )
        {
            self.reports.push(report);
        }
        if self.reports.len() < self.scenarios.len() {
            return Progress::Pending;
        }
        Progress::Done(Box::new(ExerciseReport::new(
            &self.exercise,
            self.reports.clone(),
        )))
    }

    /// Every scenario's report, in one go.
    pub fn finish(mut self) -> ExerciseReport {
        loop {
            if let Progress::Done(report) = self.advance(u64::MAX) {
                return *report;
            }
        }
    }

    /// The checker the suite ran on, to serve the exercise's next texts
    /// ([`crate::ExerciseExt::checker_reusing`]); none if the texts could
    /// not run. A suite left half-way gives it back as well: its next run
    /// starts from the seed image, as every run does.
    pub fn into_checker(self) -> Option<Checker> {
        self.checker.ok()
    }

    /// How many scenarios are checked, and whether one is half-way.
    pub fn position(&self) -> (usize, bool) {
        (self.reports.len(), self.search.is_some())
    }
}

/// One slice of `scenario`, the suite's current one; its report once it is
/// done. (The suite's fields apart, so the scenario is borrowed, not copied,
/// on every slice of every keystroke's check.)
fn slice(
    checker: &mut Result<Checker, Unusable>,
    budget: &mut SuiteBudget,
    current: &mut Option<ScenarioSearch>,
    scenario: &Scenario,
    runs_max: u64,
) -> Option<ScenarioReport> {
    let checker = match checker {
        Ok(checker) => checker,
        Err(unusable) => return Some(unusable.report(scenario)),
    };
    let mut search = match current.take() {
        Some(search) => search,
        None => match budget.begin(checker, scenario) {
            Ok(search) => search,
            Err(unrun) => return Some(*unrun),
        },
    };
    match search.advance(checker, runs_max) {
        Progress::Pending => {
            *current = Some(search);
            None
        }
        Progress::Done(report) => {
            budget.spend(&report);
            Some(*report)
        }
    }
}
