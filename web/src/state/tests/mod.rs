//! The reducer, action by action, natively: what each action does to the
//! playground, what it asks of the worker, and how every answer is routed,
//! including the answers that must be dropped. The bundled exercises are
//! the data; the worker's reports come from `reports.rs`.

mod reports;

use super::*;
use crate::share::{self, Link, Shown};
use fencelab_model::Schedule;
use fencelab_protocol::{PlaygroundResponse, Response};
use reports::*;

fn catalog() -> Result<Vec<Exercise>, fencelab_model::LoadError> {
    fencelab_model::bundled::catalog()
}

fn started(fragment: &str) -> Playground {
    Playground::new(
        catalog(),
        Start {
            fragment: fragment.into(),
            ..Start::default()
        },
    )
}

fn act(playground: &mut Playground, action: Action) {
    reduce(playground, action);
}

fn answer(playground: &mut Playground, response: PlaygroundResponse) {
    reduce(playground, Action::Worker(Box::new(response)));
}

/// The claim exercise, opened with nothing saved.
fn opened() -> Playground {
    let mut playground = started("");
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Nothing,
        },
    );
    playground
}

/// Answers the newest check with `report`.
fn check_answered(playground: &mut Playground, report: ExerciseReport) {
    let seq = playground.open.check_wanted;
    answer(playground, Response::Checked { seq, report });
}

/// The claim exercise with its failing report in view.
fn checked() -> Playground {
    let mut playground = opened();
    check_answered(&mut playground, claim_report(true));
    playground
}

fn last_request(playground: &Playground) -> Request {
    (**playground.outbox.last().expect("a request was queued")).clone()
}

/// The claim exercise with the learner's own text (an edit) in the editor.
fn edited() -> Playground {
    let mut playground = opened();
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- the learner's claim".into(),
        },
    );
    playground
}

fn saved(edits: &[(&str, &str)], seen: &[&str]) -> Loaded {
    Loaded::Saved(Saved {
        format: SAVE_FORMAT,
        edits: edits
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
        seen: seen.iter().map(|c| c.to_string()).collect(),
        ..Saved::default()
    })
}

fn link(edits: &[(&str, &str)], scenario: Option<&str>, schedule: Option<&str>) -> Link {
    Link {
        format: share::LINK_FORMAT,
        exercise: CLAIM.into(),
        edits: edits
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
        scenario: scenario.map(str::to_string),
        schedule: schedule.map(|s| Schedule::parse(s).expect("a schedule")),
        drive: false,
        hunt: None,
        step: None,
        hints: 0,
    }
}

fn link_fragment(edits: &[(&str, &str)], scenario: Option<&str>, schedule: Option<&str>) -> String {
    share::encode(&link(edits, scenario, schedule))
}

// ----- opening -----

#[test]
fn an_exercise_opens_only_once_its_saved_work_is_read() {
    let mut playground = started("");
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(CLAIM));
    assert_eq!(
        playground
            .open
            .opening
            .as_ref()
            .map(|o| o.exercise.as_str()),
        Some(CLAIM)
    );
    assert_eq!(
        playground.check_request(),
        None,
        "no check of texts not yet read"
    );
    assert_eq!(
        playground.autosaved_exercise(),
        None,
        "nothing saved over unread work"
    );
    act(&mut playground, Action::RunNow);
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "SELECT 1;".into(),
        },
    );
    assert_eq!(
        playground.open.check_wanted, 0,
        "no edits or runs while opening"
    );
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Nothing,
        },
    );
    assert_eq!(playground.open.opening, None);
    assert_eq!(playground.open.texts, playground.starts());
    assert_eq!(playground.autosaved_exercise(), Some(CLAIM));
    assert_eq!(
        playground.check_request(),
        Some(Request::Check {
            seq: playground.open.check_wanted,
            exercise: CLAIM.into(),
            edits: playground.starts(),
        })
    );
}

