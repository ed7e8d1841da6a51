//! A site's own exercises: the files its `exercises/index.toml` lists,
//! added to the bundled ones once the app's effect has fetched them.
//!
//! Each file is read with the model's loader (the same messages as
//! `fencelab check`, with file, line and column) and installed in the worker,
//! which also tries its schema on SQLite. A file that cannot be used is a
//! notice, never a crash, and leaves out that file alone.
//!
//! The page's address may name one of these exercises before they arrive:
//! it is *awaited* (nothing else is opened meanwhile, so no saved work is
//! touched and the address is not rewritten), then opened, or named in a
//! notice when the site has no such exercise, never silently swapped for
//! another. In an embed, that notice is all the frame shows.

use super::{Model, Opening};
use fencelab_model::Exercise;
use fencelab_protocol::Request;
use std::rc::Rc;

/// What fetching the site's exercises gave, as the app's effect read it.
#[derive(Clone, Debug, PartialEq)]
pub enum SiteExercises {
    /// The site serves no index: the bundled exercises are all there is.
    NoIndex,
    /// The index was served but cannot be used, and why.
    Unusable(String),
    /// Each file the index names (its path on the site) with its text, or
    /// why it could not be fetched.
    Files(Vec<(String, Result<String, String>)>),
}

impl Model {
    /// Adds the site's exercises that load, says why any other is left out,
    /// and opens the exercise the address was waiting for.
    pub(super) fn site_exercises(&mut self, site: SiteExercises) {
        match site {
            SiteExercises::NoIndex => {}
            SiteExercises::Unusable(message) => self.notices.push(format!(
                "This site's own exercises could not be loaded: {message}."
            )),
            SiteExercises::Files(files) => {
                for (file, fetched) in files {
                    match fetched {
                        Ok(source) => self.add_site_exercise(file, source),
                        Err(message) => self.notices.push(format!(
                            "{file} could not be loaded ({message}); it is left out."
                        )),
                    }
                }
            }
        }
        self.site_loaded = true;
        if let Some(Opening { exercise, link }) = self.awaiting.take() {
            match self.exercises.iter().position(|e| e.id == exercise) {
                Some(index) => self.open(index, link),
                None => self.missing(exercise, link.is_some()),
            }
        }
    }

    fn add_site_exercise(&mut self, file: String, source: String) {
        let exercise = match Exercise::from_toml(&file, &source) {
            Ok(exercise) => exercise,
            Err(error) => {
                self.notices
                    .push(format!("{error}. This exercise is left out."));
                return;
            }
        };
        let from_link = file == crate::author::link::LINKED_FILE;
        if self.exercises.iter().any(|e| e.id == exercise.id) {
            // An author previewing a new version of an exercise the site
            // hosts: the draft is the point, and the hosted file is not wrong.
            if self.linked.as_deref() == Some(exercise.id.as_str()) {
                self.notices.push(format!(
                    "This is the draft from the link, shown in place of the site's {file} \
                     (the same id, “{}”).",
                    exercise.id
                ));
                return;
            }
            self.notices.push(format!(
                "{file}: the id “{}” is already another exercise's; this one is left out.",
                exercise.id
            ));
            return;
        }
        let seq = self.seq();
        self.installing.insert(seq);
        self.send(Request::Install { seq, file, source });
        if from_link {
            self.linked = Some(exercise.id.clone());
        }
        Rc::make_mut(&mut self.exercises).push(exercise);
    }

    /// The address named an exercise this page does not have: that sentence,
    /// and never another exercise in its place (docs/EXERCISES.md). An embed
    /// shows the sentence alone; the page also lists the exercises it has.
    /// A share link's texts are the learner's own work, opened instead.
    fn missing(&mut self, exercise: String, from_link: bool) {
        let notice = if from_link {
            format!(
                "This link names an exercise this page does not have (“{exercise}”); \
                 your own work is shown instead."
            )
        } else if self.embed {
            format!(
                "There is no exercise “{exercise}” here. Check the exercise= id in this \
                 frame's address against the ids the site serves."
            )
        } else {
            format!("There is no exercise “{exercise}” on this page. Choose one of these:")
        };
        self.notices.push(notice);
        if from_link {
            self.open(0, None);
        } else {
            self.missing = Some(exercise);
        }
    }

    /// An `Install` was answered: a failure is the exercise's file's
    /// notice. Whether `seq` was an install's.
    pub(super) fn installed(&mut self, seq: u64, failure: Option<&str>) -> bool {
        if !self.installing.remove(&seq) {
            return false;
        }
        if let Some(message) = failure {
            // The worker's loader names the file, line and column itself.
            self.notices
                .push(format!("{message}. This exercise cannot be checked."));
        }
        true
    }
}
