//! The page's state and the one reducer that changes it.
//!
//! Every change is an [`Action`]. Requests for the worker are not sent from
//! here: the reducer queues them in `outbox` (with a new `outbox_generation`)
//! and asks for checks by raising `check_wanted`, and the app's effects send
//! them. So the reducer stays a plain function of (state, action).

use crate::beliefs;
use crate::protocol::{Edits, Request, Response};
use crate::share::{self, Link};
use crate::storage::{self, Loaded, Saved};
use fencelab_core::check::Drive;
use fencelab_core::history::{ResultRows, What};
use fencelab_core::{Exercise, ExerciseReport, ScenarioReport, Verdict};
use std::collections::BTreeSet;
use std::rc::Rc;
use yew::Reducible;

/// How long typing must pause before a check starts, in milliseconds.
pub const CHECK_DEBOUNCE_MS: i32 = 200;
/// Requests kept in the outbox; the app sends them within one render.
const OUTBOX_KEPT: usize = 16;
/// The longest text accepted for one procedure from a link.
const LINK_PROCEDURE_BYTES_MAX: usize = fencelab_core::procedure::PROCEDURE_TEXT_BYTES_MAX;

/// Which report the timeline draws.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    /// The selected scenario's report from the latest check.
    Checked,
    /// A replayed schedule (from a link, or "replay").
    Replayed(Box<ScenarioReport>),
    /// The scenario the learner is driving by hand.
    Driving,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DriveState {
    pub scenario: String,
    pub schedule: Vec<String>,
    pub last: Option<Box<Drive>>,
    /// The seq of the newest drive request; its answer ends the wait.
    pub waiting_for: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConsoleState {
    pub seq: u64,
    pub result: Option<Result<ResultRows, String>>,
}

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
    /// The editable procedures' current texts.
    pub texts: Edits,
    pub replace: Replace,
    /// Raised on every change that needs a check; the check's seq.
    pub check_wanted: u64,
    pub check_delay_ms: i32,
    pub report: Option<ExerciseReport>,
    /// The worker's SQLite, once it has started.
    pub sqlite_version: Option<String>,
    pub selected: Option<String>,
    pub shown: Shown,
    pub step: usize,
    pub drive: Option<DriveState>,
    pub hints_shown: usize,
    pub loaded_mutant: Option<String>,
    pub caught: BTreeSet<String>,
    pub notices: Vec<String>,
    /// The learner's saved work, set aside while a shared link is shown.
    pub saved_aside: Option<Edits>,
    pub share_url: Option<String>,
    pub console: ConsoleState,
    pub announcement: String,
    /// Requests for the worker, newest last, each with its id; the app
    /// sends those it has not sent yet.
    pub outbox: Vec<(u64, Request)>,
    /// The seq of the check whose report is shown.
    pub checked_seq: u64,
    next_seq: u64,
}

pub enum Action {
    /// The worker answered.
    Worker(Box<Response>),
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
    /// Replay the shown schedule (after the learner typed one in).
    Replay {
        scenario: String,
        schedule: String,
    },
    Share,
    BackToSaved,
    /// Keep the linked version as this exercise's work (autosave resumes).
    KeepLinked,
    Query(String),
    DismissNotices,
}

/// The URL the page was opened with, parsed.
pub struct Start {
    pub exercise: Option<String>,
    pub embed: bool,
    pub fragment: String,
}

