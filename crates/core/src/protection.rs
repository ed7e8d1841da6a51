//! The line marks' judgement ("what if this line were gone?"): every
//! generated mutant of some passing procedure texts is judged by the suite
//! up to its first kill (the counterexample a mark shows; see
//! `mutation::Judge`), and the verdicts become one mark per line
//! (`fencelab_model::protection::marks`). The page's worker runs it a piece
//! at a time between newer requests (a slice of runs of one scenario, of
//! the texts' own check or of one mutant's judgement); `fencelab protect`
//! runs it to the end.
//! Both get the same marks: slicing changes when the work is done, never
//! what it finds.
//!
//! Mutants past their budget (`fencelab_model::mutate::MUTANTS_PER_RUN_MAX`
//! and kin) are never judged: the answer is an error naming the bound,
//! before anything runs. Only texts that pass every scenario have their
//! mutants judged (otherwise every mutant would look caught): the texts'
//! own check comes first, a slice per piece, as a check of an edit runs.
//! Must never panic on any text.

use crate::check::{Limits, Progress, SuiteSearch};
use crate::exercise::ExerciseExt;
use crate::mutate::{Context, Mutant, MutantVerdict, OverBudget};
use crate::mutation::{self, Base, Judge, Judging, Kills, NotPassing, Spread, Whose};
use crate::report::ExerciseReport;
use crate::target::Target;
use fencelab_model::exercise::Exercise;
use fencelab_model::protection::marks;
pub use fencelab_model::protection::{
    Caught, LineMark, LineStatus, ProcedureMarks, ProtectionReport, caught_sentence,
    unmarked_sentence, unprotected_sentence,
};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Why no line is marked. Its `Display` is the sentence the page's worker
/// and `fencelab protect` show.
#[derive(Clone, Debug, PartialEq)]
pub enum Unjudged {
    /// The texts' mutants are past their budget.
    OverBudget(OverBudget),
    /// The texts do not pass a scenario.
    NotPassing(NotPassing),
}

impl std::fmt::Display for Unjudged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unjudged::OverBudget(over) => over.fmt(f),
            Unjudged::NotPassing(why) => why.fmt(f),
        }
    }
}

/// A judgement of line marks in progress; see the module docs.
pub struct LineMarks {
    exercise: Rc<Exercise>,
    /// Every procedure's text, in the exercise's order.
    texts: Vec<(String, String)>,
    stage: Stage,
}

/// Where a judgement is.
enum Stage {
    /// Nothing will be judged, for this reason.
    Refused(Unjudged),
    /// Checking the texts themselves.
    Checking {
        suite: Box<SuiteSearch>,
        mutants: Vec<Mutant>,
        /// The mutants that are the exercise's declared equivalents: id to
        /// the declared reason.
        equivalent: BTreeMap<String, String>,
    },
    /// Judging the mutants, `verdicts[i]` of `mutants[i]`.
    Judging {
        /// The texts' own report, which passes: what a scenario that does
        /// not name a mutant's procedure reports of that mutant too.
        report: Box<ExerciseReport>,
        /// One world for every mutant's judgement.
        judge: Box<Judge>,
        mutants: Vec<Mutant>,
        equivalent: BTreeMap<String, String>,
        verdicts: Vec<MutantVerdict>,
        /// The next mutant's judgement, between pieces.
        current: Option<Judging>,
    },
    Done(Result<ProtectionReport, Unjudged>),
}

impl LineMarks {
    /// The judgement of the line marks of `texts` (every procedure's text,
    /// as `Exercise::texts_with` gives them) in `exercise`, whose schema
    /// `context` describes: generates their mutants (pure text work, within
    /// its budget); nothing runs yet.
    pub fn new(exercise: Rc<Exercise>, texts: Vec<(String, String)>, context: &Context) -> Self {
        let stage = match mutation::generate(&exercise, &texts, context) {
            Err(over) => Stage::Refused(Unjudged::OverBudget(over)),
            Ok(generated) => Stage::Checking {
                suite: Box::new(exercise.suite(&texts, &exercise.scenarios, Limits::default())),
                equivalent: learner_equivalents(&exercise, &generated.mutants, context),
                mutants: generated.mutants,
            },
        };
        LineMarks {
            exercise,
            texts,
            stage,
        }
    }

