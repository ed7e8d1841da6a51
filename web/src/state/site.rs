//! A site's own exercises: the files its `exercises/index.toml` lists,
//! added to the bundled ones once the app's effect has fetched them, and
//! the exercise an exercise link (`#x1=`) carries.
//!
//! The page parses none of them: the index and each file go to the worker
//! (`Request::Index`, `Request::Install`), whose loader reads them as
//! `fencelab check` does (file, line and column in every message) and
//! answers with what it made of them: the exercise listed, replacing the
//! page's copy, or left out and why. The worker keeps the one list of ids
//! (web/worker/src/site.rs); the page lists what it is told and keeps no
//! registry of its own. A file that cannot be used is a notice, never a
//! crash, and leaves out that file alone. Files are listed, and their
//! notices said, in the order the index names them, whatever order the
//! answers come in: each waits in `site_queue` for the ones before it.
//!
//! The page's address may name one of these exercises before they arrive:
//! it is *awaited* (nothing else is opened meanwhile, so no saved work is
//! touched and the address is not rewritten), then opened, or named in a
//! notice when the site has no such exercise, never silently swapped for
//! another. In an embed, that notice is all the frame shows. An exercise
//! link names its exercise only once the worker has read it.

use super::{Notice, Opening, Page, Playground};
use crate::author::link::LINKED_FILE;
use fencelab_model::Exercise;
use fencelab_model::site::{IndexError, SiteIndex};
use fencelab_protocol::{Installation, LeftOut, PRERENDERED_SUFFIX, Request};
use std::rc::Rc;

/// What fetching the site's exercises gave, as the app's effects read it.
#[derive(Clone, Debug, PartialEq)]
pub enum SiteExercises {
    /// The site serves no index: the bundled exercises are all there is.
    NoIndex,
    /// The index was served but cannot be used, and why.
    Unusable(String),
    /// The index's text, for the worker to read; the files it names are
    /// fetched once it has (`Playground::site_files`).
    Index(String),
    /// Each file the index names (its path on the site) with its text, or
    /// why it could not be fetched.
    Files(Vec<(String, Result<String, String>)>),
}

/// A step of adding the site's exercises, taken in order.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum SiteStep {
    /// A file, once its turn comes and its answer has arrived.
    File { file: String, state: FileState },
    /// Every file of one fetch is added: the awaited exercise can be opened.
    Settle,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum FileState {
    /// Sent to the worker as `Install` `seq`; its answer has yet to come.
    Installing(u64),
    Answered(Box<Installation>),
    /// It could not be fetched, or the worker could not answer, and why.
    Failed(String),
}

impl Playground {
    /// Hands what was fetched to the worker, or adds it when nothing is
    /// left to ask.
    pub(super) fn site_exercises(&mut self, site: SiteExercises) {
        match site {
            SiteExercises::NoIndex => {}
            SiteExercises::Unusable(message) => self.notices.push(Notice::SiteUnusable(message)),
            SiteExercises::Index(source) => {
                let seq = self.seq();
                self.indexing = Some(seq);
                self.send(Request::Index { seq, source });
                return;
            }
            SiteExercises::Files(files) => {
                for (file, fetched) in files {
                    let state = match fetched {
                        Ok(source) => {
                            let seq = self.seq();
                            self.send(Request::Install {
                                seq,
                                file: file.clone(),
                                source,
                            });
                            FileState::Installing(seq)
                        }
                        Err(message) => FileState::Failed(message),
                    };
                    self.site_queue.push_back(SiteStep::File { file, state });
                }
            }
        }
        self.site_queue.push_back(SiteStep::Settle);
        self.take_site_steps();
    }

    /// The worker read the index of `Index` `seq` (or could not): its files
    /// are fetched next. Whether `seq` was the index's.
    pub(super) fn indexed(&mut self, seq: u64, result: Result<SiteIndex, IndexError>) -> bool {
        if self.indexing != Some(seq) {
            return false;
        }
        self.indexing = None;
        match result {
            Ok(index) => self.site_files = Some(Rc::new(index.paths().collect())),
            Err(error) => self.site_exercises(SiteExercises::Unusable(error.to_string())),
        }
        true
    }

    /// The site's exercises a prerendered page carried (each with the
    /// text it was read from), which the page's first state lists already
    /// (`Playground::prerendered` was given them): the worker installs them
    /// from that text at once, so they are checked before the site's files
    /// arrive, and answers the site's own file of each id as replacing it.
    /// Asked before anything else, as the first state is made.
    pub(super) fn adopt_site(&mut self, carried: Vec<(Exercise, String)>) {
        for (exercise, source) in carried {
            let seq = self.seq();
            self.send(Request::Install {
                seq,
                file: format!("{}{PRERENDERED_SUFFIX}", exercise.id),
                source,
            });
        }
    }

    /// An `Install` was answered. Whether `seq` was an install's.
    pub(super) fn installed(&mut self, seq: u64, installation: Box<Installation>) -> bool {
        // Answered: its text need not be kept, a page's copy's included
        // (no site step waits for those).
        self.outbox.retain(|request| request.seq() != seq);
        self.answer_file(seq, FileState::Answered(installation))
    }

    /// The request `seq` failed: an install's file is left out with the
    /// worker's sentence, as is the index. Seq 0 (the worker itself failed)
    /// fails every install still waiting, so the page never waits forever;
    /// it is also the page's notice (false). Whether `seq` was a site
    /// request's.
    pub(super) fn site_request_failed(&mut self, seq: u64, message: &str) -> bool {
        if seq == 0 {
            let waiting: Vec<u64> = self
                .site_queue
                .iter()
                .filter_map(|step| match step {
                    SiteStep::File {
                        state: FileState::Installing(seq),
                        ..
                    } => Some(*seq),
                    _ => None,
                })
                .collect();
            for seq in waiting {
                self.answer_file(seq, FileState::Failed(message.to_string()));
            }
            if let Some(seq) = self.indexing {
                self.site_request_failed(seq, message);
            }
            return false;
        }
        if self.indexing == Some(seq) {
            self.indexing = None;
            self.site_exercises(SiteExercises::Unusable(format!(
                "{}: {message}",
                fencelab_model::site::INDEX_PATH
            )));
            return true;
        }
        self.answer_file(seq, FileState::Failed(message.to_string()))
    }

