//! Helpers shared by the tests that print outcomes as the lessons do, and
//! the texts of each bundled exercise the differential tests compare on.

use fencelab_core::{Exercise, Outcome, Value, Values, mutation};
use std::collections::BTreeMap;

/// Labelled texts of `exercise` to compare two ways of checking on: the
/// reference, the starting texts, every named broken variant, and every
/// `stride`-th generated mutant in the order they are generated (a fixed
/// sample, the same on every run).
pub fn texts_to_compare(
    exercise: &Exercise,
    stride: usize,
) -> Vec<(String, Vec<(String, String)>)> {
    let mut texts = vec![(
        "reference".to_string(),
        exercise.texts_with(&BTreeMap::new()),
    )];
    let starts = exercise.start_edits();
    texts.push(("starting text".into(), exercise.texts_with(&starts)));
    for variant in &exercise.variants {
        texts.push((variant.name.clone(), exercise.texts_of_variant(variant)));
    }
    let context = mutation::context(exercise).expect("the schema's columns");
    let base = mutation::reference_texts(exercise);
    let generated = mutation::generate(exercise, &base, &context)
        .expect("a bundled reference is within the mutant budget");
    for mutant in generated.mutants.iter().step_by(stride) {
        texts.push((
            mutant.id.clone(),
            mutation::texts_with_mutant(&base, mutant),
        ));
    }
    texts
}

/// `compare(exercise)` for every bundled exercise, spread over the
/// machine's cores; by exercise id, in id order. A panic in one is the
/// test's failure. Native only: wasm32 has no threads here.
#[cfg(not(target_arch = "wasm32"))]
pub fn on_every_exercise<T: Send>(compare: impl Fn(&Exercise) -> T + Sync) -> Vec<(String, T)> {
    let exercises = fencelab_core::bundled::exercises().unwrap();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut results = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|thread| {
                let (exercises, compare) = (&exercises, &compare);
                scope.spawn(move || {
                    exercises
                        .iter()
                        .skip(thread)
                        .step_by(threads)
                        .map(|e| (e.id.clone(), compare(e)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            results.extend(handle.join().expect("a comparison panicked"));
        }
    });
    results.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(results.len(), exercises.len());
    results
}

pub fn values(pairs: &[(&str, Value)]) -> Values {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// The lesson's printed line for a claim's outcome.
pub fn claim_line(actor: &str, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok { values } => {
            let token = &values["token"];
            match values.get("freshness").and_then(Value::as_str) {
                Some("same") => format!("{actor}: still mine, SAME token {token}"),
                Some(_) => format!("{actor}: claimed with FRESH token {token}"),
                None => format!("{actor}: claimed with token {token}"),
            }
        }
        Outcome::Refused { reason, .. } => format!("{actor}: refused, {reason}"),
        Outcome::Error(error) => panic!("{actor}: unexpected error {error:?}"),
    }
}

pub fn complete_line(actor: &str, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok { .. } => format!("{actor}: completed"),
        Outcome::Refused { reason, .. } => format!("{actor}: refused, {reason}"),
        Outcome::Error(error) => panic!("{actor}: unexpected error {error:?}"),
    }
}
