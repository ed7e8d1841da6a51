//! The page's state and the one reducer that changes it.
//!
//! [`reduce`] is a plain function of (model, action). It never reads
//! storage, the URL or the clock, and never talks to the worker: what it
//! needs from outside arrives in actions that the app's effects dispatch
//! (the saved work of the exercise being opened, the progress saved for
//! every exercise, the page's address for a share link), and what it wants
//! done outside it leaves in the model for those effects (requests in
//! `outbox`, a check in `check_wanted`, saved work to read in `opening`).
//!
//! What the timeline shows is one [`View`], so a drive, a replay and a
//! checked scenario cannot be in view at once. Reports are shared through
//! `Rc`: the model is cloned on every action, its reports never are.
//!
//! Every worker answer is routed by its seq to the request that asked for it
//! (`respond.rs`); an answer to a request since replaced is dropped.

mod open;
mod protect;
mod respond;
mod view;

#[cfg(test)]
mod tests;

pub use open::{Opening, Start};
pub use protect::{Protection, Without};
pub use view::{At, Console, DriveState, SharedReport, View};

use crate::share::{self, Link};
use crate::storage::{self, Loaded, Progress, Saved};
use fencelab_model::{Exercise, ExerciseReport, Schedule};
use fencelab_protocol::{Edits, Request, Response};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use yew::Reducible;

/// How long typing must pause before a check starts, in milliseconds.
pub const CHECK_DEBOUNCE_MS: i32 = 200;
/// Requests kept in the outbox; the app sends them within one render.
const OUTBOX_KEPT: usize = 16;

/// A request to replace editor texts (Reset, a broken variant, a link's
/// version, the saved version): the editors apply it as one undoable change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replace {
    pub generation: u64,
    pub texts: Edits,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub exercises: Rc<Vec<Exercise>>,
    pub load_error: Option<String>,
    pub embed: bool,
    pub current: usize,
    /// The exercise being opened, until its saved work has been read.
    pub opening: Option<Opening>,
    /// The editable procedures' current texts.
    pub texts: Edits,
    pub replace: Replace,
    /// The seq of the newest check wanted (0: none yet); the app sends it
    /// after `check_delay_ms`.
    pub check_wanted: u64,
    pub check_delay_ms: i32,
    /// The newest check could not be run (the worker said why).
    pub check_failed: bool,
    /// The latest check's report, and the seq of the check it answers.
    pub report: Option<Rc<ExerciseReport>>,
    pub report_seq: u64,
    /// The worker's SQLite, once it has started.
    pub sqlite_version: Option<String>,
    pub view: View,
    pub hints_shown: usize,
    pub loaded_mutant: Option<String>,
    pub caught: BTreeSet<String>,
    /// Progress saved for each exercise, as the app's effects read it.
    pub progress: BTreeMap<String, Progress>,
    pub notices: Vec<String>,
    /// The learner's saved work, set aside while a shared link is shown.
    pub saved_aside: Option<Edits>,
    pub share_url: Option<String>,
    pub announcement: String,
    /// Which lines of the learner's passing texts the scenarios protect.
    pub protection: Protection,
    /// Counts the times the timeline should take the keyboard focus (a
    /// counterexample the learner asked for has arrived); the app's effect
    /// moves it when this changes.
    pub focus_timeline: u64,
    /// The replay whose answer takes the focus: a counterexample the learner
    /// asked for from a line mark (a schedule typed in its replay form does
    /// not move the focus from the form).
    focus_on_replay: Option<u64>,
    /// Requests for the worker, oldest first; the app sends each once.
    pub outbox: Vec<Rc<Request>>,
    next_seq: u64,
}

#[derive(Debug)]
pub enum Action {
    /// The worker answered.
    Worker(Box<Response>),
    /// The saved work of the exercise being opened, as the app read it.
    SavedWorkRead {
        exercise: String,
        loaded: Loaded,
    },
    /// Progress saved for these exercises, as the app read it.
    ProgressRead(BTreeMap<String, Progress>),
    Open(usize),
    Edited {
        procedure: String,
        text: String,
    },
    /// Ctrl/Cmd+Enter: check now, without waiting.
    RunNow,
    Select(String),
    Step(usize),
    StepBy(isize),
    LoadMutant(String),
    Reset,
    ShowHint,
    DriveStart(String),
    DriveMove(String),
    DriveUndo,
    DriveRestart,
    DriveStop,
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
}

impl Model {
    pub fn exercise(&self) -> Option<&Exercise> {
        self.exercises.get(self.current)
    }

    fn exercise_id(&self) -> String {
        self.exercise().map(|e| e.id.clone()).unwrap_or_default()
    }

    fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    fn send(&mut self, request: Request) {
        self.outbox.push(Rc::new(request));
        let excess = self.outbox.len().saturating_sub(OUTBOX_KEPT);
        self.outbox.drain(..excess);
    }

    /// Whether a check is wanted whose report has not come back yet.
    pub fn checking(&self) -> bool {
        self.report_seq != self.check_wanted && !self.check_failed
    }

