//! The embedding protocol in the reducer: the host's requests go through
//! the same actions as the learner's clicks and are answered; the parent
//! hears `ready` once, `checked` for every newest report, and `solved` once,
//! for the learner's own texts only. Nothing at all without a valid parent.

use super::*;
use crate::embed::protocol::{Command, FrameMessage, HostRequest, Refusal, RequestId, Solution};

const HOST: &str = "https://course.example";

fn embedded(parent: Option<&str>) -> Playground {
    Playground::new(
        catalog(),
        Start {
            embed: true,
            parent: parent.map(str::to_string),
            ..Start::default()
        },
    )
}

/// The claim exercise embedded for `HOST`, opened, its engine started.
fn ready() -> Playground {
    let mut playground = embedded(Some(HOST));
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
    playground
}

/// The learner types `text` into the claim's editor.
fn edit(playground: &mut Playground, text: &str) {
    act(
        playground,
        Action::Edited {
            procedure: "claim".into(),
            text: text.into(),
        },
    );
}

fn posted(playground: &Playground) -> Vec<FrameMessage> {
    playground
        .embedding
        .as_ref()
        .map(|e| e.posts.iter().map(|p| p.1.clone()).collect())
        .unwrap_or_default()
}

fn kinds(playground: &Playground) -> Vec<&'static str> {
    posted(playground)
        .iter()
        .map(|m| match m {
            FrameMessage::Ready { .. } => "ready",
            FrameMessage::Checked { .. } => "checked",
            FrameMessage::Solved { .. } => "solved",
            FrameMessage::Resize { .. } => "resize",
            FrameMessage::Ok { .. } => "ok",
            FrameMessage::Error { .. } => "error",
        })
        .collect()
}

fn host(playground: &mut Playground, id: u64, command: Command) -> FrameMessage {
    act(
        playground,
        Action::Host(Ok(HostRequest {
            id: RequestId::Number(id),
            command,
        })),
    );
    posted(playground)
        .into_iter()
        .rev()
        .find(|m| matches!(m, FrameMessage::Ok { .. } | FrameMessage::Error { .. }))
        .expect("a reply")
}

fn error_sentence(reply: FrameMessage) -> String {
    match reply {
        FrameMessage::Error { message, .. } => message,
        other => panic!("expected an error reply, got {other:?}"),
    }
}

#[test]
fn nothing_is_posted_or_heard_without_a_valid_parent_in_an_embed() {
    let plain = Playground::new(
        catalog(),
        Start {
            parent: Some(HOST.into()),
            ..Start::default()
        },
    );
    assert_eq!(
        plain.embedding, None,
        "a page that is not an embed reports nothing"
    );
    let mut playground = embedded(None);
    act(
        &mut playground,
        Action::Host(Ok(HostRequest {
            id: RequestId::Number(1),
            command: Command::Reset,
        })),
    );
    assert_eq!(playground.embedding, None);
    assert_eq!(
        playground.open.replace.generation, 0,
        "no parent: commands are not taken"
    );

    let playground = embedded(Some("https://course.example/lesson-3"));
    assert_eq!(playground.embedding, None);
    assert!(
        matches!(&playground.notices[0], Notice::ParentNotOrigin(why) if why.contains("a path, query or fragment")),
        "{:?}",
        playground.notices
    );
}

#[test]
fn ready_is_said_once_when_the_exercise_is_open_and_the_engine_started() {
    let mut playground = embedded(Some("HTTPS://Course.Example:443"));
    assert_eq!(
        playground.embedding.as_ref().map(|e| e.parent.as_str()),
        Some(HOST)
    );
    answer(
        &mut playground,
        Response::Ready {
            sqlite_version: "3.54.1".into(),
        },
    );
    assert!(
        posted(&playground).is_empty(),
        "not while the saved work is read"
    );
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: saved(&[("claim", "-- mine")], &[]),
        },
    );
    let [
        FrameMessage::Ready {
            exercise,
            procedures,
            sqlite_version,
            ..
        },
    ] = &posted(&playground)[..]
    else {
        panic!("{:?}", posted(&playground));
    };
    assert_eq!(
        (exercise.as_str(), sqlite_version.as_str()),
        (CLAIM, "3.54.1")
    );
    assert_eq!(procedures.len(), 1);
    assert_eq!(
        (procedures[0].name.as_str(), procedures[0].text.as_str()),
        ("claim", "-- mine")
    );
    act(&mut playground, Action::RunNow);
    assert_eq!(kinds(&playground), ["ready"], "said once");
}

