//! What `fencelab check` finds in an exercise and the authoring view
//! shows of a draft: the [`ExerciseCheck`], with the [`KillMatrix`] of its
//! named broken variants against its scenarios, each cell a [`VerdictCell`].

use super::{ExerciseReport, ScenarioReport, Verdict};
use crate::mutate::StaleEquivalent;
use serde::{Deserialize, Serialize};

/// What `fencelab check` finds in an exercise, and the authoring view
/// shows of a draft: the reference's run (each scenario must pass), the
/// starting texts' verdicts (what a learner first sees; nothing is required
/// of them), the kill matrix of its named broken variants, and its
/// `[[equivalent]]` declarations that no longer name a generated mutant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ExerciseCheckJson")]
pub struct ExerciseCheck {
    pub title: String,
    /// The reference's run: `exercise`, `scenarios`, `passed`, `failed`.
    /// Read back through [`ExerciseCheckJson`], as a scenario report is.
    #[serde(flatten)]
    pub reference: ExerciseReport,
    pub start: Vec<VerdictCell>,
    pub matrix: KillMatrix,
    /// The declarations that match no generated mutant of the references
    /// (`fencelab check` says each; a mutant killed is `mutate`'s to find).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_equivalents: Vec<StaleEquivalent>,
}

/// An [`ExerciseCheck`] as its JSON is read: the reference's report's
/// fields beside the others, without serde's `flatten`
/// (scenario.rs's `ScenarioReportJson` says why).
#[derive(Deserialize)]
struct ExerciseCheckJson {
    title: String,
    exercise: String,
    scenarios: Vec<ScenarioReport>,
    passed: usize,
    failed: usize,
    start: Vec<VerdictCell>,
    matrix: KillMatrix,
    #[serde(default)]
    stale_equivalents: Vec<StaleEquivalent>,
}

impl From<ExerciseCheckJson> for ExerciseCheck {
    fn from(json: ExerciseCheckJson) -> ExerciseCheck {
        ExerciseCheck {
            title: json.title,
            reference: ExerciseReport {
                exercise: json.exercise,
                scenarios: json.scenarios,
                passed: json.passed,
                failed: json.failed,
            },
            start: json.start,
            matrix: json.matrix,
            stale_equivalents: json.stale_equivalents,
        }
    }
}

impl ExerciseCheck {
    /// The reference passes (or shows its limit in) every scenario, every
    /// named variant is caught by a failure and makes no scenario error, and
    /// every equivalent declaration names a generated mutant: what `fencelab
    /// check` and the authoring view require, by this one rule. (Whether a
    /// scenario kills a declared mutant is `fencelab mutate`'s question: it
    /// runs every generated mutant.)
    pub fn ok(&self) -> bool {
        self.stale_equivalents.is_empty()
            && self.reference.failed == 0
            && self
                .matrix
                .rows
                .iter()
                .all(|r| matches!(r.outcome(), VariantOutcome::Caught(_)))
    }
}

/// One scenario's verdict against one set of texts, in brief: a cell of
/// the authoring view's tables. The sentence is the checker's own, made
/// once here so the page never words a failure itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerdictCell {
    pub scenario: String,
    pub verdict: Verdict,
    /// The failure's or the error's sentence, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl VerdictCell {
    /// Every scenario's cell of one run, in the run's order.
    pub fn row(report: &ExerciseReport) -> Vec<VerdictCell> {
        report
            .scenarios
            .iter()
            .map(|s| VerdictCell {
                scenario: s.name.clone(),
                verdict: s.verdict(),
                problem: s.problem(),
            })
            .collect()
    }
}

/// One named broken variant (`[[mutants]]`) against every scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KillRow {
    /// The variant's name; `mutant` on the wire, as it always was.
    #[serde(rename = "mutant")]
    pub variant: String,
    pub explanation: String,
    /// One per scenario, in the matrix's order.
    pub cells: Vec<VerdictCell>,
}

