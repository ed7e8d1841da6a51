//! The exploration benchmark's wasm twin of benches/explore.rs: the same
//! lines (schedules and runs per scenario, plain and reduced, and how many
//! a second each explores), timed inside wasm (Node or Chromium).
//!
//! Not part of the test suite: built with the `bench` feature, which
//! `cargo xtask bench` turns on. It asserts only that the two explorers
//! agree on what it times.

#![cfg(target_arch = "wasm32")]

mod explore_bench;

use explore_bench::{
    RENEWED, STRATEGIES, check_all, check_all_renewed, exercises, rate_lines, scenario_lines,
};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

/// Rounds timed for each exercise's rate line, at the least.
const ROUNDS: u32 = 10;
/// Milliseconds each rate line is timed for, at the least: a round of a
/// small exercise is a few milliseconds, near the clock's resolution.
const TIMED_MS_MIN: f64 = 200.0;
/// Milliseconds of checks run before anything is timed.
const WARM_UP_MS: f64 = 2_000.0;

/// Milliseconds from the host's clock; only the benchmark reads it.
fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Checks every bundled exercise, both ways, for [`WARM_UP_MS`]. A wasm
/// engine compiles a module in a quick baseline tier first and optimizes
/// its hot functions later, on its own threads; without this the first
/// exercise timed ran in the baseline tier (649 to 1,163 schedules a second
/// for the same build, PERFORMANCE.md) and the rest did not.
fn warm_up(exercises: &[fencelab_core::Exercise]) {
    let started = now_ms();
    while now_ms() - started < WARM_UP_MS {
        for exercise in exercises {
            for (strategy, _) in STRATEGIES {
                std::hint::black_box(check_all(exercise, strategy));
            }
        }
    }
}

/// Milliseconds per call of `round`, called [`ROUNDS`] times and for
/// [`TIMED_MS_MIN`] at the least.
fn timed(mut round: impl FnMut()) -> f64 {
    let started = now_ms();
    let mut rounds = 0;
    while rounds < ROUNDS || now_ms() - started < TIMED_MS_MIN {
        round();
        rounds += 1;
    }
    (now_ms() - started) / f64::from(rounds)
}

#[wasm_bindgen_test]
fn explore_every_bundled_exercise() {
    let exercises = exercises();
    warm_up(&exercises);
    for exercise in &exercises {
        for line in scenario_lines(exercise) {
            console_log!("{line}");
        }
        for (strategy, name) in STRATEGIES {
            let reports = check_all(exercise, strategy);
            let millis = timed(|| {
                std::hint::black_box(check_all(exercise, strategy));
            });
            for line in rate_lines(exercise, name, "wasm", &reports, millis) {
                console_log!("{line}");
            }
        }
        for (resuming, name) in RENEWED {
            let mut kept = None;
            let reports = check_all_renewed(exercise, &mut kept, resuming);
            let millis = timed(|| {
                std::hint::black_box(check_all_renewed(exercise, &mut kept, resuming));
            });
            for line in rate_lines(exercise, name, "wasm", &reports, millis) {
                console_log!("{line}");
            }
        }
    }
}
