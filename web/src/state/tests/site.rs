//! A site's own exercises: awaited when the address names one, read and
//! installed by the worker and listed as it answers, in the index's order,
//! each bad file a notice; an id the site does not have is named, never
//! silently swapped for another.

use super::*;
use fencelab_protocol::Installation;

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

/// What the worker answers to install `file`: the model's loader, and the
/// first exercise of an id installed (the page's list is the worker's).
fn installation(model: &Model, file: &str, source: &str) -> Installation {
    match Exercise::from_toml(file, source) {
        Err(error) => Installation::Unloadable(error),
        Ok(exercise) if model.exercises.iter().any(|e| e.id == exercise.id) => {
            Installation::IdTaken(exercise)
        }
        Ok(exercise) => Installation::Installed(exercise),
    }
}

/// The installs the page has sent and not yet seen answered, oldest first.
fn installs(model: &Model) -> Vec<(u64, String, String)> {
    model
        .outbox
        .iter()
        .filter_map(|request| match &**request {
            Request::Install { seq, file, source } => Some((*seq, file.clone(), source.clone())),
            _ => None,
        })
        .collect()
}

/// Answers every install waiting, in order, as the worker does.
fn installs_answered(model: &mut Model) {
    for (seq, file, source) in installs(model) {
        let installation = Box::new(installation(model, &file, &source));
        answer(model, Response::Installed { seq, installation });
    }
}

