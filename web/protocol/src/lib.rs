//! The messages between the page and its Web Worker, and the one codec both
//! sides use.
//!
//! Every request names its exercise and the learner's texts, so the worker
//! keeps no state a page reload could lose, and carries a `seq` that its
//! answer repeats, so the page can route every answer to the request that
//! asked for it (and drop answers to requests it has since replaced).
//!
//! The wire format is the JSON text of a message, posted as a JS string.
//! It is exact where a structured clone of JS values is not: integers keep
//! all 64 bits (a JS number keeps 53), and a real that happens to be whole
//! stays a real (`3.0`; as a JS number it would come back as the integer 3).
//! `encode` and `decode` are the only way messages cross, and a test
//! round-trips a report through them natively and in wasm.
//!
//! Every text a site or an author gives the page (an exercise file, a
//! draft, the site's index) is loaded by the worker: `Install`, `Author`
//! and `Index` carry the text, and their answers carry what the loader
//! made of it, the loaded value or the loader's own error. The page builds
//! the model without its TOML loader, and so does the worker: it hands the
//! text to the exercise reader, a worker of its own started when first
//! needed, with the messages of [`reader`].
//!
//! Must never: depend on the engine (the page links this crate).

pub mod reader;

use fencelab_model::LoadError;
use fencelab_model::history::ResultRows;
use fencelab_model::report::ExerciseCheck;
use fencelab_model::site::{IndexError, SiteIndex};
use fencelab_model::{Drive, Exercise, ExerciseReport, Hunt, ScenarioReport, Schedule};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The procedure texts the learner has edited, by procedure name.
pub type Edits = BTreeMap<String, String>;

/// The largest message either side decodes, in bytes of JSON text.
pub const MESSAGE_BYTES_MAX: usize = 64 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Check every scenario. A newer `Check` supersedes an older one still
    /// running: the worker drops it between scenarios.
    Check {
        seq: u64,
        exercise: String,
        edits: Edits,
    },
    /// Replay one schedule of one scenario.
    Replay {
        seq: u64,
        exercise: String,
        edits: Edits,
        scenario: String,
        schedule: Schedule,
    },
    /// Follow a hand-chosen schedule and stop at the next choice.
    Drive {
        seq: u64,
        exercise: String,
        edits: Edits,
        scenario: String,
        schedule: Schedule,
    },
    /// A drive judged as a hunt ("break it yourself"): as `Drive`, and
    /// once the moves break a guarantee, measured against the shortest
    /// break the checker's exploration finds. Answered `Hunted`.
    Hunt {
        seq: u64,
        exercise: String,
        edits: Edits,
        scenario: String,
        schedule: Schedule,
    },
    /// A read-only query against the world after one history event.
    Query {
        seq: u64,
        exercise: String,
        edits: Edits,
        scenario: String,
        schedule: Schedule,
        event_index: usize,
        sql: String,
    },
    /// Which lines of these texts (which pass every scenario) the scenarios
    /// protect: every generated mutant of the editable procedures is run
    /// against the whole suite. Slow, so the worker judges one mutant at a
    /// time and drops the job when any newer job arrives (`Request::is_job`).
    Protect {
        seq: u64,
        exercise: String,
        edits: Edits,
    },
    /// Adds an exercise that is not bundled (a site's own, or one an
    /// exercise link carries) from its TOML text, loaded as `fencelab check`
    /// loads a file; `file` names it in errors. The first exercise of an id
    /// is installed; a later one of a taken id (a bundled exercise's, or one
    /// installed before) is loaded and answered but not installed, as the
    /// page leaves it out: the two lists stay equal. Answered `Installed`
    /// with what the loader made of it.
    ///
    /// A `file` named `ID` + [`PRERENDERED_SUFFIX`] is instead one of the
    /// site's exercises as the page of a site exercise carries it (its
    /// loaded form, web/prerender), installed before the site's files are
    /// fetched, so the page hydrated from it is checked at once: the site's
    /// own file of that id, installed later, takes its place.
    Install {
        seq: u64,
        file: String,
        source: String,
    },
    /// A draft exercise of the authoring view. With `check` false: loaded
    /// as the page would load it (everything but the schema), answered at
    /// once with `Drafted`; the view sends one on every change. With
    /// `check`: what `fencelab check` says of it, loaded as `check` loads a
    /// file, then the reference, the starting texts and every named broken
    /// variant run against every scenario, answered `Authored`; a job, like
    /// `Check`: a newer `Check`, `Protect` or checking `Author` drops it
    /// between runs. Never installed.
    Author {
        seq: u64,
        file: String,
        source: String,
        check: bool,
    },
    /// A site's `exercises/index.toml`, read as the page reads an index
    /// (`SiteIndex::parse`: untrusted text). Answered `Indexed`.
    Index { seq: u64, source: String },
    /// Sent by web/start-worker.js, not by the app, as the page's HTML
    /// arrives: check this exercise's starting texts now, because the
    /// page's first view (prerendered) shows it and the app will ask for
    /// that check once it has started. Answered with nothing: the app's own
    /// `Check` of the same texts takes the check over (its seq on the check
    /// under way, or the finished report at once). Ignored once the worker
    /// has been sent any job, and for an exercise it does not have.
    Prepare { exercise: String },
}

