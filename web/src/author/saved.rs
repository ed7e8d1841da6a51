//! The author's draft, autosaved in localStorage under a format version:
//! one draft per browser (`fencelab:author:draft`), beside the learners'
//! work. An entry this build cannot read is moved aside under a
//! `fencelab:set-aside:` key, never deleted, and reported; so is a draft a
//! link's exercise replaces in the editor.
//!
//! These are the authoring view's effects on storage: its component calls
//! them and hands the reducer what they read. Must never panic.

use crate::entry::{EntryFormat, Versioned};
use crate::storage::{ASIDE_PREFIX, storage};
use serde::{Deserialize, Serialize};

/// The format of a saved draft this build writes and reads.
pub const DRAFT_FORMAT: u32 = 1;
const DRAFT_KEY: &str = "fencelab:author:draft";
/// A draft is an exercise file, at most 256 KiB; an entry past this (the
/// text escaped as JSON) is not read.
const DRAFT_ENTRY_BYTES_MAX: usize = 1024 * 1024;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    format: u32,
    text: String,
}

/// What reading the saved draft found.
#[derive(Clone, Debug, PartialEq)]
pub enum SavedDraft {
    Nothing,
    Text(String),
    /// The entry could not be read, and why; it was set aside under `key`.
    SetAside {
        message: String,
        key: String,
    },
}

impl Versioned for Entry {
    const FORMAT: EntryFormat = EntryFormat {
        name: "draft",
        version: DRAFT_FORMAT,
        bytes_max: DRAFT_ENTRY_BYTES_MAX,
    };

    fn version(&self) -> u32 {
        self.format
    }
}

/// Reads an entry's text, checking its format version.
pub fn parse(entry: &str) -> Result<String, String> {
    crate::entry::read::<Entry>(entry).map(|entry| entry.text)
}

/// The saved draft; an unreadable one is set aside.
pub fn load() -> SavedDraft {
    let Some(storage) = storage() else {
        return SavedDraft::Nothing;
    };
    let Ok(Some(entry)) = storage.get_item(DRAFT_KEY) else {
        return SavedDraft::Nothing;
    };
    match parse(&entry) {
        Ok(text) => SavedDraft::Text(text),
        Err(message) => SavedDraft::SetAside {
            message,
            key: set_aside(&entry).unwrap_or_default(),
        },
    }
}

/// Moves the saved draft's entry aside (a link's exercise takes its place
/// in the editor); the key it is kept under.
pub fn set_aside_saved() -> Option<String> {
    let entry = storage()?.get_item(DRAFT_KEY).ok()??;
    set_aside(&entry)
}

fn set_aside(entry: &str) -> Option<String> {
    let storage = storage()?;
    let key = format!("{ASIDE_PREFIX}author:{}", js_sys::Date::now() as u64);
    storage.set_item(&key, entry).ok()?;
    let _ = storage.remove_item(DRAFT_KEY);
    Some(key)
}

pub fn save(text: &str) {
    let Some(storage) = storage() else { return };
    let entry = Entry {
        format: DRAFT_FORMAT,
        text: text.to_string(),
    };
    if let Ok(json) = serde_json::to_string(&entry) {
        let _ = storage.set_item(DRAFT_KEY, &json);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draft_entry_round_trips_and_a_wrong_one_is_a_sentence() {
        let text = "format = 1\r\nid = \"ünï\"\n";
        let entry = serde_json::to_string(&Entry {
            format: DRAFT_FORMAT,
            text: text.into(),
        })
        .unwrap();
        assert_eq!(parse(&entry).as_deref(), Ok(text));
        assert!(
            parse(r#"{"format":2,"text":""}"#)
                .unwrap_err()
                .contains("format 2")
        );
        assert!(parse("{not json").is_err());
        let unknown = parse(r#"{"format":1,"text":"","extra":1}"#).unwrap_err();
        assert!(!unknown.contains("Entry"), "no Rust type named: {unknown}");
        let huge = format!(
            r#"{{"format":1,"text":"{}"}}"#,
            "a".repeat(DRAFT_ENTRY_BYTES_MAX)
        );
        assert!(parse(&huge).unwrap_err().contains("bytes"));
    }
}
