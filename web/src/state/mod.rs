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

mod embed;
mod hunt;
mod open;
mod progress;
mod protect;
mod respond;
mod site;
mod theme;
mod view;

#[cfg(test)]
mod tests;

pub use embed::Embedding;
pub use hunt::{Challenge, FoundBreak, HuntTarget, HuntTargets, HuntText};
pub use open::{Opening, Start};
pub use progress::Given;
pub use protect::{Protection, Without};
pub use site::SiteExercises;
pub use theme::Theme;
pub use view::{At, Console, DriveState, SharedReport, View};

use crate::embed::protocol::{HostRequest, Refusal};
use crate::share::{self, Link};
use crate::storage::{self, Loaded, Progress, Saved};
use fencelab_model::{Exercise, ExerciseReport, Schedule};
use fencelab_protocol::{Edits, Request, Response};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use yew::Reducible;

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
    /// The exercise the address names, not bundled: waited for until the
    /// site's own exercises have arrived (`site.rs`). Nothing is open
    /// meanwhile.
    pub awaiting: Option<Opening>,
    /// The exercise the address names that this site does not have: the
    /// notice that says so is shown instead of any exercise (the page lists
    /// those it has under it).
    pub missing: Option<String>,
    /// The id of the exercise the address's exercise link (`#x1=`) carried:
    /// a site file with the same id gives way to it.
    linked: Option<String>,
    /// Whether the site's own exercises have arrived (or it has none).
    pub site_loaded: bool,
    /// The seqs of `Install` requests not yet answered.
    installing: BTreeSet<u64>,
    /// The exercise being opened, until its saved work has been read.
    pub opening: Option<Opening>,
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
    /// The worker's SQLite, once it has started.
    pub sqlite_version: Option<String>,
    pub view: View,
    /// The step to select once the view's report arrives: the one a link or
    /// the saved work had selected. Any step the learner picks replaces it.
    step_wanted: Option<usize>,
    pub hints_shown: usize,
    /// The broken variant last loaded, whose explanation is shown.
    pub loaded_mutant: Option<String>,
    /// Texts the page put in the editors, unedited since: not the learner's
    /// own, so never solved (`progress.rs`).
    pub given: Option<Given>,
    /// The learner chose to start from the working version (the
    /// references), where the exercise offers it.
    pub working: bool,
    /// Broken variants the learner loaded and watched fail.
    pub seen: BTreeSet<String>,
    /// The challenge open ("break it yourself"), if any (`hunt.rs`).
    pub challenge: Option<Challenge>,
    /// The breaks the learner found by hand in challenges: progress kept
    /// apart from repairs.
    pub hunted: Vec<FoundBreak>,
    /// Progress saved for each exercise, as the app's effects read it.
    pub progress: BTreeMap<String, Progress>,
    pub notices: Vec<String>,
    /// The learner's saved work, set aside while a shared link is shown.
    pub saved_aside: Option<Edits>,
    pub share_url: Option<String>,
    pub announcement: String,
    /// Which lines of the learner's passing texts the scenarios protect.
    pub protection: Protection,
    /// Counts the times the timeline should come into view and take the
    /// keyboard focus (a scenario was chosen, a counterexample the learner
    /// asked for has arrived); the app's effect moves it when this changes.
    pub focus_timeline: u64,
    /// Counts the times the drive panel should come into view and take the
    /// focus (the learner started a drive).
    pub focus_drive: u64,
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
    /// The worker answered.
    Worker(Box<Response>),
    /// The saved work of the exercise being opened, as the app read it.
    SavedWorkRead {
        exercise: String,
        loaded: Loaded,
    },
    /// Progress saved for these exercises, as the app read it.
    ProgressRead(BTreeMap<String, Progress>),
    /// The site's own exercises, as the app fetched them.
    SiteExercises(SiteExercises),
    Open(usize),
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
    LoadMutant(String),
    Reset,
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

