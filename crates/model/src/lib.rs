//! fencelab-model: fencelab's data, without its engine.
//!
//! fencelab teaches why authority needs a fence by running learners' SQL on
//! a real SQLite. This crate is everything about that which is *not* SQLite:
//! values, procedures and their parser, scenarios, schedules, the exercise
//! format and its loader, the rules that say what processes believe and the
//! invariants over those beliefs, and the reports the checker produces.
//!
//! It exists so the layering is a compile error rather than a convention:
//! the engine (`fencelab-core`) depends on this crate, and the page's main
//! thread depends on this crate alone, so it never downloads a copy of SQLite
//! it would not run.
//!
//! Must never: link SQLite (or anything that does), read the wall clock or
//! real randomness, touch a file system, or panic on any input.

pub mod bundled;
pub mod engine;
pub mod exercise;
pub mod export;
pub mod history;
pub mod hunt;
pub mod monitor;
pub mod mutate;
pub mod naming;
pub mod procedure;
pub mod prose;
pub mod protection;
pub mod random;
pub mod replay;
pub mod report;
pub mod scenario;
pub mod schedule;
pub mod share;
pub mod site;
mod tag_first;
pub mod text;
pub mod value;

pub use exercise::{Exercise, LoadError, Rules};
pub use history::{CallError, Effect, ErrorCause, Event, Outcome, Values, What};
pub use hunt::{Break, Hunt, HuntVerdict};
pub use monitor::{Belief, Violation};
pub use procedure::Procedure;
pub use report::{
    Drive, ExerciseCheck, ExerciseReport, Failure, FailureCause, FailureKind, ScenarioError,
    ScenarioReport, ScenarioResult, Tally, Verdict,
};
pub use scenario::Scenario;
pub use schedule::Schedule;
pub use value::Value;
