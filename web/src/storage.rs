//! Autosave: each exercise's work in localStorage, under a format version.
//!
//! An entry this build cannot read (corrupt, or from another format) is
//! moved aside under a `set-aside` key, never deleted, and reported once;
//! the exercise then starts from its starting text.
//!
//! These functions are the page's effects on storage: the app's effects call
//! them and dispatch what they read; the reducer (state/) never does. Must
//! never panic.

use fencelab_protocol::Edits;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The format of saved entries this build writes and reads.
pub const SAVE_FORMAT: u32 = 1;
const WORK_PREFIX: &str = "fencelab:work:";
const ASIDE_PREFIX: &str = "fencelab:set-aside:";
/// Entries larger than this are not read (a procedure is at most 16 KiB).
const SAVED_ENTRY_BYTES_MAX: usize = 512 * 1024;

/// One exercise's saved work and progress.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Saved {
    pub format: u32,
    pub edits: Edits,
    /// Broken variants the learner has loaded and watched being caught.
    #[serde(default)]
    pub caught: BTreeSet<String>,
    /// Whether the saved text passed every scenario when last checked.
    #[serde(default)]
    pub passing: bool,
}

impl Saved {
    pub fn progress(&self) -> Progress {
        Progress {
            caught: self.caught.len(),
            passing: self.passing,
        }
    }
}

/// What the exercise list shows for an exercise: broken variants caught,
/// and whether the saved text passed every scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub caught: usize,
    pub passing: bool,
}

/// What reading an exercise's entry found.
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

fn storage() -> Option<web_sys::Storage> {
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
    exercises
        .into_iter()
        .filter_map(|id| Some((id.to_string(), peek(id)?.progress())))
        .collect()
}

pub fn save(exercise: &str, saved: &Saved) {
    let Some(storage) = storage() else { return };
    if let Ok(text) = serde_json::to_string(saved) {
        let _ = storage.set_item(&format!("{WORK_PREFIX}{exercise}"), &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