/// The site's files fetched and every install answered.
fn served(model: &mut Model, files: &[(&str, Result<String, String>)]) {
    act(model, site(files));
    installs_answered(model);
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
fn an_addressed_site_exercise_is_awaited_then_opened_once_the_worker_has_read_it() {
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
    let Request::Install { seq, file, source } = last_request(&model) else {
        panic!("the worker is asked to read and install the file");
    };
    assert_eq!(file, "exercises/mine.toml");
    assert!(model.exercise().is_none(), "not yet read");
    let installation = Box::new(installation(&model, &file, &source));
    answer(&mut model, Response::Installed { seq, installation });
    assert_eq!(model.exercise().map(|e| e.id.as_str()), Some(MINE));
    assert_eq!(
        model.opening.as_ref().map(|o| o.exercise.as_str()),
        Some(MINE)
    );
    assert_eq!(
        state_lessons(&model).last().map(|(l, _)| l.clone()),
        Some("My course".to_string()),
        "listed under its own lesson"
    );
    assert!(
        installs(&model).is_empty(),
        "an answered install is not kept"
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
    served(
        &mut page,
        &[("exercises/mine.toml", Ok(authored(MINE, "X")))],
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
    served(
        &mut model,
        &[("exercises/mine.toml", Ok(authored(MINE, "X")))],
    );
    let opening = model.opening.clone().expect("opening the site's exercise");
    assert_eq!(opening.exercise, MINE);
    assert_eq!(
        opening.link.map(|l| l.edits["claim"].clone()),
        Some("-- linked".to_string())
    );
}

/// Whatever order the answers come in, the files are listed and their
/// notices said in the index's order.
#[test]
fn each_file_that_cannot_be_used_is_a_notice_and_the_rest_load_in_order() {
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
    assert!(model.notices.is_empty(), "nothing is said before its turn");
    for (seq, file, source) in installs(&model).into_iter().rev() {
        let installation = Box::new(installation(&model, &file, &source));
        answer(&mut model, Response::Installed { seq, installation });
    }
    let ids: Vec<&str> = model.exercises[before..]
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(ids, ["a-one", "b-two"]);
    assert_eq!(model.notices.len(), 3, "{:?}", model.notices);
    assert!(
        model.notices[0].starts_with("exercises/broken.toml:1:"),
        "{:?}",
        model.notices
    );
    assert!(
        model.notices[1].contains("exercises/gone.toml could not be loaded"),
        "{:?}",
        model.notices
    );
    assert!(
        model.notices[2].contains("the id “claim-compare-and-set” is already another exercise's"),
        "{:?}",
        model.notices
    );
    assert_eq!(
        model.exercise().map(|e| e.id.as_str()),
        Some(CLAIM),
        "still open"
    );
}

#[test]
fn a_schema_sqlite_refuses_is_a_notice_once_and_a_failed_install_leaves_its_file_out() {
    let mut model = started("");
    let before = model.exercises.len();
    act(
        &mut model,
        site(&[
            ("exercises/a.toml", Ok(authored("a-one", "X"))),
            ("exercises/b.toml", Ok(authored("b-two", "X"))),
        ]),
    );
    let sent = installs(&model);
    let (seq, file, source) = sent[0].clone();
    let schema_failed = || Response::Installed {
        seq,
        installation: Box::new(Installation::SchemaFailed {
            exercise: Exercise::from_toml(&file, &source).unwrap(),
            error: fencelab_model::LoadError {
                file: file.clone(),
                line: 12,
                column: 1,
                field: "schema".into(),
                message: "no such table".into(),
            },
        }),
    };
    answer(&mut model, schema_failed());
    answer(&mut model, schema_failed()); // a restarted worker installs it again
    assert_eq!(model.notices.len(), 1, "{:?}", model.notices);
    assert!(model.notices[0].contains("exercises/a.toml:12:1"));
    assert!(model.notices[0].contains("cannot be checked"));
    assert_eq!(model.exercises.len(), before + 1, "listed, as before");
    answer(
        &mut model,
        Response::Failed {
            seq: sent[1].0,
            message: "the checker was restarted".into(),
        },
    );
    assert!(
        model.notices[1]
            .contains("exercises/b.toml could not be loaded (the checker was restarted)"),
        "{:?}",
        model.notices
    );
    assert_eq!(model.exercises.len(), before + 1);
}

#[test]
fn a_worker_that_fails_altogether_ends_the_wait_for_the_site() {
    let mut model = addressed(MINE, false);
    act(
        &mut model,
        site(&[("exercises/mine.toml", Ok(authored(MINE, "X")))]),
    );
    answer(
        &mut model,
        Response::Failed {
            seq: 0,
            message: "the checking worker could not start".into(),
        },
    );
    assert!(model.site_loaded);
    assert_eq!(model.missing.as_deref(), Some(MINE));
    let notices = model.notices.join("\n");
    assert!(
        notices.contains(
            "exercises/mine.toml could not be loaded (the checking worker could not start)"
        ),
        "{notices}"
    );
}

/// The index goes to the worker, which reads it; its files are fetched
/// once it has, and an index it refuses is a notice.
#[test]
fn the_index_is_read_by_the_worker_then_its_files_are_fetched() {
    let mut model = started("");
    let text = "format = 1\nexercises = [\"a.toml\", \"b.toml\"]\n";
    act(
        &mut model,
        Action::SiteExercises(SiteExercises::Index(text.into())),
    );
    let Request::Index { seq, source } = last_request(&model) else {
        panic!("the worker reads the index");
    };
    assert_eq!(source, text);
    assert_eq!(model.site_files, None);
    assert!(!model.site_loaded);
    answer(
        &mut model,
        Response::Indexed {
            seq,
            result: fencelab_model::site::SiteIndex::new(vec!["a.toml".into(), "b.toml".into()]),
        },
    );
    assert_eq!(
        model.site_files.as_deref().map(Vec::as_slice),
        Some(
            [
                "exercises/a.toml".to_string(),
                "exercises/b.toml".to_string()
            ]
            .as_slice()
        )
    );
    act(
        &mut model,
        Action::SiteExercises(SiteExercises::Index("format = 9".into())),
    );
    let seq = last_request(&model).seq();
    answer(
        &mut model,
        Response::Indexed {
            seq,
            result: Err(fencelab_model::site::IndexError(
                "format 9 is not one this page reads (it reads format 1)".into(),
            )),
        },
    );
    assert_eq!(
        model.notices,
        [
            "This site's own exercises could not be loaded: exercises/index.toml: format 9 is not one this page reads (it reads format 1)."
        ]
    );
    assert!(model.site_loaded);
}

/// An exercise link names its exercise once the worker has read it: then
/// it opens; a link that does not load opens what the address named
/// besides.
#[test]
fn an_exercise_link_opens_its_exercise_once_read() {
    let linked = |exercise: Option<&str>| {
        Model::new(
            catalog(),
            Start {
                exercise: exercise.map(str::to_string),
                exercise_link: true,
                ..Start::default()
            },
        )
    };
    let mut model = linked(None);
    assert!(
        model.exercise().is_none(),
        "nothing opens before the link is read"
    );
    served(
        &mut model,
        &[(
            crate::author::link::LINKED_FILE,
            Ok(authored(MINE, "Linked")),
        )],
    );
    assert_eq!(model.exercise().map(|e| e.id.as_str()), Some(MINE));

    let mut broken = linked(Some("generation-per-resource"));
    let second = broken.exercises[1].id.clone();
    let mut broken_second = linked(Some(&second));
    served(
        &mut broken,
        &[(crate::author::link::LINKED_FILE, Ok("id = 3".into()))],
    );
    assert!(
        broken.notices[0].starts_with("linked-exercise.toml:1:"),
        "{:?}",
        broken.notices
    );
    assert_eq!(broken.exercise().map(|e| e.id.as_str()), None);
    assert_eq!(broken.missing.as_deref(), Some("generation-per-resource"));
    served(
        &mut broken_second,
        &[(
            crate::author::link::LINKED_FILE,
            Err("this exercise link is damaged".into()),
        )],
    );
    assert_eq!(
        broken_second.exercise().map(|e| e.id.as_str()),
        Some(second.as_str())
    );
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
    served(&mut model, &[(crate::author::link::LINKED_FILE, Ok(draft))]);
    served(
        &mut model,
        &[("exercises/mine.toml", Ok(authored(MINE, "Hosted")))],
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
