//! Mutation testing of an exercise's scenario suite: every generated mutant
//! of every editable procedure's reference is run against the whole suite
//! and judged killed, survived, erroring only, or declared equivalent.
//!
//! The mutants come from `fencelab_model::mutate` (pure text work, within
//! its `MutantBudget`), given the schema's columns by `mutants.rs` (whose
//! names this module re-exports); this module runs the suite, and only on
//! texts that pass it: a mutant of a text
//! that already fails would look killed by the text's own failure. A
//! [`Judge`] builds one checker for all the mutants of a base and runs, of
//! each, only the scenarios that name its procedure. Natively the mutants
//! are spread over the machine's cores; in wasm (one thread) they run in
//! order.

use crate::check::{Checker, Limits, Progress, Purpose, ScenarioSearch, SuiteBudget};
pub use crate::mutants::{
    EquivalentJudgement, EquivalentsJudged, Unmatchable, context, declared_equivalents, generate,
    judge_equivalents, judge_equivalents_on, reference_texts, stale_equivalents, stale_of,
    unmatched_equivalents,
};
use crate::mutate::{ExerciseMutation, Kill, Mutant, MutantResult, MutantVerdict, StaleEquivalent};
use crate::procedure::Procedure;
use crate::report::{ExerciseReport, ScenarioReport, Unusable, Verdict};
use crate::target::Target;
use fencelab_model::exercise::Exercise;
use std::collections::BTreeMap;
use std::ops::Range;

/// Whose texts a judgement of mutants is about: the exercise's references
/// (`fencelab mutate`) or the learner's own (the page's line marks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whose {
    Reference,
    Learner,
}

/// Texts whose mutants must not be judged: they do not pass `scenario`
/// (for `problem`), so each mutant would look caught by that failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotPassing {
    pub whose: Whose,
    pub scenario: String,
    pub problem: String,
}

impl std::fmt::Display for NotPassing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let whose = match self.whose {
            Whose::Reference => "the reference",
            Whose::Learner => "your procedure",
        };
        write!(
            f,
            "{whose} does not pass `{}` ({}), so no mutant of it is judged: each would look \
             caught by that failure",
            crate::text::visible(&self.scenario),
            self.problem
        )
    }
}

/// Why the mutants of the texts `report` checked must not be judged, if
/// they must not: a scenario those texts do not pass. Both `fencelab
/// mutate` and the page's line marks ask this before judging.
pub fn not_passing(report: &ExerciseReport, whose: Whose) -> Option<NotPassing> {
    let scenario = report.scenarios.iter().find(|s| !s.passed())?;
    Some(NotPassing {
        whose,
        scenario: scenario.name.clone(),
        problem: scenario.problem().unwrap_or_default(),
    })
}

/// Runs the exercise's suite against every generated mutant of its
/// references, judged in the runs `spread` makes; an error, never a score,
/// when the mutants are past their budget or the references do not pass.
pub fn run(exercise: &Exercise, spread: &dyn Spread) -> ExerciseMutation {
    run_on(&Target::Sqlite, exercise, spread)
}

/// As [`run`], every world on `target` (`exercise` as it runs there), the
/// operators knowing the tables as `target` declares them.
pub fn run_on(target: &Target, exercise: &Exercise, spread: &dyn Spread) -> ExerciseMutation {
    let unjudged = |error: String| ExerciseMutation {
        exercise: exercise.id.clone(),
        error: Some(error),
        ..ExerciseMutation::default()
    };
    let context = match target.context(exercise) {
        Ok(context) => context,
        Err(error) => return unjudged(error.to_string()),
    };
    let base = reference_texts(exercise);
    let generated = match generate(exercise, &base, &context) {
        Ok(generated) => generated,
        Err(over) => return unjudged(over.to_string()),
    };
    let reference = target
        .suite(exercise, &base, &exercise.scenarios, Limits::default())
        .finish();
    if let Some(why) = not_passing(&reference, Whose::Reference) {
        return unjudged(why.to_string());
    }
    let base = Base {
        texts: &base,
        report: &reference,
    };
    let verdicts = judge_all(
        target,
        exercise,
        base,
        &generated.mutants,
        Kills::Every,
        spread,
    );
    let equivalent = declared_equivalents(exercise, &generated.mutants, &generated.mutants);
    let mut results: Vec<MutantResult> = generated
        .mutants
        .into_iter()
        .zip(verdicts)
        .map(|(mutant, verdict)| MutantResult { mutant, verdict })
        .collect();
    let mut stale = unmatched_equivalents(exercise, results.iter().map(|r| &r.mutant));
    for result in &mut results {
        let declared = equivalent.get(&result.mutant.id);
        if let (Some(_), MutantVerdict::Killed { by }) = (declared, &result.verdict) {
            stale.push(StaleEquivalent::Killed {
                mutant: result.mutant.id.clone(),
                scenario: by[0].scenario.clone(),
            });
        }
        let verdict = std::mem::replace(&mut result.verdict, MutantVerdict::Survived);
        result.verdict = as_declared(verdict, declared);
    }
    ExerciseMutation {
        exercise: exercise.id.clone(),
        results,
        dropped_unparsable: generated.dropped_unparsable,
        dropped_duplicate: generated.dropped_duplicate,
        stale_equivalents: stale,
        error: None,
    }
}

