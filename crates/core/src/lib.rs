//! fencelab-core: the fencing engine.
//!
//! fencelab teaches why authority needs a fence: leases, fencing tokens,
//! compare-and-set claims, retry budgets and session incarnations. This crate
//! is the part that runs them. It owns a real SQLite (bundled, compiled to
//! wasm32 through sqlite-wasm-rs in the browser) kept entirely in memory.
//!
//! The core knows SQLite and nothing else: it never reads the wall clock,
//! never names a browser type and never touches a file system. Time reaches it
//! from a fake clock and order from a schedule, so every run replays exactly,
//! natively and in WebAssembly.

pub mod bundled;
pub mod check;
mod error;
pub mod exercise;
pub mod history;
pub mod monitor;
pub mod procedure;
pub mod random;
pub mod sandbox;
pub mod scenario;
pub mod sqlite;
pub mod value;
pub mod world;

pub use check::{Checker, Model, ScenarioReport, Verdict};
pub use error::Error;
pub use exercise::{Exercise, ExerciseCheck, ExerciseReport, LoadError};
pub use history::{CallError, Effect, ErrorCause, Event, Outcome, Values, What};
pub use procedure::Procedure;
pub use scenario::Scenario;
pub use value::Value;
pub use world::{ProcessId, StepResult, World};

/// The version of the SQLite library linked into this build, such as `3.54.1`.
pub fn sqlite_version() -> &'static str {
    rusqlite::version()
}