    fn want_check(&mut self, delay_ms: i32) {
        self.check_wanted = self.seq();
        self.check_delay_ms = delay_ms;
        self.check_failed = false;
    }

    /// The check to send for `check_wanted`, if one is wanted.
    pub fn check_request(&self) -> Option<Request> {
        (self.check_wanted != 0 && self.opening.is_none()).then(|| Request::Check {
            seq: self.check_wanted,
            exercise: self.exercise_id(),
            edits: self.texts.clone(),
        })
    }

    /// The starting texts of the current exercise's editable procedures.
    pub fn starts(&self) -> Edits {
        self.exercise()
            .map(|e| {
                e.procedures
                    .iter()
                    .filter(|p| p.editable)
                    .map(|p| (p.name.clone(), p.start.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Keeps only texts for editable procedures, with starts for the rest.
    fn complete(&self, edits: &Edits) -> Edits {
        let mut texts = self.starts();
        for (name, text) in texts.iter_mut() {
            if let Some(edit) = edits.get(name) {
                edit.clone_into(text);
            }
        }
        texts
    }

    /// The full texts a broken variant puts in the editors.
    pub fn mutant_texts(&self, name: &str) -> Option<Edits> {
        let exercise = self.exercise()?;
        let mutant = exercise.mutants.iter().find(|m| m.name == name)?;
        let mut texts = self.starts();
        for (procedure, text) in texts.iter_mut() {
            match mutant.procedures.get(procedure) {
                Some(replacement) => replacement.clone_into(text),
                None => {
                    if let Some(p) = exercise.procedures.iter().find(|p| &p.name == procedure) {
                        p.reference.clone_into(text);
                    }
                }
            }
        }
        Some(texts)
    }

    /// Whether the editors hold the broken variant the learner loaded.
    fn showing_mutant(&self) -> bool {
        self.loaded_mutant
            .as_deref()
            .and_then(|name| self.mutant_texts(name))
            .is_some_and(|texts| texts == self.texts)
    }

    /// Whether the learner's own texts pass every scenario: the report
    /// answers the newest check (not an older text's), and the editors do
    /// not hold a broken variant.
    pub fn solved(&self) -> bool {
        self.report_seq == self.check_wanted
            && self.report.as_ref().is_some_and(|r| r.failed == 0)
            && !self.showing_mutant()
    }

    /// The open exercise's progress, from the model itself.
    pub fn current_progress(&self) -> Progress {
        Progress {
            caught: self.caught.len(),
            passing: self.solved(),
        }
    }

    /// What the autosave writes for the current exercise.
    pub fn saved(&self) -> Saved {
        let starts = self.starts();
        let edits = self
            .texts
            .iter()
            .filter(|(name, text)| starts.get(*name) != Some(*text))
            .map(|(n, t)| (n.clone(), t.clone()))
            .collect();
        Saved {
            format: storage::SAVE_FORMAT,
            edits,
            caught: self.caught.clone(),
            passing: self.solved(),
        }
    }

    /// The exercise whose work the autosave may write now: not while its
    /// saved work is still being read, nor while a linked version is shown
    /// over saved work the learner has not chosen to replace.
    pub fn autosaved_exercise(&self) -> Option<&str> {
        if self.opening.is_some() || self.saved_aside.is_some() {
            return None;
        }
        self.exercise().map(|e| e.id.as_str())
    }

    fn replace_texts(&mut self, texts: Edits) {
        self.replace = Replace {
            generation: self.replace.generation + 1,
            texts: texts.clone(),
        };
        self.texts = texts;
        self.after_edit(0);
    }

    /// After the texts changed: every report in view is of older texts, but
    /// the scenario stays in view.
    fn after_edit(&mut self, delay_ms: i32) {
        let step = self.view.at().map_or(0, |at| at.step);
        self.view = match self.view.scenario() {
            Some(scenario) => View::checked(scenario, step),
            None => View::Nothing,
        };
        self.share_url = None;
        self.protection = Protection::Nothing;
        self.want_check(delay_ms);
    }

    /// The texts the view is about: a counterexample's, else the editors'.
    fn view_texts(&self) -> &Edits {
        match &self.view {
            View::Replay {
                without: Some(without),
                ..
            } => &without.texts,
            _ => &self.texts,
        }
    }

    fn share(&mut self, base: &str) {
        let scenario = self.view.scenario().map(str::to_string);
        let schedule = Some(self.shown_schedule()).filter(|s| !s.is_empty());
        // The link shows what is in view: a counterexample's schedule with
        // the texts it fails on.
        let link = Link {
            format: share::LINK_FORMAT,
            exercise: self.exercise_id(),
            edits: self.view_texts().clone(),
            schedule: scenario.as_ref().and(schedule),
            scenario,
        };
        self.share_url = Some(format!("{base}#{}", share::encode(&link)));
        self.announcement = "A share link is ready below the Share button.".into();
    }

    fn replay(&mut self, scenario: String, schedule: &str) {
        let schedule = match Schedule::parse(schedule) {
            Ok(schedule) => schedule,
            Err(error) => {
                let message = format!("This schedule cannot be replayed: {error}");
                self.announcement.clone_from(&message);
                self.notices.push(message);
                return;
            }
        };
        let seq = self.seq();
        // A replay of the same scenario keeps the last one in view until
        // the answer arrives (and a counterexample stays one: the schedule
        // replays on its texts); otherwise the checked report is shown.
        let (report, without) = match &self.view {
            View::Replay {
                scenario: shown,
                report,
                without,
                ..
            } if *shown == scenario => (report.clone(), without.clone()),
            _ => (None, None),
        };
        let edits = match &without {
            Some(without) => without.texts.clone(),
            None => self.texts.clone(),
        };
        let at = self.view.at().cloned().unwrap_or_default();
        self.view = View::Replay {
            scenario: scenario.clone(),
            waiting_for: Some(seq),
            report,
            at,
            without,
        };
        self.send(Request::Replay {
            seq,
            exercise: self.exercise_id(),
            edits,
            scenario,
            schedule,
        });
    }

    fn query(&mut self, sql: String) {
        let Some(report) = self.shown_report() else {
            return;
        };
        let scenario = report.name.clone();
        let schedule = self.shown_schedule();
        let seq = self.seq();
        let exercise = self.exercise_id();
        let edits = self.view_texts().clone();
        let Some(at) = self.view.at_mut() else {
            return;
        };
        at.console = Console {
            waiting_for: Some(seq),
            result: None,
        };
        let event_index = at.step;
        self.send(Request::Query {
            seq,
            exercise,
            edits,
            scenario,
            schedule,
            event_index,
            sql,
        });
    }
}

/// Applies `action` to `model`. Reads nothing but its arguments.
pub fn reduce(model: &mut Model, action: Action) {
    match action {
        Action::Worker(response) => model.respond(*response),
        Action::SavedWorkRead { exercise, loaded } => model.restore(&exercise, loaded),
        Action::ProgressRead(progress) => model.progress.extend(progress),
        Action::Open(index) => {
            model.notices.clear();
            model.open(index, None);
        }
        Action::Edited { procedure, text } => {
            if model.opening.is_none() && model.texts.get(&procedure) != Some(&text) {
                model.texts.insert(procedure, text);
                model.after_edit(CHECK_DEBOUNCE_MS);
            }
        }
        Action::RunNow => {
            if model.opening.is_none() {
                model.want_check(0);
            }
        }
        Action::Select(name) => model.select(name),
        Action::Step(index) => model.go_to_step(index),
        Action::StepBy(delta) => model.step_by(delta),
        Action::LoadMutant(name) => {
            if let Some(texts) = model.mutant_texts(&name) {
                model.replace_texts(texts);
                model.loaded_mutant = Some(name);
            }
        }
        Action::Reset => {
            let starts = model.starts();
            model.replace_texts(starts);
            model.loaded_mutant = None;
        }
        Action::ShowHint => {
            let total = model.exercise().map(|e| e.hints.len()).unwrap_or(0);
            model.hints_shown = (model.hints_shown + 1).min(total);
        }
        Action::DriveStart(scenario) => {
            model.view = View::Driving(DriveState::new(scenario));
            model.request_drive();
        }
        Action::DriveMove(process) => model.change_drive(|schedule| schedule.push(process)),
        Action::DriveUndo => model.change_drive(|schedule| {
            schedule.pop();
        }),
        Action::DriveRestart => model.change_drive(Schedule::clear),
        Action::DriveStop => {
            if let View::Driving(drive) = &model.view {
                model.view = View::checked(&drive.scenario, 0);
                model.focus();
            }
        }
        Action::Replay { scenario, schedule } => model.replay(scenario, &schedule),
        Action::Share { base } => model.share(&base),
        Action::BackToSaved => {
            if let Some(saved) = model.saved_aside.take() {
                model.replace_texts(saved);
                model.notices.clear();
                model.announcement = "Your saved version is back in the editor.".into();
            }
        }
        Action::KeepLinked => {
            model.saved_aside = None;
            model.notices.clear();
            model.announcement = "The linked version is now your saved work.".into();
        }
        Action::Query(sql) => model.query(sql),
        Action::DismissNotices => model.notices.clear(),
        Action::ShowCounterexample {
            procedure,
            line,
            change,
        } => model.show_counterexample(&procedure, line, change),
    }
}

impl Reducible for Model {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut model = (*self).clone();
        reduce(&mut model, action);
        Rc::new(model)
    }
}

/// Groups exercise indices by lesson, in first-appearance order.
pub fn lessons(exercises: &[Exercise]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, exercise) in exercises.iter().enumerate() {
        match groups
            .iter_mut()
            .find(|(lesson, _)| *lesson == exercise.lesson)
        {
            Some((_, list)) => list.push(i),
            None => groups.push((exercise.lesson.clone(), vec![i])),
        }
    }
    groups
}
