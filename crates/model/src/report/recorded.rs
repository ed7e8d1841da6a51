//! What a site built with a PostgreSQL server at hand recorded of an
//! exercise's `[postgres]` dialect (issue 53, item 4): the page cannot hold
//! concurrent PostgreSQL sessions, so `fencelab record` runs the reference,
//! the starting texts and each named broken variant on the server when the
//! site is built, and the page shows those verdicts beside its live SQLite
//! ones. Each scenario keeps its history (the timeline's events) only
//! where the server's verdict differs from SQLite's for the same texts.

use super::{ExerciseReport, Verdict};
use serde::{Deserialize, Serialize};

/// The file name a recording is written under in the site's
/// [`RECORDED_DIR`]: the exercise's id, then `.json`.
pub fn recorded_file(exercise: &str) -> String {
    format!("{exercise}.json")
}

/// The site's folder of recordings, beside `exercises/`.
pub const RECORDED_DIR: &str = "postgres";

/// An exercise's verdicts on a PostgreSQL server, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    /// The exercise's id.
    pub exercise: String,
    /// The server it ran on, as it names itself: `PostgreSQL 15.18`.
    pub engine: String,
    /// The reference's run, then the starting texts', then each named
    /// broken variant's, in the exercise's order.
    pub runs: Vec<RecordedRun>,
}

/// Which texts a [`RecordedRun`] ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "texts", content = "name")]
pub enum RecordedTexts {
    Reference,
    Start,
    /// The named broken variant.
    Variant(String),
}

impl RecordedTexts {
    /// What a reader calls these texts.
    pub fn called(&self) -> String {
        match self {
            RecordedTexts::Reference => "the reference".to_string(),
            RecordedTexts::Start => "the starting text".to_string(),
            RecordedTexts::Variant(name) => format!("broken variant {name}"),
        }
    }
}

/// One set of texts run on the server, with SQLite's verdict for the same
/// texts per scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedRun {
    pub texts: RecordedTexts,
    /// The server's report; a scenario whose verdict is SQLite's keeps no
    /// history, tables or beliefs.
    pub report: ExerciseReport,
    /// SQLite's verdict for each scenario of `report`, in its order (`None`
    /// where SQLite has no scenario of that name).
    pub sqlite: Vec<Option<Verdict>>,
}

impl RecordedRun {
    /// The run of `texts`: the server's report `on_server`, compared with
    /// SQLite's `on_sqlite` scenario by scenario; the history of every
    /// scenario whose verdict agrees is dropped.
    pub fn new(
        texts: RecordedTexts,
        mut on_server: ExerciseReport,
        on_sqlite: &ExerciseReport,
    ) -> RecordedRun {
        let sqlite: Vec<Option<Verdict>> = on_server
            .scenarios
            .iter()
            .map(|s| {
                on_sqlite
                    .scenarios
                    .iter()
                    .find(|o| o.name == s.name)
                    .map(|o| o.verdict())
            })
            .collect();
        for (scenario, other) in on_server.scenarios.iter_mut().zip(&sqlite) {
            if *other == Some(scenario.verdict()) {
                scenario.initial_tables.clear();
                scenario.history.clear();
                scenario.beliefs.clear();
            }
        }
        RecordedRun {
            texts,
            report: on_server,
            sqlite,
        }
    }

    /// The indices of the scenarios whose server verdict differs from
    /// SQLite's.
    pub fn differing(&self) -> impl Iterator<Item = usize> + '_ {
        self.report
            .scenarios
            .iter()
            .zip(&self.sqlite)
            .enumerate()
            .filter(|(_, (s, other))| **other != Some(s.verdict()))
            .map(|(index, _)| index)
    }
}