#[test]
fn saved_work_and_seen_variants_are_restored() {
    let mut playground = started("");
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: saved(
                &[("claim", "-- mine"), ("not-a-procedure", "x")],
                &["read, then write"],
            ),
        },
    );
    assert_eq!(
        playground.open.texts.get("claim").map(String::as_str),
        Some("-- mine")
    );
    assert_eq!(
        playground.open.texts.len(),
        playground.starts().len(),
        "only editable procedures"
    );
    assert!(playground.open.seen.contains("read, then write"));
    assert_eq!(
        playground.open.given, None,
        "edited work is the learner's own"
    );
}

#[test]
fn a_saved_entry_that_cannot_be_read_is_reported_and_the_exercise_starts_fresh() {
    let mut playground = started("");
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::SetAside {
                message: "expected value at line 1 column 2".into(),
                aside_key: "fencelab:set-aside:claim-compare-and-set:17".into(),
            },
        },
    );
    assert_eq!(playground.open.texts, playground.starts());
    assert!(
        playground.notices.contains(&Notice::SavedWorkSetAside {
            message: "expected value at line 1 column 2".into(),
            aside_key: "fencelab:set-aside:claim-compare-and-set:17".into(),
        }),
        "{:?}",
        playground.notices
    );
    assert_ne!(
        playground.open.check_wanted, 0,
        "the starting text is checked"
    );
}

#[test]
fn saved_work_read_for_an_exercise_no_longer_opening_is_dropped() {
    let mut playground = started("");
    act(&mut playground, Action::Open(1));
    let second = playground.exercises[1].id.clone();
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: saved(&[("claim", "-- mine")], &[]),
        },
    );
    assert_eq!(
        playground.open.opening.as_ref().map(|o| &o.exercise),
        Some(&second)
    );
    assert_eq!(playground.open.check_wanted, 0);
}

#[test]
fn opening_another_exercise_resets_the_view_and_drops_answers_for_the_one_before() {
    let mut playground = checked();
    playground.notices.push(Notice::WorkerFailed("old".into()));
    let old_check = playground.open.check_wanted;
    act(&mut playground, Action::Open(1));
    assert_eq!(playground.open.index, 1);
    assert!(playground.notices.is_empty());
    assert_eq!(playground.open.report, None);
    assert_eq!(playground.open.view, View::Nothing);
    let second = playground.exercises[1].id.clone();
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: second.clone(),
            loaded: Loaded::Nothing,
        },
    );
    // The claim exercise's report, late: not this exercise's.
    answer(
        &mut playground,
        Response::Checked {
            seq: old_check,
            report: claim_report(true),
        },
    );
    assert_eq!(playground.open.report, None);
    // Even under the current seq, another exercise's report is dropped.
    check_answered(&mut playground, claim_report(true));
    assert_eq!(playground.open.report, None);
}

#[test]
fn going_to_an_exercise_focuses_its_title_and_back_or_forward_open_the_one_named() {
    let mut playground = opened();
    assert_eq!(
        playground.focus_title, 0,
        "a page as it opens keeps the focus"
    );
    act(&mut playground, Action::Open(1));
    assert_eq!(playground.open.index, 1);
    assert_eq!(playground.focus_title, 1);

    act(&mut playground, Action::Navigated(CLAIM.into()));
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(CLAIM));
    assert_eq!(
        playground
            .open
            .opening
            .as_ref()
            .map(|o| o.exercise.as_str()),
        Some(CLAIM),
        "its saved work is read, as on any opening"
    );
    assert_eq!(playground.focus_title, 2);

    // The address names the exercise open (only its fragment changed), or
    // one this page does not have: nothing changes.
    act(&mut playground, Action::Navigated(CLAIM.into()));
    act(
        &mut playground,
        Action::Navigated("no-such-exercise".into()),
    );
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(CLAIM));
    assert_eq!(playground.focus_title, 2);
}

