//! Every bundled exercise: its reference passes every scenario and every
//! mutant is caught, natively and in wasm.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::ExerciseExt;
use fencelab_core::bundled;

#[test]
fn every_bundled_reference_passes_and_every_mutant_is_caught() {
    let exercises = bundled::exercises().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exercises.len(), bundled::FILES.len());
    assert_eq!(
        bundled::catalog().unwrap(),
        exercises,
        "the page's catalog is the same"
    );
    let mut problems = Vec::new();
    for exercise in &exercises {
        let check = exercise.check();
        for scenario in &check.reference.scenarios {
            if !scenario.passed() {
                problems.push(format!(
                    "{}: the reference fails `{}`: {:?} {:?}",
                    exercise.id,
                    scenario.name,
                    scenario.failure(),
                    scenario.error()
                ));
            }
        }
        for row in &check.matrix.rows {
            if row.survived() {
                problems.push(format!(
                    "{}: mutant `{}` survives",
                    exercise.id, row.variant
                ));
            }
            for cell in row.errored() {
                problems.push(format!(
                    "{}: mutant `{}` errors in `{}`: {:?}",
                    exercise.id, row.variant, cell.scenario, cell.problem
                ));
            }
        }
        assert!(
            !check.matrix.rows.is_empty(),
            "{} has no mutants",
            exercise.id
        );
        assert!(check.ok(), "{}: {check:#?}", exercise.id);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A check's schedules are those of every suite it ran: the reference's,
/// the starting texts' and each broken variant's.
#[test]
fn a_check_counts_the_schedules_of_every_suite_it_ran() {
    use fencelab_core::check::Progress;
    use fencelab_core::exercise::CheckSearch;
    use std::collections::BTreeMap;
    let exercise = bundled::exercises()
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .find(|e| e.id == "claim-compare-and-set")
        .expect("exercise 1 is bundled");
    let mut search = CheckSearch::new(exercise.clone());
    while let Progress::Pending = search.advance(u64::MAX) {}
    let schedules = |texts: Vec<(String, String)>| -> u64 {
        let report = exercise.run_texts(&texts, &exercise.scenarios);
        report
            .scenarios
            .iter()
            .map(|s| s.exploration.schedules)
            .sum()
    };
    let mut expected = schedules(exercise.texts_with(&BTreeMap::new()));
    expected += schedules(exercise.texts_with(&exercise.start_edits()));
    for variant in &exercise.variants {
        expected += schedules(exercise.texts_of_variant(variant));
    }
    assert!(expected > 0);
    assert_eq!(search.schedules(), expected);
}
