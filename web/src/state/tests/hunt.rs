//! "Break it yourself" in the reducer: a challenge hides the
//! counterexamples, each move is a hunt request, the worker's verdict is
//! shown as it came, and only a break the learner found by hand on the text
//! the page gave counts, as progress apart from repairs, in the saved work,
//! a share link and an embed's `solved` of kind `hunt`.

use super::*;
use crate::embed::protocol::{FrameMessage, Solution};
use fencelab_model::{Break, Hunt, HuntVerdict};

fn hunt_seq(playground: &Playground) -> (u64, Schedule) {
    match last_request(playground) {
        Request::Hunt {
            seq,
            schedule,
            scenario,
            ..
        } => {
            assert_eq!(scenario, ONE_WINNER);
            (seq, schedule)
        }
        other => panic!("a hunt request, not {other:?}"),
    }
}

fn broken(schedule: &str) -> HuntVerdict {
    HuntVerdict::Broken(Box::new(Break {
        failure: two_holders(),
        schedule: Schedule::parse(schedule).expect("a schedule"),
        shortest_moves: Some(4),
    }))
}

fn hunted(playground: &mut Playground, seq: u64, finished: bool, verdict: HuntVerdict) {
    answer(
        playground,
        Response::Hunted {
            seq,
            hunt: Box::new(Hunt {
                drive: drive(if finished { 8 } else { 2 }, finished),
                verdict,
            }),
        },
    );
}

/// The claim exercise in a challenge on its starting text, checked.
fn challenged() -> Playground {
    let mut playground = opened();
    act(&mut playground, Action::HuntStart(HuntText::Start));
    check_answered(&mut playground, claim_report(true));
    playground
}

#[test]
fn a_challenge_hides_the_counterexamples_and_offers_the_scenarios_that_break() {
    let mut playground = opened();
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- mine".into(),
        },
    );
    act(&mut playground, Action::HuntStart(HuntText::Start));
    assert_eq!(
        playground.open.replace.texts,
        playground.starts(),
        "the starting text, undoably"
    );
    assert_eq!(playground.open.given, Some(Given::Start));
    assert_eq!(playground.hunt_targets(), None, "until its check answers");
    check_answered(&mut playground, claim_report(true));
    assert_eq!(
        playground.open.view,
        View::Nothing,
        "no counterexample comes into view"
    );
    assert!(playground.open.shown().is_none());
    let offer = playground.hunt_targets().expect("checked");
    assert_eq!(
        offer
            .targets
            .iter()
            .map(|t| &t.scenario)
            .collect::<Vec<_>>(),
        [ONE_WINNER]
    );
    assert_eq!(offer.targets[0].processes, ["a", "b"]);
    assert_eq!((offer.holding, offer.unhuntable), (1, 0));

    // Stopping a hunt goes back to the offer, never to the checked report.
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    act(&mut playground, Action::DriveStop);
    assert_eq!(playground.open.view, View::Nothing);
    assert!(playground.open.challenge.is_some());
    // Choosing a checked scenario leaves the challenge.
    act(&mut playground, Action::Select(ONE_WINNER.into()));
    assert_eq!(playground.open.challenge, None);
    assert!(playground.open.shown().is_some());
}

#[test]
fn a_variant_challenge_puts_the_variant_in_the_editors_without_its_explanation() {
    let mut playground = opened();
    let variant = "read, then write";
    act(
        &mut playground,
        Action::HuntStart(HuntText::Variant(variant.into())),
    );
    assert_eq!(
        Some(&playground.open.texts),
        playground.variant_texts(variant).as_ref()
    );
    assert_eq!(playground.open.given, Some(Given::Variant(variant.into())));
    assert_eq!(
        playground.open.loaded_variant, None,
        "its explanation would give it away"
    );
    check_answered(&mut playground, claim_report(true));
    assert!(
        playground.open.seen.is_empty(),
        "nothing was watched failing"
    );
    act(
        &mut playground,
        Action::HuntStart(HuntText::Variant("no such".into())),
    );
    assert_eq!(
        playground.open.challenge.as_ref().map(|c| &c.text),
        Some(&HuntText::Variant(variant.into())),
        "an unknown variant opens nothing"
    );
}