impl Model {
    pub fn new(start: Start) -> Model {
        let (exercises, load_error) = match fencelab_core::bundled::catalog() {
            Ok(list) => (list, None),
            Err(error) => (Vec::new(), Some(error.to_string())),
        };
        let mut model = Model {
            exercises: Rc::new(exercises),
            load_error,
            embed: start.embed,
            current: 0,
            texts: Edits::new(),
            replace: Replace::default(),
            check_wanted: 0,
            check_delay_ms: 0,
            report: None,
            sqlite_version: None,
            selected: None,
            shown: Shown::Checked,
            step: 0,
            drive: None,
            hints_shown: 0,
            loaded_mutant: None,
            caught: BTreeSet::new(),
            notices: Vec::new(),
            saved_aside: None,
            share_url: None,
            console: ConsoleState::default(),
            announcement: String::new(),
            outbox: Vec::new(),
            checked_seq: 0,
            next_seq: 0,
        };
        let by_id = |id: &str| model.exercises.iter().position(|e| e.id == id);
        if !start.fragment.is_empty() && share::is_link(&start.fragment) {
            match share::decode(&start.fragment) {
                Ok(link) => match by_id(&link.exercise) {
                    Some(index) => {
                        model.open_link(index, link);
                        return model;
                    }
                    None => model.notices.push(format!(
                        "This link names an exercise this page does not have (`{}`); your own work is shown instead.",
                        link.exercise
                    )),
                },
                Err(message) => model.notices.push(format!(
                    "This link could not be opened: {message}. Your own work is shown instead."
                )),
            }
        }
        let index = start.exercise.as_deref().and_then(by_id).unwrap_or(0);
        model.open(index);
        model
    }

    pub fn exercise(&self) -> Option<&Exercise> {
        self.exercises.get(self.current)
    }

    fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    fn send(&mut self, request: Request) {
        let id = self.seq();
        self.outbox.push((id, request));
        let excess = self.outbox.len().saturating_sub(OUTBOX_KEPT);
        self.outbox.drain(..excess);
    }

    /// Whether a check is wanted whose report has not come back yet.
    pub fn checking(&self) -> bool {
        self.checked_seq != self.check_wanted
    }