#[test]
fn a_link_that_cannot_be_read_is_reported_and_the_learners_work_opens() {
    for (fragment, expected) in [
        ("s1=this-is-not-a-link!!", "this link is damaged"),
        ("s9=AAAA", "this link is not in a format"),
    ] {
        let playground = started(fragment);
        assert!(
            matches!(&playground.notices[..], [Notice::LinkUnreadable(why)] if why.starts_with(expected)),
            "{fragment}: {:?}",
            playground.notices
        );
        let opening = playground
            .open
            .opening
            .as_ref()
            .expect("the first exercise opens");
        assert_eq!((opening.exercise.as_str(), &opening.link), (CLAIM, &None));
    }
    let unknown = share::encode(&Link {
        exercise: "no-such-exercise".into(),
        ..link(&[], None, None)
    });
    let mut playground = started(&unknown);
    assert!(
        matches!(playground.page, Page::Awaiting(_)),
        "perhaps one of the site's own"
    );
    assert!(!playground.settled(), "the exercise is awaited");
    act(
        &mut playground,
        Action::SiteExercises(SiteExercises::NoIndex),
    );
    assert_eq!(
        playground.notices[0],
        Notice::LinkedExerciseMissing("no-such-exercise".into())
    );
    assert_eq!(
        playground
            .open
            .opening
            .as_ref()
            .map(|o| o.exercise.as_str()),
        Some(CLAIM)
    );
    assert!(
        !playground.settled(),
        "the first exercise's saved work is read"
    );
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Nothing,
        },
    );
    assert!(playground.settled(), "the first exercise is open");
}

#[test]
fn a_link_shows_its_version_and_replays_its_schedule_with_saved_work_one_click_away() {
    let fragment = link_fragment(&[("claim", "-- linked")], Some(ONE_WINNER), Some("a b"));
    let mut playground = started(&fragment);
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: saved(&[("claim", "-- mine")], &[]),
        },
    );
    assert_eq!(playground.open.texts["claim"], "-- linked");
    assert_eq!(
        playground
            .open
            .saved_aside
            .as_ref()
            .map(|s| s["claim"].as_str()),
        Some("-- mine")
    );
    assert_eq!(
        playground.autosaved_exercise(),
        None,
        "the saved work is left as it was"
    );
    assert_eq!(
        playground.notices[0],
        Notice::LinkShown { saved_aside: true }
    );
    let Request::Replay {
        seq,
        scenario,
        schedule,
        edits,
        ..
    } = playground
        .outbox
        .iter()
        .map(|r| (**r).clone())
        .find(|r| matches!(r, Request::Replay { .. }))
        .expect("the link's schedule is replayed")
    else {
        unreachable!()
    };
    assert_eq!(
        (scenario.as_str(), schedule.to_string().as_str()),
        (ONE_WINNER, "a b")
    );
    assert_eq!(edits["claim"], "-- linked");
    assert!(
        matches!(&playground.open.view, View::Replay { waiting_for: Some(s), .. } if *s == seq)
    );
    answer(
        &mut playground,
        Response::Replayed {
            seq,
            report: one_winner_failing(),
        },
    );
    assert_eq!(
        playground
            .open
            .shown_report()
            .map(|r| r.schedule.to_string()),
        Some("a a b b".into())
    );

    let mut back = playground.clone();
    act(&mut back, Action::BackToSaved);
    assert_eq!(back.open.texts["claim"], "-- mine");
    assert_eq!(
        back.open.replace.texts["claim"], "-- mine",
        "through the editor, undoably"
    );
    assert_eq!(back.open.saved_aside, None);
    assert!(back.notices.is_empty());
    assert_eq!(
        back.announcement,
        "Your saved version is back in the editor."
    );

    act(&mut playground, Action::KeepLinked);
    assert_eq!(playground.open.saved_aside, None);
    assert_eq!(playground.autosaved_exercise(), Some(CLAIM));
    assert_eq!(playground.saved().edits["claim"], "-- linked");
    assert_eq!(
        playground.announcement,
        "The linked version is now your saved work."
    );
}

