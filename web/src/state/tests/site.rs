//! A site's own exercises: awaited when the address names one, read and
//! installed by the worker and listed as it answers, in the index's order,
//! each bad file a notice; an id the site does not have is named, never
//! silently swapped for another.

use super::*;
use fencelab_protocol::{Installation, LeftOut, Listed};

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

/// The worker's list of ids, as far as these tests need it (the rule is
/// web/worker/src/site.rs's): the bundled ids, then the first file of each
/// id, each with the file it came from.
struct SiteWorker(Vec<(String, Option<String>)>);

impl Default for SiteWorker {
    fn default() -> SiteWorker {
        let bundled = catalog().unwrap().into_iter();
        SiteWorker(bundled.map(|exercise| (exercise.id, None)).collect())
    }
}

impl SiteWorker {
    /// What the worker answers to install `file`: the model's loader, and
    /// the first exercise of an id listed.
    fn installation(&mut self, file: &str, source: &str) -> Installation {
        let exercise = match Exercise::from_toml(file, source) {
            Err(error) => return Installation::LeftOut(LeftOut::Unloadable(error)),
            Ok(exercise) => exercise,
        };
        if let Some((id, holder)) = self.0.iter().find(|(id, _)| *id == exercise.id) {
            let (id, holder) = (id.clone(), holder.clone());
            return Installation::LeftOut(LeftOut::IdTaken { id, holder });
        }
        self.0.push((exercise.id.clone(), Some(file.to_string())));
        listed(exercise)
    }
}

fn listed(exercise: Exercise) -> Installation {
    Installation::Listed(Listed {
        exercise,
        schema_error: None,
    })
}

/// The installs the page has sent and not yet seen answered, oldest first.
fn installs(playground: &Playground) -> Vec<(u64, String, String)> {
    playground
        .outbox
        .iter()
        .filter_map(|request| match &**request {
            Request::Install { seq, file, source } => Some((*seq, file.clone(), source.clone())),
            _ => None,
        })
        .collect()
}

/// Answers every install waiting, in order, as the worker does.
fn installs_answered(worker: &mut SiteWorker, playground: &mut Playground) {
    for (seq, file, source) in installs(playground) {
        let installation = Box::new(worker.installation(&file, &source));
        answer(playground, Response::Installed { seq, installation });
    }
}

/// The site's files fetched and every install answered.
fn served(
    worker: &mut SiteWorker,
    playground: &mut Playground,
    files: &[(&str, Result<String, String>)],
) {
    act(playground, site(files));
    installs_answered(worker, playground);
}

fn addressed(exercise: &str, embed: bool) -> Playground {
    Playground::new(
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
    let mut playground = addressed(MINE, true);
    assert!(
        playground.exercise().is_none(),
        "nothing is open while it is awaited"
    );
    assert!(playground.open.opening.is_none() && playground.autosaved_exercise().is_none());
    assert_eq!(playground.check_request(), None);
    act(
        &mut playground,
        site(&[("exercises/mine.toml", Ok(authored(MINE, "My course")))]),
    );
    let Request::Install { seq, file, source } = last_request(&playground) else {
        panic!("the worker is asked to read and install the file");
    };
    assert_eq!(file, "exercises/mine.toml");
    assert!(playground.exercise().is_none(), "not yet read");
    let installation = Box::new(SiteWorker::default().installation(&file, &source));
    answer(&mut playground, Response::Installed { seq, installation });
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(MINE));
    assert_eq!(
        playground
            .open
            .opening
            .as_ref()
            .map(|o| o.exercise.as_str()),
        Some(MINE)
    );
    assert_eq!(
        state_lessons(&playground).last().map(|(l, _)| l.clone()),
        Some("My course".to_string()),
        "listed under its own lesson"
    );
    assert!(
        installs(&playground).is_empty(),
        "an answered install is not kept"
    );
    assert!(playground.notices.is_empty(), "{:?}", playground.notices);
}

fn state_lessons(playground: &Playground) -> Vec<(String, Vec<usize>)> {
    crate::state::lessons(&playground.exercises)
}

