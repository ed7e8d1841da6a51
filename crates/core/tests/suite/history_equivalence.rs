//! The history recorded from SQLite's preupdate hook is the history the
//! snapshot recorder gives, event by event: on every scenario of every
//! bundled exercise, with the references and with generated mutants (whose
//! broken procedures reach states the references never do), and on an
//! exercise made of the statements the hook finds hardest (tests/data).
//!
//! The snapshot recorder reads every table before and after each step and
//! diffs them: slow, but the definition of a step's row changes.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::Recorder;
use fencelab_core::report::ScenarioReport;
use fencelab_core::{Exercise, ExerciseExt, bundled, exercise, mutation};

const EDGE_CASES: &str = include_str!("../data/history-edge-cases.toml");

/// Random schedules tried per scenario, beside the one exhaustive
/// exploration reports: more histories compared.
const RANDOM_RUNS: u64 = 4;

/// Checks every scenario of `exercise` against `texts` with both recorders
/// and asserts the reports agree, history event by event. Returns the
/// reports of the hook-based recorder, or `None` when the texts cannot
/// make a checker (a mutant that no longer parses), which must then be so
/// for both.
fn compare(
    exercise: &Exercise,
    texts: &[(String, String)],
    label: &str,
) -> Option<Vec<ScenarioReport>> {
    let (hooked, snapshots) = (exercise.checker(texts), exercise.checker(texts));
    let (Ok(mut hooked), Ok(mut snapshots)) = (hooked, snapshots) else {
        return None;
    };
    snapshots.set_recorder(Recorder::Snapshots);
    let mut reports = Vec::new();
    for scenario in &exercise.scenarios {
        let runs = [
            (hooked.check(scenario), snapshots.check(scenario)),
            (
                hooked.check_random(scenario, 7, RANDOM_RUNS),
                snapshots.check_random(scenario, 7, RANDOM_RUNS),
            ),
        ];
        for (by_hook, by_snapshots) in runs {
            let place = format!("{} / {label} / {}", exercise.id, scenario.name);
            assert_eq!(
                by_hook.history.len(),
                by_snapshots.history.len(),
                "{place}: the histories differ in length"
            );
            for (i, (a, b)) in by_hook
                .history
                .iter()
                .zip(&by_snapshots.history)
                .enumerate()
            {
                assert_eq!(a, b, "{place}: event {i} differs");
            }
            assert_eq!(by_hook, by_snapshots, "{place}: the reports differ");
            reports.push(by_hook);
        }
    }
    Some(reports)
}

#[test]
fn the_hook_records_what_snapshots_record_on_every_bundled_reference() {
    for exercise in bundled::exercises().unwrap() {
        let texts = mutation::reference_texts(&exercise);
        assert!(compare(&exercise, &texts, "reference").is_some());
    }
}

/// The bundled exercises have over 2,000 mutants, too many to run twice in
/// a debug test; the first mutant of each operator in each exercise
/// reaches every kind of broken procedure (a dropped transaction, a
/// weakened BEGIN, a moved statement, ...) on every exercise. Natively
/// only: wasm runs the references and the edge cases.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_hook_records_what_snapshots_record_on_a_mutant_of_each_operator() {
    let mut compared = 0;
    for exercise in bundled::exercises().unwrap() {
        let context = mutation::context(&exercise).unwrap();
        let base = mutation::reference_texts(&exercise);
        let generated = mutation::generate(&exercise, &base, &context)
            .expect("a bundled reference is within the mutant budget");
        let mut operators = std::collections::BTreeSet::new();
        for mutant in &generated.mutants {
            // An id is procedure:line:column:operator[:detail].
            let operator = mutant.id.split(':').nth(3).unwrap_or_default();
            if !operators.insert(operator.to_string()) {
                continue;
            }
            let texts = mutation::texts_with_mutant(&base, mutant);
            if compare(&exercise, &texts, &mutant.id).is_some() {
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "only {compared} mutants compared");
}

#[test]
fn the_hook_sees_triggers_cascades_replaces_and_rollbacks() {
    let exercise = exercise::load("history-edge-cases.toml", EDGE_CASES).unwrap();
    let texts = mutation::reference_texts(&exercise);
    let reports = compare(&exercise, &texts, "reference").unwrap();
    for report in &reports {
        assert!(
            matches!(report.result, fencelab_core::ScenarioResult::Passed),
            "{}: {:?}",
            report.name,
            report.result
        );
    }
    // The comparison above is only as good as what the runs changed: every
    // table, and the kinds of change the hook could miss, must appear.
    let changes: Vec<_> = reports
        .iter()
        .flat_map(|r| &r.history)
        .flat_map(|e| &e.row_changes)
        .collect();
    for table in ["audit", "jobs", "notes", "parts", "slots"] {
        assert!(
            changes.iter().any(|c| c.table == table),
            "no row change recorded in {table}"
        );
    }
    let inserted = |table: &str| {
        changes
            .iter()
            .any(|c| c.table == table && c.before.is_none())
    };
    let deleted = |table: &str| {
        changes
            .iter()
            .any(|c| c.table == table && c.after.is_none())
    };
    assert!(
        inserted("slots") && deleted("slots"),
        "REPLACE under a NOCASE key"
    );
    assert!(inserted("notes") && deleted("notes"), "a rowid change");
    assert!(deleted("parts"), "the cascade");
    assert!(inserted("audit"), "the trigger");
}

/// SQLite's preupdate hook numbers a table's columns with its generated
/// ones among them, which a snapshot leaves out: such a schema is recorded
/// by snapshots, whichever recorder is asked for, and records the same.
#[test]
fn a_schema_with_generated_columns_records_what_snapshots_record() {
    let schema = "CREATE TABLE t (a INTEGER, doubled INTEGER GENERATED ALWAYS AS (a * 2), c TEXT);
                  INSERT INTO t (a, c) VALUES (1, 'x');";
    let recorded = [Recorder::Changes, Recorder::Snapshots].map(|recorder| {
        let mut world = fencelab_core::World::new(schema, [], Default::default()).unwrap();
        world.set_recorder(recorder);
        world.execute_direct("UPDATE t SET a = 2, c = 'y'").unwrap();
        world.take_history().pop().unwrap().row_changes
    });
    assert_eq!(recorded[0], recorded[1]);
    let [change] = &recorded[0][..] else {
        panic!("one row changed: {:?}", recorded[0]);
    };
    assert_eq!(change.before, Some(vec![1.into(), "x".into()]));
    assert_eq!(change.after, Some(vec![2.into(), "y".into()]));
}
