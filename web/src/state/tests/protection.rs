//! The line marks ("what if this line were gone?"): asked for only after a
//! check in which the learner's own texts pass every scenario, dropped when
//! stale, cleared by every edit, and a protected mark's counterexample shown
//! as such.

use super::*;

fn protect_requests(model: &Model) -> Vec<Request> {
    model
        .outbox
        .iter()
        .filter(|r| matches!(***r, Request::Protect { .. }))
        .map(|r| (**r).clone())
        .collect()
}

/// The claim exercise solved: its check passed, its marks asked for.
fn solved() -> Model {
    let mut model = opened();
    check_answered(&mut model, claim_report(false));
    model
}

fn protection_seq(model: &Model) -> u64 {
    match &model.protection {
        Protection::Waiting { seq, .. } => *seq,
        other => panic!("waiting for marks, not {other:?}"),
    }
}

/// The claim exercise solved, with its marks shown.
fn marked() -> Model {
    let mut model = solved();
    let seq = protection_seq(&model);
    answer(
        &mut model,
        Response::Protection {
            seq,
            report: protection_report(),
        },
    );
    model
}

fn edit(model: &mut Model) {
    act(
        model,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- an edit".into(),
        },
    );
}

#[test]
fn marks_are_asked_for_only_after_the_newest_check_passes_every_scenario() {
    let mut model = opened();
    check_answered(&mut model, claim_report(true));
    assert_eq!(protect_requests(&model), [], "a failing check asks nothing");
    assert_eq!(model.protection, Protection::Nothing);

    // A passing report of older texts asks nothing either.
    let older = model.check_wanted;
    edit(&mut model);
    answer(
        &mut model,
        Response::Checked {
            seq: older,
            report: claim_report(false),
        },
    );
    assert_eq!(protect_requests(&model), []);

    check_answered(&mut model, claim_report(false));
    let seq = protection_seq(&model);
    assert_eq!(
        protect_requests(&model),
        [Request::Protect {
            seq,
            exercise: CLAIM.into(),
            edits: model.texts.clone(),
        }],
        "after the verdicts are in the model, never instead of them"
    );
    assert!(model.report.as_ref().is_some_and(|r| r.failed == 0));
}

#[test]
fn a_broken_variant_that_passes_is_never_marked() {
    let mut model = opened();
    act(
        &mut model,
        Action::LoadMutant("read again right before writing".into()),
    );
    check_answered(&mut model, claim_report(false));
    assert_eq!(protect_requests(&model), []);
    assert_eq!(model.protection, Protection::Nothing);
}

#[test]
fn marks_answer_only_their_own_request_for_the_texts_still_in_the_editors() {
    let mut model = solved();
    let first = protection_seq(&model);
    // Ctrl+Enter re-checks the same texts: the worker dropped the first
    // request when that check arrived, so the marks are asked again.
    act(&mut model, Action::RunNow);
    check_answered(&mut model, claim_report(false));
    let second = protection_seq(&model);
    assert!(second > first);
    assert_eq!(protect_requests(&model).len(), 2);
    answer(
        &mut model,
        Response::Protection {
            seq: first,
            report: protection_report(),
        },
    );
    assert_eq!(
        model.protection.report(),
        None,
        "an answer to a request replaced"
    );
    answer(
        &mut model,
        Response::Protection {
            seq: second,
            report: protection_report(),
        },
    );
    assert_eq!(
        model.protection.report().map(|r| (**r).clone()),
        Some(protection_report())
    );
    assert_eq!(
        model.announcement,
        "Line marks are ready: 1 line protected by a scenario, 1 line no scenario notices."
    );
    // Once shown, another passing check of the same texts keeps them.
    act(&mut model, Action::RunNow);
    check_answered(&mut model, claim_report(false));
    assert_eq!(protect_requests(&model).len(), 2);
    assert!(model.protection.report().is_some());

    // Texts edited while the marks were being found: the answer is dropped.
    let mut model = solved();
    let seq = protection_seq(&model);
    edit(&mut model);
    answer(
        &mut model,
        Response::Protection {
            seq,
            report: protection_report(),
        },
    );
    assert_eq!(model.protection, Protection::Nothing);
}

#[test]
fn every_edit_and_every_replaced_text_clears_the_marks() {
    let mut model = marked();
    edit(&mut model);
    assert_eq!(model.protection, Protection::Nothing);

    for action in [
        Action::Reset,
        Action::LoadMutant("read, then write".into()),
        Action::Open(1),
    ] {
        let mut model = marked();
        act(&mut model, action);
        assert_eq!(model.protection, Protection::Nothing);
    }
}

#[test]
fn marks_the_worker_could_not_find_say_why_and_nothing_else_is_failed() {
    let mut model = solved();
    let seq = protection_seq(&model);
    answer(
        &mut model,
        Response::Failed {
            seq,
            message: "there is no exercise `x`".into(),
        },
    );
    assert_eq!(
        model.protection,
        Protection::Failed {
            message: "there is no exercise `x`".into()
        }
    );
    assert!(!model.check_failed);
    assert!(model.notices.is_empty(), "said under the editor");
    assert!(model.passes(), "the verdicts stand");
}

