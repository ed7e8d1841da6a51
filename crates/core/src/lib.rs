//! fencelab-core: the fencing engine.
//!
//! fencelab teaches why authority needs a fence: leases, fencing tokens,
//! compare-and-set claims, retry budgets and session incarnations. This crate
//! is the part that runs them. It owns a real SQLite (bundled, compiled to
//! wasm32 through sqlite-wasm-rs in the browser) kept entirely in memory.
//! Everything that is data rather than running (values, procedures,
//! scenarios, exercises, reports) lives in `fencelab-model`, re-exported
//! here under the same module names.
//!
//! The core knows SQLite and nothing else: it never reads the wall clock,
//! never names a browser type, never touches a file system and never starts
//! a thread (whoever judges many mutants at once says how to share them
//! out: `mutation::Spread`). Time reaches it
//! from a fake clock and order from a schedule, so every run replays exactly,
//! natively and in WebAssembly.

#[cfg(feature = "loader")]
pub mod bundled;
pub mod check;
mod error;
pub mod exercise;
mod metered;
mod mutants;
pub mod mutation;
pub mod protection;
mod sandbox;
pub mod server;
pub mod sql_value;
pub mod sqlite;
pub mod target;
mod vfs;
mod world;

pub use fencelab_model::{
    export, history, hunt, monitor, mutate, procedure, random, replay, report, scenario, schedule,
    text, value,
};

pub use check::{Checker, Limits};
pub use error::Error;
pub use exercise::ExerciseExt;
pub use fencelab_model::exercise::{EXERCISE_FILE_BYTES_MAX, Exercise, Journal, LoadError, Rules};
pub use fencelab_model::history::{CallError, Effect, ErrorCause, Event, Outcome, Values, What};
pub use fencelab_model::report::{
    Drive, ExerciseCheck, ExerciseReport, Failure, FailureCause, FailureKind, ScenarioReport,
    ScenarioResult, Tally, Verdict,
};
pub use fencelab_model::{Procedure, Scenario, Schedule, Value};
pub use world::{ProcessId, Recorder, StepResult, World};

/// The version of the SQLite library linked into this build, such as `3.54.1`.
pub fn sqlite_version() -> &'static str {
    rusqlite::version()
}