/// The verdict on a mutant, given whether the exercise declares it
/// equivalent (with the reason): a declared equivalent that a scenario
/// kills is killed all the same (`fencelab mutate` and `check` call the
/// declaration stale); any other declared one is equivalent, whatever the
/// suite made of it.
pub fn as_declared(verdict: MutantVerdict, declared: Option<&String>) -> MutantVerdict {
    match (verdict, declared) {
        (verdict @ MutantVerdict::Killed { .. }, _) | (verdict, None) => verdict,
        (_, Some(reason)) => MutantVerdict::Equivalent {
            reason: reason.clone(),
        },
    }
}

/// The texts with `mutant` in place of its procedure.
pub fn texts_with_mutant(base: &[(String, String)], mutant: &Mutant) -> Vec<(String, String)> {
    base.iter()
        .map(|(name, text)| {
            let text = if *name == mutant.procedure {
                &mutant.text
            } else {
                text
            };
            (name.clone(), text.clone())
        })
        .collect()
}

/// How much of the suite a mutant's judgement needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kills {
    /// Every scenario that kills it: `fencelab mutate` lists them all.
    Every,
    /// Only the first in the suite's order: the line marks show one
    /// counterexample per change (`fencelab_model::protection`), so the
    /// suite stops there.
    First,
}

/// The texts a mutant was made from, and what the whole suite found of
/// them: the ground each mutant's judgement stands on.
#[derive(Clone, Copy)]
pub struct Base<'a> {
    /// Every procedure's text, in the exercise's order.
    pub texts: &'a [(String, String)],
    /// Their report: every scenario of the exercise in its order, within
    /// [`Limits::default`].
    pub report: &'a ExerciseReport,
}

/// Judges mutants of one base, one after another, in one world: the
/// checker (its schema, seed and connections) is built once from the base
/// texts, and each mutant's procedure is put in place for its judgement and
/// the base's put back after it. It owns that checker and the base's
/// parsed procedures, not the exercise or the base, which each call takes:
/// give it the exercise and base it was made for, and advance only a
/// [`Judging`] its own [`Judge::start`] began.
pub struct Judge {
    /// `Err` when the base texts cannot run (then each mutant is judged in
    /// a world of its own).
    checker: Result<Checker, Unusable>,
    /// Where its worlds are (a mutant that cannot run in the judge's is
    /// judged in a world of its own there).
    target: Target,
    /// The base's procedures, parsed, by name: what is put back.
    originals: BTreeMap<String, Procedure>,
}

impl Judge {
    pub fn new(exercise: &Exercise, base: Base<'_>) -> Judge {
        Judge::on(&Target::Sqlite, exercise, base)
    }

    /// As [`Judge::new`], its world on `target`.
    pub fn on(target: &Target, exercise: &Exercise, base: Base<'_>) -> Judge {
        Judge {
            checker: target.checker(exercise, base.texts),
            target: target.clone(),
            originals: base
                .texts
                .iter()
                .filter_map(|(name, text)| Some((name.clone(), Procedure::parse(name, text).ok()?)))
                .collect(),
        }
    }

    /// The suite's verdict on one mutant of `base`: [`Judge::start`], then
    /// [`Judge::advance`] with no bound on runs until it gives the verdict.
    ///
    /// Only the scenarios that name the mutated procedure are run. Any other
    /// runs exactly the texts `base.report` ran (procedures never call one
    /// another), so its report is the one found there, and it is taken from
    /// there whenever the suite's budget gives the scenario the limits it had
    /// in that run: always, for a suite within its budget. A report being a
    /// function of the texts, the scenario and its limits (the world is reset
    /// before every run), the verdict is the one running every scenario in a
    /// world of its own gives (tested on bundled mutants,
    /// `tests/suite/mutation.rs`).
    pub fn verdict(
        &mut self,
        exercise: &Exercise,
        base: Base<'_>,
        mutant: &Mutant,
        kills: Kills,
    ) -> MutantVerdict {
        let mut judging = self.start(exercise, base, mutant, kills);
        loop {
            if let Some(verdict) = self.advance(exercise, base, &mut judging, u64::MAX) {
                return verdict;
            }
        }
    }

