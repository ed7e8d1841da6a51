//! "Break it yourself": a schedule driven by hand is judged by the checker
//! itself, and a break is measured against the shortest one its exploration
//! finds. The same source runs natively and under wasm-bindgen-test.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::hunt::HuntVerdict;
use fencelab_core::{Checker, Exercise, ExerciseExt, Scenario, Schedule, bundled};
use std::collections::BTreeMap;

fn exercises() -> Vec<Exercise> {
    bundled::exercises().unwrap_or_else(|e| panic!("{e}"))
}

/// The checker of an exercise's starting texts: the broken text a
/// challenge hands the learner first.
fn start_checker(exercise: &Exercise) -> Checker {
    let starts: BTreeMap<String, String> = exercise.start_edits();
    exercise
        .checker(&exercise.texts_with(&starts))
        .unwrap_or_else(|e| panic!("{}: {}", exercise.id, e.error))
}

fn scenario<'a>(exercise: &'a Exercise, name: &str) -> &'a Scenario {
    exercise
        .scenarios
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("{} has no scenario `{name}`", exercise.id))
}

/// Drives `scenario` by hand, choosing with `pick` from the processes that
/// may move, one hunt request per move as the page makes them, until the
/// hunt is no longer going.
fn hunt_by_hand(
    checker: &mut Checker,
    scenario: &Scenario,
    mut pick: impl FnMut(usize, &[String]) -> String,
) -> HuntVerdict {
    let mut moves = Schedule::new();
    for made in 0..400 {
        let hunt = checker.hunt(scenario, &moves);
        if hunt.verdict != HuntVerdict::Going {
            assert!(hunt.drive.finished);
            return hunt.verdict;
        }
        assert!(
            !hunt.drive.options.is_empty(),
            "going, with nothing to move"
        );
        moves.push(pick(made, &hunt.drive.options));
    }
    panic!("`{}` did not end within 400 moves", scenario.name)
}

#[test]
fn a_schedule_that_breaks_a_guarantee_wins_and_one_that_breaks_nothing_does_not() {
    let exercise = exercises().remove(0);
    assert_eq!(exercise.id, "claim-compare-and-set");
    let one_winner = scenario(&exercise, "one winner");
    let mut checker = start_checker(&exercise);
    let shortest = checker.check(one_winner).schedule.len();
    assert!(shortest > 0);

    // One claim after the other: nothing breaks.
    let serial = hunt_by_hand(&mut checker, one_winner, |_, options| options[0].clone());
    assert_eq!(serial, HuntVerdict::Held);

    // Taking turns: both read NEW before either writes, and both believe
    // they own the message.
    let turns = hunt_by_hand(&mut checker, one_winner, |made, options| {
        options[made % options.len()].clone()
    });
    let found = turns.found().unwrap_or_else(|| panic!("no win: {turns:?}"));
    assert_eq!(found.shortest_moves, Some(shortest));
    assert!(found.moves() >= shortest, "{found}");
    assert!(
        found.failure.to_string().contains("msg-1"),
        "the guarantee that broke names the message: {}",
        found.failure
    );
    assert_eq!(
        found.lengths(),
        if found.moves() == shortest {
            format!("Yours took {shortest} moves: as short as a break gets.")
        } else {
            format!(
                "Yours took {} moves; the shortest takes {shortest} moves.",
                found.moves()
            )
        }
    );
}

#[test]
fn no_break_a_learner_drives_is_shorter_than_the_shortest_explored() {
    let exercise = exercises().remove(0);
    let one_winner = scenario(&exercise, "one winner");
    let mut checker = start_checker(&exercise);
    let shortest = checker.check(one_winner).schedule;
    // The checker's own counterexample, driven move by move, is a break
    // as short as they get.
    let verdict = checker.hunt(one_winner, &shortest).verdict;
    assert_eq!(
        verdict.found().map(|f| (f.moves(), f.shortest_moves)),
        Some((shortest.len(), Some(shortest.len())))
    );
    // Whatever order a learner takes, a break is never shorter than the
    // shortest: every schedule of every length is tried by turns.
    let mut wins = 0;
    for first in 0..2 {
        for stride in 1..4 {
            let verdict = hunt_by_hand(&mut checker, one_winner, |made, options| {
                options[(first + made / stride) % options.len()].clone()
            });
            if let Some(found) = verdict.found() {
                wins += 1;
                assert!(found.moves() >= shortest.len(), "{found}");
                assert_eq!(found.shortest_moves, Some(shortest.len()));
            }
        }
    }
    assert!(wins > 0, "some alternation breaks the naive claim");
}

/// On every bundled exercise and every scenario its starting texts or a
/// named broken variant fail, the checker's own counterexample driven by
/// hand is a win as short as a break gets: what the page promises a
/// learner who finds it.
#[test]
fn every_counterexample_of_every_broken_text_driven_by_hand_wins_at_the_shortest() {
    let mut hunts = 0;
    for exercise in exercises() {
        let mut texts = vec![("the starting texts".to_string(), start_checker(&exercise))];
        for variant in &exercise.variants {
            let checker = exercise
                .checker(&exercise.texts_of_variant(variant))
                .unwrap_or_else(|e| panic!("{}: {}", variant.name, e.error));
            texts.push((format!("variant `{}`", variant.name), checker));
        }
        for (text, checker) in &mut texts {
            for scenario in &exercise.scenarios {
                let report = checker.check(scenario);
                if report.failure().is_none() {
                    continue;
                }
                let hunt = checker.hunt(scenario, &report.schedule);
                let context = format!("{} / {text} / {}", exercise.id, scenario.name);
                let found = hunt
                    .verdict
                    .found()
                    .unwrap_or_else(|| panic!("{context}: {:?}", hunt.verdict));
                assert_eq!(found.failure, *report.failure().unwrap(), "{context}");
                assert_eq!(
                    (found.moves(), found.shortest_moves),
                    (report.schedule.len(), Some(report.schedule.len())),
                    "{context}"
                );
                hunts += 1;
            }
        }
    }
    assert!(hunts >= 13, "only {hunts} hunts");
}

#[test]
fn a_hunt_cut_short_by_an_unknown_process_is_unjudged_not_a_win() {
    let exercise = exercises().remove(0);
    let one_winner = scenario(&exercise, "one winner");
    let mut checker = start_checker(&exercise);
    let hunt = checker.hunt(one_winner, &Schedule::parse("a nobody").unwrap());
    assert!(
        matches!(&hunt.verdict, HuntVerdict::Unjudged { error } if error.message().contains("nobody")),
        "{:?}",
        hunt.verdict
    );
}
