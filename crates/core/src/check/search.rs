//! One scenario's check, resumable: a [`ScenarioSearch`] runs the
//! depth-first exploration (or, with [`Strategy::Random`], the random one
//! of `random.rs`) a slice of runs at a time, so a caller with
//! one thread (the page's worker) can drop a check that a newer edit made
//! stale without waiting for the scenario to end. Checking in slices gives
//! exactly the report of checking in one go: the search keeps its path,
//! its seen states and what it has spent between slices.

use super::end::End;
use super::explore::{Chooser, DepthFirst, Strategy};
use super::random::RandomWalk;
use super::{Checker, Path, Spent, in_scenario, report_of, sections, validate};
use crate::history::Event;
use crate::report::{ErrorKind, Exploration, Limit, ScenarioError, ScenarioReport};
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
    /// What the search found. A [`ScenarioSearch`] gives it once (it
    /// holds a whole history, which a copy kept for a second asking cost as
    /// much as 7 % of a check); the suite's and the line marks' give it
    /// again when asked.
    Done(Box<T>),
}

/// What a search's report is for, which decides how it is made once
/// every interleaving is explored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Purpose {
    /// A report a person reads: the shown schedule's run with its
    /// history, beliefs and tables recorded. The search's first run is
    /// recorded as it is explored, and is the report when it is the run to
    /// show (the first that completes, when every one passes; the only
    /// one, in a scenario without a concurrent section), its steps counted
    /// twice, as a replay would have. Any other run to show is run once
    /// more, recorded.
    #[default]
    Shown,
    /// A verdict alone (a mutant's: line marks, `fencelab mutate`): the
    /// report is the exploration's own run of the schedule to show, as it
    /// ran (unrecorded), with what that run spent counted once more, as
    /// the replay would have spent it. A run being a function of its
    /// choices, the verdict, failure, error, schedule and procedure steps
    /// are [`Purpose::Shown`]'s; the report has no history, beliefs or
    /// initial tables, its failure no event index, and a history too large
    /// for the memory limit cannot arise.
    Verdict,
}

/// A run kept as the one to show, and what it spent.
struct Kept {
    path: Path,
    /// What it recorded, if it ran with recording on.
    history: Option<Vec<Event>>,
    /// The bytes of that history, as the memory limit counts them.
    history_bytes: u64,
    procedure_steps: u64,
    sqlite_steps: u64,
}

/// What a search not yet done keeps between slices: the scenario's
/// actions and the strategy's own state.
struct Pending {
    actions: Vec<Action>,
    exploring: Exploring,
}

/// A search's strategy with its state: each carries only its own.
enum Exploring {
    /// Every interleaving ([`Strategy::Plain`], [`Strategy::Reduced`]).
    DepthFirst(DepthFirst),
    /// Schedules drawn at random ([`Strategy::Random`]).
    Random(RandomWalk),
}

/// A scenario's check in progress. It owns what it searches (the scenario,
/// its strategy and that strategy's state) and what it has spent, but not
/// the checker, whose texts, limits and world it runs: advance it only with
/// the checker that made it, changing none of those between its slices.
pub struct ScenarioSearch {
    pub(super) purpose: Purpose,
    pub(super) scenario: Scenario,
    /// `None` once the scenario turned out malformed (then `report` holds
    /// its error), once the search is done, and while a slice runs.
    pending: Option<Pending>,
    pub(super) exploration: Exploration,
    /// The failing or erring run to show so far.
    worst: Option<Kept>,
    /// The first run that completed.
    first_complete: Option<Kept>,
    /// What the exploration has spent, kept between slices.
    spent: Spent,
    sqlite_steps: u64,
    /// Whether the first slice has run (and started the budget).
    started: bool,
    /// The report to give at the next [`ScenarioSearch::advance`]: a
    /// malformed scenario's error, from the start.
    report: Option<ScenarioReport>,
    /// Whether the report has been given.
    given: bool,
    /// The complete schedules run so far, kept when asked for (up to the
    /// number given), for a replay outside the engine to compare.
    visited: Option<(usize, Vec<Schedule>)>,
}

