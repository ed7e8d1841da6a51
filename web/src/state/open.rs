//! Opening an exercise: from the page's address at start (its `?exercise=`
//! and a share link in the fragment), or from the exercise list.
//!
//! Opening takes two actions, because the learner's saved work is in
//! storage, which only an effect reads: `Open` (or [`Playground::new`]) names the
//! exercise and leaves an [`Opening`] in the playground; the app's effect reads
//! that exercise's saved work and dispatches `SavedWorkRead`, which puts it
//! (and then a link's version, if one was opened) in the editors and asks
//! for the first check.

use super::{
    Embedding, Given, Loaded, Notice, OpenExercise, Page, Playground, Protection, Replace, Theme,
    View,
};
use crate::prerendered::Prerendered;
use crate::share::{self, Link};
use fencelab_model::procedure::PROCEDURE_TEXT_BYTES_MAX;
use fencelab_model::{Exercise, LoadError};
use fencelab_protocol::Edits;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

/// The longest text accepted for one procedure from a link.
const LINK_PROCEDURE_BYTES_MAX: usize = PROCEDURE_TEXT_BYTES_MAX;

/// The address the page was opened with, and the theme chosen before, as
/// the app read them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Start {
    /// `?exercise=ID`.
    pub exercise: Option<String>,
    /// The fragment is an exercise link (`#x1=`): the address names the
    /// exercise it carries, once the worker has read it.
    pub exercise_link: bool,
    /// `?embed=1`: the exercise alone, without the list and the masthead.
    pub embed: bool,
    /// `?parent=ORIGIN`: in an embed, the page to report to.
    pub parent: Option<String>,
    /// `?hunts=1`: that page also wants breaks found in challenges, as
    /// `solved` of kind `hunt`.
    pub hunts: bool,
    /// The fragment, without `#`: a share link, or nothing.
    pub fragment: String,
    /// The theme the learner chose before (storage keeps it).
    pub theme: Theme,
    /// `?answer_ms=N`: the worker's watchdog (tests watch a restart).
    pub answer_ms: Option<u32>,
}

impl Start {
    /// Whether the address asks for nothing but the page prerendered for
    /// `exercise` (`crate::prerendered`): that exercise (or none named), not
    /// embedded, no link in the fragment.
    pub fn asks_only_for(&self, exercise: &str) -> bool {
        self.exercise.as_ref().is_none_or(|id| id == exercise)
            && !self.embed
            && !self.exercise_link
            && self.fragment.is_empty()
    }
}

impl OpenExercise {
    /// Exercise `index` as it opens, before its starting texts are put in
    /// (they are the exercise's, which the playground holds): nothing
    /// asked, shown or kept, no replacement pending. `generation`: the
    /// last replacement's, which the next one follows.
    fn new(index: usize, generation: u64) -> OpenExercise {
        OpenExercise {
            index,
            opening: None,
            prerendered: None,
            texts: Edits::new(),
            replace: Replace {
                generation,
                texts: Edits::new(),
            },
            check_wanted: 0,
            check_failed: false,
            report: None,
            report_seq: 0,
            confirming: None,
            view: View::Nothing,
            step_wanted: None,
            hints_shown: 0,
            loaded_variant: None,
            given: Some(Given::Start),
            working: false,
            seen: BTreeSet::new(),
            solve_kept: false,
            own_aside: None,
            challenge: None,
            hunted: Vec::new(),
            saved_aside: None,
            share_url: None,
            protection: Protection::Nothing,
        }
    }
}

/// An exercise whose saved work is being read.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    pub exercise: String,
    /// The link it was opened from, applied over the saved work once read.
    pub link: Option<Link>,
}

impl Playground {
    /// The page's first state: the bundled exercises (or why they could not
    /// be loaded) and the address it was opened with.
    pub fn new(catalog: Result<Vec<Exercise>, LoadError>, start: Start) -> Playground {
        let (exercises, catalogue_error) = match catalog {
            Ok(list) => (list, None),
            Err(error) => (Vec::new(), Some(error.to_string())),
        };
        let mut playground = Playground::nothing_open(exercises, catalogue_error, &start);
        if let (true, Some(parent)) = (start.embed, &start.parent) {
            playground.report_to(parent, start.hunts);
        }
        playground.open_first(start);
        playground
    }

