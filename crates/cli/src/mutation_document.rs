//! `fencelab mutate --json`: what the mutation runs found, as a document
//! of the CLI's own that docs/GRADING.md describes (its section "The
//! mutation document"). Like the grading [`crate::grade::Document`], it is
//! built from these types, never from the engine's serde derives, so the
//! engine's reports may change without changing what a script reads.
//!
//! Must never: judge a mutant. Verdicts, sentences and schedules are the
//! core's; this module only names and counts them.

use fencelab_core::mutate::{ExerciseMutation, MutantResult, MutantVerdict, StaleEquivalent};
use serde::Serialize;

/// The version of the document's shape; a change a reader could notice (a
/// field renamed, removed or given another meaning) raises it.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct Document {
    pub format_version: u32,
    /// Always `mutate`.
    pub command: &'static str,
    /// Every exercise's `ok`.
    pub ok: bool,
    pub exercises: Vec<Entry>,
}

/// One exercise's run.
#[derive(Debug, Serialize)]
pub struct Entry {
    pub exercise: String,
    /// No mutant survived, no declaration is stale, and the run happened.
    pub ok: bool,
    /// Why the run could not happen (the reference does not pass, or the
    /// mutants are past their budget); nothing else is then judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Killed over every mutant not declared equivalent, in percent; absent
    /// when the run is an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_percent: Option<f64>,
    pub counts: Counts,
    pub seconds: f64,
    pub mutants: Vec<Mutant>,
    pub stale_equivalents: Vec<Stale>,
}

#[derive(Debug, Serialize)]
pub struct Counts {
    pub generated: usize,
    pub killed: usize,
    pub survived: usize,
    pub errors_only: usize,
    pub equivalent: usize,
    /// Generated texts that did not parse, and texts equal to the reference
    /// or to an earlier mutant: neither is a mutant.
    pub dropped_unparsable: usize,
    pub dropped_duplicate: usize,
}

/// One generated mutant and what the suite made of it.
#[derive(Debug, Serialize)]
pub struct Mutant {
    /// `PROCEDURE:LINE:COLUMN:OPERATOR[:VARIANT]`, the id an
    /// `[[equivalent]]` declaration names.
    pub id: String,
    pub procedure: String,
    pub line: u32,
    pub column: u32,
    pub operator: &'static str,
    pub description: String,
    /// The whole mutated procedure, for `fencelab run --set`.
    pub text: String,
    /// `killed`, `survived`, `errors_only` or `equivalent`.
    pub verdict: &'static str,
    /// The scenarios that failed against it (a killed mutant's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub killed_by: Vec<Kill>,
    /// The scenarios that errored against it (an `errors_only` mutant's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ScenarioError>,
    /// The declaration's reason (an `equivalent` mutant's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Kill {
    pub scenario: String,
    /// The failure's sentence.
    pub message: String,
    /// The schedule that shows it, as `fencelab run --schedule` takes it.
    pub schedule: String,
}

#[derive(Debug, Serialize)]
pub struct ScenarioError {
    pub scenario: String,
    pub message: String,
}

/// An `[[equivalent]]` declaration that no longer holds.
#[derive(Debug, Serialize)]
pub struct Stale {
    /// `matches_nothing` (no generated mutant has its id), `killed` (a
    /// scenario kills the mutant it names) or `unmatchable` (no mutant
    /// could be generated to match any declaration against).
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutant: Option<String>,
    /// The scenario that kills it (`killed` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The sentence `fencelab mutate` prints.
    pub message: String,
}

impl Document {
    /// The document of `runs`, each with the seconds it took.
    pub fn new(runs: &[(ExerciseMutation, f64)]) -> Document {
        let exercises: Vec<Entry> = runs
            .iter()
            .map(|(run, seconds)| Entry::new(run, *seconds))
            .collect();
        Document {
            format_version: FORMAT_VERSION,
            command: "mutate",
            ok: exercises.iter().all(|e| e.ok),
            exercises,
        }
    }
}

impl Entry {
    fn new(run: &ExerciseMutation, seconds: f64) -> Entry {
        let counts = run.counts();
        Entry {
            exercise: run.exercise.clone(),
            ok: run.ok(),
            error: run.error.clone(),
            score_percent: run.error.is_none().then(|| run.score_percent()),
            counts: Counts {
                generated: counts.generated,
                killed: counts.killed,
                survived: counts.survived,
                errors_only: counts.errors_only,
                equivalent: counts.equivalent,
                dropped_unparsable: counts.dropped_unparsable,
                dropped_duplicate: counts.dropped_duplicate,
            },
            seconds,
            mutants: run.results.iter().map(Mutant::new).collect(),
            stale_equivalents: run.stale_equivalents.iter().map(Stale::new).collect(),
        }
    }
}

impl Mutant {
    fn new(result: &MutantResult) -> Mutant {
        let mutant = &result.mutant;
        let (verdict, killed_by, errors, reason) = match &result.verdict {
            MutantVerdict::Killed { by } => {
                let kills = by
                    .iter()
                    .map(|kill| Kill {
                        scenario: kill.scenario.clone(),
                        message: kill.sentence.clone(),
                        schedule: kill.schedule.to_string(),
                    })
                    .collect();
                ("killed", kills, Vec::new(), None)
            }
            MutantVerdict::Survived => ("survived", Vec::new(), Vec::new(), None),
            MutantVerdict::ErrorsOnly { errors } => {
                let errors = errors
                    .iter()
                    .map(|(scenario, message)| ScenarioError {
                        scenario: scenario.clone(),
                        message: message.clone(),
                    })
                    .collect();
                ("errors_only", Vec::new(), errors, None)
            }
            MutantVerdict::Equivalent { reason } => {
                ("equivalent", Vec::new(), Vec::new(), Some(reason.clone()))
            }
        };
        Mutant {
            id: mutant.id.clone(),
            procedure: mutant.procedure.clone(),
            line: mutant.position.line,
            column: mutant.position.column,
            operator: mutant.operator.name(),
            description: mutant.description.clone(),
            text: mutant.text.clone(),
            verdict,
            killed_by,
            errors,
            reason,
        }
    }
}

impl Stale {
    fn new(stale: &StaleEquivalent) -> Stale {
        let (kind, scenario) = match stale {
            StaleEquivalent::MatchesNothing { .. } => ("matches_nothing", None),
            StaleEquivalent::Killed { scenario, .. } => ("killed", Some(scenario.clone())),
            StaleEquivalent::Unmatchable { .. } => ("unmatchable", None),
        };
        Stale {
            kind,
            mutant: stale.mutant().map(str::to_string),
            scenario,
            message: stale.to_string(),
        }
    }
}
