//! What the timeline shows: one [`View`] at a time, the step in view and the
//! console about that moment, and the sentence announced for each step.
//!
//! Everything said about a step comes from the report: its event, and what
//! the checker recorded every process believing after it
//! (`ScenarioReport::beliefs`). Nothing here recomputes either.

use super::{OpenExercise, Playground, Without};
use crate::share::Shown;
use fencelab_model::history::{ResultRows, What};
use fencelab_model::{Drive, Exercise, ExerciseReport, HuntVerdict, ScenarioReport, Schedule};
use fencelab_protocol::Request;
use std::ops::Deref;
use std::rc::Rc;

/// The console's state for the step in view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Console {
    /// The query asked last.
    pub sql: String,
    /// The seq of the query whose answer is awaited.
    pub waiting_for: Option<u64>,
    pub result: Option<Result<ResultRows, String>>,
}

/// The step in view, and the console about the world after it. A new step
/// is a new moment: the console starts empty.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct At {
    pub step: usize,
    pub console: Console,
}

impl At {
    pub fn step(step: usize) -> At {
        At {
            step,
            console: Console::default(),
        }
    }
}

/// A scenario driven by hand.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveState {
    pub scenario: String,
    /// The moves chosen so far.
    pub schedule: Schedule,
    /// The worker's answer to the newest move it has answered.
    pub last: Option<Rc<Drive>>,
    /// The seq of the move whose answer is awaited.
    pub waiting_for: Option<u64>,
    /// Why the worker could not take the last move asked for.
    pub failed: Option<String>,
    /// In a challenge: the worker's verdict on the moves of `last` as a
    /// hunt (`hunt.rs`); shared, as `last` is, and so the view stays small.
    pub verdict: Option<Rc<HuntVerdict>>,
    pub at: At,
}

impl DriveState {
    /// A drive of `scenario` that has made the moves of `schedule`.
    pub fn new(scenario: String, schedule: Schedule) -> DriveState {
        DriveState {
            scenario,
            schedule,
            last: None,
            waiting_for: None,
            failed: None,
            verdict: None,
            at: At::default(),
        }
    }
}

/// What the timeline shows.
#[derive(Clone, Debug, PartialEq)]
pub enum View {
    /// No scenario (before the first report, or every scenario passes).
    Nothing,
    /// A scenario's report from the latest check.
    Checked {
        scenario: String,
        at: At,
    },
    /// A schedule replayed on request. Until the worker answers (`report`
    /// is `None`), the scenario's checked report stays in view, unless the
    /// replay is a counterexample (`without`): the learner's own passing run
    /// is not that.
    Replay {
        scenario: String,
        /// The schedule asked for. The report's own schedule is the moves
        /// actually made, which stop early when the replay ends in an error.
        schedule: Schedule,
        waiting_for: Option<u64>,
        report: Option<Rc<ScenarioReport>>,
        at: At,
        /// The line changed, when this is the counterexample of a line mark.
        without: Option<Rc<Without>>,
    },
    Driving(DriveState),
}

impl View {
    pub fn checked(scenario: &str, step: usize) -> View {
        View::Checked {
            scenario: scenario.to_string(),
            at: At::step(step),
        }
    }

    /// The counterexample in view, if the view is one.
    pub fn without(&self) -> Option<&Rc<Without>> {
        match self {
            View::Replay { without, .. } => without.as_ref(),
            _ => None,
        }
    }

    /// The scenario in view.
    pub fn scenario(&self) -> Option<&str> {
        match self {
            View::Nothing => None,
            View::Checked { scenario, .. } | View::Replay { scenario, .. } => Some(scenario),
            View::Driving(drive) => Some(&drive.scenario),
        }
    }

    pub fn at(&self) -> Option<&At> {
        match self {
            View::Nothing => None,
            View::Checked { at, .. } | View::Replay { at, .. } => Some(at),
            View::Driving(drive) => Some(&drive.at),
        }
    }

    pub fn at_mut(&mut self) -> Option<&mut At> {
        match self {
            View::Nothing => None,
            View::Checked { at, .. } | View::Replay { at, .. } => Some(at),
            View::Driving(drive) => Some(&mut drive.at),
        }
    }

