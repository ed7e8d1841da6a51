//! Autosave: each exercise's work in localStorage, under a format version.
//!
//! An entry this build cannot read (corrupt, or from another format) is
//! moved aside under a `set-aside` key, never deleted, and reported once;
//! the exercise then starts from its starting text.
//!
//! These functions are the page's effects on storage: the app's effects call
//! them and dispatch what they read; the reducer (state/) never does. Must
//! never panic.

use crate::share::Shown;
use crate::state::{FoundBreak, Given, HuntText, OpenFocus, Setting, Theme};
use fencelab_protocol::Edits;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The format of saved entries this build writes and reads. Fields added
/// since (each with a default) keep the format: an older entry still reads.
pub const SAVE_FORMAT: u32 = 1;
const WORK_PREFIX: &str = "fencelab:work:";
pub(crate) const ASIDE_PREFIX: &str = "fencelab:set-aside:";
/// The learner's choice of theme: `light` or `dark`; none follows the system.
/// web/boot.js reads it too, before the first paint.
const THEME_KEY: &str = "fencelab:theme";
/// Where the focus goes as another exercise opens: `editor`; none (or
/// anything else) is the title.
const OPEN_FOCUS_KEY: &str = "fencelab:open-focus";
/// The editors' undo history, per exercise and procedure: a convenience
/// beside the work, so one this build cannot read is dropped, not set aside.
const HISTORY_PREFIX: &str = "fencelab:history:";
/// The format of a saved undo history.
const HISTORY_FORMAT: u32 = 1;
/// Entries larger than this are not read (a procedure is at most 16 KiB).
const SAVED_ENTRY_BYTES_MAX: usize = 512 * 1024;
/// Undo histories larger than this are neither written nor read.
const HISTORY_BYTES_MAX: usize = 256 * 1024;

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

impl Saved {
    pub fn progress(&self) -> Progress {
        Progress {
            seen: self.seen.len(),
            solved: self.passing,
            hunted: self.hunts.len(),
        }
    }
}

/// What the exercise list shows for an exercise: broken variants seen
/// failing, whether the learner's own text passes every scenario, and the
/// breaks found by hand in challenges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub seen: usize,
    pub solved: bool,
    pub hunted: usize,
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

pub(crate) fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Parses an entry's text, checking its format version.
pub fn parse(text: &str) -> Result<Saved, String> {
    if text.len() > SAVED_ENTRY_BYTES_MAX {
        return Err(format!(
            "it is {} bytes, more than the {SAVED_ENTRY_BYTES_MAX} read",
            text.len()
        ));
    }
    let saved: Saved =
        serde_json::from_str(text).map_err(|e| crate::share::json_error_in_words(&e))?;
    if saved.format != SAVE_FORMAT {
        return Err(format!(
            "it is in save format {}, and this page reads format {SAVE_FORMAT}",
            saved.format
        ));
    }
    Ok(saved)
}

pub fn load(exercise: &str) -> Loaded {
    let Some(storage) = storage() else {
        return Loaded::Nothing;
    };
    let key = format!("{WORK_PREFIX}{exercise}");
    let Ok(Some(text)) = storage.get_item(&key) else {
        return Loaded::Nothing;
    };
    match parse(&text) {
        Ok(saved) => Loaded::Saved(saved),
        Err(message) => {
            let aside_key = format!("{ASIDE_PREFIX}{exercise}:{}", js_sys::Date::now() as u64);
            let _ = storage.set_item(&aside_key, &text);
            let _ = storage.remove_item(&key);
            Loaded::SetAside { message, aside_key }
        }
    }
}

/// Reads an entry only to show progress; never moves anything.
pub fn peek(exercise: &str) -> Option<Saved> {
    let text = storage()?
        .get_item(&format!("{WORK_PREFIX}{exercise}"))
        .ok()??;
    parse(&text).ok()
}

/// The progress saved for each of `exercises` that has a readable entry.
pub fn progress<'a>(exercises: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, Progress> {
    // Inserted, not collected: a collected map sorts its input, with a
    // sort compiled for each iterator type.
    let mut progress = BTreeMap::new();
    for id in exercises {
        if let Some(saved) = peek(id) {
            progress.insert(id.to_string(), saved.progress());
        }
    }
    progress
}

