//! A prerendered page's first state and its hydration: the state the build
//! rendered, then the saved work read, the report kept only while it is
//! still the report of the texts shown.

use super::*;
use crate::prerendered::Prerendered;

fn page() -> Prerendered {
    Prerendered {
        exercise: CLAIM.into(),
        report: claim_report(true),
    }
}

fn prerendered() -> Model {
    Model::prerendered(catalog(), &page()).expect("the claim exercise is bundled")
}

#[test]
fn the_first_state_shows_the_starting_texts_with_their_verdicts_and_reads_nothing() {
    let model = prerendered();
    assert_eq!(model.exercise().map(|e| e.id.as_str()), Some(CLAIM));
    assert_eq!(
        model.opening, None,
        "the loop is drawn, not `Reading your saved work`"
    );
    assert_eq!(model.texts, model.starts());
    assert_eq!(model.prerendered.as_ref(), Some(&model.starts()));
    assert_eq!(model.report.as_deref(), Some(&claim_report(true)));
    assert!(!model.checking(), "the verdicts are the shown texts'");
    assert!(
        matches!(&model.view, View::Checked { scenario, .. } if scenario == ONE_WINNER),
        "the first failing scenario's timeline, as after the worker's first answer: {:?}",
        model.view
    );
    assert_eq!(model.theme, Theme::System, "no storage read at build time");
    // The worker is asked the same check, which it answers with the same report.
    assert_eq!(
        model.check_request(),
        Some(Request::Check {
            seq: model.report_seq,
            exercise: CLAIM.into(),
            edits: model.starts(),
        })
    );
}

#[test]
fn a_page_of_an_exercise_not_bundled_or_a_report_of_another_has_no_state() {
    let mut other = page();
    other.exercise = "not-bundled".into();
    assert!(Model::prerendered(catalog(), &other).is_none());
    let mut mixed = page();
    mixed.report.exercise = "complete-under-the-token".into();
    assert!(Model::prerendered(catalog(), &mixed).is_none());
}

#[test]
fn nothing_saved_keeps_the_report_current() {
    let mut model = prerendered();
    act(
        &mut model,
        Action::Hydrated {
            loaded: Loaded::Nothing,
            theme: Theme::Dark,
        },
    );
    assert_eq!(model.prerendered, None);
    assert_eq!(model.opening, None);
    assert_eq!(model.theme, Theme::Dark);
    assert!(!model.checking());
    assert_eq!(model.report.as_deref(), Some(&claim_report(true)));
}

#[test]
fn the_workers_confirming_answer_leaves_the_timeline_and_the_announcement_as_they_are() {
    let mut model = prerendered();
    act(
        &mut model,
        Action::Hydrated {
            loaded: Loaded::Nothing,
            theme: Theme::System,
        },
    );
    let Some(Request::Check { seq, .. }) = model.check_request() else {
        panic!("the page asks the worker for the report it came with");
    };
    // The learner steps back through the timeline before the worker answers
    // (on a slow device, or a loaded machine, that is seconds).
    act(&mut model, Action::StepBy(-1));
    let stepped = model.view.clone();
    let said = model.announcement.clone();
    assert!(said.starts_with("Step "), "{said}");
    answer(
        &mut model,
        Response::Checked {
            seq,
            report: claim_report(true),
        },
    );
    assert_eq!(model.view, stepped, "the learner's step stays selected");
    assert_eq!(model.announcement, said, "nothing is said over the step");
    assert!(!model.checking());
    assert_eq!(model.report.as_deref(), Some(&claim_report(true)));
    // A check of an edit is answered as ever: its verdicts are said.
    act(
        &mut model,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- the learner's claim".into(),
        },
    );
    check_answered(&mut model, claim_report(false));
    assert_ne!(model.announcement, said);
    assert!(
        model.announcement.contains("scenario"),
        "{}",
        model.announcement
    );
}

#[test]
fn saved_work_of_other_texts_is_shown_as_being_checked_until_its_report_arrives() {
    let mut model = prerendered();
    act(
        &mut model,
        Action::Hydrated {
            loaded: saved(&[("claim", "-- the learner's claim")], &[]),
            theme: Theme::System,
        },
    );
    assert_eq!(
        model.texts.get("claim").map(String::as_str),
        Some("-- the learner's claim")
    );
    assert!(
        model.checking(),
        "the start's verdicts are not the learner's"
    );
    let Some(Request::Check { seq, edits, .. }) = model.check_request() else {
        panic!("a check of the learner's text is wanted");
    };
    assert_eq!(seq, model.check_wanted);
    assert_eq!(
        edits.get("claim").map(String::as_str),
        Some("-- the learner's claim")
    );
    // The answer to the build's check, arriving late, is not taken for it.
    let stale = model.report_seq;
    answer(
        &mut model,
        Response::Checked {
            seq: stale,
            report: claim_report(true),
        },
    );
    assert!(model.checking());
    check_answered(&mut model, claim_report(false));
    assert!(!model.checking());
    assert_eq!(model.report.as_deref(), Some(&claim_report(false)));
}

#[test]
fn hydrating_twice_or_after_opening_another_changes_nothing() {
    let mut model = prerendered();
    act(&mut model, Action::Open(1));
    let opened = model.clone();
    act(
        &mut model,
        Action::Hydrated {
            loaded: Loaded::Nothing,
            theme: Theme::Dark,
        },
    );
    assert_eq!(model, opened);
}
