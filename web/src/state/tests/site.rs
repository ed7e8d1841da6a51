//! A site's own exercises: awaited when the address names one, added to
//! the list and installed in the worker, each bad file a notice; an id the
//! site does not have is named, never silently swapped for another.

use super::*;

const MINE: &str = "my-course-claim";

/// The claim exercise's file as an author would copy it into `exercises/`.
fn authored(id: &str, lesson: &str) -> String {
    let (_, text) = fencelab_model::bundled::FILES[0];
    let text = text.replacen(
        "id = \"claim-compare-and-set\"",
        &format!("id = \"{id}\""),
        1,
    );
    let original_lesson = catalog().unwrap()[0].lesson.clone();
    text.replacen(
        &format!("lesson = \"{original_lesson}\""),
        &format!("lesson = \"{lesson}\""),
        1,
    )
}

fn site(files: &[(&str, Result<String, String>)]) -> Action {
    Action::SiteExercises(SiteExercises::Files(
        files
            .iter()
            .map(|(f, t)| (f.to_string(), t.clone()))
            .collect(),
    ))
}

fn addressed(exercise: &str, embed: bool) -> Model {
    Model::new(
        catalog(),
        Start {
            exercise: Some(exercise.into()),
            embed,
            ..Start::default()
        },
    )
}

#[test]
fn an_addressed_site_exercise_is_awaited_then_opened_and_installed_first() {
    let mut model = addressed(MINE, true);
    assert!(
        model.exercise().is_none(),
        "nothing is open while it is awaited"
    );
    assert!(model.opening.is_none() && model.autosaved_exercise().is_none());
    assert_eq!(model.check_request(), None);
    act(
        &mut model,
        site(&[("exercises/mine.toml", Ok(authored(MINE, "My course")))]),
    );
    assert_eq!(model.exercise().map(|e| e.id.as_str()), Some(MINE));
    assert_eq!(
        model.opening.as_ref().map(|o| o.exercise.as_str()),
        Some(MINE)
    );
    let Request::Install { seq, file, .. } = last_request(&model) else {
        panic!("the exercise is installed in the worker");
    };
    assert_eq!(file, "exercises/mine.toml");
    assert_eq!(
        state_lessons(&model).last().map(|(l, _)| l.clone()),
        Some("My course".to_string()),
        "listed under its own lesson"
    );
    answer(
        &mut model,
        Response::Installed {
            seq,
            exercise: MINE.into(),
        },
    );
    assert!(model.notices.is_empty(), "{:?}", model.notices);
}

fn state_lessons(model: &Model) -> Vec<(String, Vec<usize>)> {
    crate::state::lessons(&model.exercises)
}

#[test]
fn an_id_the_site_does_not_have_is_named_and_an_embed_shows_nothing_else() {
    let mut embedded = addressed("no-such-exercise", true);
    act(&mut embedded, Action::SiteExercises(SiteExercises::NoIndex));
    assert!(embedded.exercise().is_none(), "no other exercise is shown");
    assert_eq!(embedded.missing.as_deref(), Some("no-such-exercise"));
    assert!(
        embedded.notices[0].contains("no exercise “no-such-exercise”"),
        "{:?}",
        embedded.notices
    );
    assert_eq!(embedded.check_request(), None);

    let mut page = addressed("no-such-exercise", false);
    act(
        &mut page,
        site(&[("exercises/mine.toml", Ok(authored(MINE, "X")))]),
    );
    assert!(page.notices[0].contains("no exercise “no-such-exercise” on this page"));
    assert!(!page.notices[0].contains('`'), "{:?}", page.notices);
    assert!(
        page.exercise().is_none(),
        "no other exercise is shown in its place"
    );
    assert_eq!(page.missing.as_deref(), Some("no-such-exercise"));
    assert_eq!(page.check_request(), None);
}

#[test]
fn a_bundled_id_opens_at_once_without_waiting_for_the_site() {
    let model = addressed(CLAIM, true);
    assert_eq!(model.exercise().map(|e| e.id.as_str()), Some(CLAIM));
    assert!(model.awaiting.is_none());
}