impl KillRow {
    /// The scenarios that caught the variant: those whose verdict is
    /// "failed". An error is not a counterexample, so it catches nothing
    /// (as `fencelab check` counts).
    pub fn caught_by(&self) -> impl Iterator<Item = &VerdictCell> {
        self.cells.iter().filter(|c| c.verdict == Verdict::Failed)
    }

    /// No scenario failed against the variant: the suite cannot tell it
    /// from the reference.
    pub fn survived(&self) -> bool {
        self.caught_by().next().is_none()
    }

    /// The scenarios the variant made stop with an error (a flaw in the
    /// exercise: a variant should be caught by a counterexample, not crash).
    pub fn errored(&self) -> impl Iterator<Item = &VerdictCell> {
        self.cells.iter().filter(|c| c.verdict == Verdict::Error)
    }

    /// What the suite made of the variant, the one rule `fencelab check`,
    /// its grade documents and [`ExerciseCheck::ok`] all read: an error in
    /// any scenario spoils it whatever else caught it; otherwise it is
    /// caught or it survived.
    pub fn outcome(&self) -> VariantOutcome<'_> {
        let errored: Vec<&VerdictCell> = self.errored().collect();
        if !errored.is_empty() {
            VariantOutcome::Errored(errored)
        } else if self.survived() {
            VariantOutcome::Survived
        } else {
            VariantOutcome::Caught(self.caught_by().collect())
        }
    }
}

/// A named broken variant's outcome against the suite (see
/// [`KillRow::outcome`]).
#[derive(Clone, Debug, PartialEq)]
pub enum VariantOutcome<'a> {
    /// Caught by these scenarios, with no scenario erroring: as it should be.
    Caught(Vec<&'a VerdictCell>),
    /// No scenario catches it: the suite has a gap.
    Survived,
    /// These scenarios stopped with an error: a flaw in the exercise.
    Errored(Vec<&'a VerdictCell>),
}

/// Every named broken variant against every scenario: which scenarios
/// catch each one, and which variants survive them all.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KillMatrix {
    /// The scenarios' names, the matrix's columns.
    pub scenarios: Vec<String>,
    pub rows: Vec<KillRow>,
}

impl KillMatrix {
    /// An empty matrix over these scenarios.
    pub fn new(scenarios: Vec<String>) -> KillMatrix {
        KillMatrix {
            scenarios,
            rows: Vec::new(),
        }
    }

    /// Adds a variant's row from the run of the whole suite against it.
    pub fn push(&mut self, variant: &str, explanation: &str, run: &ExerciseReport) {
        self.rows.push(KillRow {
            variant: variant.to_string(),
            explanation: explanation.to_string(),
            cells: VerdictCell::row(run),
        });
    }