/// The end of an `Install`'s file name that hands over an exercise in its
/// loaded form (`{"Ok": [exercise]}`, as `fencelab_model::bundled` reads
/// the bundled ones) rather than its TOML: see [`Request::Install`].
pub const PRERENDERED_SUFFIX: &str = ".prerendered.json";

impl Request {
    pub fn seq(&self) -> u64 {
        match self {
            Request::Check { seq, .. }
            | Request::Replay { seq, .. }
            | Request::Drive { seq, .. }
            | Request::Hunt { seq, .. }
            | Request::Query { seq, .. }
            | Request::Protect { seq, .. }
            | Request::Install { seq, .. }
            | Request::Author { seq, .. }
            | Request::Index { seq, .. } => *seq,
            // Answered with nothing, and so with no seq of its own.
            Request::Prepare { .. } => 0,
        }
    }

    /// The exercise the request names: every request but those that hand
    /// over a text to be read.
    pub fn exercise(&self) -> Option<&str> {
        match self {
            Request::Check { exercise, .. }
            | Request::Replay { exercise, .. }
            | Request::Drive { exercise, .. }
            | Request::Hunt { exercise, .. }
            | Request::Query { exercise, .. }
            | Request::Protect { exercise, .. }
            | Request::Prepare { exercise } => Some(exercise),
            Request::Install { .. } | Request::Author { .. } | Request::Index { .. } => None,
        }
    }

    /// Whether the worker runs this as a job, a piece per event-loop task,
    /// of which only the newest is wanted: a newer job supersedes it.
    pub fn is_job(&self) -> bool {
        matches!(
            self,
            Request::Check { .. } | Request::Protect { .. } | Request::Author { check: true, .. }
        )
    }
}

/// What the loader made of a draft: [`Response::Drafted`]'s result.
pub type DraftResult = Result<Box<Exercise>, LoadError>;
/// What `fencelab check` made of a draft: [`Response::Authored`]'s result.
pub type AuthoredResult = Result<ExerciseCheck, LoadError>;

/// An answer's part that is skipped, unread: serde's `IgnoredAny`.
pub use serde::de::IgnoredAny as Unread;

/// The worker's answers as the playground reads them: it never asks the
/// authoring view's questions, so the results of `Drafted` and `Authored`
/// are skipped unread, and its wasm links no reader of an exercise check
/// or a kill matrix.
pub type PlaygroundResponse = Response<Unread, Unread>;

/// An answer of the worker. `D` and `A` are the results of [`Response::Drafted`]
/// and [`Response::Authored`]: by default as the worker writes them and
/// the authoring view reads them, [`Unread`] in [`PlaygroundResponse`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Response<D = DraftResult, A = AuthoredResult> {
    /// The worker has installed its message handler; requests sent before
    /// this would be lost. Carries the worker's SQLite version.
    Ready {
        sqlite_version: String,
    },
    Checked {
        seq: u64,
        report: ExerciseReport,
    },
    Replayed {
        seq: u64,
        report: ScenarioReport,
    },
    Driven {
        seq: u64,
        drive: Drive,
    },
    /// Boxed: a drive's report and a verdict, far larger than the rest.
    Hunted {
        seq: u64,
        hunt: Box<Hunt>,
    },
    Queried {
        seq: u64,
        result: Result<ResultRows, String>,
    },
    Protection {
        seq: u64,
        report: ProtectionReport,
    },
    /// What the worker made of the file of `Install` `seq`. Boxed: an
    /// exercise, far larger than the rest.
    Installed {
        seq: u64,
        installation: Box<Installation>,
    },
    /// What the loader made of the draft of a non-checking `Author` `seq`:
    /// the exercise (its schema untried), or the loader's error at its
    /// file, line and column.
    Drafted {
        seq: u64,
        result: D,
    },
    /// The site's index of `Index` `seq`, or why it cannot be used.
    Indexed {
        seq: u64,
        result: Result<SiteIndex, IndexError>,
    },
    /// What `fencelab check` found in the draft of `Author` `seq`, or why
    /// the draft cannot be loaded (at its file, line and column).
    Authored {
        seq: u64,
        result: A,
    },
    /// A piece of the job `seq` (a check's scenario, a protection's
    /// mutant) is done and the worker goes on: the page's watchdog measures
    /// each piece, not the whole job. The page's engine keeps it to itself.
    Working {
        seq: u64,
    },
    /// The request `seq` could not be served (an unknown exercise or
    /// scenario, texts that do not parse). `seq` 0 is no request: the
    /// worker itself failed, or a message could not be read.
    Failed {
        seq: u64,
        message: String,
    },
}

