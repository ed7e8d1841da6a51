//! The exploration benchmark's wasm twin of benches/explore.rs: the same
//! lines (schedules and runs per scenario, plain and reduced, and how many
//! a second each explores), timed inside wasm (Node or Chromium).
//!
//! Not part of the test suite: built with the `bench` feature, which
//! `cargo xtask bench` turns on. It asserts only that the two explorers
//! agree on what it times.

#![cfg(target_arch = "wasm32")]

mod explore_bench;

use explore_bench::{STRATEGIES, check_all, exercises, rate_lines, scenario_lines};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

/// Rounds timed for each exercise's rate line.
const ROUNDS: u32 = 10;

/// Milliseconds from the host's clock; only the benchmark reads it.
fn now_ms() -> f64 {
    js_sys::Date::now()
}

#[wasm_bindgen_test]
fn explore_every_bundled_exercise() {
    for exercise in exercises() {
        for line in scenario_lines(&exercise) {
            console_log!("{line}");
        }
        for (strategy, name) in STRATEGIES {
            let reports = check_all(&exercise, strategy);
            let started = now_ms();
            for _ in 0..ROUNDS {
                std::hint::black_box(check_all(&exercise, strategy));
            }
            let millis = (now_ms() - started) / f64::from(ROUNDS);
            for line in rate_lines(&exercise, name, "wasm", &reports, millis) {
                console_log!("{line}");
            }
        }
    }
}
