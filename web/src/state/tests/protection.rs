//! The line marks ("what if this line were gone?"): asked for only after a
//! check in which the learner's own texts pass every scenario, dropped when
//! stale, cleared by every edit, and a protected mark's counterexample shown
//! as such.

use super::*;

fn protect_requests(playground: &Playground) -> Vec<Request> {
    playground
        .outbox
        .iter()
        .filter(|r| matches!(***r, Request::Protect { .. }))
        .map(|r| (**r).clone())
        .collect()
}

/// The claim exercise solved: its check passed, its marks asked for.
fn solved() -> Playground {
    let mut playground = opened();
    check_answered(&mut playground, claim_report(false));
    playground
}

fn protection_seq(playground: &Playground) -> u64 {
    match &playground.open.protection {
        Protection::Waiting { seq, .. } => *seq,
        other => panic!("waiting for marks, not {other:?}"),
    }
}

/// The claim exercise solved, with its marks shown.
fn marked() -> Playground {
    let mut playground = solved();
    let seq = protection_seq(&playground);
    answer(
        &mut playground,
        Response::Protection {
            seq,
            report: protection_report(),
        },
    );
    playground
}

fn edit(playground: &mut Playground) {
    act(
        playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- an edit".into(),
        },
    );
}

#[test]
fn marks_are_asked_for_only_after_the_newest_check_passes_every_scenario() {
    let mut playground = opened();
    check_answered(&mut playground, claim_report(true));
    assert_eq!(
        protect_requests(&playground),
        [],
        "a failing check asks nothing"
    );
    assert_eq!(playground.open.protection, Protection::Nothing);

    // A passing report of older texts asks nothing either.
    let older = playground.open.check_wanted;
    edit(&mut playground);
    answer(
        &mut playground,
        Response::Checked {
            seq: older,
            report: claim_report(false),
        },
    );
    assert_eq!(protect_requests(&playground), []);

    check_answered(&mut playground, claim_report(false));
    let seq = protection_seq(&playground);
    assert_eq!(
        protect_requests(&playground),
        [Request::Protect {
            seq,
            exercise: CLAIM.into(),
            edits: playground.open.texts.clone(),
        }],
        "after the verdicts are in the playground, never instead of them"
    );
    assert!(
        playground
            .open
            .report
            .as_ref()
            .is_some_and(|r| r.failed == 0)
    );
}

#[test]
fn a_broken_variant_that_passes_is_never_marked() {
    let mut playground = opened();
    act(
        &mut playground,
        Action::LoadVariant("read again right before writing".into()),
    );
    check_answered(&mut playground, claim_report(false));
    assert_eq!(protect_requests(&playground), []);
    assert_eq!(playground.open.protection, Protection::Nothing);
}

#[test]
fn marks_answer_only_their_own_request_for_the_texts_still_in_the_editors() {
    let mut playground = solved();
    let first = protection_seq(&playground);
    // Ctrl+Enter re-checks the same texts: the worker dropped the first
    // request when that check arrived, so the marks are asked again.
    act(&mut playground, Action::RunNow);
    check_answered(&mut playground, claim_report(false));
    let second = protection_seq(&playground);
    assert!(second > first);
    assert_eq!(protect_requests(&playground).len(), 2);
    answer(
        &mut playground,
        Response::Protection {
            seq: first,
            report: protection_report(),
        },
    );
    assert_eq!(
        playground.open.protection.report(),
        None,
        "an answer to a request replaced"
    );
    answer(
        &mut playground,
        Response::Protection {
            seq: second,
            report: protection_report(),
        },
    );
    assert_eq!(
        playground.open.protection.report().map(|r| (**r).clone()),
        Some(protection_report())
    );
    assert_eq!(
        playground.announcement,
        "Line marks are ready: 1 line protected by a scenario, 1 line no scenario notices."
    );
    // Once shown, another passing check of the same texts keeps them.
    act(&mut playground, Action::RunNow);
    check_answered(&mut playground, claim_report(false));
    assert_eq!(protect_requests(&playground).len(), 2);
    assert!(playground.open.protection.report().is_some());

    // Texts edited while the marks were being found: the answer is dropped.
    let mut playground = solved();
    let seq = protection_seq(&playground);
    edit(&mut playground);
    answer(
        &mut playground,
        Response::Protection {
            seq,
            report: protection_report(),
        },
    );
    assert_eq!(playground.open.protection, Protection::Nothing);
}

#[test]
fn every_edit_and_every_replaced_text_clears_the_marks() {
    let mut playground = marked();
    edit(&mut playground);
    assert_eq!(playground.open.protection, Protection::Nothing);

    for action in [
        Action::Reset,
        Action::LoadVariant("read, then write".into()),
        Action::Open(1),
    ] {
        let mut playground = marked();
        act(&mut playground, action);
        assert_eq!(playground.open.protection, Protection::Nothing);
    }
}

#[test]
fn marks_the_worker_could_not_find_say_why_and_nothing_else_is_failed() {
    let mut playground = solved();
    let seq = protection_seq(&playground);
    answer(
        &mut playground,
        Response::Failed {
            seq,
            message: "there is no exercise `x`".into(),
        },
    );
    assert_eq!(
        playground.open.protection,
        Protection::Failed {
            message: "there is no exercise `x`".into()
        }
    );
    assert!(!playground.open.check_failed);
    assert!(playground.notices.is_empty(), "said under the editor");
    assert!(playground.open.passes(), "the verdicts stand");
}

