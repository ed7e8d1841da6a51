//! Checks one bundled scenario many times, for profilers:
//! `valgrind --tool=callgrind target/release/examples/profile_check 20`.

use fencelab_core::{Checker, Procedure, bundled};
use std::collections::BTreeMap;

fn main() {
    let Ok(exercises) = bundled::exercises() else {
        return;
    };
    let exercise = &exercises[0];
    let procedures = exercise
        .texts_with(&BTreeMap::new())
        .into_iter()
        .filter_map(|(name, text)| Procedure::parse(&name, &text).ok());
    let Ok(mut checker) = Checker::new(
        &exercise.schema,
        procedures,
        exercise.constants.clone(),
        exercise.rules.clone(),
    ) else {
        return;
    };
    let scenario = &exercise.scenarios[0];
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);
    for _ in 0..rounds {
        std::hint::black_box(checker.check(scenario));
    }
}
