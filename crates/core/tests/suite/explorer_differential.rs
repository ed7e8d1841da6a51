//! The reduced explorer (sleep sets, and runs known to meet only locks and
//! sleepers left unrun) against the plain one, on every bundled scenario
//! of every bundled exercise: for the references, the starting texts, every
//! named broken variant, and generated mutants, the two must give the same
//! report (verdict, failure, shown schedule, its history) apart from the
//! exploration's own figures.
//!
//! Generated mutants: every `MUTANT_STRIDE`-th of each exercise's, in the
//! order they are generated (a fixed sample, the same on every run), so the
//! test stays within minutes in a debug build. `FENCELAB_DIFFERENTIAL_ALL=1`
//! takes every mutant (natively in release: `cargo test --release -p
//! fencelab-core --test suite explorer_differential::`).
//!
//! Also: a check advanced in slices of any size gives the report of a check
//! in one go.

#![cfg(not(target_arch = "wasm32"))]

use fencelab_core::check::{Progress, Strategy};
use fencelab_core::{Exercise, ExerciseExt, ScenarioReport, bundled};
use std::collections::BTreeMap;

/// One generated mutant in this many is compared by default.
const MUTANT_STRIDE: usize = 9;

/// The texts to compare the explorers on, each with a label.
fn variants(exercise: &Exercise, every_mutant: bool) -> Vec<(String, Vec<(String, String)>)> {
    crate::common::texts_to_compare(exercise, if every_mutant { 1 } else { MUTANT_STRIDE })
}

/// The report without the exploration's figures, which differ by design.
fn without_figures(mut report: ScenarioReport) -> ScenarioReport {
    report.exploration = Default::default();
    report
}

/// Compares the explorers on every scenario of `exercise`; the number of
/// scenario checks compared and the runs each explorer made.
fn compare(exercise: &Exercise, every_mutant: bool) -> (usize, u64, u64) {
    let (mut checks, mut plain_runs, mut reduced_runs) = (0, 0, 0);
    for (label, texts) in variants(exercise, every_mutant) {
        let (Ok(mut plain), Ok(mut reduced)) = (exercise.checker(&texts), exercise.checker(&texts))
        else {
            // Texts that do not parse give no checker, whatever explores.
            continue;
        };
        plain.set_strategy(Strategy::Plain);
        reduced.set_strategy(Strategy::Reduced);
        for scenario in &exercise.scenarios {
            let expected = plain.check(scenario);
            let got = reduced.check(scenario);
            plain_runs += expected.exploration.schedules + expected.exploration.pruned;
            reduced_runs += got.exploration.schedules + got.exploration.pruned;
            assert_eq!(
                without_figures(got),
                without_figures(expected),
                "{} / {label} / {}: the reduced explorer's report differs",
                exercise.id,
                scenario.name
            );
            checks += 1;
        }
    }
    (checks, plain_runs, reduced_runs)
}

#[test]
fn the_reduced_explorer_reports_what_the_plain_one_does_on_every_bundled_scenario() {
    let every_mutant = std::env::var_os("FENCELAB_DIFFERENTIAL_ALL").is_some();
    let results = crate::common::on_every_exercise(|e| compare(e, every_mutant));
    let checks: usize = results.iter().map(|(_, (c, _, _))| c).sum();
    let plain: u64 = results.iter().map(|(_, (_, p, _))| p).sum();
    let reduced: u64 = results.iter().map(|(_, (_, _, r))| r).sum();
    println!(
        "explorer differential: {checks} scenario checks identical over {} exercises \
         ({} mutants); runs plain {plain}, reduced {reduced}",
        results.len(),
        if every_mutant {
            "every generated"
        } else {
            "a sample of generated"
        },
    );
    // The sample is not empty, and the reduction does run fewer schedules.
    assert!(checks > 1_000, "only {checks} checks compared");
    assert!(reduced < plain, "reduced {reduced} runs, plain {plain}");
}

#[test]
fn a_check_in_slices_reports_what_a_check_in_one_go_does() {
    for exercise in bundled::exercises().unwrap() {
        let texts = exercise.texts_with(&BTreeMap::new());
        // Fresh checkers for each comparison: SQLite's step counts depend
        // on what a connection ran before.
        let checker = || exercise.checker(&texts).unwrap();
        for scenario in &exercise.scenarios {
            let expected = checker().check(scenario);
            for runs in [1, 2, 5] {
                let mut sliced = checker();
                let mut search = sliced.search(scenario);
                let mut slices = 0;
                let report = loop {
                    slices += 1;
                    if let Progress::Done(report) = search.advance(&mut sliced, runs) {
                        break *report;
                    }
                };
                // Every figure too: the budget carries over between slices.
                assert_eq!(report, expected, "{} / {}", exercise.id, scenario.name);
                let made = expected.exploration.schedules + expected.exploration.pruned;
                assert!(
                    slices as u64 >= made.div_ceil(runs),
                    "{} / {}: {made} runs in {slices} slices of {runs}",
                    exercise.id,
                    scenario.name
                );
            }
        }
    }
}