#[test]
fn progress_read_by_the_app_is_kept_in_the_playground() {
    let mut playground = opened();
    let progress = Progress {
        seen: 2,
        solved: true,
        hunted: 0,
    };
    act(
        &mut playground,
        Action::ProgressRead(BTreeMap::from([("leases".to_string(), progress)])),
    );
    assert_eq!(playground.progress.get("leases"), Some(&progress));
    act(&mut playground, Action::ProgressRead(BTreeMap::new()));
    assert_eq!(
        playground.progress.get("leases"),
        Some(&progress),
        "a partial read merges"
    );
}

// ----- editing and checking -----

#[test]
fn every_edit_asks_for_a_check_at_once_and_run_now_for_another() {
    let mut playground = checked();
    playground.open.share_url = Some("old".into());
    let before = playground.open.check_wanted;
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "SELECT 1;".into(),
        },
    );
    assert!(playground.open.check_wanted > before);
    assert_eq!(playground.open.share_url, None);
    assert!(playground.open.checking());
    assert_eq!(
        playground.open.view.scenario(),
        Some(ONE_WINNER),
        "the scenario stays in view"
    );
    let wanted = playground.open.check_wanted;
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "SELECT 1;".into(),
        },
    );
    assert_eq!(
        playground.open.check_wanted, wanted,
        "the same text is no edit"
    );
    act(&mut playground, Action::RunNow);
    assert!(playground.open.check_wanted > wanted);
}

#[test]
fn a_check_is_announced_and_shows_the_first_failing_scenario_where_it_broke() {
    let playground = checked();
    assert!(!playground.open.checking());
    assert_eq!(playground.announcement, "1 of 2 scenarios pass");
    assert_eq!(
        playground.open.view,
        View::Checked {
            scenario: ONE_WINNER.into(),
            at: At::step(BROKE_AT)
        }
    );
    let shown = playground.open.shown().expect("a report in view");
    assert_eq!(shown.failure(), Some(&two_holders()));
    assert_eq!(
        playground.open.shown(),
        Some(shown),
        "the same report, shared"
    );
}

#[test]
fn a_stale_check_arriving_after_a_newer_edit_is_dropped() {
    let mut playground = opened();
    let first = playground.open.check_wanted;
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- newer".into(),
        },
    );
    answer(
        &mut playground,
        Response::Checked {
            seq: first,
            report: claim_report(false),
        },
    );
    assert_eq!(playground.open.report, None);
    assert!(playground.open.checking());
    assert!(!playground.solved());
    check_answered(&mut playground, claim_report(true));
    assert_eq!(playground.open.report.as_ref().map(|r| r.failed), Some(1));
}

#[test]
fn while_a_newer_edit_is_checked_the_last_verdicts_stay_shown_as_stale() {
    let mut playground = checked();
    let shown = playground.open.report.clone();
    let first = playground.open.check_wanted;
    for text in ["-- a", "-- ab"] {
        act(
            &mut playground,
            Action::Edited {
                procedure: "claim".into(),
                text: text.into(),
            },
        );
        assert_eq!(
            playground.open.report, shown,
            "never emptied while checking"
        );
        assert!(
            playground.open.checking(),
            "and marked as not of these texts"
        );
    }
    let between = playground.open.check_wanted - 1;
    assert!(between > first);
    // The answer to the edit in between is of texts no longer in the
    // editors: it is never shown, not even as stale.
    answer(
        &mut playground,
        Response::Checked {
            seq: between,
            report: claim_report(false),
        },
    );
    assert_eq!(playground.open.report, shown);
    assert!(playground.open.checking());
    check_answered(&mut playground, claim_report(false));
    assert!(!playground.open.checking());
    assert_eq!(playground.open.report.as_ref().map(|r| r.failed), Some(0));
    assert_eq!(playground.open.report_seq, playground.open.check_wanted);
}

