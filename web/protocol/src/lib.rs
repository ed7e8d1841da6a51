//! The messages between the page and its Web Worker, sent through
//! serde-wasm-bindgen. Every request names its exercise and the learner's
//! texts, so the worker keeps no state a page reload could lose.

use fencelab_core::check::Drive;
use fencelab_core::history::ResultRows;
use fencelab_core::{ExerciseReport, ScenarioReport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The procedure texts the learner has edited, by procedure name.
pub type Edits = BTreeMap<String, String>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Check every scenario. A newer `Check` supersedes an older one still
    /// running: the worker drops it between scenarios.
    Check {
        seq: u64,
        exercise: String,
        edits: Edits,
    },
    /// Replay one schedule of one scenario.
    Replay {
        seq: u64,
        exercise: String,
        edits: Edits,
        scenario: String,
        schedule: String,
    },
    /// Follow a hand-chosen schedule and stop at the next choice.
    Drive {
        seq: u64,
        exercise: String,
        edits: Edits,
        scenario: String,
        schedule: Vec<String>,
    },
    /// A read-only query against the world after one history event.
    Query {
        seq: u64,
        exercise: String,
        edits: Edits,
        scenario: String,
        schedule: String,
        event_index: usize,
        sql: String,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// The worker has installed its message handler; requests sent before
    /// this would be lost. Carries the worker's SQLite version.
    Ready {
        sqlite_version: String,
    },
    Checked {
        seq: u64,
        report: ExerciseReport,
    },
    Replayed {
        seq: u64,
        report: ScenarioReport,
    },
    Driven {
        seq: u64,
        drive: Drive,
    },
    Queried {
        seq: u64,
        result: Result<ResultRows, String>,
    },
    /// A request that could not be served (an unknown exercise or scenario).
    Failed {
        seq: u64,
        message: String,
    },
}