impl<D, A> Response<D, A> {
    /// The request this answers; `None` for `Ready`, which answers none.
    pub fn seq(&self) -> Option<u64> {
        match self {
            Response::Ready { .. } => None,
            Response::Checked { seq, .. }
            | Response::Replayed { seq, .. }
            | Response::Driven { seq, .. }
            | Response::Hunted { seq, .. }
            | Response::Queried { seq, .. }
            | Response::Protection { seq, .. }
            | Response::Installed { seq, .. }
            | Response::Drafted { seq, .. }
            | Response::Indexed { seq, .. }
            | Response::Authored { seq, .. }
            | Response::Working { seq }
            | Response::Failed { seq, .. } => Some(*seq),
        }
    }
}

/// What became of an exercise file the page asked the worker to install:
/// its entry in the site's list of exercises, which the worker alone keeps
/// (which id is listed, from which file, and which the page arrived with).
/// The page lists what this says, in the order it asked, and words why a
/// file is left out; it decides nothing about ids itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Installation {
    /// Listed after the exercises listed before it.
    Listed(Listed),
    /// Listed in the place of the copy of its id the page arrived with (a
    /// site exercise's prerendered page carried it), which it replaces.
    Replaced(Listed),
    /// Not listed, and why.
    LeftOut(LeftOut),
}

impl Installation {
    /// The id of the exercise the file holds; `None` when it does not load.
    pub fn id(&self) -> Option<&str> {
        match self {
            Installation::Listed(listed) | Installation::Replaced(listed) => {
                Some(&listed.exercise.id)
            }
            Installation::LeftOut(LeftOut::IdTaken { id, .. }) => Some(id),
            Installation::LeftOut(LeftOut::Unloadable(_)) => None,
        }
    }
}

/// An exercise the worker lists: loaded, so the page lists it without
/// parsing it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Listed {
    pub exercise: Exercise,
    /// Why it cannot be checked, when its schema fails on SQLite (the
    /// error placed at the schema): listed all the same, never installed.
    pub schema_error: Option<LoadError>,
}

/// Why the worker does not list an exercise file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LeftOut {
    /// The file does not load: the loader's own error (the sentence
    /// `fencelab check` prints).
    Unloadable(LoadError),
    /// It loads, but its id is listed already: a bundled exercise's
    /// (`holder` is `None`) or the one the file `holder` was installed from.
    IdTaken { id: String, holder: Option<String> },
}

pub use fencelab_model::protection::{
    Caught, LineMark, LineStatus, ProcedureMarks, ProtectionReport,
};

/// A message that could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub message: String,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The text sent for `message`.
///
/// Limitation: JSON has no infinite numbers, and serde_json writes a
/// non-finite real (`SELECT 1e999` is +Inf in SQLite) as `null`, so it
/// arrives as NULL. SQLite itself stores NaN as NULL.
pub fn encode<T: Serialize>(message: &T) -> String {
    // Serializing these types cannot fail (every map key is a string), but
    // a failure would be a message the other side never gets: say so rather
    // than panic.
    serde_json::to_string(message).unwrap_or_else(|error| {
        let message = format!("a message could not be encoded: {error}");
        serde_json::to_string(&EncodeFailed::Failed {
            seq: 0,
            message: &message,
        })
        .unwrap_or_default()
    })
}

/// [`Response::Failed`]'s JSON, written without [`Response`]'s own
/// `Serialize`: the page encodes only requests, and through this fallback
/// it carried the code that writes every response (the reports, the
/// exercises) without ever sending one.
#[derive(Serialize)]
enum EncodeFailed<'a> {
    Failed { seq: u64, message: &'a str },
}

/// Reads a message back from its text.
pub fn decode<T: DeserializeOwned>(text: &str) -> Result<T, DecodeError> {
    if text.len() > MESSAGE_BYTES_MAX {
        return Err(DecodeError {
            message: format!(
                "a message of {} bytes is larger than the {MESSAGE_BYTES_MAX} read",
                text.len()
            ),
        });
    }
    serde_json::from_str(text).map_err(|error| DecodeError {
        message: error.to_string(),
    })
}

/// The `seq` of a request that could not be decoded, so the worker can still
/// answer it with `Failed` (0 when the text carries none). Every request is
/// `{"Kind": {"seq": N, ...}}`.
pub fn seq_of_request(text: &str) -> u64 {
    if text.len() > MESSAGE_BYTES_MAX {
        return 0;
    }
    let Ok(serde_json::Value::Object(outer)) = serde_json::from_str(text) else {
        return 0;
    };
    outer
        .values()
        .next()
        .and_then(|inner| inner.get("seq"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
}
