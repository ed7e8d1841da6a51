//! Autosave: each exercise's work in localStorage, in the format of the
//! state's `Saved` (state/saved.rs), which reads it back.
//!
//! An entry this build cannot read (corrupt, or from another format) is
//! moved aside under a `set-aside` key, never deleted, and reported once;
//! the exercise then starts from its starting text.
//!
//! These functions are the page's effects on storage: the app's effects call
//! them and dispatch what they read; the reducer (state/) never does. Must
//! never panic.

use crate::state::{Loaded, OpenFocus, Progress, Saved, Setting, Theme};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
/// Undo histories larger than this are neither written nor read.
const HISTORY_BYTES_MAX: usize = 256 * 1024;

pub(crate) fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn load(exercise: &str) -> Loaded {
    let Some(storage) = storage() else {
        return Loaded::Nothing;
    };
    let key = format!("{WORK_PREFIX}{exercise}");
    let Ok(Some(text)) = storage.get_item(&key) else {
        return Loaded::Nothing;
    };
    match Saved::parse(&text) {
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
    Saved::parse(&text).ok()
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
