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

fn prerendered() -> Playground {
    Playground::prerendered(catalog(), &page(), Vec::new()).expect("the claim exercise is bundled")
}

#[test]
fn the_first_state_shows_the_starting_texts_with_their_verdicts_and_reads_nothing() {
    let playground = prerendered();
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(CLAIM));
    assert_eq!(
        playground.open.opening, None,
        "the loop is drawn, not `Reading your saved work`"
    );
    assert_eq!(playground.open.texts, playground.starts());
    assert_eq!(
        playground.open.prerendered.as_ref(),
        Some(&playground.starts())
    );
    assert_eq!(playground.open.report.as_deref(), Some(&claim_report(true)));
    assert!(
        !playground.open.checking(),
        "the verdicts are the shown texts'"
    );
    assert!(
        matches!(&playground.open.view, View::Checked { scenario, .. } if scenario == ONE_WINNER),
        "the first failing scenario's timeline, as after the worker's first answer: {:?}",
        playground.open.view
    );
    assert_eq!(
        playground.theme,
        Theme::System,
        "no storage read at build time"
    );
    // The worker is asked the same check, which it answers with the same report.
    assert_eq!(
        playground.check_request(),
        Some(Request::Check {
            seq: playground.open.report_seq,
            exercise: CLAIM.into(),
            edits: playground.starts(),
        })
    );
}

#[test]
fn a_page_of_an_exercise_not_bundled_or_a_report_of_another_has_no_state() {
    let mut other = page();
    other.exercise = "not-bundled".into();
    assert!(Playground::prerendered(catalog(), &other, Vec::new()).is_none());
    let mut mixed = page();
    mixed.report.exercise = "complete-under-the-token".into();
    assert!(Playground::prerendered(catalog(), &mixed, Vec::new()).is_none());
}

#[test]
fn nothing_is_saved_over_the_learners_work_before_the_page_has_read_it() {
    let mut playground = prerendered();
    assert_eq!(
        playground.autosaved_exercise(),
        None,
        "the starting texts are shown, not the learner's work"
    );
    act(
        &mut playground,
        Action::Hydrated {
            loaded: Loaded::Nothing,
            theme: Theme::System,
        },
    );
    assert_eq!(playground.autosaved_exercise(), Some(CLAIM));
}

#[test]
fn nothing_saved_keeps_the_report_current() {
    let mut playground = prerendered();
    act(
        &mut playground,
        Action::Hydrated {
            loaded: Loaded::Nothing,
            theme: Theme::Dark,
        },
    );
    assert_eq!(playground.open.prerendered, None);
    assert_eq!(playground.open.opening, None);
    assert_eq!(playground.theme, Theme::Dark);
    assert!(!playground.open.checking());
    assert_eq!(playground.open.report.as_deref(), Some(&claim_report(true)));
}

#[test]
fn the_workers_confirming_answer_leaves_the_timeline_and_the_announcement_as_they_are() {
    let mut playground = prerendered();
    act(
        &mut playground,
        Action::Hydrated {
            loaded: Loaded::Nothing,
            theme: Theme::System,
        },
    );
    let Some(Request::Check { seq, .. }) = playground.check_request() else {
        panic!("the page asks the worker for the report it came with");
    };
    // The learner steps back through the timeline before the worker answers
    // (on a slow device, or a loaded machine, that is seconds).
    act(&mut playground, Action::StepBy(-1));
    let stepped = playground.open.view.clone();
    let said = playground.announcement.clone();
    assert!(said.starts_with("Step "), "{said}");
    answer(
        &mut playground,
        Response::Checked {
            seq,
            report: claim_report(true),
        },
    );
    assert_eq!(
        playground.open.view, stepped,
        "the learner's step stays selected"
    );
    assert_eq!(
        playground.announcement, said,
        "nothing is said over the step"
    );
    assert!(!playground.open.checking());
    assert_eq!(playground.open.report.as_deref(), Some(&claim_report(true)));
    // A check of an edit is answered as ever: its verdicts are said.
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- the learner's claim".into(),
        },
    );
    check_answered(&mut playground, claim_report(false));
    assert_ne!(playground.announcement, said);
    assert!(
        playground.announcement.contains("scenario"),
        "{}",
        playground.announcement
    );
}

#[test]
fn saved_work_of_other_texts_is_shown_as_being_checked_until_its_report_arrives() {
    let mut playground = prerendered();
    act(
        &mut playground,
        Action::Hydrated {
            loaded: saved(&[("claim", "-- the learner's claim")], &[]),
            theme: Theme::System,
        },
    );
    assert_eq!(
        playground.open.texts.get("claim").map(String::as_str),
        Some("-- the learner's claim")
    );
    assert!(
        playground.open.checking(),
        "the start's verdicts are not the learner's"
    );
    let Some(Request::Check { seq, edits, .. }) = playground.check_request() else {
        panic!("a check of the learner's text is wanted");
    };
    assert_eq!(seq, playground.open.check_wanted);
    assert_eq!(
        edits.get("claim").map(String::as_str),
        Some("-- the learner's claim")
    );
    // The answer to the build's check, arriving late, is not taken for it.
    let stale = playground.open.report_seq;
    answer(
        &mut playground,
        Response::Checked {
            seq: stale,
            report: claim_report(true),
        },
    );
    assert!(playground.open.checking());
    check_answered(&mut playground, claim_report(false));
    assert!(!playground.open.checking());
    assert_eq!(
        playground.open.report.as_deref(),
        Some(&claim_report(false))
    );
}

#[test]
fn hydrating_twice_or_after_opening_another_changes_nothing() {
    let mut playground = prerendered();
    act(&mut playground, Action::Open(1));
    let opened = playground.clone();
    act(
        &mut playground,
        Action::Hydrated {
            loaded: Loaded::Nothing,
            theme: Theme::Dark,
        },
    );
    assert_eq!(playground, opened);
}

#[test]
fn only_an_address_that_asks_for_nothing_else_is_hydrated() {
    assert!(Start::default().asks_only_for(CLAIM));
    let named = |id: &str| Start {
        exercise: Some(id.to_string()),
        ..Start::default()
    };
    assert!(named(CLAIM).asks_only_for(CLAIM));
    assert!(!named("complete").asks_only_for(CLAIM));
    let embed = Start {
        embed: true,
        ..Start::default()
    };
    assert!(!embed.asks_only_for(CLAIM));
    let shared = Start {
        fragment: "s1=abc".to_string(),
        ..Start::default()
    };
    assert!(!shared.asks_only_for(CLAIM));
}
