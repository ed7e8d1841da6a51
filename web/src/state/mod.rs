//! The page's state and the one reducer that changes it.
//!
//! [`reduce`] is a plain function of (playground, action). It never reads
//! storage, the URL or the clock, and never talks to the worker: what it
//! needs from outside arrives in actions that the app's effects dispatch
//! (the saved work of the exercise being opened, the progress saved for
//! every exercise, the page's address for a share link), and what it wants
//! done outside it leaves in the playground for those effects (requests in
//! `outbox`, a check in `open.check_wanted`, saved work to read in
//! `open.opening`).
//!
//! What belongs to the exercise open is one [`OpenExercise`]: opening
//! another replaces it whole. The rest (the exercises, the notices, the
//! outbox, the theme, the progress of every exercise) is the page's.
//!
//! What the timeline shows is one [`View`], so a drive, a replay and a
//! checked scenario cannot be in view at once. Reports are shared through
//! `Rc`: the playground is cloned on every action, its reports never are.
//!
//! Every worker answer is routed by its seq to the request that asked for it
//! (`respond.rs`); an answer to a request since replaced is dropped.
//!
//! This file holds the playground and its actions; each seam is a submodule:
//! the reducer (`reduce.rs`), the editors' texts (`texts.rs`), requests to
//! the worker (`requests.rs`), answers from it (`respond.rs`), saved work
//! and share links going out (`saved.rs`) and coming in (`open.rs`), the
//! view (`view.rs`), and the exercise list's order (`lessons.rs`).

mod embed;
mod hunt;
mod lessons;
mod notice;
mod open;
mod open_focus;
mod progress;
mod protect;
mod reduce;
mod requests;
mod respond;
mod saved;
mod setting;
mod site;
mod texts;
mod theme;
mod view;

#[cfg(test)]
mod tests;

pub use embed::Embedding;
pub use hunt::{Challenge, FoundBreak, HuntTarget, HuntTargets, HuntText};
pub use lessons::{Next, lessons, next_exercise, progress_of, solved_count};
pub use notice::Notice;
pub use open::{Opening, Start};
pub use open_focus::OpenFocus;
pub use progress::{Given, Progress};
pub use protect::{Protection, Without};
pub use reduce::reduce;
pub use saved::{Loaded, SAVE_FORMAT, Saved};
pub use setting::Setting;
pub use site::SiteExercises;
pub use theme::Theme;
pub use view::{At, Console, DriveState, SharedExercises, SharedReport, View};

use crate::embed::protocol::{HostRequest, Refusal};
use fencelab_model::{Exercise, ExerciseReport};
use fencelab_protocol::{Edits, PlaygroundResponse, Request};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

/// A request to replace editor texts (Reset, a broken variant, a link's
/// version, the saved version): the editors apply it as one undoable change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replace {
    pub generation: u64,
    pub texts: Edits,
}

/// Whether an exercise is open, or why none is: one of these at a time.
#[derive(Clone, Debug, PartialEq)]
pub enum Page {
    /// The exercise at `open.index` is open (always one of `exercises`).
    Open,
    /// The exercise the address names, not bundled: waited for until the
    /// site's own exercises have arrived (`site.rs`).
    Awaiting(Opening),
    /// The address carries an exercise link (`#x1=`): nothing is open
    /// until the worker has read its exercise, which the address then
    /// names. Holds what `?exercise=` named besides, for a link that does
    /// not load.
    AwaitingLink(Option<String>),
    /// The exercise the address names that this site does not have: the
    /// notice that says so is shown instead of any exercise (the page lists
    /// those it has under it).
    Missing(String),
    /// No exercise could be opened: the page has none at all (why:
    /// `Playground::catalogue_error`).
    Failed,
}