    /// Starts judging `mutant`: puts its procedure in place in the judge's
    /// world (until [`Judge::advance`] gives the verdict). Texts that cannot
    /// run there make every scenario the same error, and nothing runs to
    /// report it: such a verdict is found here, whole.
    pub fn start(
        &mut self,
        exercise: &Exercise,
        base: Base<'_>,
        mutant: &Mutant,
        kills: Kills,
    ) -> Judging {
        let original = self.originals.get(&mutant.procedure);
        let (Ok(checker), Some(_), Ok(mutated)) = (
            &mut self.checker,
            original,
            Procedure::parse(&mutant.procedure, &mutant.text),
        ) else {
            let texts = texts_with_mutant(base.texts, mutant);
            let report = self
                .target
                .suite(exercise, &texts, &exercise.scenarios, Limits::default())
                .finish();
            return Judging::Whole(verdict_of_suite(&report));
        };
        checker.set_procedure(mutated);
        Judging::Scenarios(Box::new(Scenarios {
            procedure: mutant.procedure.clone(),
            kills,
            ours: SuiteBudget::new(Limits::default()),
            theirs: SuiteBudget::new(Limits::default()),
            next: 0,
            found: Vec::new(),
            killed: false,
            search: None,
        }))
    }

    /// Goes on judging the mutant [`Judge::start`] began in `judging` (which
    /// holds what it needs of the mutant): the scenarios whose reports
    /// `base` has already, and at most `runs_max` runs of one other
    /// scenario. Once the verdict is found, puts the base's procedure back
    /// and gives it.
    pub fn advance(
        &mut self,
        exercise: &Exercise,
        base: Base<'_>,
        judging: &mut Judging,
        runs_max: u64,
    ) -> Option<MutantVerdict> {
        let walk = match judging {
            Judging::Whole(verdict) => return Some(verdict.clone()),
            Judging::Scenarios(walk) => walk,
        };
        let Ok(checker) = &mut self.checker else {
            return Some(walk.verdict(base));
        };
        if walk.slice(checker, exercise, base, runs_max) {
            if let Some(original) = self.originals.get(&walk.procedure) {
                checker.set_procedure(original.clone());
            }
            return Some(walk.verdict(base));
        }
        None
    }
}

/// A mutant's judgement in progress ([`Judge::start`]).
pub enum Judging {
    /// Found at once: the texts cannot run in the judge's world.
    Whole(MutantVerdict),
    /// The suite's scenarios in order, a slice of one scenario's runs per
    /// [`Judge::advance`] at most.
    Scenarios(Box<Scenarios>),
}

/// The scenarios of a mutant's judgement, in the suite's order.
pub struct Scenarios {
    /// The mutated procedure's name.
    procedure: String,
    kills: Kills,
    /// What the mutant's suite has left.
    ours: SuiteBudget,
    /// What the base's suite had left at the same scenario.
    theirs: SuiteBudget,
    /// The index of the next scenario to judge.
    next: usize,
    found: Vec<Found>,
    killed: bool,
    /// The scenario being run, between slices.
    search: Option<ScenarioSearch>,
}

/// One scenario's report in a mutant's judgement: the base's (by index;
/// a report carries its shown schedule's history and tables, too much to
/// copy per mutant), or one of its own.
enum Found {
    Known(usize),
    Ran(Box<ScenarioReport>),
}