    /// Does one piece: a slice of at most `runs_max` runs of the texts' own
    /// check, or of one scenario of one mutant's judgement (the scenarios
    /// whose reports the texts' own check has are taken from it on the
    /// way). Once every mutant is judged, the marks; asked again, the same
    /// answer.
    pub fn advance(&mut self, runs_max: u64) -> Progress<Result<ProtectionReport, Unjudged>> {
        match &mut self.stage {
            Stage::Refused(why) => {
                let why = why.clone();
                self.stage = Stage::Done(Err(why));
            }
            Stage::Checking {
                suite,
                mutants,
                equivalent,
            } => {
                let Progress::Done(report) = suite.advance(runs_max) else {
                    return Progress::Pending;
                };
                self.stage = match mutation::not_passing(&report, Whose::Learner) {
                    Some(why) => Stage::Done(Err(Unjudged::NotPassing(why))),
                    None => Stage::Judging {
                        judge: Box::new(Judge::new(
                            &self.exercise,
                            Base {
                                texts: &self.texts,
                                report: &report,
                            },
                        )),
                        report,
                        mutants: std::mem::take(mutants),
                        equivalent: std::mem::take(equivalent),
                        verdicts: Vec::new(),
                        current: None,
                    },
                };
            }
            Stage::Judging {
                report,
                judge,
                mutants,
                equivalent,
                verdicts,
                current,
            } => match mutants.get(verdicts.len()) {
                Some(mutant) => {
                    let base = Base {
                        texts: &self.texts,
                        report,
                    };
                    let exercise = &self.exercise;
                    let judging = current
                        .get_or_insert_with(|| judge.start(exercise, base, mutant, Kills::First));
                    if let Some(verdict) = judge.advance(exercise, base, judging, runs_max) {
                        *current = None;
                        verdicts.push(mutation::as_declared(verdict, equivalent.get(&mutant.id)));
                    }
                    return Progress::Pending;
                }
                None => {
                    let report = marks(&self.exercise, &self.texts, mutants, verdicts);
                    self.stage = Stage::Done(Ok(report));
                }
            },
            Stage::Done(answer) => return Progress::Done(Box::new(answer.clone())),
        }
        match &self.stage {
            Stage::Done(answer) => Progress::Done(Box::new(answer.clone())),
            _ => Progress::Pending,
        }
    }

    /// The marks, in one go, the mutants judged in the runs `spread` makes
    /// (`fencelab protect` shares them over the machine's cores, as
    /// `fencelab mutate` does); the verdicts are the ones
    /// [`LineMarks::advance`] finds one at a time.
    pub fn finish(mut self, spread: &dyn Spread) -> Result<ProtectionReport, Unjudged> {
        loop {
            if let Stage::Judging {
                report,
                judge: _,
                mutants,
                equivalent,
                verdicts,
                current,
            } = &mut self.stage
            {
                // A mutant half-judged in pieces is judged again, whole.
                *current = None;
                let rest = &mutants[verdicts.len()..];
                let base = Base {
                    texts: &self.texts,
                    report,
                };
                let judged = mutation::judge_all(
                    &Target::Sqlite,
                    &self.exercise,
                    base,
                    rest,
                    Kills::First,
                    spread,
                );
                for (mutant, verdict) in rest.iter().zip(judged) {
                    verdicts.push(mutation::as_declared(verdict, equivalent.get(&mutant.id)));
                }
            }
            if let Progress::Done(answer) = self.advance(u64::MAX) {
                return *answer;
            }
        }
    }

    /// How many mutants are judged, once the texts' own check has passed.
    pub fn mutants(&self) -> Option<usize> {
        match &self.stage {
            Stage::Judging { mutants, .. } => Some(mutants.len()),
            _ => None,
        }
    }
}

