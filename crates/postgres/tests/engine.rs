//! The core's interpreter, scheduler and monitor on a real PostgreSQL
//! server: a bundled exercise's scenarios, with a PostgreSQL schema, run
//! through `fencelab_core::exercise::suite_on_server` exactly as they run
//! on SQLite, every schedule explored.

use fencelab_core::Limits;
use fencelab_core::target::Target;
use fencelab_core::{Checker, Exercise, Outcome, Procedure, Schedule, What};
use fencelab_model::report::{ExerciseReport, Verdict};
use fencelab_postgres::testing::server_for_tests;
use fencelab_postgres::{Isolation, PgWorld, PgWorlds};
use std::sync::Arc;

mod claim;
use claim::{CLAIM_REFERENCE, CLAIM_SCHEMA};

fn claim_exercise() -> Exercise {
    let mut exercise = fencelab_core::bundled::exercises()
        .expect("the bundled exercises load")
        .into_iter()
        .find(|e| e.id == "claim-compare-and-set")
        .expect("exercise 1 is bundled");
    exercise.schema = CLAIM_SCHEMA.to_string();
    exercise
}

/// Runs every scenario of exercise 1 on worlds on the server, with `claim`
/// as the claim's text; `None` when the tests skip.
fn run_claim(claim: &str) -> Option<ExerciseReport> {
    let exercise = claim_exercise();
    let target = Target::Server(Arc::new(PgWorlds::new(server_for_tests()?)));
    let texts = vec![("claim".to_string(), claim.to_string())];
    Some(
        target
            .suite(&exercise, &texts, &exercise.scenarios, Limits::default())
            .finish(),
    )
}

fn verdict(report: &ExerciseReport, scenario: &str) -> Verdict {
    report
        .scenarios
        .iter()
        .find(|s| s.name == scenario)
        .unwrap_or_else(|| panic!("no scenario {scenario}"))
        .result
        .verdict()
}

#[test]
fn the_compare_and_set_holds_on_postgresql_in_every_interleaving() {
    let Some(report) = run_claim(CLAIM_REFERENCE) else {
        return;
    };
    for scenario in &report.scenarios {
        assert_eq!(
            scenario.result.verdict(),
            Verdict::Passed,
            "{}: {:?}",
            scenario.name,
            scenario.result
        );
    }
    // Every interleaving of "one winner" was run, and in some the second
    // claim's UPDATE waited on the first's row lock: shown as a wait, then
    // the statement's finish, two events of the same process.
    let one_winner = report
        .scenarios
        .iter()
        .find(|s| s.name == "one winner")
        .expect("scenario one winner");
    assert!(
        one_winner.exploration.schedules > 1,
        "{:?}",
        one_winner.exploration
    );
}

#[test]
fn read_then_write_lets_two_workers_believe_they_own_the_message_on_postgresql_too() {
    let start = claim_exercise().procedures[0].start.clone();
    let Some(report) = run_claim(&start) else {
        return;
    };
    assert_eq!(verdict(&report, "one winner"), Verdict::Failed);
}

#[test]
fn a_claim_that_waits_is_shown_waiting_then_finishing_after_the_holder_commits() {
    // a runs to its UPDATE and holds the row's lock; b's UPDATE meets it
    // and waits; a commits; b's UPDATE then finishes, re-checks its WHERE
    // against the committed row (read committed), changes nothing, and b
    // is refused.
    let exercise = claim_exercise();
    let Some(mut server) = server_for_tests() else {
        return;
    };
    let db = server
        .create_world(&exercise.schema)
        .expect("the schema applies");
    let world = PgWorld::new(db, Isolation::ReadCommitted).expect("the world opens");
    let claim = Procedure::parse("claim", CLAIM_REFERENCE).expect("the reference parses");
    let mut checker = Checker::on_server(
        Box::new(world),
        [claim],
        exercise.constants.clone(),
        exercise.rules.clone(),
    )
    .expect("the checker builds");
    let one_winner = exercise
        .scenarios
        .iter()
        .find(|s| s.name == "one winner")
        .expect("scenario one winner");
    let schedule = Schedule::parse("a a a b b b a b").expect("a schedule");
    let report = checker.replay(one_winner, &schedule);
    assert_eq!(
        report.result.verdict(),
        Verdict::Passed,
        "{:?}",
        report.result
    );
    let b = report
        .lanes
        .iter()
        .find(|lane| lane.name == "b")
        .expect("lane b")
        .process
        .clone();
    let of_b: Vec<&What> = report
        .history
        .iter()
        .filter(|e| e.process.as_deref() == Some(b.as_str()))
        .map(|e| &e.what)
        .collect();
    let waited = of_b
        .iter()
        .position(|w| matches!(w, What::Blocked { sql } if sql.contains("UPDATE messages")))
        .unwrap_or_else(|| panic!("b never waited: {of_b:?}"));
    let finished = of_b
        .iter()
        .position(|w| {
            matches!(w, What::Statement { sql, changed: 0, .. } if sql.contains("UPDATE messages"))
        })
        .unwrap_or_else(|| panic!("b's UPDATE never finished changing nothing: {of_b:?}"));
    assert!(waited < finished, "{of_b:?}");
    assert!(
        matches!(
            of_b.last(),
            Some(What::CallFinished {
                outcome: Outcome::Refused { .. },
                rolled_back: true
            })
        ),
        "{of_b:?}"
    );
}
