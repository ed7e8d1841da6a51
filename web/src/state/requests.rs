//! What the page asks the worker for: every request gets the next seq, a
//! check is wanted on every edit (`check_wanted`, sent by the worker hook),
//! and the others wait in `outbox`, at most [`OUTBOX_KEPT`]. A replay of a
//! schedule the learner typed is checked here first against the processes
//! its scenario interleaves, so a mistyped name is a notice, not a request.

use super::{Console, OpenExercise, Playground, View};
use fencelab_model::{Scenario, Schedule};
use fencelab_protocol::Request;
use std::rc::Rc;

/// Requests kept in the outbox; the app sends them within one render.
const OUTBOX_KEPT: usize = 16;

impl OpenExercise {
    /// Whether a check is wanted whose report has not come back yet.
    pub fn checking(&self) -> bool {
        self.report_seq != self.check_wanted && !self.check_failed
    }
}

impl Playground {
    pub(super) fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Queues `request`; of the others, the oldest beyond [`OUTBOX_KEPT`]
    /// go. Installs stay: the page waits for each one's answer, and a site
    /// sends up to `INDEX_FILES_MAX` in one step, before the app sends any.
    pub(super) fn send(&mut self, request: Request) {
        self.outbox.push(Rc::new(request));
        let install = |r: &Request| matches!(r, Request::Install { .. });
        let others = self.outbox.iter().filter(|r| !install(r)).count();
        let mut excess = others.saturating_sub(OUTBOX_KEPT);
        self.outbox.retain(|r| {
            let drop = excess > 0 && !install(r);
            excess -= usize::from(drop);
            !drop
        });
    }

    pub(super) fn want_check(&mut self) {
        self.open.check_wanted = self.seq();
        self.open.check_failed = false;
    }

    /// The check to send for `check_wanted`, if one is wanted.
    pub fn check_request(&self) -> Option<Request> {
        (self.open.check_wanted != 0 && self.open.opening.is_none()).then(|| Request::Check {
            seq: self.open.check_wanted,
            exercise: self.exercise_id(),
            edits: self.open.texts.clone(),
        })
    }

    /// The processes `scenario` interleaves (the model's
    /// `Scenario::interleaved`).
    pub fn interleaved(&self, scenario: &str) -> Vec<String> {
        self.exercise()
            .and_then(|e| e.scenarios.iter().find(|s| s.name == scenario))
            .map(Scenario::interleaved)
            .unwrap_or_default()
    }

    /// The schedule typed as one this scenario can follow, or why not.
    pub(super) fn schedule_for(&self, scenario: &str, typed: &str) -> Result<Schedule, String> {
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

    pub(super) fn replay(&mut self, scenario: String, schedule: &str) {
        self.open.step_wanted = None;
        let schedule = match self.schedule_for(&scenario, schedule) {
            Ok(schedule) => schedule,
            Err(error) => {
                let message = format!("This schedule cannot be replayed: {error}");
                self.announcement.clone_from(&message);
                self.replay_refused = Some((scenario, message));
                return;
            }
        };
        self.replay_refused = None;
        self.send_replay(scenario, schedule);
    }

    /// Asks for a replay of `schedule`, which the view waits for.
    pub(super) fn send_replay(&mut self, scenario: String, schedule: Schedule) {
        let seq = self.seq();
        // A replay of the same scenario keeps the last one in view until
        // the answer arrives (and a counterexample stays one: the schedule
        // replays on its texts); otherwise the checked report is shown.
        let (report, without) = match &self.open.view {
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
            None => self.open.texts.clone(),
        };
        let at = self.open.view.at().cloned().unwrap_or_default();
        self.open.view = View::Replay {
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

    pub(super) fn query(&mut self, sql: String) {
        let Some(report) = self.open.shown_report() else {
            return;
        };
        let scenario = report.name.clone();
        let schedule = self.open.shown_schedule();
        let seq = self.seq();
        let exercise = self.exercise_id();
        let edits = self.open.view_texts().clone();
        let Some(at) = self.open.view.at_mut() else {
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

    /// Ctrl/Cmd+Enter: check now, without waiting.
    pub(super) fn run_now(&mut self) {
        if self.open.opening.is_none() {
            self.want_check();
            // Said now, so the verdicts that follow are announced even
            // when they read as before.
            self.announcement = "Checking your procedures now…".into();
        }
    }
}
