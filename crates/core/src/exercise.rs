//! Running exercises: loading one with its schema tried on SQLite, and the
//! engine's side of an [`Exercise`] (a checker for a set of texts, the runs
//! of every scenario, and the check of the exercise itself, resumable as
//! [`CheckSearch`]).
//!
//! The format and its loader are data and live in `fencelab_model::exercise`.

use crate::Error;
use crate::check::{Checker, Limits, Progress, SuiteSearch};
use crate::mutants::EquivalentsJudged;
use crate::target::Target;
use crate::world::World;
use fencelab_model::exercise::Exercise;
#[cfg(feature = "loader")]
pub use fencelab_model::exercise::scenarios_from_toml;
use fencelab_model::report::{ExerciseCheck, ExerciseReport, KillMatrix, Unusable, VerdictCell};
use fencelab_model::scenario::Scenario;
use std::collections::BTreeMap;

/// Reads and validates an exercise file, and builds its world once to prove
/// the schema works. `file` names it in errors.
#[cfg(feature = "loader")]
pub fn load(file: &str, text: &str) -> Result<Exercise, fencelab_model::LoadError> {
    Exercise::from_toml_checked(file, text, |exercise| {
        try_schema(exercise).map_err(|error| error.to_string())
    })
}

/// Builds the exercise's world once: whether its schema and seed rows work
/// on SQLite, and SQLite's error when they do not (its `Display` is the
/// sentence a load error shows). [`load`]'s last check.
pub fn try_schema(exercise: &Exercise) -> Result<(), Error> {
    World::with_journal(
        &exercise.schema,
        [],
        exercise.constants.clone(),
        exercise.journal,
    )
    .map(|_| ())
}

/// What the engine does with an exercise.
pub trait ExerciseExt {
    /// A checker for these exact procedure texts, in this exercise's world.
    /// Build it once per set of texts and check each scenario with it.
    fn checker(&self, texts: &[(String, String)]) -> Result<Checker, Unusable>;

    /// As [`ExerciseExt::checker`], renewing `kept` (a checker this
    /// exercise built before, for any of its texts: [`Checker::renew`])
    /// instead of building one, when the texts parse. Texts that do not
    /// leave `kept` where it is, for the next texts.
    fn checker_reusing(
        &self,
        texts: &[(String, String)],
        kept: &mut Option<Checker>,
    ) -> Result<Checker, Unusable>;

    /// Runs every scenario with `edits` in place of the named procedures.
    fn run(&self, edits: &BTreeMap<String, String>) -> ExerciseReport;

    /// Runs `scenarios` against these exact procedure texts.
    fn run_texts(&self, texts: &[(String, String)], scenarios: &[Scenario]) -> ExerciseReport {
        self.run_texts_with_limits(texts, scenarios, Limits::default())
    }

    /// As [`ExerciseExt::run_texts`], with other exploration bounds.
    fn run_texts_with_limits(
        &self,
        texts: &[(String, String)],
        scenarios: &[Scenario],
        limits: Limits,
    ) -> ExerciseReport {
        self.suite(texts, scenarios, limits).finish()
    }

    /// The check of `scenarios` against these texts, to run a slice at a
    /// time (see [`SuiteSearch`]); nothing runs yet.
    fn suite(
        &self,
        texts: &[(String, String)],
        scenarios: &[Scenario],
        limits: Limits,
    ) -> SuiteSearch;

    /// Checks the exercise itself: the reference passes every scenario, and
    /// every named broken variant is caught by at least one.
    fn check(&self) -> ExerciseCheck {
        self.check_judged().0
    }

    /// As [`ExerciseExt::check`], with the judgement of each `[[equivalent]]`
    /// declaration its `stale_equivalents` were made from (a grader shows
    /// each declaration as a test of its own).
    fn check_judged(&self) -> (ExerciseCheck, EquivalentsJudged);
}

impl ExerciseExt for Exercise {
    fn checker(&self, texts: &[(String, String)]) -> Result<Checker, Unusable> {
        self.checker_reusing(texts, &mut None)
    }

    fn checker_reusing(
        &self,
        texts: &[(String, String)],
        kept: &mut Option<Checker>,
    ) -> Result<Checker, Unusable> {
        Target::Sqlite.checker_reusing(self, texts, kept)
    }

    fn run(&self, edits: &BTreeMap<String, String>) -> ExerciseReport {
        self.run_texts(&self.texts_with(edits), &self.scenarios)
    }

    fn suite(
        &self,
        texts: &[(String, String)],
        scenarios: &[Scenario],
        limits: Limits,
    ) -> SuiteSearch {
        Target::Sqlite.suite(self, texts, scenarios, limits)
    }

    fn check_judged(&self) -> (ExerciseCheck, EquivalentsJudged) {
        CheckSearch::new(self.clone()).finish_judged()
    }
}

/// The parts of an exercise's own check, in the order [`CheckSearch`] does
/// them: the suite against the reference, against the starting texts, and
/// against each named broken variant, then the `[[equivalent]]`
/// declarations matched against the generated mutants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckPart {
    Reference,
    Start,
    /// The broken variant at this index of the exercise's.
    Variant(usize),
    Equivalents,
    /// Every part is done.
    Done,
}