    /// The step in view (0 when there is none).
    pub fn step(&self) -> usize {
        self.at().map_or(0, |at| at.step)
    }
}

/// A report in view, shared with the playground rather than copied: a scenario of
/// the latest check, a replay, or a drive. Two are equal when they are the
/// same report, so components re-render only when the report changed.
#[derive(Clone, Debug)]
pub enum SharedReport {
    Checked {
        exercise: Rc<ExerciseReport>,
        /// The scenario's index in `exercise.scenarios`, always valid: it
        /// was found there, and the report behind an `Rc` never changes.
        index: usize,
    },
    Replay(Rc<ScenarioReport>),
    Drive(Rc<Drive>),
}

impl Deref for SharedReport {
    type Target = ScenarioReport;
    fn deref(&self) -> &ScenarioReport {
        match self {
            SharedReport::Checked { exercise, index } => &exercise.scenarios[*index],
            SharedReport::Replay(report) => report,
            SharedReport::Drive(drive) => &drive.report,
        }
    }
}

impl PartialEq for SharedReport {
    fn eq(&self, other: &SharedReport) -> bool {
        match (self, other) {
            (
                SharedReport::Checked { exercise, index },
                SharedReport::Checked {
                    exercise: other,
                    index: other_index,
                },
            ) => Rc::ptr_eq(exercise, other) && index == other_index,
            (SharedReport::Replay(report), SharedReport::Replay(other)) => {
                Rc::ptr_eq(report, other)
            }
            (SharedReport::Drive(drive), SharedReport::Drive(other)) => Rc::ptr_eq(drive, other),
            _ => false,
        }
    }
}

/// The exercises, shared with the playground rather than copied, as a
/// component's property. Two are equal when they are the same list (the
/// playground changes its list only through `Rc::make_mut`, which copies
/// a list a component still holds): comparing the lists themselves, every
/// exercise's every field, cost each render of the exercise list and the
/// take-home panel a walk through all of them.
#[derive(Clone, Debug)]
pub struct SharedExercises(pub Rc<Vec<Exercise>>);

impl Deref for SharedExercises {
    type Target = [Exercise];
    fn deref(&self) -> &[Exercise] {
        &self.0
    }
}