#[test]
fn an_id_the_site_does_not_have_is_named_and_an_embed_shows_nothing_else() {
    let mut embedded = addressed("no-such-exercise", true);
    act(&mut embedded, Action::SiteExercises(SiteExercises::NoIndex));
    assert!(embedded.exercise().is_none(), "no other exercise is shown");
    assert_eq!(embedded.page, Page::Missing("no-such-exercise".into()));
    assert_eq!(
        embedded.notices[0],
        Notice::Missing {
            exercise: "no-such-exercise".into(),
            embed: true
        }
    );
    assert_eq!(embedded.check_request(), None);

    let mut page = addressed("no-such-exercise", false);
    served(
        &mut SiteWorker::default(),
        &mut page,
        &[("exercises/mine.toml", Ok(authored(MINE, "X")))],
    );
    assert_eq!(
        page.notices[0],
        Notice::Missing {
            exercise: "no-such-exercise".into(),
            embed: false
        }
    );
    assert!(
        page.exercise().is_none(),
        "no other exercise is shown in its place"
    );
    assert_eq!(page.page, Page::Missing("no-such-exercise".into()));
    assert_eq!(page.check_request(), None);
}

#[test]
fn a_bundled_id_opens_at_once_without_waiting_for_the_site() {
    let playground = addressed(CLAIM, true);
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(CLAIM));
    assert!(!matches!(playground.page, Page::Awaiting(_)));
}

