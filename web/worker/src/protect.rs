//! The page's line marks ("what if this line were gone?"): the core's
//! judgement (`fencelab_core::protection::LineMarks`, the one `fencelab
//! protect` runs to its end), a piece per [`ProtectJob::piece`] (a slice of
//! runs of one scenario, of the texts' own check or of one mutant's
//! judgement), so a newer request can arrive in between. Texts past the mutant budget, or that do not pass, are answered
//! `Failed`, saying why. Must never panic on any text.

use crate::serve::RUNS_PER_SLICE;
use fencelab_core::Exercise;
use fencelab_core::check::Progress;
use fencelab_core::mutate::Context;
use fencelab_core::protection::LineMarks;
use fencelab_protocol::{Edits, Response};
use std::rc::Rc;

/// A judgement of line marks in progress.
pub struct ProtectJob {
    pub seq: u64,
    marks: LineMarks,
}

impl ProtectJob {
    /// A job for the line marks of `edits`: generates their mutants (pure
    /// text work, within its budget); nothing runs yet.
    pub fn new(seq: u64, exercise: &Rc<Exercise>, edits: &Edits, context: &Context) -> ProtectJob {
        ProtectJob {
            seq,
            marks: LineMarks::new(Rc::clone(exercise), exercise.texts_with(edits), context),
        }
    }

    /// How many mutants the job judges, once its check has passed.
    #[cfg(test)]
    pub fn mutants(&self) -> Option<usize> {
        self.marks.mutants()
    }

    /// Does the next piece; once every mutant is judged, the marks.
    pub fn piece(&mut self) -> Option<Response> {
        let Progress::Done(answer) = self.marks.advance(RUNS_PER_SLICE) else {
            return None;
        };
        Some(match *answer {
            Ok(report) => Response::Protection {
                seq: self.seq,
                report,
            },
            Err(why) => Response::Failed {
                seq: self.seq,
                message: why.to_string(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_core::mutation;

    #[test]
    fn the_reference_claim_is_judged_a_slice_per_piece() {
        let exercise = fencelab_core::bundled::exercises()
            .expect("the bundled exercises load")
            .into_iter()
            .find(|e| e.id == "claim-compare-and-set")
            .expect("the claim exercise");
        let context = mutation::context(&exercise).expect("the claim's schema builds");
        let edits: Edits = exercise.reference_edits();
        let mut job = ProtectJob::new(7, &Rc::new(exercise.clone()), &edits, &context);
        let mut pieces = 0;
        while job.mutants().is_none() {
            assert_eq!(job.piece(), None, "the check, a slice per call");
            pieces += 1;
        }
        assert!(pieces > 1, "the texts' own check comes first, in slices");
        let total = job.mutants().unwrap_or_default();
        assert!(total > 0, "the operators generate mutants of the claim");
        let mut pieces = 0;
        let answer = loop {
            if let Some(answer) = job.piece() {
                break answer;
            }
            pieces += 1;
        };
        assert!(pieces >= total, "at least a piece per mutant");
        let Response::Protection { seq: 7, report } = answer else {
            panic!("the marks, once every mutant is judged: {answer:?}");
        };
        assert_eq!(report.mutants, total);
    }
}