/// The state of the exercise at `index`: its texts, reports and view, and
/// what the learner did in it. Opening an exercise replaces the whole value
/// (`OpenExercise::new`), so nothing of the one before leaks into it. What
/// is read from it alone (the report in view, whether a check is awaited,
/// whether the texts pass) is its own method; what also needs the exercise,
/// the worker or the notices is the playground's.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenExercise {
    /// The exercise's place in `Playground::exercises`.
    pub index: usize,
    /// The exercise being opened, until its saved work has been read.
    pub opening: Option<Opening>,
    /// The page arrived prerendered (`crate::prerendered`) and its saved
    /// work is still unread: the starting texts its report is of. Its
    /// editors are static text meanwhile (`ProcedureEditor`'s `live`).
    pub prerendered: Option<Edits>,
    /// The editable procedures' current texts.
    pub texts: Edits,
    pub replace: Replace,
    /// The seq of the newest check wanted (0: none yet); the app sends it
    /// at once, on every edit: a check takes milliseconds in the worker, and
    /// a newer one supersedes it there. Until its report arrives the last
    /// one stays shown, marked stale (`checking`), never as current.
    pub check_wanted: u64,
    /// The newest check could not be run (the worker said why).
    pub check_failed: bool,
    /// The latest check's report, and the seq of the check it answers.
    pub report: Option<Rc<ExerciseReport>>,
    pub report_seq: u64,
    /// The check whose report the page arrived with, asked of the worker
    /// once the page has hydrated with its texts unchanged: its answer
    /// confirms what is shown and changes nothing the learner sees or hears
    /// ([`Playground::checked`]).
    pub confirming: Option<u64>,
    pub view: View,
    /// The step to select once the view's report arrives: the one a link or
    /// the saved work had selected. Any step the learner picks replaces it.
    step_wanted: Option<usize>,
    pub hints_shown: usize,
    /// The broken variant last loaded, whose explanation is shown.
    pub loaded_variant: Option<String>,
    /// Texts the page put in the editors, unedited since: not the learner's
    /// own, so never solved (`progress.rs`).
    pub given: Option<Given>,
    /// The learner chose to start from the working version (the
    /// references), where the exercise offers it.
    pub working: bool,
    /// Broken variants the learner loaded and watched fail.
    pub seen: BTreeSet<String>,
    /// The learner's own text passed every scenario since the exercise was
    /// last reset: it counts as solved whatever the editors hold now (a
    /// broken variant, a challenge), until Reset (`progress.rs`).
    pub solve_kept: bool,
    /// The learner's own texts, set aside when the page put others in the
    /// editors (a broken variant, Reset, a challenge): "Restore your text"
    /// puts them back in one click.
    pub own_aside: Option<Edits>,
    /// The challenge open ("break it yourself"), if any (`hunt.rs`).
    pub challenge: Option<Challenge>,
    /// The breaks the learner found by hand in challenges: progress kept
    /// apart from repairs.
    pub hunted: Vec<FoundBreak>,
    /// The learner's saved work, set aside while a shared link is shown.
    pub saved_aside: Option<Edits>,
    pub share_url: Option<String>,
    /// Which lines of the learner's passing texts the scenarios protect.
    pub protection: Protection,
}

/// The page's state: the exercises, the one open, its texts and reports, and
/// what the reducer left for the app's effects to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Playground {
    pub exercises: Rc<Vec<Exercise>>,
    /// Why the bundled catalogue could not be read (the list then holds
    /// the site's exercises alone). Not a page of its own: the page may
    /// still await a site exercise the address names, and only when none
    /// opens does it say this (`Page::Failed`, set by `Playground::open_at`).
    pub catalogue_error: Option<String>,
    pub embed: bool,
    /// Whether the exercise at `open.index` is open, or why none is.
    pub page: Page,
    /// The open exercise's state, one value: opening another builds it
    /// afresh (`open.rs`). Shown only while `page` is `Open`; an exercise
    /// opened while a link is read (Back or Forward) waits behind
    /// `AwaitingLink`, unseen.
    pub open: OpenExercise,
    /// Whether the site's own exercises have arrived (or it has none).
    pub site_loaded: bool,
    /// The seq of the `Index` request whose answer is awaited.
    indexing: Option<u64>,
    /// The files the site's index names, once the worker has read it: the
    /// app's effect fetches them (`SiteExercises::Files`).
    pub site_files: Option<Rc<Vec<String>>>,
    /// The site's files (and the link's) in the order they are listed,
    /// each until its answer and its turn have come (`site.rs`).
    site_queue: VecDeque<site::SiteStep>,
    /// The worker's SQLite, once it has started.
    pub sqlite_version: Option<String>,
    /// Progress saved for each exercise, as the app's effects read it.
    pub progress: BTreeMap<String, Progress>,
    /// What the page tells the learner above the exercise, oldest first.
    pub notices: Vec<Notice>,
    /// Why the schedule last typed in the replay form of this scenario
    /// (the first) could not be replayed: said beside the form, where the
    /// learner typed it, not among the notices at the top of the page.
    pub replay_refused: Option<(String, String)>,
    pub announcement: String,
    /// Counts the times the timeline should come into view and take the
    /// keyboard focus (a scenario was chosen, a counterexample the learner
    /// asked for has arrived); the app's effect moves it when this changes.
    pub focus_timeline: u64,
    /// Counts the times the drive panel should come into view and take the
    /// focus (the learner started a drive).
    pub focus_drive: u64,
    /// Counts the times the learner went to another exercise (the list,
    /// "Next exercise", Back or Forward): its title comes into view at the
    /// exercise's top and takes the focus.
    pub focus_title: u64,
    /// The colour theme the learner chose.
    pub theme: Theme,
    /// The replay whose answer takes the focus: a counterexample the learner
    /// asked for from a line mark (a schedule typed in its replay form does
    /// not move the focus from the form).
    focus_on_replay: Option<u64>,
    /// Requests for the worker, oldest first; the app sends each once.
    pub outbox: Vec<Rc<Request>>,
    next_seq: u64,
    /// In an embed whose page asked for results (`?parent=`): what it is
    /// told and has been told (`embed.rs`).
    pub embedding: Option<Embedding>,
}