impl Scenarios {
    /// Judges the scenarios whose reports the base has, and at most
    /// `runs_max` runs of one other; whether the judgement is done.
    fn slice(
        &mut self,
        checker: &mut Checker,
        exercise: &Exercise,
        base: Base<'_>,
        runs_max: u64,
    ) -> bool {
        loop {
            if let Some(search) = &mut self.search {
                let Progress::Done(report) = search.advance(checker, runs_max) else {
                    return false;
                };
                self.search = None;
                self.ours.spend(&report);
                return self.found(Found::Ran(report), base)
                    || self.next >= exercise.scenarios.len();
            }
            let Some(scenario) = exercise.scenarios.get(self.next) else {
                return true;
            };
            let known = base
                .report
                .scenarios
                .get(self.next)
                .filter(|known| known.name == scenario.name);
            let unchanged = known.is_some()
                && !scenario.names_procedure(&self.procedure)
                && self.ours.next_limits().is_some()
                && self.ours.next_limits() == self.theirs.next_limits();
            if let Some(known) = known {
                self.theirs.spend(known);
                if unchanged {
                    self.ours.spend(known);
                    if self.found(Found::Known(self.next), base) {
                        return true;
                    }
                    continue;
                }
            }
            // Its report is made for the verdict alone.
            match self.ours.begin(checker, scenario) {
                Ok(search) => self.search = Some(search.for_purpose(Purpose::Verdict)),
                Err(unrun) => {
                    if self.found(Found::Ran(unrun), base) {
                        return true;
                    }
                }
            }
        }
    }

    /// Counts the next scenario's report; whether it ends the judgement
    /// (the first kill, when only that is asked for).
    fn found(&mut self, found: Found, base: Base<'_>) -> bool {
        self.next += 1;
        self.killed |= found.report(base).is_some_and(|r| r.failure().is_some());
        self.found.push(found);
        self.killed && self.kills == Kills::First
    }

    /// The verdict of the scenarios judged.
    fn verdict(&self, base: Base<'_>) -> MutantVerdict {
        verdict_of(self.found.iter().filter_map(|found| found.report(base)))
    }
}

impl Found {
    fn report<'a>(&'a self, base: Base<'a>) -> Option<&'a ScenarioReport> {
        match self {
            Found::Known(index) => base.report.scenarios.get(*index),
            Found::Ran(report) => Some(report),
        }
    }
}

/// A mutant's verdict from the whole suite's report of its texts: what
/// [`Judge::verdict`] with [`Kills::Every`] finds without running the whole
/// suite.
pub fn verdict_of_suite(report: &ExerciseReport) -> MutantVerdict {
    verdict_of(report.scenarios.iter())
}

/// A mutant's verdict from its scenarios' reports: killed by each that
/// fails, else erroring only where any errs, else survived.
fn verdict_of<'a>(reports: impl Iterator<Item = &'a ScenarioReport> + Clone) -> MutantVerdict {
    let by: Vec<Kill> = reports
        .clone()
        .filter_map(|s| {
            Some(Kill {
                scenario: s.name.clone(),
                sentence: s.failure()?.to_string(),
                schedule: s.schedule.clone(),
            })
        })
        .collect();
    if !by.is_empty() {
        return MutantVerdict::Killed { by };
    }
    let errors: Vec<(String, String)> = reports
        .filter(|s| s.verdict() == Verdict::Error)
        .filter_map(|s| Some((s.name.clone(), s.error()?.to_string())))
        .collect();
    if errors.is_empty() {
        MutantVerdict::Survived
    } else {
        MutantVerdict::ErrorsOnly { errors }
    }
}

/// Judges one run of the mutants, `range` of them, in a world of its own,
/// and gives their verdicts in order. Safe to call from any thread.
pub type JudgeRun<'a> = dyn Fn(Range<usize>) -> Vec<MutantVerdict> + Sync + 'a;

/// How the caller shares out the judging of `count` mutants: it calls
/// `judge` on runs that cover `0..count` once each, on whatever threads it
/// has, and gives back every verdict in the mutants' order. The core has no
/// threads of its own ([`InOrder`] judges them all in one run, as the
/// page's worker must); `fencelab mutate` and `fencelab protect` share the
/// runs over the machine's cores.
pub trait Spread {
    fn spread(&self, count: usize, judge: &JudgeRun<'_>) -> Vec<MutantVerdict>;
}

/// Every mutant in one run, on the calling thread.
pub struct InOrder;

impl Spread for InOrder {
    fn spread(&self, count: usize, judge: &JudgeRun<'_>) -> Vec<MutantVerdict> {
        judge(0..count)
    }
}

/// The suite's verdict on each of `mutants` of `base`, in their order,
/// judged in the runs `spread` makes.
pub(crate) fn judge_all(
    target: &Target,
    exercise: &Exercise,
    base: Base<'_>,
    mutants: &[Mutant],
    kills: Kills,
    spread: &dyn Spread,
) -> Vec<MutantVerdict> {
    spread.spread(mutants.len(), &|range: Range<usize>| {
        let mut judge = Judge::on(target, exercise, base);
        mutants[range]
            .iter()
            .map(|m| judge.verdict(exercise, base, m, kills))
            .collect()
    })
}