#[test]
fn every_move_of_a_hunt_is_judged_by_the_worker_and_a_break_counts_apart_from_repairs() {
    let mut playground = challenged();
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    let (first, schedule) = hunt_seq(&playground);
    assert!(schedule.is_empty());
    hunted(&mut playground, first, false, HuntVerdict::Going);
    for name in ["a", "a", "b"] {
        act(&mut playground, Action::DriveMove(name.into()));
    }
    let (held_seq, _) = hunt_seq(&playground);
    hunted(&mut playground, held_seq, true, HuntVerdict::Held);
    assert!(
        playground.open.hunted.is_empty(),
        "an order that breaks nothing is no win"
    );
    assert!(
        playground.announcement.contains("breaks nothing"),
        "{}",
        playground.announcement
    );

    act(&mut playground, Action::DriveMove("b".into()));
    let (won, schedule) = hunt_seq(&playground);
    assert_eq!(schedule.to_string(), "a a b b");
    hunted(&mut playground, won, true, broken("a a b b"));
    let View::Driving(state) = &playground.open.view else {
        panic!("still the drive");
    };
    assert!(state.verdict.as_ref().is_some_and(|v| v.found().is_some()));
    assert_eq!(
        playground.announcement,
        "You broke it: worker-a and worker-b both believe they hold message msg-1. \
         Yours took 4 moves: as short as a break gets."
    );
    assert_eq!(
        playground.open.hunted,
        [FoundBreak {
            text: HuntText::Start,
            scenario: ONE_WINNER.into(),
            moves: 4
        }]
    );
    let progress = playground.current_progress();
    assert_eq!((progress.solved, progress.hunted), (false, 1));
    assert_eq!(playground.saved().hunts, playground.open.hunted);
    assert!(!playground.saved().passing);
    assert_eq!(
        playground.hunt_targets().expect("checked").targets[0].found_moves,
        Some(4)
    );

    // A late answer to an earlier move is dropped, its verdict with it.
    hunted(&mut playground, held_seq, true, HuntVerdict::Held);
    assert_eq!(playground.open.hunted.len(), 1);
}

#[test]
fn an_edit_or_leaving_ends_the_challenge_and_a_drive_outside_one_is_no_hunt() {
    let mut playground = challenged();
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- the learner's own".into(),
        },
    );
    assert_eq!(
        playground.open.challenge, None,
        "the text is no longer the page's"
    );
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    assert!(matches!(last_request(&playground), Request::Drive { .. }));

    let mut playground = challenged();
    act(&mut playground, Action::HuntLeave);
    assert_eq!(playground.open.challenge, None);
    check_answered(&mut playground, claim_report(true));
    assert_eq!(
        playground.open.view.scenario(),
        Some(ONE_WINNER),
        "the verdicts are back"
    );
}

#[test]
fn a_found_break_travels_in_a_share_link_and_opens_as_a_hunt_that_the_opener_did_not_find() {
    let mut playground = challenged();
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    for name in ["a", "a", "b", "b"] {
        act(&mut playground, Action::DriveMove(name.into()));
    }
    let (won, _) = hunt_seq(&playground);
    hunted(&mut playground, won, true, broken("a a b b"));
    act(
        &mut playground,
        Action::Share {
            base: "https://fencelab.example/".into(),
        },
    );
    let url = playground.open.share_url.clone().expect("a link");
    let fragment = url.split_once('#').expect("a fragment").1;
    let link = share::decode(fragment).expect("it decodes");
    assert_eq!(link.hunt, Some(HuntText::Start));
    assert!(link.drive);
    assert_eq!(
        link.schedule.as_ref().map(|s| s.to_string()).as_deref(),
        Some("a a b b")
    );

    let mut opened = started(fragment);
    act(
        &mut opened,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Nothing,
        },
    );
    assert!(opened.open.challenge.as_ref().is_some_and(|c| c.replayed));
    let (seq, schedule) = hunt_seq(&opened);
    assert_eq!(schedule.to_string(), "a a b b");
    hunted(&mut opened, seq, true, broken("a a b b"));
    assert!(
        matches!(&opened.open.view, View::Driving(d) if d.verdict.as_ref().and_then(|v| v.found()).is_some()),
        "the break is shown"
    );
    assert!(
        opened.open.hunted.is_empty(),
        "but it was found by whoever made the link"
    );

    // Undone and made again by hand, it is the learner's own.
    act(&mut opened, Action::DriveUndo);
    act(&mut opened, Action::DriveMove("b".into()));
    let (again, _) = hunt_seq(&opened);
    hunted(&mut opened, again, true, broken("a a b b"));
    assert_eq!(opened.open.hunted.len(), 1);
}

