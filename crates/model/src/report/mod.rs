//! What the checker found, as data: one [`ScenarioReport`] per scenario, with
//! its result, the schedule it shows, its history and what every process
//! believed after each event.
//!
//! The checker is the only producer of these reports; the CLI and the page
//! only read them. Sentences for people are `Display` impls on the typed
//! results, so every reader words a failure the same way.
//!
//! The files follow the reports' seams: this one holds the result types,
//! `failure.rs` why a scenario failed, `scenario.rs` one scenario's report
//! and its reader, `run.rs` a run of a whole suite and its tally, and
//! `check.rs` an exercise's check and its kill matrix.

use crate::procedure::Position;
use serde::{Deserialize, Serialize};

mod check;
mod error;
mod failure;
#[cfg(all(test, feature = "toml"))]
mod fixtures;
mod recorded;
mod run;
mod said;
mod scenario;
pub use check::{ExerciseCheck, KillMatrix, KillRow, VariantOutcome, VerdictCell};
pub use error::{Denial, ErrorKind, Explored, Limit, Misfit, ScenarioError};
pub use failure::{Failure, FailureCause, FailureKind, show_rows, violated_by};
pub use recorded::{RECORDED_DIR, Recorded, RecordedRun, RecordedTexts, recorded_file};
pub use run::{ExerciseReport, Tally, Unusable};
pub use scenario::{Drive, Exploration, Lane, ScenarioReport};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed,
    Error,
    /// The scenario demonstrates a limit of the protection, as intended.
    LimitShown,
}

impl Verdict {
    /// The verdict in words, for text that must not rely on colour.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Error => "error",
            Verdict::LimitShown => "limit shown",
        }
    }
}

/// A scenario's result: exactly one of these, so a report cannot say
/// "passed" and carry a failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum ScenarioResult {
    Passed,
    /// A `limit` scenario whose expectations held: it shows where the
    /// protection ends, as intended.
    LimitShown,
    /// A counterexample: the schedule shown breaks the failure's guarantee.
    Failed {
        failure: Failure,
    },
    /// The scenario could not be judged: an SQL error, a scenario that no
    /// longer applies to the text, an exploration limit. Never a pass.
    Error {
        error: ScenarioError,
    },
}

impl ScenarioResult {
    pub fn verdict(&self) -> Verdict {
        match self {
            ScenarioResult::Passed => Verdict::Passed,
            ScenarioResult::LimitShown => Verdict::LimitShown,
            ScenarioResult::Failed { .. } => Verdict::Failed,
            ScenarioResult::Error { .. } => Verdict::Error,
        }
    }
}

/// Where in the learner's text an error belongs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub procedure: String,
    pub position: Option<Position>,
}