#[test]
fn a_link_to_a_site_exercise_opens_it_with_the_linked_version() {
    let fragment = share::encode(&Link {
        exercise: MINE.into(),
        ..link(&[("claim", "-- linked")], None, None)
    });
    let mut playground = started(&fragment);
    assert!(playground.exercise().is_none());
    served(
        &mut SiteWorker::default(),
        &mut playground,
        &[("exercises/mine.toml", Ok(authored(MINE, "X")))],
    );
    let opening = playground
        .open
        .opening
        .clone()
        .expect("opening the site's exercise");
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
    let mut playground = started("");
    let before = playground.exercises.len();
    act(
        &mut playground,
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
    assert!(
        playground.notices.is_empty(),
        "nothing is said before its turn"
    );
    // The worker answers in order; the page hears them in reverse.
    let mut worker = SiteWorker::default();
    let answers: Vec<_> = installs(&playground)
        .into_iter()
        .map(|(seq, file, source)| (seq, worker.installation(&file, &source)))
        .collect();
    for (seq, installation) in answers.into_iter().rev() {
        let installation = Box::new(installation);
        answer(&mut playground, Response::Installed { seq, installation });
    }
    let ids: Vec<&str> = playground.exercises[before..]
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(ids, ["a-one", "b-two"]);
    assert_eq!(playground.notices.len(), 3, "{:?}", playground.notices);
    assert!(
        matches!(&playground.notices[..], [
            Notice::Unloadable(error),
            Notice::FileFailed { file: gone, .. },
            Notice::IdTaken { id, .. },
        ] if (error.file.as_str(), error.line, gone.as_str(), id.as_str())
            == ("exercises/broken.toml", 1, "exercises/gone.toml", CLAIM)),
        "{:?}",
        playground.notices
    );
    assert_eq!(
        playground.exercise().map(|e| e.id.as_str()),
        Some(CLAIM),
        "still open"
    );
}

#[test]
fn a_schema_sqlite_refuses_is_a_notice_once_and_a_failed_install_leaves_its_file_out() {
    let mut playground = started("");
    let before = playground.exercises.len();
    act(
        &mut playground,
        site(&[
            ("exercises/a.toml", Ok(authored("a-one", "X"))),
            ("exercises/b.toml", Ok(authored("b-two", "X"))),
        ]),
    );
    let sent = installs(&playground);
    let (seq, file, source) = sent[0].clone();
    let schema_failed = || Response::Installed {
        seq,
        installation: Box::new(Installation::Listed(Listed {
            exercise: Exercise::from_toml(&file, &source).unwrap(),
            schema_error: Some(fencelab_model::LoadError {
                file: file.clone(),
                line: 12,
                column: 1,
                field: "schema".into(),
                message: "no such table".into(),
            }),
        })),
    };
    answer(&mut playground, schema_failed());
    answer(&mut playground, schema_failed()); // a restarted worker installs it again
    assert_eq!(playground.notices.len(), 1, "{:?}", playground.notices);
    assert!(
        matches!(&playground.notices[0], Notice::Unchecked(error)
            if (error.file.as_str(), error.line, error.column) == ("exercises/a.toml", 12, 1)),
        "{:?}",
        playground.notices
    );
    assert_eq!(playground.exercises.len(), before + 1, "listed, as before");
    answer(
        &mut playground,
        Response::Failed {
            seq: sent[1].0,
            message: "the checker was restarted".into(),
        },
    );
    assert_eq!(
        playground.notices[1],
        Notice::FileFailed {
            file: "exercises/b.toml".into(),
            message: "the checker was restarted".into()
        }
    );
    assert_eq!(playground.exercises.len(), before + 1);
}

#[test]
fn a_worker_that_fails_altogether_ends_the_wait_for_the_site() {
    let mut playground = addressed(MINE, false);
    act(
        &mut playground,
        site(&[("exercises/mine.toml", Ok(authored(MINE, "X")))]),
    );
    answer(
        &mut playground,
        Response::Failed {
            seq: 0,
            message: "the checking worker could not start".into(),
        },
    );
    assert!(playground.site_loaded);
    assert_eq!(playground.page, Page::Missing(MINE.into()));
    assert!(
        playground.notices.contains(&Notice::FileFailed {
            file: "exercises/mine.toml".into(),
            message: "the checking worker could not start".into()
        }),
        "{:?}",
        playground.notices
    );
}

/// The index goes to the worker, which reads it; its files are fetched
/// once it has, and an index it refuses is a notice.
#[test]
fn the_index_is_read_by_the_worker_then_its_files_are_fetched() {
    let mut playground = started("");
    let text = "format = 1\nexercises = [\"a.toml\", \"b.toml\"]\n";
    act(
        &mut playground,
        Action::SiteExercises(SiteExercises::Index(text.into())),
    );
    let Request::Index { seq, source } = last_request(&playground) else {
        panic!("the worker reads the index");
    };
    assert_eq!(source, text);
    assert_eq!(playground.site_files, None);
    assert!(!playground.site_loaded);
    answer(
        &mut playground,
        Response::Indexed {
            seq,
            result: fencelab_model::site::SiteIndex::new(vec!["a.toml".into(), "b.toml".into()]),
        },
    );
    assert_eq!(
        playground.site_files.as_deref().map(Vec::as_slice),
        Some(
            [
                "exercises/a.toml".to_string(),
                "exercises/b.toml".to_string()
            ]
            .as_slice()
        )
    );
    act(
        &mut playground,
        Action::SiteExercises(SiteExercises::Index("format = 9".into())),
    );
    let seq = last_request(&playground).seq();
    answer(
        &mut playground,
        Response::Indexed {
            seq,
            result: Err(fencelab_model::site::IndexError(
                "format 9 is not one this page reads (it reads format 1)".into(),
            )),
        },
    );
    assert_eq!(
        playground.notices,
        [Notice::SiteUnusable(
            "exercises/index.toml: format 9 is not one this page reads (it reads format 1)".into()
        )]
    );
    assert!(playground.site_loaded);
}

/// An exercise link names its exercise once the worker has read it: then
/// it opens; a link that does not load opens what the address named
/// besides.
#[test]
fn an_exercise_link_opens_its_exercise_once_read() {
    let linked = |exercise: Option<&str>| {
        Playground::new(
            catalog(),
            Start {
                exercise: exercise.map(str::to_string),
                exercise_link: true,
                ..Start::default()
            },
        )
    };
    let mut playground = linked(None);
    assert!(
        playground.exercise().is_none(),
        "nothing opens before the link is read"
    );
    served(
        &mut SiteWorker::default(),
        &mut playground,
        &[(
            crate::author::link::LINKED_FILE,
            Ok(authored(MINE, "Linked")),
        )],
    );
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(MINE));

    let mut broken = linked(Some("generation-per-resource"));
    let second = broken.exercises[1].id.clone();
    let mut broken_second = linked(Some(&second));
    served(
        &mut SiteWorker::default(),
        &mut broken,
        &[(crate::author::link::LINKED_FILE, Ok("id = 3".into()))],
    );
    assert!(
        matches!(&broken.notices[0], Notice::Unloadable(error)
            if (error.file.as_str(), error.line) == (crate::author::link::LINKED_FILE, 1)),
        "{:?}",
        broken.notices
    );
    assert_eq!(broken.exercise().map(|e| e.id.as_str()), None);
    assert_eq!(broken.page, Page::Missing("generation-per-resource".into()));
    served(
        &mut SiteWorker::default(),
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
    let mut playground = started("");
    act(
        &mut playground,
        Action::SiteExercises(SiteExercises::Unusable(
            "exercises/index.toml: format 9 is not one this page reads".into(),
        )),
    );
    assert!(
        matches!(&playground.notices[0], Notice::SiteUnusable(why) if why.contains("format 9")),
        "{:?}",
        playground.notices
    );
}

#[test]
fn a_linked_draft_with_a_hosted_id_is_shown_in_place_of_the_hosted_file() {
    let mut playground = addressed(MINE, false);
    let draft = authored(MINE, "The draft's lesson");
    let mut worker = SiteWorker::default();
    served(
        &mut worker,
        &mut playground,
        &[(crate::author::link::LINKED_FILE, Ok(draft))],
    );
    served(
        &mut worker,
        &mut playground,
        &[("exercises/mine.toml", Ok(authored(MINE, "Hosted")))],
    );
    let open = playground.exercise().expect("the draft is open");
    assert_eq!(open.id, MINE);
    assert_eq!(
        open.lesson, "The draft's lesson",
        "the draft, not the hosted file"
    );
    assert_eq!(
        playground.exercises.iter().filter(|e| e.id == MINE).count(),
        1
    );
    assert!(
        playground.notices.contains(&Notice::DraftInPlace {
            file: "exercises/mine.toml".into(),
            id: MINE.into()
        }),
        "{:?}",
        playground.notices
    );
    assert!(
        !playground
            .notices
            .iter()
            .any(|n| matches!(n, Notice::IdTaken { .. } | Notice::Unloadable(_))),
        "the hosted file is not blamed: {:?}",
        playground.notices
    );
}

/// A site exercise's page as the build wrote it: the site's exercise
/// listed after the bundled ones, and carried as the loaded form the
/// worker installs it from.
fn a_site_exercises_page(mine: &Exercise) -> Playground {
    let mut report = claim_report(true);
    report.exercise = MINE.into();
    let page = crate::prerendered::Prerendered {
        exercise: MINE.into(),
        report,
    };
    let carried = serde_json::to_string(&Ok::<_, fencelab_model::LoadError>([mine])).unwrap();
    Playground::prerendered(catalog(), &page, vec![(mine.clone(), carried)])
        .expect("its exercise is listed")
}

#[test]
fn a_site_exercises_page_is_open_at_once_and_the_sites_file_takes_the_place_of_its_copy() {
    let source = authored(MINE, "My course");
    let mine = Exercise::from_toml("exercises/mine.toml", &source).expect("loads");
    let mut playground = a_site_exercises_page(&mine);
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(MINE));
    // The worker installs the page's copy before anything else is asked.
    let Request::Install {
        seq,
        file,
        source: carried,
    } = &*playground.outbox[0]
    else {
        panic!(
            "the page's copy is installed first: {:?}",
            playground.outbox
        );
    };
    assert_eq!(
        file,
        &format!("{MINE}{}", fencelab_protocol::PRERENDERED_SUFFIX)
    );
    assert_eq!(
        fencelab_model::bundled::from_loaded_json(carried),
        Ok(vec![mine.clone()])
    );
    let seq = *seq;
    answer(
        &mut playground,
        Response::Installed {
            seq,
            installation: Box::new(listed(mine.clone())),
        },
    );
    assert!(installs(&playground).is_empty(), "answered, not kept");
    act(
        &mut playground,
        Action::Hydrated {
            loaded: Loaded::Nothing,
            theme: Theme::System,
        },
    );

    // The site's own file, the same as the page's copy: nothing changes.
    act(
        &mut playground,
        site(&[("exercises/mine.toml", Ok(source.clone()))]),
    );
    let Request::Install { seq, .. } = last_request(&playground) else {
        panic!("the site's file is installed");
    };
    answer(
        &mut playground,
        Response::Installed {
            seq,
            installation: Box::new(Installation::Replaced(Listed {
                exercise: mine.clone(),
                schema_error: None,
            })),
        },
    );
    assert!(playground.notices.is_empty(), "{:?}", playground.notices);
    assert_eq!(
        playground.exercises.iter().filter(|e| e.id == MINE).count(),
        1
    );
    assert_eq!(playground.exercise().map(|e| e.id.as_str()), Some(MINE));
    assert_eq!(playground.open.opening, None, "not opened again");
}

