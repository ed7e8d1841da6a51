//! The worker's answers, each routed by its seq to the request that asked
//! for it: the newest check (`check_wanted`), the replay or drive the view
//! waits for, the query its console waits for. An answer to anything else
//! (a request since replaced, a view since left) is stale and dropped.
//! `Failed` is routed the same way and said where its request was made; seq
//! 0 is no request (the worker itself failed) and becomes a notice.

use super::{At, Notice, Playground, View};
use fencelab_model::{Drive, ExerciseReport, ScenarioReport};
use fencelab_protocol::{PlaygroundResponse, Response};
use std::rc::Rc;

impl Playground {
    pub(super) fn respond(&mut self, response: PlaygroundResponse) {
        match response {
            Response::Ready { sqlite_version } => self.sqlite_version = Some(sqlite_version),
            Response::Checked { seq, report } => self.checked(seq, report),
            Response::Replayed { seq, report } => self.replayed(seq, report),
            Response::Driven { seq, drive } => {
                self.driven(seq, drive);
            }
            Response::Hunted { seq, hunt } => {
                let hunt = *hunt;
                if self.driven(seq, hunt.drive) {
                    self.hunted(hunt.verdict);
                }
            }
            Response::Queried { seq, result } => {
                if let Some(at) = self.open.view.at_mut()
                    && at.console.waiting_for == Some(seq)
                {
                    at.console.waiting_for = None;
                    at.console.result = Some(result);
                }
            }
            Response::Failed { seq, message } => {
                if !self.site_request_failed(seq, &message) {
                    self.failed(seq, message)
                }
            }
            Response::Installed { seq, installation } => {
                self.installed(seq, installation);
            }
            Response::Indexed { seq, result } => {
                self.indexed(seq, result);
            }
            // The engine keeps these to itself (a job still working); the
            // learner's page never asks for a draft.
            Response::Working { .. } | Response::Authored { .. } | Response::Drafted { .. } => {}
            Response::Protection { seq, report } => self.protected(seq, report),
        }
    }

    pub(super) fn checked(&mut self, seq: u64, report: ExerciseReport) {
        if seq != self.open.check_wanted
            || Some(report.exercise.as_str()) != self.exercise().map(|e| e.id.as_str())
        {
            return; // a stale check: a newer edit superseded it
        }
        if self.open.confirming == Some(seq) {
            // This check's report is already shown: the prerendered page's,
            // which the worker confirms once the page has hydrated. By the
            // engine's determinism the two are equal (prerender.mjs holds
            // them so for every bundled exercise), and on a slow device the
            // answer comes after the learner has started reading: it must
            // not move their timeline back to the broken step, nor say the
            // verdicts again over what they were listening to.
            self.open.confirming = None;
            self.open.report = Some(Rc::new(report));
            self.after_check();
            return;
        }
        self.open.report_seq = seq;
        self.announcement = report.tally().to_string();
        // What comes into view unasked: the first scenario that fails, else
        // the first limit shown (what an exploring exercise is about: its
        // timeline, never an empty pane saying every scenario passes).
        let first_failing = report
            .scenarios
            .iter()
            .find(|s| !s.passed())
            .or_else(|| {
                report
                    .scenarios
                    .iter()
                    .find(|s| s.verdict() == fencelab_model::Verdict::LimitShown)
            })
            .map(|s| s.name.clone());
        let has = |name: &str| report.scenarios.iter().any(|s| s.name == name);
        // A step wanted (from a link or the saved work) is the checked
        // scenario's only if that scenario is still the one in view.
        let mut keeps_step = false;
        self.open.view = match std::mem::replace(&mut self.open.view, View::Nothing) {
            View::Checked { scenario, .. } if has(&scenario) => {
                keeps_step = true;
                View::checked(&scenario, 0)
            }
            // In a challenge the counterexamples stay hidden: nothing
            // checked comes into view.
            View::Nothing if self.open.challenge.is_some() => View::Nothing,
            View::Checked { .. } | View::Nothing => match &first_failing {
                Some(scenario) => View::checked(scenario, 0),
                None => View::Nothing,
            },
            other => other,
        };
        self.open.report = Some(Rc::new(report));
        self.draw_checked(keeps_step);
        self.note_variant_seen();
        self.note_solved();
        self.after_check();
    }