    /// The state before any exercise is open: nothing asked, shown or kept.
    fn nothing_open(
        exercises: Vec<Exercise>,
        catalogue_error: Option<String>,
        start: &Start,
    ) -> Playground {
        Playground {
            exercises: Rc::new(exercises),
            catalogue_error,
            embed: start.embed,
            // Until `open_first` opens one or awaits it.
            page: Page::Failed,
            open: OpenExercise::new(0, 0),
            site_loaded: false,
            indexing: None,
            site_files: None,
            site_queue: VecDeque::new(),
            sqlite_version: None,
            progress: BTreeMap::new(),
            notices: Vec::new(),
            replay_refused: None,
            announcement: String::new(),
            focus_timeline: 0,
            focus_drive: 0,
            focus_title: 0,
            theme: start.theme,
            focus_on_replay: None,
            outbox: Vec::new(),
            next_seq: 0,
            embedding: None,
        }
    }

    /// Opens what the address asks for: a share link's exercise and text,
    /// a linked site exercise (once the worker has read it), an exercise by
    /// id, or the first; an exercise not yet loaded (perhaps one of the
    /// site's own) is awaited.
    fn open_first(&mut self, start: Start) {
        let exercises = Rc::clone(&self.exercises);
        let by_id = |id: &str| exercises.iter().position(|e| e.id == id);
        if share::is_link(&start.fragment) {
            match share::decode(&start.fragment) {
                Ok(link) => match by_id(&link.exercise) {
                    Some(index) => {
                        self.open_at(index, Some(link));
                        return;
                    }
                    // Perhaps one of the site's own, which arrive later.
                    None => {
                        self.page = Page::Awaiting(Opening {
                            exercise: link.exercise.clone(),
                            link: Some(link),
                        });
                        return;
                    }
                },
                Err(message) => self.notices.push(Notice::LinkUnreadable(message)),
            }
        }
        if start.exercise_link {
            // Nothing opens until the worker has read the link's exercise
            // (`site.rs`): opening another first would touch its saved work.
            self.page = Page::AwaitingLink(start.exercise);
            return;
        }
        match start.exercise {
            Some(id) if by_id(&id).is_none() => {
                self.page = Page::Awaiting(Opening {
                    exercise: id,
                    link: None,
                })
            }
            id => self.open_at(id.as_deref().and_then(by_id).unwrap_or(0), None),
        }
    }

    /// An embedded frame reports to the page at `parent` (its address's
    /// `?parent=`), or says why it cannot.
    fn report_to(&mut self, parent: &str, hunts: bool) {
        match Embedding::new(parent) {
            Ok(mut embedding) => {
                embedding.hunts = hunts;
                self.embedding = Some(embedding);
            }
            Err(why) => self.notices.push(Notice::ParentNotOrigin(why)),
        }
    }

    /// The first state of a prerendered page (`crate::prerendered`), on the
    /// build machine and in the browser alike: `page`'s exercise open on
    /// its starting texts with their report taken as the worker's answer,
    /// the saved work not yet read, nothing read from the address or
    /// storage. None when the page's
    /// exercise is not among `catalog`'s.
    ///
    /// A site exercise's page also carries the site's exercises (`site`,
    /// each with the text it was read from): listed after `catalog`'s, and
    /// handed to the worker before anything else ([`Playground::adopt_site`]).
    pub fn prerendered(
        catalog: Result<Vec<Exercise>, LoadError>,
        page: &Prerendered,
        site: Vec<(Exercise, String)>,
    ) -> Option<Playground> {
        let start = Start {
            exercise: Some(page.exercise.clone()),
            ..Start::default()
        };
        let catalog = catalog.map(|mut exercises| {
            exercises.extend(site.iter().map(|(exercise, _)| exercise.clone()));
            exercises
        });
        let mut playground = Playground::new(catalog, start);
        if playground.exercise().is_none_or(|e| e.id != page.exercise)
            || page.report.exercise != page.exercise
        {
            return None;
        }
        playground.adopt_site(site);
        playground.open.opening = None;
        playground.open.prerendered = Some(playground.open.texts.clone());
        // As if the worker had answered the first check: the same view
        // (the first failing scenario's timeline), the same announcement.
        playground.open.check_wanted = playground.seq();
        playground.checked(playground.open.check_wanted, page.report.clone());
        Some(playground)
    }

    /// A prerendered page has hydrated: its saved work is restored as on
    /// any opening. The report the page came with stays current if the
    /// texts are still the ones it is of; otherwise it is shown as being
    /// checked until the worker's arrives.
    pub(super) fn hydrated(&mut self, loaded: Loaded, theme: Theme) {
        let (Some(shown), Some(exercise)) = (
            self.open.prerendered.take(),
            self.exercise().map(|e| e.id.clone()),
        ) else {
            return;
        };
        self.theme = theme;
        let reported = self.open.report_seq;
        self.open.opening = Some(Opening {
            exercise: exercise.clone(),
            link: None,
        });
        self.restore(&exercise, loaded);
        if self.open.texts == shown {
            self.open.check_wanted = reported;
            self.open.confirming = Some(reported);
            // The report is here already, so the scenario the saved work
            // showed is drawn at its step now, as a check's answer would:
            // the worker's confirming answer changes nothing.
            self.draw_checked(true);
        }
    }

