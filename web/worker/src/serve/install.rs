//! Installing a site's exercise file, or a prerendered page's copy of
//! one, where the site's list puts it (crate::site): the exercise the
//! page lists, installed unless its schema fails on SQLite. Must never
//! install an exercise the list leaves out.

use super::Server;
use crate::site::Place;
use fencelab_model::exercise::Unchecked;
use fencelab_protocol::{Installation, LeftOut, Listed};
use std::rc::Rc;

impl Server {
    /// Lists an exercise that is not bundled, read from `file` as
    /// `fencelab check` reads a file, where the site's list puts it
    /// ([`crate::site::SiteList::enter`]), and installs it unless its schema fails on
    /// SQLite; the page lists what this answers. The schema is tried only
    /// for an exercise that is listed.
    pub(super) fn install(
        &mut self,
        file: &str,
        read: Unchecked,
        provisional: bool,
    ) -> Installation {
        let Unchecked { exercise, schema } = read;
        let place = self.site.enter(&exercise.id, file, provisional);
        if let Place::Taken(holder) = place {
            let id = exercise.id;
            return Installation::LeftOut(LeftOut::IdTaken { id, holder });
        }
        if place == Place::Replacing {
            self.forget(&exercise.id);
        }
        let schema_error = match fencelab_core::exercise::try_schema(&exercise) {
            Ok(()) => {
                self.exercises.push(Rc::new(exercise.clone()));
                None
            }
            Err(error) => Some(schema.error("schema", error.to_string())),
        };
        let listed = Listed {
            exercise,
            schema_error,
        };
        match place {
            Place::Replacing => Installation::Replaced(listed),
            _ => Installation::Listed(listed),
        }
    }

    /// Lists, provisionally, the one exercise of a prerendered page's
    /// loaded form (`source`), under `file` in errors: its site file
    /// replaces it once installed.
    pub(super) fn install_prerendered(&mut self, file: &str, source: &str) -> Installation {
        // The whole text is one place: its errors and its schema's.
        let schema = fencelab_model::exercise::FilePlace {
            file: file.to_string(),
            line: 0,
            column: 0,
        };
        let unloadable = |message| {
            Installation::LeftOut(LeftOut::Unloadable(schema.error("(loaded form)", message)))
        };
        let mut exercises = match fencelab_model::bundled::from_loaded_json(source) {
            Ok(exercises) => exercises,
            Err(error) => return unloadable(error.message),
        };
        let (Some(exercise), None) = (exercises.pop(), exercises.pop()) else {
            return unloadable("it holds no exercise, or more than one".into());
        };
        self.install(file, Unchecked { exercise, schema }, true)
    }

    /// Drops what is kept of the exercise `id` (its context, its kept
    /// checker, its last report) and the exercise itself, which is being
    /// replaced.
    fn forget(&mut self, id: &str) {
        self.exercises.retain(|e| e.id != id);
        self.contexts.remove(id);
        self.kept.forget(id);
        self.last.forget(id);
    }
}

#[cfg(test)]
mod tests {
    use crate::serve::Server;
    use crate::serve::testing::*;
    use fencelab_protocol::{Installation, LeftOut, Listed, PRERENDERED_SUFFIX, Request, Response};
    use std::rc::Rc;

    /// An installed exercise as the page is sent it: the loaded exercise.
    fn installed(response: Response) -> Installation {
        match response {
            Response::Installed { installation, .. } => *installation,
            other => panic!("an install's answer, not {other:?}"),
        }
    }

    /// An install's answer when the id is `holder`'s (`None`: bundled).
    fn taken(id: &str, holder: Option<&str>) -> Installation {
        Installation::LeftOut(LeftOut::IdTaken {
            id: id.to_string(),
            holder: holder.map(str::to_string),
        })
    }

    /// A site exercise's page carries its loaded form, which the worker
    /// installs at once, provisionally: it is checked before the site's
    /// files arrive, and the site's own file of that id, installed later,
    /// takes its place (a page built before the file changed), where any
    /// other second file of an id is refused.
    #[test]
    fn a_prerendered_site_exercise_is_checked_at_once_and_its_site_file_replaces_it() {
        let mut server = Server::new(exercises());
        let file = |seq, title| Request::Install {
            seq,
            file: "exercises/mine.toml".into(),
            source: authored_claim("my-course-claim", title),
        };
        let built = installed(answer_of(&mut server, file(1, "Built")));
        let Installation::Listed(Listed {
            exercise: built,
            schema_error: None,
        }) = built
        else {
            panic!("installed: {built:?}");
        };
        let mut server = Server::new(exercises());
        let carried = serde_json::to_string(&Ok::<_, fencelab_model::LoadError>([&built])).unwrap();
        let prerendered = |seq, source: &str| Request::Install {
            seq,
            file: format!("my-course-claim{PRERENDERED_SUFFIX}"),
            source: source.to_string(),
        };
        // Answered at once: no reader is asked.
        let first = installed(answer_of(&mut server, prerendered(1, &carried)));
        assert_eq!(
            first,
            Installation::Listed(Listed {
                exercise: built.clone(),
                schema_error: None
            })
        );
        let (report, _) = run_job(&mut job_of(
            &mut server,
            Request::Check {
                seq: 2,
                exercise: "my-course-claim".into(),
                edits: starts(&built),
            },
        ));
        assert!(matches!(report, Response::Checked { .. }), "{report:?}");
        let again = installed(answer_of(&mut server, prerendered(3, &carried)));
        assert_eq!(
            again,
            taken(
                "my-course-claim",
                Some(&format!("my-course-claim{PRERENDERED_SUFFIX}"))
            )
        );

        // The site's file, changed since the page was built, replaces it.
        let newer = installed(answer_of(&mut server, file(4, "Newer")));
        let Installation::Replaced(Listed {
            exercise: newer,
            schema_error: None,
        }) = newer
        else {
            panic!("the site's file replaces the page's copy: {newer:?}");
        };
        assert!(newer.title.starts_with("Newer: "));
        let mine: Vec<_> = server
            .exercises
            .iter()
            .filter(|e| e.id == "my-course-claim")
            .collect();
        assert_eq!(mine.len(), 1);
        assert_eq!(**mine[0], newer);
        let later = installed(answer_of(&mut server, file(5, "Later")));
        assert_eq!(later, taken("my-course-claim", Some("exercises/mine.toml")));

        // Damaged or foreign forms are refused, naming the file.
        for source in ["{\"Ok\": [", "{\"Ok\": []}", "not json"] {
            let refused = installed(answer_of(&mut server, prerendered(6, source)));
            let Installation::LeftOut(LeftOut::Unloadable(error)) = refused else {
                panic!("refused: {refused:?}");
            };
            assert_eq!(error.file, format!("my-course-claim{PRERENDERED_SUFFIX}"));
        }
        let bundled =
            serde_json::to_string(&Ok::<_, fencelab_model::LoadError>([&exercises()[0]])).unwrap();
        let refused = installed(answer_of(&mut server, prerendered(7, &bundled)));
        assert_eq!(refused, taken(&exercises()[0].id, None), "a bundled id");
    }