#[test]
fn a_check_the_worker_could_not_run_is_a_notice_and_never_a_pass() {
    let mut playground = edited();
    check_answered(&mut playground, claim_report(false));
    assert!(playground.solved());
    act(&mut playground, Action::RunNow);
    let seq = playground.open.check_wanted;
    answer(
        &mut playground,
        Response::Failed {
            seq,
            message: "there is no exercise `x`".into(),
        },
    );
    assert!(playground.open.check_failed);
    assert!(!playground.open.checking());
    assert!(!playground.solved(), "the report is of an older check");
    assert!(
        playground
            .notices
            .contains(&Notice::CheckFailed("there is no exercise `x`".into()))
    );
}

#[test]
fn loading_a_broken_variant_never_marks_the_exercise_solved() {
    let mut playground = opened();
    act(
        &mut playground,
        Action::LoadVariant("read, then write".into()),
    );
    assert_eq!(
        Some(&playground.open.texts),
        playground.variant_texts("read, then write").as_ref()
    );
    assert_eq!(
        playground.open.replace.texts, playground.open.texts,
        "through the editor, undoably"
    );
    assert_eq!(
        playground.open.loaded_variant.as_deref(),
        Some("read, then write")
    );
    assert_eq!(
        playground.open.own_aside, None,
        "the start is not set aside"
    );

    check_answered(&mut playground, claim_report(true));
    assert!(playground.open.seen.contains("read, then write"));
    assert_eq!(
        playground.current_progress(),
        Progress {
            seen: 1,
            solved: false,
            hunted: 0,
        }
    );
    assert!(!playground.saved().passing);

    // Even a report in which the variant passed would not make it solved.
    act(
        &mut playground,
        Action::LoadVariant("read again right before writing".into()),
    );
    check_answered(&mut playground, claim_report(false));
    assert!(!playground.solved());
    assert!(!playground.current_progress().solved);
    assert!(!playground.saved().passing);
    assert_eq!(
        playground.open.seen.len(),
        1,
        "a variant that passed is not seen failing"
    );
}

#[test]
fn a_variant_edited_by_the_learner_is_no_longer_the_variant() {
    let mut playground = opened();
    act(
        &mut playground,
        Action::LoadVariant("read, then write".into()),
    );
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- my own".into(),
        },
    );
    check_answered(&mut playground, claim_report(true));
    assert!(
        playground.open.seen.is_empty(),
        "only the variant's own text counts"
    );
    act(
        &mut playground,
        Action::LoadVariant("no such variant".into()),
    );
    assert_eq!(playground.open.texts["claim"], "-- my own");
}

#[test]
fn reset_puts_the_starting_text_back_through_the_editor() {
    let mut playground = opened();
    act(
        &mut playground,
        Action::LoadVariant("read, then write".into()),
    );
    let generation = playground.open.replace.generation;
    act(&mut playground, Action::Reset);
    assert_eq!(playground.open.texts, playground.starts());
    assert_eq!(playground.open.replace.generation, generation + 1);
    assert_eq!(playground.open.loaded_variant, None);
}

#[test]
fn hints_come_one_at_a_time_up_to_the_last() {
    let mut playground = opened();
    let total = playground.exercise().map(|e| e.hints.len()).unwrap_or(0);
    assert!(total > 0);
    for _ in 0..total + 2 {
        act(&mut playground, Action::ShowHint);
    }
    assert_eq!(playground.open.hints_shown, total);
}

#[test]
fn notices_are_dismissed_and_a_failure_of_the_worker_itself_is_one() {
    let mut playground = opened();
    answer(
        &mut playground,
        Response::Ready {
            sqlite_version: "3.50.4".into(),
        },
    );
    assert_eq!(playground.sqlite_version.as_deref(), Some("3.50.4"));
    answer(
        &mut playground,
        Response::Failed {
            seq: 0,
            message: "the checking worker stopped with an error".into(),
        },
    );
    assert_eq!(
        playground.notices,
        [Notice::WorkerFailed(
            "the checking worker stopped with an error".into()
        )]
    );
    act(&mut playground, Action::DismissNotices);
    assert!(playground.notices.is_empty());
}

mod embed;
mod hunt;
mod prerendered;
mod progress;
mod protection;
mod restore;
mod site;
mod views;