impl Model {
    /// The open exercise: none while the one the address names is awaited
    /// or missing.
    pub fn exercise(&self) -> Option<&Exercise> {
        if self.awaiting.is_some() || self.missing.is_some() {
            return None;
        }
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

    fn want_check(&mut self) {
        self.check_wanted = self.seq();
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

    /// The working version: the references of the editable procedures.
    pub fn working_texts(&self) -> Edits {
        self.exercise()
            .map(|e| {
                e.procedures
                    .iter()
                    .filter(|p| p.editable)
                    .map(|p| (p.name.clone(), p.reference.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// What Reset puts back: the working version when the learner chose to
    /// start from it, else the starting texts.
    fn chosen_starts(&self) -> (Edits, Given) {
        if self.working {
            (self.working_texts(), Given::WorkingVersion)
        } else {
            (self.starts(), Given::Start)
        }
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
            seen: self.seen.clone(),
            passing: self.solved(),
            hunts: self.hunted.clone(),
            given: self.given.clone(),
            working: self.working,
            view: self.shown_now(false),
            hints: self.hints_shown,
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

    /// Puts `texts` in the editors as one undoable change each.
    fn replace_texts(&mut self, texts: Edits) {
        self.replace = Replace {
            generation: self.replace.generation + 1,
            texts: texts.clone(),
        };
        self.texts = texts;
        self.after_edit();
    }

    /// After the texts changed: every report in view is of older texts, but
    /// the scenario stays in view.
    fn after_edit(&mut self) {
        let step = self.view.at().map_or(0, |at| at.step);
        self.view = match self.view.scenario() {
            Some(scenario) => View::checked(scenario, step),
            None => View::Nothing,
        };
        self.share_url = None;
        self.protection = Protection::Nothing;
        // The challenge's text is no longer the one the page gave.
        self.challenge = None;
        self.want_check();
    }

    /// The texts the view is about: a counterexample's, else the editors'.
    pub fn view_texts(&self) -> &Edits {
        match &self.view {
            View::Replay {
                without: Some(without),
                ..
            } => &without.texts,
            _ => &self.texts,
        }
    }

    fn share(&mut self, base: &str) {
        // The link shows what is in view: a counterexample's schedule with
        // the texts it fails on, a drive's moves so far, a replay's schedule
        // as asked for (so an error stays an error), and the step.
        let shown = self.shown_now(true);
        let link = Link {
            format: share::LINK_FORMAT,
            exercise: self.exercise_id(),
            edits: self.view_texts().clone(),
            scenario: shown.as_ref().map(|s| s.scenario.clone()),
            schedule: shown.as_ref().and_then(|s| s.schedule.clone()),
            drive: shown.as_ref().is_some_and(|s| s.drive),
            hunt: shown.as_ref().and_then(|s| s.hunt.clone()),
            step: shown.as_ref().and_then(|s| s.step),
            hints: self.hints_shown,
        };
        // A link made in an embed opens as one (without a parent to report to).
        let query = if self.embed {
            format!("?embed=1&exercise={}", link.exercise)
        } else {
            String::new()
        };
        self.share_url = Some(format!("{base}{query}#{}", share::encode(&link)));
        self.announcement = "A share link is ready below the Share button.".into();
    }

    /// The processes `scenario` interleaves: those of its concurrent
    /// sections, in order of first appearance.
    pub fn interleaved(&self, scenario: &str) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let sections = self
            .exercise()
            .and_then(|e| e.scenarios.iter().find(|s| s.name == scenario))
            .into_iter()
            .flat_map(|s| &s.steps)
            .filter_map(|step| step.concurrent.as_ref());
        for call in sections.flatten() {
            if !names.contains(&call.process) {
                names.push(call.process.clone());
            }
        }
        names
    }

    /// The schedule typed as one this scenario can follow, or why not.
    fn schedule_for(&self, scenario: &str, typed: &str) -> Result<Schedule, String> {
        let schedule = Schedule::parse(typed).map_err(|error| error.to_string())?;
        let names = self.interleaved(scenario);
        if names.is_empty() {
            return Err(format!(
                "“{scenario}” runs nothing concurrently, so it has one order only"
            ));
        }
        match schedule.moves().iter().find(|m| !names.contains(m)) {
            Some(unknown) => Err(format!(
                "`{unknown}` is not a process that “{scenario}” interleaves (it interleaves {})",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => Ok(schedule),
        }
    }

    fn replay(&mut self, scenario: String, schedule: &str) {
        self.step_wanted = None;
        let schedule = match self.schedule_for(&scenario, schedule) {
            Ok(schedule) => schedule,
            Err(error) => {
                let message = format!("This schedule cannot be replayed: {error}");
                self.announcement.clone_from(&message);
                self.notices.push(message);
                return;
            }
        };
        self.send_replay(scenario, schedule);
    }

    /// Asks for a replay of `schedule`, which the view waits for.
    fn send_replay(&mut self, scenario: String, schedule: Schedule) {
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
            schedule: schedule.clone(),
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
            sql: sql.clone(),
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
        Action::SiteExercises(site) => model.site_exercises(site),
        Action::Open(index) => {
            model.notices.clear();
            model.open(index, None);
        }
        Action::Edited { procedure, text } => {
            if model.opening.is_none() && model.texts.get(&procedure) != Some(&text) {
                model.texts.insert(procedure, text);
                // From now on the texts are the learner's own.
                model.given = None;
                model.after_edit();
            }
        }
        Action::RunNow => {
            if model.opening.is_none() {
                model.want_check();
                // Said now, so the verdicts that follow are announced even
                // when they read as before.
                model.announcement = "Checking your procedures now…".into();
            }
        }
        Action::StartFromWorking(working) => {
            if model.opening.is_none()
                && (!working
                    || model
                        .exercise()
                        .is_some_and(|e| e.working_version.is_some()))
            {
                model.working = working;
                let (texts, given) = model.chosen_starts();
                model.replace_texts(texts);
                model.given = Some(given);
                model.loaded_mutant = None;
                model.announcement = if working {
                    "The working version is in the editor; it passes every scenario. Now break it."
                } else {
                    "The starting text is back in the editor."
                }
                .into();
            }
        }
        Action::SetTheme(theme) => model.theme = theme,
        Action::Select(name) => model.select(name),
        Action::Step(index) => model.go_to_step(index),
        Action::StepBy(delta) => model.step_by(delta),
        Action::LoadMutant(name) => {
            if let Some(texts) = model.mutant_texts(&name) {
                model.replace_texts(texts);
                model.given = Some(Given::Variant(name.clone()));
                model.loaded_mutant = Some(name);
            }
        }
        Action::Reset => {
            let (texts, given) = model.chosen_starts();
            model.replace_texts(texts);
            model.given = Some(given);
            model.loaded_mutant = None;
        }
        Action::ShowHint => {
            let total = model.exercise().map(|e| e.hints.len()).unwrap_or(0);
            model.hints_shown = (model.hints_shown + 1).min(total);
        }
        Action::DriveStart(scenario) => {
            model.step_wanted = None;
            model.view = View::Driving(DriveState::new(scenario, Schedule::new()));
            model.request_drive();
            model.focus_drive += 1;
        }
        Action::DriveMove(process) => model.change_drive(|schedule| schedule.push(process)),
        Action::DriveUndo => model.change_drive(|schedule| {
            schedule.pop();
        }),
        Action::DriveRestart => model.change_drive(Schedule::clear),
        Action::DriveStop => {
            if model.challenge.is_some() {
                // Back to the challenge's scenarios, never to a checked
                // counterexample.
                model.step_wanted = None;
                model.view = View::Nothing;
            } else if let View::Driving(drive) = &model.view {
                model.step_wanted = None;
                model.view = View::checked(&drive.scenario, 0);
                model.focus();
            }
        }
        Action::HuntStart(text) => model.hunt_start(text),
        Action::HuntLeave => model.hunt_leave(),
        Action::Replay { scenario, schedule } => model.replay(scenario, &schedule),
        Action::Share { base } => model.share(&base),
        Action::BackToSaved => {
            if let Some(saved) = model.saved_aside.take() {
                model.replace_texts(saved);
                model.given = None;
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
        Action::Host(message) => model.host(message),
    }
    model.tell_parent();
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

/// The exercise after `current` in the list's order (lessons in order, each
/// lesson's exercises in order), and the lesson it opens when it begins
/// another: what the page offers once `current` is solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Next {
    pub index: usize,
    /// The next exercise's lesson, when it is not `current`'s.
    pub new_lesson: Option<String>,
}

/// What comes after exercise `current`; `None` after the last one.
pub fn next_exercise(exercises: &[Exercise], current: usize) -> Option<Next> {
    let order: Vec<usize> = lessons(exercises)
        .into_iter()
        .flat_map(|(_, indices)| indices)
        .collect();
    let at = order.iter().position(|&i| i == current)?;
    let index = *order.get(at + 1)?;
    let lesson = &exercises[index].lesson;
    Some(Next {
        index,
        new_lesson: (*lesson != exercises[current].lesson).then(|| lesson.clone()),
    })
}
