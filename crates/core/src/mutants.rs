//! Generating an exercise's mutants, and matching its `[[equivalent]]`
//! declarations against them: text work beside the schema's columns, never
//! a run. `mutation` judges the mutants (re-exporting these, its public
//! names), and an exercise's own check judges its declarations here
//! without depending on the judging.

use crate::Error;
use crate::mutate::{Context, Mutant, MutantBudget, Mutants, OverBudget, StaleEquivalent, mutants};
use crate::target::Target;
use fencelab_model::exercise::Exercise;
use std::collections::{BTreeMap, BTreeSet};

/// What the operators may know of an exercise: its tables' columns and
/// types, and its constants; SQLite's error when its schema does not build.
pub fn context(exercise: &Exercise) -> Result<Context, Error> {
    Target::Sqlite.context(exercise)
}

/// The reference texts of every procedure, by name, in the exercise's order.
pub fn reference_texts(exercise: &Exercise) -> Vec<(String, String)> {
    exercise.texts_with(&Default::default())
}

/// Every mutant of the editable procedures of `texts` (the references, or a
/// learner's texts), within one run's budget; past it, the bound reached.
pub fn generate(
    exercise: &Exercise,
    texts: &[(String, String)],
    context: &Context,
) -> Result<Mutants, OverBudget> {
    let mut budget = MutantBudget::default();
    let mut all = Mutants::default();
    for (name, text) in texts {
        if !exercise
            .procedures
            .iter()
            .any(|p| &p.name == name && p.editable)
        {
            continue;
        }
        let generated = mutants(name, text, context, &mut budget)?;
        all.mutants.extend(generated.mutants);
        all.dropped_unparsable += generated.dropped_unparsable;
        all.dropped_duplicate += generated.dropped_duplicate;
    }
    Ok(all)
}

/// The mutants among `mutants` that an `[[equivalent]]` declaration of
/// `exercise` names, by id, with the declared reason. A declaration names a
/// mutant of the references (`reference`) by id: a mutant with that id is
/// the declared change only if it also reads the same (a learner's text can
/// hold another change at the same place), so its description must match
/// the reference mutant's too. For the references' own mutants, pass them
/// as both.
pub fn declared_equivalents(
    exercise: &Exercise,
    mutants: &[Mutant],
    reference: &[Mutant],
) -> BTreeMap<String, String> {
    mutants
        .iter()
        .filter_map(|mutant| {
            let declared = exercise
                .equivalents
                .iter()
                .find(|e| e.mutant == mutant.id)?;
            reference
                .iter()
                .any(|r| r.id == mutant.id && r.description == mutant.description)
                .then(|| (mutant.id.clone(), declared.reason.clone()))
        })
        .collect()
}

/// `check`'s judgement of one `[[equivalent]]` declaration (one per
/// declared mutant id, in the exercise's order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EquivalentJudgement {
    /// The declared mutant's id (`claim:4:38:drop-conjunct`).
    pub mutant: String,
    /// Set when the declaration names no generated mutant.
    pub stale: Option<StaleEquivalent>,
}

/// Why no `[[equivalent]]` declaration can be matched: no mutant of the
/// references could be generated. Its `Display` is the sentence `fencelab
/// check` shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Unmatchable {
    /// The schema does not build, so the operators know no columns.
    Schema(Error),
    /// The references' mutants are past their budget.
    OverBudget(OverBudget),
}

impl std::fmt::Display for Unmatchable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unmatchable::Schema(error) => {
                write!(f, "the mutants could not be generated: {error}")
            }
            Unmatchable::OverBudget(over) => {
                write!(
                    f,
                    "the [[equivalent]] declarations cannot be matched: {over}"
                )
            }
        }
    }
}

/// Every declaration judged, or why none can be.
pub type EquivalentsJudged = Result<Vec<EquivalentJudgement>, Unmatchable>;

/// Judges every `[[equivalent]]` declaration of `exercise`: each must still
/// name a generated mutant of the references (which may have changed since
/// it was written). Only generates the mutants, never runs them: `fencelab
/// mutate` also judges whether a scenario kills a declared one.
pub fn judge_equivalents(exercise: &Exercise) -> EquivalentsJudged {
    judge_equivalents_on(&Target::Sqlite, exercise)
}

/// As [`judge_equivalents`], the operators knowing the tables as `target`
/// declares them (a server's exercise is matched against the mutants of
/// its own texts and schema).
pub fn judge_equivalents_on(target: &Target, exercise: &Exercise) -> EquivalentsJudged {
    // An exercise without declarations has nothing to match: no mutant is
    // generated for it (a reference of thousands of predicates would
    // otherwise cost its check the whole mutant budget).
    if exercise.equivalents.is_empty() {
        return Ok(Vec::new());
    }
    let context = target.context(exercise).map_err(Unmatchable::Schema)?;
    let generated = generate(exercise, &reference_texts(exercise), &context)
        .map_err(Unmatchable::OverBudget)?;
    let ids: BTreeSet<&str> = generated.mutants.iter().map(|m| m.id.as_str()).collect();
    Ok(exercise
        .equivalents
        .iter()
        .map(|e| EquivalentJudgement {
            mutant: e.mutant.clone(),
            stale: (!ids.contains(e.mutant.as_str())).then(|| unmatched(&e.mutant)),
        })
        .collect())
}

/// What `fencelab check` finds wrong with the `[[equivalent]]` declarations
/// of `exercise` (see [`judge_equivalents`]): none, and no mutant
/// generated, for an exercise that declares none.
pub fn stale_equivalents(exercise: &Exercise) -> Vec<StaleEquivalent> {
    stale_of(&judge_equivalents(exercise))
}

/// The stale declarations among `judged`.
pub fn stale_of(judged: &EquivalentsJudged) -> Vec<StaleEquivalent> {
    match judged {
        Ok(judgements) => judgements.iter().filter_map(|j| j.stale.clone()).collect(),
        Err(why) => vec![StaleEquivalent::Unmatchable {
            reason: why.to_string(),
        }],
    }
}

/// The `[[equivalent]]` declarations that name none of `mutants` (the
/// reference may have changed since they were written).
pub fn unmatched_equivalents<'a>(
    exercise: &Exercise,
    mutants: impl IntoIterator<Item = &'a Mutant>,
) -> Vec<StaleEquivalent> {
    let ids: BTreeSet<&str> = mutants.into_iter().map(|m| m.id.as_str()).collect();
    exercise
        .equivalents
        .iter()
        .filter(|e| !ids.contains(e.mutant.as_str()))
        .map(|e| unmatched(&e.mutant))
        .collect()
}

fn unmatched(mutant: &str) -> StaleEquivalent {
    StaleEquivalent::MatchesNothing {
        mutant: mutant.to_string(),
    }
}
