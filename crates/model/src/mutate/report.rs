//! What running an exercise's scenarios against its generated mutants
//! found: each mutant killed (by which scenarios, with the sentence),
//! survived, only erroring, or declared equivalent.

use super::Mutant;
use crate::schedule::Schedule;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A scenario that caught a mutant, and why it failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kill {
    pub scenario: String,
    /// The failure's sentence.
    pub sentence: String,
    /// The failing schedule, which shows the counterexample.
    pub schedule: Schedule,
}

/// What the suite did to one mutant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum MutantVerdict {
    /// At least one scenario failed: a counterexample.
    Killed { by: Vec<Kill> },
    /// Every scenario passed: the suite cannot tell it from the reference.
    Survived,
    /// No scenario failed, and some errored: an error is not a
    /// counterexample, so this mutant is not counted as killed.
    ErrorsOnly { errors: Vec<(String, String)> },
    /// Declared equivalent by the exercise, and indeed not killed.
    Equivalent { reason: String },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutantResult {
    pub mutant: Mutant,
    #[serde(flatten)]
    pub verdict: MutantVerdict,
}

/// The mutation run of one exercise.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExerciseMutation {
    pub exercise: String,
    pub results: Vec<MutantResult>,
    pub dropped_unparsable: usize,
    pub dropped_duplicate: usize,
    /// `[[equivalent]]` declarations that match no generated mutant, or
    /// whose mutant a scenario kills: each is an error in the exercise.
    pub stale_equivalents: Vec<StaleEquivalent>,
    /// Why the run could not happen at all (the reference does not build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The counts of an exercise's mutation run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub generated: usize,
    pub killed: usize,
    pub survived: usize,
    pub errors_only: usize,
    pub equivalent: usize,
    pub dropped_unparsable: usize,
    pub dropped_duplicate: usize,
}

impl ExerciseMutation {
    pub fn counts(&self) -> Counts {
        let count =
            |f: fn(&MutantVerdict) -> bool| self.results.iter().filter(|r| f(&r.verdict)).count();
        Counts {
            generated: self.results.len(),
            killed: count(|v| matches!(v, MutantVerdict::Killed { .. })),
            survived: count(|v| matches!(v, MutantVerdict::Survived)),
            errors_only: count(|v| matches!(v, MutantVerdict::ErrorsOnly { .. })),
            equivalent: count(|v| matches!(v, MutantVerdict::Equivalent { .. })),
            dropped_unparsable: self.dropped_unparsable,
            dropped_duplicate: self.dropped_duplicate,
        }
    }

    /// Killed over every mutant not declared equivalent, in percent.
    pub fn score_percent(&self) -> f64 {
        let counts = self.counts();
        let judged = counts.generated - counts.equivalent;
        if judged == 0 {
            100.0
        } else {
            counts.killed as f64 * 100.0 / judged as f64
        }
    }

    /// The suite is strong enough: no survivor, no stale declaration, and
    /// the run happened.
    pub fn ok(&self) -> bool {
        self.error.is_none()
            && self.stale_equivalents.is_empty()
            && !self
                .results
                .iter()
                .any(|r| matches!(r.verdict, MutantVerdict::Survived))
    }
}

/// An `[[equivalent]]` declaration that no longer holds, which makes the
/// exercise wrong: it names no mutant generated from the references (they
/// may have changed since it was written), or a scenario kills the mutant it
/// says behaves like the reference. `Unmatchable` is the exercise whose
/// mutants could not be generated at all, so no declaration could be
/// matched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stale", rename_all = "snake_case")]
pub enum StaleEquivalent {
    MatchesNothing { mutant: String },
    Killed { mutant: String, scenario: String },
    Unmatchable { reason: String },
}

impl StaleEquivalent {
    /// The declared mutant's id, when the declaration is the one at fault.
    pub fn mutant(&self) -> Option<&str> {
        match self {
            StaleEquivalent::MatchesNothing { mutant } | StaleEquivalent::Killed { mutant, .. } => {
                Some(mutant)
            }
            StaleEquivalent::Unmatchable { .. } => None,
        }
    }
}

impl fmt::Display for StaleEquivalent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StaleEquivalent::MatchesNothing { mutant } => {
                write!(f, "`{mutant}` matches no generated mutant")
            }
            StaleEquivalent::Killed { mutant, scenario } => {
                write!(
                    f,
                    "`{mutant}` is declared equivalent, but `{scenario}` kills it"
                )
            }
            StaleEquivalent::Unmatchable { reason } => f.write_str(reason),
        }
    }
}

/// The generated mutants two engines' runs of one exercise both judged
/// (the same mutated text of the same procedure: where the engines' texts
/// are the same, so are their mutants) and only one killed: the ones
/// killed in `one` alone, then in `other` alone, each as `one` has it.
pub fn killed_by_one_only<'a>(
    one: &'a ExerciseMutation,
    other: &'a ExerciseMutation,
) -> (Vec<&'a MutantResult>, Vec<&'a MutantResult>) {
    let killed = |result: &MutantResult| matches!(result.verdict, MutantVerdict::Killed { .. });
    let twin = |result: &MutantResult, run: &'a ExerciseMutation| {
        run.results.iter().find(|r| {
            r.mutant.procedure == result.mutant.procedure && r.mutant.text == result.mutant.text
        })
    };
    let alone = |run: &'a ExerciseMutation, against: &'a ExerciseMutation| {
        run.results
            .iter()
            .filter(|result| killed(result))
            .filter(|result| twin(result, against).is_some_and(|twin| !killed(twin)))
            .collect::<Vec<_>>()
    };
    (alone(one, other), alone(other, one))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::{Mutant, Operator};
    use crate::procedure::Position;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn result(id: &str, text: &str, killed: bool) -> MutantResult {
        MutantResult {
            mutant: Mutant {
                id: id.into(),
                operator: Operator::DropConjunct,
                procedure: "claim".into(),
                position: Position { line: 1, column: 1 },
                description: id.into(),
                text: text.into(),
            },
            verdict: if killed {
                MutantVerdict::Killed {
                    by: vec![Kill {
                        scenario: "one winner".into(),
                        sentence: "both believe".into(),
                        schedule: Schedule::default(),
                    }],
                }
            } else {
                MutantVerdict::Survived
            },
        }
    }

    fn run(results: Vec<MutantResult>) -> ExerciseMutation {
        ExerciseMutation {
            exercise: "x".into(),
            results,
            ..ExerciseMutation::default()
        }
    }

    #[test]
    fn a_mutant_killed_on_one_engine_and_not_the_other_is_found_by_its_text() {
        let sqlite = run(vec![
            result("claim:1:1:a", "same A", true),
            result("claim:2:1:b", "same B", false),
            result("claim:3:1:c", "same C", true),
            result("claim:4:1:d", "sqlite only", true),
        ]);
        // The server's ids differ (its text has other positions); the
        // mutated texts are what match.
        let server = run(vec![
            result("claim:1:9:a", "same A", false),
            result("claim:2:9:b", "same B", true),
            result("claim:3:9:c", "same C", true),
            result("claim:5:1:e", "server only", false),
        ]);
        let (on_sqlite, on_server) = killed_by_one_only(&sqlite, &server);
        let ids = |results: Vec<&MutantResult>| {
            results
                .iter()
                .map(|r| r.mutant.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(on_sqlite), ["claim:1:1:a"]);
        assert_eq!(ids(on_server), ["claim:2:9:b"]);
    }
}