    /// The learner went to exercise `index` (the list, "Next exercise"): it
    /// opens, and its title takes the focus.
    pub(super) fn go_to(&mut self, index: usize) {
        self.notices.clear();
        self.open_at(index, None);
        self.focus_title += 1;
    }

    /// The learner went Back or Forward to the address naming exercise
    /// `id`: it opens as from the list, unless it is open already (the
    /// fragment alone changed) or the page has no such exercise.
    pub(super) fn navigated(&mut self, id: &str) {
        let Some(index) = self.exercises.iter().position(|e| e.id == id) else {
            return;
        };
        if self.exercise().is_none_or(|open| open.id != id) {
            self.go_to(index);
        }
    }

    /// Shows exercise `index` with its starting texts and asks for its saved
    /// work. Answers to requests about the exercise before are dropped: no
    /// view waits for them, and no check is wanted until the work is read.
    pub(super) fn open_at(&mut self, index: usize, link: Option<Link>) {
        // While an exercise link is read, the exercise it carries is the
        // one to open: Back or Forward meanwhile leaves that wait as it was.
        if !matches!(self.page, Page::AwaitingLink(_)) {
            self.page = if self.exercises.is_empty() {
                Page::Failed
            } else {
                Page::Open
            };
        }
        let index = index.min(self.exercises.len().saturating_sub(1));
        // The editors of an exercise opened again (its key unchanged) tell
        // a replacement by its generation, which goes on counting.
        self.open = OpenExercise::new(index, self.open.replace.generation);
        self.open.texts = self.starts();
        self.open.opening = self.exercise().map(|e| Opening {
            exercise: e.id.clone(),
            link,
        });
    }

    /// The saved work of the exercise being opened has been read.
    pub(super) fn restore(&mut self, exercise: &str, loaded: Loaded) {
        if self
            .open
            .opening
            .as_ref()
            .is_none_or(|o| o.exercise != exercise)
        {
            return; // read for an exercise opened before this one
        }
        let link = self.open.opening.take().and_then(|o| o.link);
        let hints_total = self.exercise().map_or(0, |e| e.hints.len());
        match loaded {
            Loaded::Nothing => {}
            Loaded::Saved(saved) => {
                self.open.texts = self.complete(&saved.edits);
                self.open.seen = saved.seen;
                self.open.solve_kept = saved.passing;
                self.open.own_aside = saved.own_aside.map(|aside| self.complete(&aside));
                self.open.hunted = saved.hunts;
                self.open.working =
                    saved.working && self.exercise().is_some_and(|e| e.working_version.is_some());
                // An entry from before `given` was saved: the starting texts
                // are the page's, anything else the learner's.
                self.open.given = match saved.given {
                    Some(given) => Some(given),
                    None if self.open.texts == self.starts() => Some(Given::Start),
                    None => None,
                };
                self.open.hints_shown = saved.hints.min(hints_total);
                if link.is_none() {
                    if let Some(shown) = saved.view {
                        self.show_again(shown);
                    }
                    if let Some(text) = saved.challenge {
                        self.challenge_again(text);
                    }
                }
            }
            Loaded::SetAside { message, aside_key } => self
                .notices
                .push(Notice::SavedWorkSetAside { message, aside_key }),
        }
        if let Some(link) = link {
            self.show_link(link);
        }
        self.want_check();
    }

    /// Puts a link's version in the editors, its saved work one click away.
    fn show_link(&mut self, link: Link) {
        let shown = link.shown();
        let mut edits = link.edits;
        edits.retain(|_, text| text.len() <= LINK_PROCEDURE_BYTES_MAX);
        let linked = self.complete(&edits);
        if linked != self.open.texts {
            if self.open.texts != self.starts() {
                self.open.saved_aside = Some(self.open.texts.clone());
            }
            self.open.texts = linked;
            self.open.given = Some(Given::Link);
        }
        let hints_total = self.exercise().map_or(0, |e| e.hints.len());
        self.open.hints_shown = link.hints.min(hints_total);
        self.notices.push(Notice::LinkShown {
            saved_aside: self.open.saved_aside.is_some(),
        });
        if let Some(shown) = shown {
            self.show_again(shown);
        }
        // A break in a link was found by whoever made it.
        if let Some(challenge) = &mut self.open.challenge {
            challenge.replayed = true;
        }
    }
}
