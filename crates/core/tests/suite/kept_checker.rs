//! A checker kept from one set of texts to the next ([`Checker::renew`],
//! `ExerciseExt::checker_reusing`: the page's worker keeps one per
//! exercise, so a keystroke's check builds no schema, seed rows or
//! connections) reports exactly what a checker built for the texts does:
//! every figure included, on every bundled exercise, for the reference, the
//! starting texts, every named broken variant and a sample of generated
//! mutants, checked one after another in the one kept checker, with texts
//! that do not parse, checks dropped half-way, replays and drives between
//! them, as a learner's edits and clicks come.

use fencelab_core::check::{Limits, Progress, SuiteSearch};
use fencelab_core::{Checker, Exercise, ExerciseExt, ExerciseReport, bundled};
use std::collections::BTreeMap;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// One generated mutant in this many is checked (the sample is the same on
/// every run); fewer in wasm, where the suite runs about three times slower.
const MUTANT_STRIDE: usize = if cfg!(target_arch = "wasm32") { 23 } else { 7 };

/// The runs per slice of a kept suite, as small as the worker's, so a
/// check is advanced, and dropped, between runs of one scenario.
const RUNS_PER_SLICE: u64 = 3;

/// The texts a learner's session might check, in order, each labelled:
/// the differential tests' sample, with a text that does not parse after
/// the starting texts and the reference again at the end.
fn texts_in_order(exercise: &Exercise) -> Vec<(String, Vec<(String, String)>)> {
    let mut texts = crate::common::texts_to_compare(exercise, MUTANT_STRIDE);
    let reference = texts[0].1.clone();
    let mut broken = reference.clone();
    broken[0].1 = "UPDATE nowhere SET (".into();
    texts.insert(2, ("a text that does not parse".into(), broken));
    texts.push(("the reference again".into(), reference));
    texts
}

/// `texts` checked in slices with `kept` renewed, as the worker checks;
/// the report, with the checker put back in `kept`. `abandon` drops the
/// check after its first slice instead (a newer edit came), and gives
/// back no report.
fn check_kept(
    exercise: &Exercise,
    texts: &[(String, String)],
    kept: &mut Option<Checker>,
    abandon: bool,
) -> Option<ExerciseReport> {
    let checker = exercise.checker_reusing(texts, kept);
    let mut suite = SuiteSearch::new(
        &exercise.id,
        checker,
        &exercise.scenarios,
        Limits::default(),
    );
    let report = loop {
        match suite.advance(RUNS_PER_SLICE) {
            Progress::Pending if abandon => break None,
            Progress::Pending => {}
            Progress::Done(report) => break Some(*report),
        }
    };
    if let Some(checker) = suite.into_checker() {
        *kept = Some(checker);
    }
    report
}

#[test]
fn a_kept_checker_reports_what_a_new_one_does_for_every_text_in_turn() {
    let mut compared = 0;
    for exercise in bundled::exercises().expect("the bundled exercises load") {
        let mut kept = None;
        for (index, (label, texts)) in texts_in_order(&exercise).into_iter().enumerate() {
            let context = format!("{} / {label}", exercise.id);
            // Every fifth text's check is dropped after a slice first, as a
            // newer keystroke drops a stale one.
            if index % 5 == 4 {
                check_kept(&exercise, &texts, &mut kept, true);
            }
            let fresh = exercise.run_texts(&texts, &exercise.scenarios);
            let renewed = check_kept(&exercise, &texts, &mut kept, false);
            assert_eq!(renewed.as_ref(), Some(&fresh), "{context}");
            let Ok(mut new) = exercise.checker(&texts) else {
                assert!(kept.is_some() || index == 0, "{context}: kept dropped");
                continue;
            };
            // The timeline's requests on the shown schedules: a replay, and
            // a drive to the schedule's middle.
            for (scenario, report) in exercise.scenarios.iter().zip(&fresh.scenarios) {
                let Some(checker) = kept.as_mut() else {
                    panic!("{context}: no checker kept after texts that run");
                };
                let schedule = &report.schedule;
                assert_eq!(
                    checker.replay(scenario, schedule),
                    new.replay(scenario, schedule),
                    "{context} / {}: replay",
                    scenario.name
                );
                let half = schedule.moves()[..schedule.len() / 2].iter().collect();
                assert_eq!(
                    checker.drive(scenario, &half),
                    new.drive(scenario, &half),
                    "{context} / {}: drive",
                    scenario.name
                );
            }
            compared += 1;
        }
    }
    let least = if cfg!(target_arch = "wasm32") {
        150
    } else {
        300
    };
    assert!(compared > least, "only {compared} texts compared");
}

/// What a caller set on a checker (the limits a suite cut, the plain
/// explorer a benchmark asked for) is forgotten when it is renewed: the
/// renewed checker reports what a new one does, figures included.
#[test]
fn a_renewed_checker_forgets_the_limits_and_strategy_it_was_given() {
    use fencelab_core::check::Strategy;
    let exercises = bundled::exercises().expect("the bundled exercises load");
    let exercise = &exercises[0];
    let texts = exercise.texts_with(&BTreeMap::new());
    let mut kept = Some(exercise.checker(&texts).expect("the reference runs"));
    if let Some(checker) = kept.as_mut() {
        checker.set_limits(Limits {
            sqlite_steps_max: 50,
            ..Limits::default()
        });
        checker.set_strategy(Strategy::Plain);
    }
    let mut renewed = exercise
        .checker_reusing(&texts, &mut kept)
        .expect("the reference runs");
    assert!(kept.is_none(), "the kept checker was not the one renewed");
    let mut new = exercise.checker(&texts).expect("the reference runs");
    for scenario in &exercise.scenarios {
        assert_eq!(
            renewed.check(scenario),
            new.check(scenario),
            "{}",
            scenario.name
        );
    }
}

/// A renewed checker parses only the texts that changed: every other
/// procedure is the very one it held (a keystroke changes one text of
/// several; parsing every text again was a tenth of a small check).
#[test]
fn a_renewed_checker_keeps_the_parse_of_every_text_that_did_not_change() {
    let exercises = bundled::exercises().expect("the bundled exercises load");
    let exercise = exercises
        .iter()
        .find(|e| e.texts_with(&BTreeMap::new()).len() > 1)
        .expect("a bundled exercise with several procedures");
    let reference = exercise.texts_with(&BTreeMap::new());
    let mut kept = None;
    let checker = exercise
        .checker_reusing(&reference, &mut kept)
        .expect("the references parse");
    let held: Vec<_> = reference
        .iter()
        .map(|(name, text)| checker.parsed(name, text).expect("held as parsed"))
        .collect();
    kept = Some(checker);

    let mut edited = reference.clone();
    edited[0].1.push_str("\n-- an edit");
    let checker = exercise
        .checker_reusing(&edited, &mut kept)
        .expect("the edit parses");
    let (name, text) = &edited[0];
    let renewed = checker
        .parsed(name, text)
        .expect("the edited text, parsed anew");
    assert!(
        !std::sync::Arc::ptr_eq(&renewed, &held[0]),
        "{name} changed: parsed anew"
    );
    assert_eq!(renewed.source, *text);
    assert!(
        checker.parsed(name, &reference[0].1).is_none(),
        "the old text is gone"
    );
    for ((name, text), before) in reference.iter().zip(&held).skip(1) {
        let now = checker.parsed(name, text).expect("still held");
        assert!(
            std::sync::Arc::ptr_eq(&now, before),
            "{name} did not change: not parsed again"
        );
    }
}
