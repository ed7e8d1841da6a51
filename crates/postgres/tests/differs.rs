//! The lesson "Same fence, another database" on a real server: each of its
//! exercises has a text (its starting text or a named broken variant) that
//! both engines run as written, and a scenario whose verdict on it differs
//! between SQLite and PostgreSQL read committed. Found by running, never
//! declared: the test runs every such text on both engines and looks.

use fencelab_core::Limits;
use fencelab_core::target::Target;
use fencelab_core::{Exercise, Scenario};
use fencelab_model::exercise::Isolation;
use fencelab_model::report::{ExerciseReport, Verdict};
use fencelab_postgres::PgWorlds;
use fencelab_postgres::testing::server_for_tests;
use std::collections::BTreeMap;
use std::sync::Arc;

const LESSON: &str = "Same fence, another database";

/// The texts of `exercise` that are the same on both engines: its
/// starting texts and each named variant's, by name, where every procedure
/// text the engines run is the same.
fn shared_texts(exercise: &Exercise, on_server: &Exercise) -> Vec<(String, Vec<(String, String)>)> {
    let mut candidates = vec![(
        "the starting text".to_string(),
        exercise.texts_with(&exercise.start_edits()),
        on_server.texts_with(&on_server.start_edits()),
    )];
    for (variant, server_variant) in exercise.variants.iter().zip(&on_server.variants) {
        candidates.push((
            format!("variant \"{}\"", variant.name),
            exercise.texts_of_variant(variant),
            on_server.texts_of_variant(server_variant),
        ));
    }
    candidates
        .into_iter()
        .filter(|(_, sqlite, server)| sqlite == server)
        .map(|(name, texts, _)| (name, texts))
        .collect()
}

fn verdicts(report: &ExerciseReport) -> BTreeMap<String, Verdict> {
    report
        .scenarios
        .iter()
        .map(|s| (s.name.clone(), s.result.verdict()))
        .collect()
}

/// `scenarios` as read committed runs them on the server.
fn read_committed(scenarios: &[Scenario]) -> Vec<Scenario> {
    scenarios
        .iter()
        .cloned()
        .map(|mut s| {
            s.isolation = Some(Isolation::ReadCommitted);
            s
        })
        .collect()
}

#[test]
fn every_exercise_of_the_lesson_has_a_scenario_whose_verdict_differs_for_the_same_text() {
    let Some(server) = server_for_tests() else {
        return;
    };
    let server = Target::Server(Arc::new(PgWorlds::new(server)));
    let lesson: Vec<Exercise> = fencelab_core::bundled::exercises()
        .expect("the bundled exercises load")
        .into_iter()
        .filter(|e| e.lesson == LESSON)
        .collect();
    assert!(
        lesson.len() >= 5,
        "the lesson has {} exercises",
        lesson.len()
    );
    for exercise in &lesson {
        let on_server = exercise
            .on_postgres()
            .unwrap_or_else(|| panic!("{} has no [postgres] table", exercise.id));
        let mut differing = Vec::new();
        for (name, texts) in shared_texts(exercise, &on_server) {
            let sqlite = Target::Sqlite
                .suite(exercise, &texts, &exercise.scenarios, Limits::default())
                .finish();
            let postgres = server
                .suite(
                    &on_server,
                    &texts,
                    &read_committed(&on_server.scenarios),
                    Limits::default(),
                )
                .finish();
            let (sqlite, postgres) = (verdicts(&sqlite), verdicts(&postgres));
            for (scenario, verdict) in &sqlite {
                if postgres.get(scenario).is_some_and(|other| other != verdict) {
                    differing.push(format!(
                        "{name}, \"{scenario}\": SQLite {verdict:?}, PostgreSQL {:?}",
                        postgres[scenario]
                    ));
                }
            }
        }
        assert!(
            !differing.is_empty(),
            "{}: no text the engines share has a scenario whose verdict differs",
            exercise.id
        );
        println!("{}: {}", exercise.id, differing.join("; "));
    }
}