    /// Draws the checked scenario in view at its focus, or at the step the
    /// saved work or a link asked for (`step_wanted`) when that step is the
    /// scenario's (`keeps_step`) and within its history.
    pub(super) fn draw_checked(&mut self, keeps_step: bool) {
        if !matches!(self.open.view, View::Checked { .. }) {
            return;
        }
        self.open.focus();
        let wanted = if keeps_step {
            self.open.step_wanted.take()
        } else {
            None
        };
        let len = self.open.shown_report().map_or(0, |r| r.history.len());
        if let (Some(step), Some(at)) = (wanted.filter(|s| *s < len), self.open.view.at_mut()) {
            *at = At::step(step);
        }
    }

    fn replayed(&mut self, seq: u64, report: ScenarioReport) {
        if !matches!(self.open.view, View::Replay { waiting_for, .. } if waiting_for == Some(seq)) {
            return;
        }
        let step = self
            .open
            .wanted_step(report.history.len(), report.focus_event());
        let View::Replay {
            waiting_for,
            report: shown,
            at,
            without,
            schedule,
            ..
        } = &mut self.open.view
        else {
            return;
        };
        *waiting_for = None;
        *at = At::step(step);
        if self.focus_on_replay.take() == Some(seq) {
            // The learner asked to see it: the timeline takes the focus.
            self.focus_timeline += 1;
        }
        self.announcement = match (without, report.failure()) {
            (Some(without), Some(failure)) => {
                format!(
                    "Counterexample: without line {} of {} as written ({}), “{}” fails: {failure}",
                    without.line, without.procedure, without.description, report.name
                )
            }
            // The schedule as asked for: one that ends in an error made
            // fewer moves than it names.
            _ => format!(
                "Replayed the schedule {schedule}: {}{}",
                report.verdict().word(),
                report
                    .problem()
                    .map(|problem| format!(" — {problem}"))
                    .unwrap_or_default()
            ),
        };
        *shown = Some(Rc::new(report));
    }

    /// Shows the drive the view waits for; whether `seq` was that one.
    fn driven(&mut self, seq: u64, drive: Drive) -> bool {
        let View::Driving(state) = &mut self.open.view else {
            return false;
        };
        if state.waiting_for != Some(seq) || state.scenario != drive.report.name {
            return false;
        }
        let len = drive.report.history.len();
        let step = self.open.wanted_step(len, len.saturating_sub(1));
        let View::Driving(state) = &mut self.open.view else {
            return false;
        };
        state.waiting_for = None;
        state.verdict = None;
        state.at = At::step(step);
        let finished = drive.finished.then(|| match drive.report.failure() {
            Some(failure) => format!("Your schedule fails: {failure}"),
            None => format!("Your schedule finished: {}", drive.report.verdict().word()),
        });
        state.last = Some(Rc::new(drive));
        match finished {
            Some(text) => self.announcement = text,
            None => self.announce_step(),
        }
        true
    }

    fn failed(&mut self, seq: u64, message: String) {
        if seq == 0 {
            self.notices.push(Notice::WorkerFailed(message));
            return;
        }
        if self.protection_failed(seq, &message) {
            return;
        }
        if seq == self.open.check_wanted {
            self.open.check_failed = true;
            self.notices.push(Notice::CheckFailed(message));
            return;
        }
        match &mut self.open.view {
            View::Driving(drive) if drive.waiting_for == Some(seq) => {
                drive.waiting_for = None;
                self.announcement = format!("This step could not be taken: {message}");
                drive.failed = Some(message);
            }
            View::Replay {
                scenario,
                waiting_for,
                ..
            } if *waiting_for == Some(seq) => {
                let scenario = std::mem::take(scenario);
                self.open.step_wanted = None;
                self.open.view = View::checked(&scenario, 0);
                self.open.focus();
                let text = format!("The schedule could not be replayed: {message}");
                self.announcement.clone_from(&text);
                self.replay_refused = Some((scenario, text));
            }
            view => {
                if let Some(at) = view.at_mut()
                    && at.console.waiting_for == Some(seq)
                {
                    at.console.waiting_for = None;
                    at.console.result = Some(Err(message));
                }
                // Anything else answers a request since replaced: dropped.
            }
        }
    }
}