#[test]
fn a_link_to_a_site_exercise_opens_it_with_the_linked_version() {
    let fragment = share::encode(&Link {
        exercise: MINE.into(),
        ..link(&[("claim", "-- linked")], None, None)
    });
    let mut model = started(&fragment);
    assert!(model.exercise().is_none());
    act(
        &mut model,
        site(&[("exercises/mine.toml", Ok(authored(MINE, "X")))]),
    );
    let opening = model.opening.clone().expect("opening the site's exercise");
    assert_eq!(opening.exercise, MINE);
    assert_eq!(
        opening.link.map(|l| l.edits["claim"].clone()),
        Some("-- linked".to_string())
    );
}

#[test]
fn each_file_that_cannot_be_used_is_a_notice_and_the_rest_load() {
    let mut model = started("");
    let before = model.exercises.len();
    act(
        &mut model,
        site(&[
            ("exercises/a.toml", Ok(authored("a-one", "X"))),
            ("exercises/broken.toml", Ok("id = 3\n".into())),
            (
                "exercises/gone.toml",
                Err("the site does not serve it (404)".into()),
            ),
            ("exercises/twin.toml", Ok(authored(CLAIM, "X"))),
            ("exercises/b.toml", Ok(authored("b-two", "X"))),
        ]),
    );
    let ids: Vec<&str> = model.exercises[before..]
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(ids, ["a-one", "b-two"]);
    let notices = model.notices.join("\n");
    assert!(notices.contains("exercises/broken.toml:1:"), "{notices}");
    assert!(
        notices.contains("exercises/gone.toml could not be loaded"),
        "{notices}"
    );
    assert!(
        notices.contains("the id “claim-compare-and-set” is already another exercise's"),
        "{notices}"
    );
    assert_eq!(
        model.exercise().map(|e| e.id.as_str()),
        Some(CLAIM),
        "still open"
    );
}

#[test]
fn an_install_the_worker_refuses_is_a_notice_once() {
    let mut model = started("");
    act(
        &mut model,
        site(&[("exercises/a.toml", Ok(authored("a-one", "X")))]),
    );
    let seq = last_request(&model).seq();
    let failed = || Response::Failed {
        seq,
        message: "exercises/a.toml:12:1: schema: no such table".into(),
    };
    answer(&mut model, failed());
    answer(&mut model, failed()); // a restarted worker installs it again
    assert_eq!(model.notices.len(), 1, "{:?}", model.notices);
    assert!(model.notices[0].contains("exercises/a.toml:12:1"));
    assert!(model.notices[0].contains("cannot be checked"));
}

#[test]
fn an_unusable_index_is_a_notice() {
    let mut model = started("");
    act(
        &mut model,
        Action::SiteExercises(SiteExercises::Unusable(
            "exercises/index.toml: format 9 is not one this page reads".into(),
        )),
    );
    assert!(model.notices[0].contains("format 9"));
}

#[test]
fn a_linked_draft_with_a_hosted_id_is_shown_in_place_of_the_hosted_file() {
    let mut model = addressed(MINE, false);
    let draft = authored(MINE, "The draft's lesson");
    act(
        &mut model,
        site(&[(crate::author::link::LINKED_FILE, Ok(draft))]),
    );
    act(
        &mut model,
        site(&[("exercises/mine.toml", Ok(authored(MINE, "Hosted")))]),
    );
    let open = model.exercise().expect("the draft is open");
    assert_eq!(open.id, MINE);
    assert_eq!(
        open.lesson, "The draft's lesson",
        "the draft, not the hosted file"
    );
    assert_eq!(model.exercises.iter().filter(|e| e.id == MINE).count(), 1);
    let notices = model.notices.join("\n");
    assert!(
        notices
            .contains("the draft from the link, shown in place of the site's exercises/mine.toml"),
        "{notices}"
    );
    assert!(
        !notices.contains("left out"),
        "the hosted file is not blamed: {notices}"
    );
}
