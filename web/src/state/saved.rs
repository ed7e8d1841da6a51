//! What leaves the page as data: the saved work the autosave writes
//! ([`Saved`], whose format and reading back are here too; `storage.rs`
//! only moves its text in and out of localStorage) and a share link
//! (`share::Link`), both made from the playground and what its view shows
//! (`share::Shown`). Putting them back in the editors is `open.rs`'s.

use super::{FoundBreak, Given, HuntText, Playground, Progress};
use crate::entry::{EntryFormat, Versioned};
use crate::share::{self, Link, Shown};
use fencelab_protocol::Edits;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The format of saved entries this build writes and reads. Fields added
/// since (each with a default) keep the format: an older entry still reads.
pub const SAVE_FORMAT: u32 = 1;
/// Entries larger than this are not read (a procedure is at most 16 KiB).
const SAVED_ENTRY_BYTES_MAX: usize = 512 * 1024;

/// One exercise's saved work, progress, and what the page showed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Saved {
    pub format: u32,
    pub edits: Edits,
    /// Broken variants the learner has loaded and watched fail (written as
    /// `caught` by builds before "seen").
    #[serde(default, alias = "caught")]
    pub seen: BTreeSet<String>,
    /// Whether the exercise is solved: the learner's own text passed every
    /// scenario since the exercise was last reset (builds before kept
    /// solves wrote whether the saved text passed).
    #[serde(default)]
    pub passing: bool,
    /// The learner's own texts, set aside while the page's (a broken
    /// variant, Reset, a challenge) are in the editors: "Restore your text"
    /// brings them back, after a reload too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_aside: Option<Edits>,
    /// The breaks found by hand in challenges ("break it yourself"), kept
    /// apart from `passing`: finding a break is not a repair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hunts: Vec<FoundBreak>,
    /// A challenge open on this text ("break it yourself"), whether or not
    /// a scenario is being hunted yet: a reload comes back to it. (A hunt
    /// under way is in `view` too.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<HuntText>,
    /// Texts the page put in the editors, unedited since (none: the
    /// learner's own). Missing in older entries: read from the texts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<Given>,
    /// The learner chose to start from the working version.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub working: bool,
    /// What the timeline showed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Shown>,
    /// How many hints were shown.
    #[serde(default)]
    pub hints: usize,
}

impl Versioned for Saved {
    const FORMAT: EntryFormat = EntryFormat {
        name: "save",
        version: SAVE_FORMAT,
        bytes_max: SAVED_ENTRY_BYTES_MAX,
    };

    fn version(&self) -> u32 {
        self.format
    }
}

impl Saved {
    /// Parses an entry's text, checking its format version.
    pub fn parse(text: &str) -> Result<Saved, String> {
        crate::entry::read(text)
    }

    pub fn progress(&self) -> Progress {
        Progress {
            seen: self.seen.len(),
            solved: self.passing,
            hunted: self.hunts.len(),
        }
    }
}

/// What reading an exercise's entry found.
// One is made per exercise opened and consumed at once, so the size of the
// `Saved` variant costs nothing; boxing it would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Loaded {
    Nothing,
    Saved(Saved),
    /// The entry could not be read; it was set aside under `aside_key`.
    SetAside {
        message: String,
        aside_key: String,
    },
}

impl Playground {
    /// What the autosave writes for the current exercise.
    pub fn saved(&self) -> Saved {
        let starts = self.starts();
        // Kept by removing, not collected: a collected map sorts its
        // input, with a sort compiled for each iterator type.
        let mut edits = self.open.texts.clone();
        edits.retain(|name, text| starts.get(name) != Some(&*text));
        Saved {
            format: SAVE_FORMAT,
            edits,
            seen: self.open.seen.clone(),
            passing: self.counts_solved(),
            own_aside: self.open.own_aside.clone(),
            hunts: self.open.hunted.clone(),
            challenge: self.open.challenge.as_ref().map(|c| c.text.clone()),
            given: self.open.given.clone(),
            working: self.open.working,
            view: self.shown_now(false),
            hints: self.open.hints_shown,
        }
    }

    /// The exercise whose work the autosave may write now: not while its
    /// saved work is still being read, nor while a linked version is shown
    /// over saved work the learner has not chosen to replace.
    pub fn autosaved_exercise(&self) -> Option<&str> {
        // A prerendered page before it hydrates shows the starting texts
        // while its saved work is still being read: saved then, they would
        // stand in storage over the learner's work until the hydrated
        // state was saved again.
        if self.open.opening.is_some()
            || self.open.saved_aside.is_some()
            || self.open.prerendered.is_some()
        {
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
            edits: self.open.view_texts().clone(),
            scenario: shown.as_ref().map(|s| s.scenario.clone()),
            schedule: shown.as_ref().and_then(|s| s.schedule.clone()),
            drive: shown.as_ref().is_some_and(|s| s.drive),
            hunt: shown.as_ref().and_then(|s| s.hunt.clone()),
            step: shown.as_ref().and_then(|s| s.step),
            hints: self.open.hints_shown,
        };
        // A link made in an embed opens as one (without a parent to report to).
        let query = if self.embed {
            format!("?embed=1&exercise={}", link.exercise)
        } else {
            String::new()
        };
        self.open.share_url = Some(format!("{base}{query}#{}", share::encode(&link)));
        self.announcement = "A share link is ready below the Share button.".into();
    }
}