/// The learner's mutants that are the exercise's declared equivalents, with
/// the declared reason. A declaration names a mutant of the reference by id
/// (procedure, line, column, operator); a learner's mutant with that id is
/// the same change only if it also reads the same, so the description must
/// match the reference mutant's too. References past the mutant budget
/// declare nothing that can match (`fencelab check` refuses such an
/// exercise's declarations).
fn learner_equivalents(
    exercise: &Exercise,
    mutants: &[Mutant],
    context: &Context,
) -> BTreeMap<String, String> {
    if exercise.equivalents.is_empty() {
        return BTreeMap::new();
    }
    match mutation::generate(exercise, &mutation::reference_texts(exercise), context) {
        Ok(reference) => mutation::declared_equivalents(exercise, mutants, &reference.mutants),
        Err(_) => BTreeMap::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn bundled(id: &str) -> Exercise {
        crate::bundled::exercises()
            .expect("the bundled exercises load")
            .into_iter()
            .find(|e| e.id == id)
            .expect("a bundled exercise")
    }

    /// The judgement of `exercise`'s references.
    fn of_references(exercise: &Exercise) -> LineMarks {
        let context = mutation::context(exercise).expect("its schema builds");
        LineMarks::new(
            Rc::new(exercise.clone()),
            mutation::reference_texts(exercise),
            &context,
        )
    }

    #[test]
    fn the_reference_claim_has_protected_lines_each_with_a_counterexample_that_fails() {
        let exercise = bundled("claim-compare-and-set");
        let mut judgement = of_references(&exercise);
        let mut pieces = 0;
        while judgement.mutants().is_none() {
            assert!(matches!(judgement.advance(8), Progress::Pending));
            pieces += 1;
        }
        assert!(pieces > 1, "the texts' own check comes first, in slices");
        let total = judgement.mutants().unwrap_or_default();
        assert!(total > 0, "the operators generate mutants of the claim");
        let mut pieces = 0;
        let answer = loop {
            match judgement.advance(8) {
                Progress::Pending => pieces += 1,
                Progress::Done(answer) => break answer,
            }
        };
        assert!(pieces >= total, "at least a piece per mutant");
        let report = answer.expect("the reference passes");
        assert_eq!(report.mutants, total);
        assert_eq!(
            Ok(report.clone()),
            of_references(&exercise).finish(&mutation::InOrder),
            "one piece at a time, or in one go on every core: the same marks"
        );
        let protected: Vec<&LineMark> = report
            .marks("claim")
            .iter()
            .filter(|m| matches!(m.status, LineStatus::Protected { .. }))
            .collect();
        assert!(!protected.is_empty(), "{report:#?}");
        // Every caught change replays into the failure it names.
        for mark in protected {
            let LineStatus::Protected { caught, .. } = &mark.status else {
                unreachable!()
            };
            assert!(!caught.is_empty(), "line {}", mark.line);
            for change in caught {
                let texts = exercise.texts_with(&BTreeMap::from([(
                    "claim".to_string(),
                    change.mutant_text.clone(),
                )]));
                let scenario = exercise
                    .scenarios
                    .iter()
                    .find(|s| s.name == change.scenario)
                    .expect("a scenario of the exercise");
                let replayed = exercise
                    .checker(&texts)
                    .expect("the mutant parses")
                    .replay(scenario, &change.schedule);
                assert_eq!(
                    replayed.failure().map(ToString::to_string).as_deref(),
                    Some(change.sentence.as_str()),
                    "line {}: {}",
                    mark.line,
                    change.description
                );
            }
        }
    }

    #[test]
    fn texts_that_do_not_pass_are_not_judged_and_say_which_scenario() {
        let exercise = bundled("claim-compare-and-set");
        let context = mutation::context(&exercise).expect("its schema builds");
        let starts = exercise.start_edits();
        let answer = LineMarks::new(
            Rc::new(exercise.clone()),
            exercise.texts_with(&starts),
            &context,
        )
        .finish(&mutation::InOrder);
        let why = answer.expect_err("the naive start fails a scenario");
        let Unjudged::NotPassing(NotPassing {
            whose, scenario, ..
        }) = &why
        else {
            panic!("not judged because the texts fail, not {why:?}");
        };
        assert_eq!(*whose, Whose::Learner);
        let first_failing = exercise
            .run(&starts)
            .scenarios
            .into_iter()
            .find(|s| !s.passed())
            .map(|s| s.name);
        assert_eq!(
            Some(scenario),
            first_failing.as_ref(),
            "the first scenario the texts fail"
        );
    }

    #[test]
    fn a_declared_equivalent_is_the_same_change_only_if_it_reads_the_same() {
        let exercises = crate::bundled::exercises().expect("the bundled exercises load");
        let exercise = exercises
            .iter()
            .find(|e| !e.equivalents.is_empty())
            .expect("an exercise that declares equivalents");
        let context = mutation::context(exercise).expect("its schema builds");
        let reference =
            mutation::generate(exercise, &mutation::reference_texts(exercise), &context)
                .expect("a bundled reference is within the mutant budget")
                .mutants;
        // On the reference itself, every declaration names one of its mutants.
        let found = learner_equivalents(exercise, &reference, &context);
        let declared: BTreeSet<&str> = exercise
            .equivalents
            .iter()
            .map(|e| e.mutant.as_str())
            .collect();
        assert_eq!(
            found.keys().map(String::as_str).collect::<BTreeSet<_>>(),
            declared
        );
        // The same id on a learner's text that changes something else there
        // is not the declared change.
        let mut other = reference
            .iter()
            .find(|m| declared.contains(m.id.as_str()))
            .expect("a declared mutant")
            .clone();
        other.description = format!("{} (elsewhere)", other.description);
        assert_eq!(
            learner_equivalents(exercise, &[other], &context),
            BTreeMap::new()
        );
    }
}