    /// The first exercise of an id is installed and checked like a bundled
    /// one; a later file of the same id is loaded and answered but not
    /// installed, as the page leaves it out (the two lists stay equal).
    #[test]
    fn an_installed_exercise_is_checked_like_a_bundled_one_and_its_id_stays_its_own() {
        let mut server = Server::new(exercises());
        let install = |server: &mut Server, seq, title| {
            installed(answer_of(
                server,
                Request::Install {
                    seq,
                    file: "exercises/mine.toml".into(),
                    source: authored_claim("my-course-claim", title),
                },
            ))
        };
        let first = install(&mut server, 1, "First");
        let Installation::Listed(Listed {
            exercise: loaded,
            schema_error: None,
        }) = &first
        else {
            panic!("installed: {first:?}");
        };
        assert_eq!(loaded.id, "my-course-claim");
        assert!(loaded.title.starts_with("First: "));
        let second = install(&mut server, 2, "Second");
        assert_eq!(
            second,
            taken("my-course-claim", Some("exercises/mine.toml"))
        );
        assert_eq!(server.exercises.len(), exercises().len() + 1);
        let mine = Rc::clone(server.exercises.last().unwrap());
        assert_eq!(&*mine, loaded, "the page lists what the worker checks");
        let mut job = job_of(
            &mut server,
            Request::Check {
                seq: 3,
                exercise: "my-course-claim".into(),
                edits: starts(&mine),
            },
        );
        let report = loop {
            if let Some(response) = job.piece() {
                break response;
            }
        };
        let Response::Checked { seq: 3, report } = report else {
            panic!("the installed exercise's report: {report:?}");
        };
        assert_eq!(report.exercise, "my-course-claim");
        assert_eq!(report.scenarios.len(), mine.scenarios.len());
        assert!(
            report.passed < mine.scenarios.len(),
            "the naive start fails some scenario"
        );
    }

    #[test]
    fn an_install_never_replaces_a_bundled_exercise_and_names_what_is_wrong() {
        let mut server = Server::new(exercises());
        let install = |server: &mut Server, seq, source: String| {
            installed(answer_of(
                server,
                Request::Install {
                    seq,
                    file: "exercises/bad.toml".into(),
                    source,
                },
            ))
        };
        let mine = install(&mut server, 1, authored_claim(CLAIM, "Mine"));
        assert_eq!(mine, taken(CLAIM, None));
        let unloadable = install(&mut server, 2, "id = 3".into());
        assert!(
            matches!(&unloadable, Installation::LeftOut(LeftOut::Unloadable(e))
                if e.file == "exercises/bad.toml" && e.line == 1),
            "{unloadable:?}"
        );
        let bad_schema =
            authored_claim("bad-schema", "Bad").replacen("CREATE TABLE", "CREATE TABEL", 1);
        let failed = install(&mut server, 3, bad_schema);
        let Installation::Listed(Listed {
            exercise,
            schema_error: Some(error),
        }) = &failed
        else {
            panic!("a schema SQLite refuses: {failed:?}");
        };
        assert_eq!(exercise.id, "bad-schema");
        assert_eq!(error.field, "schema");
        assert_eq!(error.file, "exercises/bad.toml");
        assert_eq!(
            server.exercises.len(),
            exercises().len(),
            "listed, never installed"
        );
        let again = install(&mut server, 4, authored_claim("bad-schema", "Again"));
        assert_eq!(again, taken("bad-schema", Some("exercises/bad.toml")));
        let huge = "#".repeat(fencelab_model::exercise::EXERCISE_FILE_BYTES_MAX + 1);
        let refused = install(&mut server, 5, huge);
        assert!(
            matches!(&refused, Installation::LeftOut(LeftOut::Unloadable(e)) if e.message.contains("at most")),
            "{refused:?}"
        );
    }
}
