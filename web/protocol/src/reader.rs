//! The messages between the checking worker and the exercise reader
//! (web/reader), a worker of its own that the checking worker starts the
//! first time a text needs the TOML loader: a site's exercise file, an
//! exercise link's, an author's draft, or a site index in a form other than
//! the one `fencelab index` writes. The checking worker links no TOML or
//! Markdown parser, so a first visit fetches neither.
//!
//! The wire is the same as the page's: JSON text through `encode` and
//! `decode`, each question carrying a `seq` its answer repeats. The reader
//! keeps no state: each question is answered from its text alone.

use crate::Request;
use fencelab_model::LoadError;
use fencelab_model::exercise::Unchecked;
use fencelab_model::site::{IndexError, SiteIndex};
use serde::{Deserialize, Serialize};

/// A text for the reader to read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Read {
    /// An exercise file, read as `fencelab check` reads one, but for its
    /// schema, which SQLite tries in the checking worker. `file` names it
    /// in errors.
    Exercise { file: String, source: String },
    /// A site's index (`SiteIndex::parse`).
    Index { source: String },
}

/// What the reader made of a [`Read`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReadAnswer {
    Exercise(Result<Box<Unchecked>, LoadError>),
    Index(Result<SiteIndex, IndexError>),
    /// The reader could not answer (it could not start, or it failed), and
    /// why.
    Failed(String),
}

/// A question to the reader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadRequest {
    pub seq: u64,
    pub read: Read,
}

/// The reader's answer to the [`ReadRequest`] of the same `seq`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadResponse {
    pub seq: u64,
    pub answer: ReadAnswer,
}

/// What the reader posts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromReader {
    /// Its message handler is installed: a question posted before this
    /// could be lost (its module starts asynchronously), so none is.
    Ready,
    Answered(ReadResponse),
}

impl Request {
    /// The text this request hands over to be read, for the requests the
    /// worker answers from what the reader made of a text: `Install`,
    /// `Author` and `Index`.
    pub fn read(&self) -> Option<Read> {
        match self {
            Request::Install { file, source, .. } | Request::Author { file, source, .. } => {
                Some(Read::Exercise {
                    file: file.clone(),
                    source: source.clone(),
                })
            }
            Request::Index { source, .. } => Some(Read::Index {
                source: source.clone(),
            }),
            _ => None,
        }
    }
}
