//! The report of the check that ended last, kept to answer an equal
//! check at once. Must never answer a check of other texts or of an
//! exercise since replaced.

use super::check::Texts;
use fencelab_model::ExerciseReport;
use std::cell::RefCell;
use std::rc::Rc;

/// The report of the check that ended last, with what it checked. A check
/// is a function of the exercise and its texts alone (the engine reads no
/// clock and draws no randomness of its own), so an equal `Check` is
/// answered with it at once: the app's first check of a prerendered
/// page, checked already on `Request::Prepare`, or texts put back as they
/// were. An exercise installed provisionally (from a prerendered page) is
/// replaced only after this forgets it, so an id names one.
#[derive(Clone, Default)]
pub(super) struct LastReport(Rc<RefCell<Option<Reported>>>);

struct Reported {
    exercise: String,
    texts: Texts,
    report: ExerciseReport,
}

impl LastReport {
    pub(super) fn keep(&self, exercise: &str, texts: Texts, report: &ExerciseReport) {
        *self.0.borrow_mut() = Some(Reported {
            exercise: exercise.to_string(),
            texts,
            report: report.clone(),
        });
    }

    /// Drops the kept report if it is `exercise`'s.
    pub(super) fn forget(&self, exercise: &str) {
        let mut last = self.0.borrow_mut();
        if last.as_ref().is_some_and(|last| last.exercise == exercise) {
            *last = None;
        }
    }

    /// The kept report, if it is of these texts of this exercise.
    pub(super) fn of(&self, exercise: &str, texts: &Texts) -> Option<ExerciseReport> {
        self.0
            .borrow()
            .as_ref()
            .filter(|last| last.exercise == exercise && last.texts == *texts)
            .map(|last| last.report.clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::serve::testing::*;
    use crate::serve::{Served, Server};
    use fencelab_core::ExerciseExt;
    use fencelab_protocol::{Edits, Request, Response};

    /// The report of the check that ended last answers an equal check at
    /// once: a prepared one the app did not take over in time, or texts
    /// put back. Other texts, or another exercise, are checked.
    #[test]
    fn a_check_of_the_texts_checked_last_is_answered_at_once() {
        let mut server = Server::new(exercises());
        let mut prepared = job_of(&mut server, prepare(CLAIM));
        let (quiet, _) = run_job(&mut prepared);
        assert!(!prepared.answers_page(), "{quiet:?} is not posted");
        let expected = claim().run(&starts(&claim()));
        assert_eq!(
            answer_of(&mut server, check_of(1, starts(&claim()))),
            Response::Checked {
                seq: 1,
                report: expected.clone(),
            }
        );
        let mut edited = job_of(&mut server, check_of(2, Edits::new()));
        let (response, _) = run_job(&mut edited);
        assert!(matches!(response, Response::Checked { seq: 2, .. }));
        // The starting texts again: the last report is the reference's now.
        let mut again = job_of(&mut server, check_of(3, starts(&claim())));
        let (response, _) = run_job(&mut again);
        assert_eq!(
            response,
            Response::Checked {
                seq: 3,
                report: expected
            }
        );
        let other = exercises().swap_remove(1);
        let check = Request::Check {
            seq: 4,
            exercise: other.id.clone(),
            edits: starts(&other),
        };
        assert!(matches!(server.serve(check), Served::Job(_)));
    }
}