/// A page built before the file changed: the site's file, newer, takes the
/// copy's place and is opened afresh; a later file of the id is another
/// exercise's, as ever.
#[test]
fn a_sites_file_newer_than_its_page_takes_the_copys_place_and_is_opened_afresh() {
    let source = authored(MINE, "My course");
    let mine = Exercise::from_toml("exercises/mine.toml", &source).expect("loads");
    let mut playground = a_site_exercises_page(&mine);
    let newer_source = source.replacen("title = \"", "title = \"Newer: ", 1);
    let newer = Exercise::from_toml("exercises/mine.toml", &newer_source).expect("loads");
    act(
        &mut playground,
        site(&[
            ("exercises/mine.toml", Ok(newer_source.clone())),
            ("exercises/again.toml", Ok(newer_source)),
        ]),
    );
    for (seq, file, _) in installs(&playground) {
        let installation = match file.as_str() {
            "exercises/mine.toml" => Installation::Replaced(Listed {
                exercise: newer.clone(),
                schema_error: None,
            }),
            "exercises/again.toml" => Installation::LeftOut(LeftOut::IdTaken {
                id: MINE.into(),
                holder: Some("exercises/mine.toml".into()),
            }),
            _ => listed(mine.clone()),
        };
        answer(
            &mut playground,
            Response::Installed {
                seq,
                installation: Box::new(installation),
            },
        );
    }
    let listed: Vec<&Exercise> = playground
        .exercises
        .iter()
        .filter(|e| e.id == MINE)
        .collect();
    assert_eq!(listed, [&newer]);
    assert_eq!(
        playground
            .open
            .opening
            .as_ref()
            .map(|o| o.exercise.as_str()),
        Some(MINE),
        "opened afresh"
    );
    assert_eq!(playground.notices.len(), 1, "{:?}", playground.notices);
    assert_eq!(
        playground.notices[0],
        Notice::IdTaken {
            file: "exercises/again.toml".into(),
            id: MINE.into()
        }
    );
}

#[test]
fn a_catalogue_that_cannot_be_read_fails_the_page_unless_a_site_exercise_it_awaits_opens() {
    let unread = || {
        Err(fencelab_model::LoadError {
            file: "catalog.json".into(),
            line: 1,
            column: 1,
            field: "format".into(),
            message: "not JSON".into(),
        })
    };
    let failed = Playground::new(unread(), Start::default());
    assert_eq!(failed.page, Page::Failed);
    assert!(failed.exercise().is_none() && failed.settled());
    assert!(failed.catalogue_error.is_some());
    // The address names a site exercise: awaited, then opened, as with a
    // catalogue read.
    let mut awaiting = Playground::new(
        unread(),
        Start {
            exercise: Some(MINE.into()),
            ..Start::default()
        },
    );
    assert!(matches!(awaiting.page, Page::Awaiting(_)));
    served(
        &mut SiteWorker(Vec::new()),
        &mut awaiting,
        &[("exercises/mine.toml", Ok(authored(MINE, "My course")))],
    );
    assert_eq!(awaiting.page, Page::Open);
    assert_eq!(awaiting.exercise().map(|e| e.id.as_str()), Some(MINE));
}