#[test]
fn every_newest_report_is_checked_and_a_stale_one_is_not() {
    let mut playground = ready();
    let first = playground.open.check_wanted;
    check_answered(&mut playground, claim_report(true));
    let Some(FrameMessage::Checked {
        passed,
        failed,
        total,
        scenarios,
        ..
    }) = posted(&playground).pop()
    else {
        panic!("{:?}", posted(&playground));
    };
    assert_eq!((passed, failed, total), (1, 1, 2));
    assert_eq!(scenarios[0].message, Some(two_holders().to_string()));
    act(&mut playground, Action::ShowHint);
    assert_eq!(
        kinds(&playground),
        ["ready", "checked"],
        "one report, one checked"
    );

    edit(&mut playground, "-- newer");
    answer(
        &mut playground,
        Response::Checked {
            seq: first,
            report: claim_report(false),
        },
    );
    assert_eq!(
        kinds(&playground),
        ["ready", "checked"],
        "a stale report is not said"
    );
    check_answered(&mut playground, claim_report(true));
    assert_eq!(kinds(&playground), ["ready", "checked", "checked"]);
}

#[test]
fn solved_is_said_once_and_only_for_the_learners_own_texts() {
    let mut playground = ready();
    check_answered(&mut playground, claim_report(false));
    assert!(
        !kinds(&playground).contains(&"solved"),
        "the starting text is the page's"
    );

    let reply = host(
        &mut playground,
        1,
        Command::SetProcedures(Edits::from([(
            "claim".into(),
            "-- set by the course".into(),
        )])),
    );
    assert_eq!(
        reply,
        FrameMessage::Ok {
            id: RequestId::Number(1)
        }
    );
    assert_eq!(playground.open.given, Some(Given::Host));
    check_answered(&mut playground, claim_report(false));
    assert!(
        !kinds(&playground).contains(&"solved"),
        "texts the course page set are not the learner's"
    );

    edit(&mut playground, "-- my own");
    check_answered(&mut playground, claim_report(false));
    let solved: Vec<_> = posted(&playground)
        .into_iter()
        .filter(|m| matches!(m, FrameMessage::Solved { .. }))
        .collect();
    assert_eq!(
        solved,
        [FrameMessage::Solved {
            exercise: CLAIM.into(),
            procedures: Edits::from([("claim".into(), "-- my own".into())]),
            kind: Solution::Repair,
        }]
    );
    edit(&mut playground, "-- my own, again");
    check_answered(&mut playground, claim_report(false));
    assert_eq!(
        kinds(&playground)
            .iter()
            .filter(|k| **k == "solved")
            .count(),
        1,
        "said once"
    );
}

/// `own_texts` of the newest `checked` message.
fn own_texts_checked(playground: &Playground) -> Option<bool> {
    posted(playground).into_iter().rev().find_map(|m| match m {
        FrameMessage::Checked { own_texts, .. } => Some(own_texts),
        _ => None,
    })
}

#[test]
fn checked_says_whether_its_texts_are_the_learners_own() {
    let mut playground = ready();
    let starting = playground.starts()["claim"].clone();
    check_answered(&mut playground, claim_report(true));
    assert_eq!(
        own_texts_checked(&playground),
        Some(false),
        "the starting text"
    );

    edit(&mut playground, "-- my own");
    check_answered(&mut playground, claim_report(true));
    assert_eq!(
        own_texts_checked(&playground),
        Some(true),
        "an edit of the learner's"
    );

    edit(&mut playground, &starting);
    check_answered(&mut playground, claim_report(true));
    assert_eq!(
        own_texts_checked(&playground),
        Some(false),
        "an edit back to the starting text gives the page's text"
    );

    host(
        &mut playground,
        1,
        Command::SetProcedures(Edits::from([("claim".into(), "-- from the course".into())])),
    );
    check_answered(&mut playground, claim_report(true));
    assert_eq!(
        own_texts_checked(&playground),
        Some(false),
        "the host's texts"
    );

    edit(&mut playground, "-- from the course, then mine");
    check_answered(&mut playground, claim_report(true));
    assert_eq!(own_texts_checked(&playground), Some(true));
    host(&mut playground, 2, Command::Reset);
    check_answered(&mut playground, claim_report(true));
    assert_eq!(own_texts_checked(&playground), Some(false), "reset");
}

#[test]
fn work_saved_in_this_browser_is_the_learners_own() {
    let mut playground = embedded(Some(HOST));
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: saved(&[("claim", "-- mine, from yesterday")], &[]),
        },
    );
    answer(
        &mut playground,
        Response::Ready {
            sqlite_version: "3.54.1".into(),
        },
    );
    check_answered(&mut playground, claim_report(true));
    assert_eq!(own_texts_checked(&playground), Some(true));
}

