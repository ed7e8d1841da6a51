//! The embedding protocol in the reducer: the host's requests go through
//! the same actions as the learner's clicks and are answered; the parent
//! hears `ready` once, `checked` for every newest report, and `solved` once,
//! for the learner's own texts only. Nothing at all without a valid parent.

use super::*;
use crate::embed::protocol::{Command, FrameMessage, HostRequest, Refusal, RequestId, Solution};

const HOST: &str = "https://course.example";

fn embedded(parent: Option<&str>) -> Model {
    Model::new(
        catalog(),
        Start {
            embed: true,
            parent: parent.map(str::to_string),
            ..Start::default()
        },
    )
}

/// The claim exercise embedded for `HOST`, opened, its engine started.
fn ready() -> Model {
    let mut model = embedded(Some(HOST));
    act(
        &mut model,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Nothing,
        },
    );
    answer(
        &mut model,
        Response::Ready {
            sqlite_version: "3.54.1".into(),
        },
    );
    model
}

/// The learner types `text` into the claim's editor.
fn edit(model: &mut Model, text: &str) {
    act(
        model,
        Action::Edited {
            procedure: "claim".into(),
            text: text.into(),
        },
    );
}

fn posted(model: &Model) -> Vec<FrameMessage> {
    model
        .embedding
        .as_ref()
        .map(|e| e.posts.iter().map(|p| p.1.clone()).collect())
        .unwrap_or_default()
}

fn kinds(model: &Model) -> Vec<&'static str> {
    posted(model)
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