impl PartialEq for SharedExercises {
    fn eq(&self, other: &SharedExercises) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl OpenExercise {
    /// The checked report of `scenario`, shared.
    fn checked_report(&self, scenario: &str) -> Option<SharedReport> {
        let exercise = self.report.as_ref()?;
        let index = exercise.scenarios.iter().position(|s| s.name == scenario)?;
        Some(SharedReport::Checked {
            exercise: exercise.clone(),
            index,
        })
    }

    /// The report the timeline draws, if any.
    pub fn shown(&self) -> Option<SharedReport> {
        match &self.view {
            View::Nothing => None,
            View::Checked { scenario, .. } => self.checked_report(scenario),
            View::Replay {
                report: Some(report),
                ..
            } => Some(SharedReport::Replay(report.clone())),
            View::Replay {
                without: Some(_), ..
            } => None,
            View::Replay { scenario, .. } => self.checked_report(scenario),
            View::Driving(drive) => drive.last.clone().map(SharedReport::Drive),
        }
    }

    /// The report the timeline draws, borrowed.
    pub fn shown_report(&self) -> Option<&ScenarioReport> {
        let checked = |scenario: &str| {
            self.report
                .as_ref()?
                .scenarios
                .iter()
                .find(|s| s.name == scenario)
        };
        match &self.view {
            View::Nothing => None,
            View::Checked { scenario, .. } => checked(scenario),
            View::Replay {
                report: Some(report),
                ..
            } => Some(report),
            View::Replay {
                without: Some(_), ..
            } => None,
            View::Replay { scenario, .. } => checked(scenario),
            View::Driving(drive) => drive.last.as_ref().map(|d| &d.report),
        }
    }

    /// The schedule a replay of the view would ask for: a replay's as asked
    /// for, else the one in view.
    pub fn asked_schedule(&self) -> Schedule {
        match &self.view {
            View::Replay { schedule, .. } => schedule.clone(),
            _ => self.shown_schedule(),
        }
    }

    /// The step to select in a report of `len` events that has just
    /// arrived: the one wanted, if it is in the report, else `default`.
    pub(super) fn wanted_step(&mut self, len: usize, default: usize) -> usize {
        self.step_wanted
            .take()
            .filter(|step| *step < len)
            .unwrap_or(default)
    }

    /// The schedule in view (for links and the console): the moves chosen
    /// so far when driving, else the shown report's.
    pub fn shown_schedule(&self) -> Schedule {
        match &self.view {
            View::Driving(drive) => drive.schedule.clone(),
            _ => self
                .shown_report()
                .map(|r| r.schedule.clone())
                .unwrap_or_default(),
        }
    }

    /// Puts the shown report's focus event (where it broke, or its end) in
    /// view.
    pub(super) fn focus(&mut self) {
        let step = self.shown_report().map_or(0, ScenarioReport::focus_event);
        if let Some(at) = self.view.at_mut() {
            *at = At::step(step);
        }
    }

    /// "Step 4: worker-b: claim, UPDATE changed 1 row, now believes it holds
    /// message msg-1 (token 2)".
    pub fn describe_step(&self) -> Option<String> {
        let report = self.shown_report()?;
        let step = self.view.step();
        let event = report.history.get(step)?;
        let who = event
            .process
            .as_deref()
            .map_or_else(|| "the world".into(), |p| report.called(p).to_string());
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
        let mut text = format!("Step {}: {who}: {procedure}{what}", step + 1);
        if let Some(process) = &event.process {
            let held: Vec<String> = report
                .beliefs
                .get(step)
                .into_iter()
                .flatten()
                .filter(|belief| &belief.process == process)
                .map(|belief| belief.describe())
                .collect();
            if !held.is_empty() {
                text += &format!(", now believes it holds {}", held.join(", "));
            }
        }
        Some(text)
    }
}

impl Playground {
    /// What the timeline shows, as a link (`for_link`) or the saved work
    /// keeps it. A link carries the checked scenario's schedule too, which
    /// replays to the same report; the saved work checks it again. A
    /// counterexample is not the learner's text: the saved work keeps its
    /// scenario only.
    pub(super) fn shown_now(&self, for_link: bool) -> Option<Shown> {
        let scenario = self.open.view.scenario()?.to_string();
        let step = Some(self.open.view.step());
        Some(match &self.open.view {
            View::Nothing => return None,
            View::Checked { .. } => Shown {
                schedule: Some(self.open.shown_schedule()).filter(|s| for_link && !s.is_empty()),
                drive: false,
                hunt: None,
                step,
                scenario,
            },
            View::Replay {
                without: Some(_), ..
            } if !for_link => Shown {
                scenario,
                schedule: None,
                drive: false,
                hunt: None,
                step: None,
            },
            View::Replay { schedule, .. } => Shown {
                scenario,
                schedule: Some(schedule.clone()),
                drive: false,
                hunt: None,
                step,
            },
            View::Driving(drive) => Shown {
                scenario,
                schedule: Some(drive.schedule.clone()),
                drive: true,
                hunt: self.open.challenge.as_ref().map(|c| c.text.clone()),
                step,
            },
        })
    }

    /// Shows again what a link or the saved work showed: the scenario as
    /// checked, a replay of its schedule, or a drive that has made its
    /// moves; its step is selected once the report arrives. A scenario the
    /// exercise does not have is left out.
    pub(super) fn show_again(&mut self, shown: Shown) {
        let known = self
            .exercise()
            .is_some_and(|e| e.scenarios.iter().any(|s| s.name == shown.scenario));
        if !known {
            return;
        }
        self.open.step_wanted = shown.step;
        match shown.schedule {
            // A hunt: its challenge again, on the texts now in the editors,
            // and the moves judged again by the worker.
            Some(schedule) if shown.drive && shown.hunt.is_some() => {
                self.open.challenge = shown.hunt.map(|text| super::Challenge {
                    text,
                    replayed: true,
                });
                self.open.view = View::Driving(DriveState::new(shown.scenario, schedule));
                self.request_drive();
            }
            Some(schedule) if shown.drive => {
                self.open.view = View::Driving(DriveState::new(shown.scenario, schedule));
                self.request_drive();
            }
            Some(schedule) => {
                self.open.view = View::checked(&shown.scenario, 0);
                self.send_replay(shown.scenario, schedule);
            }
            None => self.open.view = View::checked(&shown.scenario, 0),
        }
    }

