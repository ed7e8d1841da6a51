//! What the checker's reports carry beyond a verdict: the beliefs after
//! every event, and failures as typed data worded in the exercise's terms.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::monitor::Violation;
use fencelab_core::{ExerciseExt, FailureCause, Verdict, bundled};
use std::collections::BTreeMap;

#[test]
fn every_report_carries_the_beliefs_after_each_of_its_events() {
    let mut compared = 0;
    for exercise in bundled::exercises().unwrap() {
        let mut edits = BTreeMap::new();
        for procedure in exercise.procedures.iter().filter(|p| p.editable) {
            edits.insert(procedure.name.clone(), procedure.start.clone());
        }
        for report in exercise.run(&edits).scenarios {
            if report.verdict() == Verdict::Error && report.history.is_empty() {
                continue;
            }
            assert_eq!(
                report.beliefs.len(),
                report.history.len(),
                "{} / {}",
                exercise.id,
                report.name
            );
            compared += 1;
        }
    }
    // Not vacuous: most scenarios run (only texts that cannot run are skipped).
    assert!(compared > 50, "only {compared} reports had a history");
}

#[test]
fn the_stale_incarnation_is_named_in_the_exercises_words() {
    let exercise = bundled::exercises()
        .unwrap()
        .into_iter()
        .find(|e| e.id == "session-incarnations")
        .unwrap();
    // The starting finish compares everything except the incarnation.
    let start: BTreeMap<String, String> = exercise.start_edits();
    let report = exercise.run(&start);
    let failure = report
        .scenarios
        .iter()
        .find_map(|s| s.failure())
        .expect("the starting finish fails a scenario");
    let Some(FailureCause::Invariant {
        violation:
            Violation::StaleCompletion {
                presented,
                current,
                token_called,
                ..
            },
    }) = failure.cause()
    else {
        panic!("expected a stale completion, got {failure:?}");
    };
    assert_eq!(token_called, "incarnation");
    let sentence = failure.to_string();
    assert!(
        sentence.contains(&format!(
            "under incarnation {presented}, but the current incarnation is {current}"
        )),
        "{sentence}"
    );
}

/// A scenario's search gives its report once, whole (no copy of its
/// history is kept for a second asking); asked again, it says so as an
/// engine error rather than giving another report.
#[test]
fn a_scenarios_search_gives_its_report_once_and_says_so_when_asked_again() {
    use fencelab_core::check::Progress;
    let exercises = bundled::exercises().expect("the bundled exercises load");
    let exercise = &exercises[0];
    let mut checker = exercise
        .checker(&exercise.texts_with(&exercise.start_edits()))
        .expect("the starting texts run");
    let scenario = &exercise.scenarios[0];
    let expected = checker.check(scenario);
    let mut search = checker.search(scenario);
    let report = loop {
        if let Progress::Done(report) = search.advance(&mut checker, 2) {
            break *report;
        }
    };
    assert_eq!(report, expected);
    let Progress::Done(again) = search.advance(&mut checker, 2) else {
        panic!("a search that is done stays done");
    };
    assert_eq!(again.verdict(), Verdict::Error);
    assert!(
        again
            .error()
            .is_some_and(|e| e.to_string().contains("already given its report")),
        "{again:?}"
    );
}

/// The editable procedures' starting texts, by name: what a learner first
/// sees in the editors.
fn starting_texts(exercise: &fencelab_core::Exercise) -> BTreeMap<String, String> {
    exercise
        .procedures
        .iter()
        .filter(|p| p.editable)
        .map(|p| (p.name.clone(), p.start.clone()))
        .collect()
}

#[test]
fn every_failure_of_a_starting_text_or_a_named_variant_is_a_sentence() {
    // Issue 52: a `query` step's failure was its SQL ("`SELECT w.seq, ...`
    // returned [(4, 1)], expected []"). A query that expects no rows says
    // what it checks (`checks`), and its failure says that instead.
    let mut raw = Vec::new();
    let mut checked = 0;
    for exercise in bundled::exercises().unwrap() {
        let start = starting_texts(&exercise);
        let variants = exercise
            .variants
            .iter()
            .map(|v| (v.name.clone(), v.procedures.clone()));
        for (texts, edits) in std::iter::once(("start".to_string(), start)).chain(variants) {
            for report in exercise.run(&edits).scenarios {
                let Some(failure) = report.failure() else {
                    continue;
                };
                checked += 1;
                if let Some(FailureCause::QueryRows {
                    sql,
                    expected,
                    checks: None,
                    ..
                }) = failure.cause()
                    && expected.is_empty()
                {
                    raw.push(format!(
                        "{} ({texts}) / {}: {sql}",
                        exercise.id, report.name
                    ));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} failures");
    assert!(raw.is_empty(), "failures that are SQL:\n{}", raw.join("\n"));

    let exercise = bundled::exercises()
        .unwrap()
        .into_iter()
        .find(|e| e.id == "decide-in-the-transaction")
        .expect("exercise 11");
    let start = starting_texts(&exercise);
    let report = exercise
        .run(&start)
        .scenarios
        .into_iter()
        .find(|r| r.name == "an install between the read and the write")
        .expect("the scenario");
    assert_eq!(
        report.failure().map(|f| f.message()).as_deref(),
        Some(
            "each admitted write carries the generation installed when it lands: \
             violated by seq = 4, generation = 1"
        ),
        "{report:#?}"
    );
}
