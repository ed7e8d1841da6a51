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