#[test]
fn set_procedures_replaces_texts_undoably_and_refuses_an_unknown_name_whole() {
    let mut playground = ready();
    check_answered(&mut playground, claim_report(true));
    let generation = playground.open.replace.generation;
    let wanted = playground.open.check_wanted;
    let reply = host(
        &mut playground,
        2,
        Command::SetProcedures(Edits::from([
            ("claim".into(), "-- a".into()),
            ("nope".into(), "-- b".into()),
        ])),
    );
    let sentence = error_sentence(reply);
    assert!(sentence.contains("`nope` is not an editable procedure of `claim-compare-and-set` (its editable procedures: `claim`)"), "{sentence}");
    assert_eq!(
        playground.open.texts,
        playground.starts(),
        "nothing changed"
    );
    assert_eq!(
        (
            playground.open.replace.generation,
            playground.open.check_wanted
        ),
        (generation, wanted)
    );

    host(
        &mut playground,
        3,
        Command::SetProcedures(Edits::from([("claim".into(), "-- a".into())])),
    );
    assert_eq!(playground.open.texts["claim"], "-- a");
    assert_eq!(
        playground.open.replace.generation,
        generation + 1,
        "one undoable change"
    );
    assert_eq!(playground.open.replace.texts["claim"], "-- a");
    assert!(playground.open.check_wanted > wanted, "and checked");
}

#[test]
fn reset_check_and_show_scenario_go_through_the_reducer_and_are_answered() {
    let mut playground = ready();
    check_answered(&mut playground, claim_report(true));
    edit(&mut playground, "-- mine");
    assert_eq!(
        host(&mut playground, 4, Command::Reset),
        FrameMessage::Ok {
            id: RequestId::Number(4)
        }
    );
    assert_eq!(playground.open.texts, playground.starts());
    assert_eq!(playground.open.given, Some(Given::Start));

    let wanted = playground.open.check_wanted;
    assert_eq!(
        host(&mut playground, 5, Command::Check),
        FrameMessage::Ok {
            id: RequestId::Number(5)
        }
    );
    assert!(playground.open.check_wanted > wanted);

    check_answered(&mut playground, claim_report(true));
    let focus = playground.focus_timeline;
    assert_eq!(
        host(&mut playground, 6, Command::ShowScenario(FIRST_COME.into())),
        FrameMessage::Ok {
            id: RequestId::Number(6)
        }
    );
    assert_eq!(playground.open.view.scenario(), Some(FIRST_COME));
    assert_eq!(playground.focus_timeline, focus + 1);
    let sentence = error_sentence(host(
        &mut playground,
        7,
        Command::ShowScenario("nope".into()),
    ));
    assert!(
        sentence.starts_with(
            "`nope` is not a scenario of `claim-compare-and-set` (its scenarios: `one winner`"
        ),
        "{sentence}"
    );
    assert_eq!(playground.open.view.scenario(), Some(FIRST_COME));
}

#[test]
fn a_message_that_cannot_be_read_or_comes_too_early_is_answered_with_an_error() {
    let mut playground = embedded(Some(HOST));
    let sentence = error_sentence(host(&mut playground, 8, Command::Check));
    assert_eq!(sentence, "the exercise is still opening: wait for `ready`");
    assert_eq!(playground.open.check_wanted, 0);

    let mut playground = ready();
    act(
        &mut playground,
        Action::Host(Err(Refusal {
            id: None,
            message: "a message must be an object".into(),
        })),
    );
    assert_eq!(
        posted(&playground).pop(),
        Some(FrameMessage::Error {
            id: None,
            message: "a message must be an object".into()
        })
    );
}

#[test]
fn a_link_shared_from_an_embed_opens_as_an_embed() {
    let mut playground = ready();
    act(
        &mut playground,
        Action::Share {
            base: "https://fencelab.example/".into(),
        },
    );
    let url = playground.open.share_url.clone().expect("a link");
    assert!(
        url.starts_with("https://fencelab.example/?embed=1&exercise=claim-compare-and-set#s1="),
        "{url}"
    );
    let mut page = opened();
    act(
        &mut page,
        Action::Share {
            base: "https://fencelab.example/".into(),
        },
    );
    assert!(
        page.open
            .share_url
            .unwrap()
            .starts_with("https://fencelab.example/#s1=")
    );
}

/// The frame reports its height once the page has settled (`use_embedding`):
/// not while the exercise's saved work is read, from then on.
#[test]
fn an_embedded_exercise_settles_once_its_saved_work_is_read() {
    assert!(!embedded(Some(HOST)).settled(), "its saved work is read");
    assert!(ready().settled());
}
