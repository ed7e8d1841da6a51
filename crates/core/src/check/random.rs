//! Random search, the strategy of a [`ScenarioSearch`] for scenarios too
//! large to explore exhaustively ([`Strategy::Random`]): schedules drawn
//! from a seeded SplitMix64, each run from the seed image, up to the first
//! that fails or errs, a slice of runs per advance. The sequence is
//! portable, so a seed that fails reproduces the same schedule natively and
//! in wasm. The report is that schedule (or the last) replayed, with its
//! history, and the seed in its exploration figures.
//!
//! Its runs are bounded by the scenario's [`super::Limits`] inside each run
//! (a run past a limit errs, which ends the search), never between runs:
//! the count of runs asked for is the bound on their number. A search its
//! budget stopped reports the limit, as a depth-first search does, never
//! the stopped run replayed on a budget of its own.

use super::Checker;
use super::end::End;
use super::explore::Chooser;
use super::search::{Purpose, ScenarioSearch};
use crate::random::SplitMix64;
use crate::report::ScenarioReport;
use crate::scenario::Action;

/// A random search's state between slices.
pub(super) struct RandomWalk {
    rng: SplitMix64,
    seed: u64,
    /// The runs asked for.
    runs: u64,
    /// The runs done so far.
    done: u64,
    /// The choices of the latest run: the schedule to show.
    last: Vec<usize>,
    /// Whether the latest run failed or erred, which ends the search.
    found: bool,
}

impl RandomWalk {
    pub(super) fn new(seed: u64, runs: u64) -> RandomWalk {
        RandomWalk {
            rng: SplitMix64::new(seed),
            seed,
            runs,
            done: 0,
            last: Vec::new(),
            found: false,
        }
    }
}

impl ScenarioSearch {
    /// Runs at most `runs_max` more of `walk`'s schedules; once the walk
    /// has found a failure or run every schedule asked for, the report of
    /// its last run, replayed with a budget of its own.
    pub(super) fn advance_random(
        &mut self,
        walk: &mut RandomWalk,
        checker: &mut Checker,
        actions: &[Action],
        runs_max: u64,
    ) -> Option<ScenarioReport> {
        checker.world.set_recording(false);
        let mut ran = 0;
        while walk.done < walk.runs && !walk.found {
            if ran == runs_max {
                checker.world.set_recording(true);
                return None;
            }
            let mut chooser = Chooser::Random(&mut walk.rng);
            let path = checker.run_path(&self.scenario, actions, &mut chooser, None, None);
            ran += 1;
            walk.done += 1;
            walk.last = path.choices;
            walk.found = matches!(path.end, End::Failed(_) | End::Error(_));
        }
        checker.world.set_recording(true);
        self.exploration.schedules = walk.done;
        // A run the budget stopped would pass replayed on a budget of its
        // own: the limit is the verdict, as in a depth-first search.
        let mut report = match self.budget_left(checker, 0) {
            Err(error) => self.stopped(checker, error),
            Ok(()) => self.replayed(checker, actions, &walk.last),
        };
        report.exploration.schedules = walk.done;
        report.exploration.seed = Some(walk.seed);
        Some(report)
    }

    /// The report of the schedule `choices`, replayed with a budget of its
    /// own, with what the walk spent.
    fn replayed(
        &mut self,
        checker: &mut Checker,
        actions: &[Action],
        choices: &[usize],
    ) -> ScenarioReport {
        let mut exploration = std::mem::take(&mut self.exploration);
        checker.add_spent(&mut exploration);
        checker.begin_budget();
        checker.world.set_recording(self.purpose == Purpose::Shown);
        let mut report = checker.replay_choices(&self.scenario, actions, choices);
        checker.world.set_recording(true);
        report.exploration = exploration;
        checker.add_spent(&mut report.exploration);
        report
    }
}