pub fn save(exercise: &str, saved: &Saved) {
    let Some(storage) = storage() else { return };
    if let Ok(text) = serde_json::to_string(saved) {
        let _ = storage.set_item(&format!("{WORK_PREFIX}{exercise}"), &text);
    }
}

/// The theme the learner chose (`System` when none, or unreadable).
pub fn theme() -> Theme {
    Theme::from_name(&setting(THEME_KEY))
}

/// Remembers the learner's theme; `System` forgets the choice.
pub fn save_theme(theme: Theme) {
    save_setting(THEME_KEY, (theme != Theme::System).then(|| theme.name()));
}

/// Where the learner wants the focus as another exercise opens (the title
/// when none is stored, or a value this build does not know).
pub fn open_focus() -> OpenFocus {
    OpenFocus::from_name(&setting(OPEN_FOCUS_KEY))
}

/// Remembers where the focus goes as another exercise opens; the title,
/// the default, forgets the choice.
pub fn save_open_focus(focus: OpenFocus) {
    save_setting(
        OPEN_FOCUS_KEY,
        (focus != OpenFocus::Title).then(|| focus.name()),
    );
}

/// The name a setting of the page (the theme, the focus on opening) is
/// stored under `key` as; empty when none is, or storage is unreadable.
fn setting(key: &str) -> String {
    storage()
        .and_then(|s| s.get_item(key).ok().flatten())
        .unwrap_or_default()
}

/// Stores the setting's `name` under `key`; `None` (its default) forgets
/// the choice.
fn save_setting(key: &str, name: Option<&str>) {
    let Some(storage) = storage() else { return };
    let _ = match name {
        Some(name) => storage.set_item(key, name),
        None => storage.remove_item(key),
    };
}

/// A saved undo history: CodeMirror's own JSON of the editor's state.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct History {
    format: u32,
    state: serde_json::Value,
}

fn history_key(exercise: &str, procedure: &str) -> String {
    format!("{HISTORY_PREFIX}{exercise}:{procedure}")
}

/// The editor state (text and undo history) saved for one procedure, as
/// CodeMirror's JSON text; `None` when there is none this build reads.
pub fn history(exercise: &str, procedure: &str) -> Option<String> {
    let text = storage()?
        .get_item(&history_key(exercise, procedure))
        .ok()??;
    if text.len() > HISTORY_BYTES_MAX {
        return None;
    }
    let history: History = serde_json::from_str(&text).ok()?;
    (history.format == HISTORY_FORMAT).then(|| history.state.to_string())
}

/// Saves one procedure's editor state (CodeMirror's JSON text); one too
/// large to keep is removed instead, so an older one never comes back.
pub fn save_history(exercise: &str, procedure: &str, state: &str) {
    let Some(storage) = storage() else { return };
    let key = history_key(exercise, procedure);
    let text = serde_json::from_str(state)
        .ok()
        .and_then(|state| {
            serde_json::to_string(&History {
                format: HISTORY_FORMAT,
                state,
            })
            .ok()
        })
        .filter(|text| text.len() <= HISTORY_BYTES_MAX);
    let _ = match text {
        Some(text) => storage.set_item(&key, &text),
        None => storage.remove_item(&key),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_from_before_seen_variants_and_saved_views_still_reads() {
        let saved =
            parse(r#"{"format":1,"edits":{},"caught":["read, then write"],"passing":true}"#)
                .expect("an older entry reads");
        assert!(saved.seen.contains("read, then write"));
        assert_eq!((saved.given, saved.view, saved.hints), (None, None, 0));
    }

    #[test]
    fn a_saved_entry_round_trips_and_a_wrong_one_is_an_error() {
        let mut saved = Saved {
            format: SAVE_FORMAT,
            ..Saved::default()
        };
        saved.edits.insert("claim".into(), "SELECT 1;".into());
        let text = serde_json::to_string(&saved).unwrap();
        assert_eq!(parse(&text), Ok(saved));
        assert!(parse("{not json").is_err());
        assert!(
            parse(r#"{"format":99,"edits":{}}"#)
                .unwrap_err()
                .contains("format 99")
        );
    }
}
