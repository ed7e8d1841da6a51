//! State that comes back exactly: a share link and a reload bring back the
//! scenario, the step selected, a drive's moves so far (still a drive, not a
//! replay to the end), a replay's schedule as asked for (so an error stays
//! an error), and the hints shown.

use super::*;

fn opened_with(fragment: &str, loaded: Loaded) -> Playground {
    let mut playground = started(fragment);
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded,
        },
    );
    playground
}

fn saved_with(view: Option<Shown>, hints: usize) -> Loaded {
    Loaded::Saved(Saved {
        format: SAVE_FORMAT,
        view,
        hints,
        ..Saved::default()
    })
}

fn shown(schedule: Option<&str>, drive: bool, step: Option<usize>) -> Shown {
    Shown {
        scenario: ONE_WINNER.into(),
        schedule: schedule.map(|s| Schedule::parse(s).expect("a schedule")),
        drive,
        hunt: None,
        step,
    }
}

fn share_again(playground: &mut Playground) -> Link {
    act(
        playground,
        Action::Share {
            base: String::new(),
        },
    );
    let url = playground.open.share_url.clone().expect("a link");
    share::decode(url.trim_start_matches('#')).expect("the link reads back")
}

#[test]
fn a_link_to_a_drive_brings_back_the_moves_made_and_nothing_more() {
    let fragment = share::encode(&Link {
        drive: true,
        hunt: None,
        step: Some(1),
        ..link(&[], Some(ONE_WINNER), Some("a b"))
    });
    let mut playground = opened_with(&fragment, Loaded::Nothing);
    let View::Driving(drive_state) = &playground.open.view else {
        panic!("a drive, not {:?}", playground.open.view);
    };
    assert_eq!(drive_state.schedule.to_string(), "a b");
    let Request::Drive { seq, schedule, .. } = last_request(&playground) else {
        panic!("a drive request, not a replay");
    };
    assert_eq!(schedule.to_string(), "a b");
    answer(
        &mut playground,
        Response::Driven {
            seq,
            drive: drive(4, false),
        },
    );
    assert_eq!(
        playground.open.view.step(),
        1,
        "the step selected, not the last"
    );
    assert_eq!(playground.open.shown_schedule().to_string(), "a b");
    let again = share_again(&mut playground);
    assert_eq!(
        (
            again.drive,
            again.schedule.map(|s| s.to_string()),
            again.step
        ),
        (true, Some("a b".into()), Some(1))
    );
}

#[test]
fn a_link_to_a_replay_that_ended_in_an_error_replays_the_schedule_asked_for() {
    let fragment = link_fragment(&[], Some(ONE_WINNER), Some("a a a a b"));
    let mut playground = opened_with(&fragment, Loaded::Nothing);
    let Request::Replay { seq, schedule, .. } = last_request(&playground) else {
        panic!("a replay request");
    };
    assert_eq!(schedule.to_string(), "a a a a b");
    answer(
        &mut playground,
        Response::Replayed {
            seq,
            report: errored(ONE_WINNER, "a a a", 5),
        },
    );
    assert_eq!(
        playground.open.shown_report().map(|r| r.verdict()),
        Some(fencelab_model::Verdict::Error)
    );
    // Shared again, it is still the schedule that ends in the error, not
    // the moves made before it.
    let again = share_again(&mut playground);
    assert_eq!(
        again.schedule.map(|s| s.to_string()).as_deref(),
        Some("a a a a b")
    );
    assert_eq!(playground.open.asked_schedule().to_string(), "a a a a b");
}

#[test]
fn a_link_brings_back_the_step_and_the_hints_shown() {
    let fragment = share::encode(&Link {
        step: Some(3),
        hints: 2,
        ..link(&[], Some(ONE_WINNER), Some("a a b b"))
    });
    let mut playground = opened_with(&fragment, Loaded::Nothing);
    assert_eq!(playground.open.hints_shown, 2);
    let seq = last_request(&playground).seq();
    answer(
        &mut playground,
        Response::Replayed {
            seq,
            report: one_winner_failing(),
        },
    );
    assert_eq!(
        playground.open.view.step(),
        3,
        "not where it broke: the step shared"
    );
    let again = share_again(&mut playground);
    assert_eq!((again.step, again.hints), (Some(3), 2));
}

#[test]
fn a_reload_brings_back_the_checked_scenario_at_its_step_and_the_hints() {
    let mut playground = opened_with("", saved_with(Some(shown(None, false, Some(3))), 2));
    assert_eq!(playground.open.view.scenario(), Some(ONE_WINNER));
    assert_eq!(playground.open.hints_shown, 2);
    check_answered(&mut playground, claim_report(true));
    assert_eq!(playground.open.view, View::checked(ONE_WINNER, 3));
    // The next check of an edit is a new report: it shows where that broke.
    act(&mut playground, Action::RunNow);
    check_answered(&mut playground, claim_report(true));
    assert_eq!(playground.open.view.step(), BROKE_AT);
}

