//! What leaves the page as data: the saved work the autosave writes
//! (`storage::Saved`) and a share link (`share::Link`), both made from the
//! playground and what its view shows (`share::Shown`). Reading them back is
//! `open.rs`'s.

use super::Playground;
use crate::share::{self, Link};
use crate::storage::{self, Saved};

impl Playground {
    /// What the autosave writes for the current exercise.
    pub fn saved(&self) -> Saved {
        let starts = self.starts();
        // Kept by removing, not collected: a collected map sorts its
        // input, with a sort compiled for each iterator type.
        let mut edits = self.texts.clone();
        edits.retain(|name, text| starts.get(name) != Some(&*text));
        Saved {
            format: storage::SAVE_FORMAT,
            edits,
            seen: self.seen.clone(),
            passing: self.counts_solved(),
            own_aside: self.own_aside.clone(),
            hunts: self.hunted.clone(),
            challenge: self.challenge.as_ref().map(|c| c.text.clone()),
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

    pub(super) fn share(&mut self, base: &str) {
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
}
