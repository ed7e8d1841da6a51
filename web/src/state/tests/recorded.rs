//! The recorded PostgreSQL verdicts (issue 53, item 4): asked once for an
//! exercise with a dialect, never for one without, and read from what the
//! site answered: a recording, none (built without a server), or something
//! that is not this exercise's recording.

use super::*;
use fencelab_model::report::{Recorded, RecordedRun, RecordedTexts};

/// The claim exercise, opened, with a PostgreSQL dialect of its own.
fn with_dialect() -> Playground {
    let mut playground = opened();
    let dialect = serde_json::from_value(serde_json::json!({
        "schema": "CREATE TABLE messages (id integer PRIMARY KEY);"
    }))
    .expect("a dialect");
    Rc::make_mut(&mut playground.exercises)[playground.open.index].postgres = Some(dialect);
    playground
}

/// A recording of `exercise` whose reference fails "one winner" on the
/// server, where SQLite passes it.
fn recording(exercise: &str) -> String {
    let recorded = Recorded {
        exercise: exercise.to_string(),
        engine: "PostgreSQL 15.18".into(),
        runs: vec![RecordedRun::new(
            RecordedTexts::Reference,
            claim_report(true),
            &claim_report(false),
        )],
    };
    serde_json::to_string(&recorded).expect("JSON")
}

#[test]
fn an_exercise_without_a_dialect_asks_for_no_recording_and_shows_none() {
    let mut playground = opened();
    // The claim exercise has PostgreSQL texts of its own: taken away here.
    Rc::make_mut(&mut playground.exercises)[playground.open.index].postgres = None;
    assert_eq!(playground.recording_wanted(), None);
    assert_eq!(playground.recorded_verdicts(), None);
}

#[test]
fn a_recording_is_asked_once_and_shown_once_it_arrives() {
    let mut playground = with_dialect();
    assert_eq!(playground.recording_wanted().as_deref(), Some(CLAIM));
    assert_eq!(
        playground.recorded_verdicts(),
        Some(RecordedVerdicts::Fetching)
    );
    act(&mut playground, Action::RecordingAsked(CLAIM.into()));
    assert_eq!(playground.recording_wanted(), None, "asked once");
    act(
        &mut playground,
        Action::RecordingArrived {
            exercise: CLAIM.into(),
            fetched: Ok(Some(recording(CLAIM))),
        },
    );
    let Some(RecordedVerdicts::Found(recorded)) = playground.recorded_verdicts() else {
        panic!("found: {:?}", playground.recorded_verdicts());
    };
    assert_eq!(recorded.engine, "PostgreSQL 15.18");
    let run = &recorded.runs[0];
    let differing: Vec<usize> = run.differing().collect();
    assert_eq!(differing.len(), 1);
    for (index, scenario) in run.report.scenarios.iter().enumerate() {
        assert_eq!(
            scenario.history.is_empty(),
            !differing.contains(&index),
            "only a differing scenario keeps its timeline: {}",
            scenario.name
        );
    }
}

#[test]
fn a_site_built_without_a_server_has_none_and_says_so() {
    let mut playground = with_dialect();
    act(
        &mut playground,
        Action::RecordingArrived {
            exercise: CLAIM.into(),
            fetched: Ok(None),
        },
    );
    assert_eq!(playground.recorded_verdicts(), Some(RecordedVerdicts::None));
    assert_eq!(playground.recording_wanted(), None);
}

#[test]
fn what_is_not_this_exercises_recording_is_unreadable() {
    for fetched in [
        Ok(Some(recording("another-exercise"))),
        Ok(Some("<html>".to_string())),
        Err("the site answered 500".to_string()),
    ] {
        let mut playground = with_dialect();
        act(
            &mut playground,
            Action::RecordingArrived {
                exercise: CLAIM.into(),
                fetched,
            },
        );
        assert!(
            matches!(
                playground.recorded_verdicts(),
                Some(RecordedVerdicts::Unreadable(_))
            ),
            "{:?}",
            playground.recorded_verdicts()
        );
    }
}

#[test]
fn the_command_names_a_file_per_editable_procedure() {
    let texts: Edits = [("claim".to_string(), "SELECT 1;".to_string())].into();
    assert_eq!(
        crate::components::postgres_panel::run_line(CLAIM, &texts),
        format!("fencelab run {CLAIM} --postgres --set claim=claim.sql")
    );
}

/// A site's procedure name reaches the command a learner pastes into a
/// shell only as one quoted word (`text::shell_word`, which
/// crates/model/tests/shell_word.rs holds to what sh reads back).
#[test]
fn a_procedure_name_the_shell_would_read_is_quoted_in_the_command() {
    let texts: Edits = [("x; rm -rf ~".to_string(), "SELECT 1;".to_string())].into();
    assert_eq!(
        crate::components::postgres_panel::run_line(CLAIM, &texts),
        format!("fencelab run {CLAIM} --postgres --set 'x; rm -rf ~=x; rm -rf ~.sql'")
    );
}

#[test]
fn an_embed_asks_for_no_recording_and_shows_no_panel() {
    let mut playground = with_dialect();
    playground.embed = true;
    assert_eq!(playground.recording_wanted(), None);
    assert_eq!(playground.recorded_verdicts(), None);
}