impl Checker {
    /// Starts checking `scenario` over every interleaving (or as
    /// [`Checker::set_strategy`] chose); see [`ScenarioSearch::advance`].
    pub fn search(&self, scenario: &Scenario) -> ScenarioSearch {
        self.search_by(scenario, self.strategy)
    }

    /// Starts checking `scenario` by `strategy`, which the search keeps:
    /// the checker's own strategy is neither read nor changed.
    pub(super) fn search_by(&self, scenario: &Scenario, strategy: Strategy) -> ScenarioSearch {
        let actions = validate(scenario);
        ScenarioSearch {
            purpose: Purpose::Shown,
            scenario: scenario.clone(),
            report: actions
                .as_ref()
                .err()
                .map(|error| ScenarioReport::errored(scenario, error.clone())),
            pending: actions.ok().map(|actions| Pending {
                actions,
                exploring: match strategy {
                    Strategy::Random { seed, runs } => {
                        Exploring::Random(RandomWalk::new(seed, runs))
                    }
                    Strategy::Plain | Strategy::Reduced => Exploring::DepthFirst(DepthFirst::new(
                        strategy,
                        &self.limits,
                        self.resuming,
                    )),
                },
            }),
            exploration: Exploration::default(),
            worst: None,
            first_complete: None,
            spent: Spent::default(),
            sqlite_steps: 0,
            started: false,
            given: false,
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
    /// The first run, in the plain search's order and none cut, in which
    /// a process waits for a lock and then goes through, if one turns up
    /// within [`WAIT_SEARCH_RUNS_MAX`] runs and the limits. Only asked once
    /// every schedule passed, so any one found passes too.
    fn first_waiting(&mut self, scenario: &Scenario, actions: &[Action]) -> Option<Kept> {
        self.begin_budget();
        self.world.set_recording(false);
        let mut dfs = DepthFirst::unpruned(&self.limits, self.resuming);
        let mut found = None;
        for _ in 0..WAIT_SEARCH_RUNS_MAX {
            let run = self.run_kept(scenario, actions, &mut dfs);
            if matches!(run.path.end, End::Completed) && run.path.waits_then_goes_through() {
                found = Some(run);
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

    /// The search's next run (as [`Checker::run_path`]), with what it
    /// spent of the budget. It resumes from the deepest image the search
    /// kept on its path, unless charging what reaching it cost would take
    /// the budget past a limit: a replay would stop at the limit on the
    /// way, and only a replay tells where.
    fn run_kept(&mut self, scenario: &Scenario, actions: &[Action], dfs: &mut DepthFirst) -> Kept {
        let procedure_steps = self.spent.procedure_steps;
        let sqlite_steps = self.world.meter().spent();
        let resume = dfs.resume_point().filter(|resume| {
            let (procedures, sqlite) = resume.cost();
            procedure_steps.saturating_add(procedures) <= self.limits.steps_max
                && sqlite_steps.saturating_add(sqlite) <= self.world.meter().limit()
        });
        let path = self.run_path(
            scenario,
            actions,
            &mut Chooser::DepthFirst(dfs),
            None,
            resume.as_deref(),
        );
        Kept {
            history_bytes: self.world.history_bytes(),
            history: self.world.recording().then(|| self.world.take_history()),
            procedure_steps: self.spent.procedure_steps.saturating_sub(procedure_steps),
            sqlite_steps: self.world.meter().spent().saturating_sub(sqlite_steps),
            path,
        }
    }
}

impl ScenarioSearch {
    /// The same search, making its report for `purpose`.
    pub fn for_purpose(self, purpose: Purpose) -> ScenarioSearch {
        ScenarioSearch { purpose, ..self }
    }

    /// Runs at most `runs_max` more runs (complete schedules and cut
    /// branches alike: each is one run from the seed), then says whether
    /// the check is done, with its report. The report is given once:
    /// asked again, the search answers with an engine error saying so.
    pub fn advance(&mut self, checker: &mut Checker, runs_max: u64) -> Progress<ScenarioReport> {
        if let Some(report) = self.report.take() {
            self.given = true;
            return Progress::Done(Box::new(report));
        }
        if self.given {
            return Progress::Done(Box::new(ScenarioReport::errored(
                &self.scenario,
                ScenarioError::of(ErrorKind::Engine {
                    error: crate::Error::ReportGiven,
                }),
            )));
        }
        let Some(mut pending) = self.pending.take() else {
            return Progress::Pending;
        };
        let actions = &pending.actions;
        self.resume_budget(checker, actions);
        let report = match &mut pending.exploring {
            Exploring::Random(walk) => self.advance_random(walk, checker, actions, runs_max),
            Exploring::DepthFirst(dfs) => self.advance_depth_first(dfs, checker, actions, runs_max),
        };
        let Some(report) = report else {
            self.spent = checker.spent;
            self.sqlite_steps = checker.world.meter().spent();
            self.pending = Some(pending);
            return Progress::Pending;
        };
        self.given = true;
        Progress::Done(Box::new(report))
    }

    /// Runs at most `runs_max` more runs of the depth-first search; its
    /// report once every interleaving is explored or a limit is reached.
    fn advance_depth_first(
        &mut self,
        dfs: &mut DepthFirst,
        checker: &mut Checker,
        actions: &[Action],
        runs_max: u64,
    ) -> Option<ScenarioReport> {
        let one_run = self.exploration.sections == 0;
        let mut outcome = None;
        for _ in 0..runs_max {
            if let Err(error) = self.within_limits(checker, dfs) {
                outcome = Some(Err(error));
                break;
            }
            let run = self.explore_one(dfs, checker, actions, one_run);
            self.tally(run);
            checker.spent.memory_bytes = checker.spent.memory_bytes.max(dfs.seen().bytes());
            if !dfs.next_branch() {
                let passed = self.worst.is_none();
                outcome = Some(
                    self.finish_exploring(dfs, checker)
                        .map(|shown| (shown, passed)),
                );
                break;
            }
        }
        Some(match outcome? {
            Ok((shown, passed)) => self.shown_report(checker, actions, shown, passed, one_run),
            Err(error) => self.stopped(checker, error),
        })
    }

    /// The report of a search that `error` stopped, with what it spent.
    pub(super) fn stopped(&self, checker: &Checker, error: ScenarioError) -> ScenarioReport {
        let mut report =
            ScenarioReport::errored(&self.scenario, in_scenario(&self.scenario, error));
        checker.add_spent(&mut report.exploration);
        report
    }

    /// The limit a search has reached, if it has spent its procedure steps
    /// or SQLite steps, or holds more than its memory allows in
    /// `seen_bytes` of explored states: whichever strategy reached it, a
    /// limit is the verdict, never a pass.
    pub(super) fn budget_left(
        &self,
        checker: &Checker,
        seen_bytes: u64,
    ) -> Result<(), ScenarioError> {
        if checker.spent.procedure_steps > checker.limits.steps_max {
            return Err(checker.out_of_steps(&self.exploration));
        }
        checker.over_budget(seen_bytes).map_or(Ok(()), Err)
    }

    /// The report of an exploration that ran to its end: the run it shows
    /// (`shown`, or the first that waits and goes through when every run
    /// `passed` and the scenario asks for one), kept or replayed, with what
    /// the whole search spent.
    fn shown_report(
        &mut self,
        checker: &mut Checker,
        actions: &[Action],
        shown: Option<Kept>,
        passed: bool,
        one_run: bool,
    ) -> ScenarioReport {
        let mut exploration = std::mem::take(&mut self.exploration);
        checker.add_spent(&mut exploration);
        // Without a choice, no process can wait and go through.
        let shown = if passed && self.scenario.show_wait && !one_run {
            checker.first_waiting(&self.scenario, actions).or(shown)
        } else {
            shown
        };
        match shown {
            // The kept run is the report when it was recorded, or when only
            // its verdict is asked for; its steps count once more, as the
            // replay's would.
            Some(kept) if kept.history.is_some() || self.purpose == Purpose::Verdict => {
                let history = kept.history.unwrap_or_default();
                let mut report = report_of(&self.scenario, kept.path, history);
                exploration.procedure_steps += kept.procedure_steps;
                exploration.sqlite_steps += kept.sqlite_steps;
                exploration.memory_bytes = exploration.memory_bytes.max(kept.history_bytes);
                report.exploration = exploration;
                report
            }
            shown => {
                // The shown schedule is one more run, with a budget of its
                // own.
                let choices = shown.map(|kept| kept.path.choices).unwrap_or_default();
                checker.begin_budget();
                checker.world.set_recording(self.purpose == Purpose::Shown);
                let mut report = checker.replay_choices(&self.scenario, actions, &choices);
                checker.world.set_recording(true);
                report.exploration = exploration;
                checker.add_spent(&mut report.exploration);
                report
            }
        }
    }

    /// Runs the exploration's next run. The first is recorded when a
    /// person reads the report: it is the run shown when every run passes,
    /// or the only run, so that run needs no replay. Its history counts
    /// against the memory limit only in a scenario of one run, where the
    /// run is the report; otherwise it is speculative, as the exploration
    /// would not hold it: once past the limit it is dropped and the run
    /// goes on unrecorded (`Run::within_budget`), so the replay meets the
    /// limit where it always did.
    fn explore_one(
        &mut self,
        dfs: &mut DepthFirst,
        checker: &mut Checker,
        actions: &[Action],
        one_run: bool,
    ) -> Kept {
        let first = self.exploration.schedules + self.exploration.pruned == 0;
        let recorded =
            first && self.purpose == Purpose::Shown && (one_run || checker.recording_first_runs);
        checker.world.set_recording(recorded);
        checker.recording_speculatively = recorded && !one_run;
        let mut run = checker.run_kept(&self.scenario, actions, dfs);
        if checker.recording_speculatively && run.history_bytes > checker.limits.memory_bytes_max {
            // Past the limit in its last step, or dropped during the run.
            run.history = None;
        }
        checker.recording_speculatively = false;
        checker.world.set_recording(true);
        run
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
    fn within_limits(&self, checker: &Checker, dfs: &DepthFirst) -> Result<(), ScenarioError> {
        self.budget_left(checker, dfs.seen().bytes())?;
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
    fn tally(&mut self, run: Kept) {
        if let Some((max, visited)) = &mut self.visited
            && visited.len() < *max
            && matches!(
                run.path.end,
                End::Completed | End::Failed(_) | End::Error(_)
            )
        {
            let mut schedule = Schedule::new();
            for name in &run.path.names {
                schedule.push(name.clone());
            }
            visited.push(schedule);
        }
        match &run.path.end {
            End::Pruned => self.exploration.pruned += 1,
            // Exploration never waits for a person nor stops early.
            End::Awaiting(_) | End::Stopped => {}
            End::Completed => {
                self.exploration.schedules += 1;
                self.first_complete.get_or_insert(run);
            }
            End::Failed(_) | End::Error(_) => {
                self.exploration.schedules += 1;
                let rank = |e: &End| matches!(e, End::Error(_)) as u8;
                let key = |kept: &Kept| {
                    (
                        rank(&kept.path.end),
                        std::cmp::Reverse(kept.path.choices.len()),
                    )
                };
                if self
                    .worst
                    .as_ref()
                    .is_none_or(|shown| key(&run) > key(shown))
                {
                    self.worst = Some(run);
                }
            }
        }
    }

    /// The run to show, once every run is done, or the limit the
    /// exploration reached.
    fn finish_exploring(
        &mut self,
        dfs: &DepthFirst,
        checker: &Checker,
    ) -> Result<Option<Kept>, ScenarioError> {
        self.budget_left(checker, dfs.seen().bytes())?;
        self.exploration.states = dfs.seen().states();
        Ok(self.worst.take().or(self.first_complete.take()))
    }
}
