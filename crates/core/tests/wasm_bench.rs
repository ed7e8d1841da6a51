//! The wasm benchmark: checking every scenario of each bundled exercise, as
//! the page does after an edit, and the claim/complete statements run by
//! bare rusqlite and by the engine with history off, on and by snapshots
//! (the same workload as the native benchmark, benches/workload), timed
//! inside wasm (Node or Chromium).
//!
//! Not part of the test suite: `cargo xtask bench` builds it with the
//! `bench` feature and runs it beside the native criterion benchmarks, so the
//! figures are comparable within one run. It prints figures; it asserts only
//! that the runs it times are the correct ones (every reference passes).

#![cfg(target_arch = "wasm32")]

#[path = "../benches/workload/mod.rs"]
mod workload;

use fencelab_core::{ExerciseExt, bundled};
use std::collections::BTreeMap;
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

/// Milliseconds from the host's clock; only the benchmark reads it.
fn now_ms() -> f64 {
    js_sys::Date::now()
}

#[wasm_bindgen_test]
fn check_every_bundled_exercise() {
    const ROUNDS: u32 = 20;
    let edits = BTreeMap::new();
    for exercise in bundled::exercises().unwrap() {
        let first = exercise.run(&edits);
        assert_eq!(first.failed, 0, "{} reference fails", exercise.id);
        let schedules: u64 = first
            .scenarios
            .iter()
            .map(|s| s.exploration.schedules)
            .sum();
        let started = now_ms();
        for _ in 0..ROUNDS {
            std::hint::black_box(exercise.run(&edits));
        }
        let per_run_ms = (now_ms() - started) / f64::from(ROUNDS);
        let started = now_ms();
        for _ in 0..ROUNDS {
            std::hint::black_box(
                fencelab_core::World::new(&exercise.schema, [], exercise.constants.clone()).ok(),
            );
        }
        let world_ms = (now_ms() - started) / f64::from(ROUNDS);
        console_log!(
            "wasm bench: {:<38} {:>6.2} ms per full check ({} schedules, {:.0} schedules/s), \
             of which {:.2} ms build the world",
            exercise.id,
            per_run_ms,
            schedules,
            schedules as f64 / (per_run_ms / 1000.0),
            world_ms
        );
    }
}

/// Prints the statement figures as BENCH lines, in the wasm column.
#[wasm_bindgen_test]
fn statements_bare_and_engine() {
    for line in workload::run_all(now_ms, "wasm", 12, 3, 100.0) {
        console_log!("{line}");
    }
}
