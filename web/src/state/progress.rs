//! Honest progress: an exercise is solved when the learner's own text
//! passes every scenario, never by texts the page put in the editors (the
//! starting text, the working version, a broken variant, a link's version)
//! until the learner edits them. A broken variant the learner loaded and
//! watched fail counts as seen: the scenarios caught it, not the learner.
//!
//! Progress is never lowered by looking: once the learner's own text has
//! passed, the exercise stays solved (`solve_kept`) while a broken variant,
//! a challenge or a hint is looked at, and after a reload; only Reset, which
//! starts the exercise over, forgets it.

use super::{OpenExercise, Playground};
use fencelab_model::Verdict;
use serde::{Deserialize, Serialize};

/// What the exercise list shows for an exercise: broken variants seen
/// failing, whether the learner's own text passes every scenario, and the
/// breaks found by hand in challenges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub seen: usize,
    pub solved: bool,
    pub hunted: usize,
}

/// Texts the page put in the editors, unedited by the learner since.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Given {
    /// The exercise's starting texts.
    Start,
    /// The references, chosen as the starting point ("start from the
    /// working version").
    WorkingVersion,
    /// A broken variant, by name.
    Variant(String),
    /// The version in a link that was opened.
    Link,
    /// The texts the page that embeds this one set (`set-procedures`).
    Host,
}

impl OpenExercise {
    /// Whether the texts in the editors, whoever wrote them, pass every
    /// scenario: the newest check's report (not an older text's) has no
    /// failure.
    pub fn passes(&self) -> bool {
        self.report_seq == self.check_wanted && self.report.as_ref().is_some_and(|r| r.failed == 0)
    }
}

impl Playground {
    /// Whether the learner's own texts pass every scenario: the report
    /// answers the newest check (not an older text's), and the editors hold
    /// the learner's own texts, not ones the page gave.
    pub fn solved(&self) -> bool {
        self.open.passes() && self.open.given.is_none()
    }

    /// Whether the texts in the editors are the learner's own: edited by
    /// them since the page last gave texts, and not the exercise's starting
    /// texts (an edit undone by hand gives those back, and they are the
    /// page's). A host grades only these (`checked`'s `own_texts`).
    pub fn own_texts(&self) -> bool {
        self.open.given.is_none() && self.open.texts != self.starts()
    }

    /// Whether the exercise counts as solved: the learner's own text passes
    /// now, or passed since the exercise was last reset.
    pub fn counts_solved(&self) -> bool {
        self.open.solve_kept || self.solved()
    }

    /// The open exercise's progress, from the playground itself.
    pub fn current_progress(&self) -> Progress {
        Progress {
            seen: self.open.seen.len(),
            solved: self.counts_solved(),
            hunted: self.open.hunted.len(),
        }
    }

    /// How many exercises are solved, counted as the exercise list counts
    /// them (the open one by [`Playground::current_progress`], the others as
    /// saved).
    pub fn solved_count(&self) -> usize {
        super::solved_count(
            &self.exercises,
            self.open.index,
            self.current_progress(),
            &self.progress,
        )
    }

    /// After the newest check: a pass of the learner's own text is kept.
    pub(super) fn note_solved(&mut self) {
        self.open.solve_kept = self.counts_solved();
    }

    /// After the newest check: a broken variant still in the editors that
    /// some scenario failed has been seen.
    pub(super) fn note_variant_seen(&mut self) {
        let Some(Given::Variant(name)) = &self.open.given else {
            return;
        };
        // In a challenge its counterexamples are hidden: nothing was
        // watched failing (a break found there is a hunt of its own).
        if self.open.challenge.is_some() {
            return;
        }
        let failed = self.open.report.as_ref().is_some_and(|report| {
            report
                .scenarios
                .iter()
                .any(|s| s.verdict() == Verdict::Failed)
        });
        if failed {
            self.open.seen.insert(name.clone());
        }
    }
}
