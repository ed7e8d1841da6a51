//! The line marks' benchmark: how long "what if this line were gone?"
//! takes for each bundled reference, judged a mutant at a time as the
//! page's worker judges it (one thread), timed inside wasm in Chromium.
//!
//! Not part of the test suite: built with the `bench` feature, which
//! `cargo xtask bench` turns on. It asserts only that what it times is a
//! judgement that marks lines (the references pass and have mutants).

#![cfg(target_arch = "wasm32")]

use fencelab_core::check::Progress;
use fencelab_core::protection::LineMarks;
use fencelab_core::{bundled, mutation};
use std::rc::Rc;
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

/// Runs per slice of the references' own check, as the worker slices it.
const RUNS_PER_SLICE: u64 = 8;

fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn line(row: &str, column: &str, value: impl std::fmt::Display, unit: &str) -> String {
    format!("BENCH\tline marks\t{row}\t{column}\t{value}\t{unit}")
}

#[wasm_bindgen_test]
fn line_marks_of_every_bundled_reference() {
    for exercise in bundled::exercises().expect("the bundled exercises load") {
        let texts = mutation::reference_texts(&exercise);
        let context = mutation::context(&exercise).expect("its schema builds");
        let id = exercise.id.clone();
        let started = now_ms();
        let mut marks = LineMarks::new(Rc::new(exercise), texts, &context);
        let mut mutants = None;
        let report = loop {
            mutants = mutants.or(marks.mutants());
            if let Progress::Done(report) = marks.advance(RUNS_PER_SLICE) {
                break report;
            }
        };
        let millis = now_ms() - started;
        let report = report.unwrap_or_else(|why| panic!("{id}: no marks: {why}"));
        assert!(!report.procedures.is_empty(), "{id}: no procedure marked");
        console_log!("{}", line(&id, "mutants", mutants.unwrap_or(0), "mutants"));
        console_log!(
            "{}",
            line(&id, "line marks wasm", format!("{millis:.0}"), "ms")
        );
    }
}