    /// The variants no scenario caught.
    pub fn survivors(&self) -> impl Iterator<Item = &KillRow> {
        self.rows.iter().filter(|r| r.survived())
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;
    use crate::report::fixtures::{failed, run, scenario};
    use crate::report::{ErrorKind, ScenarioError, ScenarioResult};

    #[test]
    fn a_variant_is_caught_by_the_scenarios_that_fail_and_an_error_catches_nothing() {
        let mut matrix = KillMatrix::new(vec!["one".into(), "two".into(), "three".into()]);
        matrix.push(
            "caught",
            "fails one",
            &run(vec![
                scenario("one", ScenarioResult::Passed),
                failed("two"),
                scenario("three", ScenarioResult::LimitShown),
            ]),
        );
        matrix.push(
            "survivor",
            "errors only",
            &run(vec![
                scenario("one", ScenarioResult::Passed),
                scenario(
                    "two",
                    ScenarioResult::Error {
                        error: ScenarioError::of(ErrorKind::Unusable {
                            message: "no such table: t".into(),
                        }),
                    },
                ),
                scenario("three", ScenarioResult::Passed),
            ]),
        );
        let caught = &matrix.rows[0];
        assert_eq!(
            caught
                .caught_by()
                .map(|c| c.scenario.as_str())
                .collect::<Vec<_>>(),
            ["two"]
        );
        assert!(!caught.survived());
        let sentence = caught.cells[1].problem.as_deref().unwrap_or_default();
        assert!(
            sentence.contains("proc-1"),
            "the failure's sentence: {sentence}"
        );
        assert_eq!(caught.cells[0].problem, None);
        let survivors: Vec<_> = matrix.survivors().map(|r| r.variant.as_str()).collect();
        assert_eq!(survivors, ["survivor"]);
        assert_eq!(
            matrix.rows[1].cells[1].problem.as_deref(),
            Some("no such table: t")
        );
        // The one rule every reader of the matrix reads.
        let scenarios = |cells: &[&VerdictCell]| -> Vec<String> {
            cells.iter().map(|c| c.scenario.clone()).collect()
        };
        match caught.outcome() {
            VariantOutcome::Caught(by) => assert_eq!(scenarios(&by), ["two"]),
            other => panic!("caught, not {other:?}"),
        }
        match matrix.rows[1].outcome() {
            VariantOutcome::Errored(cells) => assert_eq!(scenarios(&cells), ["two"]),
            other => panic!("errored, not {other:?}"),
        }
    }

    #[test]
    fn a_draft_is_ok_when_the_reference_passes_and_every_variant_is_caught_cleanly() {
        let passing = run(vec![
            scenario("one", ScenarioResult::Passed),
            scenario("two", ScenarioResult::LimitShown),
        ]);
        let mut matrix = KillMatrix::new(vec!["one".into(), "two".into()]);
        matrix.push(
            "m",
            "",
            &run(vec![failed("one"), scenario("two", ScenarioResult::Passed)]),
        );
        let mut draft = ExerciseCheck {
            title: "Draft".into(),
            reference: passing.clone(),
            start: VerdictCell::row(&run(vec![failed("one"), failed("two")])),
            matrix: matrix.clone(),
            stale_equivalents: Vec::new(),
        };
        assert!(draft.ok(), "the start failing is what a learner should see");
        draft.stale_equivalents = vec![StaleEquivalent::MatchesNothing {
            mutant: "claim:1:1:x".into(),
        }];
        assert!(!draft.ok(), "a stale equivalent declaration, as in check");
        draft.stale_equivalents.clear();
        draft.reference = run(vec![failed("one"), scenario("two", ScenarioResult::Passed)]);
        assert!(!draft.ok(), "a failing reference");
        draft.reference = run(vec![
            scenario(
                "one",
                ScenarioResult::Error {
                    error: ScenarioError::of(ErrorKind::Unusable {
                        message: "boom".into(),
                    }),
                },
            ),
            scenario("two", ScenarioResult::Passed),
        ]);
        assert!(!draft.ok(), "a reference that errors");
        draft.reference = passing;
        matrix.push(
            "caught, but crashes another",
            "",
            &run(vec![
                failed("one"),
                scenario(
                    "two",
                    ScenarioResult::Error {
                        error: ScenarioError::of(ErrorKind::Unusable {
                            message: "boom".into(),
                        }),
                    },
                ),
            ]),
        );
        draft.matrix = matrix;
        assert!(
            !draft.ok(),
            "an error against a variant is a flaw, as in check"
        );
    }

    #[test]
    fn an_exercise_check_round_trips_through_json() {
        let mut matrix = KillMatrix::new(vec!["one".into()]);
        matrix.push("m", "why", &run(vec![failed("one")]));
        let draft = ExerciseCheck {
            title: "Draft".into(),
            reference: run(vec![scenario("one", ScenarioResult::Passed)]),
            start: VerdictCell::row(&run(vec![failed("one")])),
            matrix,
            stale_equivalents: vec![StaleEquivalent::MatchesNothing {
                mutant: "p:1:1:x".into(),
            }],
        };
        let json = serde_json::to_string(&draft).expect("serializes");
        assert_eq!(
            serde_json::from_str::<ExerciseCheck>(&json).ok(),
            Some(draft)
        );
    }
}