/// The learner clicked the protected line's state predicate: the playground,
/// the learner's own texts, the texts with that line changed, and the
/// replay's seq.
fn clicked() -> (Playground, Edits, Edits, u64) {
    let mut playground = marked();
    let own = playground.open.texts.clone();
    act(
        &mut playground,
        Action::ShowCounterexample {
            procedure: "claim".into(),
            line: PROTECTED_LINE,
            change: STATE_PREDICATE,
        },
    );
    let Request::Replay { seq, .. } = last_request(&playground) else {
        panic!("a replay of the counterexample");
    };
    let mut changed = own.clone();
    changed.insert("claim".into(), MUTANT_CLAIM.into());
    (playground, own, changed, seq)
}

/// As [`clicked`], with the counterexample's failing run answered; and the
/// focus count before the answer.
fn answered() -> (Playground, Edits, u64) {
    let (mut playground, _, changed, seq) = clicked();
    let focus = playground.focus_timeline;
    answer(
        &mut playground,
        Response::Replayed {
            seq,
            report: one_winner_failing(),
        },
    );
    (playground, changed, focus)
}

#[test]
fn a_click_on_a_caught_change_replays_the_changed_texts_as_a_counterexample() {
    let (playground, own, changed, _) = clicked();
    let Request::Replay {
        exercise,
        edits,
        scenario,
        schedule,
        ..
    } = last_request(&playground)
    else {
        panic!("a replay of the counterexample");
    };
    assert_eq!(exercise, CLAIM);
    assert_eq!(edits, changed, "the learner's texts with the line changed");
    assert_eq!(
        (scenario.as_str(), schedule.to_string().as_str()),
        (ONE_WINNER, "a a b b")
    );
    assert_eq!(
        playground.open.texts, own,
        "the editors keep the learner's own text"
    );
    let without = playground
        .open
        .view
        .without()
        .expect("a counterexample in view");
    assert_eq!(
        (without.procedure.as_str(), without.line),
        ("claim", PROTECTED_LINE)
    );
    assert_eq!(
        playground.open.shown(),
        None,
        "the learner's own passing run is not shown under the counterexample's title"
    );
}

#[test]
fn the_counterexample_takes_the_focus_and_says_how_the_changed_line_breaks() {
    let (playground, _, focus) = answered();
    assert_eq!(
        playground.focus_timeline,
        focus + 1,
        "the timeline takes the focus"
    );
    assert_eq!(playground.open.view.step(), BROKE_AT);
    assert!(playground.open.view.without().is_some());
    assert_eq!(
        playground.open.shown_report().and_then(|r| r.failure()),
        Some(&two_holders())
    );
    assert_eq!(
        playground.announcement,
        "Counterexample: without line 4 of claim as written (drop `AND state = 'NEW'` from the WHERE), \
         “one winner” fails: worker-a and worker-b both believe they hold message msg-1"
    );
}

#[test]
fn the_console_and_a_typed_schedule_ask_about_the_counterexample_texts() {
    let (mut playground, changed, focus) = answered();
    act(
        &mut playground,
        Action::Query("SELECT * FROM messages".into()),
    );
    assert!(matches!(last_request(&playground), Request::Query { edits, .. } if edits == changed));
    act(
        &mut playground,
        Action::Replay {
            scenario: ONE_WINNER.into(),
            schedule: "a b".into(),
        },
    );
    let typed = last_request(&playground);
    assert!(matches!(&typed, Request::Replay { edits, .. } if *edits == changed));
    assert!(
        playground.open.view.without().is_some(),
        "still the counterexample"
    );
    answer(
        &mut playground,
        Response::Replayed {
            seq: typed.seq(),
            report: one_winner_failing(),
        },
    );
    assert_eq!(
        playground.focus_timeline,
        focus + 1,
        "a typed schedule leaves the focus in its form"
    );
}

#[test]
fn a_chosen_scenario_or_an_edit_leaves_the_counterexample() {
    let (mut playground, _, _) = answered();
    // Choosing a scenario goes back to the learner's own run.
    act(&mut playground, Action::Select(ONE_WINNER.into()));
    assert_eq!(playground.open.view.without(), None);
    // An edit leaves the counterexample too.
    act(
        &mut playground,
        Action::ShowCounterexample {
            procedure: "claim".into(),
            line: PROTECTED_LINE,
            change: 0,
        },
    );
    assert!(matches!(
        last_request(&playground),
        Request::Replay { ref scenario, ref edits, .. }
            if scenario == FIRST_COME && edits["claim"] == "UPDATE messages SET claim_owner = :actor;"
    ));
    edit(&mut playground);
    assert_eq!(playground.open.view.without(), None);
    assert!(matches!(playground.open.view, View::Checked { .. }));
}

#[test]
fn an_unprotected_or_unknown_line_or_change_has_no_counterexample() {
    let mut playground = marked();
    let queued = playground.outbox.len();
    let view = playground.open.view.clone();
    for (procedure, line, change) in [
        ("claim", UNPROTECTED_LINE, 0),
        ("claim", 99, 0),
        ("other", PROTECTED_LINE, 0),
        ("claim", PROTECTED_LINE, 2),
    ] {
        act(
            &mut playground,
            Action::ShowCounterexample {
                procedure: procedure.into(),
                line,
                change,
            },
        );
    }
    assert_eq!(playground.outbox.len(), queued);
    assert_eq!(playground.open.view, view);
}
