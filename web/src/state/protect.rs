//! "What if this line were gone?": once the texts in the editors pass every
//! scenario, the worker is asked which of their lines the scenarios protect
//! (a `Protect` request, after the verdicts are shown and never before), and
//! its marks are shown in the editors until the next edit. A protected mark
//! opens its counterexample: the scenario's failing schedule replayed on the
//! texts with that line changed, titled as such, since it is not the
//! learner's own text that fails.
//!
//! The marks belong to the exact texts they were asked for: an answer for
//! other texts, or to a request since replaced, is dropped, and every edit
//! clears them.

use super::{At, Given, Playground, View};
use fencelab_protocol::{Caught, Edits, LineStatus, ProtectionReport, Request};
use std::rc::Rc;

/// The marks in the editors, and the request they wait for.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Protection {
    /// No marks: the texts do not pass yet, or were edited since.
    #[default]
    Nothing,
    /// Asked for with request `seq`, about `texts`.
    Waiting { seq: u64, texts: Edits },
    /// The marks of `texts`, which are still the editors' texts.
    Shown {
        texts: Edits,
        report: Rc<ProtectionReport>,
    },
    /// The worker could not find the marks, and said why.
    Failed { message: String },
}

impl Protection {
    /// The marks to show, if any.
    pub fn report(&self) -> Option<&Rc<ProtectionReport>> {
        match self {
            Protection::Shown { report, .. } => Some(report),
            _ => None,
        }
    }
}

/// A counterexample in view: a scenario's failure on the learner's texts
/// with one line changed, not on the learner's own texts.
#[derive(Clone, Debug, PartialEq)]
pub struct Without {
    pub procedure: String,
    pub line: u32,
    /// What the change was: "drop `AND state = 'NEW'` from the WHERE".
    pub description: String,
    /// The texts replayed: the learner's, with the changed procedure.
    pub texts: Edits,
    /// The scenario is a limit: the learner's text shows it as described
    /// (never "passes" it), and the change stops it showing so.
    pub limit: bool,
}

impl Playground {
    /// After a check's report: when the texts pass every scenario (the
    /// learner's own, or the working version they start from; never a
    /// broken variant), ask which lines the scenarios protect, unless those
    /// texts' marks are already shown. A request still waiting was dropped
    /// by the worker when this check arrived, so it is asked again.
    pub(super) fn after_check(&mut self) {
        if !self.open.passes() || matches!(self.open.given, Some(Given::Variant(_))) {
            self.open.protection = Protection::Nothing;
            return;
        }
        if matches!(&self.open.protection, Protection::Shown { texts, .. } if *texts == self.open.texts)
        {
            return;
        }
        let seq = self.seq();
        self.open.protection = Protection::Waiting {
            seq,
            texts: self.open.texts.clone(),
        };
        self.send(Request::Protect {
            seq,
            exercise: self.exercise_id(),
            edits: self.open.texts.clone(),
        });
    }

    /// The worker's marks for request `seq`.
    pub(super) fn protected(&mut self, seq: u64, report: ProtectionReport) {
        match &self.open.protection {
            Protection::Waiting { seq: asked, texts }
                if *asked == seq && *texts == self.open.texts => {}
            _ => return, // for a request since replaced, or texts since edited
        }
        let count = |protected: bool| {
            report
                .procedures
                .iter()
                .flat_map(|p| &p.lines)
                .filter(|m| {
                    if protected {
                        matches!(m.status, LineStatus::Protected { .. })
                    } else {
                        matches!(m.status, LineStatus::Unprotected { .. })
                    }
                })
                .count()
        };
        let lines = |n: usize| format!("{n} line{}", if n == 1 { "" } else { "s" });
        self.announcement = format!(
            "Line marks are ready: {} protected by a scenario, {} no scenario notices.",
            lines(count(true)),
            lines(count(false)),
        );
        self.open.protection = Protection::Shown {
            texts: self.open.texts.clone(),
            report: Rc::new(report),
        };
    }

    /// Whether `seq` is the protection being waited for; if so, the failure
    /// ends the wait.
    pub(super) fn protection_failed(&mut self, seq: u64, message: &str) -> bool {
        if !matches!(self.open.protection, Protection::Waiting { seq: asked, .. } if asked == seq) {
            return false;
        }
        self.open.protection = Protection::Failed {
            message: message.to_string(),
        };
        true
    }

    /// Replays the counterexample of caught change `change` of the
    /// protected mark on `line` of `procedure`: its scenario's failing
    /// schedule, on the texts with that change.
    pub(super) fn show_counterexample(&mut self, procedure: &str, line: u32, change: usize) {
        let Some(report) = self.open.protection.report().cloned() else {
            return;
        };
        let Some(LineStatus::Protected { caught, .. }) =
            report.mark(procedure, line).map(|m| &m.status)
        else {
            return;
        };
        let Some(Caught {
            scenario,
            schedule,
            description,
            mutant_text,
            limit,
            ..
        }) = caught.get(change)
        else {
            return;
        };
        let mut texts = self.open.texts.clone();
        texts.insert(procedure.to_string(), mutant_text.clone());
        let seq = self.seq();
        self.focus_on_replay = Some(seq);
        self.open.step_wanted = None;
        self.open.view = View::Replay {
            scenario: scenario.clone(),
            schedule: schedule.clone(),
            waiting_for: Some(seq),
            report: None,
            at: At::default(),
            without: Some(Rc::new(Without {
                procedure: procedure.to_string(),
                line,
                description: description.clone(),
                texts: texts.clone(),
                limit: *limit,
            })),
        };
        self.announcement =
            format!("Running “{scenario}” without line {line} of {procedure} as written…");
        self.send(Request::Replay {
            seq,
            exercise: self.exercise_id(),
            edits: texts,
            scenario: scenario.clone(),
            schedule: schedule.clone(),
        });
    }
}
