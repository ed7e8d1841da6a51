//! The checker of the exercise checked last, kept for the next request
//! that names it: a keystroke's check, a replay, a drive or a hunt renews
//! it with the learner's texts ([`Checker::renew`]) instead of building the
//! exercise's schema, seed rows and connections again and preparing every
//! statement afresh. Natively that was 1.4x to 3.8x a whole check of a
//! bundled exercise (docs/PERFORMANCE.md); the core's `kept_checker` tests
//! keep the reports equal to a new checker's.
//!
//! One checker at a time, of one exercise: a learner edits one exercise,
//! and switching to another lets the old world go. A check job borrows it
//! for its slices and gives it back when it ends or is dropped; a request
//! served while it is lent builds its own, as before.

use fencelab_core::report::Unusable;
use fencelab_core::{Checker, Exercise, ExerciseExt};
use std::cell::RefCell;
use std::rc::Rc;

/// Shared by the server and the check job that has the checker on loan.
#[derive(Clone, Default)]
pub struct KeptChecker(Rc<RefCell<Option<Kept>>>);

struct Kept {
    exercise: String,
    checker: Checker,
}

impl KeptChecker {
    /// A checker for `exercise` with `texts` (every procedure's, as
    /// [`Exercise::texts_with`] gives them): the kept one, renewed, when it
    /// is this exercise's; a new one otherwise. Texts that cannot run leave
    /// the kept checker where it is.
    pub fn lend(
        &self,
        exercise: &Exercise,
        texts: &[(String, String)],
    ) -> Result<Checker, Unusable> {
        let mut slot = self.0.borrow_mut();
        let mut ours = match slot.take() {
            Some(kept) if kept.exercise == exercise.id => Some(kept.checker),
            other => {
                *slot = other;
                None
            }
        };
        let checker = exercise.checker_reusing(texts, &mut ours);
        if let Some(checker) = ours {
            *slot = Some(Kept {
                exercise: exercise.id.clone(),
                checker,
            });
        }
        checker
    }

    /// Keeps `checker`, `exercise`'s, for the next request (in place of any
    /// kept before).
    pub fn give_back(&self, exercise: &str, checker: Checker) {
        *self.0.borrow_mut() = Some(Kept {
            exercise: exercise.to_string(),
            checker,
        });
    }

    /// Drops the kept checker if it is `exercise`'s.
    pub fn forget(&self, exercise: &str) {
        let mut kept = self.0.borrow_mut();
        if kept.as_ref().is_some_and(|kept| kept.exercise == exercise) {
            *kept = None;
        }
    }

    /// Whether a checker of `exercise` is kept (for tests).
    #[cfg(test)]
    pub fn holds(&self, exercise: &str) -> bool {
        self.0
            .borrow()
            .as_ref()
            .is_some_and(|kept| kept.exercise == exercise)
    }
}