#[test]
fn saved_hunts_come_back_and_an_entry_from_before_hunts_still_loads() {
    let old = Saved::parse(r#"{"format":1,"edits":{},"seen":["read, then write"],"passing":true}"#)
        .expect("an entry from before hunts reads");
    assert!(old.hunts.is_empty());
    assert_eq!(
        old.progress(),
        Progress {
            seen: 1,
            solved: true,
            hunted: 0
        }
    );
    let found = FoundBreak {
        text: HuntText::Variant("read, then write".into()),
        scenario: ONE_WINNER.into(),
        moves: 6,
    };
    let entry = Saved {
        format: SAVE_FORMAT,
        hunts: vec![found.clone()],
        ..Saved::default()
    };
    let text = serde_json::to_string(&entry).expect("serializes");
    assert!(!serde_json::to_string(&old).unwrap().contains("hunts"));
    let mut playground = started("");
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Saved(Saved::parse(&text).expect("reads back")),
        },
    );
    assert_eq!(playground.open.hunted, [found]);
    assert_eq!(playground.current_progress().hunted, 1);
    act(&mut playground, Action::Open(1));
    assert!(
        playground.open.hunted.is_empty(),
        "another exercise's progress"
    );
}

#[test]
fn a_reload_with_a_challenge_open_and_no_scenario_chosen_comes_back_to_it() {
    let variant = "read, then write";
    let mut playground = opened();
    act(
        &mut playground,
        Action::HuntStart(HuntText::Variant(variant.into())),
    );
    let saved = playground.saved();
    assert_eq!(saved.view, None, "no scenario chosen: nothing in view");
    let reload = |saved: &Saved| {
        let text = serde_json::to_string(saved).expect("serializes");
        let mut playground = started("");
        act(
            &mut playground,
            Action::SavedWorkRead {
                exercise: CLAIM.into(),
                loaded: Loaded::Saved(Saved::parse(&text).expect("reads back")),
            },
        );
        playground
    };
    let reloaded = reload(&saved);
    let challenge = reloaded
        .open
        .challenge
        .as_ref()
        .expect("the challenge is open again");
    assert_eq!(challenge.text, HuntText::Variant(variant.into()));
    assert!(
        !challenge.replayed,
        "a break found after the reload is the learner's"
    );
    assert_eq!(
        Some(&reloaded.open.texts),
        reloaded.variant_texts(variant).as_ref()
    );
    assert!(
        reloaded.open.shown().is_none(),
        "the counterexamples stay hidden"
    );

    // An entry whose texts are no longer the challenge's opens none.
    let mut stale = saved.clone();
    stale.edits.insert("claim".into(), "SELECT 1;".into());
    assert!(reload(&stale).open.challenge.is_none());
    // Leaving the challenge leaves it out of the saved work.
    act(&mut playground, Action::HuntLeave);
    assert_eq!(playground.saved().challenge, None);
}