#[derive(Debug)]
pub enum Action {
    /// The worker answered (the playground reads no authoring view's
    /// answer: `PlaygroundResponse`).
    Worker(Box<PlaygroundResponse>),
    /// The saved work of the exercise being opened, as the app read it.
    SavedWorkRead {
        exercise: String,
        loaded: Loaded,
    },
    /// The page hydrated from its prerendered state: what the address's
    /// exercise had saved, and the theme chosen, as the app read them.
    Hydrated {
        loaded: Loaded,
        theme: Theme,
    },
    /// Progress saved for these exercises, as the app read it.
    ProgressRead(BTreeMap<String, Progress>),
    /// The site's own exercises, as the app fetched them.
    SiteExercises(SiteExercises),
    Open(usize),
    /// The learner went Back or Forward to the page's address naming this
    /// exercise (by id), as the app read it.
    Navigated(String),
    Edited {
        procedure: String,
        text: String,
    },
    /// Ctrl/Cmd+Enter: check now, without waiting.
    RunNow,
    /// Start from the working version (`true`) or from the exercise's
    /// starting texts (`false`); the editors get that text, undoably.
    StartFromWorking(bool),
    SetTheme(Theme),
    Select(String),
    Step(usize),
    StepBy(isize),
    LoadVariant(String),
    Reset,
    /// Put the learner's own texts, set aside by a variant, Reset or a
    /// challenge, back in the editors.
    RestoreOwn,
    ShowHint,
    DriveStart(String),
    DriveMove(String),
    DriveUndo,
    DriveRestart,
    DriveStop,
    /// Open a challenge on this broken text: counterexamples hidden, the
    /// learner drives a scenario until a guarantee breaks.
    HuntStart(HuntText),
    /// Leave the challenge.
    HuntLeave,
    /// Replay a schedule the learner typed (process names, `a b b a`).
    Replay {
        scenario: String,
        schedule: String,
    },
    /// Make a share link; `base` is the page's address without fragment.
    Share {
        base: String,
    },
    BackToSaved,
    /// Keep the linked version as this exercise's work (autosave resumes).
    KeepLinked,
    Query(String),
    DismissNotices,
    /// Show the counterexample of one caught change (by its index) of the
    /// protected mark on this line.
    ShowCounterexample {
        procedure: String,
        line: u32,
        change: usize,
    },
    /// A message from the page that embeds this one (`embed.rs`).
    Host(Result<HostRequest, Refusal>),
}

impl Playground {
    /// The open exercise: none while the one the address names is awaited
    /// or missing, or when the page has none.
    pub fn exercise(&self) -> Option<&Exercise> {
        match self.page {
            Page::Open => self.exercises.get(self.open.index),
            Page::Awaiting(_) | Page::AwaitingLink(_) | Page::Missing(_) | Page::Failed => None,
        }
    }

    /// Whether the page shows what it will go on showing: an exercise with
    /// its editors, or why none opens; not while the exercise the address
    /// names is awaited, nor while its saved work is read (a line each,
    /// 47 and 99 px high). An embed reports its height only from then on
    /// (embed/effects.rs).
    pub fn settled(&self) -> bool {
        matches!(self.page, Page::Open | Page::Missing(_) | Page::Failed)
            && self.open.opening.is_none()
    }

    fn exercise_id(&self) -> String {
        self.exercise().map(|e| e.id.clone()).unwrap_or_default()
    }
}
