//! A failure's cause or an error's kind, in one of two forms: as data,
//! where the check ran, or as the words a reader of the report's JSON
//! keeps of it: its kind's name (the JSON tag) and its sentence.
//!
//! The page reads every report it shows from the worker's JSON and shows
//! no more than those words. Reading the data (violations, mismatches,
//! misfits, limits) would put a reader for every part of it into the
//! page's wasm, about 23 KB brotli of it, for nothing shown. So the JSON
//! carries both, and a reader takes the words: [`super::Failure`] and
//! [`super::ScenarioError`] each hold a `Said`, and are equal when they say
//! the same thing, whichever form each is in.

use serde::{Deserialize, Serialize};

/// Data that names its kind by a tag, as its JSON's `kind` field does.
pub(super) trait Tagged {
    type Tag: Copy;
    fn tag(&self) -> Self::Tag;
}

#[derive(Clone, Debug)]
pub(super) enum Said<D, T> {
    /// Boxed: the data carries its sentence's parts (rows, names), and a
    /// failure or an error travels through every step of a run.
    Data(Box<D>),
    /// Read from JSON: the tag and the sentence its holder says.
    Words { tag: T, message: String },
}

impl<D: Tagged<Tag = T>, T: Copy> Said<D, T> {
    pub fn data(&self) -> Option<&D> {
        match self {
            Said::Data(data) => Some(data),
            Said::Words { .. } => None,
        }
    }

    pub fn tag(&self) -> T {
        match self {
            Said::Data(data) => data.tag(),
            Said::Words { tag, .. } => *tag,
        }
    }

    /// What is written in the data's place: the data, or for words only
    /// the tag (they kept no more).
    pub fn into_json(self) -> DataJson<D, T> {
        match self {
            Said::Data(data) => DataJson::Data(data),
            Said::Words { tag, .. } => DataJson::Tag { kind: tag },
        }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum DataJson<D, T> {
    Data(Box<D>),
    Tag { kind: T },
}

/// Of the data's JSON, what a reader takes: its tag.
#[derive(Deserialize)]
pub(super) struct TagRead<T> {
    pub kind: T,
}