fn embedded_challenge(hunts: bool) -> Playground {
    let mut playground = Playground::new(
        catalog(),
        Start {
            embed: true,
            parent: Some("https://course.example".into()),
            hunts,
            ..Start::default()
        },
    );
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Nothing,
        },
    );
    answer(
        &mut playground,
        Response::Ready {
            sqlite_version: "3.54.1".into(),
        },
    );
    act(&mut playground, Action::HuntStart(HuntText::Start));
    check_answered(&mut playground, claim_report(true));
    act(&mut playground, Action::DriveStart(ONE_WINNER.into()));
    let (seq, _) = hunt_seq(&playground);
    hunted(&mut playground, seq, true, broken("a a b b"));
    playground
}

fn solved_posts(playground: &Playground) -> Vec<String> {
    playground
        .embedding
        .as_ref()
        .map(|e| {
            e.posts
                .iter()
                .filter(|p| matches!(p.1, FrameMessage::Solved { .. }))
                .map(|p| p.1.to_json())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_embed_reports_a_hunt_as_its_own_solved_kind_once_and_only_to_a_page_that_asked() {
    assert!(
        solved_posts(&embedded_challenge(false)).is_empty(),
        "a page written before hunts would take one for a repair"
    );
    let mut playground = embedded_challenge(true);
    let posts = solved_posts(&playground);
    assert_eq!(posts.len(), 1, "{posts:?}");
    let json: serde_json::Value = serde_json::from_str(&posts[0]).unwrap();
    assert_eq!(json["fencelab"], 1);
    assert_eq!(json["type"], "solved");
    assert_eq!(json["kind"], "hunt");
    assert_eq!(json["scenario"], ONE_WINNER);
    assert_eq!(json["variant"], serde_json::Value::Null);
    assert_eq!(json["broke"], "invariant");
    assert_eq!(json["schedule"], "a a b b");
    assert_eq!(
        (json["moves"].clone(), json["shortest_moves"].clone()),
        (4.into(), 4.into())
    );
    assert!(
        json["guarantee"]
            .as_str()
            .unwrap()
            .contains("message msg-1")
    );
    assert_eq!(json["procedures"]["claim"], playground.starts()["claim"]);

    // The same break again is not said again.
    act(&mut playground, Action::DriveUndo);
    act(&mut playground, Action::DriveMove("b".into()));
    let (seq, _) = hunt_seq(&playground);
    hunted(&mut playground, seq, true, broken("a a b b"));
    assert_eq!(solved_posts(&playground).len(), 1);
    let repair = FrameMessage::Solved {
        exercise: CLAIM.into(),
        procedures: Edits::new(),
        kind: Solution::Repair,
    };
    assert!(
        repair.to_json().contains(r#""kind":"repair""#),
        "{}",
        repair.to_json()
    );
}

#[test]
fn the_scenarios_a_challenge_does_not_offer_are_said_by_kind() {
    use crate::state::HuntTargets;
    // Exercise 13's starting text: nothing breaks, four limits show.
    let explored = HuntTargets {
        holding: 7,
        limits: 4,
        ..HuntTargets::default()
    };
    assert_eq!(
        explored.unoffered(false).as_deref(),
        Some(
            "Of its 11 scenarios, 7 hold in every order on this text, and 4 show a limit, \
             which is never a break."
        )
    );
    // Beside the scenarios offered, without a count of none ("0 hold").
    let beside = HuntTargets {
        holding: 1,
        unhuntable: 1,
        errored: 1,
        ..HuntTargets::default()
    };
    assert_eq!(
        beside.unoffered(true).as_deref(),
        Some(
            "Of the other 3 scenarios, 1 holds in every order on this text, 1 breaks with \
             nothing running at the same time, so there is no order to choose, and 1 could \
             not be judged."
        )
    );
    let alone = HuntTargets {
        unhuntable: 2,
        ..HuntTargets::default()
    };
    assert_eq!(
        alone.unoffered(true).as_deref(),
        Some(
            "The other 2 scenarios break with nothing running at the same time, so there is \
             no order to choose."
        )
    );
    let held = HuntTargets {
        holding: 1,
        ..HuntTargets::default()
    };
    assert_eq!(
        held.unoffered(false).as_deref(),
        Some("The only scenario holds in every order on this text.")
    );
    assert_eq!(HuntTargets::default().unoffered(true), None);
}
