//! One scenario's exhaustive check, resumable: a [`ScenarioSearch`] runs
//! the depth-first exploration a slice of runs at a time, so a caller with
//! one thread (the page's worker) can drop a check that a newer edit made
//! stale without waiting for the scenario to end. Checking in slices gives
//! exactly the report of checking in one go: the search keeps its path,
//! its seen states and what it has spent between slices.

use super::explore::{Chooser, DepthFirst, End};
use super::{Checker, Path, Spent, in_scenario, sections, validate};
use crate::report::{
    ErrorKind, Exploration, Failure, Limit, ScenarioError, ScenarioReport, ScenarioResult,
};
use crate::scenario::{Action, Scenario};
use crate::schedule::Schedule;

/// Where a resumable search stands after a slice: a [`ScenarioSearch`]
/// (`T` its [`ScenarioReport`], as [`Checker::check`] gives it), a whole
/// suite's ([`super::SuiteSearch`]) or the line marks'
/// (`crate::protection::LineMarks`).
#[derive(Debug)]
pub enum Progress<T> {
    /// More work is left.
    Pending,
    /// What the search found; asked again, the same.
    Done(Box<T>),
}

/// What a search's report is for, which decides how much of it is made
/// once every interleaving is explored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Purpose {
    /// A report a person reads: the shown schedule is replayed with its
    /// history, beliefs and tables recorded.
    #[default]
    Shown,
    /// A verdict inside a suite that goes on (a mutant judged by every
    /// scenario): the shown schedule is still replayed, since what it spends
    /// counts against the suite's budget, but nothing is recorded. The
    /// report's verdict, schedule and spent steps are [`Purpose::Shown`]'s;
    /// it has no history, beliefs or initial tables, its failure no event
    /// index, and a history too large for the memory limit cannot arise.
    Verdict,
    /// A verdict where the suite stops at the first failure (a line mark):
    /// as [`Purpose::Verdict`], except that a failing exploration's report is
    /// its own failing run, not replayed, since nothing after it is spent.
    FirstFailure,
}

/// A scenario's check in progress. Advance it with the checker it was
/// made by, and nothing else between its slices.
pub struct ScenarioSearch {
    purpose: Purpose,
    scenario: Scenario,
    /// `None` once the scenario turned out malformed (then `report` holds
    /// its error).
    actions: Option<Vec<Action>>,
    dfs: DepthFirst,
    exploration: Exploration,
    /// The choices, process names and end of the failing or erring
    /// schedule to show so far.
    worst: Option<(Vec<usize>, Vec<String>, End)>,
    first_complete: Option<Vec<usize>>,
    /// What the exploration has spent, kept between slices.
    spent: Spent,
    sqlite_steps: u64,
    /// Whether the first slice has run (and started the budget).
    started: bool,
    report: Option<ScenarioReport>,
    /// The complete schedules run so far, kept when asked for (up to the
    /// number given), for a replay outside the engine to compare.
    visited: Option<(usize, Vec<Schedule>)>,
}

impl Checker {
    /// Starts checking `scenario` over every interleaving; see
    /// [`ScenarioSearch::advance`].
    pub fn search(&self, scenario: &Scenario) -> ScenarioSearch {
        let actions = validate(scenario);
        ScenarioSearch {
            purpose: Purpose::Shown,
            scenario: scenario.clone(),
            report: actions
                .as_ref()
                .err()
                .map(|error| ScenarioReport::errored(scenario, error.clone())),
            actions: actions.ok(),
            dfs: DepthFirst::new(self.strategy, &self.limits),
            exploration: Exploration::default(),
            worst: None,
            first_complete: None,
            spent: Spent::default(),
            sqlite_steps: 0,
            started: false,
            visited: None,
        }
    }

    /// Checks `scenario` as [`Checker::check`] does, and also gives the
    /// first `schedules_max` complete schedules the exploration ran, in the
    /// order it ran them (each replays with [`Checker::replay`]).
    pub fn check_keeping_schedules(
        &mut self,
        scenario: &Scenario,
        schedules_max: usize,
    ) -> (ScenarioReport, Vec<Schedule>) {
        let mut search = self.search(scenario);
        search.visited = Some((schedules_max, Vec::new()));
        loop {
            if let Progress::Done(report) = search.advance(self, u64::MAX) {
                let visited = search.visited.take().map(|(_, v)| v).unwrap_or_default();
                return (*report, visited);
            }
        }
    }
}