    fn answer_file(&mut self, seq: u64, answer: FileState) -> bool {
        let Some(state) = self.site_queue.iter_mut().find_map(|step| match step {
            SiteStep::File { state, .. } if *state == FileState::Installing(seq) => Some(state),
            _ => None,
        }) else {
            // A restarted worker's second answer, or no install of ours.
            return false;
        };
        *state = answer;
        // Sent and answered: its text need not be kept.
        self.outbox.retain(|request| request.seq() != seq);
        self.take_site_steps();
        true
    }

    /// Takes every step whose turn has come: a file whose answer is in,
    /// then the next, until one still waits for the worker.
    fn take_site_steps(&mut self) {
        while let Some(step) = self.site_queue.front() {
            if matches!(
                step,
                SiteStep::File {
                    state: FileState::Installing(_),
                    ..
                }
            ) {
                return;
            }
            match self.site_queue.pop_front() {
                Some(SiteStep::File { file, state }) => self.add_site_file(file, state),
                Some(SiteStep::Settle) => self.settle_site(),
                None => return,
            }
        }
    }

    /// Every file fetched so far is added: opens the exercise the address
    /// was waiting for, or says it is missing.
    fn settle_site(&mut self) {
        self.site_loaded = true;
        if let Page::Awaiting(awaiting) = &self.page {
            let Opening { exercise, link } = awaiting.clone();
            self.page = Page::Open;
            match self.exercises.iter().position(|e| e.id == exercise) {
                Some(index) => self.open_at(index, link),
                None => self.missing(exercise, link.is_some()),
            }
        }
    }

    /// Lists a site's file as the worker answered for it (the worker
    /// alone decides which id is listed), or says why it is left out.
    fn add_site_file(&mut self, file: String, state: FileState) {
        let from_link = file == LINKED_FILE;
        let installation = match state {
            // Never handed over: `take_site_steps` stops at a waiting file.
            FileState::Installing(_) => return,
            FileState::Failed(message) => {
                self.notices.push(Notice::FileFailed { file, message });
                if from_link {
                    self.link_read(None);
                }
                return;
            }
            FileState::Answered(installation) => *installation,
        };
        if from_link {
            self.link_read(installation.id().map(str::to_string));
        }
        let listed = match installation {
            Installation::Listed(listed) => {
                Rc::make_mut(&mut self.exercises).push(listed.exercise);
                listed.schema_error
            }
            Installation::Replaced(listed) => {
                self.replace_copy(listed.exercise);
                listed.schema_error
            }
            Installation::LeftOut(left_out) => {
                self.notices.push(left_out_notice(file, left_out));
                None
            }
        };
        if let Some(error) = listed {
            // The worker's loader names the file, line and column itself.
            self.notices.push(Notice::Unchecked(error));
        }
    }

    /// The site's own file of an exercise the page arrived with: the same
    /// as the page's copy (the page was built from it), or newer, which
    /// then takes its place, and is opened afresh if it is the one open.
    fn replace_copy(&mut self, exercise: Exercise) {
        let Some(index) = self.exercises.iter().position(|e| e.id == exercise.id) else {
            Rc::make_mut(&mut self.exercises).push(exercise);
            return;
        };
        if self.exercises[index] == exercise {
            return;
        }
        Rc::make_mut(&mut self.exercises)[index] = exercise;
        if index == self.open.index && !matches!(self.page, Page::Awaiting(_)) {
            self.open_at(index, None);
        }
    }

    /// The worker has read the exercise link's file: the address names its
    /// exercise (`id`), or, when it does not load, what it named besides
    /// (`?exercise=`, else the first exercise).
    fn link_read(&mut self, id: Option<String>) {
        let Page::AwaitingLink(named) = &mut self.page else {
            return;
        };
        let named = named.take();
        self.page = Page::Open;
        match id.or(named) {
            Some(exercise) => {
                self.page = Page::Awaiting(Opening {
                    exercise,
                    link: None,
                })
            }
            None => self.open_at(0, None),
        }
    }

    /// The address named an exercise this page does not have: that sentence,
    /// and never another exercise in its place (docs/EXERCISES.md). An embed
    /// shows the sentence alone; the page also lists the exercises it has.
    /// A share link's texts are the learner's own work, opened instead.
    fn missing(&mut self, exercise: String, from_link: bool) {
        if from_link {
            self.notices.push(Notice::LinkedExerciseMissing(exercise));
            self.open_at(0, None);
        } else {
            self.notices.push(Notice::Missing {
                exercise: exercise.clone(),
                embed: self.embed,
            });
            self.page = Page::Missing(exercise);
        }
    }
}

/// Why the worker left `file` out. An author previewing a new version of
/// an exercise the site hosts is not told the hosted file is wrong: the
/// link's draft holds its id, and the draft is the point.
fn left_out_notice(file: String, left_out: LeftOut) -> Notice {
    match left_out {
        LeftOut::Unloadable(error) => Notice::Unloadable(error),
        LeftOut::IdTaken { id, holder } if holder.as_deref() == Some(LINKED_FILE) => {
            Notice::DraftInPlace { file, id }
        }
        LeftOut::IdTaken { id, .. } => Notice::IdTaken { file, id },
    }
}
