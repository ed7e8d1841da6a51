//! The timeline's view: choosing a scenario and a step, driving by hand,
//! replaying, sharing and the console, with every answer routed by its seq.

use super::*;

fn request_seq(playground: &Playground) -> u64 {
    last_request(playground).seq()
}

#[test]
fn selecting_a_scenario_shows_where_it_broke_and_says_what_the_step_did() {
    let mut playground = checked();
    act(&mut playground, Action::Select(FIRST_COME.into()));
    assert_eq!(playground.open.view.scenario(), Some(FIRST_COME));
    act(&mut playground, Action::Select(ONE_WINNER.into()));
    assert_eq!(playground.open.view.step(), BROKE_AT);
    // Only what worker-b itself believes, from the report's own beliefs.
    assert_eq!(
        playground.announcement,
        "Step 8: worker-b: claim, the call ends ok, now believes it holds message msg-1 (token 2)"
    );
}

#[test]
fn steps_move_within_the_history_and_each_starts_an_empty_console() {
    let mut playground = checked();
    playground
        .open
        .view
        .at_mut()
        .expect("a step in view")
        .console
        .result = Some(Err("old".into()));
    act(&mut playground, Action::StepBy(-1));
    assert_eq!(playground.open.view.at(), Some(&At::step(BROKE_AT - 1)));
    assert_eq!(
        playground.announcement,
        "Step 7: worker-b: claim, UPDATE changed 1 row"
    );
    act(&mut playground, Action::Step(4));
    assert_eq!(
        playground.announcement,
        "Step 5: worker-a: claim, the call ends ok, now believes it holds message msg-1 (token 1)"
    );
    act(&mut playground, Action::StepBy(-30));
    assert_eq!(playground.open.view.step(), 0);
    act(&mut playground, Action::StepBy(30));
    assert_eq!(playground.open.view.step(), BROKE_AT);
    act(&mut playground, Action::Step(99));
    assert_eq!(
        playground.open.view.step(),
        BROKE_AT,
        "no step past the history"
    );
}

#[test]
fn driving_asks_for_each_move_and_takes_only_the_newest_answer() {
    let mut playground = checked();
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    let first = request_seq(&playground);
    assert!(matches!(
        last_request(&playground),
        Request::Drive { ref schedule, ref scenario, .. } if schedule.is_empty() && scenario == ONE_WINNER
    ));
    answer(
        &mut playground,
        Response::Driven {
            seq: first,
            drive: drive(2, false),
        },
    );
    let View::Driving(state) = &playground.open.view else {
        panic!("driving");
    };
    assert_eq!((state.waiting_for, state.at.step), (None, 1));
    assert_eq!(playground.announcement, "Step 2: worker-b: starts");

    act(&mut playground, Action::DriveMove("a".into()));
    let move_a = request_seq(&playground);
    act(&mut playground, Action::DriveMove("b".into()));
    let move_b = request_seq(&playground);
    let Request::Drive { schedule, .. } = last_request(&playground) else {
        panic!("a drive request");
    };
    assert_eq!(schedule.to_string(), "a b");
    // The answer to the move before arrives late: dropped.
    answer(
        &mut playground,
        Response::Driven {
            seq: move_a,
            drive: drive(3, false),
        },
    );
    let View::Driving(state) = &playground.open.view else {
        panic!("driving");
    };
    assert_eq!(state.waiting_for, Some(move_b));
    assert_eq!(state.last.as_ref().map(|d| d.report.history.len()), Some(2));

    act(&mut playground, Action::DriveUndo);
    act(&mut playground, Action::DriveRestart);
    let restart = request_seq(&playground);
    let Request::Drive { schedule, .. } = last_request(&playground) else {
        panic!("a drive request");
    };
    assert!(schedule.is_empty());
    answer(
        &mut playground,
        Response::Driven {
            seq: restart,
            drive: drive(8, true),
        },
    );
    assert_eq!(
        playground.announcement,
        "Your schedule fails: worker-a and worker-b both believe they hold message msg-1"
    );
    assert_eq!(playground.open.view.step(), BROKE_AT);

    act(&mut playground, Action::DriveStop);
    assert_eq!(
        playground.open.view,
        View::Checked {
            scenario: ONE_WINNER.into(),
            at: At::step(BROKE_AT)
        }
    );
}