/// A scenario without a concurrent section is one run, recorded as it is
/// explored, and that run is its report: the same report, to the event,
/// as replaying its schedule on its own (what the check did before), with
/// that run's steps counted twice (the exploration's, then the replay's).
/// On every such scenario of every bundled exercise's references, starting
/// texts, named variants and sampled mutants.
#[test]
fn a_scenario_of_one_run_reports_what_replaying_it_reports() {
    let mut compared = 0;
    for exercise in bundled::exercises().unwrap() {
        for (label, texts) in variants(&exercise, false) {
            let Ok(mut checker) = exercise.checker(&texts) else {
                continue;
            };
            for scenario in &exercise.scenarios {
                let checked = checker.check(scenario);
                if checked.exploration.sections != 0 {
                    continue;
                }
                let replayed = checker.replay(scenario, &checked.schedule);
                let context = format!("{} / {label} / {}", exercise.id, scenario.name);
                assert_eq!(checked.exploration.schedules, 1, "{context}");
                assert_eq!(
                    checked.exploration.procedure_steps,
                    2 * replayed.exploration.procedure_steps,
                    "{context}"
                );
                assert_eq!(
                    checked.exploration.memory_bytes, replayed.exploration.memory_bytes,
                    "{context}"
                );
                assert_eq!(
                    without_figures(checked),
                    without_figures(replayed),
                    "{context}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 1_000, "only {compared} scenarios compared");
}

/// A search records its first run as it explores it, and shows that run
/// without a replay when it is the one to show; checked the way before
/// (every run unrecorded, the shown one replayed), every scenario gives the
/// same report, to the figures (procedure and SQLite steps, memory), and
/// with the memory limit cut below what the shown history needs (the
/// speculative history is then dropped and the replay meets the limit), the
/// same error too. On every bundled exercise's references, starting texts,
/// named variants and sampled mutants.
#[test]
fn a_first_run_recorded_as_explored_reports_what_replaying_it_reports() {
    use fencelab_core::ScenarioResult;
    use fencelab_core::check::Limits;
    let (mut compared, mut passed_concurrent, mut cut) = (0, 0, 0);
    for exercise in bundled::exercises().unwrap() {
        for (label, texts) in variants(&exercise, false) {
            let (Ok(mut replaying), Ok(mut recording)) =
                (exercise.checker(&texts), exercise.checker(&texts))
            else {
                continue;
            };
            replaying.set_recording_first_runs(false);
            for scenario in &exercise.scenarios {
                let context = format!("{} / {label} / {}", exercise.id, scenario.name);
                let expected = replaying.check(scenario);
                let got = recording.check(scenario);
                assert_eq!(got, expected, "{context}");
                compared += 1;
                let passed = matches!(got.result, ScenarioResult::Passed);
                if !(passed && got.exploration.sections != 0) {
                    continue;
                }
                passed_concurrent += 1;
                // Half the memory the shown run's history took: exploring
                // holds no history, so only the run shown meets the limit.
                let limits = Limits {
                    memory_bytes_max: got.exploration.memory_bytes / 2,
                    ..Limits::default()
                };
                replaying.set_limits(limits);
                recording.set_limits(limits);
                let expected = replaying.check(scenario);
                let got = recording.check(scenario);
                assert_eq!(got, expected, "{context}, memory cut to {limits:?}");
                cut += usize::from(!matches!(got.result, ScenarioResult::Passed));
                replaying.set_limits(Limits::default());
                recording.set_limits(Limits::default());
            }
        }
    }
    println!(
        "first runs recorded: {compared} scenario checks identical, {passed_concurrent} passed with a \
         concurrent section, {cut} of them meeting a memory limit cut"
    );
    assert!(compared > 1_000, "only {compared} scenarios compared");
    assert!(
        passed_concurrent > 100,
        "only {passed_concurrent} passed with a concurrent section"
    );
    assert!(cut > 10, "only {cut} met the cut memory limit");
}