/// The most runs spent looking for a passing schedule that shows a wait
/// ([`Scenario::show_wait`]); without one the first schedule is shown. The
/// bundled contention scenario finds its wait on the second run.
const WAIT_SEARCH_RUNS_MAX: u64 = 256;

impl Checker {
    /// The choices of the first schedule, in the plain search's order and
    /// none cut, in which a process waits for a lock and then goes through,
    /// if one turns up within [`WAIT_SEARCH_RUNS_MAX`] runs and the limits.
    /// Only asked once every schedule passed, so any one found passes too.
    fn first_waiting(&mut self, scenario: &Scenario, actions: &[Action]) -> Option<Vec<usize>> {
        self.begin_budget();
        self.world.set_recording(false);
        let mut dfs = DepthFirst::unpruned(&self.limits);
        let mut found = None;
        for _ in 0..WAIT_SEARCH_RUNS_MAX {
            let path = self.run_path(scenario, actions, &mut Chooser::DepthFirst(&mut dfs), None);
            if matches!(path.end, End::Completed) && path.waits_then_goes_through() {
                found = Some(path.choices);
                break;
            }
            let spent = self.spent.procedure_steps > self.limits.steps_max
                || self.world.meter().exceeded().is_some();
            if spent || !dfs.next_branch() {
                break;
            }
        }
        self.world.set_recording(true);
        found
    }
}

impl ScenarioSearch {
    /// The same search, making its report for `purpose`.
    pub fn for_purpose(self, purpose: Purpose) -> ScenarioSearch {
        ScenarioSearch { purpose, ..self }
    }

    /// Runs at most `runs_max` more runs (complete schedules and cut
    /// branches alike: each is one run from the seed), then says whether
    /// the check is done. Once done, it gives the same report again.
    pub fn advance(&mut self, checker: &mut Checker, runs_max: u64) -> Progress<ScenarioReport> {
        if let Some(report) = &self.report {
            return Progress::Done(Box::new(report.clone()));
        }
        let Some(actions) = self.actions.take() else {
            return Progress::Pending;
        };
        self.resume_budget(checker, &actions);
        checker.world.set_recording(false);
        let mut outcome = None;
        for _ in 0..runs_max {
            if let Err(error) = self.within_limits(checker) {
                outcome = Some(Err(error));
                break;
            }
            let path = checker.run_path(
                &self.scenario,
                &actions,
                &mut Chooser::DepthFirst(&mut self.dfs),
                None,
            );

            self.tally(path);
            checker.spent.memory_bytes = checker.spent.memory_bytes.max(self.dfs.seen().bytes());
            if !self.dfs.next_branch() {
                let passed = self.worst.is_none();
                outcome = Some(self.finish_exploring(checker).map(|shown| (shown, passed)));
                break;
            }
        }
        checker.world.set_recording(true);
        let Some(explored) = outcome else {
            self.spent = checker.spent;
            self.sqlite_steps = checker.world.meter().spent();
            self.actions = Some(actions);
            return Progress::Pending;
        };
        let report = match explored {
            Ok(_) if let Some(failed) = self.failed_unreplayed() => {
                let mut report = failed;
                report.exploration = std::mem::take(&mut self.exploration);
                checker.add_spent(&mut report.exploration);
                report
            }
            Ok((shown, passed)) => {
                let mut exploration = std::mem::take(&mut self.exploration);
                checker.add_spent(&mut exploration);
                let shown = if passed && self.scenario.show_wait {
                    checker
                        .first_waiting(&self.scenario, &actions)
                        .unwrap_or(shown)
                } else {
                    shown
                };
                // The shown schedule is one more run, with a budget of its own.
                checker.begin_budget();
                checker.world.set_recording(self.purpose == Purpose::Shown);
                let mut report = checker.replay_choices(&self.scenario, &actions, &shown);
                checker.world.set_recording(true);
                report.exploration = exploration;
                checker.add_spent(&mut report.exploration);
                report
            }
            Err(error) => {
                let mut report =
                    ScenarioReport::errored(&self.scenario, in_scenario(&self.scenario, error));
                checker.add_spent(&mut report.exploration);
                report
            }
        };
        self.report = Some(report.clone());
        Progress::Done(Box::new(report))
    }