#[test]
fn a_move_the_worker_could_not_take_ends_the_wait_and_says_why() {
    let mut playground = checked();
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    let seq = request_seq(&playground);
    answer(
        &mut playground,
        Response::Failed {
            seq,
            message: "near \"SELEC\": syntax error".into(),
        },
    );
    let View::Driving(state) = &playground.open.view else {
        panic!("still driving");
    };
    assert_eq!(state.waiting_for, None);
    assert_eq!(
        state.failed.as_deref(),
        Some("near \"SELEC\": syntax error")
    );
    assert!(playground.announcement.contains("could not be taken"));
    assert!(playground.notices.is_empty(), "said in the drive panel");
    // The next move clears it.
    act(&mut playground, Action::DriveMove("a".into()));
    assert!(matches!(&playground.open.view, View::Driving(state) if state.failed.is_none()));
}

#[test]
fn an_edit_while_driving_goes_back_to_the_checked_scenario() {
    let mut playground = checked();
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    let seq = request_seq(&playground);
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- edited".into(),
        },
    );
    assert!(
        matches!(&playground.open.view, View::Checked { scenario, .. } if scenario == ONE_WINNER)
    );
    answer(
        &mut playground,
        Response::Driven {
            seq,
            drive: drive(2, false),
        },
    );
    assert!(
        matches!(playground.open.view, View::Checked { .. }),
        "the drive's answer is dropped"
    );
}

#[test]
fn a_typed_schedule_replays_into_the_view_and_a_stale_replay_is_dropped() {
    let mut playground = checked();
    act(
        &mut playground,
        Action::Replay {
            scenario: ONE_WINNER.into(),
            schedule: "a b".into(),
        },
    );
    let older = request_seq(&playground);
    act(
        &mut playground,
        Action::Replay {
            scenario: ONE_WINNER.into(),
            schedule: "  a   a b ".into(),
        },
    );
    let newer = request_seq(&playground);
    let Request::Replay { schedule, .. } = last_request(&playground) else {
        panic!("a replay request");
    };
    assert_eq!(schedule.to_string(), "a a b");
    // While waiting, the checked report stays in view.
    assert_eq!(
        playground.open.shown_report().map(|r| r.name.as_str()),
        Some(ONE_WINNER)
    );
    answer(
        &mut playground,
        Response::Replayed {
            seq: older,
            report: passing(ONE_WINNER, "a b"),
        },
    );
    assert!(matches!(
        &playground.open.view,
        View::Replay { report: None, .. }
    ));
    answer(
        &mut playground,
        Response::Replayed {
            seq: newer,
            report: passing(ONE_WINNER, "a a b"),
        },
    );
    assert_eq!(
        playground.announcement,
        "Replayed the schedule a a b: passed"
    );
    assert_eq!(playground.open.shown_schedule().to_string(), "a a b");
    assert_eq!(
        playground.open.view.step(),
        playground
            .open
            .shown_report()
            .map_or(0, |r| r.history.len() - 1)
    );
}

#[test]
fn a_schedule_that_is_not_one_or_cannot_be_replayed_is_said_and_the_checked_report_stays() {
    let mut playground = checked();
    let queued = playground.outbox.len();
    act(
        &mut playground,
        Action::Replay {
            scenario: ONE_WINNER.into(),
            schedule: "a; DROP TABLE".into(),
        },
    );
    assert_eq!(playground.outbox.len(), queued, "nothing is sent");
    // Said beside the replay form, where it was typed: no notice at the
    // top of the page, which would move it away from the learner.
    assert!(playground.notices.is_empty(), "{:?}", playground.notices);
    let refused = |playground: &Playground| playground.replay_refused.clone().unwrap_or_default();
    assert_eq!(refused(&playground).0, ONE_WINNER);
    assert!(
        refused(&playground)
            .1
            .starts_with("This schedule cannot be replayed: `a;` is not a process name")
    );
    act(
        &mut playground,
        Action::Replay {
            scenario: ONE_WINNER.into(),
            schedule: "a b".into(),
        },
    );
    let seq = request_seq(&playground);
    answer(
        &mut playground,
        Response::Failed {
            seq,
            message: "exercise `claim-compare-and-set` has no scenario `x`".into(),
        },
    );
    assert!(
        matches!(&playground.open.view, View::Checked { scenario, .. } if scenario == ONE_WINNER)
    );
    assert!(playground.notices.is_empty(), "{:?}", playground.notices);
    assert!(
        refused(&playground)
            .1
            .starts_with("The schedule could not be replayed: exercise")
    );
}

