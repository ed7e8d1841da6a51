//! The core's integration tests, one test binary: each module is one
//! subject (the lessons' observations, the engine, the explorer, the
//! mutation runner...). One binary links SQLite and the engine once, and
//! wasm-bindgen-test-runner starts one Node or Chromium for all of them,
//! where fourteen binaries cost fourteen links and fourteen starts.
//!
//! `cargo test -p fencelab-core --test suite lessons::` runs one module.
//!
//! Not here: tests/rowid_replay.rs, which must be alone in its program (it
//! replays a rowid SQLite draws from its one random source), and the wasm
//! benchmarks, which `cargo xtask bench` builds.

mod common;
mod counters;

mod engine;
mod exercise_format;
mod exercises;
mod explorer_differential;
mod hints;
mod history_equivalence;
mod hunt;
mod incidents;
mod kept_checker;
mod lesson_toy;
mod lessons;
mod mutation;
mod no_panic;
mod random_schedules;
mod reports;
mod resume_differential;
mod scenarios;