fn host(model: &mut Model, id: u64, command: Command) -> FrameMessage {
    act(
        model,
        Action::Host(Ok(HostRequest {
            id: RequestId::Number(id),
            command,
        })),
    );
    posted(model)
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
    let plain = Model::new(
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
    let mut model = embedded(None);
    act(
        &mut model,
        Action::Host(Ok(HostRequest {
            id: RequestId::Number(1),
            command: Command::Reset,
        })),
    );
    assert_eq!(model.embedding, None);
    assert_eq!(
        model.replace.generation, 0,
        "no parent: commands are not taken"
    );

    let model = embedded(Some("https://course.example/lesson-3"));
    assert_eq!(model.embedding, None);
    assert!(
        model.notices[0].contains("cannot report to the page that embeds it")
            && model.notices[0].contains("a path, query or fragment"),
        "{:?}",
        model.notices
    );
}

#[test]
fn ready_is_said_once_when_the_exercise_is_open_and_the_engine_started() {
    let mut model = embedded(Some("HTTPS://Course.Example:443"));
    assert_eq!(
        model.embedding.as_ref().map(|e| e.parent.as_str()),
        Some(HOST)
    );
    answer(
        &mut model,
        Response::Ready {
            sqlite_version: "3.54.1".into(),
        },
    );
    assert!(
        posted(&model).is_empty(),
        "not while the saved work is read"
    );
    act(
        &mut model,
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
    ] = &posted(&model)[..]
    else {
        panic!("{:?}", posted(&model));
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
    act(&mut model, Action::RunNow);
    assert_eq!(kinds(&model), ["ready"], "said once");
}

#[test]
fn every_newest_report_is_checked_and_a_stale_one_is_not() {
    let mut model = ready();
    let first = model.check_wanted;
    check_answered(&mut model, claim_report(true));
    let Some(FrameMessage::Checked {
        passed,
        failed,
        total,
        scenarios,
        ..
    }) = posted(&model).pop()
    else {
        panic!("{:?}", posted(&model));
    };
    assert_eq!((passed, failed, total), (1, 1, 2));
    assert_eq!(scenarios[0].message, Some(two_holders().to_string()));
    act(&mut model, Action::ShowHint);
    assert_eq!(
        kinds(&model),
        ["ready", "checked"],
        "one report, one checked"
    );

    edit(&mut model, "-- newer");
    answer(
        &mut model,
        Response::Checked {
            seq: first,
            report: claim_report(false),
        },
    );
    assert_eq!(
        kinds(&model),
        ["ready", "checked"],
        "a stale report is not said"
    );
    check_answered(&mut model, claim_report(true));
    assert_eq!(kinds(&model), ["ready", "checked", "checked"]);
}

#[test]
fn solved_is_said_once_and_only_for_the_learners_own_texts() {
    let mut model = ready();
    check_answered(&mut model, claim_report(false));
    assert!(
        !kinds(&model).contains(&"solved"),
        "the starting text is the page's"
    );

    let reply = host(
        &mut model,
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
    assert_eq!(model.given, Some(Given::Host));
    check_answered(&mut model, claim_report(false));
    assert!(
        !kinds(&model).contains(&"solved"),
        "texts the course page set are not the learner's"
    );

    edit(&mut model, "-- my own");
    check_answered(&mut model, claim_report(false));
    let solved: Vec<_> = posted(&model)
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
    edit(&mut model, "-- my own, again");
    check_answered(&mut model, claim_report(false));
    assert_eq!(
        kinds(&model).iter().filter(|k| **k == "solved").count(),
        1,
        "said once"
    );
}

#[test]
fn set_procedures_replaces_texts_undoably_and_refuses_an_unknown_name_whole() {
    let mut model = ready();
    check_answered(&mut model, claim_report(true));
    let generation = model.replace.generation;
    let wanted = model.check_wanted;
    let reply = host(
        &mut model,
        2,
        Command::SetProcedures(Edits::from([
            ("claim".into(), "-- a".into()),
            ("nope".into(), "-- b".into()),
        ])),
    );
    let sentence = error_sentence(reply);
    assert!(sentence.contains("`nope` is not an editable procedure of `claim-compare-and-set` (its editable procedures: `claim`)"), "{sentence}");
    assert_eq!(model.texts, model.starts(), "nothing changed");
    assert_eq!(
        (model.replace.generation, model.check_wanted),
        (generation, wanted)
    );

    host(
        &mut model,
        3,
        Command::SetProcedures(Edits::from([("claim".into(), "-- a".into())])),
    );
    assert_eq!(model.texts["claim"], "-- a");
    assert_eq!(
        model.replace.generation,
        generation + 1,
        "one undoable change"
    );
    assert_eq!(model.replace.texts["claim"], "-- a");
    assert!(model.check_wanted > wanted, "and checked");
}

#[test]
fn reset_check_and_show_scenario_go_through_the_reducer_and_are_answered() {
    let mut model = ready();
    check_answered(&mut model, claim_report(true));
    edit(&mut model, "-- mine");
    assert_eq!(
        host(&mut model, 4, Command::Reset),
        FrameMessage::Ok {
            id: RequestId::Number(4)
        }
    );
    assert_eq!(model.texts, model.starts());
    assert_eq!(model.given, Some(Given::Start));

    let wanted = model.check_wanted;
    assert_eq!(
        host(&mut model, 5, Command::Check),
        FrameMessage::Ok {
            id: RequestId::Number(5)
        }
    );
    assert!(model.check_wanted > wanted);

    check_answered(&mut model, claim_report(true));
    let focus = model.focus_timeline;
    assert_eq!(
        host(&mut model, 6, Command::ShowScenario(FIRST_COME.into())),
        FrameMessage::Ok {
            id: RequestId::Number(6)
        }
    );
    assert_eq!(model.view.scenario(), Some(FIRST_COME));
    assert_eq!(model.focus_timeline, focus + 1);
    let sentence = error_sentence(host(&mut model, 7, Command::ShowScenario("nope".into())));
    assert!(
        sentence.starts_with(
            "`nope` is not a scenario of `claim-compare-and-set` (its scenarios: `one winner`"
        ),
        "{sentence}"
    );
    assert_eq!(model.view.scenario(), Some(FIRST_COME));
}

#[test]
fn a_message_that_cannot_be_read_or_comes_too_early_is_answered_with_an_error() {
    let mut model = embedded(Some(HOST));
    let sentence = error_sentence(host(&mut model, 8, Command::Check));
    assert_eq!(sentence, "the exercise is still opening: wait for `ready`");
    assert_eq!(model.check_wanted, 0);

    let mut model = ready();
    act(
        &mut model,
        Action::Host(Err(Refusal {
            id: None,
            message: "a message must be an object".into(),
        })),
    );
    assert_eq!(
        posted(&model).pop(),
        Some(FrameMessage::Error {
            id: None,
            message: "a message must be an object".into()
        })
    );
}

#[test]
fn a_link_shared_from_an_embed_opens_as_an_embed() {
    let mut model = ready();
    act(
        &mut model,
        Action::Share {
            base: "https://fencelab.example/".into(),
        },
    );
    let url = model.share_url.clone().expect("a link");
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
        page.share_url
            .unwrap()
            .starts_with("https://fencelab.example/#s1=")
    );
}