/// The learner clicked the protected line's state predicate: the model,
/// the learner's own texts, the texts with that line changed, and the
/// replay's seq.
fn clicked() -> (Model, Edits, Edits, u64) {
    let mut model = marked();
    let own = model.texts.clone();
    act(
        &mut model,
        Action::ShowCounterexample {
            procedure: "claim".into(),
            line: PROTECTED_LINE,
            change: STATE_PREDICATE,
        },
    );
    let Request::Replay { seq, .. } = last_request(&model) else {
        panic!("a replay of the counterexample");
    };
    let mut changed = own.clone();
    changed.insert("claim".into(), MUTANT_CLAIM.into());
    (model, own, changed, seq)
}

/// As [`clicked`], with the counterexample's failing run answered; and the
/// focus count before the answer.
fn answered() -> (Model, Edits, u64) {
    let (mut model, _, changed, seq) = clicked();
    let focus = model.focus_timeline;
    answer(
        &mut model,
        Response::Replayed {
            seq,
            report: one_winner_failing(),
        },
    );
    (model, changed, focus)
}

#[test]
fn a_click_on_a_caught_change_replays_the_changed_texts_as_a_counterexample() {
    let (model, own, changed, _) = clicked();
    let Request::Replay {
        exercise,
        edits,
        scenario,
        schedule,
        ..
    } = last_request(&model)
    else {
        panic!("a replay of the counterexample");
    };
    assert_eq!(exercise, CLAIM);
    assert_eq!(edits, changed, "the learner's texts with the line changed");
    assert_eq!(
        (scenario.as_str(), schedule.to_string().as_str()),
        (ONE_WINNER, "a a b b")
    );
    assert_eq!(model.texts, own, "the editors keep the learner's own text");
    let without = model.view.without().expect("a counterexample in view");
    assert_eq!(
        (without.procedure.as_str(), without.line),
        ("claim", PROTECTED_LINE)
    );
    assert_eq!(
        model.shown(),
        None,
        "the learner's own passing run is not shown under the counterexample's title"
    );
}

#[test]
fn the_counterexample_takes_the_focus_and_says_how_the_changed_line_breaks() {
    let (model, _, focus) = answered();
    assert_eq!(
        model.focus_timeline,
        focus + 1,
        "the timeline takes the focus"
    );
    assert_eq!(model.view.step(), BROKE_AT);
    assert!(model.view.without().is_some());
    assert_eq!(
        model.shown_report().and_then(|r| r.failure()),
        Some(&two_holders())
    );
    assert_eq!(
        model.announcement,
        "Counterexample: without line 4 of claim as written (drop `AND state = 'NEW'` from the WHERE), \
         “one winner” fails: worker-a and worker-b both believe they hold message msg-1"
    );
}

#[test]
fn the_console_and_a_typed_schedule_ask_about_the_counterexample_texts() {
    let (mut model, changed, focus) = answered();
    act(&mut model, Action::Query("SELECT * FROM messages".into()));
    assert!(matches!(last_request(&model), Request::Query { edits, .. } if edits == changed));
    act(
        &mut model,
        Action::Replay {
            scenario: ONE_WINNER.into(),
            schedule: "a b".into(),
        },
    );
    let typed = last_request(&model);
    assert!(matches!(&typed, Request::Replay { edits, .. } if *edits == changed));
    assert!(model.view.without().is_some(), "still the counterexample");
    answer(
        &mut model,
        Response::Replayed {
            seq: typed.seq(),
            report: one_winner_failing(),
        },
    );
    assert_eq!(
        model.focus_timeline,
        focus + 1,
        "a typed schedule leaves the focus in its form"
    );
}

#[test]
fn a_chosen_scenario_or_an_edit_leaves_the_counterexample() {
    let (mut model, _, _) = answered();
    // Choosing a scenario goes back to the learner's own run.
    act(&mut model, Action::Select(ONE_WINNER.into()));
    assert_eq!(model.view.without(), None);
    // An edit leaves the counterexample too.
    act(
        &mut model,
        Action::ShowCounterexample {
            procedure: "claim".into(),
            line: PROTECTED_LINE,
            change: 0,
        },
    );
    assert!(matches!(
        last_request(&model),
        Request::Replay { ref scenario, ref edits, .. }
            if scenario == FIRST_COME && edits["claim"] == "UPDATE messages SET claim_owner = :actor;"
    ));
    edit(&mut model);
    assert_eq!(model.view.without(), None);
    assert!(matches!(model.view, View::Checked { .. }));
}

#[test]
fn an_unprotected_or_unknown_line_or_change_has_no_counterexample() {
    let mut model = marked();
    let queued = model.outbox.len();
    let view = model.view.clone();
    for (procedure, line, change) in [
        ("claim", UNPROTECTED_LINE, 0),
        ("claim", 99, 0),
        ("other", PROTECTED_LINE, 0),
        ("claim", PROTECTED_LINE, 2),
    ] {
        act(
            &mut model,
            Action::ShowCounterexample {
                procedure: procedure.into(),
                line,
                change,
            },
        );
    }
    assert_eq!(model.outbox.len(), queued);
    assert_eq!(model.view, view);
}