    fn want_check(&mut self, delay_ms: i32) {
        self.check_wanted = self.seq();
        self.check_delay_ms = delay_ms;
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

    fn reset_views(&mut self) {
        self.report = None;
        self.selected = None;
        self.shown = Shown::Checked;
        self.step = 0;
        self.drive = None;
        self.hints_shown = 0;
        self.loaded_mutant = None;
        self.share_url = None;
        self.console = ConsoleState::default();
        self.saved_aside = None;
    }

    fn open(&mut self, index: usize) {
        self.current = index.min(self.exercises.len().saturating_sub(1));
        self.reset_views();
        // Editors of the newly opened exercise start from `texts`; a pending
        // replacement belongs to the exercise before.
        self.replace.texts.clear();
        let Some(id) = self.exercise().map(|e| e.id.clone()) else {
            return;
        };
        self.caught.clear();
        self.texts = self.starts();
        match storage::load(&id) {
            Loaded::Nothing => {}
            Loaded::Saved(saved) => {
                self.texts = self.complete(&saved.edits);
                self.caught = saved.caught;
            }
            Loaded::SetAside { message, aside_key } => self.notices.push(format!(
                "Your saved work for this exercise could not be read ({message}). It was set aside under the key `{aside_key}` in this browser's storage, and the exercise starts from its starting text."
            )),
        }
        self.want_check(0);
    }

    fn open_link(&mut self, index: usize, link: Link) {
        self.open(index);
        let mut edits = Edits::new();
        for (name, text) in link.edits {
            if text.len() <= LINK_PROCEDURE_BYTES_MAX {
                edits.insert(name, text);
            }
        }
        let linked = self.complete(&edits);
        if linked != self.texts {
            if self.texts != self.starts() {
                self.saved_aside = Some(self.texts.clone());
            }
            self.texts = linked;
        }
        self.notices.push(
            "You are looking at the version in the link you opened.".to_string()
                + if self.saved_aside.is_some() {
                    " Your own saved version is one click away: \"Back to my saved version\". \
                     Until you choose \"Keep this version\", your saved work is left as it was."
                } else {
                    ""
                },
        );
        if let Some(scenario) = link.scenario {
            self.selected = Some(scenario.clone());
            if let Some(schedule) = link.schedule {
                let seq = self.seq();
                self.send(Request::Replay {
                    seq,
                    exercise: self.exercise().map(|e| e.id.clone()).unwrap_or_default(),
                    edits: self.texts.clone(),
                    scenario,
                    schedule,
                });
            }
        }
    }

    fn replace_texts(&mut self, texts: Edits) {
        self.replace = Replace {
            generation: self.replace.generation + 1,
            texts: texts.clone(),
        };
        self.texts = texts;
        self.after_edit(0);
    }

    fn after_edit(&mut self, delay_ms: i32) {
        self.shown = Shown::Checked;
        self.drive = None;
        self.share_url = None;
        self.console = ConsoleState::default();
        self.want_check(delay_ms);
    }

    /// What the autosave writes for the current exercise.
    pub fn saved(&self) -> Saved {
        let edits = self
            .texts
            .iter()
            .filter(|(name, text)| self.starts().get(*name) != Some(*text))
            .map(|(n, t)| (n.clone(), t.clone()))
            .collect();
        Saved {
            format: storage::SAVE_FORMAT,
            edits,
            caught: self.caught.clone(),
            passing: self.report.as_ref().is_some_and(|r| r.failed == 0),
        }
    }

    /// The report the timeline draws, if any.
    pub fn shown_report(&self) -> Option<&ScenarioReport> {
        match &self.shown {
            Shown::Checked => {
                let name = self.selected.as_ref()?;
                self.report
                    .as_ref()?
                    .scenarios
                    .iter()
                    .find(|s| &s.name == name)
            }
            Shown::Replayed(report) => Some(report),
            Shown::Driving => self.drive.as_ref()?.last.as_ref().map(|d| &d.report),
        }
    }

    /// The schedule of the shown report (for links and the console).
    pub fn shown_schedule(&self) -> String {
        match (&self.shown, &self.drive) {
            (Shown::Driving, Some(drive)) => drive.schedule.join(" "),
            _ => self
                .shown_report()
                .map(|r| r.schedule.clone())
                .unwrap_or_default(),
        }
    }

    fn default_step(report: &ScenarioReport) -> usize {
        report
            .failure
            .as_ref()
            .and_then(|f| f.event_index)
            .unwrap_or(report.history.len().saturating_sub(1))
    }

    fn show_step(&mut self) {
        self.console = ConsoleState::default();
        if let Some(text) = self.describe_step() {
            self.announcement = text;
        }
    }

    /// "worker-b: claim, UPDATE changed 1 row, now believes it holds message msg-1".
    pub fn describe_step(&self) -> Option<String> {
        let report = self.shown_report()?;
        let event = report.history.get(self.step)?;
        let who = event
            .actor
            .clone()
            .or(event.process.clone())
            .unwrap_or_else(|| "the world".into());
        let what = match &event.what {
            What::ProcessStarted => "starts".to_string(),
            What::ProcessCrashed { .. } => "crashes".to_string(),
            What::ClockSet { to_seconds, .. } => format!("the clock is set to {to_seconds} s"),
            What::CallStarted { .. } => "calls it".to_string(),
            What::Statement { sql, changed, .. } => {
                let verb = sql.split_whitespace().next().unwrap_or("statement");
                format!(
                    "{verb} changed {changed} row{}",
                    if *changed == 1 { "" } else { "s" }
                )
            }
            What::Blocked { .. } => "waits for the lock".to_string(),
            What::Effect { name, .. } => format!("effect {name}"),
            What::CallFinished { outcome, .. } => format!("the call ends {}", outcome.kind()),
            What::DirectSql { changed, .. } => format!("direct SQL changed {changed} rows"),
        };
        let procedure = event
            .procedure
            .as_ref()
            .map(|p| format!("{p}, "))
            .unwrap_or_default();
        let mut text = format!("Step {}: {who}: {procedure}{what}", self.step + 1);
        if let (Some(exercise), Some(process)) = (self.exercise(), &event.process) {
            let all = beliefs::after_each_event(&exercise.model.beliefs, &report.history);
            let held: Vec<String> = all
                .get(self.step)
                .map(|list| {
                    list.iter()
                        .filter(|b| &b.process == process)
                        .map(beliefs::describe)
                        .collect()
                })
                .unwrap_or_default();
            if !held.is_empty() {
                text += &format!(", now believes it holds {}", held.join(", "));
            }
        }
        Some(text)
    }

    fn checked(&mut self, seq: u64, report: ExerciseReport) {
        if seq != self.check_wanted {
            return; // a stale check: a newer edit superseded it
        }
        self.checked_seq = seq;
        let total = report.scenarios.len();
        self.announcement = format!(
            "{} of {total} scenario{} pass",
            report.passed,
            if total == 1 { "" } else { "s" }
        );
        if let Some(mutant) = &self.loaded_mutant
            && report
                .scenarios
                .iter()
                .any(|s| s.verdict == Verdict::Failed)
            && self.mutant_texts(mutant).as_ref() == Some(&self.texts)
        {
            self.caught.insert(mutant.clone());
        }
        let still_there = self
            .selected
            .as_ref()
            .is_some_and(|name| report.scenarios.iter().any(|s| &s.name == name));
        if !still_there {
            self.selected = report
                .scenarios
                .iter()
                .find(|s| !s.passed)
                .map(|s| s.name.clone());
        }
        self.report = Some(report);
        if self.shown == Shown::Checked
            && let Some(shown) = self.shown_report()
        {
            self.step = Model::default_step(shown);
        }
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

    fn request_drive(&mut self) {
        let seq = self.seq();
        let exercise = self.exercise_id();
        let edits = self.texts.clone();
        let Some(drive) = &mut self.drive else { return };
        drive.waiting_for = Some(seq);
        let request = Request::Drive {
            seq,
            exercise,
            edits,
            scenario: drive.scenario.clone(),
            schedule: drive.schedule.clone(),
        };
        self.send(request);
    }

    fn exercise_id(&self) -> String {
        self.exercise().map(|e| e.id.clone()).unwrap_or_default()
    }
}

impl Reducible for Model {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut model = (*self).clone();
        match action {
            Action::Worker(response) => match *response {
                Response::Ready { sqlite_version } => model.sqlite_version = Some(sqlite_version),
                Response::Checked { seq, report } => model.checked(seq, report),
                Response::Replayed { report, .. } => {
                    model.selected = Some(report.name.clone());
                    model.step = Model::default_step(&report);
                    model.console = ConsoleState::default();
                    model.announcement = format!(
                        "Replayed the schedule {}: {}",
                        report.schedule,
                        verdict_word(report.verdict)
                    );
                    model.shown = Shown::Replayed(Box::new(report));
                }
                Response::Driven { seq, drive } => {
                    if let Some(state) = &mut model.drive
                        && state.scenario == drive.report.name
                        && state.waiting_for == Some(seq)
                    {
                        state.waiting_for = None;
                        model.step = drive.report.history.len().saturating_sub(1);
                        if drive.finished {
                            model.announcement = match &drive.report.failure {
                                Some(failure) => {
                                    format!("Your schedule fails: {}", failure.message)
                                }
                                None => format!(
                                    "Your schedule finished: {}",
                                    verdict_word(drive.report.verdict)
                                ),
                            };
                        }
                        state.last = Some(Box::new(drive));
                        if !model
                            .drive
                            .as_ref()
                            .and_then(|d| d.last.as_ref())
                            .is_some_and(|d| d.finished)
                            && let Some(text) = model.describe_step()
                        {
                            model.announcement = text;
                        }
                    }
                }
                Response::Queried { seq, result } => {
                    if seq == model.console.seq {
                        model.console.result = Some(result);
                    }
                }
                Response::Failed { seq, message } => {
                    if seq == model.console.seq && seq != 0 {
                        model.console.result = Some(Err(message));
                    } else {
                        model.notices.push(message);
                    }
                }
            },
            Action::Open(index) => {
                model.notices.clear();
                model.open(index);
            }
            Action::Edited { procedure, text } => {
                if model.texts.get(&procedure) != Some(&text) {
                    model.texts.insert(procedure, text);
                    model.after_edit(CHECK_DEBOUNCE_MS);
                }
            }
            Action::RunNow => model.want_check(0),
            Action::Select(name) => {
                if model.selected.as_ref() != Some(&name) || model.shown != Shown::Checked {
                    model.selected = Some(name);
                    model.shown = Shown::Checked;
                    model.drive = None;
                    if let Some(report) = model.shown_report() {
                        model.step = Model::default_step(report);
                    }
                    model.show_step();
                }
            }
            Action::Step(index) => {
                model.step = index;
                model.show_step();
            }
            Action::StepBy(delta) => {
                let len = model.shown_report().map(|r| r.history.len()).unwrap_or(0);
                if len > 0 {
                    let next = (model.step as isize + delta).clamp(0, len as isize - 1);
                    model.step = next as usize;
                    model.show_step();
                }
            }
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
                model.selected = Some(scenario.clone());
                model.drive = Some(DriveState {
                    scenario,
                    schedule: Vec::new(),
                    last: None,
                    waiting_for: None,
                });
                model.shown = Shown::Driving;
                model.request_drive();
            }
            Action::DriveMove(process) => {
                if let Some(drive) = &mut model.drive {
                    drive.schedule.push(process);
                    model.request_drive();
                }
            }
            Action::DriveUndo => {
                if let Some(drive) = &mut model.drive {
                    drive.schedule.pop();
                    model.request_drive();
                }
            }
            Action::DriveRestart => {
                if let Some(drive) = &mut model.drive {
                    drive.schedule.clear();
                    model.request_drive();
                }
            }
            Action::DriveStop => {
                model.drive = None;
                model.shown = Shown::Checked;
                if let Some(report) = model.shown_report() {
                    model.step = Model::default_step(report);
                }
            }
            Action::Replay { scenario, schedule } => {
                let seq = model.seq();
                let exercise = model.exercise_id();
                let edits = model.texts.clone();
                model.drive = None;
                model.send(Request::Replay {
                    seq,
                    exercise,
                    edits,
                    scenario,
                    schedule,
                });
            }
            Action::Share => {
                let scenario = model.selected.clone();
                let schedule = Some(model.shown_schedule()).filter(|s| !s.is_empty());
                let link = Link {
                    format: share::LINK_FORMAT,
                    exercise: model.exercise_id(),
                    edits: model.texts.clone(),
                    scenario: scenario.clone(),
                    schedule: scenario.and(schedule),
                };
                let base = web_sys::window()
                    .and_then(|w| {
                        let location = w.location();
                        Some(format!(
                            "{}{}",
                            location.origin().ok()?,
                            location.pathname().ok()?
                        ))
                    })
                    .unwrap_or_default();
                model.share_url = Some(format!("{base}#{}", share::encode(&link)));
                model.announcement = "A share link is ready below the Share button.".into();
            }
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
            Action::Query(sql) => {
                if let Some(report) = model.shown_report() {
                    let scenario = report.name.clone();
                    let schedule = model.shown_schedule();
                    let seq = model.seq();
                    model.console = ConsoleState { seq, result: None };
                    let exercise = model.exercise_id();
                    let edits = model.texts.clone();
                    let event_index = model.step;
                    model.send(Request::Query {
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
            Action::DismissNotices => model.notices.clear(),
        }
        Rc::new(model)
    }
}

/// The verdict in words, for text that must not rely on colour.
pub fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Passed => "passed",
        Verdict::Failed => "failed",
        Verdict::Error => "error",
        Verdict::LimitShown => "limit shown",
    }
}

/// Progress shown in the exercise list for exercises not open now.
pub fn progress_of(exercise: &Exercise) -> (usize, bool) {
    storage::peek(&exercise.id)
        .map(|s| (s.caught.len(), s.passing))
        .unwrap_or((0, false))
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