    /// Starts the check's budget on the first slice; on a later one, goes
    /// on from what the earlier slices spent.
    fn resume_budget(&mut self, checker: &mut Checker, actions: &[Action]) {
        if self.started {
            checker.spent = self.spent;
            checker
                .world
                .meter()
                .resume(self.sqlite_steps, checker.limits.sqlite_steps_max);
        } else {
            self.started = true;
            checker.begin_budget();
            self.exploration.sections = sections(actions);
        }
    }

    /// The error that stops exploring before another run, if a limit is
    /// reached.
    fn within_limits(&self, checker: &Checker) -> Result<(), ScenarioError> {
        if checker.spent.procedure_steps > checker.limits.steps_max {
            return Err(checker.out_of_steps(&self.exploration));
        }
        if let Some(error) = checker.over_budget(self.dfs.seen().bytes()) {
            return Err(error);
        }
        if self.exploration.schedules >= checker.limits.schedules_max {
            return Err(ScenarioError::of(ErrorKind::Limit {
                limit: Limit::Schedules {
                    maximum: checker.limits.schedules_max,
                },
            }));
        }
        Ok(())
    }

    /// Counts a run, and keeps it if it is the schedule to show so far: the
    /// worst (errors outrank failures, then shorter, then earlier), else
    /// the first complete one.
    fn tally(&mut self, path: Path) {
        let Path {
            end,
            choices,
            names,
            ..
        } = path;
        if let Some((max, visited)) = &mut self.visited
            && visited.len() < *max
            && matches!(end, End::Completed | End::Failed(_) | End::Error(_))
        {
            let mut schedule = Schedule::new();
            for name in &names {
                schedule.push(name.clone());
            }
            visited.push(schedule);
        }
        match end {
            End::Pruned => self.exploration.pruned += 1,
            // Exploration never waits for a person nor stops early.
            End::Awaiting(_) | End::Stopped => {}
            End::Completed => {
                self.exploration.schedules += 1;
                self.first_complete.get_or_insert(choices);
            }
            End::Failed(_) | End::Error(_) => {
                self.exploration.schedules += 1;
                let rank = |e: &End| matches!(e, End::Error(_)) as u8;
                let better = self.worst.as_ref().is_none_or(|(shown, _, shown_end)| {
                    (rank(&end), std::cmp::Reverse(choices.len()))
                        > (rank(shown_end), std::cmp::Reverse(shown.len()))
                });
                if better {
                    self.worst = Some((choices, names, end));
                }
            }
        }
    }

    /// The choices of the schedule to show, once every run is done, or the
    /// limit the exploration reached.
    fn finish_exploring(&mut self, checker: &Checker) -> Result<Vec<usize>, ScenarioError> {
        if checker.spent.procedure_steps > checker.limits.steps_max {
            return Err(checker.out_of_steps(&self.exploration));
        }
        if let Some(error) = checker.over_budget(self.dfs.seen().bytes()) {
            return Err(error);
        }
        self.exploration.states = self.dfs.seen().states();
        Ok(self
            .worst
            .as_ref()
            .map(|(choices, _, _)| choices.clone())
            .or(self.first_complete.take())
            .unwrap_or_default())
    }

    /// For [`Purpose::FirstFailure`], once explored: the report of the
    /// failing run to show, as the exploration ran it (unrecorded). Its
    /// replay would end in the same failure (a run is a function of its
    /// choices), and the suite stops at it, so nothing it would spend counts.
    fn failed_unreplayed(&mut self) -> Option<ScenarioReport> {
        let failed = matches!(self.worst, Some((_, _, End::Failed(_))));
        if self.purpose != Purpose::FirstFailure || !failed {
            return None;
        }
        let (_, names, End::Failed(failure)) = self.worst.take()? else {
            return None;
        };
        let failure: Failure = *failure;
        Some(ScenarioReport {
            name: self.scenario.name.clone(),
            summary: self.scenario.summary.clone(),
            result: ScenarioResult::Failed { failure },
            schedule: names.into_iter().collect(),
            exploration: Exploration::default(),
            lanes: Vec::new(),
            initial_tables: Vec::new(),
            history: Vec::new(),
            beliefs: Vec::new(),
        })
    }
}