#[test]
fn a_share_link_carries_the_texts_and_the_scenario_and_schedule_in_view() {
    let mut playground = checked();
    act(
        &mut playground,
        Action::Share {
            base: "http://127.0.0.1:8080/".into(),
        },
    );
    let url = playground.open.share_url.clone().expect("a link");
    let fragment = url
        .strip_prefix("http://127.0.0.1:8080/#")
        .expect("the page's own address");
    let link = share::decode(fragment).expect("the link reads back");
    assert_eq!(link.exercise, CLAIM);
    assert_eq!(link.edits, playground.open.texts);
    assert_eq!(link.scenario.as_deref(), Some(ONE_WINNER));
    assert_eq!(
        link.schedule.map(|s| s.to_string()).as_deref(),
        Some("a a b b")
    );
    assert_eq!(
        playground.announcement,
        "A share link is ready below the Share button."
    );

    // Driving: the link carries the moves chosen so far.
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    act(&mut playground, Action::DriveMove("b".into()));
    act(
        &mut playground,
        Action::Share {
            base: String::new(),
        },
    );
    let link = share::decode(
        playground
            .open
            .share_url
            .as_deref()
            .unwrap_or_default()
            .trim_start_matches('#'),
    )
    .expect("the link reads back");
    assert_eq!(link.schedule.map(|s| s.to_string()).as_deref(), Some("b"));
}

#[test]
fn the_console_takes_only_the_answer_to_its_newest_query_about_the_step_in_view() {
    let mut playground = checked();
    act(
        &mut playground,
        Action::Query("SELECT state FROM messages".into()),
    );
    let first = request_seq(&playground);
    let Request::Query {
        event_index,
        schedule,
        scenario,
        ..
    } = last_request(&playground)
    else {
        panic!("a query request");
    };
    assert_eq!((event_index, scenario.as_str()), (BROKE_AT, ONE_WINNER));
    assert_eq!(schedule.to_string(), "a a b b");
    act(&mut playground, Action::Query("SELECT 2".into()));
    let second = request_seq(&playground);
    answer(
        &mut playground,
        Response::Queried {
            seq: first,
            result: Ok(rows(1)),
        },
    );
    assert_eq!(
        playground
            .open
            .view
            .at()
            .map(|at| at.console.result.clone()),
        Some(None)
    );
    answer(
        &mut playground,
        Response::Queried {
            seq: second,
            result: Ok(rows(2)),
        },
    );
    assert_eq!(
        playground
            .open
            .view
            .at()
            .and_then(|at| at.console.result.clone()),
        Some(Ok(rows(2)))
    );

    // A failed query says why in the console.
    act(&mut playground, Action::Query("SELEC".into()));
    let failing = request_seq(&playground);
    answer(
        &mut playground,
        Response::Failed {
            seq: failing,
            message: "near \"SELEC\": syntax error".into(),
        },
    );
    assert_eq!(
        playground
            .open
            .view
            .at()
            .and_then(|at| at.console.result.clone()),
        Some(Err("near \"SELEC\": syntax error".into()))
    );
    assert!(playground.notices.is_empty());

    // A query about a step since left is dropped.
    act(&mut playground, Action::Query("SELECT 3".into()));
    let left = request_seq(&playground);
    act(&mut playground, Action::StepBy(-1));
    answer(
        &mut playground,
        Response::Queried {
            seq: left,
            result: Ok(rows(3)),
        },
    );
    assert_eq!(
        playground
            .open
            .view
            .at()
            .map(|at| at.console.result.clone()),
        Some(None)
    );
}

#[test]
fn a_limit_scenario_reads_its_beliefs_from_the_report_like_any_other() {
    let mut playground = opened();
    let mut report = claim_report(false);
    report.scenarios[0].result = fencelab_model::ScenarioResult::LimitShown;
    check_answered(
        &mut playground,
        ExerciseReport::new(CLAIM, report.scenarios),
    );
    assert!(playground.open.passes(), "limit shown counts as passing");
    assert_eq!(
        playground.open.view.scenario(),
        Some(ONE_WINNER),
        "nothing failed: the limit shown is in view, with its timeline"
    );
    assert!(playground.open.shown().is_some());
    assert_eq!(
        playground.announcement,
        "1 of 1 scenario passes, 1 limit shown"
    );
    act(&mut playground, Action::Select(ONE_WINNER.into()));
    assert!(
        playground
            .announcement
            .ends_with("now believes it holds message msg-1 (token 2)")
    );
}

/// The rows a console query returns: one row, `n`.
fn rows(n: i64) -> fencelab_model::history::ResultRows {
    fencelab_model::history::ResultRows {
        columns: vec!["n".into()],
        rows: vec![vec![n.into()]],
    }
}
