//! Runs resumed from images of the world (world/image.rs) against runs
//! replayed from the seed, on every bundled scenario of every bundled
//! exercise: for the references, the starting texts, every named broken
//! variant and every generated mutant, the two must give the same report,
//! to the exploration's figures (runs, states, procedure and SQLite steps,
//! memory): a resumed run charges what the replay of its path would spend,
//! so budgets and limits fall where they fell.
//!
//! Each pair of checkers also checks every scenario with a budget cut to a
//! fraction of what the full check spent, where a resumed run must not
//! carry the check past the limit at a different run than a replay does.

#![cfg(not(target_arch = "wasm32"))]

use fencelab_core::check::Limits;
use fencelab_core::{Exercise, ExerciseExt};

/// One text in this many is also checked with its limits cut.
const CUT_STRIDE: usize = 5;

/// Compares the two ways on every scenario of `exercise`; the number of
/// scenario checks compared, and the runs made and resumed.
fn compare(exercise: &Exercise) -> (usize, u64, u64) {
    let (mut checks, mut runs, mut resumed) = (0, 0, 0);
    for (index, (label, texts)) in crate::common::texts_to_compare(exercise, 1)
        .into_iter()
        .enumerate()
    {
        let (Ok(mut replaying), Ok(mut resuming)) =
            (exercise.checker(&texts), exercise.checker(&texts))
        else {
            continue;
        };
        replaying.set_resuming(false);
        for scenario in &exercise.scenarios {
            let expected = replaying.check(scenario);
            let got = resuming.check(scenario);
            assert_eq!(
                got, expected,
                "{} / {label} / {}: the report of resumed runs differs",
                exercise.id, scenario.name
            );
            runs += expected.exploration.schedules + expected.exploration.pruned;
            checks += 1;
        }
        // Limits reached half-way, on every fifth text: the same error, at
        // the same run.
        if index % CUT_STRIDE == 0 {
            for scenario in &exercise.scenarios {
                let full = replaying.check(scenario).exploration;
                let cut = Limits {
                    steps_max: full.procedure_steps / 2,
                    sqlite_steps_max: full.sqlite_steps / 3,
                    ..Limits::default()
                };
                replaying.set_limits(cut);
                resuming.set_limits(cut);
                let expected = replaying.check(scenario);
                let got = resuming.check(scenario);
                assert_eq!(
                    got, expected,
                    "{} / {label} / {}: cut limits, the report of resumed runs differs",
                    exercise.id, scenario.name
                );
                replaying.set_limits(Limits::default());
                resuming.set_limits(Limits::default());
            }
        }
        assert_eq!(replaying.resumed_runs(), 0);
        resumed += resuming.resumed_runs();
    }
    (checks, runs, resumed)
}

#[test]
fn resumed_runs_report_what_replayed_runs_do_on_every_bundled_scenario_and_mutant() {
    let results = crate::common::on_every_exercise(compare);
    let checks: usize = results.iter().map(|(_, (c, _, _))| c).sum();
    let runs: u64 = results.iter().map(|(_, (_, r, _))| r).sum();
    let resumed: u64 = results.iter().map(|(_, (_, _, r))| r).sum();
    println!(
        "resume differential: {checks} scenario checks identical over {} exercises; \
         {resumed} of {runs} runs resumed from an image",
        results.len()
    );
    assert!(checks > 5_000, "only {checks} checks compared");
    // Resuming is not vacuous: every exercise that explores more than one
    // run for some scenario resumes some of them from an image.
    for (id, (checks, runs, resumed)) in &results {
        assert!(
            *runs == *checks as u64 || *resumed > 0,
            "{id}: none of {runs} runs resumed"
        );
    }
}