/// An exercise's own check in progress ([`ExerciseExt::check`], a piece at
/// a time): it owns the exercise, and each [`CheckSearch::advance`] runs at
/// most so many runs of one scenario of the current part's suite
/// ([`CheckPart`]), as a [`SuiteSearch`] does, or judges the declarations.
/// The authoring view's worker drops a stale draft's check between two
/// pieces; `fencelab check` runs it to the end, timing each part.
pub struct CheckSearch {
    exercise: Exercise,
    /// Where its suites run.
    target: Target,
    /// The part the next piece works on.
    part: CheckPart,
    /// The current part's suite, between its pieces.
    suite: Option<SuiteSearch>,
    check: ExerciseCheck,
    judged: Option<EquivalentsJudged>,
    /// Schedules run to their end by the suites finished so far.
    schedules: u64,
}

impl CheckSearch {
    /// The check of `exercise`; nothing runs yet.
    pub fn new(exercise: Exercise) -> CheckSearch {
        CheckSearch::on(Target::Sqlite, exercise)
    }

    /// The check of `exercise` (as `target` runs it) on `target`.
    pub fn on(target: Target, exercise: Exercise) -> CheckSearch {
        let scenarios = exercise.scenarios.iter().map(|s| s.name.clone()).collect();
        CheckSearch {
            check: ExerciseCheck {
                title: exercise.title.clone(),
                reference: ExerciseReport::new(&exercise.id, Vec::new()),
                start: Vec::new(),
                matrix: KillMatrix::new(scenarios),
                stale_equivalents: Vec::new(),
            },
            exercise,
            target,
            part: CheckPart::Reference,
            suite: None,
            judged: None,
            schedules: 0,
        }
    }

    /// The part the next piece works on.
    pub fn part(&self) -> CheckPart {
        self.part
    }

    /// Schedules run to their end by every suite this check has finished
    /// (each scenario's `exploration.schedules`): the work a benchmark
    /// divides the check's time by, which the check's condensed rows of
    /// the starting texts and the variants no longer carry.
    pub fn schedules(&self) -> u64 {
        self.schedules
    }

    /// Runs at most `runs_max` more runs of the current part's suite (one
    /// scenario's at most), or judges the declarations; once every part is
    /// done, the whole check (again when asked again).
    pub fn advance(&mut self, runs_max: u64) -> Progress<ExerciseCheck> {
        let suite = match &mut self.suite {
            Some(suite) => suite,
            None => match self.part_texts() {
                Some(texts) => self.suite.insert(self.target.suite(
                    &self.exercise,
                    &texts,
                    &self.exercise.scenarios,
                    Limits::default(),
                )),
                None => return self.judge_declarations(),
            },
        };
        let Progress::Done(report) = suite.advance(runs_max) else {
            return Progress::Pending;
        };
        self.suite = None;
        self.schedules += report
            .scenarios
            .iter()
            .map(|s| s.exploration.schedules)
            .sum::<u64>();
        let exercise = &self.exercise;
        self.part = match self.part {
            CheckPart::Reference => {
                self.check.reference = *report;
                CheckPart::Start
            }
            CheckPart::Start => {
                self.check.start = VerdictCell::row(&report);
                CheckPart::Variant(0)
            }
            CheckPart::Variant(index) => {
                if let Some(variant) = exercise.variants.get(index) {
                    self.check
                        .matrix
                        .push(&variant.name, &variant.explanation, &report);
                }
                CheckPart::Variant(index + 1)
            }
            part @ (CheckPart::Equivalents | CheckPart::Done) => part,
        };
        if let CheckPart::Variant(index) = self.part
            && index >= exercise.variants.len()
        {
            self.part = CheckPart::Equivalents;
        }
        Progress::Pending
    }

    /// Every procedure's text in the current part, if it runs the suite.
    fn part_texts(&self) -> Option<Vec<(String, String)>> {
        let exercise = &self.exercise;
        match self.part {
            CheckPart::Reference => Some(exercise.texts_with(&BTreeMap::new())),
            CheckPart::Start => Some(exercise.texts_with(&exercise.start_edits())),
            CheckPart::Variant(index) => exercise
                .variants
                .get(index)
                .map(|variant| exercise.texts_of_variant(variant)),
            CheckPart::Equivalents | CheckPart::Done => None,
        }
    }

    /// The last part: judges the declarations, once, and gives the check.
    fn judge_declarations(&mut self) -> Progress<ExerciseCheck> {
        if self.judged.is_none() {
            let judged = crate::mutants::judge_equivalents_on(&self.target, &self.exercise);
            self.check.stale_equivalents = crate::mutants::stale_of(&judged);
            self.judged = Some(judged);
        }
        self.part = CheckPart::Done;
        Progress::Done(Box::new(self.check.clone()))
    }

    /// The whole check, in one go, with the judgement of each
    /// `[[equivalent]]` declaration (see [`ExerciseExt::check_judged`]).
    pub fn finish_judged(mut self) -> (ExerciseCheck, EquivalentsJudged) {
        while let Progress::Pending = self.advance(u64::MAX) {}
        let judged = self.judged.take().unwrap_or_else(|| Ok(Vec::new()));
        (self.check, judged)
    }
}
