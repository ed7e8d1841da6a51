//! Running exercises: loading one with its schema tried on SQLite, and the
//! engine's side of an [`Exercise`] (a checker for a set of texts, the runs
//! of every scenario, and the check of the exercise itself).
//!
//! The format and its loader are data and live in `fencelab_model::exercise`.

use crate::check::{Checker, Limits, SuiteSearch};
use crate::mutation::EquivalentJudgement;
use crate::world::World;
pub use fencelab_model::exercise::scenarios_from_toml;
use fencelab_model::exercise::{Exercise, LoadError};
use fencelab_model::procedure::Procedure;
use fencelab_model::report::{
    ExerciseCheck, ExerciseReport, MutantCheck, Place, ScenarioError, Unusable, Verdict,
};
use fencelab_model::scenario::Scenario;
use std::collections::BTreeMap;

/// Reads and validates an exercise file, and builds its world once to prove
/// the schema works. `file` names it in errors.
pub fn load(file: &str, text: &str) -> Result<Exercise, LoadError> {
    Exercise::from_toml_checked(file, text, |exercise| {
        World::with_journal(
            &exercise.schema,
            [],
            exercise.constants.clone(),
            exercise.journal,
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    })
}

/// What the engine does with an exercise.
pub trait ExerciseExt {
    /// A checker for these exact procedure texts, in this exercise's world.
    /// Build it once per set of texts and check each scenario with it.
    fn checker(&self, texts: &[(String, String)]) -> Result<Checker, Unusable>;

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
    /// every mutant is caught by at least one.
    fn check(&self) -> ExerciseCheck {
        self.check_judged().0
    }

    /// As [`ExerciseExt::check`], with the judgement of each `[[equivalent]]`
    /// declaration its `stale_equivalents` were made from (a grader shows
    /// each declaration as a test of its own).
    fn check_judged(&self) -> (ExerciseCheck, Result<Vec<EquivalentJudgement>, String>);
}

impl ExerciseExt for Exercise {
    fn checker(&self, texts: &[(String, String)]) -> Result<Checker, Unusable> {
        let procedures = texts
            .iter()
            .map(|(name, text)| Procedure::parse(name, text))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| Unusable {
                // The place is carried apart, not repeated in the sentence.
                error: ScenarioError {
                    message: error.message.clone(),
                    place: Some(Place {
                        procedure: error.procedure.clone(),
                        position: Some(error.position),
                    }),
                },
            })?;
        Checker::with_journal(
            &self.schema,
            procedures,
            self.constants.clone(),
            self.model.clone(),
            self.journal,
        )
        .map_err(|error| Unusable {
            error: ScenarioError::new(error.to_string()),
        })
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
        SuiteSearch::new(&self.id, self.checker(texts), scenarios, limits)
    }

    fn check_judged(&self) -> (ExerciseCheck, Result<Vec<EquivalentJudgement>, String>) {
        let reference = self.run(&BTreeMap::new());
        let mutants = self
            .mutants
            .iter()
            .map(|mutant| {
                let report = self.run_texts(&self.texts_of_mutant(mutant), &self.scenarios);
                let caught_by = report
                    .scenarios
                    .iter()
                    .filter(|s| s.verdict() == Verdict::Failed)
                    .map(|s| s.name.clone())
                    .collect::<Vec<_>>();
                let errored_in = report
                    .scenarios
                    .iter()
                    .filter_map(|s| Some((s.name.clone(), s.error()?.to_string())))
                    .collect::<Vec<_>>();
                MutantCheck {
                    name: mutant.name.clone(),
                    explanation: mutant.explanation.clone(),
                    caught: !caught_by.is_empty(),
                    caught_by,
                    errored_in,
                }
            })
            .collect::<Vec<_>>();
        let judged = crate::mutation::judge_equivalents(self);
        let stale_equivalents = crate::mutation::stale_of(&judged);
        let ok = reference.failed == 0
            && mutants.iter().all(|m| m.caught && m.errored_in.is_empty())
            && stale_equivalents.is_empty();
        let check = ExerciseCheck {
            title: self.title.clone(),
            reference,
            mutants,
            stale_equivalents,
            ok,
        };
        (check, judged)
    }
}