#[test]
fn a_reload_keeps_what_the_page_showed_as_it_was() {
    // Driving, two moves made, the first step selected.
    let mut playground = checked();
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    act(&mut playground, Action::DriveMove("a".into()));
    act(&mut playground, Action::DriveMove("b".into()));
    let seq = last_request(&playground).seq();
    answer(
        &mut playground,
        Response::Driven {
            seq,
            drive: drive(4, false),
        },
    );
    act(&mut playground, Action::Step(0));
    act(&mut playground, Action::ShowHint);
    let saved = playground.saved();
    assert_eq!(saved.view, Some(shown(Some("a b"), true, Some(0))));

    let mut again = opened_with("", Loaded::Saved(saved));
    let Request::Drive { seq, schedule, .. } = last_request(&again) else {
        panic!("a drive request");
    };
    assert_eq!(schedule.to_string(), "a b");
    answer(
        &mut again,
        Response::Driven {
            seq,
            drive: drive(4, false),
        },
    );
    assert_eq!(again.open.view.step(), 0);
    assert_eq!(again.open.hints_shown, 1);
    // A replay is kept as asked for.
    act(
        &mut again,
        Action::Replay {
            scenario: ONE_WINNER.into(),
            schedule: "b a".into(),
        },
    );
    assert_eq!(
        again
            .saved()
            .view
            .and_then(|v| v.schedule)
            .map(|s| s.to_string()),
        Some("b a".into())
    );
}

#[test]
fn a_saved_scenario_the_exercise_no_longer_has_is_left_out() {
    let mut lost = shown(None, false, Some(2));
    lost.scenario = "no such scenario".into();
    let mut playground = opened_with("", saved_with(Some(lost), 0));
    assert_eq!(playground.open.view, View::Nothing);
    check_answered(&mut playground, claim_report(true));
    assert_eq!(playground.open.view, View::checked(ONE_WINNER, BROKE_AT));
}

#[test]
fn choosing_a_scenario_or_a_drive_brings_it_into_view_even_when_already_chosen() {
    let mut playground = checked();
    assert_eq!(playground.open.view.scenario(), Some(ONE_WINNER));
    act(&mut playground, Action::StepBy(-3));
    let before = playground.focus_timeline;
    act(&mut playground, Action::Select(ONE_WINNER.into()));
    assert_eq!(playground.focus_timeline, before + 1);
    assert_eq!(playground.open.view.step(), BROKE_AT, "back where it broke");
    let drives = playground.focus_drive;
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    assert_eq!(playground.focus_drive, drives + 1);
}

#[test]
fn run_now_is_announced_so_its_verdicts_are_announced_too() {
    let mut playground = checked();
    assert_eq!(playground.announcement, "1 of 2 scenarios pass");
    act(&mut playground, Action::RunNow);
    assert_eq!(playground.announcement, "Checking your procedures now…");
    check_answered(&mut playground, claim_report(true));
    assert_eq!(playground.announcement, "1 of 2 scenarios pass");
}

#[test]
fn a_schedule_naming_a_process_the_scenario_does_not_interleave_is_refused() {
    let mut playground = checked();
    let queued = playground.outbox.len();
    act(
        &mut playground,
        Action::Replay {
            scenario: ONE_WINNER.into(),
            schedule: "a c".into(),
        },
    );
    assert_eq!(playground.outbox.len(), queued, "nothing is sent");
    assert_eq!(
        playground.replay_refused,
        Some((
            ONE_WINNER.to_string(),
            "This schedule cannot be replayed: `c` is not a process that “one winner” interleaves (it interleaves `a`, `b`)".to_string()
        ))
    );
    act(
        &mut playground,
        Action::Replay {
            scenario: FIRST_COME.into(),
            schedule: "a b".into(),
        },
    );
    assert_eq!(playground.outbox.len(), queued);
    assert!(
        playground
            .replay_refused
            .as_ref()
            .is_some_and(|(scenario, said)| scenario == FIRST_COME
                && said.contains("runs nothing concurrently"))
    );
    assert!(playground.notices.is_empty(), "{:?}", playground.notices);
}

#[test]
fn an_entry_from_before_seen_variants_and_saved_views_still_reads() {
    let saved =
        Saved::parse(r#"{"format":1,"edits":{},"caught":["read, then write"],"passing":true}"#)
            .expect("an older entry reads");
    assert!(saved.seen.contains("read, then write"));
    assert_eq!((saved.given, saved.view, saved.hints), (None, None, 0));
}

#[test]
fn a_saved_entry_round_trips_and_a_wrong_one_is_an_error() {
    let mut saved = Saved {
        format: SAVE_FORMAT,
        ..Saved::default()
    };
    saved.edits.insert("claim".into(), "SELECT 1;".into());
    let text = serde_json::to_string(&saved).unwrap();
    assert_eq!(Saved::parse(&text), Ok(saved));
    assert!(Saved::parse("{not json").is_err());
    assert!(
        Saved::parse(r#"{"format":99,"edits":{}}"#)
            .unwrap_err()
            .contains("format 99")
    );
}