    /// Shows `name` as checked, where it broke, and brings its timeline
    /// into view with the focus on it (again, when it was already shown).
    pub(super) fn select(&mut self, name: String) {
        // A checked scenario shows its counterexample: not in a challenge.
        self.open.challenge = None;
        self.open.step_wanted = None;
        self.open.view = View::checked(&name, 0);
        self.open.focus();
        self.announce_step();
        self.focus_timeline += 1;
    }

    pub(super) fn go_to_step(&mut self, index: usize) {
        self.open.step_wanted = None;
        let len = self.open.shown_report().map_or(0, |r| r.history.len());
        if let Some(at) = self.open.view.at_mut()
            && index < len
        {
            *at = At::step(index);
            self.announce_step();
        }
    }

    pub(super) fn step_by(&mut self, delta: isize) {
        self.open.step_wanted = None;
        let len = self.open.shown_report().map_or(0, |r| r.history.len());
        let Some(at) = self.open.view.at_mut() else {
            return;
        };
        if len == 0 {
            return;
        }
        let last = len - 1;
        let step = at.step.min(last);
        *at = At::step(match delta {
            d if d < 0 => step.saturating_sub(d.unsigned_abs()),
            d => step.saturating_add(d.unsigned_abs()).min(last),
        });
        self.announce_step();
    }

    pub(super) fn announce_step(&mut self) {
        if let Some(text) = self.open.describe_step() {
            self.announcement = text;
        }
    }

    /// Changes the hand-chosen schedule and asks the worker to follow it.
    /// "Drive it yourself": a drive of `scenario` from its first move,
    /// the drive panel brought into view.
    pub(super) fn drive_start(&mut self, scenario: String) {
        self.open.step_wanted = None;
        self.open.view = View::Driving(DriveState::new(scenario, Schedule::new()));
        self.request_drive();
        self.focus_drive += 1;
    }

    /// The drive ends: back to the challenge's scenarios in a challenge
    /// (never to a checked counterexample), else to the checked scenario.
    pub(super) fn drive_stop(&mut self) {
        if self.open.challenge.is_some() {
            self.open.step_wanted = None;
            self.open.view = View::Nothing;
        } else if let View::Driving(drive) = &self.open.view {
            self.open.step_wanted = None;
            self.open.view = View::checked(&drive.scenario, 0);
            self.open.focus();
        }
    }

    pub(super) fn change_drive(&mut self, change: impl FnOnce(&mut Schedule)) {
        self.open.step_wanted = None;
        if let View::Driving(drive) = &mut self.open.view {
            // Moves of the learner's own from here on.
            if let Some(challenge) = &mut self.open.challenge {
                challenge.replayed = false;
            }
            change(&mut drive.schedule);
            self.request_drive();
        }
    }

    pub(super) fn request_drive(&mut self) {
        let seq = self.seq();
        let exercise = self.exercise_id();
        let edits = self.open.texts.clone();
        let View::Driving(drive) = &mut self.open.view else {
            return;
        };
        drive.waiting_for = Some(seq);
        drive.failed = None;
        let (scenario, schedule) = (drive.scenario.clone(), drive.schedule.clone());
        let request = if self.open.challenge.is_some() {
            Request::Hunt {
                seq,
                exercise,
                edits,
                scenario,
                schedule,
            }
        } else {
            Request::Drive {
                seq,
                exercise,
                edits,
                scenario,
                schedule,
            }
        };
        self.send(request);
    }
}
